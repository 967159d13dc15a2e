// SPDX-License-Identifier: BSD-3-Clause
/*
 * optinc-onn finish: the last step of a trained model that is nearly exact
 * (Documentation/onn.md, section 5, "Finishing a model").
 *
 * 1. A unit of the last hidden layer that is off at every point of the
 *    domain carries nothing. In each block, the rows of U of such units
 *    span what the live rows leave free, and any orthonormal rows in that
 *    span keep U orthogonal and every live unit as it was. Each window of
 *    S gets one of those units: a linear program picks its rows (in the
 *    free span, orthogonal to the windows before it) and its bias so that
 *    it is on, by delta at least, where LO <= S <= HI and off where
 *    S < LO - GAP or S > HI + GAP, maximising delta.
 * 2. Each output with a wrong point gets its readout row again from a
 *    linear program over the whole domain that maximises its worst slicer
 *    margin, from the live units and the new ones, and then from a second
 *    one: the smallest row (L1) with that margin, since the readout's
 *    meshes move an output by its row's size times their phase error. The
 *    other outputs keep their rows and do not see the new units.
 * 3. The changed blocks are decomposed into phases again; the model is
 *    written and evaluated as realised from its file.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <optinc/core.h>

#include "onn.h"

#define FIN_MAX_WIN	16
#define FIN_WBOUND	1e3	/* |readout weight| in z, |bias| */
/*
 * A window unit must be on by this much: rounding its phases to float
 * turns it on by some 3e-5 outside its window (its gain is in the hundreds).
 */
#define FIN_MIN_DELTA	1e-3
/*
 * The readout row kept is the smallest (L1) with this much of the best
 * row's worst margin: under MZI phase noise a smaller row moves less.
 */
#define FIN_KEEP	0.999

struct fin {
	const char *in, *out;
	unsigned int win[FIN_MAX_WIN][2], nwin, gap;
	int auto_win;			/* --window auto */
	double bound;
	struct optinc_onn m;
	unsigned int L, nb, k;		/* the last hidden layer, its blocks */
	unsigned int ndead, *dead;	/* its units off everywhere */
	double *u;			/* nb blocks of its real k x k U */
	uint32_t np;			/* domain points */
	unsigned int D;			/* nb * ndead */
	float *g;	/* np x D: block j's dead rows of U times its input */
	float *h;	/* np x k: the layer's outputs (the new units' too) */
	uint32_t *S;
	uint8_t *exact;
	double *q;	/* nb x ndead x ndead: bases of the free spans */
	unsigned int qn[OPTINC_ONN_MAX_WIDTH];
	double *a, *c;	/* window w: its row in dead coordinates, its bias */
	/* the readout's units, whitened (step 2) */
	unsigned int nf, *feat, nz;
	double *mu, *tz;	/* nf means; nf x nz: z = tz^T (h - mu) */
	float *z;		/* np x nz */
	/* the program being solved, and how it went */
	unsigned int lo, hi, sym;
	double l1max;		/* the best row's L1 norm */
	double tmin;		/* > 0: minimise the norm, margins >= tmin */
	double margin, norm;
	int rounds;
};

/* ---- the model, its last hidden layer and the domain ---- */

static int fin_check_model(struct fin *f)
{
	const struct optinc_onn_layer *y, *r;

	if (f->m.bits != 8 || f->m.nlayers < 2)
		goto bad;
	f->L = f->m.nlayers - 2;
	y = &f->m.layer[f->L];
	r = &f->m.layer[f->L + 1];
	if (y->form != OPTINC_ONN_BLOCKS || y->act != OPTINC_ONN_ACT_RELU ||
	    y->out > y->in || r->form != OPTINC_ONN_DENSE)
		goto bad;
	f->nb = y->nblocks;
	f->k = y->k;
	return 0;
bad:
	fprintf(stderr, "optinc-onn: finish: %s: need B = 8, a last hidden layer of ReLU blocks with out <= in, and a dense readout\n",
		f->in);
	return -EINVAL;
}

/* U of every block of the last hidden layer, real (a trained model's). */
static int fin_blocks(struct fin *f)
{
	const struct optinc_onn_layer *y = &f->m.layer[f->L];
	unsigned int k = f->k, kk = k * k, j, i;
	double complex *z = malloc(sizeof(*z) * kk);
	double *ph = malloc(sizeof(double) * kk);
	int err = z && ph ? 0 : -ENOMEM;

	f->u = malloc(sizeof(double) * f->nb * kk);
	if (!f->u)
		err = -ENOMEM;
	for (j = 0; j < f->nb && !err; j++) {
		for (i = 0; i < kk; i++)
			ph[i] = y->phase[(size_t)j * kk + i];
		err = optinc_onn_mesh_realise(k, ph, 0, NULL, z);
		for (i = 0; i < kk && !err; i++) {
			if (fabs(cimag(z[i])) > 1e-5) {
				fprintf(stderr, "optinc-onn: finish: %s: layer %u block %u is not real (imaginary part %g): its free rows cannot be turned\n",
					f->in, f->L + 1, j, cimag(z[i]));
				err = -EINVAL;
			}
			f->u[(size_t)j * kk + i] = creal(z[i]);
		}
	}
	free(z);
	free(ph);
	return err;
}

