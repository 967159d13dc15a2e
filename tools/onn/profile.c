// SPDX-License-Identifier: BSD-3-Clause
/*
 * Where a model's phase noise goes (verify --noise-profile): for one noise
 * draw, how far each layer's realised matrix moves, how far the outputs
 * move when that layer alone is perturbed, and how the error grows layer by
 * layer when all of them are. Accuracy says whether a model survives a
 * sigma; this says which layer to fix and by how much: the slicer's half
 * step is 0.5, so outputs that move by an rms of 0.3 lose points that
 * outputs moving by 0.03 keep.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onn.h"

/* ||a - b||_F / ||b||_F of two n-element matrices (0 for a zero b). */
static double profile_rel_frob(const double *a, const double *b, size_t n)
{
	double d = 0, s = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		d += (a[i] - b[i]) * (a[i] - b[i]);
		s += b[i] * b[i];
	}
	return s > 0 ? sqrt(d / s) : 0;
}

/*
 * One pass over the domain through @clean and @noisy side by side: sums of
 * squares of the clean activations (@ss) and of the differences (@se), per
 * layer; the clean outputs are stored in @out (domain x outputs).
 */
static void profile_pass(const struct optinc_onn *m,
			 struct optinc_onn_rnet *clean,
			 struct optinc_onn_rnet *noisy, double *ss, double *se,
			 double *out)
{
	uint32_t size = optinc_onn_domain_size(m->members, m->bits), first;
	unsigned int l, rows, nout = m->bits / 2;
	size_t i, n;

	for (first = 0; first < size; first += rows) {
		rows = size - first < OPTINC_ONN_CHUNK ? size - first
						       : OPTINC_ONN_CHUNK;
		optinc_onn_eval_inputs(m, clean, first, rows);
		optinc_onn_eval_inputs(m, noisy, first, rows);
		for (l = 0; l < m->nlayers; l++) {
			optinc_onn_rnet_layer(m, clean, l, rows);
			optinc_onn_rnet_layer(m, noisy, l, rows);
			n = (size_t)rows * m->layer[l].out;
			for (i = 0; i < n; i++) {
				double d = noisy->a[i] - clean->a[i];

				ss[l] += clean->a[i] * clean->a[i];
				se[l] += d * d;
			}
		}
		memcpy(out + (size_t)first * nout, clean->a,
		       sizeof(double) * rows * nout);
	}
}

/* rms of @noisy's outputs minus @clean (domain x outputs) over the domain. */
static double profile_outputs(const struct optinc_onn *m,
			      struct optinc_onn_rnet *noisy,
			      const double *clean)
{
	uint32_t size = optinc_onn_domain_size(m->members, m->bits), first;
	unsigned int rows, nout = m->bits / 2;
	const double *c;
	double se = 0;
	size_t i;

	for (first = 0; first < size; first += rows) {
		rows = size - first < OPTINC_ONN_CHUNK ? size - first
						       : OPTINC_ONN_CHUNK;
		optinc_onn_eval_inputs(m, noisy, first, rows);
		optinc_onn_rnet_forward(m, noisy, rows);
		c = clean + (size_t)first * nout;
		for (i = 0; i < (size_t)rows * nout; i++)
			se += (noisy->a[i] - c[i]) * (noisy->a[i] - c[i]);
	}
	return sqrt(se / ((double)size * nout));
}

/* Layers @layers together: p->dw, p->rel, p->all; clean outputs to @out. */
static int profile_together(const struct optinc_onn *m, double sigma,
			    uint64_t seed, uint32_t layers,
			    struct optinc_onn_rnet *clean,
			    struct optinc_onn_profile *p, double *out)
{
	double ss[OPTINC_ONN_MAX_LAYERS] = { 0 }, se[OPTINC_ONN_MAX_LAYERS] = { 0 };
	unsigned int l, last = m->nlayers - 1;
	struct optinc_onn_rnet noisy;
	int err;

	err = optinc_onn_rnet_init(m, sigma, seed, layers, &noisy);
	if (err)
		return err;
	profile_pass(m, clean, &noisy, ss, se, out);
	for (l = 0; l < m->nlayers; l++) {
		const struct optinc_onn_layer *ly = &m->layer[l];

		p->dw[l] = profile_rel_frob(noisy.w[l], clean->w[l],
					    (size_t)ly->in * ly->out);
		p->rel[l] = ss[l] > 0 ? sqrt(se[l] / ss[l]) : 0;
	}
	p->all = sqrt(se[last] / ((double)m->layer[last].out *
				  optinc_onn_domain_size(m->members, m->bits)));
	optinc_onn_rnet_free(&noisy);
	return 0;
}

/**
 * optinc_onn_noise_profile() - one phase-noise draw, followed through @m
 * @sigma, @seed: the draw, as optinc_onn_evaluate() makes it (every layer's
 *          noise is drawn, whichever layers get it)
 * @layers: the layers profiled (bit l: layer l from 0; OPTINC_ONN_ALL_LAYERS)
 * @p:      filled here, every number an rms over every point of the domain:
 *          dw[l], ||W~ - W||_F / ||W||_F of layer l as realised with the
 *          draw; alone[l], the outputs' error (noisy - clean) with only
 *          layer l perturbed; rel[l], layer l's activation error over its
 *          activation with every layer of @layers perturbed (layers outside
 *          @layers too: what reaches them); all, the outputs' error then.
 *          dw and alone are 0 for layers outside @layers.
 *
 * Return: 0 or a negative errno.
 */
int optinc_onn_noise_profile(const struct optinc_onn *m, double sigma,
			     uint64_t seed, uint32_t layers,
			     struct optinc_onn_profile *p)
{
	uint32_t size = optinc_onn_domain_size(m->members, m->bits);
	struct optinc_onn_rnet clean, noisy;
	double *out;
	unsigned int l;
	int err;

	memset(p, 0, sizeof(*p));
	out = malloc(sizeof(double) * size * (m->bits / 2));
	if (!out)
		return -ENOMEM;
	err = optinc_onn_rnet_init(m, 0, 0, 0, &clean);
	if (!err)
		err = profile_together(m, sigma, seed, layers, &clean, p, out);
	for (l = 0; l < m->nlayers && !err; l++) {
		if (!(layers >> l & 1))
			continue;
		err = optinc_onn_rnet_init(m, sigma, seed, 1u << l, &noisy);
		if (err)
			break;
		p->alone[l] = profile_outputs(m, &noisy, out);
		optinc_onn_rnet_free(&noisy);
	}
	optinc_onn_rnet_free(&clean);	/* zeroed by a failed init: a no-op */
	free(out);
	return err;
}
