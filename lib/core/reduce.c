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

void optinc_acc_load(enum optinc_kind k, __u32 *acc, const __u8 *src, __u32 n)
{
	__u32 i;

	switch (k) {
	case OPTINC_K_AVG8:
	case OPTINC_K_SUM8:
		for (i = 0; i < n; i++)
			acc[i] = src[i];
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
	default:
		break;
	}
}

void optinc_acc_fold(enum optinc_kind k, __u32 *acc, const __u8 *src, __u32 n)
{
	__u32 i;

	switch (k) {
	case OPTINC_K_AVG8:
	case OPTINC_K_SUM8:
		for (i = 0; i < n; i++)
			acc[i] += src[i];
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
	default:
		break;
	}
}

__u8 optinc_result_bits(enum optinc_kind k)
{
	switch (k) {
	case OPTINC_K_AVG16:
	case OPTINC_K_CAVG32:
		return 16;
	case OPTINC_K_SUM8:
	case OPTINC_K_SUM16:
	case OPTINC_K_ISUM:
		return 32;
	default:
		return 8;
	}
}

static void finish_avg8(const __u32 *acc, __u32 n, __u16 members, __u8 *dst)
{
	__u32 i, shift = (__u32)__builtin_ctz(members);

	if ((members & (members - 1)) == 0) {
		/* power of two: shift and round half to even, vectorizable */
		__u32 half = (1u << shift) >> 1, mask = (1u << shift) - 1;

		for (i = 0; i < n; i++) {
			__u32 q = acc[i] >> shift, r = acc[i] & mask;

			dst[i] = (__u8)(q + (r > half || (r == half && half &&
							  (q & 1))));
		}
		return;
	}
	for (i = 0; i < n; i++)
		dst[i] = (__u8)optinc_avg_rhe(acc[i], members);
}

/**
 * optinc_acc_finish() - turn a complete slot's accumulators into a result
 * @k:       reduction kind
 * @acc:     @n accumulators (ONN mode: P's sums as four byte planes)
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
		finish_avg8(acc, n, members, dst);
		return n;
	case OPTINC_K_ONN8:
		optinc_table_lookup(t, (const __u8 *)acc, n, dst);
		return n;
	case OPTINC_K_CONN8:
		optinc_cascade_finish_table(acc, n, t, dst);
		return n;
	case OPTINC_K_MAX8:
		for (i = 0; i < n; i++)
			dst[i] = (__u8)acc[i];
		return n;
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
	case OPTINC_K_SUM16:
		off = (__u32)members << (k == OPTINC_K_SUM8 ? 7 : 15);
		for (i = 0; i < n; i++)
			oi_put32(dst + 4 * i, acc[i] - off);
		return 4 * n;
	case OPTINC_K_ISUM:
		for (i = 0; i < n; i++)
			oi_put32(dst + 4 * i, acc[i]);
		return 4 * n;
	default:
		return 0;
	}
}