/* Domain points through the layers before the last hidden one, into n->a. */
static void fin_to_layer(struct fin *f, struct optinc_onn_rnet *n,
			 uint32_t first, unsigned int rows)
{
	unsigned int l;

	optinc_onn_eval_inputs(&f->m, n, first, rows);
	for (l = 0; l < f->L; l++)
		optinc_onn_rnet_layer(&f->m, n, l, rows);
}

static int fin_find_dead(struct fin *f, struct optinc_onn_rnet *n)
{
	uint8_t *on = calloc(f->k, 1);
	uint32_t i, rows;
	unsigned int r, o;

	f->dead = malloc(sizeof(*f->dead) * f->k);
	if (!on || !f->dead) {
		free(on);
		return -ENOMEM;
	}
	for (i = 0; i < f->np; i += rows) {
		rows = f->np - i < OPTINC_ONN_CHUNK ? f->np - i : OPTINC_ONN_CHUNK;
		fin_to_layer(f, n, i, rows);
		optinc_onn_rnet_layer(&f->m, n, f->L, rows);
		for (r = 0; r < rows; r++)
			for (o = 0; o < f->k; o++)
				on[o] |= n->a[(size_t)r * f->k + o] > 0;
	}
	for (o = 0; o < f->k; o++)
		if (!on[o])
			f->dead[f->ndead++] = o;
	free(on);
	return 0;
}

/* The layer's outputs (h) of @rows points from @first, its input in n->a. */
static void fin_layer_out(struct fin *f, struct optinc_onn_rnet *n,
			  uint32_t first, unsigned int rows)
{
	size_t r;

	optinc_onn_rnet_layer(&f->m, n, f->L, rows);
	for (r = 0; r < (size_t)rows * f->k; r++)
		f->h[(size_t)first * f->k + r] = (float)n->a[r];
}

/* g and h of @rows points from @first, the layer's input in n->a. */
static void fin_store(struct fin *f, struct optinc_onn_rnet *n,
		      uint32_t first, unsigned int rows)
{
	unsigned int r, j, d, c, k = f->k, in = f->m.layer[f->L].in;

	for (r = 0; r < rows; r++)
		for (j = 0; j < f->nb; j++) {
			const double *x = n->a + (size_t)r * in + j * k;

			for (d = 0; d < f->ndead; d++) {
				const double *row = f->u + ((size_t)j * k +
						    f->dead[d]) * k;
				double s = 0;

				for (c = 0; c < k; c++)
					s += row[c] * x[c];
				f->g[(size_t)(first + r) * f->D + j * f->ndead + d] = (float)s;
			}
		}
	fin_layer_out(f, n, first, rows);
}

static int fin_points(struct fin *f)
{
	struct optinc_onn_rnet n;
	unsigned int s[8], j;
	uint32_t i, rows;
	int err;

	f->np = optinc_onn_domain_size(f->m.members, f->m.bits);
	err = optinc_onn_rnet_init(&f->m, 0, 0, 0, &n);
	if (!err)
		err = fin_find_dead(f, &n);
	f->D = f->nb * f->ndead;
	f->g = malloc(sizeof(float) * f->np * (f->D ? f->D : 1));
	f->h = malloc(sizeof(float) * f->np * f->k);
	f->S = malloc(sizeof(uint32_t) * f->np);
	f->exact = malloc(f->np);
	if (!err && (!f->g || !f->h || !f->S || !f->exact))
		err = -ENOMEM;
	for (i = 0; i < f->np && !err; i += rows) {
		rows = f->np - i < OPTINC_ONN_CHUNK ? f->np - i : OPTINC_ONN_CHUNK;
		fin_to_layer(f, &n, i, rows);
		fin_store(f, &n, i, rows);
	}
	for (i = 0; i < f->np && !err; i++) {
		optinc_onn_domain_point(i, f->m.members, f->m.bits, s);
		f->exact[i] = (uint8_t)optinc_onn_exact(s, f->m.members, f->m.bits);
		for (f->S[i] = 0, j = f->m.bits / 2; j-- > 0;)
			f->S[i] = f->S[i] * 4 + s[j];
	}
	optinc_onn_rnet_free(&n);
	return err;
}

/* ---- --window auto ---- */

/* Symbol @o of the exact average of the values summing to @S. */
static unsigned int fin_sym(const struct fin *f, uint32_t S, unsigned int o)
{
	return optinc_avg_rhe(S, f->m.members) >> (2 * o) & 3;
}

/*
 * The step of output @o's exact symbol nearest to S (a: the symbol at a - 1
 * differs from the one at a), by |a - 1/2 - S|, the lower on a tie; 0 if
 * it has none in [1, smax].
 */
static uint32_t fin_step_near(const struct fin *f, uint32_t S, unsigned int o,
			      uint32_t smax)
{
	uint32_t d, a;

	for (d = 0; d <= smax; d++) {
		a = S - d;	/* the step just below S - d + 1 .. */
		if (S >= d && a >= 1 && fin_sym(f, a - 1, o) != fin_sym(f, a, o))
			return a;
		a = S + 1 + d;
		if (a <= smax && fin_sym(f, a - 1, o) != fin_sym(f, a, o))
			return a;
	}
	return 0;
}

/* Output @o at point @i as the model stands: h through its readout row. */
static double fin_readout_y(const struct fin *f, uint32_t i, unsigned int o)
{
	const struct optinc_onn_layer *r = &f->m.layer[f->L + 1];
	double y = r->bias[o];
	unsigned int n;

	for (n = 0; n < f->k; n++)
		y += r->w[(size_t)o * f->k + n] * (double)f->h[(size_t)i * f->k + n];
	return y;
}

