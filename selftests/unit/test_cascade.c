// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: cascading in the core. Four first-level jobs of 4 members
 * send their complete slots up (frames built, parsed and fed as a switch
 * would) to a second-level job of fan-in 4; its result comes back down.
 * Every kind must give the same result bytes as one 16-member job.
 */
#include <stdlib.h>
#include <string.h>
#include <optinc/core.h>
#include "kselftest_harness.h"

#define W	4
#define MAXE	512
#define N1	4
#define N2	4
#define FRAME	(OPTINC_FRAME_OVERHEAD + 64 + 4 * MAXE)

struct casc {
	struct optinc_job low[N2], top, flat;
	struct optinc_uplink up[N2];
	struct optinc_endpoint ep[N1 * N2];
	void *mem[N2 + 2];
	__u8 data[N1 * N2][2 * MAXE];
	__u8 frame[FRAME];
	__s8 scales[MAXE / 64];
};

static int casc_job(struct casc *c, struct optinc_job *j, int i, __u16 id,
		    __u16 size)
{
	__u64 len = optinc_job_mem(W, MAXE);

	memset(j, 0, sizeof(*j));
	j->id = id;
	j->size = size;
	j->token = 7;
	j->window = W;
	j->max_elems = MAXE;
	c->mem[i] = aligned_alloc(8, len);
	return c->mem[i] ? optinc_job_init(j, c->mem[i], len) : -1;
}

static struct casc *casc_new(void)
{
	struct casc *c = calloc(1, sizeof(*c));
	struct optinc_slot *s;
	enum optinc_drop why;
	struct optinc_msg m = { .type = OPTINC_T_JOIN, .token = 7 };
	int k, r;

	if (!c)
		return NULL;
	for (k = 0; k < N2; k++) {
		if (casc_job(c, &c->low[k], k, 1, N1))
			return NULL;
		c->up[k].job = 100;
		c->up[k].rank = (__u16)k;
		c->up[k].token = 7;
		c->up[k].window = W;
		c->up[k].self.ip = 0x0a00000a + (k << 24);
		c->up[k].self.port = 47000;
		c->low[k].up = &c->up[k];
	}
	if (casc_job(c, &c->top, N2, 100, N2) ||
	    casc_job(c, &c->flat, N2 + 1, 1, N1 * N2))
		return NULL;
	c->top.fanin = N1;
	for (r = 0; r < N1 * N2; r++) {
		c->ep[r].ip = 0x0100000a + (r << 24);
		c->ep[r].port = (__be16)(1000 + r);
		m.job = 1;
		m.rank = (__u16)(r % N1);
		m.seq = 1000 + r;
		optinc_job_rx(&c->low[r / N1], &m, &c->ep[r], &why, &s);
		m.rank = (__u16)r;
		optinc_job_rx(&c->flat, &m, &c->ep[r], &why, &s);
	}
	for (k = 0; k < N2; k++) {
		m.job = 100;
		m.rank = (__u16)k;
		m.seq = 50 + k;
		optinc_job_rx(&c->top, &m, &c->up[k].self, &why, &s);
	}
	return c;
}

static void casc_free(struct casc *c)
{
	int i;

	for (i = 0; i < N2 + 2; i++)
		free(c->mem[i]);
	free(c);
}

static struct optinc_msg casc_data(struct casc *c, int r, __u32 seq, __u8 op,
				   __u8 bits, __u16 count)
{
	struct optinc_msg m = {
		.type = OPTINC_T_DATA, .op = op, .bits = bits, .job = 1,
		.rank = (__u16)(r % N1), .token = 7, .seq = seq,
		.slot = (__u16)(seq % W), .flags = (__u8)((seq / W) & 1),
		.count = count, .elems = c->data[r],
	};

	if (op == OPTINC_OP_AVG || op == OPTINC_OP_SUM) {
		m.block = 64;
		m.nscale = (__u8)((count + 63) / 64);
		m.scales = c->scales;
	}
	return m;
}

/* Parse the frame just built in c->frame (its UDP payload). */
static int casc_parse(struct casc *c, __u32 len, struct optinc_msg *m)
{
	if (len <= OPTINC_L2L4_LEN)
		return -1;
	return optinc_msg_parse(c->frame + OPTINC_L2L4_LEN,
				len - OPTINC_L2L4_LEN, m) == OPTINC_DROP_NONE ? 0 : -1;
}

