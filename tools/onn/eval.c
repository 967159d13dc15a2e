// SPDX-License-Identifier: BSD-3-Clause
/*
 * The domain of unit P (every vector of symbol sums s_k in [0, 3N]) and the
 * evaluation of a realised model over all of it, in double precision.
 * Input k is s_k * in_scale; output k is decided into PAM4 symbol k by the
 * thresholds 0.5, 1.5, 2.5 (a PAM4 receiver's slicer).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <optinc/core.h>

#include "onn.h"

uint32_t optinc_onn_domain_size(unsigned int members, unsigned int bits)
{
	uint32_t n = 1;
	unsigned int k;

	for (k = 0; k < bits / 2; k++)
		n *= 3 * members + 1;
	return n;
}

/* The symbol sums of domain point @index (the truth-table index). */
void optinc_onn_domain_point(uint32_t index, unsigned int members,
			     unsigned int bits, unsigned int *sums)
{
	__u32 s[8];
	unsigned int k;

	optinc_pam4_sums(index, 3 * members + 1, bits / 2, s);
	for (k = 0; k < bits / 2; k++)
		sums[k] = s[k];
}

/* The exact average of the values whose symbols sum to @sums. */
unsigned int optinc_onn_exact(const unsigned int *sums, unsigned int members,
			      unsigned int bits)
{
	__u32 total = 0;
	unsigned int k;

	for (k = bits / 2; k-- > 0;)
		total = total * 4 + sums[k];
	return optinc_avg_rhe(total, members);
}

unsigned int optinc_onn_decide(double y)
{
	return y < 0.5 ? 0 : y < 1.5 ? 1 : y < 2.5 ? 2 : 3;
}

/* How far @y is inside symbol @sym's slicer interval (negative: outside). */
double optinc_onn_margin(double y, unsigned int sym)
{
	double lo = sym ? y - (sym - 0.5) : 1e9;
	double hi = sym < 3 ? (sym + 0.5) - y : 1e9;

	return lo < hi ? lo : hi;
}

void optinc_onn_rnet_free(struct optinc_onn_rnet *n)
{
	unsigned int l;

	for (l = 0; l < n->nl; l++)
		free(n->w[l]);
	free(n->a);
	free(n->b);
	memset(n, 0, sizeof(*n));
}

/*
 * Layer @l with noise when @layers has its bit, else as designed. Its
 * noise is drawn either way, so that a layer gets the same draws whichever
 * other layers are perturbed (verify --noise-layers).
 */
static int rnet_realise(const struct optinc_onn *m, unsigned int l,
			double *w, double noise, uint32_t layers,
			struct optinc_onn_rng *rng)
{
	int err = optinc_onn_realise(m, l, w, noise, rng);

	if (!err && noise > 0 && !(layers >> l & 1))
		err = optinc_onn_realise(m, l, w, 0, rng);
	return err;
}

/**
 * optinc_onn_rnet_init() - realise @m's layers for evaluation in chunks
 * @noise:  MZI phase noise sigma in radians (0: the model as designed)
 * @seed:   seed of the noise
 * @layers: bit l set: layer l (from 0) gets the noise (OPTINC_ONN_ALL_LAYERS)
 * @n:      filled here; optinc_onn_rnet_free() it
 *
 * Return: 0 or a negative errno.
 */
int optinc_onn_rnet_init(const struct optinc_onn *m, double noise,
			 uint64_t seed, uint32_t layers,
			 struct optinc_onn_rnet *n)
{
	struct optinc_onn_rng rng;
	unsigned int l;
	int err = 0;

	memset(n, 0, sizeof(*n));
	optinc_onn_rng_seed(&rng, seed);
	n->width = m->layer[0].in;
	for (l = 0; l < m->nlayers && !err; l++) {
		const struct optinc_onn_layer *ly = &m->layer[l];

		if (ly->out > n->width)
			n->width = ly->out;
		n->w[l] = malloc(sizeof(double) * ly->in * ly->out);
		n->nl = l + 1;
		err = n->w[l] ? rnet_realise(m, l, n->w[l], noise, layers, &rng)
			      : -ENOMEM;
	}
	n->a = malloc(sizeof(double) * OPTINC_ONN_CHUNK * n->width);
	n->b = malloc(sizeof(double) * OPTINC_ONN_CHUNK * n->width);
	if (!err && (!n->a || !n->b))
		err = -ENOMEM;
	if (err)
		optinc_onn_rnet_free(n);
	return err;
}

