/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause) */
/* The caller's datatypes (dtype.c): sizes, conversions, float64 blocks. */
#ifndef OPTINC_LIB_DTYPE_H
#define OPTINC_LIB_DTYPE_H

#include <stddef.h>
#include <linux/types.h>

#include <optinc/optinc.h>

/*
 * float64 block exponents; the exponent phase carries them in 12 bits
 * (allreduce.c), so they must stay in [-2048, 2047]: doubles need
 * [-1074, 1025].
 */
#define OPTINC_EXP64_MIN	(-2048)	/* exponent of an all-zero block */

size_t optinc_dtype_size(int datatype);
void optinc_dtype_load(int datatype, const void *src, size_t off, __u32 n,
		       float *dst);
void optinc_dtype_store(int datatype, const float *src, __u32 n, void *dst,
			size_t off);
void optinc_dtype_nan(int datatype, void *dst, size_t off, __u32 n);
int optinc_dtype_finite(int datatype, const void *buf, size_t off, __u32 n);

int optinc_block_exp64(const double *x, __u32 n, unsigned int bits, int *e);
void optinc_quantize64(const double *x, __u32 n, int e, unsigned int bits,
		       __u8 *dst);
void optinc_dequantize64(const __u8 *src, __u32 n, int e, unsigned int bits,
			 int sum, double *y);

#endif /* OPTINC_LIB_DTYPE_H */
