// SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
/*
 * A call through the ring, under the same rules as through the switch:
 * the caller's datatype (float16 and bfloat16 reduced as float32), the
 * non-finite rule per block of opts.block elements, and ranks that are
 * in different calls fail together instead of mixing them.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "dtype.h"
#include "ring.h"

static int ar_ring_raw(struct optinc_comm *c, const void *send, void *recv,
		       size_t count, int datatype, int op)
{
	int err = optinc_ring_allreduce(c->ring, send, recv, count, datatype,
					op, c->errmsg, sizeof(c->errmsg));

	if (err)
		c->failed = err;
	return err;
}

/*
 * Before the data, one small ring MAX of {tag, ~tag, non-finite} (the
 * switch's call tag): every rank then knows whether all are in the same
 * call (max of ~tag is ~min) and whether any input is not finite, and all
 * act alike on it.
 */
static int ar_ring_agree(struct optinc_comm *c, const struct optinc_call *k,
			 int *nonfinite)
{
	__s32 tag = optinc_call_tag(c, k, 0);
	__s32 v[3] = {
		tag, ~tag,
		k->datatype != OPTINC_INT32 &&
		!optinc_dtype_finite(k->datatype, k->sendbuf, 0, k->count),
	};
	int err = ar_ring_raw(c, v, v, 3, OPTINC_INT32, OPTINC_MAX);

	if (err)
		return err;
	*nonfinite = v[2];
	if (v[0] != (__s32)~v[1])
		return c->failed = optinc_seterr(c, OPTINC_ERR_PROTO,
			"allreduce: ring: the ranks are in different calls (one skipped a call, or called with another count, datatype or op)");
	if (v[2] && c->cfg.nonfinite == OPTINC_NONFINITE_ERROR)
		return optinc_seterr(c, OPTINC_ERR_RANGE,
				     "allreduce: ring: a NaN or an infinity is in some rank's input; recvbuf is untouched");
	return 0;
}

/* float16, bfloat16: as float32, rounded back once. */
static int ar_ring_half(struct optinc_comm *c, const struct optinc_call *k)
{
	float *f = malloc(k->count * sizeof(*f));
	int err;

	if (!f)
		return optinc_seterr(c, OPTINC_ERR_NOMEM,
				     "allreduce: ring: no memory for %zu floats",
				     k->count);
	optinc_dtype_load(k->datatype, k->sendbuf, 0, (__u32)k->count, f);
	err = ar_ring_raw(c, f, f, k->count, OPTINC_FLOAT32, k->op);
	if (!err)
		optinc_dtype_store(k->datatype, f, (__u32)k->count, k->recvbuf,
				   0);
	free(f);
	return err;
}

/* The non-finite rule: a block with a non-finite element is all NaN. */
static void ar_ring_blocks(const struct optinc_comm *c,
			   const struct optinc_call *k)
{
	size_t off;
	__u32 n;

	for (off = 0; off < k->count; off += c->cfg.block) {
		n = (__u32)OPTINC_MIN(c->cfg.block, k->count - off);
		if (!optinc_dtype_finite(k->datatype, k->recvbuf, off, n))
			optinc_dtype_nan(k->datatype, k->recvbuf, off, n);
	}
}

/**
 * optinc_ar_ring() - run a checked call through the ring
 * @check: agree on the call first (user calls; failover's own
 *         bookkeeping calls pass 0)
 * Return: 0 or a result code, errmsg set; a broken ring poisons the comm.
 */
int optinc_ar_ring(struct optinc_comm *c, const struct optinc_call *k,
		   int check)
{
	int nonfinite = 0, err = 0;

	if (check)
		err = ar_ring_agree(c, k, &nonfinite);
	if (err)
		return err;
	if (k->datatype == OPTINC_FLOAT16 || k->datatype == OPTINC_BFLOAT16)
		err = ar_ring_half(c, k);
	else
		err = ar_ring_raw(c, k->sendbuf, k->recvbuf, k->count,
				  k->datatype, k->op);
	if (!err && k->datatype != OPTINC_INT32)
		ar_ring_blocks(c, k);
	return err;
}
