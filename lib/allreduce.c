// SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
/*
 * optinc_allreduce()'s calls: their checks, and where they go: through
 * the switch (ar_switch.c), through the ring (ar_ring.c), or the switch
 * with failover to the ring when it is gone and back when it returns.
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "dtype.h"
#include "ring.h"

static int ar_check_bufs(struct optinc_comm *c, const void *sendbuf,
			 void *recvbuf, size_t count, size_t es)
{
	uintptr_t s = (uintptr_t)sendbuf, r = (uintptr_t)recvbuf;
	size_t len = count * es;

	if (!count)
		return 0;
	if (!sendbuf || !recvbuf)
		return optinc_seterr(c, OPTINC_ERR_INVALID,
				     "allreduce: %s is NULL with count %zu",
				     sendbuf ? "recvbuf" : "sendbuf", count);
	if (count > INT32_MAX)
		return optinc_seterr(c, OPTINC_ERR_INVALID,
				     "allreduce: count %zu is above 2^31 - 1", count);
	if (s != r && s < r + len && r < s + len)
		return optinc_seterr(c, OPTINC_ERR_INVALID,
				     "allreduce: sendbuf and recvbuf overlap but differ");
	return 0;
}

static int ar_check(struct optinc_comm *c, const struct optinc_call *k)
{
	size_t es = optinc_dtype_size(k->datatype);

	if (!es)
		return optinc_seterr(c, OPTINC_ERR_UNSUPPORTED,
				     "allreduce: unknown datatype %d (FLOAT32 %d, INT32 %d, FLOAT16 %d, BFLOAT16 %d, FLOAT64 %d)",
				     k->datatype, OPTINC_FLOAT32, OPTINC_INT32,
				     OPTINC_FLOAT16, OPTINC_BFLOAT16,
				     OPTINC_FLOAT64);
	if (k->op < OPTINC_SUM || k->op > OPTINC_MIN)
		return optinc_seterr(c, OPTINC_ERR_UNSUPPORTED,
				     "allreduce: unknown op %d (SUM %d, AVG %d, MAX %d, MIN %d)",
				     k->op, OPTINC_SUM, OPTINC_AVG, OPTINC_MAX,
				     OPTINC_MIN);
	if (k->datatype == OPTINC_INT32 && k->op == OPTINC_AVG)
		return optinc_seterr(c, OPTINC_ERR_UNSUPPORTED,
				     "allreduce: int32 AVG is not supported (use SUM)");
	if (c->failed)
		return optinc_seterr(c, c->failed,
				     "allreduce: an earlier call on this communicator failed (%s) and left the ranks out of step; destroy it",
				     optinc_strerror(c->failed));
	return ar_check_bufs(c, k->sendbuf, k->recvbuf, k->count, es);
}

/*
 * Room for @bytes in *@buf, in whole int32s (the ring hands them over as
 * int32 sums), the last one zeroed where @bytes does not fill it.
 */
static int ar_keep_room(struct optinc_comm *c, void **buf, size_t *cap,
		     size_t bytes)
{
	void *p;
	size_t room = OPTINC_DIV_UP(bytes, 4) * 4;	/* whole int32s */

	if (room > *cap || !*buf) {
		p = realloc(*buf, room ? room : 4);
		if (!p)
			return optinc_seterr(c, OPTINC_ERR_NOMEM,
					     "allreduce: no memory to keep %zu bytes for failover",
					     bytes);
		*buf = p;
		*cap = room;
	}
	if (room)
		memset((char *)*buf + room - 4, 0, 4);
	return 0;
}

/* Keep @bytes of @src (zeros if NULL) in *@buf (ar_keep_room()). */
static int ar_keep(struct optinc_comm *c, void **buf, size_t *cap,
		   const void *src, size_t bytes)
{
	int err = ar_keep_room(c, buf, cap, bytes);

	if (err)
		return err;
	if (src)
		memcpy(*buf, src, bytes);
	else
		memset(*buf, 0, bytes);
	return 0;
}

/* A ring call of @count int32 (failover's bookkeeping: no call check). */
static int ar_ring_i32(struct optinc_comm *c, const void *send, void *recv,
		       size_t count)
{
	struct optinc_call k = {
		.sendbuf = send, .recvbuf = recv, .count = count,
		.datatype = OPTINC_INT32, .op = OPTINC_SUM,
	};

	return optinc_ar_ring(c, &k, 0);
}

/*
 * Where every rank is: its count of network calls, gathered over the ring
 * (a sum of vectors that each hold one rank's count). A rank that got all
 * results of its last call before the switch died is one call ahead.
 */