/* Is output @o wrong at point @i, as the model stands? */
static int fin_wrong_at(const struct fin *f, uint32_t i, unsigned int o)
{
	return optinc_onn_decide(fin_readout_y(f, i, o)) !=
	       (f->exact[i] >> (2 * o) & 3u);
}

/*
 * --window auto: for each step a of an exact symbol next to a point where
 * that output is wrong, the windows [a, a + w - 1] and [a - w, a - 1],
 * w = N / 2 (at least 1; half a period of the least significant symbol),
 * the highest a first. It is the rule the hand-written windows of
 * models-n8 follow (Documentation/onn.md, section 5).
 */
static int fin_auto_windows(struct fin *f)
{
	uint32_t smax = 0, i, a, w = f->m.members / 2 ? f->m.members / 2 : 1;
	unsigned int o, nout = f->m.bits / 2, nsteps = 0;
	uint8_t *step;
	int err = 0;

	for (i = 0; i < f->np; i++)
		smax = f->S[i] > smax ? f->S[i] : smax;
	step = calloc(smax + 1, 1);
	if (!step)
		return -ENOMEM;
	for (i = 0; i < f->np; i++)
		for (o = 0; o < nout; o++)
			if (fin_wrong_at(f, i, o))
				step[fin_step_near(f, f->S[i], o, smax)] = 1;
	step[0] = 0;
	for (a = smax + 1; a-- > 1;) {
		if (!step[a])
			continue;
		nsteps++;
		if (f->nwin + 2 > FIN_MAX_WIN) {
			err = -E2BIG;
			continue;
		}
		f->win[f->nwin][0] = a;
		f->win[f->nwin++][1] = a + w - 1 < smax ? a + w - 1 : smax;
		f->win[f->nwin][0] = a > w ? a - w : 0;
		f->win[f->nwin++][1] = a - 1;
	}
	free(step);
	if (err)
		fprintf(stderr, "optinc-onn: finish: --window auto: %u steps next to wrong points need %u windows, at most %u\n",
			nsteps, 2 * nsteps, FIN_MAX_WIN);
	else if (!f->nwin)
		fprintf(stderr, "optinc-onn: finish: --window auto: %s has no wrong point\n",
			f->in);
	return err ? err : f->nwin ? 0 : -EINVAL;
}

static void fin_print_windows(const struct fin *f)
{
	unsigned int w;

	printf("windows (auto: w = %u on each side of %u steps next to wrong points):",
	       f->m.members / 2 ? f->m.members / 2 : 1, f->nwin / 2);
	for (w = 0; w < f->nwin; w++)
		printf("%s%u-%u", w ? "," : " ", f->win[w][0], f->win[w][1]);
	printf("\n");
}

/* ---- step 1: a dead unit per window ---- */

static double *fin_q(struct fin *f, unsigned int j)
{
	return f->q + (size_t)j * f->ndead * f->ndead;
}

/* Point @i's g in block @j's free basis, coordinate @m. */
static double fin_gq(const struct fin *f, uint32_t i, unsigned int j,
		     unsigned int m)
{
	const double *q = f->q + (size_t)j * f->ndead * f->ndead;
	const float *g = f->g + (size_t)i * f->D + j * f->ndead;
	double s = 0;
	unsigned int d;

	for (d = 0; d < f->ndead; d++)
		s += q[d * f->ndead + m] * g[d];
	return s;
}

/*
 * Point @r of the window program: on by delta inside the window
 * (row . v - delta >= 0), off outside it and its gaps (-row . v >= 0).
 */
static int fin_win_cons(void *ctx, uint32_t r, double *row, double *alpha,
			double *rhs)
{
	struct fin *f = ctx;
	uint32_t s = f->S[r];
	unsigned int j, m, v = 0;
	int in = s >= f->lo && s <= f->hi;
	double sg = in ? 1 : -1;

	if (!in && s + f->gap >= f->lo && s <= f->hi + f->gap)
		return 0;
	for (j = 0; j < f->nb; j++)
		for (m = 0; m < f->qn[j]; m++)
			row[v++] = sg * fin_gq(f, r, j, m);
	row[v] = sg;
	*alpha = in;
	*rhs = 0;
	return 1;
}

/*
 * Block @j's free basis without direction @a (dead coordinates): modified
 * Gram-Schmidt, twice, of the basis after a; the one column that a
 * accounts for falls to zero and is dropped.
 */
static void fin_q_remove(struct fin *f, unsigned int j, const double *a)
{
	unsigned int nd = f->ndead, m, e, d, kept = 0, pass;
	double *q = fin_q(f, j), *b = malloc(sizeof(double) * nd * (nd + 1));
	double na = 0, dot, norm;

	for (d = 0; d < nd; d++)
		na += a[d] * a[d];
	if (!b || na < 1e-24) {
		free(b);
		return;
	}
	for (d = 0; d < nd; d++)
		b[d] = a[d] / sqrt(na);
	for (m = 0; m < f->qn[j] && kept + 1 < f->qn[j]; m++) {
		double *x = b + (size_t)(kept + 1) * nd;

		for (d = 0; d < nd; d++)
			x[d] = q[d * nd + m];
		for (pass = 0; pass < 2; pass++)
			for (e = 0; e <= kept; e++) {
				for (dot = 0, d = 0; d < nd; d++)
					dot += x[d] * b[(size_t)e * nd + d];
				for (d = 0; d < nd; d++)
					x[d] -= dot * b[(size_t)e * nd + d];
			}
		for (norm = 0, d = 0; d < nd; d++)
			norm += x[d] * x[d];
		if (norm < 1e-16)
			continue;
		for (d = 0; d < nd; d++)
			x[d] /= sqrt(norm);
		kept++;
	}
	for (m = 0; m < kept; m++)
		for (d = 0; d < nd; d++)
			q[d * nd + m] = b[(size_t)(m + 1) * nd + d];
	f->qn[j] = kept;
	free(b);
}