/* Layer @l of @rows rows: from n->a into n->a (the buffers swap). */
void optinc_onn_rnet_layer(const struct optinc_onn *m,
			   struct optinc_onn_rnet *n, unsigned int l,
			   unsigned int rows)
{
	const struct optinc_onn_layer *ly = &m->layer[l];
	unsigned int r, k;
	double *t;
	size_t i;

	for (r = 0; r < rows; r++)
		for (k = 0; k < ly->out; k++)
			n->b[(size_t)r * ly->out + k] = ly->bias[k];
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows,
		    ly->out, ly->in, 1.0, n->a, ly->in, n->w[l], ly->in,
		    1.0, n->b, ly->out);
	if (ly->act == OPTINC_ONN_ACT_RELU)
		for (i = 0; i < (size_t)rows * ly->out; i++)
			if (n->b[i] < 0)
				n->b[i] = 0;
	t = n->a;
	n->a = n->b;
	n->b = t;
}

/*
 * optinc_onn_rnet_forward() - @rows inputs (layer 0's width each, in n->a)
 * through every layer; the outputs are left in n->a.
 */
void optinc_onn_rnet_forward(const struct optinc_onn *m,
			     struct optinc_onn_rnet *n, unsigned int rows)
{
	unsigned int l;

	for (l = 0; l < m->nlayers; l++)
		optinc_onn_rnet_layer(m, n, l, rows);
}

/* The inputs of @rows domain points starting at @first, into n->a. */
void optinc_onn_eval_inputs(const struct optinc_onn *m,
			    struct optinc_onn_rnet *n, uint32_t first,
			    unsigned int rows)
{
	unsigned int r, k, s[8], in = m->bits / 2;

	for (r = 0; r < rows; r++) {
		optinc_onn_domain_point(first + r, m->members, m->bits, s);
		for (k = 0; k < in; k++)
			n->a[r * in + k] = s[k] * (double)m->in_scale;
	}
}

/* Outputs of @rows domain points starting at @first, left in n->a. */
static void eval_forward(const struct optinc_onn *m, struct optinc_onn_rnet *n,
			 uint32_t first, unsigned int rows)
{
	optinc_onn_eval_inputs(m, n, first, rows);
	optinc_onn_rnet_forward(m, n, rows);
}

static void eval_decide(const struct optinc_onn *m, struct optinc_onn_rnet *n,
			uint32_t first, unsigned int rows,
			struct optinc_onn_eval *ev)
{
	unsigned int r, k, sym, v, nout = m->bits / 2;
	double y, g;

	for (r = 0; r < rows; r++) {
		v = 0;
		for (k = 0; k < nout; k++) {
			y = n->a[r * nout + k];
			sym = optinc_onn_decide(y);
			g = optinc_onn_margin(y, sym);
			if (g < ev->min_margin)
				ev->min_margin = g;
			v |= sym << (2 * k);
		}
		ev->out[first + r] = v;
		if (v != ev->exact[first + r])
			ev->wrong++;
		for (k = 0; k < nout; k++)
			ev->wrong_sym[k] += (v ^ ev->exact[first + r]) >> (2 * k) & 3 ? 1 : 0;
	}
}

/**
 * optinc_onn_evaluate() - run a realised model over its whole domain
 * @noise:  MZI phase noise sigma in radians (0: the model as designed)
 * @seed:   seed of the noise
 * @layers: the layers that get it, as optinc_onn_rnet_init()'s
 * @ev:     results; optinc_onn_eval_free() it
 *
 * Only B = 8 models (the truth-table format's) are evaluated.
 *
 * Return: 0, -EINVAL for B != 8, or -ENOMEM.
 */
int optinc_onn_evaluate(const struct optinc_onn *m, double noise,
			uint64_t seed, uint32_t layers,
			struct optinc_onn_eval *ev)
{
	struct optinc_onn_rnet n;
	uint32_t i, rows;
	int err;

	memset(ev, 0, sizeof(*ev));
	if (m->bits != 8)
		return -EINVAL;
	ev->entries = optinc_onn_domain_size(m->members, m->bits);
	ev->min_margin = 1e9;
	ev->out = malloc(ev->entries);
	ev->exact = malloc(ev->entries);
	if (!ev->out || !ev->exact) {
		optinc_onn_eval_free(ev);
		return -ENOMEM;
	}
	optinc_table_fill_exact(ev->exact, m->members, m->bits);
	err = optinc_onn_rnet_init(m, noise, seed, layers, &n);
	if (err) {
		optinc_onn_eval_free(ev);
		return err;
	}
	for (i = 0; i < ev->entries; i += rows) {
		rows = ev->entries - i < OPTINC_ONN_CHUNK ? ev->entries - i :
							    OPTINC_ONN_CHUNK;
		eval_forward(m, &n, i, rows);
		eval_decide(m, &n, i, rows, ev);
	}
	optinc_onn_rnet_free(&n);
	return 0;
}

