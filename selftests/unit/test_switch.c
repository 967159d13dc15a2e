// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the switch's rules (lib/core/switch.c) as every datapath
 * runs them: for each kind of message, exactly which frames go to whom,
 * what is counted and which MACs are pinned. The datapath here records
 * what the rules ask of it; every frame it is given must parse back.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <optinc/switch.h>
#include <uapi/linux/optinc.h>
#include "kselftest_harness.h"

#define W	4
#define MAXE	64
#define N	4
#define TOKEN	42
#define MAXTX	16

struct rec {
	struct { int rank; __u8 type; __u32 seq; } tx[MAXTX];
	int ntx;
	unsigned int ev[OPTINC_SW_NR_EVENTS];
	int results;		/* what the results op returns */
	__u64 ctr[OPTINC_STATS_A_MAX + 1];	/* the job's, by the plan */
	__u32 dropped_why;
	int pins, moves;
	__u32 moved_from;
	int limit;		/* limited() says yes */
	__u32 room;		/* of a frame; 0: the whole buffer */
	__u8 buf[OPTINC_FRAME_OVERHEAD + 64 + 4 * MAXE];
};

static int rec_alloc(void *dp, struct optinc_job *job,
		     const struct optinc_sw_msg *in, int rank, __u32 len,
		     struct optinc_sw_frame *f)
{
	struct rec *r = dp;

	f->buf = r->buf;
	f->room = r->room ? r->room : sizeof(r->buf);
	return 0;
}

static int rec_send(void *dp, struct optinc_job *job,
		    const struct optinc_sw_msg *in, int rank,
		    struct optinc_sw_frame *f, __u32 len)
{
	struct rec *r = dp;
	struct optinc_l2l4 l;
	struct optinc_msg m;

	if (!len || r->ntx == MAXTX)
		return -EINVAL;
	if (optinc_parse_l2l4(r->buf, len, OPTINC_UDP_PORT + 1, &l) != 1 ||
	    optinc_msg_parse(r->buf + l.l4_off, l.l4_len, &m))
		return -EPROTO;
	r->tx[r->ntx].rank = rank;
	r->tx[r->ntx].type = m.type;
	r->tx[r->ntx].seq = m.seq;
	r->ntx++;
	return 0;
}

static void rec_count(void *dp, struct optinc_job *job,
		      const struct optinc_sw_msg *in, enum optinc_sw_event ev,
		      __u32 arg)
{
	struct rec *r = dp;
	unsigned int c;
	__u32 n;

	r->ev[ev]++;
	if (ev == OPTINC_SW_DROPPED)
		r->dropped_why = arg;
	c = optinc_sw_job_counter(ev, arg, &n);
	if (job)	/* as both datapaths count a job (sw_count.c) */
		r->ctr[c] += n;
}

static void rec_pin(void *dp, struct optinc_job *job,
		    const struct optinc_sw_msg *in,
		    const struct optinc_endpoint *old, __u32 old_port)
{
	struct rec *r = dp;

	r->pins++;
	if (old) {
		r->moves++;
		r->moved_from = old_port;
	}
}

static int rec_limited(void *dp, struct optinc_job *job,
		       const struct optinc_sw_msg *in)
{
	return ((struct rec *)dp)->limit;
}

static const struct optinc_sw_ops rec_ops = {
	.alloc = rec_alloc, .send = rec_send, .count = rec_count,
	.pin = rec_pin, .limited = rec_limited,
};

/* Unit T on one payload, as a datapath with a results op does it. */
static int rec_results(void *dp, struct optinc_job *job,
		       const struct optinc_slot *s)
{
	return ((struct rec *)dp)->results;
}

static const struct optinc_sw_ops rec_ops_shared = {
	.alloc = rec_alloc, .send = rec_send, .count = rec_count,
	.pin = rec_pin, .limited = rec_limited, .results = rec_results,
};

FIXTURE(sw) {
	struct optinc_job job;
	struct optinc_bind bind;
	void *mem;
	struct optinc_endpoint self_ep, ep[N + 1];
	struct rec rec;
	struct optinc_sw sw;
	__u8 data[N][MAXE];
	__s8 scales[1];
};

