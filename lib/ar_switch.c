// SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
/*
 * A call through the switch. Floats go in two phases: the ranks agree on
 * each block's code (op MAX of 16-bit codes: a non-finite flag and the
 * exponent), then send the block's values quantized with the agreed
 * exponent (op AVG, SUM, or MAX of two's complement values for MAX and
 * MIN). int32 goes in one phase (ISUM, or MAX of 32-bit values). Every
 * rank takes the same result frames, so all get bit-identical results.
 * Documentation/library.md has the rules and bounds.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <optinc/quant.h>

#include "core/compat.h"
#include "dtype.h"
#include "pipe.h"

/*
 * A block's code in the exponent phase, a non-negative 16-bit value so
 * that the switch's MAX picks the largest flag, then the largest
 * exponent: flag << 12 | (e + 2048).
 */
#define AR_CODE_NONFINITE	1
#define AR_CODE_EBIAS		2048

static __s16 ar_code(int flag, int e)
{
	return (__s16)(flag << 12 | (e + AR_CODE_EBIAS));
}

static int ar_code_flag(__s16 code)
{
	return code >> 12;
}

static int ar_code_exp(__s16 code)
{
	return (code & 0xfff) - AR_CODE_EBIAS;
}

/* What the phases of one float call work on. */
struct ar_ctx {
	const struct optinc_call *k;
	unsigned int bits, block;
	__s16 *codes;		/* per block: ours, then the agreed ones */
	float *f32;		/* one block as float32 */
	double *f64;		/* one block as float64 */
	__u8 *q;		/* one block's elements */
	__u8 *keep;		/* the result elements as they come, or NULL */
};

static __u32 ar_block_n(const struct ar_ctx *x, __u32 b)
{
	return OPTINC_MIN(x->block, x->k->count - (size_t)b * x->block);
}

static void ar_code_fill(const struct optinc_phase *p, __u32 i, __u32 n,
			 __s8 *scales, __u8 *elems)
{
	const struct ar_ctx *x = p->ctx;
	__u32 j;

	for (j = 0; j < n; j++)
		oi_put16(elems + 2 * j,
			 (__u16)x->codes[(size_t)i * p->per_frame + j]);
}

static void ar_code_take(const struct optinc_phase *p, __u32 i, __u32 n,
			 const struct optinc_msg *m)
{
	const struct ar_ctx *x = p->ctx;
	__u32 j;

	for (j = 0; j < n; j++)
		x->codes[(size_t)i * p->per_frame + j] =
			(__s16)oi_get16(m->elems + 2 * j);
}

/*
 * MAX and MIN on the switch's MAX of two's complement values: offset
 * binary u is q + 2^(B-1), so u with its top bit flipped is q, and with
 * every other bit flipped is ~q, whose maximum is ~min(q). Its own inverse.
 */
static void ar_minmax_flip(int op, unsigned int bits, __u8 *e, __u32 n)
{
	__u32 j, w = bits / 8;

	for (j = 0; j < n; j++, e += w) {
		e[0] ^= op == OPTINC_MAX ? 0x80 : 0x7f;
		if (w == 2 && op == OPTINC_MIN)
			e[1] ^= 0xff;
	}
}

/* Block @b's values, quantized with exponent @e, into @dst. */
static void ar_quantize(const struct ar_ctx *x, __u32 b, int e, __u8 *dst)
{
	const struct optinc_call *k = x->k;
	size_t off = (size_t)b * x->block;
	__u32 n = ar_block_n(x, b);

	if (k->datatype == OPTINC_FLOAT64) {
		optinc_quantize64((const double *)k->sendbuf + off, n, e,
				  x->bits, dst);
	} else if (k->datatype == OPTINC_FLOAT32) {
		optinc_quantize((const float *)k->sendbuf + off, n, (__s8)e,
				x->bits, dst);
	} else {
		optinc_dtype_load(k->datatype, k->sendbuf, off, n, x->f32);
		optinc_quantize(x->f32, n, (__s8)e, x->bits, dst);
	}
	if (k->op == OPTINC_MAX || k->op == OPTINC_MIN)
		ar_minmax_flip(k->op, x->bits, dst, n);
}

