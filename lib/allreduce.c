// SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
/*
 * optinc_allreduce(): float32 in two phases (agree on per-block exponents
 * with op MAX, then the quantized values with op AVG or SUM), int32 in one
 * (op ISUM). Every rank dequantizes the same result frames, so all ranks
 * end up with bit-identical results.
 */
#include <arpa/inet.h>
#include <math.h>
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

int optinc_allreduce(struct optinc_comm *comm, const void *sendbuf,
		     void *recvbuf, size_t count, int datatype, int op)
{
	__u32 seq0;
	int err;

	if (!comm)
		return OPTINC_ERR_INVALID;
	err = ar_check(comm, sendbuf, recvbuf, count, datatype, op);
	if (err)
		return err;
	comm->st.calls++;
	if (!count)
		return 0;
	if (comm->ring) {
		err = optinc_ring_allreduce(comm->ring, sendbuf, recvbuf, count,
					    datatype, op, comm->errmsg,
					    sizeof(comm->errmsg));
		comm->failed = err;
		return err;
	}
	seq0 = comm->seq;
	if (datatype == OPTINC_INT32)
		err = ar_int(comm, sendbuf, recvbuf, count);
	else
		err = ar_float(comm, sendbuf, recvbuf, count, op);
	if (err && comm->seq != seq0)
		comm->failed = err;
	return err;
}