/* Window @w's program: x (each block's p_j, then c), delta; its rounds. */
static int fin_window_lp(struct fin *f, unsigned int w, unsigned int nv,
			 double *x, double *delta)
{
	double *bnd = malloc(sizeof(double) * nv);
	uint8_t *start = malloc(f->np);
	struct optinc_onn_lp p;
	int rounds = -ENOMEM;
	unsigned int v;
	uint32_t i;

	if (bnd && start) {
		f->lo = f->win[w][0];
		f->hi = f->win[w][1];
		for (v = 0; v < nv; v++)
			bnd[v] = v + 1 < nv ? f->bound : FIN_WBOUND;
		/* the window and what lies next to it: most of what binds */
		for (i = 0; i < f->np; i++)
			start[i] = f->S[i] + f->gap + 16 >= f->lo &&
				   f->S[i] <= f->hi + f->gap + 16;
		/* g is float: times coefficients up to A, rounding is 1e-5 */
		p = (struct optinc_onn_lp){ .nv = nv, .bound = bnd, .tmax = 1,
			.tol = 1e-5, .ncons = f->np, .cons = fin_win_cons,
			.ctx = f };
		rounds = optinc_onn_lp_solve(&p, start, x, delta);
	}
	free(bnd);
	free(start);
	return rounds;
}

/* Window @w's solution @x taken: its row a_w, its bias, the bases less a_w. */
static void fin_window_take(struct fin *f, unsigned int w, const double *x,
			    unsigned int nv)
{
	unsigned int j, m, d, v = 0;

	printf("window S %u-%u (gap %u): unit %u, attenuations", f->lo, f->hi,
	       f->gap, f->dead[w]);
	for (j = 0; j < f->nb; j++) {
		double *a = f->a + (size_t)w * f->D + j * f->ndead, na = 0;

		for (d = 0; d < f->ndead; d++) {
			a[d] = 0;
			for (m = 0; m < f->qn[j]; m++)
				a[d] += fin_q(f, j)[d * f->ndead + m] * x[v + m];
			na += a[d] * a[d];
		}
		v += f->qn[j];
		printf(" %.4g", sqrt(na));
	}
	f->c[w] = x[nv - 1];
	for (j = 0; j < f->nb; j++)
		fin_q_remove(f, j, f->a + (size_t)w * f->D + j * f->ndead);
}

static int fin_window(struct fin *f, unsigned int w)
{
	unsigned int j, nv = 1;
	double *x, delta = 0;
	int rounds;

	for (j = 0; j < f->nb; j++)
		nv += f->qn[j];
	x = malloc(sizeof(double) * nv);
	rounds = x ? fin_window_lp(f, w, nv, x, &delta) : -ENOMEM;
	if (rounds < 0)
		fprintf(stderr, "optinc-onn: finish: window %u-%u: linear program failed: %s\n",
			f->win[w][0], f->win[w][1], strerror(-rounds));
	else if (delta <= FIN_MIN_DELTA)
		fprintf(stderr, "optinc-onn: finish: window %u-%u: no unit of the free rows is on there and off elsewhere (delta %g)\n",
			f->lo, f->hi, delta);
	else {
		fin_window_take(f, w, x, nv);
		printf("; bias %+.4g, on by %.4g, %d LP rounds\n", f->c[w],
		       delta, rounds);
	}
	free(x);
	return rounds < 0 ? rounds : delta > FIN_MIN_DELTA ? 0 : -EDOM;
}

static int fin_windows(struct fin *f)
{
	unsigned int j, d, w;
	int err = 0;

	if (f->nwin > f->ndead) {
		fprintf(stderr, "optinc-onn: finish: %u windows, but layer %u has only %u units off everywhere\n",
			f->nwin, f->L + 1, f->ndead);
		return -ENOSPC;
	}
	f->q = calloc((size_t)f->nb * f->ndead * f->ndead, sizeof(double));
	f->a = calloc((size_t)f->nwin * f->D + 1, sizeof(double));
	f->c = calloc(f->nwin + 1, sizeof(double));
	if (!f->q || !f->a || !f->c)
		return -ENOMEM;
	for (j = 0; j < f->nb; j++) {
		f->qn[j] = f->ndead;
		for (d = 0; d < f->ndead; d++)
			fin_q(f, j)[d * f->ndead + d] = 1;
	}
	for (w = 0; w < f->nwin && !err; w++)
		err = fin_window(f, w);
	return err;
}

/* Next unused column of block @j's free basis into @dir, or -ENOSPC. */
static int fin_leftover(struct fin *f, unsigned int j, unsigned int *next,
			double *dir)
{
	unsigned int d;

	if (*next >= f->qn[j])
		return -ENOSPC;
	for (d = 0; d < f->ndead; d++)
		dir[d] = fin_q(f, j)[d * f->ndead + *next];
	(*next)++;
	return 0;
}