static void ar_data_fill(const struct optinc_phase *p, __u32 i, __u32 n,
			 __s8 *scales, __u8 *elems)
{
	const struct ar_ctx *x = p->ctx;
	__u32 j, b0 = i * (p->per_frame / x->block), w = p->bits / 8;
	__s16 code;

	for (j = 0; j * x->block < n; j++) {
		code = x->codes[b0 + j];
		/* the wire's scale is the low byte: only compared, never used */
		if (p->block)
			scales[j] = (__s8)(__u8)(ar_code_exp(code) & 0xff);
		if (ar_code_flag(code))
			memset(elems + j * x->block * w, 0,
			       (size_t)ar_block_n(x, b0 + j) * w);
		else
			ar_quantize(x, b0 + j, ar_code_exp(code),
				    elems + j * x->block * w);
	}
}

/* Result elements @src of block @b, exponent @e, into the caller's buffer. */
static void ar_dequantize(const struct ar_ctx *x, __u32 b, int e,
			  const __u8 *src)
{
	const struct optinc_call *k = x->k;
	size_t off = (size_t)b * x->block;
	__u32 n = ar_block_n(x, b);
	int sum = k->op == OPTINC_SUM;

	if (k->op == OPTINC_MAX || k->op == OPTINC_MIN) {
		memcpy(x->q, src, (size_t)n * x->bits / 8);
		ar_minmax_flip(k->op, x->bits, x->q, n);
		src = x->q;
	}
	if (k->datatype == OPTINC_FLOAT64) {
		optinc_dequantize64(src, n, e, x->bits, sum,
				    (double *)k->recvbuf + off);
		return;
	}
	if (sum)
		optinc_dequantize_sum(src, n, (__s8)e, x->bits, x->f32);
	else
		optinc_dequantize(src, n, (__s8)e, x->bits, x->f32);
	optinc_dtype_store(k->datatype, x->f32, n, k->recvbuf, off);
}

/*
 * Result elements @src of @nb blocks from block @b0 (@w bytes each) into
 * the caller's buffer, with the non-finite rule: a block flagged by any
 * rank is NaN; so is a block whose sum left the caller's type (the exact
 * sum is not finite there).
 */
static void ar_take_blocks(const struct ar_ctx *x, __u32 b0, __u32 nb,
			   const __u8 *src, __u32 w)
{
	const struct optinc_call *k = x->k;
	__u32 j, bn;
	__s16 code;

	for (j = 0; j < nb; j++) {
		code = x->codes[b0 + j];
		bn = ar_block_n(x, b0 + j);
		if (!ar_code_flag(code))
			ar_dequantize(x, b0 + j, ar_code_exp(code),
				      src + (size_t)j * x->block * w);
		if (ar_code_flag(code) ||
		    (k->op == OPTINC_SUM &&
		     !optinc_dtype_finite(k->datatype, k->recvbuf,
					  (size_t)(b0 + j) * x->block, bn)))
			optinc_dtype_nan(k->datatype, k->recvbuf,
					 (size_t)(b0 + j) * x->block, bn);
	}
}

/* A result frame: decoded, and kept as it came where failover needs it. */
static void ar_data_take(const struct optinc_phase *p, __u32 i, __u32 n,
			 const struct optinc_msg *m)
{
	const struct ar_ctx *x = p->ctx;
	__u32 b0 = i * (p->per_frame / x->block), w = p->rbits / 8;

	/* per_frame is whole blocks: frame i's elements start at block b0 */
	if (x->keep)
		memcpy(x->keep + (size_t)b0 * x->block * w, m->elems,
		       (size_t)n * w);
	ar_take_blocks(x, b0, OPTINC_DIV_UP(n, x->block), m->elems, w);
}

/* This rank's code of block @b: its exponent, or the non-finite flag. */
static __s16 ar_propose(const struct ar_ctx *x, __u32 b)
{
	const struct optinc_call *k = x->k;
	size_t off = (size_t)b * x->block;
	__u32 n = ar_block_n(x, b);
	__s8 e8;
	int e;

	if (k->datatype == OPTINC_FLOAT64) {
		if (optinc_block_exp64((const double *)k->sendbuf + off, n,
				       x->bits, &e))
			return ar_code(AR_CODE_NONFINITE, 0);
		return ar_code(0, e);
	}
	if (k->datatype == OPTINC_FLOAT32) {
		if (optinc_block_exp((const float *)k->sendbuf + off, n,
				     x->bits, &e8))
			return ar_code(AR_CODE_NONFINITE, 0);
		return ar_code(0, e8);
	}
	optinc_dtype_load(k->datatype, k->sendbuf, off, n, x->f32);
	if (optinc_block_exp(x->f32, n, x->bits, &e8))
		return ar_code(AR_CODE_NONFINITE, 0);
	return ar_code(0, e8);
}

