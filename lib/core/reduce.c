// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * The per-element reduction arithmetic: the only place it exists. A slot
 * accumulates into 32-bit words (sums of offset-binary values, int32 sums
 * or maxima; ONN mode keeps P's symbol sums as byte planes in the same
 * memory, see lib/core/pam4.c) and finishes into the result's encoding.
 * Integer only, so the kernel module compiles it too.
 */
#include <optinc/core.h>
#include "compat.h"

/**
 * optinc_avg_rhe() - @sum / @members rounded to nearest, ties to even
 *
 * On offset-binary sums this equals rounding the average of the signed
 * values half to even: the offset N * 2^(B-1) divides exactly by N and
 * 2^(B-1) is even. Ties to even keep the average unbiased.
 */
__u32 optinc_avg_rhe(__u32 sum, __u32 members)
{
	__u32 q = sum / members, r = sum - q * members;

	if (2 * r > members || (2 * r == members && (q & 1)))
		q++;
	return q;
}

OI_SIMD_CLONES
void optinc_acc_load(enum optinc_kind k, __u32 *acc, const __u8 *src, __u32 n)
{
	__u16 *a16 = optinc_acc_u16(acc);
	__u32 i;

	switch (k) {
	case OPTINC_K_AVG8:
	case OPTINC_K_ONNS8:
	case OPTINC_K_SUM8:
		for (i = 0; i < n; i++)
			a16[i] = src[i];
		break;
	case OPTINC_K_AVG16:
	case OPTINC_K_SUM16:
	case OPTINC_K_CAVG16:
		for (i = 0; i < n; i++)
			acc[i] = oi_get16(src + 2 * i);
		break;
	case OPTINC_K_ONN8:
		optinc_pam4_planes_load((__u8 *)acc, src, n);
		break;
	case OPTINC_K_CONN8:
		for (i = 0; i < n; i++)
			acc[i] = optinc_cascade_spread(oi_get16(src + 2 * i));
		break;
	case OPTINC_K_ISUM:
	case OPTINC_K_CAVG32:
		for (i = 0; i < n; i++)
			acc[i] = oi_get32(src + 4 * i);
		break;
	case OPTINC_K_MAX8:
		for (i = 0; i < n; i++)
			acc[i] = (__u32)(__s32)(__s8)src[i];
		break;
	case OPTINC_K_MAX16:
		for (i = 0; i < n; i++)
			acc[i] = (__u32)(__s32)(__s16)oi_get16(src + 2 * i);
		break;
	case OPTINC_K_MAX32:
		for (i = 0; i < n; i++)
			acc[i] = oi_get32(src + 4 * i);
		break;
	default:
		break;
	}
}

OI_SIMD_CLONES
void optinc_acc_fold(enum optinc_kind k, __u32 *acc, const __u8 *src, __u32 n)
{
	__u16 *a16 = optinc_acc_u16(acc);
	__u32 i;

	switch (k) {
	case OPTINC_K_AVG8:
	case OPTINC_K_ONNS8:
	case OPTINC_K_SUM8:
		for (i = 0; i < n; i++)
			a16[i] += src[i];
		break;
	case OPTINC_K_AVG16:
	case OPTINC_K_SUM16:
	case OPTINC_K_CAVG16:
		for (i = 0; i < n; i++)
			acc[i] += oi_get16(src + 2 * i);
		break;
	case OPTINC_K_ONN8:
		optinc_pam4_planes_fold((__u8 *)acc, src, n);
		break;
	case OPTINC_K_CONN8:
		for (i = 0; i < n; i++)
			acc[i] += optinc_cascade_spread(oi_get16(src + 2 * i));
		break;
	case OPTINC_K_ISUM:
	case OPTINC_K_CAVG32:
		for (i = 0; i < n; i++)
			acc[i] += oi_get32(src + 4 * i);	/* wraps */
		break;
	case OPTINC_K_MAX8:
		for (i = 0; i < n; i++)
			if ((__s32)acc[i] < (__s8)src[i])
				acc[i] = (__u32)(__s32)(__s8)src[i];
		break;
	case OPTINC_K_MAX16:
		for (i = 0; i < n; i++)
			if ((__s32)acc[i] < (__s16)oi_get16(src + 2 * i))
				acc[i] = (__u32)(__s32)(__s16)oi_get16(src + 2 * i);
		break;
	case OPTINC_K_MAX32:
		for (i = 0; i < n; i++)
			if ((__s32)acc[i] < (__s32)oi_get32(src + 4 * i))
				acc[i] = oi_get32(src + 4 * i);
		break;
	default:
		break;
	}
}

__u8 optinc_result_bits(enum optinc_kind k)
{
	switch (k) {
	case OPTINC_K_AVG16:
	case OPTINC_K_CAVG32:
	case OPTINC_K_MAX16:
		return 16;
	case OPTINC_K_SUM8:
	case OPTINC_K_SUM16:
	case OPTINC_K_ISUM:
	case OPTINC_K_MAX32:
		return 32;
	default:
		return 8;
	}
}

