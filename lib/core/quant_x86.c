// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * The codec in SSE4.1 and AVX2 (x86 user space; functions compiled for
 * their instruction set by target attributes, used only where the CPU has
 * it). Results equal the scalar reference's bit for bit: quant_isa.h says
 * when float arithmetic is exact, and quant.c sends other blocks to the
 * reference. Tails shorter than a vector go to the reference too (only
 * when there is one: the reference's set-up costs a block's work).
 */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include "quant_isa.h"

/*
 * Software prefetch this far ahead (bytes) of the loads: the hardware's
 * streams alone left block_exp and quantize at ~0.6 and ~0.75 of memcpy's
 * time at 64 MiB, with it ~0.5 and ~0.65 (tools/bench/codec-bench.c).
 * Past the end of a buffer it is harmless: a prefetch never faults.
 */
#ifndef QUANT_PF
#define QUANT_PF	4096
#endif
#define x86_prefetch(p)	_mm_prefetch((const char *)(p) + QUANT_PF, _MM_HINT_T0)

#define SSE41	__attribute__((target("sse4.1")))
#define AVX2	__attribute__((target("avx2")))

/* max over the bits of |x| of the elements the vectors did not cover */
static inline __u32 x86_max_tail(const float *x, __u32 i, __u32 n, __u32 m)
{
	__u32 b;

	for (; i < n; i++) {
		memcpy(&b, &x[i], sizeof(b));
		b &= QUANT_ABS;
		m = b > m ? b : m;
	}
	return m;
}

static inline __m128i SSE41 sse_load(const void *p)
{
	return _mm_loadu_si128((const __m128i *)p);
}

static inline __m128 SSE41 sse_pow2(int k)
{
	return _mm_castsi128_ps(_mm_set1_epi32((int)quant_pow2_bits(k)));
}

/* pshufb masks: swap the bytes of each 16-bit or 32-bit word */
static inline __m128i SSE41 sse_bswap16(void)
{
	return _mm_setr_epi8(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14);
}

static inline __m128i SSE41 sse_bswap32(void)
{
	return _mm_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
}

/* max(m, bits of |x[0..4)|) */
static inline __m128i SSE41 sse_absmax(__m128i m, const float *x)
{
	__m128i abs = _mm_set1_epi32((int)QUANT_ABS);

	return _mm_max_epu32(m, _mm_and_si128(sse_load(x), abs));
}

static inline __u32 SSE41 sse_hmax(__m128i v)
{
	v = _mm_max_epu32(v, _mm_shuffle_epi32(v, 0x4e));
	v = _mm_max_epu32(v, _mm_shuffle_epi32(v, 0xb1));
	return (__u32)_mm_cvtsi128_si32(v);
}

/*
 * Clamped to +-lim with NaN kept (maxps/minps return their second operand
 * when one is NaN), then rounded by the MXCSR (half to even, as the
 * reference's magic-number rounding assumes): NaN gives INT_MIN, as the
 * reference's conversion of a NaN double does on x86.
 */
static inline __m128i SSE41 sse_q(const float *x, __m128 s, __m128 lim)
{
	__m128 v = _mm_mul_ps(_mm_loadu_ps(x), s);

	v = _mm_max_ps(_mm_xor_ps(lim, _mm_set1_ps(-0.0f)), v);
	v = _mm_min_ps(lim, v);
	return _mm_cvtps_epi32(v);
}

static int SSE41 sse_block_exp(const float *x, __u32 n, unsigned int bits,
			       __s8 *e)
{
	__m128i m0 = _mm_setzero_si128(), m1 = m0, m2 = m0, m3 = m0;
	__u32 i;

	for (i = 0; i + 16 <= n; i += 16) {
		x86_prefetch(x + i);
		m0 = sse_absmax(m0, x + i);
		m1 = sse_absmax(m1, x + i + 4);
		m2 = sse_absmax(m2, x + i + 8);
		m3 = sse_absmax(m3, x + i + 12);
	}
	for (; i + 4 <= n; i += 4)
		m0 = sse_absmax(m0, x + i);
	m0 = _mm_max_epu32(_mm_max_epu32(m0, m1), _mm_max_epu32(m2, m3));
	return quant_exp_of_max(x86_max_tail(x, i, n, sse_hmax(m0)), bits, e);
}

/*
 * (q + 2^(B-1)) mod 2^B, what the reference stores, is (q mod 2^B) xor
 * 2^(B-1): the low bits of every q (INT_MIN too) are kept by a mask, and
 * the masked values pack without saturating.
 */
