/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Deterministic per-rank input data and its double-precision reference, for
 * the benchmark's --check and the integration tests: element i of rank r is
 * a pure function of (seed, r, i), so every rank computes the reference of
 * all ranks by itself, and the bound of every block from all ranks' inputs.
 */
#ifndef OPTINC_REFDATA_H
#define OPTINC_REFDATA_H

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <optinc/quant.h>

/* A size in bytes with an optional K, M or G suffix (powers of 1024); at
 * least 4, one element. */
static inline int refdata_parse_size(const char *s, size_t *v)
{
	char *end;
	double x = strtod(s, &end);

	switch (*end) {
	case 'G': case 'g': x *= 1024;	/* fall through */
	case 'M': case 'm': x *= 1024;	/* fall through */
	case 'K': case 'k': x *= 1024; end++; break;
	case '\0': break;
	default: return -EINVAL;
	}
	if (*end || x < 4)
		return -EINVAL;
	*v = (size_t)x;
	return 0;
}

static inline uint64_t refdata_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static inline uint64_t refdata_bits(uint64_t seed, int rank, size_t i)
{
	return refdata_mix(refdata_mix(seed ^ ((uint64_t)rank << 48)) ^ i);
}

/*
 * Uniform in (-1, 1) times 2^k, k in [-12, 3] chosen per run of 100
 * elements (not aligned to blocks, so blocks mix magnitudes), the same k
 * for all ranks; every 37th run is all zero.
 */
static inline float refdata_float(uint64_t seed, int rank, size_t i)
{
	uint64_t g = refdata_mix(seed ^ 0x6f707469ull ^ (i / 100));
	uint64_t r = refdata_bits(seed, rank, i);
	double u = ((double)(r >> 11) / 9007199254740992.0) * 2.0 - 1.0;

	if ((i / 100) % 37 == 36)
		return 0.0f;
	return (float)ldexp(u, (int)(g % 16) - 12);
}

static inline int32_t refdata_int(uint64_t seed, int rank, size_t i)
{
	return (int32_t)(uint32_t)refdata_bits(seed, rank, i);
}

static inline void refdata_fill_float(float *x, size_t n, uint64_t seed,
				      int rank)
{
	size_t i;

	for (i = 0; i < n; i++)
		x[i] = refdata_float(seed, rank, i);
}

static inline void refdata_fill_int(int32_t *x, size_t n, uint64_t seed,
				    int rank)
{
	size_t i;

	for (i = 0; i < n; i++)
		x[i] = refdata_int(seed, rank, i);
}

/* 64-bit FNV-1a of a buffer: ranks compare results by it. */
static inline uint64_t refdata_hash(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/**
 * struct refdata_err - how far a float result is from the reference
 * @max_abs:   largest |result - reference|
 * @max_ratio: largest |result - reference| / bound of its block
 * @bad:       elements over their bound
 * @first_bad: index of the first of them
 */
struct refdata_err {
	double max_abs, max_ratio;
	size_t bad, first_bad;
};

/*
 * Compare a float32 AVG (avg != 0) or SUM result of @size ranks with the
 * double-precision reference. The bound of a block is the protocol's
 * (Documentation/protocol.md): step for AVG, size * step / 2 for SUM,
 * step = 2^(e - (bits - 1)), e the maximum of all ranks' block exponents.
 * @tmp holds @block floats. Returns 0 or -1 when an exponent is out of range.
 */
static inline int refdata_check_float(const float *res, size_t n, int size,
				      uint64_t seed, int avg, unsigned int bits,
				      unsigned int block, float *tmp,
				      struct refdata_err *err)
{
	size_t b, i, len;
	__s8 e, emax;
	double bound, ref, d;
	int r;

	err->max_abs = err->max_ratio = 0;
	err->bad = 0;
	err->first_bad = 0;
	for (b = 0; b < n; b += block) {
		len = n - b < block ? n - b : block;
		emax = OPTINC_EXP_MIN;
		for (r = 0; r < size; r++) {
			for (i = 0; i < len; i++)
				tmp[i] = refdata_float(seed, r, b + i);
			if (optinc_block_exp(tmp, len, bits, &e))
				return -1;
			if (e > emax)
				emax = e;
		}
		bound = optinc_quant_step(emax, bits);
		if (!avg)
			bound *= size / 2.0;
		for (i = b; i < b + len; i++) {
			ref = 0;
			for (r = 0; r < size; r++)
				ref += refdata_float(seed, r, i);
			if (avg)
				ref /= size;
			d = fabs((double)res[i] - ref);
			if (d > err->max_abs)
				err->max_abs = d;
			if (bound > 0 && d / bound > err->max_ratio)
				err->max_ratio = d / bound;
			if (d > bound * (1 + 1e-9) || isnan(res[i])) {
				if (!err->bad)
					err->first_bad = i;
				err->bad++;
			}
		}
	}
	return 0;
}

/* Elements of a wrapping int32 SUM that differ from the reference. */
static inline size_t refdata_check_int(const int32_t *res, size_t n, int size,
				       uint64_t seed, size_t *first_bad)
{
	size_t i, bad = 0;
	uint32_t ref;
	int r;

	for (i = 0; i < n; i++) {
		ref = 0;
		for (r = 0; r < size; r++)
			ref += (uint32_t)refdata_int(seed, r, i);
		if ((uint32_t)res[i] != ref) {
			if (!bad)
				*first_bad = i;
			bad++;
		}
	}
	return bad;
}

#endif /* OPTINC_REFDATA_H */
