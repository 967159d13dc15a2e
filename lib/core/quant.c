// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Block quantization of float32 (user space only: the kernel build of the
 * core leaves this file out). See include/optinc/quant.h for the rule.
 * The scalar functions here (*_ref) define the results; the public calls
 * run the fastest instruction-set path (lib/core/quant_x86.c) that gives
 * the same bits, chosen once.
 */
#include <math.h>
#include <stdlib.h>
#include <optinc/quant.h>
#include "quant_isa.h"

/*
 * Adding and subtracting 1.5 * 2^52 rounds a double of magnitude below
 * 2^51 to an integer, ties to even, in the default rounding mode; unlike
 * rint() it is inlined and vectorized.
 */
#define RNE_MAGIC	6755399441055744.0

static inline double quant_rne(double v)
{
	return (v + RNE_MAGIC) - RNE_MAGIC;	/* never -ffast-math here */
}

/*
 * The maximum of |x| runs in chunks of QUANT_CHUNK elements, a constant
 * trip count without branches, which gcc -O2 (its "very cheap" cost
 * model) vectorizes: it was a quarter of a rank's time at 64 MiB.
 */
#define QUANT_CHUNK	16

/* max(@m, bits of |x[i]|): the bits of non-negative floats order like them */
static inline __u32 quant_max_bits(const float *x, __u32 n, __u32 m)
{
	__u32 i, b;

	for (i = 0; i < n; i++) {
		memcpy(&b, &x[i], sizeof(b));
		b &= QUANT_ABS;
		m = b > m ? b : m;
	}
	return m;
}

double optinc_quant_step(__s8 e, unsigned int bits)
{
	return ldexp(1.0, (int)e - ((int)bits - 1));
}

int optinc_quant_exp_of_max_ref(__u32 m, unsigned int bits, __s8 *e)
{
	double f;
	float a;
	int ex;

	if (m >= QUANT_INF)
		return -ERANGE;
	if (m == 0) {
		*e = OPTINC_EXP_MIN;
		return 0;
	}
	memcpy(&a, &m, sizeof(a));
	f = frexp(a, &ex);	/* a = f * 2^ex, f in [0.5, 1) */
	if (f >= 1.0 - ldexp(1.0, -(int)bits))
		ex++;
	if (ex < OPTINC_EXP_MIN)
		ex = OPTINC_EXP_MIN;
	if (ex > OPTINC_EXP_MAX)
		ex = OPTINC_EXP_MAX;
	*e = (__s8)ex;
	return 0;
}

/* The scalar reference of optinc_block_exp(). */
int optinc_block_exp_ref(const float *x, __u32 n, unsigned int bits, __s8 *e)
{
	__u32 m = 0, i;

	for (i = 0; i + QUANT_CHUNK <= n; i += QUANT_CHUNK)
		m = quant_max_bits(x + i, QUANT_CHUNK, m);
	m = quant_max_bits(x + i, n - i, m);
	return optinc_quant_exp_of_max_ref(m, bits, e);
}

/*
 * q = x / step rounded half to even, clamped to +-(2^(B-1) - 1) (only
 * values beyond 2^127 ever need the clamp), sent as q + 2^(B-1).
 */
void optinc_quantize_ref(const float *x, __u32 n, __s8 e, unsigned int bits,
			 __u8 *dst)
{
	double inv = ldexp(1.0, (int)bits - 1 - (int)e);
	double lim = ldexp(1.0, (int)bits - 1) - 1.0;
	__u32 off = 1u << (bits - 1), i;

	for (i = 0; i < n; i++) {
		double q = quant_rne((double)x[i] * inv);

		q = q > lim ? lim : q < -lim ? -lim : q;
		if (bits == 8)
			dst[i] = (__u8)((__s32)q + (__s32)off);
		else
			oi_put16(dst + 2 * i, (__u16)((__s32)q + (__s32)off));
	}
}

/* Offset-binary values back to floats (exact: q * 2^k fits a float). */
void optinc_dequantize_ref(const __u8 *src, __u32 n, __s8 e,
			   unsigned int bits, float *y)
{
	double step = optinc_quant_step(e, bits);
	__s32 off = 1 << (bits - 1);
	__u32 i;

	for (i = 0; i < n; i++) {
		__s32 u = bits == 8 ? src[i] : oi_get16(src + 2 * i);

		y[i] = (float)((double)(u - off) * step);
	}
}

/* Big-endian int32 sums of signed values back to floats. */
void optinc_dequantize_sum_ref(const __u8 *src, __u32 n, __s8 e,
			       unsigned int bits, float *y)
{
	double step = optinc_quant_step(e, bits);
	__u32 i;

	for (i = 0; i < n; i++)
		y[i] = (float)((double)(__s32)oi_get32(src + 4 * i) * step);
}