FIXTURE_SETUP(sw)
{
	int r;

	memset(&self->job, 0, sizeof(self->job));
	self->job.id = 9;
	self->job.size = N;
	self->job.token = TOKEN;
	self->job.window = W;
	self->job.max_elems = MAXE;
	self->mem = aligned_alloc(8, optinc_job_mem(W, MAXE));
	ASSERT_NE(NULL, self->mem);
	ASSERT_EQ(0, optinc_job_init(&self->job, self->mem,
				     optinc_job_mem(W, MAXE)));
	optinc_bind_init(&self->bind);
	memset(self->ep, 0, sizeof(self->ep));
	for (r = 0; r <= N; r++) {
		self->ep[r].mac[0] = 0x02;
		self->ep[r].mac[5] = (__u8)(r + 1);
		self->ep[r].ip = 0x0100000a + (r << 24);
		/* the ranks' UDP port, where rec_send parses frames to */
		self->ep[r].port = htons(OPTINC_UDP_PORT + 1);
	}
	memset(&self->self_ep, 0, sizeof(self->self_ep));
	self->self_ep.mac[5] = 0xfe;
	self->self_ep.ip = 0xfe00000a;
	self->self_ep.port = htons(OPTINC_UDP_PORT);
	memset(&self->rec, 0, sizeof(self->rec));
	self->sw = (struct optinc_sw){ .ops = &rec_ops, .dp = &self->rec,
				       .ep = &self->self_ep };
	self->scales[0] = 3;
	memset(self->data, 7, sizeof(self->data));
}

FIXTURE_TEARDOWN(sw)
{
	free(self->mem);
}

/* @m from @ep on switch port @port: the rules' return value. */
static int input(struct _test_data_sw *self, const struct optinc_msg *m,
		 const struct optinc_endpoint *ep, __u32 port, int spoofed,
		 int with_job)
{
	struct optinc_sw_msg in = { .m = m, .src = ep, .port = port,
				    .spoofed = spoofed };

	self->rec.ntx = 0;
	return optinc_sw_input(&self->sw, with_job ? &self->job : NULL,
			       &self->bind, &in, OPTINC_DROP_NONE);
}

static struct optinc_msg join_msg(int rank, __u32 token)
{
	struct optinc_msg m = { .type = OPTINC_T_JOIN, .job = 9,
				.rank = (__u16)rank, .token = token,
				.seq = 100 + rank };

	return m;
}

static struct optinc_msg data_msg(struct _test_data_sw *self, int rank,
				  __u32 seq)
{
	struct optinc_msg m = {
		.type = OPTINC_T_DATA, .op = OPTINC_OP_AVG, .bits = 8,
		.job = 9, .rank = (__u16)rank, .token = TOKEN, .seq = seq,
		.slot = (__u16)(seq % W), .flags = (__u8)((seq / W) & 1),
		.count = 8, .block = 256, .nscale = 1,
		.scales = self->scales, .elems = self->data[rank],
	};

	return m;
}

/* Rank r joins from switch port 10 + r. */
static int join_all(struct _test_data_sw *self)
{
	struct optinc_msg m;
	int r;

	for (r = 0; r < N; r++) {
		m = join_msg(r, TOKEN);
		if (input(self, &m, &self->ep[r], 10 + r, 0, 1))
			return -1;
	}
	return 0;
}

TEST_F(sw, join_acks_the_joiner_then_everyone)
{
	struct optinc_msg m;
	int r;

	for (r = 0; r < N - 1; r++) {
		m = join_msg(r, TOKEN);
		ASSERT_EQ(0, input(self, &m, &self->ep[r], 10 + r, 0, 1));
		ASSERT_EQ(1, self->rec.ntx);
		EXPECT_EQ(r, self->rec.tx[0].rank);
		EXPECT_EQ(OPTINC_T_JOIN_ACK, self->rec.tx[0].type);
		EXPECT_EQ(100u + r, self->rec.tx[0].seq);	/* its nonce */
	}
	m = join_msg(N - 1, TOKEN);
	ASSERT_EQ(0, input(self, &m, &self->ep[N - 1], 10 + N - 1, 0, 1));
	ASSERT_EQ(N, self->rec.ntx);
	for (r = 0; r < N; r++) {
		EXPECT_EQ(r, self->rec.tx[r].rank);
		EXPECT_EQ(OPTINC_T_JOIN_ACK, self->rec.tx[r].type);
	}
	EXPECT_EQ(N, self->rec.ev[OPTINC_SW_JOINED]);
	EXPECT_EQ(N, self->rec.pins);
	EXPECT_EQ(0, self->rec.moves);
	EXPECT_EQ(2 * N - 1, self->rec.ev[OPTINC_SW_SENT]);
}