static void SSE41 sse_quantize(const float *x, __u32 n, __s8 e,
			       unsigned int bits, __u8 *dst)
{
	__m128 s = sse_pow2((int)bits - 1 - e);
	__m128 lim = _mm_set1_ps(bits == 8 ? 127.0f : 32767.0f);
	__m128i bswap = sse_bswap16(), flip8 = _mm_set1_epi8(-128);
	__m128i flip16 = _mm_set1_epi16(-32768);
	__m128i lo8 = _mm_set1_epi16(0xff), lo16 = _mm_set1_epi32(0xffff);
	__u32 i = 0;

	if (bits == 8) {
		for (; i + 16 <= n; i += 16) {
			__m128i a = _mm_packs_epi32(sse_q(x + i, s, lim),
						    sse_q(x + i + 4, s, lim));
			__m128i b = _mm_packs_epi32(sse_q(x + i + 8, s, lim),
						    sse_q(x + i + 12, s, lim));

			x86_prefetch(x + i);
			a = _mm_packus_epi16(_mm_and_si128(a, lo8), _mm_and_si128(b, lo8));
			_mm_storeu_si128((__m128i *)(dst + i), _mm_xor_si128(a, flip8));
		}
		if (i < n)
			optinc_quantize_ref(x + i, n - i, e, bits, dst + i);
		return;
	}
	for (; i + 8 <= n; i += 8) {
		__m128i a = _mm_packus_epi32(_mm_and_si128(sse_q(x + i, s, lim), lo16),
					     _mm_and_si128(sse_q(x + i + 4, s, lim), lo16));

		x86_prefetch(x + i);
		a = _mm_shuffle_epi8(_mm_xor_si128(a, flip16), bswap);
		_mm_storeu_si128((__m128i *)(dst + 2 * i), a);
	}
	if (i < n)
		optinc_quantize_ref(x + i, n - i, e, bits, dst + 2 * i);
}

static void SSE41 sse_dequantize(const __u8 *src, __u32 n, __s8 e,
				 unsigned int bits, float *y)
{
	__m128 step = sse_pow2(e - ((int)bits - 1));
	__m128i off = _mm_set1_epi32(1 << (bits - 1));
	__u32 i = 0, k;

	if (bits == 8) {
		for (; i + 16 <= n; i += 16) {
			__m128i u = sse_load(src + i);

			for (k = 0; k < 4; k++, u = _mm_srli_si128(u, 4)) {
				__m128i q = _mm_sub_epi32(_mm_cvtepu8_epi32(u), off);

				_mm_storeu_ps(y + i + 4 * k,
					      _mm_mul_ps(_mm_cvtepi32_ps(q), step));
			}
		}
		if (i < n)
			optinc_dequantize_ref(src + i, n - i, e, bits, y + i);
		return;
	}
	for (; i + 8 <= n; i += 8) {
		__m128i u = _mm_shuffle_epi8(sse_load(src + 2 * i), sse_bswap16());
		__m128i q0 = _mm_sub_epi32(_mm_cvtepu16_epi32(u), off);
		__m128i q1 = _mm_sub_epi32(_mm_cvtepu16_epi32(_mm_srli_si128(u, 8)), off);

		_mm_storeu_ps(y + i, _mm_mul_ps(_mm_cvtepi32_ps(q0), step));
		_mm_storeu_ps(y + i + 4, _mm_mul_ps(_mm_cvtepi32_ps(q1), step));
	}
	if (i < n)
		optinc_dequantize_ref(src + 2 * i, n - i, e, bits, y + i);
}

/*
 * A sum s of up to 31 bits converts to float rounded to 24 bits; times a
 * normal power of two that is the reference's float(s * step).
 */
static void SSE41 sse_dequantize_sum(const __u8 *src, __u32 n, __s8 e,
				     unsigned int bits, float *y)
{
	__m128 step = sse_pow2(e - ((int)bits - 1));
	__u32 i = 0;

	for (; i + 4 <= n; i += 4) {
		__m128i s = _mm_shuffle_epi8(sse_load(src + 4 * i), sse_bswap32());

		_mm_storeu_ps(y + i, _mm_mul_ps(_mm_cvtepi32_ps(s), step));
	}
	if (i < n)
		optinc_dequantize_sum_ref(src + 4 * i, n - i, e, bits, y + i);
}

static int SSE41 sse_block_exps(const float *x, __u32 n, __u32 block,
				unsigned int bits, __s8 *e, __u32 *bad)
{
	QUANT_EXPS_LOOP(sse_block_exp);
}

static int SSE41 sse_block_exps_codes(const float *x, __u32 n, __u32 block,
				      unsigned int bits, __s8 *e, __u8 *codes,
				      __u32 *bad)
{
	QUANT_EXPS_CODES_LOOP(sse_block_exp, sse_quantize);
}

static void SSE41 sse_quantize_blocks(const float *x, __u32 n, __u32 block,
				      const __s8 *e, unsigned int bits,
				      __u8 *dst)
{
	QUANT_Q_LOOP(sse_quantize);
}

