// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * The codec in plain C float arithmetic, for the compiler to vectorize on
 * any CPU (user space only). The same results as the reference, for the
 * reasons quant_isa.h gives; it needs float expressions evaluated in float
 * (FLT_EVAL_METHOD 0: not x87), else it is left out. Built with
 * -fno-trapping-math, so that the clamps vectorize (no value changes).
 */
#include <float.h>
#include "quant_isa.h"

#if FLT_EVAL_METHOD == 0

/* Adding and subtracting 1.5 * 2^23 rounds a float below 2^22 half to even. */
#define PORT_RNE_MAGIC	12582912.0f

static float port_pow2(int k)
{
	__u32 b = quant_pow2_bits(k);
	float f;

	memcpy(&f, &b, sizeof(f));
	return f;
}

/* max(@m, bits of |x[i]|), in chunks of a constant 16 that vectorize well */
static inline __u32 port_max_bits(const float *x, __u32 n, __u32 m)
{
	__u32 i, b;

	for (i = 0; i < n; i++) {
		memcpy(&b, &x[i], sizeof(b));
		b &= QUANT_ABS;
		m = b > m ? b : m;
	}
	return m;
}

static int port_block_exp(const float *x, __u32 n, unsigned int bits, __s8 *e)
{
	__u32 m = 0, i;

	for (i = 0; i + 16 <= n; i += 16)
		m = port_max_bits(x + i, 16, m);
	return quant_exp_of_max(port_max_bits(x + i, n - i, m), bits, e);
}

/* The clamp keeps a NaN, converted as the reference converts its own. */
static inline __s32 port_q(float x, float s, float lim)
{
	float v = x * s;

	v = v > lim ? lim : v;
	v = v < -lim ? -lim : v;
	return (__s32)((v + PORT_RNE_MAGIC) - PORT_RNE_MAGIC);
}

static void port_quantize(const float *x, __u32 n, __s8 e, unsigned int bits,
			  __u8 *dst)
{
	float s = port_pow2((int)bits - 1 - e), lim = bits == 8 ? 127.0f : 32767.0f;
	__u32 i;

	if (bits == 8) {
		for (i = 0; i < n; i++)
			dst[i] = (__u8)(port_q(x[i], s, lim) + 128);
		return;
	}
	for (i = 0; i < n; i++)
		oi_put16(dst + 2 * i, (__u16)(port_q(x[i], s, lim) + 32768));
}

static void port_dequantize(const __u8 *src, __u32 n, __s8 e,
			    unsigned int bits, float *y)
{
	float step = port_pow2(e - ((int)bits - 1));
	__u32 i;

	if (bits == 8) {
		for (i = 0; i < n; i++)
			y[i] = (float)((__s32)src[i] - 128) * step;
		return;
	}
	for (i = 0; i < n; i++)
		y[i] = (float)((__s32)oi_get16(src + 2 * i) - 32768) * step;
}

static void port_dequantize_sum(const __u8 *src, __u32 n, __s8 e,
				unsigned int bits, float *y)
{
	float step = port_pow2(e - ((int)bits - 1));
	__u32 i;

	for (i = 0; i < n; i++)
		y[i] = (float)(__s32)oi_get32(src + 4 * i) * step;
}

static int port_block_exps(const float *x, __u32 n, __u32 block,
			   unsigned int bits, __s8 *e, __u32 *bad)
{
	QUANT_EXPS_LOOP(port_block_exp);
}

static int port_block_exps_codes(const float *x, __u32 n, __u32 block,
				 unsigned int bits, __s8 *e, __u8 *codes,
				 __u32 *bad)
{
	QUANT_EXPS_CODES_LOOP(port_block_exp, port_quantize);
}

static void port_quantize_blocks(const float *x, __u32 n, __u32 block,
				 const __s8 *e, unsigned int bits, __u8 *dst)
{
	QUANT_Q_LOOP(port_quantize);
}

static void port_dequantize_blocks(const __u8 *src, __u32 n, __u32 block,
				   const __s8 *e, unsigned int bits, float *y)
{
	QUANT_DQ_LOOP(port_dequantize, bits / 8, optinc_dequantize_ref);
}

static void port_dequantize_sum_blocks(const __u8 *src, __u32 n, __u32 block,
				       const __s8 *e, unsigned int bits,
				       float *y)
{
	QUANT_DQ_LOOP(port_dequantize_sum, 4, optinc_dequantize_sum_ref);
}

static int port_usable(void)
{
	return 1;
}

const struct quant_isa optinc_quant_portable = {
	.name = "portable", .usable = port_usable,
	.block_exp = port_block_exp, .quantize = port_quantize,
	.dequantize = port_dequantize, .dequantize_sum = port_dequantize_sum,
	.block_exps = port_block_exps, .block_exps_codes = port_block_exps_codes,
	.quantize_blocks = port_quantize_blocks,
	.dequantize_blocks = port_dequantize_blocks,
	.dequantize_sum_blocks = port_dequantize_sum_blocks,
};
#endif /* FLT_EVAL_METHOD == 0 */