TEST_F(sw, complete_slot_results_to_all_then_resend_to_one)
{
	struct optinc_msg m;
	int r;

	ASSERT_EQ(0, join_all(self));
	for (r = 0; r < N - 1; r++) {
		m = data_msg(self, r, 0);
		ASSERT_EQ(0, input(self, &m, &self->ep[r], 10 + r, 0, 1));
		EXPECT_EQ(0, self->rec.ntx);
	}
	m = data_msg(self, N - 1, 0);
	ASSERT_EQ(0, input(self, &m, &self->ep[N - 1], 10 + N - 1, 0, 1));
	ASSERT_EQ(N, self->rec.ntx);
	for (r = 0; r < N; r++) {
		EXPECT_EQ(r, self->rec.tx[r].rank);
		EXPECT_EQ(OPTINC_T_RESULT, self->rec.tx[r].type);
		EXPECT_EQ(0u, self->rec.tx[r].seq);
	}
	EXPECT_EQ(N, self->rec.ev[OPTINC_SW_ABSORBED]);
	EXPECT_EQ(1, self->rec.ev[OPTINC_SW_COMPLETED]);
	/* rank 2 lost its result and sends again: only rank 2 hears */
	m = data_msg(self, 2, 0);
	ASSERT_EQ(0, input(self, &m, &self->ep[2], 12, 0, 1));
	ASSERT_EQ(1, self->rec.ntx);
	EXPECT_EQ(2, self->rec.tx[0].rank);
	EXPECT_EQ(OPTINC_T_RESULT, self->rec.tx[0].type);
	EXPECT_EQ(1, self->rec.ev[OPTINC_SW_RESENT]);
}

/*
 * The job counters both datapaths report, from the rules' events: a slot
 * completed, one frame from the wrong port, one spoofed and one resend.
 */
TEST_F(sw, job_counters_follow_the_spec)
{
	struct optinc_msg m;
	int r;

	ASSERT_EQ(0, join_all(self));
	for (r = 0; r < N; r++) {
		m = data_msg(self, r, 0);
		ASSERT_EQ(0, input(self, &m, &self->ep[r], 10 + r, 0, 1));
	}
	m = data_msg(self, 1, 0);
	ASSERT_EQ(0, input(self, &m, &self->ep[1], 11, 0, 1));	/* resend */
	m = data_msg(self, 1, 1);
	EXPECT_EQ(-EPERM, input(self, &m, &self->ep[1], 12, 0, 1));
	EXPECT_EQ(-EPERM, input(self, &m, &self->ep[1], 12, 1, 1));
	EXPECT_EQ(N, self->rec.ctr[OPTINC_STATS_A_JOINS]);
	/* all DATA that got past the spoof check, the wrong port's too */
	EXPECT_EQ(N + 2, self->rec.ctr[OPTINC_STATS_A_DATA]);
	/* one to each joiner, then one to all once the job is complete */
	EXPECT_EQ(2 * N - 1, self->rec.ctr[OPTINC_STATS_A_JOIN_ACKS]);
	EXPECT_EQ(N, self->rec.ctr[OPTINC_STATS_A_ABSORBED]);
	EXPECT_EQ(1, self->rec.ctr[OPTINC_STATS_A_COMPLETED]);
	EXPECT_EQ(1, self->rec.ctr[OPTINC_STATS_A_RESENT]);
	EXPECT_EQ(N + 1, self->rec.ctr[OPTINC_STATS_A_RESULTS]);
	EXPECT_EQ(1, self->rec.ctr[OPTINC_STATS_A_WRONG_PORT]);
	EXPECT_EQ(1, self->rec.ctr[OPTINC_STATS_A_SPOOFED]);
	EXPECT_EQ(0, self->rec.ctr[OPTINC_STATS_A_NACKS]);
	EXPECT_EQ(0, self->rec.ctr[OPTINC_STATS_A_DROPPED]);
}