/*
 * Block @j's dead rows turned (new rows in @nu, k each): window units by
 * their programs, the rest onto what is left of the free span, dark.
 */
static int fin_turn_block(struct fin *f, unsigned int j, double *nu)
{
	struct optinc_onn_layer *y = &f->m.layer[f->L];
	unsigned int k = f->k, nd = f->ndead, d, e, c, next = 0;
	double dir[OPTINC_ONN_MAX_WIDTH], na;
	const double *u = f->u + (size_t)j * k * k;
	int err = 0;

	for (d = 0; d < nd && !err; d++) {
		const double *a = d < f->nwin ? f->a + (size_t)d * f->D + j * nd
					      : NULL;

		for (na = 0, e = 0; a && e < nd; e++)
			na += a[e] * a[e];
		na = sqrt(na);
		if (na > 1e-12)
			for (e = 0; e < nd; e++)
				dir[e] = a[e] / na;
		else
			err = fin_leftover(f, j, &next, dir);
		y->sigma[j * k + f->dead[d]] = (float)na;
		for (c = 0; c < k; c++) {
			nu[(size_t)d * k + c] = 0;
			for (e = 0; e < nd; e++)
				nu[(size_t)d * k + c] += dir[e] * u[(size_t)f->dead[e] * k + c];
		}
	}
	return err;
}

/* The turned rows into U, U into phases. */
static int fin_block_phases(struct fin *f, unsigned int j, const double *nu)
{
	struct optinc_onn_layer *y = &f->m.layer[f->L];
	unsigned int k = f->k, kk = k * k, d, i;
	double *u = f->u + (size_t)j * kk;
	double complex *z = malloc(sizeof(*z) * kk);
	double *ph = malloc(sizeof(double) * kk);
	int err = z && ph ? 0 : -ENOMEM;

	for (d = 0; d < f->ndead && !err; d++)
		memcpy(u + (size_t)f->dead[d] * k, nu + (size_t)d * k,
		       sizeof(double) * k);
	for (i = 0; i < kk && !err; i++)
		z[i] = u[i];
	if (!err)
		err = optinc_onn_block_phases(k, z, ph);
	for (i = 0; i < kk && !err; i++)
		y->phase[(size_t)j * kk + i] = (float)ph[i];
	free(z);
	free(ph);
	return err;
}

/*
 * The layer's outputs again, the model realised from its new phases: the
 * window units' gains (hundreds) magnify the rounding of their phases to
 * float, so the readout is fitted to what the file will compute.
 */
static int fin_outputs(struct fin *f)
{
	struct optinc_onn_rnet n;
	uint32_t i, rows;
	int err = optinc_onn_rnet_init(&f->m, 0, 0, 0, &n);

	for (i = 0; i < f->np && !err; i += rows) {
		rows = f->np - i < OPTINC_ONN_CHUNK ? f->np - i : OPTINC_ONN_CHUNK;
		fin_to_layer(f, &n, i, rows);
		fin_layer_out(f, &n, i, rows);
	}
	optinc_onn_rnet_free(&n);
	return err;
}

/* Step 1's units into the model (dark ones off for good), h again. */
static int fin_apply(struct fin *f)
{
	double *nu = malloc(sizeof(double) * f->ndead * f->k);
	unsigned int j, d;
	int err = nu ? 0 : -ENOMEM;

	for (j = 0; j < f->nb && !err; j++) {
		err = fin_turn_block(f, j, nu);
		if (!err)
			err = fin_block_phases(f, j, nu);
	}
	free(nu);
	for (d = 0; d < f->ndead && !err; d++)
		f->m.layer[f->L].bias[f->dead[d]] = d < f->nwin ? (float)f->c[d]
							       : -0.5f;
	if (!err)
		err = fin_outputs(f);
	if (err == -ENOSPC)
		fprintf(stderr, "optinc-onn: finish: no free row left for a dark unit\n");
	return err;
}

/* ---- step 2: readout rows ---- */

/*
 * The readout row's programs. The first, over (v, b'), v the row in z
 * (f->nz) and b' its bias: constraint r < 2 np is point r / 2's slicer
 * margin for output f->sym, above the threshold below its symbol (r even)
 * or below the one above it (r odd), by t; maximise t. The second
 * (f->tmin > 0), over (v, b', e), e (f->nf) bounds on the row's weights in
 * h (w = tz v): every margin at least f->tmin; for each unit n, e_n >= w_n
 * and e_n >= -w_n; t = -sum e / l1max, maximised. A row's weight w_n times
 * the phase error of the readout's mesh is what the output moves by: the
 * first program's row, which only cares for its worst point, can be
 * hundreds of times larger than it needs to be.
 */