/*
 * One slot through both levels; returns the final slot of group 0 (every
 * group's result is compared with it) or NULL on any unexpected verdict.
 */
static struct optinc_slot *casc_two_levels(struct casc *c, __u32 seq, __u8 op,
					   __u8 bits, __u16 count)
{
	struct optinc_slot *s, *top_s = NULL, *res[N2];
	struct optinc_msg m, up;
	enum optinc_drop why;
	enum optinc_verdict v;
	int k, r;

	for (k = 0; k < N2; k++) {
		for (r = 0; r < N1; r++) {
			m = casc_data(c, N1 * k + r, seq, op, bits, count);
			v = optinc_job_rx(&c->low[k], &m, &c->ep[N1 * k + r], &why, &s);
			if (v != (r == N1 - 1 ? OPTINC_V_FORWARD : OPTINC_V_ABSORBED))
				return NULL;
		}
		/* a member's retransmission re-sends upstream */
		if (optinc_job_rx(&c->low[k], &m, &c->ep[N1 * k + N1 - 1], &why,
				  &s) != OPTINC_V_FORWARD)
			return NULL;
		if (casc_parse(c, optinc_build_up(c->frame, FRAME, &c->low[k], s), &up))
			return NULL;
		v = optinc_job_rx(&c->top, &up, &c->up[k].self, &why, &top_s);
		if (v != (k == N2 - 1 ? OPTINC_V_COMPLETE : OPTINC_V_ABSORBED))
			return NULL;
	}
	for (k = 0; k < N2; k++) {
		if (casc_parse(c, optinc_build_result(c->frame, FRAME, &c->top,
						      top_s, &c->ep[0], (__u16)k), &m))
			return NULL;
		if (optinc_job_rx_up(&c->low[k], &m, &why, &res[k]) != OPTINC_V_COMPLETE ||
		    optinc_job_rx_up(&c->low[k], &m, &why, &s) != OPTINC_V_RESEND)
			return NULL;
		if (res[k]->res_len != res[0]->res_len ||
		    memcmp(res[k]->res, res[0]->res, res[0]->res_len))
			return NULL;
	}
	return res[0];
}

static struct optinc_slot *casc_flat(struct casc *c, __u32 seq, __u8 op,
				     __u8 bits, __u16 count)
{
	struct optinc_slot *s = NULL;
	struct optinc_msg m;
	enum optinc_drop why;
	int r;

	for (r = 0; r < N1 * N2; r++) {
		m = casc_data(c, r, seq, op, bits, count);
		m.rank = (__u16)r;
		if (optinc_job_rx(&c->flat, &m, &c->ep[r], &why, &s) !=
		    (r == N1 * N2 - 1 ? OPTINC_V_COMPLETE : OPTINC_V_ABSORBED))
			return NULL;
	}
	return s;
}

/* Random data, plus the extremes, for @bits-wide elements. */
static void casc_fill(struct casc *c, unsigned int round, __u16 count)
{
	int r, i;

	srand(round + 1);
	for (r = 0; r < N1 * N2; r++)
		for (i = 0; i < 2 * MAXE; i++)
			c->data[r][i] = round == 0 ? 0xff : round == 1 ? 0 :
					(__u8)rand();
	for (i = 0; i < MAXE / 64; i++)
		c->scales[i] = (__s8)(i - 3);
}

static const struct {
	__u8 op, bits;
} casc_shapes[] = {
	{ OPTINC_OP_AVG, 8 }, { OPTINC_OP_AVG, 16 }, { OPTINC_OP_SUM, 8 },
	{ OPTINC_OP_SUM, 16 }, { OPTINC_OP_ISUM, 32 }, { OPTINC_OP_MAX, 8 },
};

/*
 * A first level's results carry retransmission hints too: its oldest
 * waiting slot moves on when upper results come, not only when it
 * completes slots itself (it never does).
 */