/* Slot @seq's DATA from every member (its last completes it). */
static int complete_slot(struct _test_data_sw *self, __u32 seq)
{
	struct optinc_msg m;
	int r;

	for (r = 0; r < N; r++) {
		m = data_msg(self, r, seq);
		if (input(self, &m, &self->ep[r], 10 + r, 0, 1))
			return -1;
	}
	return 0;
}

/*
 * results-shared: the results the datapath's results op sent on one copy
 * (all, then all but the last member, whose frame is a tx error), none
 * when it cannot (the rules build whole frames) or has no op; a resend is
 * always a whole frame.
 */
TEST_F(sw, results_shared_counts_what_the_results_op_sent)
{
	struct optinc_msg m;

	ASSERT_EQ(0, join_all(self));
	ASSERT_EQ(0, complete_slot(self, 0));	/* rec_ops: no results op */
	EXPECT_EQ(N, self->rec.ntx);
	self->sw.ops = &rec_ops_shared;
	self->rec.results = N;
	ASSERT_EQ(0, complete_slot(self, 1));
	EXPECT_EQ(0, self->rec.ntx);		/* the op sent them, not send */
	EXPECT_EQ(N, self->rec.ctr[OPTINC_STATS_A_RESULTS_SHARED]);
	self->rec.results = N - 1;
	ASSERT_EQ(0, complete_slot(self, 2));
	EXPECT_EQ(2 * N - 1, self->rec.ctr[OPTINC_STATS_A_RESULTS_SHARED]);
	EXPECT_EQ(1, self->rec.ctr[OPTINC_STATS_A_TX_ERRORS]);
	self->rec.results = -EOPNOTSUPP;
	ASSERT_EQ(0, complete_slot(self, 3));
	EXPECT_EQ(N, self->rec.ntx);		/* whole frames, one each */
	m = data_msg(self, 1, 3);		/* rank 1 asks again */
	ASSERT_EQ(0, input(self, &m, &self->ep[1], 11, 0, 1));
	EXPECT_EQ(1, self->rec.ntx);
	EXPECT_EQ(2 * N - 1, self->rec.ctr[OPTINC_STATS_A_RESULTS_SHARED]);
	/* every result counted once, shared or whole, the failed one not */
	EXPECT_EQ(4 * N, self->rec.ctr[OPTINC_STATS_A_RESULTS]);
}

TEST_F(sw, no_job_join_is_nacked_back_to_the_sender)
{
	struct optinc_msg m = join_msg(0, TOKEN);

	EXPECT_EQ(-EPROTO, input(self, &m, &self->ep[N], 3, 0, 0));
	ASSERT_EQ(1, self->rec.ntx);
	EXPECT_EQ(-1, self->rec.tx[0].rank);
	EXPECT_EQ(OPTINC_T_NACK, self->rec.tx[0].type);
	EXPECT_EQ(1, self->rec.ev[OPTINC_SW_DROPPED]);
	EXPECT_EQ(OPTINC_DROP_NO_JOB, self->rec.dropped_why);
	/* DATA of no job: dropped, no answer */
	m = data_msg(self, 0, 0);
	EXPECT_EQ(-EPROTO, input(self, &m, &self->ep[0], 3, 0, 0));
	EXPECT_EQ(0, self->rec.ntx);
}

TEST_F(sw, bad_rank_join_is_nacked)
{
	struct optinc_msg m = join_msg(N, TOKEN);

	EXPECT_EQ(-EPROTO, input(self, &m, &self->ep[N], 3, 0, 1));
	ASSERT_EQ(1, self->rec.ntx);
	EXPECT_EQ(OPTINC_T_NACK, self->rec.tx[0].type);
	EXPECT_EQ(-1, self->rec.tx[0].rank);
	EXPECT_EQ(0, self->rec.pins);
}

