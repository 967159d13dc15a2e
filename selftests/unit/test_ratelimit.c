// SPDX-License-Identifier: GPL-2.0
/* Unit tests: bounded abuse (lib/core/ratelimit.c): rate, burst, refill, clock wrap, what is charged. */
#include <string.h>
#include <optinc/ratelimit.h>
#include "kselftest_harness.h"

#define NS	1000000000ULL

FIXTURE(rl) {
	struct optinc_rl b;
	struct optinc_rl_conf c;
};

FIXTURE_SETUP(rl)
{
	optinc_rl_init(&self->b);
	ASSERT_EQ(0, optinc_rl_conf_set(&self->c, 1000, 64, NS));
}

FIXTURE_TEARDOWN(rl)
{
}

/* Frames offered every @gap ticks from @t for @n frames; how many passed. */
static unsigned int offer(struct optinc_rl *b, const struct optinc_rl_conf *c,
			  __u64 t, __u64 gap, unsigned int n)
{
	unsigned int i, ok = 0;

	for (i = 0; i < n; i++)
		ok += optinc_rl_take(b, c, t + i * gap);
	return ok;
}

TEST_F(rl, conf)
{
	struct optinc_rl_conf c;

	EXPECT_EQ(1000000, self->c.interval);
	EXPECT_EQ(63 * 1000000ULL, self->c.tau);
	EXPECT_EQ(0, optinc_rl_conf_set(&c, 0, 0, NS));
	EXPECT_EQ(0, c.interval);
	EXPECT_EQ(-EINVAL, optinc_rl_conf_set(&c, 10, 0, NS));
	EXPECT_EQ(-EINVAL, optinc_rl_conf_set(&c, 10, 65536, NS));
	EXPECT_EQ(-EINVAL, optinc_rl_conf_set(&c, 10, 1, 0));
	/* rounded up: never faster than asked */
	EXPECT_EQ(0, optinc_rl_conf_set(&c, 3, 1, 1000));
	EXPECT_EQ(334, c.interval);
}

TEST_F(rl, burst_at_once)
{
	/* a full bucket lets exactly the burst through at one instant */
	EXPECT_EQ(64, offer(&self->b, &self->c, 5 * NS, 0, 1000));
}

TEST_F(rl, rate_under_flood)
{
	/* 1,000,000 frames/s for 2 s: burst + rate * time */
	unsigned int ok = offer(&self->b, &self->c, 0, 1000, 2000000);

	EXPECT_GE(ok, 64 + 2000 - 1);
	EXPECT_LE(ok, 64 + 2000);
}

TEST_F(rl, below_rate_never_limited)
{
	EXPECT_EQ(5000, offer(&self->b, &self->c, 0, 1000000, 5000));
}

TEST_F(rl, refill)
{
	EXPECT_EQ(64, offer(&self->b, &self->c, 0, 0, 100));
	/* 10 ms later: 10 tokens back */
	EXPECT_EQ(10, offer(&self->b, &self->c, 10 * 1000000ULL, 0, 100));
	/* a long quiet time refills to the burst, never beyond */
	EXPECT_EQ(64, offer(&self->b, &self->c, 100 * NS, 0, 100));
}

TEST_F(rl, clock_wrap)
{
	__u64 t0 = ~0ULL - 30 * 1000000ULL;	/* 30 ms before the wrap */

	/* first use near the top of the clock: a full bucket */
	EXPECT_EQ(64, offer(&self->b, &self->c, t0, 0, 100));
	/* 100 ms later, across the wrap: full again, not empty for ages */
	EXPECT_EQ(64, offer(&self->b, &self->c, t0 + 100 * 1000000ULL, 0, 100));
	/* and the rate holds across it: 1 s of flood from 20 ms before */
	optinc_rl_init(&self->b);
	EXPECT_LE(offer(&self->b, &self->c, ~0ULL - 20 * 1000000ULL, 10000, 100000),
		  64 + 1000);
}

TEST_F(rl, off)
{
	struct optinc_rl_conf off;

	ASSERT_EQ(0, optinc_rl_conf_set(&off, 0, 64, NS));
	EXPECT_EQ(100000, offer(&self->b, &off, 0, 0, 100000));
}

TEST_F(rl, burst_one)
{
	ASSERT_EQ(0, optinc_rl_conf_set(&self->c, 10, 1, NS));
	EXPECT_EQ(1, offer(&self->b, &self->c, 0, 0, 10));
	EXPECT_EQ(0, offer(&self->b, &self->c, NS / 20, 0, 10));
	EXPECT_EQ(1, offer(&self->b, &self->c, NS / 10, 0, 10));
}

static struct optinc_msg msg(__u8 type, __u16 rank, __u32 token)
{
	struct optinc_msg m = { .type = type, .job = 7, .rank = rank,
				.token = token };

	return m;
}

TEST(charged)
{
	struct optinc_endpoint ep = { .ip = 0x0100000a, .port = 1000 };
	struct optinc_endpoint other = { .ip = 0x0200000a, .port = 1000 };
	struct optinc_job job = { .id = 7, .size = 4, .token = 0x5eed };
	struct optinc_msg m;

	job.joined = 1;
	job.members[0].ep = ep;
	m = msg(OPTINC_T_DATA, 0, 0x5eed);
	EXPECT_EQ(0, optinc_rl_charged(&job, &m, &ep));		/* the member */
	EXPECT_EQ(1, optinc_rl_charged(&job, &m, &other));	/* not_member */
	m = msg(OPTINC_T_DATA, 1, 0x5eed);
	EXPECT_EQ(1, optinc_rl_charged(&job, &m, &ep));		/* not joined */
	m = msg(OPTINC_T_DATA, 70, 0x5eed);
	EXPECT_EQ(1, optinc_rl_charged(&job, &m, &ep));		/* out of range */
	m = msg(OPTINC_T_DATA, 0, 0x5eee);
	EXPECT_EQ(1, optinc_rl_charged(&job, &m, &ep));		/* bad token */
	m = msg(OPTINC_T_JOIN, 0, 0x5eed);
	EXPECT_EQ(1, optinc_rl_charged(&job, &m, &ep));		/* every JOIN */
	EXPECT_EQ(1, optinc_rl_charged(NULL, &m, &ep));
	m = msg(OPTINC_T_DATA, 0, 0x5eed);
	EXPECT_EQ(0, optinc_rl_charged(NULL, &m, &ep));		/* no job */
}

TEST(rx_verdicts)
{
	struct optinc_endpoint ep = { .ip = 0x0100000a, .port = 1000 };
	struct optinc_job job = { .id = 7, .size = 4, .token = 0x5eed };
	struct optinc_msg good = msg(OPTINC_T_DATA, 0, 0x5eed);
	struct optinc_msg bad = msg(OPTINC_T_DATA, 0, 0x1);
	struct optinc_rl_conf c;
	struct optinc_rl b;
	int i;

	job.joined = 1;
	job.members[0].ep = ep;
	optinc_rl_init(&b);
	ASSERT_EQ(0, optinc_rl_conf_set(&c, 1000, 4, NS));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(OPTINC_RL_PASS, optinc_rl_rx(&b, &c, &job, &bad, &ep, 0));
	EXPECT_EQ(OPTINC_RL_LIMITED, optinc_rl_rx(&b, &c, &job, &bad, &ep, 0));
	/* an empty bucket never costs the member its DATA */
	for (i = 0; i < 100; i++)
		EXPECT_EQ(OPTINC_RL_FREE, optinc_rl_rx(&b, &c, &job, &good, &ep, 0));
}

TEST_HARNESS_MAIN