/* Per-call memory, kept on the communicator between calls. */
static int ar_ctx_alloc(struct optinc_comm *c, struct ar_ctx *x,
			__u32 nblocks)
{
	size_t need = (size_t)nblocks * 2 + (size_t)x->block * 14 + 16;
	void *p;

	if (need > c->scratch_cap) {
		p = realloc(c->scratch, need);
		if (!p)
			return optinc_seterr(c, OPTINC_ERR_NOMEM,
					     "allreduce: no memory for %u blocks' codes",
					     nblocks);
		c->scratch = p;
		c->scratch_cap = need;
	}
	x->f64 = c->scratch;
	x->f32 = (float *)(x->f64 + x->block);
	x->codes = (__s16 *)(x->f32 + x->block);
	x->q = (__u8 *)(x->codes + nblocks);
	return 0;
}

static int ar_run(struct optinc_comm *c, struct optinc_phase *p)
{
	p->nframes = OPTINC_DIV_UP(p->count, p->per_frame);
	return optinc_pipe_run(c, p);
}

/* Blocks some rank flagged: with OPTINC_NONFINITE_ERROR every rank fails. */
static int ar_nonfinite(struct optinc_comm *c, const struct ar_ctx *x,
			__u32 nblocks)
{
	__u32 b, first = nblocks, flagged = 0;

	for (b = 0; b < nblocks; b++)
		if (ar_code_flag(x->codes[b])) {
			first = b < first ? b : first;
			flagged++;
		}
	if (!flagged || c->cfg.nonfinite != OPTINC_NONFINITE_ERROR)
		return 0;
	return optinc_seterr(c, OPTINC_ERR_RANGE,
			     "allreduce: %u of %u blocks hold a NaN or an infinity on some rank, the first is block %u (elements %zu..%zu); recvbuf is untouched",
			     flagged, nblocks, first, (size_t)first * x->block,
			     (size_t)first * x->block + ar_block_n(x, first) - 1);
}

/* The result bits of a float call: 8 or 16 (AVG, MAX, MIN), 32 (SUM). */
static unsigned int ar_rbits(const struct optinc_comm *c,
			     const struct optinc_call *k)
{
	return k->op == OPTINC_SUM ? 32 : c->cfg.bits;
}

/**
 * optinc_ar_kept_bytes() - how many bytes failover keeps of call @k
 * @c: the communicator
 * @k: a call through the switch
 *
 * Float: the blocks' agreed codes (16 bits each, big-endian), then the
 * result elements as the frames carried them; int32: the result.
 */
size_t optinc_ar_kept_bytes(const struct optinc_comm *c,
			    const struct optinc_call *k)
{
	if (k->datatype == OPTINC_INT32)
		return k->count * 4;
	return OPTINC_DIV_UP(k->count, c->cfg.block) * 2 +
	       k->count * (ar_rbits(c, k) / 8);
}

/*
 * The float call's result, kept while it ran (fo->next, with x->keep on
 * its elements), becomes fo->last once its codes are in front.
 */
static void ar_kept(struct optinc_comm *c, const struct ar_ctx *x,
		    __u32 nblocks)
{
	struct optinc_failover *fo = &c->fo;
	void *t = fo->last;
	size_t cap = fo->last_cap;
	__u32 b;

	for (b = 0; b < nblocks; b++)
		oi_put16((__u8 *)fo->next + 2 * b, (__u16)x->codes[b]);
	fo->last = fo->next;
	fo->last_cap = fo->next_cap;
	fo->next = t;
	fo->next_cap = cap;
	fo->last_bytes = optinc_ar_kept_bytes(c, x->k);
	fo->kept = 1;
}

static int ar_float(struct optinc_comm *c, const struct optinc_call *k)
{
	struct ar_ctx x = { .k = k, .bits = c->cfg.bits, .block = c->cfg.block };
	__u32 nblocks = OPTINC_DIV_UP(k->count, x.block), b;
	int minmax = k->op == OPTINC_MAX || k->op == OPTINC_MIN;
	struct optinc_phase codes = {
		.op = OPTINC_OP_MAX, .bits = 16, .rbits = 16, .count = nblocks,
		.per_frame = optinc_frame_elems(c, 2, 0),
		.fill = ar_code_fill, .take = ar_code_take,
		.tag = optinc_call_tag(c, k, 0), .ctx = &x,
	};
	struct optinc_phase data = {
		.op = minmax ? OPTINC_OP_MAX : k->op == OPTINC_AVG ?
		      OPTINC_OP_AVG : OPTINC_OP_SUM,
		.bits = x.bits, .rbits = ar_rbits(c, k),
		/* MAX frames carry no scales (wire.h); blocks stay x.block */
		.block = minmax ? 0 : x.block, .count = k->count,
		.fill = ar_data_fill, .take = ar_data_take,
		.tag = optinc_call_tag(c, k, 1), .ctx = &x,
	};
	int err;

	data.per_frame = optinc_frame_elems(c, data.rbits / 8, x.block);
	err = ar_ctx_alloc(c, &x, nblocks);
	if (err)
		return err;
	if (c->fo.keep)	/* fo->next has room for it (allreduce.c) */
		x.keep = (__u8 *)c->fo.next + (size_t)nblocks * 2;
	for (b = 0; b < nblocks; b++)
		x.codes[b] = ar_propose(&x, b);
	err = ar_run(c, &codes) ?: ar_nonfinite(c, &x, nblocks) ?:
	      ar_run(c, &data);
	if (!err && x.keep)
		ar_kept(c, &x, nblocks);
	return err;
}