static int ar_positions(struct optinc_comm *c, __u32 *behind, int *helper)
{
	int n = c->cfg.size, r;
	__u32 *v = calloc(n, 4), lo = UINT32_MAX, hi = 0;
	int err;

	if (!v)
		return optinc_seterr(c, OPTINC_ERR_NOMEM, "failover: no memory");
	v[c->cfg.rank] = (__u32)c->fo.calls;
	err = ar_ring_i32(c, v, v, n);
	for (r = 0; !err && r < n; r++) {
		lo = OPTINC_MIN(lo, v[r]);
		hi = OPTINC_MAX(hi, v[r]);
	}
	*helper = -1;
	for (r = 0; !err && r < n && *helper < 0; r++)
		if (v[r] != lo)
			*helper = r;
	if (!err && hi - lo > 1)
		err = optinc_seterr(c, OPTINC_ERR_PROTO,
				     "failover: ranks are %u calls apart", hi - lo);
	*behind = lo;
	free(v);
	return err;
}

/*
 * The last call's result handed over the ring bit for bit: a sum of int32
 * words with zeros from every rank but @from. It goes through fo->last,
 * which on @from holds it already (whole words, zero-padded) and on the
 * others is free (their last result is of the call before): no buffer of
 * the call's size to allocate at a fall-back, and no memory touched anew.
 * A rank behind (@k: the call it is in) then has that call's result as
 * kept (optinc_ar_kept_bytes()) and decodes it into its recvbuf.
 */
static int ar_hand_over(struct optinc_comm *c, int from,
			const struct optinc_call *k, size_t bytes)
{
	struct optinc_failover *fo = &c->fo;
	int err = 0;

	if (c->cfg.rank != from)
		err = ar_keep(c, &fo->last, &fo->last_cap, NULL, bytes);
	err = err ?: ar_ring_i32(c, fo->last, fo->last,
				 OPTINC_DIV_UP(bytes, 4));
	if (err || !k)
		return err;
	fo->last_bytes = bytes;
	fo->kept = 1;
	return optinc_ar_unkeep(c, k, fo->last);
}

/*
 * The switch is gone: finish this call through the ring. If some ranks
 * already returned from the call before (they are ahead), the first of
 * them hands its result to the others, and those return it; otherwise
 * all redo the call from its input.
 */
static int ar_fallback(struct optinc_comm *c, const struct optinc_call *k)
{
	struct optinc_failover *fo = &c->fo;
	char why[OPTINC_ERRMSG_LEN];
	int err = 0, helper = -1;
	__u32 behind = 0;

	snprintf(why, sizeof(why), "%s", c->errmsg);
	optinc_log(OPTINC_LOG_WARN,
		   "rank %d: %s; call %llu goes through the ring (%s)",
		   c->cfg.rank, why, (unsigned long long)fo->calls, fo->peers);
	fo->on_ring = 1;
	fo->fallbacks++;
	fo->back_nonce = optinc_join_nonce();
	if (!c->ring)
		err = optinc_ring_open(&c->ring, c->cfg.rank, c->cfg.size,
				       fo->peers, fo->ring_port,
				       c->cfg.timeout_ms, c->errmsg,
				       sizeof(c->errmsg));
	err = err ?: ar_positions(c, &behind, &helper);
	fo->base = behind;
	if (err || helper < 0)
		return err ?: optinc_ar_ring(c, k, 1);
	optinc_log(OPTINC_LOG_WARN, "rank %d: call %u had completed on rank %d; %s",
		   c->cfg.rank, behind, helper, fo->calls != behind ?
		   "handing its result to the ranks behind" :
		   "taking its result from there");
	if (fo->calls != behind)
		return ar_hand_over(c, helper, NULL, fo->last_bytes) ?:
		       optinc_ar_ring(c, k, 1);
	return ar_hand_over(c, helper, k, optinc_ar_kept_bytes(c, k));
}

/*
 * Back to the switch every retry_calls calls after the one that fell back
 * (counted in network calls, the same on every rank): every rank joins
 * again (a barrier of at most failover_ms), and only if all did do they
 * use the switch.
 */
