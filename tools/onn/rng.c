// SPDX-License-Identifier: BSD-3-Clause
/* Seeded random numbers: xoshiro256** (Blackman, Vigna), splitmix64 seeding. */
#include <math.h>

#include "onn.h"

static uint64_t rng_splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void optinc_onn_rng_seed(struct optinc_onn_rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = rng_splitmix(&seed);
}

uint64_t optinc_onn_rng_next(struct optinc_onn_rng *r)
{
	uint64_t *s = r->s, res = rng_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return res;
}

/* Uniform in [0, 1) with 53 random bits. */
double optinc_onn_rng_uniform(struct optinc_onn_rng *r)
{
	return (optinc_onn_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Standard normal (Box-Muller; the second value is dropped for simplicity). */
double optinc_onn_rng_gauss(struct optinc_onn_rng *r)
{
	double u = 1.0 - optinc_onn_rng_uniform(r);
	double v = optinc_onn_rng_uniform(r);

	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}
