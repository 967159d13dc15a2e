// SPDX-License-Identifier: GPL-2.0
/* Unit tests: the aggregation slots (joins, duplicates, order, loss). */
#include <stdlib.h>
#include <string.h>
#include <optinc/core.h>
#include "kselftest_harness.h"

#define W	4	/* window */
#define MAXE	64

FIXTURE(job) {
	struct optinc_job job;
	void *mem;
	struct optinc_endpoint ep[8];
	__u8 data[8][MAXE];
	__s8 scales[1];
};

FIXTURE_VARIANT(job) {
	int size;
};

FIXTURE_VARIANT_ADD(job, n2) { .size = 2 };
FIXTURE_VARIANT_ADD(job, n4) { .size = 4 };
FIXTURE_VARIANT_ADD(job, n8) { .size = 8 };

FIXTURE_SETUP(job)
{
	int r;

	memset(&self->job, 0, sizeof(self->job));
	self->job.id = 9;
	self->job.size = (__u16)variant->size;
	self->job.token = 42;
	self->job.window = W;
	self->job.max_elems = MAXE;
	self->mem = aligned_alloc(8, optinc_job_mem(W, MAXE));
	ASSERT_NE(NULL, self->mem);
	ASSERT_EQ(0, optinc_job_init(&self->job, self->mem,
				     optinc_job_mem(W, MAXE)));
	for (r = 0; r < 8; r++) {
		memset(&self->ep[r], 0, sizeof(self->ep[r]));
		self->ep[r].ip = 0x0100000a + (r << 24);
		self->ep[r].port = (__be16)(1000 + r);
	}
	self->scales[0] = 3;
}

FIXTURE_TEARDOWN(job)
{
	free(self->mem);
}

static enum optinc_verdict join(struct _test_data_job *self, int rank,
				__u32 nonce)
{
	struct optinc_msg m = { .type = OPTINC_T_JOIN, .job = 9,
				.rank = (__u16)rank, .token = 42, .seq = nonce };
	struct optinc_slot *s;
	enum optinc_drop why;

	return optinc_job_rx(&self->job, &m, &self->ep[rank], &why, &s);
}

static enum optinc_verdict data(struct _test_data_job *self, int rank,
				__u32 seq, __u16 count, enum optinc_drop *why,
				struct optinc_slot **s)
{
	struct optinc_msg m = {
		.type = OPTINC_T_DATA, .op = OPTINC_OP_AVG, .bits = 8,
		.job = 9, .rank = (__u16)rank, .token = 42, .seq = seq,
		.slot = (__u16)(seq % W), .flags = (__u8)((seq / W) & 1),
		.count = count, .block = 256, .nscale = 1,
		.scales = self->scales, .elems = self->data[rank],
	};

	return optinc_job_rx(&self->job, &m, &self->ep[rank], why, s);
}

static void join_all(struct _test_data_job *self, int size)
{
	int r;

	for (r = 0; r < size; r++)
		join(self, r, 100 + r);
}

TEST_F(job, join_barrier_and_nack)
{
	struct optinc_msg ack;
	int r;

	EXPECT_EQ(OPTINC_V_NACK, join(self, variant->size, 1));
	for (r = 0; r < variant->size; r++) {
		EXPECT_EQ(0, optinc_job_complete(&self->job));
		EXPECT_EQ(OPTINC_V_JOIN_ACK, join(self, r, 100 + r));
	}
	EXPECT_EQ(1, optinc_job_complete(&self->job));
	optinc_job_ack(&self->job, 0, &ack);
	EXPECT_EQ(variant->size, ack.aux);
	EXPECT_EQ(variant->size, ack.size);
	EXPECT_EQ(W, ack.slot);
	EXPECT_EQ(MAXE, ack.count);
	EXPECT_EQ(100, ack.seq);
	/* a retransmitted JOIN changes nothing */
	EXPECT_EQ(OPTINC_V_JOIN_ACK, join(self, 0, 100));
	EXPECT_EQ(1, optinc_job_complete(&self->job));
}