static void casc_hint_on(struct __test_metadata *_metadata, struct casc *c,
			 __u32 seq)
{
	struct optinc_msg hm = { 0 };

	optinc_job_hint(&c->low[0], seq, 0, &hm);
	EXPECT_NE(0, hm.aux & OPTINC_HINT_ON) TH_LOG("seq %u: no hint", seq);
}

TEST(two_levels_equal_one)
{
	struct casc *c = casc_new();
	struct optinc_slot *a, *b;
	unsigned int i, round;
	__u32 seq = 0;
	__u16 count;

	ASSERT_NE(NULL, c);
	for (round = 0; round < 12; round++) {
		casc_fill(c, round, MAXE);
		for (i = 0; i < sizeof(casc_shapes) / sizeof(casc_shapes[0]); i++) {
			count = casc_shapes[i].bits == 32 ? MAXE / 2 : MAXE / 2 + 7;
			b = casc_flat(c, seq, casc_shapes[i].op, casc_shapes[i].bits, count);
			a = casc_two_levels(c, seq, casc_shapes[i].op,
					    casc_shapes[i].bits, count);
			ASSERT_NE(NULL, b);
			ASSERT_NE(NULL, a) TH_LOG("round %u op %u bits %u", round,
						   casc_shapes[i].op, casc_shapes[i].bits);
			ASSERT_EQ(b->res_len, a->res_len);
			ASSERT_EQ(0, memcmp(a->res, b->res, a->res_len));
			casc_hint_on(_metadata, c, seq);
			seq++;
		}
	}
	casc_free(c);
}

/* Every rounding case of one 8-bit average: all 16 values alike but one. */
TEST(avg8_every_sum)
{
	struct casc *c = casc_new();
	struct optinc_slot *a, *b;
	__u32 seq = 0, v, w;
	int r;

	ASSERT_NE(NULL, c);
	for (v = 0; v < 256; v += 5) {
		for (r = 0; r < N1 * N2; r++)
			for (w = 0; w < 256; w++)
				c->data[r][w] = (__u8)(r == 7 ? w : v);
		b = casc_flat(c, seq, OPTINC_OP_AVG, 8, 256);
		a = casc_two_levels(c, seq, OPTINC_OP_AVG, 8, 256);
		ASSERT_NE(NULL, a);
		ASSERT_NE(NULL, b);
		ASSERT_EQ(0, memcmp(a->res, b->res, 256));
		seq++;
	}
	casc_free(c);
}

/* onn mode at the second level: an exact cascade table gives one level's result. */
TEST(onn_second_level)
{
	struct casc *c = casc_new();
	__u32 radix = 3 * N2 + 1, entries = radix * radix * radix * radix * radix;
	__u8 *buf = calloc(1, OPTINC_TABLE_HDR_LEN + entries);
	struct optinc_table_file_hdr *h = (void *)buf;
	struct optinc_slot *a, *b;
	struct optinc_table t;
	const char *why;
	unsigned int round;
	__u32 seq = 0;

	ASSERT_NE(NULL, c);
	ASSERT_NE(NULL, buf);
	memcpy(h->magic, OPTINC_TABLE_MAGIC, 8);
	h->version = OPTINC_TABLE_VERSION_CASCADE;	/* little endian host */
	h->members = N2;
	h->bits = 8;
	h->radix = (__u16)radix;
	h->entries = entries;
	h->rsvd[0] = OPTINC_CASCADE_DIGITS;
	h->rsvd[1] = N1;
	optinc_cascade_table_fill_exact(buf + OPTINC_TABLE_HDR_LEN, N2, N1);
	ASSERT_EQ(0, optinc_table_parse(buf, OPTINC_TABLE_HDR_LEN + entries, &t, &why));
	ASSERT_EQ(N1, t.fanin);
	c->top.mode = OPTINC_MODE_ONN;
	c->top.table = &t;
	EXPECT_EQ(OPTINC_K_CONN8, optinc_job_kind(&c->top, OPTINC_OP_CAVG, 16));
	EXPECT_EQ(OPTINC_K_CAVG32, optinc_job_kind(&c->top, OPTINC_OP_CAVG, 32));
	for (round = 0; round < 8; round++) {
		casc_fill(c, round, MAXE);
		b = casc_flat(c, seq, OPTINC_OP_AVG, 8, MAXE);
		a = casc_two_levels(c, seq, OPTINC_OP_AVG, 8, MAXE);
		ASSERT_NE(NULL, a);
		ASSERT_NE(NULL, b);
		ASSERT_EQ(0, memcmp(a->res, b->res, MAXE));
		seq++;
	}
	/* a table of another fan-in is not used: CAVG is refused */
	t.fanin = N1 - 1;
	EXPECT_EQ(OPTINC_K_NR, optinc_job_kind(&c->top, OPTINC_OP_CAVG, 16));
	/* a damaged header is refused */
	h->rsvd[1] = 5;
	EXPECT_NE(0, optinc_table_parse(buf, OPTINC_TABLE_HDR_LEN + entries, &t, &why));
	h->rsvd[1] = N1;
	EXPECT_NE(0, optinc_table_parse(buf, OPTINC_TABLE_HDR_LEN + entries - 1, &t, &why));
	free(buf);
	casc_free(c);
}