/**
 * optinc_ar_unkeep() - a kept result into call @k's recvbuf
 * @c:    the communicator
 * @k:    the call (the one whose result was kept, on another rank)
 * @kept: optinc_ar_kept_bytes() of it, as failover kept them
 *
 * Decoded as the result frames would have been: the same bits as on the
 * rank that kept it. Return: 0 or a result code.
 */
int optinc_ar_unkeep(struct optinc_comm *c, const struct optinc_call *k,
		     const void *kept)
{
	struct ar_ctx x = { .k = k, .bits = c->cfg.bits, .block = c->cfg.block };
	__u32 nblocks = OPTINC_DIV_UP(k->count, x.block), b;
	int err;

	if (k->datatype == OPTINC_INT32) {
		memcpy(k->recvbuf, kept, k->count * 4);
		return 0;
	}
	err = ar_ctx_alloc(c, &x, nblocks);
	if (err)
		return err;
	for (b = 0; b < nblocks; b++)
		x.codes[b] = (__s16)oi_get16((const __u8 *)kept + 2 * b);
	ar_take_blocks(&x, 0, nblocks, (const __u8 *)kept + 2 * (size_t)nblocks,
		       ar_rbits(c, k) / 8);
	return 0;
}

/* int32: big-endian on the wire; MIN as the maximum of ~x (wire.h). */
static __u32 ar_int_flip(const struct optinc_phase *p)
{
	const struct optinc_call *k = p->ctx;

	return k->op == OPTINC_MIN ? ~0u : 0;
}

static void ar_int_fill(const struct optinc_phase *p, __u32 i, __u32 n,
			__s8 *scales, __u8 *elems)
{
	const __u32 *x = (const __u32 *)p->src + (size_t)i * p->per_frame;
	__u32 k, flip = ar_int_flip(p);

	for (k = 0; k < n; k++)
		oi_put32(elems + 4 * k, x[k] ^ flip);
}

static void ar_int_take(const struct optinc_phase *p, __u32 i, __u32 n,
			const struct optinc_msg *m)
{
	__u32 *y = (__u32 *)p->dst + (size_t)i * p->per_frame;
	__u32 k, flip = ar_int_flip(p);

	for (k = 0; k < n; k++)
		y[k] = oi_get32(m->elems + 4 * k) ^ flip;
}

static int ar_int(struct optinc_comm *c, const struct optinc_call *k)
{
	struct optinc_phase sum = {
		.op = k->op == OPTINC_SUM ? OPTINC_OP_ISUM : OPTINC_OP_MAX,
		.bits = 32, .rbits = 32, .count = k->count,
		.per_frame = optinc_frame_elems(c, 4, 0),
		.fill = ar_int_fill, .take = ar_int_take, .src = k->sendbuf,
		.dst = k->recvbuf, .tag = optinc_call_tag(c, k, 0),
		.ctx = k,
	};

	return ar_run(c, &sum);
}

/**
 * optinc_ar_switch() - run a checked call through the switch
 * A failure that happened once frames were sent leaves the ranks' seqs
 * in doubt, so it poisons the communicator (but for the switch being gone,
 * which failover handles). Return: 0 or a result code, errmsg set.
 */
int optinc_ar_switch(struct optinc_comm *c, const struct optinc_call *k)
{
	__u32 seq0 = c->seq;
	int err;

	if (k->datatype == OPTINC_INT32)
		err = ar_int(c, k);
	else
		err = ar_float(c, k);
	if (err && err != OPTINC_ERR_SWITCH_GONE && err != OPTINC_ERR_RANGE &&
	    c->seq != seq0)
		c->failed = err;
	return err;
}