TEST_F(job, average_any_order_duplicates_refused)
{
	struct optinc_slot *s;
	enum optinc_drop why;
	int r, n = variant->size, i;

	join_all(self, n);
	for (r = 0; r < n; r++)
		for (i = 0; i < MAXE; i++)
			self->data[r][i] = (__u8)(r * 7 + i * 3);
	/* arrive in reverse order, each rank twice */
	for (r = n - 1; r > 0; r--) {
		ASSERT_EQ(OPTINC_V_ABSORBED, data(self, r, 0, MAXE, &why, &s));
		ASSERT_EQ(OPTINC_V_DROP, data(self, r, 0, MAXE, &why, &s));
		ASSERT_EQ(OPTINC_DROP_DUPLICATE, why);
	}
	ASSERT_EQ(OPTINC_V_COMPLETE, data(self, 0, 0, MAXE, &why, &s));
	ASSERT_EQ(MAXE, s->res_len);
	for (i = 0; i < MAXE; i++) {
		__u32 sum = 0;

		for (r = 0; r < n; r++)
			sum += self->data[r][i];
		ASSERT_EQ(optinc_avg_rhe(sum, n), s->res[i]);
	}
	/* a rank that lost the result asks again: it is re-sent */
	EXPECT_EQ(OPTINC_V_RESEND, data(self, n - 1, 0, MAXE, &why, &s));
}

TEST_F(job, window_and_shadow_copies)
{
	struct optinc_slot *s;
	enum optinc_drop why;
	int r, n = variant->size;
	__u32 seq;

	join_all(self, n);
	/* 3 windows of frames, interleaved across ranks */
	for (seq = 0; seq < 3 * W; seq++) {
		for (r = 0; r < n - 1; r++)
			ASSERT_EQ(OPTINC_V_ABSORBED,
				  data(self, r, seq, 8, &why, &s));
		ASSERT_EQ(OPTINC_V_COMPLETE, data(self, n - 1, seq, 8, &why, &s));
		/* the previous use of this slot (other copy) is still there */
		if (seq >= W)
			ASSERT_EQ(OPTINC_V_RESEND,
				  data(self, 0, seq - W, 8, &why, &s));
	}
	/* seq - 2W shares a copy with seq: it is stale now */
	ASSERT_EQ(OPTINC_V_DROP, data(self, 0, W - 1, 8, &why, &s));
	ASSERT_EQ(OPTINC_DROP_STALE, why);
}

/* Rank @r's value at element @i of call @seq, for the reuse test. */
static __u8 reuse_val(__u32 seq, int r, int i)
{
	return (__u8)(seq * 31 + r * 7 + i * 13 + (seq * r * i) % 5);
}

static void reuse_send(struct _test_data_job *self, int r, __u32 seq,
		       enum optinc_verdict *v, struct optinc_slot **s)
{
	enum optinc_drop why;
	int i;

	for (i = 0; i < MAXE; i++)
		self->data[r][i] = reuse_val(seq, r, i);
	*v = data(self, r, seq, MAXE, &why, s);
}

/* Is @s's result the exact average of call @seq? */
static int reuse_ok(const struct optinc_slot *s, __u32 seq, int n)
{
	__u32 sum;
	int r, i;

	for (i = 0; i < MAXE; i++) {
		for (r = 0, sum = 0; r < n; r++)
			sum += reuse_val(seq, r, i);
		if (s->res[i] != optinc_avg_rhe(sum, n))
			return 0;
	}
	return s->res_len == MAXE;
}

/*
 * Slots under way take the accumulators that completed slots gave back,
 * last freed first (agg.c), so no stale sum may leak into a result: over
 * 5 windows, each pair of calls opened out of order, every result is the
 * exact average and stays there to be sent again, and a slot started
 * after a completion sums into the memory that completion freed.
 */