/*
 * @q, or the patch's output where @a is a patched sum (struct
 * optinc_table, by_avg): a fixed count of compares, unused ones on a sum
 * no slot reaches, so that the loop around stays one vector loop.
 */
static inline __attribute__((always_inline))
__u8 avg8_patch(__u16 a, __u8 q, const __u16 *ps, const __u8 *po)
{
	int e;

	if (ps)
		for (e = 0; e < OPTINC_TABLE_PATCH_MAX; e++)
			q = a == ps[e] ? po[e] : q;
	return q;
}

/*
 * sum / N rounded half to even without a division or a branch, in 16-bit
 * lanes, so that the compiler vectorizes it: with a division and branches
 * this loop cost six times the rest of a slot (profile of optincd at
 * N = 4: 19 % of its CPU). For N = 2^s: (a + N/2 - 1 + (q & 1)) >> s.
 * Else, with 2^k > 255 N^2 and m = ceil(2^k / N) (below 2^16), every
 * 8-bit sum a <= 255 N has floor(a / N) = (a m) >> k, since the excess
 * a (m N - 2^k) / (N 2^k) < 255 N / 2^k stays below 1/N. @ps and @po:
 * patches put in (finish_avg8_patched()), NULL for none.
 */
static inline __attribute__((always_inline))
void avg8_loop(const __u16 *acc, const __u8 *add, __u32 n, __u16 members,
	       const __u16 *ps, const __u8 *po, __u8 *dst)
{
	__u32 i, k = 16, m;

	if ((members & (members - 1)) == 0) {
		/* N = 2^s: add half - 1, and 1 more when q is odd */
		__u16 s = (__u16)__builtin_ctz(members), h = (__u16)(members / 2);

		for (i = 0; i < n; i++) {
			__u16 a = (__u16)(acc[i] + (add ? add[i] : 0));
			__u8 q = (__u8)((__u16)(a + h - (h != 0) +
						((a >> s) & (h != 0))) >> s);

			dst[i] = avg8_patch(a, q, ps, po);
		}
		return;
	}
	while ((1u << k) <= 255u * members * members)
		k++;
	m = ((1u << k) + members - 1) / members;
	for (i = 0; i < n; i++) {
		__u16 a = (__u16)(acc[i] + (add ? add[i] : 0)), m16 = (__u16)m;
		__u16 sh = (__u16)(k - 16), nn = members;
		__u16 hi = (__u16)(((__u32)a * m16) >> 16);
		__u16 q = hi >> sh;
		__u16 r2 = (__u16)(2 * (__u16)(a - (__u16)(q * nn)));

		dst[i] = avg8_patch(a, (__u8)(q + (r2 > nn) +
					      ((r2 == nn) & q & 1)), ps, po);
	}
}

OI_SIMD_CLONES
static void finish_avg8(const __u16 *acc, __u32 n, __u16 members, __u8 *dst)
{
	avg8_loop(acc, NULL, n, members, NULL, NULL, dst);
}

/* The last contribution @add folded in on the way: one pass, not two. */
OI_SIMD_CLONES
static void fold_finish_avg8(const __u16 *acc, const __u8 *add, __u32 n,
			     __u16 members, __u8 *dst)
{
	avg8_loop(acc, add, n, members, NULL, NULL, dst);
}

#ifndef __KERNEL__	/* finish_onns8() says why */
/*
 * The exact average with @t's patches put in, @add (may be NULL) folded
 * in on the way. The patches are copied to the stack first: the compiler
 * then knows that no store to @dst changes them, and keeps them in
 * registers.
 */
OI_SIMD_CLONES
static void finish_avg8_patched(const __u16 *acc, const __u8 *add, __u32 n,
				__u16 members, const struct optinc_table *t,
				__u8 *dst)
{
	__u16 ps[OPTINC_TABLE_PATCH_MAX];
	__u8 po[OPTINC_TABLE_PATCH_MAX];
	int e;

	for (e = 0; e < OPTINC_TABLE_PATCH_MAX; e++) {
		/* a sum of 8-bit values is at most 255 x 64: never 0xffff */
		ps[e] = e < t->patches ? t->patch_sum[e] : 0xffff;
		po[e] = e < t->patches ? t->patch_out[e] : 0;
	}
	if (add)
		avg8_loop(acc, add, n, members, ps, po, dst);
	else
		avg8_loop(acc, NULL, n, members, ps, po, dst);
}
#endif

/*
 * ONNS8's result: f_theta by the sum. A table near the exact average
 * (by_avg) is that average and its patches, in vector lanes; else a
 * look-up per element. The gain is the vector lanes, which the kernel's
 * build does not have (no vector registers in softirq): it looks up.
 */
