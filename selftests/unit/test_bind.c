// SPDX-License-Identifier: GPL-2.0
/* Unit tests: port security (lib/core/bind.c), bind at JOIN, wrong port, spoof, move. */
#include <string.h>
#include <optinc/bind.h>
#include "kselftest_harness.h"

FIXTURE(bind) {
	struct optinc_bind b;
	struct optinc_job job;
	struct optinc_endpoint ep[4];
};

FIXTURE_SETUP(bind)
{
	int r;

	optinc_bind_init(&self->b);
	memset(&self->job, 0, sizeof(self->job));
	self->job.id = 7;
	self->job.size = 4;
	self->job.token = 0x5eed;
	for (r = 0; r < 4; r++) {
		memset(&self->ep[r], 0, sizeof(self->ep[r]));
		self->ep[r].mac[0] = 0x02;
		self->ep[r].mac[5] = (__u8)(r + 1);
		self->ep[r].ip = 0x0100000a + (r << 24);
		self->ep[r].port = (__be16)(1000 + r);
	}
}

FIXTURE_TEARDOWN(bind)
{
}

static struct optinc_msg msg(__u8 type, __u16 rank, __u32 token)
{
	struct optinc_msg m = { .type = type, .job = 7, .rank = rank,
				.token = token };

	return m;
}

/* Rank r on switch port 10 + r. */
static int bind_all(struct _test_data_bind *self)
{
	struct optinc_endpoint old;
	__u32 oldp;
	int r;

	for (r = 0; r < 4; r++)
		if (optinc_bind_join(&self->b, r, &self->ep[r], 10 + r, &old,
				     &oldp) != OPTINC_BIND_NEW)
			return -1;
	return 0;
}

TEST_F(bind, unbound_passes)
{
	struct optinc_msg m = msg(OPTINC_T_DATA, 0, 0x5eed);
	__u32 port;

	EXPECT_EQ(OPTINC_BIND_PASS, optinc_bind_rx(&self->b, &self->job, &m,
						   &self->ep[3], 13, 0));
	EXPECT_EQ(-ENOENT, optinc_bind_port(&self->b, 0, &port));
}

TEST_F(bind, data_from_bound_port_passes)
{
	struct optinc_msg m = msg(OPTINC_T_DATA, 1, 0x5eed);
	__u32 port = 0;

	ASSERT_EQ(0, bind_all(self));
	EXPECT_EQ(OPTINC_BIND_PASS, optinc_bind_rx(&self->b, &self->job, &m,
						   &self->ep[1], 11, 0));
	EXPECT_EQ(0, optinc_bind_port(&self->b, 1, &port));
	EXPECT_EQ(11, port);
}

/* The right token, the member's IP and UDP port, from another port. */
TEST_F(bind, data_from_other_port_is_wrong_port)
{
	struct optinc_msg m = msg(OPTINC_T_DATA, 0, 0x5eed);
	struct optinc_endpoint src = self->ep[0];

	ASSERT_EQ(0, bind_all(self));
	EXPECT_EQ(OPTINC_BIND_WRONG_PORT, optinc_bind_rx(&self->b, &self->job,
						&m, &src, 13, 0));
	/* from the bound port, but another MAC: not the member either */
	src.mac[5] = 0x77;
	EXPECT_EQ(OPTINC_BIND_WRONG_PORT, optinc_bind_rx(&self->b, &self->job,
						&m, &src, 10, 0));
}