static void SSE41 sse_dequantize_blocks(const __u8 *src, __u32 n,
					__u32 block, const __s8 *e,
					unsigned int bits, float *y)
{
	QUANT_DQ_LOOP(sse_dequantize, bits / 8, optinc_dequantize_ref);
}

static void SSE41 sse_dequantize_sum_blocks(const __u8 *src, __u32 n,
					    __u32 block, const __s8 *e,
					    unsigned int bits, float *y)
{
	QUANT_DQ_LOOP(sse_dequantize_sum, 4, optinc_dequantize_sum_ref);
}

static int sse_usable(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("sse4.1");
}

const struct quant_isa optinc_quant_sse41 = {
	.name = "sse4.1", .usable = sse_usable,
	.block_exp = sse_block_exp, .quantize = sse_quantize,
	.dequantize = sse_dequantize, .dequantize_sum = sse_dequantize_sum,
	.block_exps = sse_block_exps, .block_exps_codes = sse_block_exps_codes,
	.quantize_blocks = sse_quantize_blocks,
	.dequantize_blocks = sse_dequantize_blocks,
	.dequantize_sum_blocks = sse_dequantize_sum_blocks,
};

/* ---- AVX2: the same, 8 lanes; packs work per 128-bit lane */

static inline __m256i AVX2 avx_load(const void *p)
{
	return _mm256_loadu_si256((const __m256i *)p);
}

static inline __m256 AVX2 avx_pow2(int k)
{
	return _mm256_castsi256_ps(_mm256_set1_epi32((int)quant_pow2_bits(k)));
}

static inline __m256i AVX2 avx_absmax(__m256i m, const float *x)
{
	return _mm256_max_epu32(m, _mm256_and_si256(avx_load(x),
						    _mm256_set1_epi32((int)QUANT_ABS)));
}

static inline __m256i AVX2 avx_q(const float *x, __m256 s, __m256 lim)
{
	__m256 v = _mm256_mul_ps(_mm256_loadu_ps(x), s);

	v = _mm256_max_ps(_mm256_xor_ps(lim, _mm256_set1_ps(-0.0f)), v);
	v = _mm256_min_ps(lim, v);
	return _mm256_cvtps_epi32(v);
}

static int AVX2 avx_block_exp(const float *x, __u32 n, unsigned int bits,
			      __s8 *e)
{
	__m256i m0 = _mm256_setzero_si256(), m1 = m0, m2 = m0, m3 = m0;
	__u32 i;

	for (i = 0; i + 32 <= n; i += 32) {
		x86_prefetch(x + i);
		x86_prefetch(x + i + 16);
		m0 = avx_absmax(m0, x + i);
		m1 = avx_absmax(m1, x + i + 8);
		m2 = avx_absmax(m2, x + i + 16);
		m3 = avx_absmax(m3, x + i + 24);
	}
	for (; i + 8 <= n; i += 8)
		m0 = avx_absmax(m0, x + i);
	m0 = _mm256_max_epu32(_mm256_max_epu32(m0, m1), _mm256_max_epu32(m2, m3));
	m0 = _mm256_max_epu32(m0, _mm256_permute2x128_si256(m0, m0, 1));
	return quant_exp_of_max(x86_max_tail(x, i, n,
		sse_hmax(_mm256_castsi256_si128(m0))), bits, e);
}

static void AVX2 avx_quantize(const float *x, __u32 n, __s8 e,
			      unsigned int bits, __u8 *dst)
{
	__m256 s = avx_pow2((int)bits - 1 - e);
	__m256 lim = _mm256_set1_ps(bits == 8 ? 127.0f : 32767.0f);
	__m256i bswap = _mm256_broadcastsi128_si256(sse_bswap16());
	__m256i flip8 = _mm256_set1_epi8(-128), flip16 = _mm256_set1_epi16(-32768);
	const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
	__m256i lo8 = _mm256_set1_epi16(0xff), lo16 = _mm256_set1_epi32(0xffff);
	__u32 i = 0;

	if (bits == 8) {
		for (; i + 32 <= n; i += 32) {
			__m256i a = _mm256_packs_epi32(avx_q(x + i, s, lim),
						       avx_q(x + i + 8, s, lim));
			__m256i b = _mm256_packs_epi32(avx_q(x + i + 16, s, lim),
						       avx_q(x + i + 24, s, lim));

			x86_prefetch(x + i);
			x86_prefetch(x + i + 16);
			a = _mm256_packus_epi16(_mm256_and_si256(a, lo8), _mm256_and_si256(b, lo8));
			a = _mm256_permutevar8x32_epi32(a, order);
			_mm256_storeu_si256((__m256i *)(dst + i), _mm256_xor_si256(a, flip8));
		}
		if (i < n)
			sse_quantize(x + i, n - i, e, bits, dst + i);
		return;
	}
	for (; i + 16 <= n; i += 16) {
		__m256i a = _mm256_packus_epi32(_mm256_and_si256(avx_q(x + i, s, lim), lo16),
						_mm256_and_si256(avx_q(x + i + 8, s, lim), lo16));

		x86_prefetch(x + i);
		a = _mm256_permute4x64_epi64(a, 0xd8);
		a = _mm256_shuffle_epi8(_mm256_xor_si256(a, flip16), bswap);
		_mm256_storeu_si256((__m256i *)(dst + 2 * i), a);
	}
	if (i < n)
		sse_quantize(x + i, n - i, e, bits, dst + 2 * i);
}