static void finish_onns8(const struct optinc_table *t, const __u16 *acc,
			 const __u8 *add, __u32 n, __u16 members, __u8 *dst)
{
#ifndef __KERNEL__
	if (t->by_sum && t->by_avg) {
		if (t->patches)
			finish_avg8_patched(acc, add, n, members, t, dst);
		else if (add)
			fold_finish_avg8(acc, add, n, members, dst);
		else
			finish_avg8(acc, n, members, dst);
		return;
	}
#endif
	optinc_table_sum_lookup(t, acc, add, n, dst);
}

/**
 * optinc_acc_finish() - turn a complete slot's accumulators into a result
 * @k:       reduction kind
 * @acc:     @n accumulators (ONN8: P's sums as four byte planes; ONNS8:
 *           the values' sums, as AVG8's)
 * @n:       elements
 * @members: N, the number of values summed in @acc (N2 x N1 for CAVG)
 * @t:       truth table, for OPTINC_K_ONN8 (N must match)
 * @dst:     result elements, optinc_result_bits(@k) / 8 bytes each
 *
 * Return: bytes written to @dst.
 */
__u32 optinc_acc_finish(enum optinc_kind k, __u32 *acc, __u32 n,
			__u16 members, const struct optinc_table *t, __u8 *dst)
{
	__u32 i, off;

	switch (k) {
	case OPTINC_K_AVG8:
		finish_avg8(optinc_acc_u16(acc), n, members, dst);
		return n;
	case OPTINC_K_ONN8:
		optinc_table_lookup(t, (const __u8 *)acc, n, dst);
		return n;
	case OPTINC_K_ONNS8:
		finish_onns8(t, optinc_acc_u16(acc), NULL, n, members, dst);
		return n;
	case OPTINC_K_CONN8:
		optinc_cascade_finish_table(acc, n, t, dst);
		return n;
	case OPTINC_K_MAX8:
		for (i = 0; i < n; i++)
			dst[i] = (__u8)acc[i];
		return n;
	case OPTINC_K_MAX16:
		for (i = 0; i < n; i++)
			oi_put16(dst + 2 * i, (__u16)acc[i]);
		return 2 * n;
	case OPTINC_K_CAVG16:
		for (i = 0; i < n; i++)
			dst[i] = (__u8)optinc_avg_rhe(acc[i], members);
		return n;
	case OPTINC_K_AVG16:
	case OPTINC_K_CAVG32:
		for (i = 0; i < n; i++)
			oi_put16(dst + 2 * i, (__u16)optinc_avg_rhe(acc[i], members));
		return 2 * n;
	case OPTINC_K_SUM8:
		off = (__u32)members << 7;
		for (i = 0; i < n; i++)
			oi_put32(dst + 4 * i, optinc_acc_u16(acc)[i] - off);
		return 4 * n;
	case OPTINC_K_SUM16:
		off = (__u32)members << 15;
		for (i = 0; i < n; i++)
			oi_put32(dst + 4 * i, acc[i] - off);
		return 4 * n;
	case OPTINC_K_ISUM:
	case OPTINC_K_MAX32:
		for (i = 0; i < n; i++)
			oi_put32(dst + 4 * i, acc[i]);
		return 4 * n;
	default:
		return 0;
	}
}

/**
 * optinc_acc_fold_finish() - the last contribution and the result at once
 * @k:       reduction kind
 * @acc:     the accumulators of all contributions but @src's
 * @src:     the last contribution's elements
 * @n:       elements
 * @members: as for optinc_acc_finish()
 * @t:       as for optinc_acc_finish()
 * @dst:     result elements
 *
 * The same bits as optinc_acc_fold() then optinc_acc_finish(); for the
 * exact 8-bit average and for onn mode in one pass over the accumulators
 * (the slot's largest buffer), which then leave out @src. (Unit P and the
 * table in one pass were once slower than the two: its index no longer
 * vectorized, which table.c's index loops now do.)
 *
 * Return: bytes written to @dst.
 */
__u32 optinc_acc_fold_finish(enum optinc_kind k, __u32 *acc, const __u8 *src,
			     __u32 n, __u16 members,
			     const struct optinc_table *t, __u8 *dst)
{
	switch (k) {
	case OPTINC_K_AVG8:
		fold_finish_avg8(optinc_acc_u16(acc), src, n, members, dst);
		return n;
	case OPTINC_K_ONN8:
		optinc_table_fold_lookup(t, (const __u8 *)acc, src, n, dst);
		return n;
	case OPTINC_K_ONNS8:
		finish_onns8(t, optinc_acc_u16(acc), src, n, members, dst);
		return n;
	default:
		break;
	}
	optinc_acc_fold(k, acc, src, n);
	return optinc_acc_finish(k, acc, n, members, t, dst);
}