/* onn mode at the first level: its P unit's lane sums go up as S_j. */
TEST(onn_first_level)
{
	struct casc *c = casc_new();
	__u32 radix = 3 * N1 + 1, entries = radix * radix * radix * radix;
	__u8 *out = malloc(entries);
	struct optinc_table t = {
		.members = N1, .bits = 8, .radix = (__u16)radix,
		.entries = entries, .out = out,
	};
	struct optinc_slot *a, *b;
	unsigned int round;
	__u32 seq = 0;
	int k;

	ASSERT_NE(NULL, c);
	ASSERT_NE(NULL, out);
	optinc_table_fill_exact(out, N1, 8);
	for (k = 0; k < N2; k++) {
		c->low[k].mode = OPTINC_MODE_ONN;
		c->low[k].table = &t;
	}
	ASSERT_EQ(OPTINC_K_ONN8, optinc_job_kind(&c->low[0], OPTINC_OP_AVG, 8));
	for (round = 0; round < 6; round++) {
		casc_fill(c, round, MAXE);
		b = casc_flat(c, seq, OPTINC_OP_AVG, 8, MAXE);
		a = casc_two_levels(c, seq, OPTINC_OP_AVG, 8, MAXE);
		ASSERT_NE(NULL, a);
		ASSERT_NE(NULL, b);
		ASSERT_EQ(0, memcmp(a->res, b->res, MAXE));
		seq++;
	}
	free(out);
	casc_free(c);
}

/* The cascade table's function: the digit sums' value over N1 x N. */
TEST(cascade_table_exact)
{
	__u32 radix = 3 * N2 + 1, entries = radix * radix * radix * radix * radix;
	__u8 *out = malloc(entries);
	__u32 i, s[5], total, want;

	ASSERT_NE(NULL, out);
	optinc_cascade_table_fill_exact(out, N2, N1);
	for (i = 0; i < entries; i += 7) {
		optinc_pam4_sums(i, radix, 5, s);
		total = s[0] + 4 * s[1] + 16 * s[2] + 64 * s[3] + 256 * s[4];
		want = (total + 8) / 16;	/* nearest, ties to even below */
		if ((total % 16) == 8 && (want & 1))
			want--;
		if (want > 255)
			want = 255;
		ASSERT_EQ(want, out[i]) TH_LOG("index %u", i);
	}
	free(out);
}