TEST_F(sw, spoof_and_wrong_port_are_dropped_silently)
{
	struct optinc_msg m;

	ASSERT_EQ(0, join_all(self));
	/* rank 0's MAC from port 13 (rank 3's): a spoof, without a JOIN */
	m = data_msg(self, 0, 0);
	EXPECT_EQ(-EPERM, input(self, &m, &self->ep[0], 13, 1, 1));
	EXPECT_EQ(0, self->rec.ntx);
	EXPECT_EQ(1, self->rec.ev[OPTINC_SW_SPOOFED]);
	/* rank 0's DATA from rank 1's MAC and port: the wrong port */
	m = data_msg(self, 0, 0);
	EXPECT_EQ(-EPERM, input(self, &m, &self->ep[1], 11, 0, 1));
	EXPECT_EQ(0, self->rec.ntx);
	EXPECT_EQ(1, self->rec.ev[OPTINC_SW_WRONG_PORT]);
	EXPECT_EQ(0, self->rec.ev[OPTINC_SW_ABSORBED]);
	/* a spoofed JOIN without the token: still a spoof */
	m = join_msg(0, TOKEN + 1);
	EXPECT_EQ(-EPERM, input(self, &m, &self->ep[0], 13, 1, 1));
	EXPECT_EQ(2, self->rec.ev[OPTINC_SW_SPOOFED]);
	EXPECT_EQ(0, self->rec.moves);
}

TEST_F(sw, member_moving_with_the_token_is_rebound)
{
	struct optinc_msg m;

	ASSERT_EQ(0, join_all(self));
	m = join_msg(0, TOKEN);
	m.seq = 555;			/* same process: same nonce is fine too */
	EXPECT_EQ(0, input(self, &m, &self->ep[0], 20, 1, 1));
	EXPECT_EQ(1, self->rec.ev[OPTINC_SW_REBOUND]);
	EXPECT_EQ(1, self->rec.moves);
	EXPECT_EQ(10u, self->rec.moved_from);
	/* its DATA now counts from port 20 only */
	m = data_msg(self, 0, 0);
	EXPECT_EQ(-EPERM, input(self, &m, &self->ep[0], 10, 0, 1));
	m = data_msg(self, 0, 0);
	EXPECT_EQ(0, input(self, &m, &self->ep[0], 20, 0, 1));
	EXPECT_EQ(1, self->rec.ev[OPTINC_SW_ABSORBED]);
}

TEST_F(sw, rate_limited_is_dropped_without_an_answer)
{
	struct optinc_msg m = join_msg(0, TOKEN + 1);

	self->rec.limit = 1;
	EXPECT_EQ(-EPERM, input(self, &m, &self->ep[0], 10, 0, 1));
	EXPECT_EQ(-EPERM, input(self, &m, &self->ep[0], 10, 0, 0));
	EXPECT_EQ(0, self->rec.ntx);
	EXPECT_EQ(2, self->rec.ev[OPTINC_SW_RATE_LIMITED]);
	EXPECT_EQ(0, self->rec.ev[OPTINC_SW_DROPPED]);
}

TEST_F(sw, malformed_is_counted_with_its_reason)
{
	struct optinc_msg m = join_msg(0, TOKEN);
	struct optinc_sw_msg in = { .m = &m, .src = &self->ep[0], .port = 10 };

	EXPECT_EQ(-EPROTO, optinc_sw_input(&self->sw, &self->job, &self->bind,
					   &in, OPTINC_DROP_MAGIC));
	EXPECT_EQ(OPTINC_DROP_MAGIC, self->rec.dropped_why);
	EXPECT_EQ(0, self->rec.ntx);
	EXPECT_EQ(0, self->rec.ev[OPTINC_SW_JOINED]);
}

TEST_F(sw, frame_too_big_is_a_tx_error_not_a_send)
{
	struct optinc_msg m;
	int r;

	ASSERT_EQ(0, join_all(self));
	self->rec.ev[OPTINC_SW_SENT] = 0;
	self->rec.room = OPTINC_FRAME_OVERHEAD + 8;	/* no room for 64 */
	for (r = 0; r < N; r++) {
		m = data_msg(self, r, 1);
		m.count = MAXE;
		ASSERT_EQ(0, input(self, &m, &self->ep[r], 10 + r, 0, 1));
	}
	EXPECT_EQ(1, self->rec.ev[OPTINC_SW_COMPLETED]);
	EXPECT_EQ(0, self->rec.ntx);
	EXPECT_EQ(0, self->rec.ev[OPTINC_SW_SENT]);
	EXPECT_EQ(N, self->rec.ev[OPTINC_SW_TX_ERROR]);
}

TEST_HARNESS_MAIN