static int fin_out_cons(void *ctx, uint32_t r, double *row, double *alpha,
			double *rhs)
{
	struct fin *f = ctx;
	uint32_t i = r / 2;
	unsigned int t, n, e = f->nz + 1;
	double sg = r & 1 ? -1 : 1;

	*alpha = 0;
	*rhs = 0;
	if (r >= 2 * f->np && !(f->tmin > 0))
		return 0;
	if (r >= 2 * f->np)	/* sparse: e and, for e_n, the row in z */
		memset(row, 0, sizeof(*row) * (e + f->nf));
	if (r >= 2 * f->np + 2 * f->nf) {
		for (n = 0; n < f->nf; n++)
			row[e + n] = -1;
		*alpha = f->l1max;
		return 1;
	}
	if (r >= 2 * f->np) {
		i = (r - 2 * f->np) / 2;
		row[e + i] = 1;
		for (n = 0; n < f->nz; n++)
			row[n] = -sg * f->tz[(size_t)i * f->nz + n];
		return 1;
	}
	t = f->exact[i] >> (2 * f->sym) & 3;
	if (r & 1 ? t == 3 : t == 0)
		return 0;
	for (n = 0; n < f->nz; n++)
		row[n] = sg * f->z[(size_t)i * f->nz + n];
	row[f->nz] = sg;
	/* the first program has no e: its rows end here */
	if (f->tmin > 0)
		memset(row + e, 0, sizeof(*row) * f->nf);
	*alpha = f->tmin > 0 ? 0 : 1;
	*rhs = (r & 1 ? -(t + 0.5) : t - 0.5) + fmax(f->tmin, 0);
	return 1;
}

/* Output @s's margins now: wrong points and the worst margin; @start. */
static uint32_t fin_out_now(struct fin *f, unsigned int s, double *worst,
			    uint8_t *start)
{
	uint32_t i, wrong = 0;
	unsigned int t;

	*worst = 1e9;
	memset(start + 2 * f->np, 1, 2 * f->nf + 1);
	for (i = 0; i < f->np; i++) {
		double y = fin_readout_y(f, i, s), g;

		t = f->exact[i] >> (2 * s) & 3;
		g = optinc_onn_margin(y, t);
		wrong += optinc_onn_decide(y) != t;
		*worst = fmin(*worst, g);
		start[2 * i] = start[2 * i + 1] = g < 0.1;
	}
	return wrong;
}

/* The solution @x of the readout row's program as output @s's row. */
static void fin_row_store(struct fin *f, unsigned int s, const double *x)
{
	struct optinc_onn_layer *r = &f->m.layer[f->L + 1];
	unsigned int n, m;
	double w, b;

	for (n = 0; n < f->k; n++)
		r->w[(size_t)s * f->k + n] = 0;
	/* back from z: w = tz v, b = v_bias - w . mu */
	for (b = x[f->nz], f->norm = 0, n = 0; n < f->nf; n++) {
		for (w = 0, m = 0; m < f->nz; m++)
			w += f->tz[(size_t)n * f->nz + m] * x[m];
		r->w[(size_t)s * f->k + f->feat[n]] = (float)w;
		b -= w * f->mu[n];
		f->norm += fabs(w);
	}
	r->bias[s] = (float)b;
}

/*
 * Output @s's row: the largest worst margin t* a row has, then the
 * smallest row (L1) that keeps FIN_KEEP t* of it.
 */
static int fin_readout_row(struct fin *f, unsigned int s, uint8_t *start)
{
	double *x = malloc(sizeof(double) * (f->nz + 1 + f->nf));
	double bnd[2 * OPTINC_ONN_MAX_WIDTH + 1];
	/*
	 * Points that differ only by float rounding (the same S through other
	 * inputs) give constraints about 1e-7 apart: with a finer tolerance
	 * they would join one after another, and nearly equal rows make the
	 * simplex's bases singular.
	 */
	struct optinc_onn_lp p = { .nv = f->nz + 1, .bound = bnd,
				   .tmax = 1, .tol = 1e-6,
				   .ncons = 2 * f->np + 2 * f->nf + 1,
				   .cons = fin_out_cons, .ctx = f };
	int rounds = x ? 0 : -ENOMEM, more;
	unsigned int n;
	double t = 0, t2;	/* t2: minus the second row's norm / l1max */

	for (n = 0; n <= f->nz; n++)
		bnd[n] = FIN_WBOUND;
	f->sym = s;
	f->tmin = 0;
	if (!rounds)
		rounds = optinc_onn_lp_solve(&p, start, x, &t);
	if (rounds > 0 && t > 0) {
		fin_row_store(f, s, x);	/* for its norm; the second row replaces it */
		f->l1max = f->norm;
		for (; n < f->nz + 1 + f->nf; n++)
			bnd[n] = f->l1max;
		f->tmin = FIN_KEEP * t;
		p.nv = f->nz + 1 + f->nf;
		p.tmax = 0;
		more = optinc_onn_lp_solve(&p, start, x, &t2);
		rounds = more < 0 ? more : rounds + more;
	}
	if (rounds < 0)
		fprintf(stderr, "optinc-onn: finish: output %u: linear program failed: %s\n",
			s, strerror(-rounds));
	else if (t <= 0)
		fprintf(stderr, "optinc-onn: finish: output %u: the best readout row still has a wrong point (worst margin %+.4f)\n",
			s, t);
	if (rounds > 0 && t > 0) {
		fin_row_store(f, s, x);
		f->margin = f->tmin;
		f->rounds = rounds;
	}
	free(x);
	return rounds < 0 ? rounds : t > 0 ? 0 : -EDOM;
}

/* The readout's units of @rows points from @first, less their means. */
static void fin_centred(const struct fin *f, uint32_t first,
			unsigned int rows, double *x)
{
	unsigned int r, n;

	for (r = 0; r < rows; r++)
		for (n = 0; n < f->nf; n++)
			x[(size_t)r * f->nf + n] = f->h[(size_t)(first + r) * f->k +
						     f->feat[n]] - f->mu[n];
}