static int ar_failback(struct optinc_comm *c)
{
	struct optinc_failover *fo = &c->fo;
	__u64 since = fo->calls - fo->base;
	__u32 ok;
	int err;

	/* since 1 is no call for a rank that was ahead: it redid it then */
	if (!fo->retry_calls || since < 2 || (since - 1) % fo->retry_calls)
		return 0;
	ok = !optinc_failover_join(c);
	if (!ok)
		optinc_log(OPTINC_LOG_WARN,
			   "rank %d: switch still unusable (%s); staying on the ring",
			   c->cfg.rank, c->errmsg);
	err = ar_ring_i32(c, &ok, &ok, 1);
	if (err || ok != (__u32)c->cfg.size)
		return err;
	optinc_log(OPTINC_LOG_WARN,
		   "rank %d: switch %s is back; calls go through it again",
		   c->cfg.rank, c->cfg.sw_str);
	fo->on_ring = 0;
	fo->failbacks++;
	c->seq = 0;
	c->failed = 0;
	return 0;
}

/*
 * A call through the switch with failover on: an in-place call's input
 * copied first (a fall-back may redo the call from it), room for a float
 * call to keep its result as it comes (fo->next, ar_switch.c), and the
 * ring when the switch is gone.
 */
static int ar_via_switch(struct optinc_comm *c, const struct optinc_call *k,
			 size_t bytes)
{
	struct optinc_failover *fo = &c->fo;
	struct optinc_call in = *k;
	int err = 0;

	if (k->sendbuf == k->recvbuf) {
		err = ar_keep(c, &fo->in, &fo->in_cap, k->sendbuf, bytes);
		in.sendbuf = fo->in;
	}
	/*
	 * Without room the call fails here, as without room for the input:
	 * it cannot go on unkept, since a rank behind would then be handed
	 * another form of the result than it expects.
	 */
	if (!err && k->datatype != OPTINC_INT32) {
		err = ar_keep_room(c, &fo->next, &fo->next_cap,
				   optinc_ar_kept_bytes(c, k));
		fo->keep = !err;
	}
	err = err ?: optinc_ar_switch(c, &in);
	fo->keep = 0;
	if (err == OPTINC_ERR_SWITCH_GONE)
		err = ar_fallback(c, &in);
	return err;
}

/* A call with failover on: keep what a fallback needs, then try the switch. */
static int ar_failover(struct optinc_comm *c, const struct optinc_call *k)
{
	struct optinc_failover *fo = &c->fo;
	size_t bytes = k->count * optinc_dtype_size(k->datatype);
	int err = 0;

	fo->kept = 0;
	if (fo->on_ring)
		err = ar_failback(c);
	if (!err && fo->on_ring)
		err = optinc_ar_ring(c, k, 1);
	else if (!err)
		err = ar_via_switch(c, k, bytes);
	if (err)
		return err;
	fo->calls++;
	if (fo->kept)	/* by the call itself, or by a hand-over */
		return 0;
	fo->last_bytes = bytes;
	return ar_keep(c, &fo->last, &fo->last_cap, k->recvbuf, bytes);
}

/**
 * optinc_call_tag() - the tag of a call's frames (wire.h: rsvd of DATA)
 * @phase: 0 for the block codes (and int32's one phase, and the ring's
 *         agreement), 1 for the data
 *
 * The call's number, which every rank counts alike, times an odd factor,
 * so that ranks 1 to 65535 calls apart always differ, plus a hash of the
 * arguments; Documentation/protocol.md, "Call tags", has it bit for bit.
 */
__u16 optinc_call_tag(const struct optinc_comm *c, const struct optinc_call *k,
		      unsigned int phase)
{
	__u32 h = (__u32)k->count * 2654435761u;

	h ^= (__u32)((__u64)k->count >> 32) * 40503u;
	h += (__u32)k->datatype * 97u + (__u32)k->op * 13u + phase * 5u +
	     (__u32)c->cfg.nonfinite * 7919u;
	h ^= h >> 16;
	return (__u16)((__u32)k->no * 0x9e37u + h);
}

/*
 * Argument checks of a call, on the thread that makes or posts it. Every
 * call gets a number, also one that fails here: a rank that skips a call
 * is then one number off, and the other ranks see it (the call's tag).
 */
int optinc_call_check(struct optinc_comm *c, struct optinc_call *k)
{
	k->no = c->calls_posted++;
	return ar_check(c, k);
}

/* Run a checked call to its end (blocking), on one thread at a time. */
int optinc_call_run(struct optinc_comm *c, const struct optinc_call *k)
{
	c->st.calls++;
	if (!k->count)
		return 0;
	if (c->ring && !c->fo.peers)
		return optinc_ar_ring(c, k, 1);
	if (c->fo.ms)
		return ar_failover(c, k);
	return optinc_ar_switch(c, k);
}