TEST(refusals)
{
	struct casc *c = casc_new();
	struct optinc_slot *s;
	struct optinc_msg m, up;
	enum optinc_drop why;
	int r;

	ASSERT_NE(NULL, c);
	casc_fill(c, 5, 64);
	for (r = 0; r < N1; r++) {
		m = casc_data(c, r, 0, OPTINC_OP_AVG, 8, 64);
		optinc_job_rx(&c->low[0], &m, &c->ep[r], &why, &s);
	}
	ASSERT_EQ(0, casc_parse(c, optinc_build_up(c->frame, FRAME, &c->low[0], s), &up));
	ASSERT_EQ(OPTINC_OP_CAVG, up.op);
	ASSERT_EQ(16, up.bits);
	ASSERT_EQ(N1, up.size);
	/* too small a frame */
	ASSERT_EQ(0, optinc_build_up(c->frame, OPTINC_FRAME_OVERHEAD + 100,
				     &c->low[0], s));
	/* a fan-in other than the job's, and a job without one */
	up.size = N1 + 1;
	EXPECT_EQ(OPTINC_V_DROP, optinc_job_rx(&c->top, &up, &c->up[0].self, &why, &s));
	EXPECT_EQ(OPTINC_DROP_SHAPE, why);
	up.size = N1;
	c->top.fanin = 0;
	EXPECT_EQ(OPTINC_V_DROP, optinc_job_rx(&c->top, &up, &c->up[0].self, &why, &s));
	EXPECT_EQ(OPTINC_DROP_SHAPE, why);
	/* a result for a slot not waiting for one */
	m = up;
	m.type = OPTINC_T_RESULT;
	m.seq = 1;
	EXPECT_EQ(OPTINC_V_DROP, optinc_job_rx_up(&c->low[1], &m, &why, &s));
	EXPECT_EQ(OPTINC_DROP_STALE, why);
	casc_free(c);
}

/* Members of group @k send @seq: the slot completes and goes up (stamped). */
static struct optinc_slot *casc_low_complete(struct casc *c, int k, __u32 seq)
{
	struct optinc_slot *s = NULL;
	struct optinc_msg m;
	enum optinc_drop why;
	int r;

	for (r = 0; r < N1; r++) {
		m = casc_data(c, N1 * k + r, seq, OPTINC_OP_AVG, 8, 64);
		if (optinc_job_rx(&c->low[k], &m, &c->ep[N1 * k + r], &why, &s) !=
		    (r == N1 - 1 ? OPTINC_V_FORWARD : OPTINC_V_ABSORBED))
			return NULL;
	}
	return s;
}

/* Group @k's slot @s goes up (a re-send if it went before); the top gets it if @deliver. */
static enum optinc_verdict casc_up(struct casc *c, int k, struct optinc_slot *s,
				   int deliver, int *again,
				   struct optinc_slot **top_s)
{
	struct optinc_msg up;
	enum optinc_drop why;

	if (casc_parse(c, optinc_build_up(c->frame, FRAME, &c->low[k], s), &up))
		return OPTINC_V_DROP;
	*again = optinc_up_sent(&c->low[k], s);
	if (!deliver)
		return OPTINC_V_ABSORBED;
	return optinc_job_rx(&c->top, &up, &c->up[k].self, &why, top_s);
}

/* The top's result of slot @top_s for group @k, as group @k parses it. */
static int casc_top_result(struct casc *c, struct optinc_slot *top_s, int k,
			   struct optinc_msg *m)
{
	return casc_parse(c, optinc_build_result(c->frame, FRAME, &c->top, top_s,
						 &c->ep[0], (__u16)k), m);
}

/*
 * Loss on the uplink: the upper result's hint names the DATA a first level
 * must send up again (lost up, or its result lost down), once per round
 * trip; never what the upper holds, what went up after the answered frame,
 * or anything when the result has no hint.
 */