/*
 * The readout's units whitened over the domain: z = S^-1/2 V^T (h - mu),
 * V S V^T their covariance, directions whose spread is below 1e-7 of the
 * largest dropped (float rounding). The units of a trained layer are
 * nearly collinear over most of a domain; in z the simplex's bases stay
 * well conditioned, and the program is the same (w = V S^-1/2 v).
 */
static int fin_whiten(struct fin *f)
{
	unsigned int nf = f->nf, n, m, rows;
	double *x = malloc(sizeof(double) * OPTINC_ONN_CHUNK * nf);
	double *c = calloc((size_t)nf * nf, sizeof(double));
	double *u = malloc(sizeof(double) * nf * nf * 2), *s = malloc(sizeof(double) * nf);
	uint32_t i;
	int err = x && c && u && s ? 0 : -ENOMEM;

	f->mu = calloc(nf, sizeof(double));
	f->tz = calloc((size_t)nf * nf, sizeof(double));
	f->z = malloc(sizeof(float) * f->np * nf);
	if (!f->mu || !f->tz || !f->z)
		err = -ENOMEM;
	for (i = 0; i < f->np && !err; i++)
		for (n = 0; n < nf; n++)
			f->mu[n] += f->h[(size_t)i * f->k + f->feat[n]] / f->np;
	for (i = 0; i < f->np && !err; i += rows) {
		rows = f->np - i < OPTINC_ONN_CHUNK ? f->np - i : OPTINC_ONN_CHUNK;
		fin_centred(f, i, rows, x);
		cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, nf, rows,
			    1.0 / f->np, x, nf, 1.0, c, nf);
	}
	for (n = 0; n < nf && !err; n++)
		for (m = 0; m < n; m++)
			c[n * nf + m] = c[m * nf + n];
	if (!err)
		err = optinc_onn_svd(nf, nf, c, u, s, u + nf * nf);
	for (f->nz = 0; !err && f->nz < nf && s[f->nz] > 1e-14 * s[0]; f->nz++)
		for (n = 0; n < nf; n++)
			f->tz[(size_t)n * nf + f->nz] = u[n * nf + f->nz] / sqrt(s[f->nz]);
	/* tz was laid out nf x nf; pack it to nf x nz */
	for (n = 0; n < nf && !err; n++)
		memmove(f->tz + (size_t)n * f->nz, f->tz + (size_t)n * nf,
			sizeof(double) * f->nz);
	for (i = 0; i < f->np && !err; i += rows) {
		rows = f->np - i < OPTINC_ONN_CHUNK ? f->np - i : OPTINC_ONN_CHUNK;
		fin_centred(f, i, rows, x);
		for (n = 0; n < rows; n++)
			for (m = 0; m < f->nz; m++)
				f->z[(size_t)(i + n) * f->nz + m] = (float)cblas_ddot(
					nf, x + (size_t)n * nf, 1, f->tz + m, f->nz);
	}
	if (!err)
		printf("readout: %u units, %u directions whitened\n", nf, f->nz);
	free(x);
	free(c);
	free(u);
	free(s);
	return err;
}

static int fin_readout(struct fin *f)
{
	struct optinc_onn_layer *r = &f->m.layer[f->L + 1];
	uint8_t *start = malloc(2 * (size_t)f->np + 2 * f->k + 1);
	unsigned int s, o, d, w;
	int err = 0;
	double worst;
	uint32_t wrong;

	f->feat = malloc(sizeof(*f->feat) * f->k);
	if (!start || !f->feat) {
		free(start);
		return -ENOMEM;
	}
	/* dead units were 0 everywhere: their readout weights meant nothing */
	for (s = 0; s < r->out; s++)
		for (d = 0; d < f->ndead; d++)
			r->w[(size_t)s * f->k + f->dead[d]] = 0;
	for (o = 0, w = 0, f->nf = 0; o < f->k; o++) {
		while (w < f->ndead && f->dead[w] < o)
			w++;
		if (w == f->ndead || f->dead[w] != o || w < f->nwin)
			f->feat[f->nf++] = o;
	}
	err = fin_whiten(f);
	for (s = 0; s < r->out && !err; s++) {
		wrong = fin_out_now(f, s, &worst, start);
		if (!wrong) {
			printf("output %u: no point wrong, worst margin %+.4f: row kept\n",
			       s, worst);
			continue;
		}
		err = fin_readout_row(f, s, start);
		if (!err)
			printf("output %u: %u points wrong, worst margin %+.4f -> %+.4f, L1 norm %.4g (the widest row's %.4g; %d LP rounds)\n",
			       s, wrong, worst, f->margin, f->norm, f->l1max,
			       f->rounds);
	}
	free(start);
	return err;
}

/* ---- the command ---- */

static void fin_usage(FILE *o)
{
	fprintf(o,
		"usage: optinc-onn finish MODEL.onn -o OUT.onn --window LO-HI[,LO-HI..]|auto [options]\n"
		"  -o, --output FILE   the finished model\n"
		"  --window LO-HI,..   windows of S, in order: each gets a unit of the last\n"
		"                      hidden layer that is off at every point, on where\n"
		"                      LO <= S <= HI, off beyond the gaps (at most %u)\n"
		"  --window auto       the windows N/2 wide on each side of every step of an\n"
		"                      exact symbol next to a wrong point, the highest first\n"
		"  --gap G             points of S on each side of a window left free (1)\n"
		"  --bound A           bound on each coefficient of a window unit's row in\n"
		"                      the free span (100)\n", FIN_MAX_WIN);
}

