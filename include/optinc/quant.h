/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * Block quantization of float32 to B-bit offset-binary fixed point and back.
 * User space only (floating point); the switch side never sees a float.
 *
 * A block with shared exponent e holds values q * step, step = 2^(e-(B-1)),
 * q a signed integer with |q| <= 2^(B-1) - 1, sent as q + 2^(B-1).
 * optinc_block_exp() picks the smallest e with max|x| < 2^e * (1 - 2^-B),
 * so rounding to nearest (ties to even) never needs clamping and every
 * value is off by at most step/2. Documentation/protocol.md derives the
 * bounds of the average (step) and the sum (N * step/2).
 */
#ifndef OPTINC_QUANT_H
#define OPTINC_QUANT_H

#include <linux/types.h>

#define OPTINC_EXP_MIN	(-128)	/* exponent of an all-zero block */
#define OPTINC_EXP_MAX	127

int optinc_block_exp(const float *x, __u32 n, unsigned int bits, __s8 *e);
void optinc_quantize(const float *x, __u32 n, __s8 e, unsigned int bits,
		     __u8 *dst);
void optinc_dequantize(const __u8 *src, __u32 n, __s8 e, unsigned int bits,
		       float *y);
void optinc_dequantize_sum(const __u8 *src, __u32 n, __s8 e,
			   unsigned int bits, float *y);
double optinc_quant_step(__s8 e, unsigned int bits);

/*
 * The same over the consecutive blocks of a buffer or a frame, in one call
 * instead of one per block (Documentation/bench.md measures what it saves):
 * block j is x[j * block ...] (min(block, n - j * block) values), its
 * exponent e[j], its codes at dst + j * block * B/8 (sums: 4 bytes each).
 * optinc_block_exps() stops at the first block with a value that is not
 * finite: -ERANGE, its index in *bad (when bad is not NULL). Results are
 * those of the per-block calls.
 */
int optinc_block_exps(const float *x, __u32 n, __u32 block, unsigned int bits,
		      __s8 *e, __u32 *bad);
void optinc_quantize_blocks(const float *x, __u32 n, __u32 block,
			    const __s8 *e, unsigned int bits, __u8 *dst);

/*
 * Exponent and quantize fused, where the protocol lets them be: the codes
 * of a block at its own exponent are those it will send whenever the
 * agreed exponent (op MAX) is that one. optinc_block_exps_codes() is
 * optinc_block_exps() that also quantizes each block at e[j] into codes
 * (n * B/8 bytes), while the block is in the cache;
 * optinc_quantize_blocks_from() is optinc_quantize_blocks() at the
 * agreed e[] that copies codes for the blocks where e[j] == own[j] and
 * quantizes x only for the others.
 */
int optinc_block_exps_codes(const float *x, __u32 n, __u32 block,
			    unsigned int bits, __s8 *e, __u8 *codes, __u32 *bad);
void optinc_quantize_blocks_from(const float *x, __u32 n, __u32 block,
				 const __s8 *e, const __s8 *own,
				 const __u8 *codes, unsigned int bits,
				 __u8 *dst);
void optinc_dequantize_blocks(const __u8 *src, __u32 n, __u32 block,
			      const __s8 *e, unsigned int bits, float *y);
void optinc_dequantize_sum_blocks(const __u8 *src, __u32 n, __u32 block,
				  const __s8 *e, unsigned int bits, float *y);

/*
 * The calls above run the fastest instruction-set path of this CPU (AVX2,
 * SSE4.1, portable C, the scalar reference), chosen at the first call, or
 * the one OPTINC_QUANT_ISA names ("avx2", "sse4.1", "portable", "scalar";
 * an unknown or unusable name gives the fastest); all give the reference's
 * results bit for bit, so ranks on different CPUs still agree (in the
 * rounding mode the reference assumes, to nearest; with flush-to-zero or
 * denormals-are-zero set too: selftests/unit/test_quant_isa.c).
 */
int optinc_quant_use(const char *name);
const char *optinc_quant_isa(void);

/* The scalar reference: the definition of the results, for tests. */
int optinc_block_exp_ref(const float *x, __u32 n, unsigned int bits, __s8 *e);
void optinc_quantize_ref(const float *x, __u32 n, __s8 e, unsigned int bits,
			 __u8 *dst);
void optinc_dequantize_ref(const __u8 *src, __u32 n, __s8 e,
			   unsigned int bits, float *y);
void optinc_dequantize_sum_ref(const __u8 *src, __u32 n, __s8 e,
			       unsigned int bits, float *y);

#endif /* OPTINC_QUANT_H */