/* ---- the public calls: the chosen path, or the reference where it must */

static int quant_scalar_usable(void)
{
	return 1;
}

static int quant_ref_exps(const float *x, __u32 n, __u32 block,
			  unsigned int bits, __s8 *e, __u32 *bad)
{
	size_t i;
	__u32 j;

	for (i = 0, j = 0; i < n; i += block, j++)
		if (optinc_block_exp_ref(x + i, QUANT_MIN(block, n - i), bits, &e[j])) {
			if (bad)
				*bad = j;
			return -ERANGE;
		}
	return 0;
}

static int quant_ref_exps_codes(const float *x, __u32 n, __u32 block,
				unsigned int bits, __s8 *e, __u8 *codes,
				__u32 *bad)
{
	size_t i;
	__u32 j;

	for (i = 0, j = 0; i < n; i += block, j++) {
		if (optinc_block_exp_ref(x + i, QUANT_MIN(block, n - i), bits, &e[j])) {
			if (bad)
				*bad = j;
			return -ERANGE;
		}
		optinc_quantize_ref(x + i, QUANT_MIN(block, n - i), e[j], bits,
				    codes + i * (bits / 8));
	}
	return 0;
}

static void quant_ref_q(const float *x, __u32 n, __u32 block, const __s8 *e,
			unsigned int bits, __u8 *dst)
{
	size_t i;
	__u32 j;

	for (i = 0, j = 0; i < n; i += block, j++)
		optinc_quantize_ref(x + i, QUANT_MIN(block, n - i), e[j], bits,
				    dst + i * (bits / 8));
}

static void quant_ref_dq(const __u8 *src, __u32 n, __u32 block,
			 const __s8 *e, unsigned int bits, float *y)
{
	size_t i;
	__u32 j;

	for (i = 0, j = 0; i < n; i += block, j++)
		optinc_dequantize_ref(src + i * (bits / 8), QUANT_MIN(block, n - i),
				      e[j], bits, y + i);
}

static void quant_ref_dqs(const __u8 *src, __u32 n, __u32 block,
			  const __s8 *e, unsigned int bits, float *y)
{
	size_t i;
	__u32 j;

	for (i = 0, j = 0; i < n; i += block, j++)
		optinc_dequantize_sum_ref(src + i * 4, QUANT_MIN(block, n - i),
					  e[j], bits, y + i);
}

static const struct quant_isa quant_scalar = {
	.name = "scalar", .usable = quant_scalar_usable,
	.block_exp = optinc_block_exp_ref, .quantize = optinc_quantize_ref,
	.dequantize = optinc_dequantize_ref,
	.dequantize_sum = optinc_dequantize_sum_ref,
	.block_exps = quant_ref_exps, .block_exps_codes = quant_ref_exps_codes,
	.quantize_blocks = quant_ref_q,
	.dequantize_blocks = quant_ref_dq, .dequantize_sum_blocks = quant_ref_dqs,
};

/* best first */
static const struct quant_isa *const quant_isas[] = {
#if defined(__x86_64__) || defined(__i386__)
	&optinc_quant_avx2, &optinc_quant_sse41,
#endif
#if FLT_EVAL_METHOD == 0
	&optinc_quant_portable,
#endif
	&quant_scalar,
};

#define QUANT_NISA	(sizeof(quant_isas) / sizeof(quant_isas[0]))

static const struct quant_isa *quant_cur;

static const struct quant_isa *quant_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < QUANT_NISA; i++)
		if (quant_isas[i]->usable() &&
		    (!name || !strcmp(name, quant_isas[i]->name)))
			return quant_isas[i];
	return NULL;
}

/* The first call picks: OPTINC_QUANT_ISA if usable, else the best one. */
static inline const struct quant_isa *quant_isa(void)
{
	const struct quant_isa *q = __atomic_load_n(&quant_cur, __ATOMIC_ACQUIRE);

	if (__builtin_expect(!q, 0)) {
		q = quant_find(getenv("OPTINC_QUANT_ISA"));
		if (!q)
			q = quant_find(NULL);
		__atomic_store_n(&quant_cur, q, __ATOMIC_RELEASE);
	}
	return q;
}

/**
 * optinc_quant_use() - choose the codec's instruction-set path
 * @name: "avx2", "sse4.1", "portable" (C floats, vectorized by the
 *        compiler), "scalar" (the reference), or NULL for the best
 *
 * For tests and benchmarks: every path gives the same results. Not to be
 * called while another thread is in the codec.
 *
 * Return: 0, -ENOENT for an unknown name, -EOPNOTSUPP when this CPU
 * lacks it.
 */
