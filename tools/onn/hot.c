// SPDX-License-Identifier: BSD-3-Clause
/*
 * Where a model's outputs are steep in the phase noise (verify --hot): over
 * K draws, how far each output of each point moves from its clean value,
 * against that output's slicer margin. The move is far from uniform: a few
 * points move by ten times the domain's rms and more, and those, not the
 * points of the narrowest margin, are the ones a draw loses
 * (Documentation/onn.md, section 2). The points come out ranked by rms
 * move over margin, so a trainer knows which rows to weigh.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <optinc/core.h>

#include "onn.h"

struct hot {
	uint32_t np;		/* domain points */
	unsigned int nout;	/* outputs per point */
	double *clean;		/* np x nout: the model as designed */
	double *y;		/* np x nout: one draw */
	double *ss, *mx;	/* np x nout: sum of squared moves, largest */
	uint8_t *exact;		/* np: the exact averages */
	uint8_t *lost;		/* np: wrong in some draw */
	uint64_t lost_all;	/* wrong points summed over the draws */
};

struct hot_rank {
	double ratio;		/* rms move / clean margin */
	uint32_t at;		/* point * nout + output */
};

/* Every output of the domain, realised with @sigma (0: clean), into @y. */
static int hot_outputs(const struct optinc_onn *m, double sigma,
		       uint64_t seed, uint32_t layers, double *y)
{
	uint32_t size = optinc_onn_domain_size(m->members, m->bits), first;
	unsigned int rows, nout = m->bits / 2;
	struct optinc_onn_rnet n;
	int err = optinc_onn_rnet_init(m, sigma, seed, layers, &n);

	if (err)
		return err;
	for (first = 0; first < size; first += rows) {
		rows = size - first < OPTINC_ONN_CHUNK ? size - first
						       : OPTINC_ONN_CHUNK;
		optinc_onn_eval_inputs(m, &n, first, rows);
		optinc_onn_rnet_forward(m, &n, rows);
		memcpy(y + (size_t)first * nout, n.a,
		       sizeof(double) * rows * nout);
	}
	optinc_onn_rnet_free(&n);
	return 0;
}

/* One draw's moves into the sums; its wrong points into lost. */
static void hot_take(struct hot *h)
{
	uint32_t i;
	unsigned int k, t, bad;

	for (i = 0; i < h->np; i++) {
		for (bad = 0, k = 0; k < h->nout; k++) {
			size_t at = (size_t)i * h->nout + k;
			double d = fabs(h->y[at] - h->clean[at]);

			t = h->exact[i] >> (2 * k) & 3;
			h->ss[at] += d * d;
			h->mx[at] = fmax(h->mx[at], d);
			bad |= optinc_onn_decide(h->y[at]) != t;
		}
		h->lost[i] |= bad;
		h->lost_all += bad;
	}
}

static int hot_cmp(const void *a, const void *b)
{
	const struct hot_rank *x = a, *y = b;

	return x->ratio < y->ratio ? 1 : x->ratio > y->ratio ? -1 :
	       x->at < y->at ? -1 : x->at > y->at;
}

static double hot_margin(const struct hot *h, size_t at)
{
	unsigned int t = h->exact[at / h->nout] >> (2 * (at % h->nout)) & 3;

	return optinc_onn_margin(h->clean[at], t);
}

/* The summary line, then the @top outputs of the largest rms move / margin. */
static int hot_report(const struct optinc_onn *m, const struct hot *h,
		      unsigned int trials, unsigned int top)
{
	size_t n = (size_t)h->np * h->nout, at;
	struct hot_rank *r = malloc(sizeof(*r) * n);
	uint64_t past = 0, half = 0, lost = 0;
	double ss = 0, g;
	unsigned int s[8], j, k;

	if (!r)
		return -ENOMEM;
	for (at = 0; at < n; at++) {
		g = hot_margin(h, at);
		ss += h->ss[at];
		past += h->mx[at] > g;
		half += h->mx[at] > g / 2;
		r[at].ratio = g > 0 ? sqrt(h->ss[at] / trials) / g : INFINITY;
		r[at].at = (uint32_t)at;
	}
	for (at = 0; at < h->np; at++)
		lost += h->lost[at];
	printf("  outputs move by %.4f rms; %llu points lost in all, %llu points in some draw; %llu outputs moved past their margin in some draw, %llu past half of it\n",
	       sqrt(ss / trials / n), (unsigned long long)h->lost_all,
	       (unsigned long long)lost, (unsigned long long)past,
	       (unsigned long long)half);
	qsort(r, n, sizeof(*r), hot_cmp);
	printf("  rank  sums s_0..s_%u       exact  output  clean y   margin  rms move  max move  rms/margin\n",
	       h->nout - 1);
	for (j = 0; j < top && j < n; j++) {
		char sums[64];
		int len = 0;

		at = r[j].at;
		optinc_onn_domain_point((uint32_t)(at / h->nout), m->members,
					m->bits, s);
		for (k = 0; k < h->nout; k++)
			len += snprintf(sums + len, sizeof(sums) - len, "%s%u",
					k ? "," : "(", s[k]);
		snprintf(sums + len, sizeof(sums) - len, ")");
		printf("  %4u  %-18s  %5u  %6zu  %+8.4f  %7.4f  %8.4f  %8.4f  %10.2f\n",
		       j + 1, sums, h->exact[at / h->nout], at % h->nout,
		       h->clean[at], hot_margin(h, at),
		       sqrt(h->ss[at] / trials), h->mx[at], r[j].ratio);
	}
	free(r);
	return 0;
}

static void hot_free(struct hot *h)
{
	free(h->clean);
	free(h->y);
	free(h->ss);
	free(h->mx);
	free(h->exact);
	free(h->lost);
}

/**
 * optinc_onn_hot() - print where @m's outputs move most under phase noise
 * @sigma:  MZI phase noise, rad
 * @trials: draws, seeds @seed .. @seed + @trials - 1 (as verify's)
 * @layers: the layers the draws perturb (bit 0 = layer 1)
 * @top:    how many outputs of points to list
 *
 * Return: 0 or a negative errno.
 */
int optinc_onn_hot(const struct optinc_onn *m, double sigma,
		   unsigned int trials, uint64_t seed, uint32_t layers,
		   unsigned int top)
{
	struct hot h = { .np = optinc_onn_domain_size(m->members, m->bits),
			 .nout = m->bits / 2 };
	size_t n = (size_t)h.np * h.nout;
	unsigned int t;
	int err = 0;

	if (m->bits != 8)
		return -EINVAL;
	h.clean = malloc(sizeof(double) * n);
	h.y = malloc(sizeof(double) * n);
	h.ss = calloc(n, sizeof(double));
	h.mx = calloc(n, sizeof(double));
	h.exact = malloc(h.np);
	h.lost = calloc(h.np, 1);
	if (!h.clean || !h.y || !h.ss || !h.mx || !h.exact || !h.lost)
		err = -ENOMEM;
	if (!err) {
		optinc_table_fill_exact(h.exact, m->members, m->bits);
		err = hot_outputs(m, 0, 0, 0, h.clean);
	}
	for (t = 0; t < trials && !err; t++) {
		err = hot_outputs(m, sigma, seed + t, layers, h.y);
		if (!err)
			hot_take(&h);
	}
	if (!err) {
		printf("where the outputs move at sigma %g rad (%u seeds: %llu..%llu):\n",
		       sigma, trials, (unsigned long long)seed,
		       (unsigned long long)(seed + trials - 1));
		err = hot_report(m, &h, trials, top);
	}
	hot_free(&h);
	return err;
}
