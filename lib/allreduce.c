// SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
/*
 * optinc_allreduce(): float32 in two phases (agree on per-block exponents
 * with op MAX, then the quantized values with op AVG or SUM), int32 in one
 * (op ISUM). Every rank dequantizes the same result frames, so all ranks
 * end up with bit-identical results.
 */
#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <optinc/quant.h>

#include "pipe.h"
#include "ring.h"

static __u32 ar_block_len(const struct optinc_phase *p, __u32 n, __u32 j)
{
	return OPTINC_MIN(p->block, n - j * p->block);
}

static void ar_exp_fill(const struct optinc_phase *p, __u32 i, __u32 n,
			__s8 *scales, __u8 *elems)
{
	memcpy(elems, p->exps + (size_t)i * p->per_frame, n);
}

static void ar_exp_take(const struct optinc_phase *p, __u32 i, __u32 n,
			const struct optinc_msg *m)
{
	memcpy(p->exps + (size_t)i * p->per_frame, m->elems, n);
}

static void ar_quant_fill(const struct optinc_phase *p, __u32 i, __u32 n,
			  __s8 *scales, __u8 *elems)
{
	const float *x = (const float *)p->src + (size_t)i * p->per_frame;
	const __s8 *e = p->exps + (size_t)i * (p->per_frame / p->block);
	__u32 j, bytes = p->bits / 8;

	for (j = 0; j * p->block < n; j++) {
		scales[j] = e[j];
		optinc_quantize(x + j * p->block, ar_block_len(p, n, j), e[j],
				p->bits, elems + j * p->block * bytes);
	}
}

static void ar_avg_take(const struct optinc_phase *p, __u32 i, __u32 n,
			const struct optinc_msg *m)
{
	float *y = (float *)p->dst + (size_t)i * p->per_frame;
	__u32 j, bytes = p->bits / 8;

	for (j = 0; j < m->nscale; j++)
		optinc_dequantize(m->elems + j * p->block * bytes,
				  ar_block_len(p, n, j), m->scales[j], p->bits,
				  y + j * p->block);
}

static void ar_sum_take(const struct optinc_phase *p, __u32 i, __u32 n,
			const struct optinc_msg *m)
{
	float *y = (float *)p->dst + (size_t)i * p->per_frame;
	__u32 j;

	for (j = 0; j < m->nscale; j++)
		optinc_dequantize_sum(m->elems + j * p->block * 4,
				      ar_block_len(p, n, j), m->scales[j],
				      p->bits, y + j * p->block);
}

static void ar_int_fill(const struct optinc_phase *p, __u32 i, __u32 n,
			__s8 *scales, __u8 *elems)
{
	const __u32 *x = (const __u32 *)p->src + (size_t)i * p->per_frame;
	__u32 k, v;

	for (k = 0; k < n; k++) {
		v = htonl(x[k]);
		memcpy(elems + 4 * k, &v, 4);
	}
}

static void ar_int_take(const struct optinc_phase *p, __u32 i, __u32 n,
			const struct optinc_msg *m)
{
	__u32 *y = (__u32 *)p->dst + (size_t)i * p->per_frame;
	__u32 k, v;

	for (k = 0; k < n; k++) {
		memcpy(&v, m->elems + 4 * k, 4);
		y[k] = ntohl(v);
	}
}

static int ar_range_err(struct optinc_comm *c, const float *x, size_t off,
			__u32 n)
{
	__u32 k;

	for (k = 0; k < n && isfinite(x[off + k]); k++)
		;
	return optinc_seterr(c, OPTINC_ERR_RANGE,
			     "allreduce: sendbuf[%zu] = %g is not finite",
			     off + k, k < n ? x[off + k] : 0.0f);
}

/* This rank's exponent of every block into c->exps. */
static int ar_block_exps(struct optinc_comm *c, const float *x, size_t count,
			 __u32 nblocks)
{
	__u32 b, block = c->cfg.block, n;
	__s8 *e;

	if (nblocks > c->exps_cap) {
		e = realloc(c->exps, nblocks);
		if (!e)
			return optinc_seterr(c, OPTINC_ERR_NOMEM,
					     "allreduce: no memory for %u block exponents",
					     nblocks);
		c->exps = e;
		c->exps_cap = nblocks;
	}
	for (b = 0; b < nblocks; b++) {
		n = OPTINC_MIN(block, count - (size_t)b * block);
		if (optinc_block_exp(x + (size_t)b * block, n, c->cfg.bits,
				     &c->exps[b]))
			return ar_range_err(c, x, (size_t)b * block, n);
	}
	return 0;
}

static int ar_run(struct optinc_comm *c, struct optinc_phase *p)
{
	p->nframes = OPTINC_DIV_UP(p->count, p->per_frame);
	return optinc_pipe_run(c, p);
}

