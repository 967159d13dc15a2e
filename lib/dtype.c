// SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
/*
 * The caller's datatypes: half-precision floats to and from float32 (where
 * float16 and bfloat16 are quantized), and block quantization of float64,
 * whose exponents do not fit the float32 path's 8 bits.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/compat.h"
#include "dtype.h"

size_t optinc_dtype_size(int datatype)
{
	switch (datatype) {
	case OPTINC_FLOAT16:
	case OPTINC_BFLOAT16:
		return 2;
	case OPTINC_FLOAT32:
	case OPTINC_INT32:
		return 4;
	case OPTINC_FLOAT64:
		return 8;
	}
	return 0;
}

/* binary16 to float32 is exact: GCC's _Float16 converts in software. */
static float dt_f16_get(const void *p, size_t i)
{
	_Float16 h;

	memcpy(&h, (const char *)p + 2 * i, 2);
	return (float)h;
}

/* float32 to binary16 rounds to nearest, ties to even; beyond: +-inf. */
static void dt_f16_put(void *p, size_t i, float f)
{
	_Float16 h = (_Float16)f;

	memcpy((char *)p + 2 * i, &h, 2);
}

static float dt_bf16_get(const void *p, size_t i)
{
	__u16 b;
	__u32 u;
	float f;

	memcpy(&b, (const char *)p + 2 * i, 2);
	u = (__u32)b << 16;
	memcpy(&f, &u, 4);
	return f;
}

/* The high half of a float32, rounded to nearest, ties to even; NaN stays NaN. */
static void dt_bf16_put(void *p, size_t i, float f)
{
	__u32 u;
	__u16 b;

	memcpy(&u, &f, 4);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		b = (__u16)((u >> 16) | 0x40);	/* quiet */
	else
		b = (__u16)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
	memcpy((char *)p + 2 * i, &b, 2);
}

/* @n elements of @src from element @off on, as float32 (exact). */
void optinc_dtype_load(int datatype, const void *src, size_t off, __u32 n,
		       float *dst)
{
	__u32 i;

	if (datatype == OPTINC_FLOAT32) {
		memcpy(dst, (const float *)src + off, 4 * (size_t)n);
		return;
	}
	for (i = 0; i < n; i++)
		dst[i] = datatype == OPTINC_FLOAT16 ? dt_f16_get(src, off + i) :
			 dt_bf16_get(src, off + i);
}

/* @n float32 values into @dst from element @off on, rounded to its type. */
void optinc_dtype_store(int datatype, const float *src, __u32 n, void *dst,
			size_t off)
{
	__u32 i;

	if (datatype == OPTINC_FLOAT32) {
		memcpy((float *)dst + off, src, 4 * (size_t)n);
		return;
	}
	for (i = 0; i < n; i++) {
		if (datatype == OPTINC_FLOAT16)
			dt_f16_put(dst, off + i, src[i]);
		else
			dt_bf16_put(dst, off + i, src[i]);
	}
}

/* @n NaNs of @datatype into @dst from element @off on. */
void optinc_dtype_nan(int datatype, void *dst, size_t off, __u32 n)
{
	size_t es = optinc_dtype_size(datatype);
	char *p = (char *)dst + off * es;
	double d = NAN;
	float f = NAN;
	__u16 h = datatype == OPTINC_FLOAT16 ? 0x7e00 : 0x7fc0;
	__u32 i;

	for (i = 0; i < n; i++, p += es) {
		if (datatype == OPTINC_FLOAT64)
			memcpy(p, &d, 8);
		else if (datatype == OPTINC_FLOAT32)
			memcpy(p, &f, 4);
		else
			memcpy(p, &h, 2);
	}
}

/* Is every element of @n from @off on finite? */
int optinc_dtype_finite(int datatype, const void *buf, size_t off, __u32 n)
{
	__u32 i;

	for (i = 0; i < n; i++) {
		if (datatype == OPTINC_FLOAT64 &&
		    !isfinite(((const double *)buf)[off + i]))
			return 0;
		if (datatype == OPTINC_FLOAT32 &&
		    !isfinite(((const float *)buf)[off + i]))
			return 0;
		if (datatype == OPTINC_FLOAT16 &&
		    !isfinite(dt_f16_get(buf, off + i)))
			return 0;
		if (datatype == OPTINC_BFLOAT16 &&
		    !isfinite(dt_bf16_get(buf, off + i)))
			return 0;
	}
	return 1;
}

/*
 * float64 blocks: the same rule as float32 (quant.h), with exponents in
 * [OPTINC_EXP64_MIN, OPTINC_EXP64_MAX]. Return: 0, or -ERANGE for a value
 * that is not finite.
 */
int optinc_block_exp64(const double *x, __u32 n, unsigned int bits, int *e)
{
	double m = 0, a, f;
	__u32 i;
	int ex;

	for (i = 0; i < n; i++) {
		a = fabs(x[i]);
		if (!(a <= DBL_MAX))
			return -ERANGE;
		m = a > m ? a : m;
	}
	if (m == 0) {
		*e = OPTINC_EXP64_MIN;
		return 0;
	}
	f = frexp(m, &ex);
	if (f >= 1.0 - ldexp(1.0, -(int)bits))
		ex++;
	*e = ex < OPTINC_EXP64_MIN ? OPTINC_EXP64_MIN : ex;
	return 0;
}

/*
 * q = rne(x / step) as offset binary, like optinc_quantize(); the scale
 * is applied in two steps so that neither underflows nor overflows for
 * any exponent a block of doubles has.
 */
void optinc_quantize64(const double *x, __u32 n, int e, unsigned int bits,
		       __u8 *dst)
{
	int k = (int)bits - 1 - e, k1 = k / 2, k2 = k - k1;
	double lim = ldexp(1.0, (int)bits - 1) - 1.0;
	__u32 off = 1u << (bits - 1), i;

	for (i = 0; i < n; i++) {
		double q = nearbyint(ldexp(ldexp(x[i], k1), k2));

		q = q > lim ? lim : q < -lim ? -lim : q;
		if (bits == 8)
			dst[i] = (__u8)((__s32)q + (__s32)off);
		else
			oi_put16(dst + 2 * i, (__u16)((__s32)q + (__s32)off));
	}
}

/* Offset-binary (@sum: big-endian int32 sums) values back to doubles. */
void optinc_dequantize64(const __u8 *src, __u32 n, int e, unsigned int bits,
			 int sum, double *y)
{
	int k = e - ((int)bits - 1);
	__s32 off = 1 << (bits - 1), q;
	__u32 i;

	for (i = 0; i < n; i++) {
		if (sum)
			q = (__s32)oi_get32(src + 4 * i);
		else
			q = (bits == 8 ? src[i] : oi_get16(src + 2 * i)) - off;
		y[i] = ldexp((double)q, k);
	}
}
