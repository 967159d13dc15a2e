// SPDX-License-Identifier: GPL-2.0
/*
 * Test data for every datatype and op: deterministic inputs per rank, and
 * the double-precision reference with the bound Documentation/library.md
 * gives (shared by selftests/lib/lib_dtypes and selftests/net's checks).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "dtref.h"

size_t dt_size(int dt)
{
	return dt == OPTINC_FLOAT16 || dt == OPTINC_BFLOAT16 ? 2 :
	       dt == OPTINC_FLOAT64 ? 8 : 4;
}

double dt_get(int dt, const void *p, size_t i)
{
	_Float16 h;
	uint32_t u;
	uint16_t b;
	float f;

	switch (dt) {
	case OPTINC_FLOAT16:
		memcpy(&h, (const char *)p + 2 * i, 2);
		return (double)h;
	case OPTINC_BFLOAT16:
		memcpy(&b, (const char *)p + 2 * i, 2);
		u = (uint32_t)b << 16;
		memcpy(&f, &u, 4);
		return f;
	case OPTINC_FLOAT64:
		return ((const double *)p)[i];
	case OPTINC_INT32:
		return ((const int32_t *)p)[i];
	}
	return ((const float *)p)[i];
}

/* @v, representable in @dt (the generator makes it so). */
void dt_put(int dt, void *p, size_t i, double v)
{
	_Float16 h = (_Float16)v;
	float f = (float)v;
	uint32_t u;
	uint16_t b;

	switch (dt) {
	case OPTINC_FLOAT16:
		memcpy((char *)p + 2 * i, &h, 2);
		return;
	case OPTINC_BFLOAT16:
		memcpy(&u, &f, 4);
		b = (uint16_t)(u >> 16);
		memcpy((char *)p + 2 * i, &b, 2);
		return;
	case OPTINC_FLOAT64:
		((double *)p)[i] = v;
		return;
	case OPTINC_INT32:
		((int32_t *)p)[i] = (int32_t)v;
		return;
	}
	((float *)p)[i] = f;
}

/* Values of varied magnitude per block; the stored (rounded) value is the input. */
double dt_gen(int dt, int rank, size_t i)
{
	uint64_t s = (i + 1) * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(rank + 1) << 40;
	int e = (int)((i / 256) % 9) - 4;
	double m;

	s ^= s >> 29;
	s *= 0xbf58476d1ce4e5b9ULL;
	s ^= s >> 32;
	if (dt == OPTINC_INT32)
		return (double)(int32_t)(uint32_t)s;
	m = (double)(int)(s % 255) - 127 + (double)(s >> 20) / (double)(1ULL << 44);
	return ldexp(m, e + (dt == OPTINC_FLOAT64 ? 300 * (i % 3) - 300 : 0));
}

/* Unit roundoff of the result type, for the last rounding. */
static double dt_unit(int dt)
{
	return dt == OPTINC_FLOAT16 ? ldexp(1, -11) :
	       dt == OPTINC_BFLOAT16 ? ldexp(1, -8) :
	       dt == OPTINC_FLOAT32 ? ldexp(1, -24) : 0;
}

/* The block exponent quant.h defines: max|x| < 2^e (1 - 2^-B). */
static int dt_exp(double m, int bits, int dt)
{
	int e;

	if (m == 0)
		return dt == OPTINC_FLOAT64 ? -2048 : -128;
	frexp(m, &e);
	if (m >= ldexp(1.0 - ldexp(1, -bits), e))
		e++;
	return dt == OPTINC_FLOAT64 ? e : e < -128 ? -128 : e > 127 ? 127 : e;
}

/* The quantization step of @i's block (0 for the ring: no quantization). */
static double dt_step(const struct dt_call *c, double *const *in, int n,
		      size_t i)
{
	size_t b0 = i / c->block * c->block, b1 = b0 + c->block, j;
	double m = 0;
	int r;

	if (c->ring || c->dt == OPTINC_INT32)
		return 0;
	if (b1 > c->count)
		b1 = c->count;
	for (r = 0; r < n; r++)
		for (j = b0; j < b1; j++)
			m = fmax(m, fabs(in[r][j]));
	return ldexp(1, dt_exp(m, c->bits, c->dt) - (c->bits - 1));
}

/*
 * Reference and bound of element @i of a call on @n ranks whose inputs
 * (as stored in the type) are @in[r], its block's quantization step
 * @step. Switch: MAX/MIN exactly on that grid; ring: float arithmetic in
 * the reduction's type (float32 for the half types), MAX/MIN exact. A
 * bound of 0 means the result must be exact.
 */
static double dt_ref_step(const struct dt_call *c, double *const *in, int n,
			  size_t i, double step, double *bound)
{
	double v, acc = 0, q, abs = 0;
	int64_t isum = 0;
	int r;

	for (r = 0; r < n; r++) {
		v = in[r][i];
		q = step ? nearbyint(v / step) * step : v;
		isum += (int64_t)v;
		abs += fabs(v);
		if (c->op == OPTINC_SUM || c->op == OPTINC_AVG)
			acc += v;
		else if (r == 0 || (c->op == OPTINC_MAX ? q > acc : q < acc))
			acc = q;
	}
	*bound = 0;
	if (c->dt == OPTINC_INT32)
		return c->op == OPTINC_SUM ? (double)(int32_t)(uint32_t)isum : acc;
	if (c->op == OPTINC_AVG)
		acc /= n;
	if (c->ring && (c->op == OPTINC_SUM || c->op == OPTINC_AVG))
		*bound = abs * (n + 1) *	/* sums in the ring's order */
			 (c->dt == OPTINC_FLOAT64 ? ldexp(1, -53) : ldexp(1, -24));
	else if (!c->ring)
		*bound = c->op == OPTINC_AVG ? step : c->op == OPTINC_SUM ?
			 n * step / 2 : 0;
	*bound += fabs(acc) * dt_unit(c->dt) * 2;
	return acc;
}

double dt_ref(const struct dt_call *c, double *const *in, int n, size_t i,
	      double *bound)
{
	return dt_ref_step(c, in, n, i, dt_step(c, in, n, i), bound);
}

/* The worst |error| / bound of result @y (INFINITY: not exact where it must be). */
double dt_worst(const struct dt_call *c, double *const *in, int n,
		const void *y)
{
	double ref, bound, err, worst = 0, step = 0;
	size_t i;

	for (i = 0; i < c->count; i++) {
		if (i % c->block == 0)
			step = dt_step(c, in, n, i);
		ref = dt_ref_step(c, in, n, i, step, &bound);
		err = fabs(dt_get(c->dt, y, i) - ref);
		if (bound > 0)
			err /= bound;
		else
			err = err ? INFINITY : 0;
		if (!(err <= worst))
			worst = isnan(err) ? INFINITY : err;
	}
	return worst;
}

const char *dt_name(int dt)
{
	static const char *const name[] = { "?", "float32", "int32", "float16",
					    "bfloat16", "float64" };

	return name[dt > 0 && dt < 6 ? dt : 0];
}

const char *dt_op_name(int op)
{
	static const char *const name[] = { "?", "SUM", "AVG", "MAX", "MIN" };

	return name[op > 0 && op < 5 ? op : 0];
}
