/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * The codec's instruction-set paths (user space only): one table of the
 * four per-block functions per path, chosen once by lib/core/quant.c.
 * Every path gives the results of the scalar reference bit for bit.
 */
#ifndef OPTINC_QUANT_ISA_H
#define OPTINC_QUANT_ISA_H

#include <float.h>
#include <optinc/quant.h>
#include "compat.h"

#define QUANT_ABS	0x7fffffffu
#define QUANT_INF	0x7f800000u	/* |x| bits at or above: NaN or inf */
#define QUANT_MIN_NORMAL 0x00800000u	/* |x| bits below: 0 or subnormal */
#define QUANT_MIN(a, b)	((__u32)((a) < (b) ? (a) : (b)))

struct quant_isa {
	const char *name;
	int (*usable)(void);
	int (*block_exp)(const float *x, __u32 n, unsigned int bits, __s8 *e);
	void (*quantize)(const float *x, __u32 n, __s8 e, unsigned int bits,
			 __u8 *dst);
	void (*dequantize)(const __u8 *src, __u32 n, __s8 e, unsigned int bits,
			   float *y);
	void (*dequantize_sum)(const __u8 *src, __u32 n, __s8 e,
			       unsigned int bits, float *y);
	/* the same over consecutive blocks (include/optinc/quant.h) */
	int (*block_exps)(const float *x, __u32 n, __u32 block,
			  unsigned int bits, __s8 *e, __u32 *bad);
	int (*block_exps_codes)(const float *x, __u32 n, __u32 block,
				unsigned int bits, __s8 *e, __u8 *codes,
				__u32 *bad);
	void (*quantize_blocks)(const float *x, __u32 n, __u32 block,
				const __s8 *e, unsigned int bits, __u8 *dst);
	void (*dequantize_blocks)(const __u8 *src, __u32 n, __u32 block,
				  const __s8 *e, unsigned int bits, float *y);
	void (*dequantize_sum_blocks)(const __u8 *src, __u32 n, __u32 block,
				      const __s8 *e, unsigned int bits,
				      float *y);
};

#if defined(__x86_64__) || defined(__i386__)
extern const struct quant_isa optinc_quant_avx2, optinc_quant_sse41;
#endif
#if FLT_EVAL_METHOD == 0	/* quant_port.c */
extern const struct quant_isa optinc_quant_portable;
#endif

/* The reference's exponent of a block from the bits of max|x| (frexp). */
int optinc_quant_exp_of_max_ref(__u32 m, unsigned int bits, __s8 *e);

/*
 * The same from the float's fields, for normal maxima: max = (2^23 + f)
 * 2^(E-150) is below 2^(E-126) (1 - 2^-B) unless f >= 2^23 - 2^(24-B).
 * Zero and subnormal maxima (rare) take the reference's way.
 */
static inline int quant_exp_of_max(__u32 m, unsigned int bits, __s8 *e)
{
	int ex;

	if (m >= QUANT_INF)
		return -ERANGE;
	if (m < QUANT_MIN_NORMAL)
		return optinc_quant_exp_of_max_ref(m, bits, e);
	ex = (int)(m >> 23) - 126;
	if ((m & 0x7fffffu) >= (1u << 23) - (1u << (24 - bits)))
		ex++;
	*e = (__s8)(ex > OPTINC_EXP_MAX ? OPTINC_EXP_MAX : ex);
	return 0;
}

/* 2^k as a float's bits, for -126 <= k <= 127 */
static inline __u32 quant_pow2_bits(int k)
{
	return (__u32)(k + 127) << 23;
}

/*
 * When the float paths apply. Quantize multiplies by 2^(B-1-e) in float:
 * exact wherever the product is a normal float; a product that overflows
 * saturates to the limit anyway, one that underflows is below 2^-126 and
 * rounds to 0 anyway. Only the factor itself must be a normal float
 * (B-1-e <= 127). Dequantize multiplies q (or the 24-bit rounding of a
 * sum) by step = 2^(e-(B-1)): one correctly rounded float product, the
 * same as the reference's exact double product rounded to float, as long
 * as step is normal (e-(B-1) >= -126: no result is then subnormal). Other
 * blocks, and B other than 8 and 16, take the reference.
 */
static inline int quant_fast_bits(unsigned int bits)
{
	return bits == 8 || bits == 16;
}

static inline int quant_fast_q(__s8 e, unsigned int bits)
{
	return quant_fast_bits(bits) && (int)bits - 1 - e <= 127;
}

static inline int quant_fast_dq(__s8 e, unsigned int bits)
{
	return quant_fast_bits(bits) && e - ((int)bits - 1) >= -126;
}

/*
 * The bodies of the block loops, for one path's functions named directly
 * so that they inline (bits is 8 or 16 here: quant.c checked). Block j
 * is x[j * block ...], at most block long, with exponent e[j].
 */
#define QUANT_EXPS_LOOP(exp_fn) do {					\
	size_t i;							\
	__u32 j;							\
									\
	for (i = 0, j = 0; i < n; i += block, j++)			\
		if (exp_fn(x + i, QUANT_MIN(block, n - i),	\
			   bits, &e[j])) {				\
			if (bad)					\
				*bad = j;				\
			return -ERANGE;					\
		}							\
	return 0;							\
} while (0)

/* the same, each block then quantized at its own exponent while in L1 */
#define QUANT_EXPS_CODES_LOOP(exp_fn, q_fn) do {			\
	size_t i, esz = bits / 8;					\
	__u32 j, len;							\
									\
	for (i = 0, j = 0; i < n; i += block, j++) {			\
		len = QUANT_MIN(block, n - i);				\
		if (exp_fn(x + i, len, bits, &e[j])) {			\
			if (bad)					\
				*bad = j;				\
			return -ERANGE;					\
		}							\
		if (quant_fast_q(e[j], bits))				\
			q_fn(x + i, len, e[j], bits, codes + i * esz);	\
		else							\
			optinc_quantize_ref(x + i, len, e[j], bits,	\
					    codes + i * esz);		\
	}								\
	return 0;							\
} while (0)

#define QUANT_Q_LOOP(q_fn) do {						\
	size_t i, esz = bits / 8;					\
	__u32 j, len;							\
									\
	for (i = 0, j = 0; i < n; i += block, j++) {			\
		len = QUANT_MIN(block, n - i);		\
		if (quant_fast_q(e[j], bits))				\
			q_fn(x + i, len, e[j], bits, dst + i * esz);	\
		else							\
			optinc_quantize_ref(x + i, len, e[j], bits,	\
					    dst + i * esz);		\
	}								\
} while (0)

#define QUANT_DQ_LOOP(dq_fn, esz, ref_fn) do {				\
	size_t i;							\
	__u32 j, len;							\
									\
	for (i = 0, j = 0; i < n; i += block, j++) {			\
		len = QUANT_MIN(block, n - i);		\
		if (quant_fast_dq(e[j], bits))				\
			dq_fn(src + i * (esz), len, e[j], bits, y + i);	\
		else							\
			ref_fn(src + i * (esz), len, e[j], bits, y + i);	\
	}								\
} while (0)

#endif /* OPTINC_QUANT_ISA_H */