static int ar_float(struct optinc_comm *c, const float *x, float *y,
		    __u32 count, int op)
{
	unsigned int bits = c->cfg.bits, block = c->cfg.block;
	__u32 nblocks = OPTINC_DIV_UP(count, block);
	struct optinc_phase exps = {
		.op = OPTINC_OP_MAX, .bits = 8, .rbits = 8, .count = nblocks,
		.per_frame = optinc_frame_elems(c, 1, 0),
		.fill = ar_exp_fill, .take = ar_exp_take,
	};
	struct optinc_phase data = {
		.op = op == OPTINC_AVG ? OPTINC_OP_AVG : OPTINC_OP_SUM,
		.bits = bits, .rbits = op == OPTINC_AVG ? bits : 32,
		.block = block, .count = count,
		.fill = ar_quant_fill,
		.take = op == OPTINC_AVG ? ar_avg_take : ar_sum_take,
		.src = x, .dst = y,
	};
	int err;

	data.per_frame = optinc_frame_elems(c, data.rbits / 8, block);
	err = ar_block_exps(c, x, count, nblocks);
	if (err)
		return err;
	exps.exps = data.exps = c->exps;
	return ar_run(c, &exps) ?: ar_run(c, &data);
}

static int ar_int(struct optinc_comm *c, const void *x, void *y, __u32 count)
{
	struct optinc_phase sum = {
		.op = OPTINC_OP_ISUM, .bits = 32, .rbits = 32, .count = count,
		.per_frame = optinc_frame_elems(c, 4, 0),
		.fill = ar_int_fill, .take = ar_int_take, .src = x, .dst = y,
	};

	return ar_run(c, &sum);
}