static int fin_parse_windows(struct fin *f, const char *arg)
{
	const char *p = arg;
	char *end;
	unsigned long lo, hi;

	while (*p) {
		errno = 0;
		lo = strtoul(p, &end, 10);
		if (end == p || *end != '-' || errno)
			goto bad;
		p = end + 1;
		hi = strtoul(p, &end, 10);
		if (end == p || errno || hi < lo || hi > 1u << 20 ||
		    (*end && *end != ',') || f->nwin == FIN_MAX_WIN)
			goto bad;
		f->win[f->nwin][0] = (unsigned int)lo;
		f->win[f->nwin++][1] = (unsigned int)hi;
		p = *end ? end + 1 : end;
	}
	if (f->nwin)
		return 0;
bad:
	fprintf(stderr, "optinc-onn: finish: --window '%s': need LO-HI[,LO-HI..] with LO <= HI, at most %u windows\n",
		arg, FIN_MAX_WIN);
	return -EINVAL;
}

static int fin_parse(struct fin *f, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "window", required_argument, NULL, 'w' },
		{ "gap", required_argument, NULL, 'g' },
		{ "bound", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	f->gap = 1;
	f->bound = 100;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': f->out = optarg; break;
		case 'w':
			if (!strcmp(optarg, "auto") ? f->nwin || f->auto_win
						     : f->auto_win) {
				fprintf(stderr, "optinc-onn: finish: --window auto goes alone\n");
				return -EINVAL;
			}
			f->auto_win = !strcmp(optarg, "auto");
			if (!f->auto_win && fin_parse_windows(f, optarg))
				return -EINVAL;
			break;
		case 'g':
			errno = 0;
			f->gap = (unsigned int)strtoul(optarg, &end, 10);
			if (end == optarg || *end || errno || f->gap > 1024) {
				fprintf(stderr, "optinc-onn: finish: --gap '%s': need 0 to 1024\n", optarg);
				return -EINVAL;
			}
			break;
		case 'b':
			f->bound = strtod(optarg, &end);
			if (end == optarg || *end || !(f->bound > 0) || isinf(f->bound)) {
				fprintf(stderr, "optinc-onn: finish: --bound '%s': need a positive number\n", optarg);
				return -EINVAL;
			}
			break;
		case 'h': fin_usage(stdout); return 1;
		default: fin_usage(stderr); return -EINVAL;
		}
	}
	if (optind + 1 != argc || !f->out || !(f->nwin || f->auto_win)) {
		fin_usage(stderr);
		return -EINVAL;
	}
	f->in = argv[optind];
	return 0;
}

/* The written file, realised and evaluated: what the switch will get. */
static int fin_evaluate(const struct fin *f)
{
	struct optinc_onn_eval ev;
	struct optinc_onn m;
	uint8_t sha[32];
	char msg[512];
	int err = optinc_onn_load(f->out, &m, sha, msg, sizeof(msg));

	if (err) {
		fprintf(stderr, "optinc-onn: %s\n", msg);
		return err;
	}
	err = optinc_onn_evaluate(&m, 0, 0, 0, &ev);
	if (!err) {
		optinc_onn_eval_summary(f->out, &m, &ev);
		err = ev.wrong ? -EDOM : 0;
		optinc_onn_eval_free(&ev);
	}
	optinc_onn_free(&m);
	return err;
}

static void fin_free(struct fin *f)
{
	optinc_onn_free(&f->m);
	free(f->dead);
	free(f->u);
	free(f->g);
	free(f->h);
	free(f->S);
	free(f->exact);
	free(f->q);
	free(f->a);
	free(f->c);
	free(f->feat);
	free(f->mu);
	free(f->tz);
	free(f->z);
}

int optinc_onn_cmd_finish(int argc, char **argv)
{
	struct fin *f = calloc(1, sizeof(*f));
	char msg[512];
	uint8_t sha[32];
	int err;

	if (!f)
		return -ENOMEM;
	err = fin_parse(f, argc, argv);
	if (err) {
		free(f);
		return err > 0 ? 0 : err;
	}
	err = optinc_onn_load(f->in, &f->m, sha, msg, sizeof(msg));
	if (err)
		fprintf(stderr, "optinc-onn: %s\n", msg);
	if (!err)
		err = fin_check_model(f);
	if (!err)
		err = fin_blocks(f);
	if (!err)
		err = fin_points(f);
	if (!err)
		printf("%s: layer %u: %u of %u units off at every point\n", f->in,
		       f->L + 1, f->ndead, f->k);
	if (!err && f->auto_win) {
		err = fin_auto_windows(f);
		if (!err)
			fin_print_windows(f);
	}
	if (!err)
		err = fin_windows(f);
	if (!err)
		err = fin_apply(f);
	if (!err)
		err = fin_readout(f);
	if (!err) {
		err = optinc_onn_save(f->out, &f->m, msg, sizeof(msg));
		if (err)
			fprintf(stderr, "optinc-onn: %s\n", msg);
	}
	if (!err)
		err = fin_evaluate(f);
	if (err == -ENOMEM)
		fprintf(stderr, "optinc-onn: finish: out of memory\n");
	fin_free(f);
	free(f);
	return err;
}