int optinc_quant_use(const char *name)
{
	const struct quant_isa *q = quant_find(name);
	unsigned int i;

	if (!q) {
		for (i = 0; i < QUANT_NISA; i++)
			if (!strcmp(name, quant_isas[i]->name))
				return -EOPNOTSUPP;
		return -ENOENT;
	}
	__atomic_store_n(&quant_cur, q, __ATOMIC_RELEASE);
	return 0;
}

/* Return: the name of the path the codec runs. */
const char *optinc_quant_isa(void)
{
	return quant_isa()->name;
}

/**
 * optinc_block_exp() - the exponent a rank proposes for one block
 * @x:    values
 * @n:    how many
 * @bits: B
 * @e:    set to the smallest e with max|x| < 2^e * (1 - 2^-B), clamped
 *        to [OPTINC_EXP_MIN, OPTINC_EXP_MAX]
 *
 * Ranks agree on the maximum of their proposals (op MAX at the switch).
 *
 * Return: 0, or -ERANGE when a value is not finite.
 */
int optinc_block_exp(const float *x, __u32 n, unsigned int bits, __s8 *e)
{
	if (!quant_fast_bits(bits))
		return optinc_block_exp_ref(x, n, bits, e);
	return quant_isa()->block_exp(x, n, bits, e);
}

void optinc_quantize(const float *x, __u32 n, __s8 e, unsigned int bits,
		     __u8 *dst)
{
	if (!quant_fast_q(e, bits))
		optinc_quantize_ref(x, n, e, bits, dst);
	else
		quant_isa()->quantize(x, n, e, bits, dst);
}

void optinc_dequantize(const __u8 *src, __u32 n, __s8 e, unsigned int bits,
		       float *y)
{
	if (!quant_fast_dq(e, bits))
		optinc_dequantize_ref(src, n, e, bits, y);
	else
		quant_isa()->dequantize(src, n, e, bits, y);
}

void optinc_dequantize_sum(const __u8 *src, __u32 n, __s8 e,
			   unsigned int bits, float *y)
{
	if (!quant_fast_dq(e, bits))
		optinc_dequantize_sum_ref(src, n, e, bits, y);
	else
		quant_isa()->dequantize_sum(src, n, e, bits, y);
}

/* The path for a block call: the scalar one for B other than 8 and 16. */
static inline const struct quant_isa *quant_isa_for(unsigned int bits)
{
	return quant_fast_bits(bits) ? quant_isa() : &quant_scalar;
}

int optinc_block_exps(const float *x, __u32 n, __u32 block, unsigned int bits,
		      __s8 *e, __u32 *bad)
{
	if (!block)
		return -EINVAL;
	return quant_isa_for(bits)->block_exps(x, n, block, bits, e, bad);
}

void optinc_quantize_blocks(const float *x, __u32 n, __u32 block,
			    const __s8 *e, unsigned int bits, __u8 *dst)
{
	if (block)
		quant_isa_for(bits)->quantize_blocks(x, n, block, e, bits, dst);
}

void optinc_dequantize_blocks(const __u8 *src, __u32 n, __u32 block,
			      const __s8 *e, unsigned int bits, float *y)
{
	if (block)
		quant_isa_for(bits)->dequantize_blocks(src, n, block, e, bits, y);
}

void optinc_dequantize_sum_blocks(const __u8 *src, __u32 n, __u32 block,
				  const __s8 *e, unsigned int bits, float *y)
{
	if (block)
		quant_isa_for(bits)->dequantize_sum_blocks(src, n, block, e,
							    bits, y);
}

int optinc_block_exps_codes(const float *x, __u32 n, __u32 block,
			    unsigned int bits, __s8 *e, __u8 *codes, __u32 *bad)
{
	if (!block)
		return -EINVAL;
	return quant_isa_for(bits)->block_exps_codes(x, n, block, bits, e,
						      codes, bad);
}

void optinc_quantize_blocks_from(const float *x, __u32 n, __u32 block,
				 const __s8 *e, const __s8 *own,
				 const __u8 *codes, unsigned int bits,
				 __u8 *dst)
{
	size_t i, esz = bits / 8;
	__u32 j, len;

	for (i = 0, j = 0; block && i < n; i += block, j++) {
		len = QUANT_MIN(block, n - i);
		if (e[j] == own[j])
			memcpy(dst + i * esz, codes + i * esz, len * esz);
		else
			optinc_quantize(x + i, len, e[j], bits, dst + i * esz);
	}
}