static int ar_check_bufs(struct optinc_comm *c, const void *sendbuf,
			 void *recvbuf, size_t count)
{
	uintptr_t s = (uintptr_t)sendbuf, r = (uintptr_t)recvbuf;
	size_t len = count * 4;

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

static int ar_check(struct optinc_comm *c, const void *sendbuf, void *recvbuf,
		    size_t count, int datatype, int op)
{
	if (datatype != OPTINC_FLOAT32 && datatype != OPTINC_INT32)
		return optinc_seterr(c, OPTINC_ERR_INVALID,
				     "allreduce: unknown datatype %d", datatype);
	if (op != OPTINC_SUM && op != OPTINC_AVG)
		return optinc_seterr(c, OPTINC_ERR_INVALID,
				     "allreduce: unknown op %d", op);
	if (datatype == OPTINC_INT32 && op == OPTINC_AVG)
		return optinc_seterr(c, OPTINC_ERR_UNSUPPORTED,
				     "allreduce: int32 AVG is not supported (use SUM)");
	if (c->failed)
		return optinc_seterr(c, c->failed,
				     "allreduce: an earlier call on this communicator failed (%s) and left the ranks out of step; destroy it",
				     optinc_strerror(c->failed));
	return ar_check_bufs(c, sendbuf, recvbuf, count);
}

/* The switch path of a call; a failure that sent frames poisons the comm. */
static int ar_switch(struct optinc_comm *c, const void *sendbuf,
		     void *recvbuf, size_t count, int datatype, int op)
{
	__u32 seq0 = c->seq;
	int err;

	if (datatype == OPTINC_INT32)
		err = ar_int(c, sendbuf, recvbuf, count);
	else
		err = ar_float(c, sendbuf, recvbuf, count, op);
	if (err && err != OPTINC_ERR_SWITCH_GONE && c->seq != seq0)
		c->failed = err;
	return err;
}

static int ar_keep(struct optinc_comm *c, void **buf, size_t *cap,
		   const void *src, size_t count)
{
	void *p;

	if (count * 4 > *cap) {
		p = realloc(*buf, count * 4);
		if (!p)
			return optinc_seterr(c, OPTINC_ERR_NOMEM,
					     "allreduce: no memory to keep %zu values for failover",
					     count);
		*buf = p;
		*cap = count * 4;
	}
	memcpy(*buf, src, count * 4);
	return 0;
}

static int ar_ring(struct optinc_comm *c, const void *sendbuf, void *recvbuf,
		   size_t count, int datatype, int op)
{
	int err = optinc_ring_allreduce(c->ring, sendbuf, recvbuf, count,
					datatype, op, c->errmsg,
					sizeof(c->errmsg));

	if (err)
		c->failed = err;
	return err;
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
	err = ar_ring(c, v, v, n, OPTINC_INT32, OPTINC_SUM);
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
 * The switch is gone: finish this call through the ring. If some ranks
 * already returned from the call before (they are ahead), the first of
 * them hands its result to the others (a sum with zeros, bit exact), and
 * those return it; otherwise all redo the call from its input.
 */
static int ar_fallback(struct optinc_comm *c, const void *in, void *recvbuf,
		       size_t count, int datatype, int op)
{
	struct optinc_failover *fo = &c->fo;
	char why[OPTINC_ERRMSG_LEN];
	int err = 0, helper = -1;
	__u32 behind = 0;
	void *zero;

	snprintf(why, sizeof(why), "%s", c->errmsg);
	fprintf(stderr, "optinc: rank %d: %s; call %llu goes through the ring (%s)\n",
		c->cfg.rank, why, (unsigned long long)fo->calls, fo->peers);
	fo->on_ring = 1;
	fo->fallbacks++;
	if (!c->ring)
		err = optinc_ring_open(&c->ring, c->cfg.rank, c->cfg.size,
				       fo->peers, fo->ring_port,
				       c->cfg.timeout_ms, c->errmsg,
				       sizeof(c->errmsg));
	err = err ?: ar_positions(c, &behind, &helper);
	fo->base = behind;
	if (err || helper < 0)
		return err ?: ar_ring(c, in, recvbuf, count, datatype, op);
	fprintf(stderr, "optinc: rank %d: call %u had completed on rank %d; %s\n",
		c->cfg.rank, behind, helper, fo->calls != behind ?
		"handing its result to the ranks behind" :
		"taking its result from there");
	if (fo->calls != behind) {
		zero = calloc(fo->last_count ? fo->last_count : 1, 4);
		if (!zero)
			return optinc_seterr(c, OPTINC_ERR_NOMEM,
					     "failover: no memory");
		err = ar_ring(c, c->cfg.rank == helper ? fo->last : zero, zero,
			      fo->last_count, OPTINC_INT32, OPTINC_SUM);
		free(zero);
		return err ?: ar_ring(c, in, recvbuf, count, datatype, op);
	}
	zero = calloc(count, 4);
	if (!zero)
		return optinc_seterr(c, OPTINC_ERR_NOMEM, "failover: no memory");
	err = ar_ring(c, zero, recvbuf, count, OPTINC_INT32, OPTINC_SUM);
	free(zero);
	return err;
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
		fprintf(stderr, "optinc: rank %d: switch still unusable (%s); staying on the ring\n",
			c->cfg.rank, c->errmsg);
	err = ar_ring(c, &ok, &ok, 1, OPTINC_INT32, OPTINC_SUM);
	if (err || ok != (__u32)c->cfg.size)
		return err;
	fprintf(stderr, "optinc: rank %d: switch %s is back; calls go through it again\n",
		c->cfg.rank, c->cfg.sw_str);
	fo->on_ring = 0;
	fo->failbacks++;
	c->seq = 0;
	c->failed = 0;
	return 0;
}

/* A call with failover on: keep what a fallback needs, then try the switch. */
static int ar_failover(struct optinc_comm *c, const void *sendbuf,
		       void *recvbuf, size_t count, int datatype, int op)
{
	struct optinc_failover *fo = &c->fo;
	const void *in = sendbuf;
	int err = 0;

	if (fo->on_ring)
		err = ar_failback(c);
	if (!err && fo->on_ring) {
		err = ar_ring(c, sendbuf, recvbuf, count, datatype, op);
	} else if (!err) {
		if (sendbuf == recvbuf)
			err = ar_keep(c, &fo->in, &fo->in_cap, sendbuf, count);
		if (sendbuf == recvbuf)
			in = fo->in;
		err = err ?: ar_switch(c, in, recvbuf, count, datatype, op);
		if (err == OPTINC_ERR_SWITCH_GONE)
			err = ar_fallback(c, in, recvbuf, count, datatype, op);
	}
	if (err)
		return err;
	fo->calls++;
	fo->last_count = count;
	return ar_keep(c, &fo->last, &fo->last_cap, recvbuf, count);
}

/* Argument checks of a call, on the thread that makes or posts it. */
int optinc_call_check(struct optinc_comm *c, const struct optinc_call *k)
{
	return ar_check(c, k->sendbuf, k->recvbuf, k->count, k->datatype,
			k->op);
}

/* Run a checked call to its end (blocking), on one thread at a time. */
int optinc_call_run(struct optinc_comm *c, const struct optinc_call *k)
{
	c->st.calls++;
	if (!k->count)
		return 0;
	if (c->ring && !c->fo.peers)
		return ar_ring(c, k->sendbuf, k->recvbuf, k->count,
			       k->datatype, k->op);
	if (c->fo.ms)
		return ar_failover(c, k->sendbuf, k->recvbuf, k->count,
				   k->datatype, k->op);
	return ar_switch(c, k->sendbuf, k->recvbuf, k->count, k->datatype,
			 k->op);
}