/**
 * optinc_onn_units_on() - count the units of each ReLU layer that are on
 * (output > 0) at some point of the domain, the model as designed
 * @m:  the model (B = 8)
 * @on: @m->nlayers counts, 0 for a linear layer
 *
 * A unit off at every point gets no gradient in training and carries
 * nothing (Documentation/onn.md, section 8: most of N = 8's).
 *
 * Return: 0, -EINVAL for B != 8, or -ENOMEM.
 */
int optinc_onn_units_on(const struct optinc_onn *m, unsigned int *on)
{
	uint32_t i, rows, entries = optinc_onn_domain_size(m->members, m->bits);
	struct optinc_onn_rnet n;
	unsigned int l, k, r;
	uint8_t *seen;
	int err;

	if (m->bits != 8)
		return -EINVAL;
	seen = calloc((size_t)m->nlayers, OPTINC_ONN_MAX_WIDTH);
	err = seen ? optinc_onn_rnet_init(m, 0, 0, 0, &n) : -ENOMEM;
	if (err) {
		free(seen);
		return err;
	}
	for (i = 0; i < entries; i += rows) {
		rows = entries - i < OPTINC_ONN_CHUNK ? entries - i :
						       OPTINC_ONN_CHUNK;
		optinc_onn_eval_inputs(m, &n, i, rows);
		for (l = 0; l < m->nlayers; l++) {
			unsigned int out = m->layer[l].out;

			optinc_onn_rnet_layer(m, &n, l, rows);
			for (r = 0; r < rows; r++)
				for (k = 0; k < out; k++)
					seen[(size_t)l * OPTINC_ONN_MAX_WIDTH + k] |=
						n.a[(size_t)r * out + k] > 0;
		}
	}
	for (l = 0; l < m->nlayers; l++) {
		on[l] = 0;
		for (k = 0; m->layer[l].act == OPTINC_ONN_ACT_RELU &&
			    k < m->layer[l].out; k++)
			on[l] += seen[(size_t)l * OPTINC_ONN_MAX_WIDTH + k];
	}
	optinc_onn_rnet_free(&n);
	free(seen);
	return 0;
}

void optinc_onn_eval_free(struct optinc_onn_eval *ev)
{
	free(ev->out);
	free(ev->exact);
	memset(ev, 0, sizeof(*ev));
}

/* Wrong outputs by signed error (output - exact), like the paper's Table II. */
void optinc_onn_histogram(FILE *f, const struct optinc_onn_eval *ev)
{
	static uint32_t count[511];
	uint32_t i;
	int e;

	memset(count, 0, sizeof(count));
	for (i = 0; i < ev->entries; i++)
		count[255 + (int)ev->out[i] - (int)ev->exact[i]]++;
	fprintf(f, "  wrong PAM4 symbols (0 = least significant):");
	for (e = 0; e < 4; e++)
		fprintf(f, " %u", ev->wrong_sym[e]);
	fprintf(f, "\n  error  points\n");
	for (e = -255; e <= 255; e++)
		if (e && count[255 + e])
			fprintf(f, "  %+5d  %u\n", e, count[255 + e]);
	if (!ev->wrong)
		fprintf(f, "  (none)\n");
}

/*
 * Wrong points by their exact average, in bins of 16 values: where in the
 * range a network fails (trained N = 8 networks fail at its two ends).
 * Each line has five fields, none a bare number first, so that readers of
 * the error histogram above do not take it for theirs.
 */
void optinc_onn_wrong_by_value(FILE *f, const struct optinc_onn_eval *ev)
{
	uint32_t bin[16] = { 0 }, i;
	unsigned int b;

	if (!ev->wrong)
		return;
	for (i = 0; i < ev->entries; i++)
		if (ev->out[i] != ev->exact[i])
			bin[ev->exact[i] >> 4]++;
	fprintf(f, "wrong points by exact average (16 values a bin, empty bins left out):\n");
	for (b = 0; b < 16; b++)
		if (bin[b])
			fprintf(f, "  exact average %u-%u: %u wrong\n", 16 * b,
				16 * b + 15, bin[b]);
}