TEST_F(job, accumulators_reused_across_slots)
{
	struct optinc_slot *s, *again;
	enum optinc_verdict v;
	int r, n = variant->size;
	__u32 seq, k, *freed;

	join_all(self, n);
	for (seq = 0; seq < 5 * W; seq += 2) {
		reuse_send(self, n - 1, seq + 1, &v, &s);	/* ahead */
		ASSERT_EQ(OPTINC_V_ABSORBED, v);
		reuse_send(self, n - 1, seq, &v, &s);
		ASSERT_EQ(OPTINC_V_ABSORBED, v);
		for (k = seq; k <= seq + 1; k++) {
			for (r = 0; r < n - 1; r++)
				reuse_send(self, r, k, &v, &s);
			ASSERT_EQ(OPTINC_V_COMPLETE, v);
			ASSERT_EQ(NULL, s->acc);
			ASSERT_TRUE(reuse_ok(s, k, n));
		}
		reuse_send(self, 0, seq, &v, &again);
		ASSERT_EQ(OPTINC_V_RESEND, v);
		ASSERT_TRUE(reuse_ok(again, seq, n));
	}
	/* every slot has been used and completed: all are free */
	ASSERT_EQ(2u * W, self->job.nb_acc_free);
	freed = self->job.acc_free[2 * W - 1];
	reuse_send(self, 0, 5 * W, &v, &s);
	ASSERT_EQ(OPTINC_V_ABSORBED, v);
	EXPECT_EQ(freed, s->acc);
	EXPECT_EQ(2u * W - 1, self->job.nb_acc_free);
}

TEST_F(job, refuses_foreign_and_malformed)
{
	struct optinc_msg m;
	struct optinc_slot *s;
	enum optinc_drop why;
	struct optinc_endpoint other;

	join_all(self, variant->size);
	/* a rank out of range, or from another address */
	ASSERT_EQ(OPTINC_V_DROP, data(self, variant->size, 0, 8, &why, &s));
	EXPECT_EQ(OPTINC_DROP_NOT_MEMBER, why);
	other = self->ep[1];
	self->ep[1].port++;
	ASSERT_EQ(OPTINC_V_DROP, data(self, 1, 0, 8, &why, &s));
	EXPECT_EQ(OPTINC_DROP_NOT_MEMBER, why);
	self->ep[1] = other;
	/* too many elements for the slots */
	ASSERT_EQ(OPTINC_V_DROP, data(self, 1, 0, MAXE + 1, &why, &s));
	EXPECT_EQ(OPTINC_DROP_TOO_BIG, why);
	/*
	 * a shape differing from the slot's first contribution is another
	 * call's: counted unfolded, the slot marked mixed; that member's
	 * frame in yet another shape is refused
	 */
	ASSERT_EQ(OPTINC_V_ABSORBED, data(self, 0, 0, 8, &why, &s));
	EXPECT_EQ(0, s->mixed);
	EXPECT_EQ(variant->size == 2 ? OPTINC_V_COMPLETE : OPTINC_V_ABSORBED,
		  data(self, 1, 0, 9, &why, &s));
	EXPECT_EQ(OPTINC_DROP_NONE, why);
	ASSERT_NE(NULL, s);
	EXPECT_EQ(1, s->mixed);
	self->scales[0] = 4;
	ASSERT_EQ(OPTINC_V_DROP, data(self, 1, 0, 8, &why, &s));
	EXPECT_EQ(OPTINC_DROP_MISMATCH, why);
	/* slot or shadow bit not matching seq */
	memset(&m, 0, sizeof(m));
	m.type = OPTINC_T_DATA; m.op = OPTINC_OP_AVG; m.bits = 8; m.job = 9;
	m.token = 42; m.seq = 5; m.slot = 2; m.count = 1; m.block = 1;
	m.nscale = 1; m.scales = self->scales; m.elems = self->data[0];
	ASSERT_EQ(OPTINC_V_DROP, optinc_job_rx(&self->job, &m, &self->ep[0],
					       &why, &s));
	EXPECT_EQ(OPTINC_DROP_SHAPE, why);
	m.slot = 1; m.flags = 0;	/* seq 5 lives in copy 1 */
	ASSERT_EQ(OPTINC_V_DROP, optinc_job_rx(&self->job, &m, &self->ep[0],
					       &why, &s));
	EXPECT_EQ(OPTINC_DROP_SHAPE, why);
	/* a wrong token */
	m.flags = 1; m.token = 41;
	ASSERT_EQ(OPTINC_V_DROP, optinc_job_rx(&self->job, &m, &self->ep[0],
					       &why, &s));
	EXPECT_EQ(OPTINC_DROP_TOKEN, why);
	/* a RESULT sent to the switch */
	m.token = 42; m.type = OPTINC_T_RESULT;
	ASSERT_EQ(OPTINC_V_DROP, optinc_job_rx(&self->job, &m, &self->ep[0],
					       &why, &s));
	EXPECT_EQ(OPTINC_DROP_TYPE, why);
}

