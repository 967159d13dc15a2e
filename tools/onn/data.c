// SPDX-License-Identifier: BSD-3-Clause
/*
 * The training set. Normally every point of unit P's domain, in
 * table-index order. For a network whose first layer sees the K low
 * symbols only through S_K = sum_{k<K} 4^k s_k (its rows, restricted to
 * inputs 0..K-1, along optinc_onn_s_dir(); see train.c), every point with
 * the same (S_K, s_K, .., s_{B/2-1}) has the same output, so the set is
 * one point per such tuple, weighted by how many domain points share it
 * (or uniformly). K = B/2 is the S-invariant network: one point per S.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "train.h"

/*
 * Unit vector of S_K in input space (S_K = 3N sum_{k<K} 4^k x_k): @in
 * components, those from K on zero.
 */
void optinc_onn_s_dir(unsigned int in, unsigned int low, float *v)
{
	double norm = 0;
	unsigned int k;

	for (k = 0; k < low; k++)
		norm += (double)(1u << (2 * k)) * (1u << (2 * k));
	for (k = 0; k < in; k++)
		v[k] = k < low ? (float)((1u << (2 * k)) / sqrt(norm)) : 0.0f;
}

/*
 * Training row of a domain point: with K = @low > 0, S_K + (N (4^K - 1) + 1)
 * times the mixed-radix number (radix 3N + 1) of s_K .. s_{in-1}.
 */
static uint32_t data_row(const unsigned int *s, unsigned int in,
			 unsigned int members, unsigned int low, uint32_t i)
{
	uint32_t sk = 0, hi = 0;
	unsigned int k;

	if (!low)
		return i;
	for (k = low; k-- > 0;)
		sk = sk * 4 + s[k];
	for (k = in; k-- > low;)
		hi = hi * (3 * members + 1) + s[k];
	return sk + (members * ((1u << (2 * low)) - 1) + 1) * hi;
}

static int data_alloc(struct optinc_onn_data *d, uint32_t n)
{
	d->n = n;
	d->x = malloc(sizeof(float) * n * d->in);
	d->t = malloc((size_t)n * d->out);
	d->mult = calloc(n, sizeof(uint32_t));
	d->w = malloc(sizeof(float) * n);
	if (d->x && d->t && d->mult && d->w)
		return 0;
	optinc_onn_data_free(d);
	return -ENOMEM;
}

static void data_point(struct optinc_onn_data *d, uint32_t row,
		       const unsigned int *s, unsigned int v, float scale)
{
	unsigned int k;

	for (k = 0; k < d->in; k++) {
		d->x[(size_t)row * d->in + k] = s[k] * scale;
		d->t[(size_t)row * d->out + k] = v >> (2 * k) & 3;
	}
}

/* Weights of the S values: domain multiplicity (mean 1) or all 1. */
static void data_weights(struct optinc_onn_data *d, int uniform)
{
	double mean = (double)d->domain / d->n;
	uint32_t i;

	for (i = 0; i < d->n; i++)
		d->w[i] = uniform ? 1.0f : (float)(d->mult[i] / mean);
}

/* @low: K, the symbols summed (0: none, every domain point a row). */
int optinc_onn_data_init(struct optinc_onn_data *d, unsigned int members,
			 unsigned int bits, float scale, unsigned int low,
			 int uniform)
{
	unsigned int k, s[8];
	uint32_t i, n;
	int err;

	memset(d, 0, sizeof(*d));
	d->in = d->out = bits / 2;
	d->domain = optinc_onn_domain_size(members, bits);
	n = low ? members * ((1u << (2 * low)) - 1) + 1 : d->domain;
	for (k = low; low && k < d->in; k++)
		n *= 3 * members + 1;
	err = data_alloc(d, n);
	if (err)
		return err;
	for (i = 0; i < d->domain; i++) {
		optinc_onn_domain_point(i, members, bits, s);
		n = data_row(s, d->in, members, low, i);
		if (!d->mult[n]++)
			data_point(d, n, s, optinc_onn_exact(s, members, bits),
				   scale);
	}
	data_weights(d, uniform);
	return 0;
}

void optinc_onn_data_free(struct optinc_onn_data *d)
{
	free(d->x);
	free(d->t);
	free(d->mult);
	free(d->w);
	d->x = NULL;
	d->t = NULL;
	d->mult = NULL;
	d->w = NULL;
}