static void AVX2 avx_dequantize(const __u8 *src, __u32 n, __s8 e,
				unsigned int bits, float *y)
{
	__m256 step = avx_pow2(e - ((int)bits - 1));
	__m128i bswap = sse_bswap16();
	__m256i off = _mm256_set1_epi32(1 << (bits - 1));
	__u32 i = 0, k;

	if (bits == 8) {
		for (; i + 32 <= n; i += 32)
			for (k = 0; k < 32; k += 8) {
				__m128i u = _mm_loadl_epi64((const __m128i *)(src + i + k));
				__m256i q = _mm256_sub_epi32(_mm256_cvtepu8_epi32(u), off);

				_mm256_storeu_ps(y + i + k,
						 _mm256_mul_ps(_mm256_cvtepi32_ps(q), step));
			}
		if (i < n)
			sse_dequantize(src + i, n - i, e, bits, y + i);
		return;
	}
	for (; i + 16 <= n; i += 16)
		for (k = 0; k < 16; k += 8) {
			__m128i u = _mm_shuffle_epi8(sse_load(src + 2 * (i + k)), bswap);
			__m256i q = _mm256_sub_epi32(_mm256_cvtepu16_epi32(u), off);

			_mm256_storeu_ps(y + i + k, _mm256_mul_ps(_mm256_cvtepi32_ps(q), step));
		}
	if (i < n)
		sse_dequantize(src + 2 * i, n - i, e, bits, y + i);
}

static void AVX2 avx_dequantize_sum(const __u8 *src, __u32 n, __s8 e,
				    unsigned int bits, float *y)
{
	__m256 step = avx_pow2(e - ((int)bits - 1));
	__m256i bswap = _mm256_broadcastsi128_si256(sse_bswap32());
	__u32 i = 0;

	for (; i + 8 <= n; i += 8) {
		__m256i s = _mm256_shuffle_epi8(avx_load(src + 4 * i), bswap);

		_mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_cvtepi32_ps(s), step));
	}
	if (i < n)
		sse_dequantize_sum(src + 4 * i, n - i, e, bits, y + i);
}

static int AVX2 avx_block_exps(const float *x, __u32 n, __u32 block,
			       unsigned int bits, __s8 *e, __u32 *bad)
{
	QUANT_EXPS_LOOP(avx_block_exp);
}

static int AVX2 avx_block_exps_codes(const float *x, __u32 n, __u32 block,
				     unsigned int bits, __s8 *e, __u8 *codes,
				     __u32 *bad)
{
	QUANT_EXPS_CODES_LOOP(avx_block_exp, avx_quantize);
}

static void AVX2 avx_quantize_blocks(const float *x, __u32 n, __u32 block,
				     const __s8 *e, unsigned int bits,
				     __u8 *dst)
{
	QUANT_Q_LOOP(avx_quantize);
}

static void AVX2 avx_dequantize_blocks(const __u8 *src, __u32 n,
				       __u32 block, const __s8 *e,
				       unsigned int bits, float *y)
{
	QUANT_DQ_LOOP(avx_dequantize, bits / 8, optinc_dequantize_ref);
}

static void AVX2 avx_dequantize_sum_blocks(const __u8 *src, __u32 n,
					   __u32 block, const __s8 *e,
					   unsigned int bits, float *y)
{
	QUANT_DQ_LOOP(avx_dequantize_sum, 4, optinc_dequantize_sum_ref);
}

static int avx_usable(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}

const struct quant_isa optinc_quant_avx2 = {
	.name = "avx2", .usable = avx_usable,
	.block_exp = avx_block_exp, .quantize = avx_quantize,
	.dequantize = avx_dequantize, .dequantize_sum = avx_dequantize_sum,
	.block_exps = avx_block_exps, .block_exps_codes = avx_block_exps_codes,
	.quantize_blocks = avx_quantize_blocks,
	.dequantize_blocks = avx_dequantize_blocks,
	.dequantize_sum_blocks = avx_dequantize_sum_blocks,
};
#endif /* x86 */