/* DATA of @rank for seq 0 with call tag @tag, through the job */
static enum optinc_verdict data_tag(struct _test_data_job *self, int rank,
				    __u16 tag, struct optinc_slot **s)
{
	struct optinc_msg m = {
		.type = OPTINC_T_DATA, .op = OPTINC_OP_AVG, .bits = 8,
		.job = 9, .rank = (__u16)rank, .token = 42, .count = MAXE,
		.block = 256, .nscale = 1, .scales = self->scales,
		.elems = self->data[rank], .tag = tag,
	};
	enum optinc_drop why;

	return optinc_job_rx(&self->job, &m, &self->ep[rank], &why, s);
}

/* The RESULT frame's flags byte that @s gives rank 0. */
static __u8 result_flags(struct _test_data_job *self, struct optinc_slot *s)
{
	static __u8 frame[OPTINC_FRAME_OVERHEAD + 8 + 4 * MAXE];
	struct optinc_endpoint sw = { .ip = 0xfe00000a, .port = 47000 };
	struct optinc_msg m;
	__u32 len = optinc_build_result(frame, sizeof(frame), &self->job, s,
					&sw, 0);

	if (!len || optinc_msg_parse(frame + OPTINC_L2L4_LEN,
				     len - OPTINC_L2L4_LEN, &m))
		return 0xff;
	return m.flags;
}

TEST_F(job, call_tags_agree_or_the_result_is_mixed)
{
	struct optinc_slot *s = NULL;
	int r, n = variant->size;

	join_all(self, n);
	for (r = 0; r < n; r++)
		ASSERT_EQ(r == n - 1 ? OPTINC_V_COMPLETE : OPTINC_V_ABSORBED,
			  data_tag(self, r, 0x1234, &s));
	EXPECT_EQ(0, s->mixed);
	EXPECT_EQ(0, result_flags(self, s));
	/* seq W * 2 reuses copy 0: one rank is in another call */
	for (r = 0; r < n; r++) {
		struct optinc_msg m = {
			.type = OPTINC_T_DATA, .op = OPTINC_OP_AVG, .bits = 8,
			.job = 9, .rank = (__u16)r, .token = 42, .seq = 2 * W,
			.count = MAXE, .block = 256, .nscale = 1,
			.scales = self->scales, .elems = self->data[r],
			.tag = r == n / 2 ? 0x1236 : 0x1235,
		};
		enum optinc_drop why;

		ASSERT_EQ(r == n - 1 ? OPTINC_V_COMPLETE : OPTINC_V_ABSORBED,
			  optinc_job_rx(&self->job, &m, &self->ep[r], &why, &s));
	}
	EXPECT_EQ(1, s->mixed);
	EXPECT_EQ(OPTINC_F_MIXED, result_flags(self, s));
}

TEST_F(job, restarted_process_starts_new_generation)
{
	struct optinc_slot *s;
	enum optinc_drop why;
	int r;

	join_all(self, variant->size);
	for (r = 0; r < variant->size; r++)
		data(self, r, 0, 8, &why, &s);
	/* rank 0 comes back as a new process: the job starts over */
	EXPECT_EQ(OPTINC_V_JOIN_ACK, join(self, 0, 555));
	EXPECT_EQ(variant->size == 1, optinc_job_complete(&self->job));
	if (variant->size > 1) {
		/* old processes are no longer members */
		ASSERT_EQ(OPTINC_V_DROP, data(self, 1, 1, 8, &why, &s));
		EXPECT_EQ(OPTINC_DROP_NOT_MEMBER, why);
	}
	for (r = 1; r < variant->size; r++)
		join(self, r, 600 + r);
	EXPECT_EQ(1, optinc_job_complete(&self->job));
	/* seq 0 is new again */
	ASSERT_EQ(variant->size == 1 ? OPTINC_V_COMPLETE : OPTINC_V_ABSORBED,
		  data(self, 0, 0, 8, &why, &s));
}

