// SPDX-License-Identifier: BSD-3-Clause
/*
 * The training set. Normally every point of unit P's domain, in
 * table-index order. For a network whose first layer only sees S (rows
 * along optinc_onn_s_dir(), see train.c), every point with the same
 * S = sum_k 4^k s_k has the same output, so the set is one point per value
 * of S, weighted by how many domain points share it (or uniformly).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "train.h"

/* Unit vector of S in input space: S = 3N sum_k 4^k x_k. */
void optinc_onn_s_dir(unsigned int in, float *v)
{
	double norm = 0;
	unsigned int k;

	for (k = 0; k < in; k++)
		norm += (double)(1u << (2 * k)) * (1u << (2 * k));
	for (k = 0; k < in; k++)
		v[k] = (float)((1u << (2 * k)) / sqrt(norm));
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

int optinc_onn_data_init(struct optinc_onn_data *d, unsigned int members,
			 unsigned int bits, float scale, int by_s, int uniform)
{
	unsigned int k, s[8], total;
	uint32_t i, n;
	int err;

	memset(d, 0, sizeof(*d));
	d->in = d->out = bits / 2;
	d->domain = optinc_onn_domain_size(members, bits);
	n = by_s ? 3 * members * ((1u << bits) - 1) / 3 + 1 : d->domain;
	err = data_alloc(d, n);
	if (err)
		return err;
	for (i = 0; i < d->domain; i++) {
		optinc_onn_domain_point(i, members, bits, s);
		for (total = 0, k = d->in; k-- > 0;)
			total = total * 4 + s[k];
		n = by_s ? total : i;
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