TEST(upper_hint_resends)
{
	struct casc *c = casc_new();
	struct optinc_slot *s0[N2], *s1[N2], *s2[N2], *t0 = NULL, *t1 = NULL,
			   *t2 = NULL, *lost[4];
	enum optinc_drop why;
	struct optinc_msg m;
	int k, again;

	ASSERT_NE(NULL, c);
	casc_fill(c, 3, 64);
	/* seq 0 and 1 go up from every group, 1 first in group 3; group 0's 0 is lost */
	for (k = 0; k < N2; k++) {
		if (k == 3) {
			s1[k] = casc_low_complete(c, k, 1);
			s0[k] = casc_low_complete(c, k, 0);
		} else {
			s0[k] = casc_low_complete(c, k, 0);
			s1[k] = casc_low_complete(c, k, 1);
		}
		ASSERT_NE(NULL, s0[k]);
		ASSERT_NE(NULL, s1[k]);
	}
	for (k = 0; k < N2; k++) {
		if (k == 3) {
			casc_up(c, k, s1[k], 1, &again, &t1);
			casc_up(c, k, s0[k], 0, &again, &t0);	/* still on its way */
		} else {
			casc_up(c, k, s0[k], k != 0, &again, &t0);
			casc_up(c, k, s1[k], 1, &again, &t1);
		}
		EXPECT_EQ(0, again);
	}
	ASSERT_NE(NULL, t1);
	ASSERT_TRUE(t1->done);
	/* group 0: seq 1's result says seq 0 never arrived: send it again */
	ASSERT_EQ(0, casc_top_result(c, t1, 0, &m));
	ASSERT_EQ(OPTINC_V_COMPLETE, optinc_job_rx_up(&c->low[0], &m, &why, &lost[0]));
	ASSERT_EQ(1, optinc_up_lost(&c->low[0], &m, lost, 4));
	EXPECT_EQ(s0[0], lost[0]);
	/* the same result again (a duplicate): not twice in one round trip */
	EXPECT_EQ(OPTINC_V_RESEND, optinc_job_rx_up(&c->low[0], &m, &why, &lost[1]));
	EXPECT_EQ(1, optinc_up_lost(&c->low[0], &m, lost, 4));
	EXPECT_EQ(OPTINC_V_ABSORBED, casc_up(c, 0, s0[0], 1, &again, &t0));
	EXPECT_EQ(1, again);
	EXPECT_EQ(0, optinc_up_lost(&c->low[0], &m, lost, 4));
	/* group 1: the top holds its seq 0 (waits for group 3): nothing */
	ASSERT_EQ(0, casc_top_result(c, t1, 1, &m));
	ASSERT_EQ(OPTINC_V_COMPLETE, optinc_job_rx_up(&c->low[1], &m, &why, &lost[0]));
	EXPECT_EQ(0, optinc_up_lost(&c->low[1], &m, lost, 4));
	/* group 3: its seq 0 went up after seq 1: the hint cannot know it yet */
	ASSERT_EQ(0, casc_top_result(c, t1, 3, &m));
	ASSERT_EQ(OPTINC_V_COMPLETE, optinc_job_rx_up(&c->low[3], &m, &why, &lost[0]));
	EXPECT_EQ(0, optinc_up_lost(&c->low[3], &m, lost, 4));
	/* no hint (an older switch): nothing */
	m.aux = 0;
	EXPECT_EQ(0, optinc_up_lost(&c->low[3], &m, lost, 4));
	/* group 3's seq 0 arrives: seq 0 is done; its result to group 2 is lost */
	EXPECT_EQ(OPTINC_V_COMPLETE, casc_up(c, 3, s0[3], 1, &again, &t0));
	EXPECT_EQ(1, again);
	for (k = 0; k < N2; k++) {
		s2[k] = casc_low_complete(c, k, 2);
		ASSERT_NE(NULL, s2[k]);
		casc_up(c, k, s2[k], 1, &again, &t2);
	}
	ASSERT_NE(NULL, t2);
	ASSERT_TRUE(t2->done);
	/* group 2, told by seq 2's result: seq 0 is done above, send it again */
	ASSERT_EQ(0, casc_top_result(c, t1, 2, &m));
	ASSERT_EQ(OPTINC_V_COMPLETE, optinc_job_rx_up(&c->low[2], &m, &why, &lost[0]));
	ASSERT_EQ(0, casc_top_result(c, t2, 2, &m));
	ASSERT_EQ(OPTINC_V_COMPLETE, optinc_job_rx_up(&c->low[2], &m, &why, &lost[0]));
	ASSERT_EQ(1, optinc_up_lost(&c->low[2], &m, lost, 4));
	EXPECT_EQ(s0[2], lost[0]);
	/* which the top answers with the result it kept */
	EXPECT_EQ(OPTINC_V_RESEND, casc_up(c, 2, s0[2], 1, &again, &t0));
	ASSERT_EQ(0, casc_top_result(c, t0, 2, &m));
	EXPECT_EQ(OPTINC_V_COMPLETE, optinc_job_rx_up(&c->low[2], &m, &why, &lost[0]));
	EXPECT_EQ(0, s0[2]->up);
	EXPECT_EQ(0, optinc_up_lost(&c->low[2], &m, lost, 4));
	casc_free(c);
}

TEST_HARNESS_MAIN