/* Slot @s's result frame for @rank, built and parsed back: its hint. */
static void result_for(struct _test_data_job *self,
		       struct __test_metadata *_metadata,
		       const struct optinc_slot *s, int rank,
		       struct optinc_msg *res)
{
	static __u8 frame[OPTINC_FRAME_OVERHEAD + 4 + 4 * MAXE];
	struct optinc_endpoint sw = { .ip = 0xfe00000a, .port = 0x98b7 };
	__u32 len;

	len = optinc_build_result(frame, sizeof(frame), &self->job, s, &sw,
				  (__u16)rank);
	ASSERT_LT(OPTINC_FRAME_OVERHEAD, len);
	ASSERT_EQ(OPTINC_DROP_NONE,
		  optinc_msg_parse(frame + OPTINC_L2L4_LEN,
				   len - OPTINC_L2L4_LEN, res));
	ASSERT_EQ(OPTINC_T_RESULT, res->type);
	ASSERT_EQ(s->seq, res->seq);
	ASSERT_TRUE(res->aux & OPTINC_HINT_ON);
}

/* A rank's contribution to seq 0 is lost: only that rank is told to resend. */
TEST_F(job, hint_names_the_missing_rank)
{
	struct optinc_slot *s;
	struct optinc_msg res;
	enum optinc_drop why;
	int r, n = variant->size;

	join_all(self, n);
	for (r = 0; r < n - 1; r++)
		ASSERT_EQ(OPTINC_V_ABSORBED, data(self, r, 0, 8, &why, &s));
	for (r = 0; r < n - 1; r++)
		ASSERT_EQ(OPTINC_V_ABSORBED, data(self, r, 1, 8, &why, &s));
	ASSERT_EQ(OPTINC_V_COMPLETE, data(self, n - 1, 1, 8, &why, &s));
	for (r = 0; r < n; r++) {
		result_for(self, _metadata, s, r, &res);
		/* O = 0, one before the result */
		EXPECT_EQ(OPTINC_HINT_ON | 1, res.aux);
		EXPECT_EQ(r < n - 1 ? 1u : 0u, res.held & 1);
		EXPECT_EQ(r < n - 1 ? 0 : 1, optinc_hint_lost(&res, 0));
	}
	/* the retransmission completes seq 0; now nothing waits */
	ASSERT_EQ(OPTINC_V_COMPLETE, data(self, n - 1, 0, 8, &why, &s));
	ASSERT_EQ(OPTINC_V_ABSORBED + (n == 1), data(self, 0, 2, 8, &why, &s));
	if (n > 1) {
		for (r = 1; r < n - 1; r++)
			ASSERT_EQ(OPTINC_V_ABSORBED, data(self, r, 2, 8, &why, &s));
		ASSERT_EQ(OPTINC_V_COMPLETE, data(self, n - 1, 2, 8, &why, &s));
	}
	result_for(self, _metadata, s, 0, &res);
	EXPECT_EQ(OPTINC_HINT_ON | OPTINC_HINT_DIST, res.aux);
	EXPECT_EQ(0u, res.held);
	/* a rank still without the result of 0 or 1 lost it: resend */
	EXPECT_EQ(1, optinc_hint_lost(&res, 0));
	EXPECT_EQ(1, optinc_hint_lost(&res, 1));
}

/* Frames after the result: held ones are at the switch; others unknown. */
TEST_F(job, hint_covers_later_frames)
{
	struct optinc_slot *s, *s0;
	struct optinc_msg res;
	enum optinc_drop why;
	int r, n = variant->size;

	if (n < 2)
		return;
	join_all(self, n);
	for (r = 0; r < n - 1; r++)
		ASSERT_EQ(OPTINC_V_ABSORBED, data(self, r, 0, 8, &why, &s));
	ASSERT_EQ(OPTINC_V_COMPLETE, data(self, n - 1, 0, 8, &why, &s0));
	ASSERT_EQ(OPTINC_V_ABSORBED, data(self, 0, 1, 8, &why, &s));
	ASSERT_EQ(OPTINC_V_ABSORBED, data(self, 0, 2, 8, &why, &s));
	/* rank 0 lost the result of 0 and asks again */
	ASSERT_EQ(OPTINC_V_RESEND, data(self, 0, 0, 8, &why, &s));
	ASSERT_EQ(s0, s);
	result_for(self, _metadata, s, 0, &res);
	EXPECT_EQ(OPTINC_HINT_ON | OPTINC_HINT_DIST, res.aux);
	EXPECT_EQ(3u, res.held);
	EXPECT_EQ(0, optinc_hint_lost(&res, 1));
	EXPECT_EQ(0, optinc_hint_lost(&res, 2));
	EXPECT_EQ(-1, optinc_hint_lost(&res, 3));
	EXPECT_EQ(-1, optinc_hint_lost(&res, 0));
	result_for(self, _metadata, s, 1, &res);
	EXPECT_EQ(0u, res.held);
	EXPECT_EQ(-1, optinc_hint_lost(&res, 1));
}

