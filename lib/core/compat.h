/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/* What the core needs from its host: string functions, errno, byte order. */
#ifndef OPTINC_CORE_COMPAT_H
#define OPTINC_CORE_COMPAT_H

#ifdef __KERNEL__
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/bitops.h>
/* gcc may lower __builtin_popcountll to libgcc's __popcountdi2 */
#define oi_popcount64(x)	hweight64(x)
#else
#include <string.h>
#include <errno.h>
#define oi_popcount64(x)	__builtin_popcountll(x)
#endif
#include <linux/types.h>

/*
 * The per-element loops of the reduction, compiled once more for
 * x86-64-v3 (AVX2) and x86-64-v4 (AVX-512), one picked when the program
 * loads (GCC's target_clones, an ifunc): the same integer C, so the same
 * bits; 1.6x the exact average's elements per second of the SSE2
 * baseline (optinc-core-bench, N = 4). The kernel build keeps the baseline
 * (no vector registers in softirq), and so do clang builds (the fuzzers).
 */
#if !defined(__KERNEL__) && defined(__x86_64__) && defined(__GNUC__) && \
	!defined(__clang__)
#define OI_SIMD_CLONES \
	__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define OI_SIMD_CLONES
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define oi_be16(x)	((__u16)__builtin_bswap16((__u16)(x)))
#define oi_be32(x)	((__u32)__builtin_bswap32((__u32)(x)))
#define oi_le16(x)	((__u16)(x))
#define oi_le32(x)	((__u32)(x))
#define oi_le64(x)	((__u64)(x))
#else
#define oi_be16(x)	((__u16)(x))
#define oi_be32(x)	((__u32)(x))
#define oi_le16(x)	((__u16)__builtin_bswap16((__u16)(x)))
#define oi_le32(x)	((__u32)__builtin_bswap32((__u32)(x)))
#define oi_le64(x)	((__u64)__builtin_bswap64((__u64)(x)))
#endif

/* Unaligned big-endian loads and stores: frames give no alignment. */
static inline __u16 oi_get16(const void *p)
{
	__u16 v;

	memcpy(&v, p, 2);
	return oi_be16(v);
}

static inline __u32 oi_get32(const void *p)
{
	__u32 v;

	memcpy(&v, p, 4);
	return oi_be32(v);
}

static inline void oi_put16(void *p, __u16 v)
{
	v = oi_be16(v);
	memcpy(p, &v, 2);
}

static inline void oi_put32(void *p, __u32 v)
{
	v = oi_be32(v);
	memcpy(p, &v, 4);
}

#endif /* OPTINC_CORE_COMPAT_H */