/* The hijack: rank 0's MAC from rank 3's port, any frame but its own move. */
TEST_F(bind, spoofed_mac_is_spoof)
{
	struct optinc_msg d = msg(OPTINC_T_DATA, 0, 0x5eed);
	struct optinc_msg j = msg(OPTINC_T_JOIN, 0, 0x1234);

	ASSERT_EQ(0, bind_all(self));
	EXPECT_EQ(OPTINC_BIND_SPOOF, optinc_bind_rx(&self->b, &self->job, &d,
						    &self->ep[0], 13, 1));
	/* a JOIN without the token */
	EXPECT_EQ(OPTINC_BIND_SPOOF, optinc_bind_rx(&self->b, &self->job, &j,
						    &self->ep[0], 13, 1));
	/* with the token, but for a rank whose binding has another MAC */
	j = msg(OPTINC_T_JOIN, 2, 0x5eed);
	EXPECT_EQ(OPTINC_BIND_SPOOF, optinc_bind_rx(&self->b, &self->job, &j,
						    &self->ep[0], 13, 1));
	/* for a rank not bound yet (another tenant's own job, say) */
	optinc_bind_init(&self->b);
	j = msg(OPTINC_T_JOIN, 0, 0x5eed);
	EXPECT_EQ(OPTINC_BIND_SPOOF, optinc_bind_rx(&self->b, &self->job, &j,
						    &self->ep[0], 13, 1));
}

/* A member that really moves: JOIN with the token from a new port. */
TEST_F(bind, rejoin_from_new_port_moves)
{
	struct optinc_msg j = msg(OPTINC_T_JOIN, 0, 0x5eed);
	struct optinc_msg d = msg(OPTINC_T_DATA, 0, 0x5eed);
	struct optinc_endpoint old;
	__u32 oldp = 0, port = 0;

	ASSERT_EQ(0, bind_all(self));
	ASSERT_EQ(OPTINC_BIND_PASS, optinc_bind_rx(&self->b, &self->job, &j,
						   &self->ep[0], 20, 1));
	ASSERT_EQ(OPTINC_BIND_MOVED, optinc_bind_join(&self->b, 0,
				&self->ep[0], 20, &old, &oldp));
	EXPECT_EQ(10, oldp);
	EXPECT_EQ(0, memcmp(old.mac, self->ep[0].mac, 6));
	EXPECT_EQ(0, optinc_bind_port(&self->b, 0, &port));
	EXPECT_EQ(20, port);
	EXPECT_EQ(OPTINC_BIND_PASS, optinc_bind_rx(&self->b, &self->job, &d,
						   &self->ep[0], 20, 0));
	EXPECT_EQ(OPTINC_BIND_WRONG_PORT, optinc_bind_rx(&self->b, &self->job,
							 &d, &self->ep[0], 10, 0));
}

/* A restarted process: new UDP port, same MAC and switch port. */
TEST_F(bind, new_udp_port_same_port_is_same)
{
	struct optinc_endpoint src = self->ep[1], old;
	__u32 oldp;

	ASSERT_EQ(0, bind_all(self));
	src.port = 4242;
	EXPECT_EQ(OPTINC_BIND_SAME, optinc_bind_join(&self->b, 1, &src, 11,
						     &old, &oldp));
	EXPECT_EQ(4242, self->b.ep[1].port);
	/* a new MAC on the same port is a move */
	src.mac[5] = 0x55;
	EXPECT_EQ(OPTINC_BIND_MOVED, optinc_bind_join(&self->b, 1, &src, 11,
						      &old, &oldp));
}

TEST_F(bind, join_passes_unspoofed)
{
	struct optinc_msg j = msg(OPTINC_T_JOIN, 0, 0);

	ASSERT_EQ(0, bind_all(self));
	/* no token: optinc_job_rx() drops it as bad_token */
	EXPECT_EQ(OPTINC_BIND_PASS, optinc_bind_rx(&self->b, &self->job, &j,
						   &self->ep[3], 13, 0));
}

TEST(l2_and_arp)
{
	struct optinc_endpoint sw = { .ip = 0xfe00000a };

	EXPECT_EQ(0, optinc_bind_l2_spoof(0, 0));
	EXPECT_EQ(0, optinc_bind_l2_spoof(1, 1));
	EXPECT_EQ(1, optinc_bind_l2_spoof(1, 0));
	EXPECT_EQ(0, optinc_bind_arp_ok(0xfe00000a, &sw));
	EXPECT_EQ(1, optinc_bind_arp_ok(0x0100000a, &sw));
}

TEST_HARNESS_MAIN