/* A slot no rank reached is lost for all; once one rank starts it, O moves back. */
TEST_F(job, hint_unused_slot_and_oldest_moving_back)
{
	struct optinc_slot *s;
	struct optinc_msg res;
	enum optinc_drop why;
	int r, n = variant->size;

	join_all(self, n);
	for (r = 0; r < n; r++)
		data(self, r, 0, 8, &why, &s);
	for (r = 0; r < n; r++)
		data(self, r, 2, 8, &why, &s);
	ASSERT_EQ(2u, s->seq);
	result_for(self, _metadata, s, 0, &res);
	EXPECT_EQ(1, optinc_hint_lost(&res, 1));	/* nobody's 1 arrived */
	if (n < 2)
		return;
	ASSERT_EQ(OPTINC_V_ABSORBED, data(self, 0, 1, 8, &why, &s));
	for (r = 0; r < n; r++)
		data(self, r, 3, 8, &why, &s);
	ASSERT_EQ(3u, s->seq);
	ASSERT_TRUE(s->done);
	result_for(self, _metadata, s, 0, &res);
	EXPECT_EQ(OPTINC_HINT_ON | 2, res.aux);	/* O = 1 */
	EXPECT_EQ(0, optinc_hint_lost(&res, 1));
	EXPECT_EQ(1, optinc_hint_lost(&res, 0));	/* before O: done */
	result_for(self, _metadata, s, 1, &res);
	EXPECT_EQ(1, optinc_hint_lost(&res, 1));
}

/* A switch without hints (version 1 as first shipped) leaves aux 0. */
TEST(hint_absent_or_malformed)
{
	struct optinc_msg res = { .type = OPTINC_T_RESULT, .seq = 10 };

	EXPECT_EQ(-1, optinc_hint_lost(&res, 9));
	EXPECT_EQ(-1, optinc_hint_lost(&res, 11));
	res.aux = OPTINC_HINT_ON;	/* distance 0 cannot be */
	EXPECT_EQ(-1, optinc_hint_lost(&res, 9));
	res.aux = OPTINC_HINT_ON | 3;	/* O = 7; 8 held */
	res.held = 2;
	EXPECT_EQ(1, optinc_hint_lost(&res, 6));
	EXPECT_EQ(1, optinc_hint_lost(&res, 7));
	EXPECT_EQ(0, optinc_hint_lost(&res, 8));
	EXPECT_EQ(1, optinc_hint_lost(&res, 9));
	EXPECT_EQ(-1, optinc_hint_lost(&res, 10));
	EXPECT_EQ(-1, optinc_hint_lost(&res, 11));
	res.seq = 100;	/* O = 97; 97 + 32 is past the bitmap */
	EXPECT_EQ(-1, optinc_hint_lost(&res, 97 + OPTINC_HINT_SPAN));
	res.held = 1u << 31;
	EXPECT_EQ(0, optinc_hint_lost(&res, 97 + 31));
}

TEST(job_init_refuses_bad_shapes)
{
	static __u64 mem[4096];
	struct optinc_job j = { .size = 4, .window = 4, .max_elems = 64 };

	EXPECT_EQ(0, optinc_job_init(&j, mem, sizeof(mem)));
	EXPECT_EQ(-EINVAL, optinc_job_init(&j, mem, 64));
	j.size = 65;
	EXPECT_EQ(-EINVAL, optinc_job_init(&j, mem, sizeof(mem)));
	j.size = 4;
	j.mode = OPTINC_MODE_ONN;	/* ONN mode without a table */
	EXPECT_EQ(-EINVAL, optinc_job_init(&j, mem, sizeof(mem)));
}

TEST_HARNESS_MAIN
