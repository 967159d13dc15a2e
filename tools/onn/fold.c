// SPDX-License-Identifier: BSD-3-Clause
/*
 * optinc-onn construct, the folded plan: a closed-form ONN for networks
 * too narrow for one hinge per transition (the paper's N = 4 widths, and
 * the cascade's second level with two more 64 x 64 layers).
 *
 * With M = smax / 255 values averaged, q = rhe(S / M), c = q >> 4 and
 * f = q & 15: S = 16 M c + r gives q = 16 c + rhe(r / M), since adding the
 * even 16 c keeps ties where they were. So f is one staircase of the fold
 * r = S - 16 M c(S) (15 steps, r within one 16 M wide bin), and c one of S
 * (15 steps). The layers (0-based):
 *  0 (dense): the input digits, and two copies of the coarse hinges
 *     ReLU(S - a), ReLU(S - a - 1);
 *  1: the coarse ramps (both copies), the digits passed on;
 *  2: the fold r' = S - 16 M sum(ramps of copy 1) + off >= 0, S from the
 *     digits, and copy 2 passed on (disjoint rows, hence orthogonal);
 *  3: the fine hinges, all from the one r' through Hadamard rows (their
 *     first column is all +1 and the other inputs of those rows are 0);
 *     copy 2 passed on;
 *  4: the fine ramps; copy 2 passed on;
 *  5 .. L: readout, pass, decode as in construct.c, with symbols 0-1 from
 *     the fine ramps and 2-3 from the coarse ones.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <optinc/core.h>

#include "construct.h"

#define FOLD_STEPS	16	/* f = q & 15, c = q >> 4 */

static unsigned int fold_q(const struct con *c, unsigned int s)
{
	return optinc_avg_rhe(s, c->smax / 255);
}

static unsigned int fold_r(const struct con *c, unsigned int s)
{
	return s - c->span * (fold_q(c, s) / FOLD_STEPS) + c->off;
}

/* Entries of the table of f by r: r <= S + off, off < span. */
static unsigned int fold_rlen(const struct con *c)
{
	return c->smax + c->span + 1;
}

/* The fold's offset and range; 0, or -EDOM when f is not a function of r. */
static int fold_range(struct con *c, int *fr)
{
	unsigned int s, r;
	int lo = 0;

	for (s = 0; s <= c->smax; s++) {
		int v = (int)s - (int)(c->span * (fold_q(c, s) / FOLD_STEPS));

		lo = v < lo ? v : lo;
	}
	c->off = (unsigned int)-lo;
	c->rmax = 0;
	for (s = 0; s <= c->smax; s++) {
		r = fold_r(c, s);
		if (r >= fold_rlen(c))
			return -EDOM;
		if (fr[r] >= 0 && fr[r] != (int)(fold_q(c, s) % FOLD_STEPS))
			return -EDOM;
		fr[r] = fold_q(c, s) % FOLD_STEPS;
		c->rmax = r > c->rmax ? r : c->rmax;
	}
	return 0;
}

/* Coarse steps in S, fine steps in r (between consecutive defined r). */
static int fold_steps(struct con *c)
{
	int *fr = malloc(sizeof(int) * fold_rlen(c));
	unsigned int s, r, prev = 0;
	int err;

	c->ac = calloc(c->smax + 1, sizeof(*c->ac));
	c->af = calloc(fold_rlen(c), sizeof(*c->af));
	c->ff = calloc(fold_rlen(c), sizeof(*c->ff));
	if (!fr || !c->ac || !c->af || !c->ff) {
		free(fr);
		return -ENOMEM;
	}
	for (r = 0; r < fold_rlen(c); r++)
		fr[r] = -1;
	err = fold_range(c, fr);
	for (s = 0, c->tc = 0; !err && s < c->smax; s++)
		if (fold_q(c, s) / FOLD_STEPS != fold_q(c, s + 1) / FOLD_STEPS)
			c->ac[c->tc++] = s;
	for (r = 0, c->tf = 0; !err && r <= c->rmax; r++) {
		if (fr[r] < 0)
			continue;
		if (r && fr[r] != fr[prev]) {
			c->ff[c->tf] = fr[prev];
			c->af[c->tf++] = prev;
		}
		prev = r;
	}
	c->ff[c->tf] = fr[prev];
	free(fr);
	return err;
}

/* The readout's functionals: symbols 0-1 on the fine ramps, 2-3 on the coarse. */
static int fold_fn(struct con *c)
{
	unsigned int in = c->size[c->h + 2], t, j, k, cb, ca;

	c->fn = calloc((size_t)in * CON_SYMS, sizeof(double));
	if (!c->fn)
		return -ENOMEM;
	for (t = 0; t < c->tf; t++)
		for (k = 0; k < 2; k++)
			c->fn[(size_t)t * CON_SYMS + k] =
				(double)con_sym(c->ff[t + 1], k) -
				(double)con_sym(c->ff[t], k);
	for (j = 0; j < c->tc; j++) {
		cb = fold_q(c, c->ac[j]) / FOLD_STEPS * FOLD_STEPS;
		ca = fold_q(c, c->ac[j] + 1) / FOLD_STEPS * FOLD_STEPS;
		for (k = 2; k < CON_SYMS; k++)
			c->fn[(size_t)(c->hk + j) * CON_SYMS + k] =
				(double)con_sym(ca, k) - (double)con_sym(cb, k);
	}
	return 0;
}

/**
 * con_fold_plan() - the folded plan, if the network has room for it
 * @why: set to what does not fit
 *
 * Return: 0, or a negative errno (-EINVAL with @why set).
 */
int con_fold_plan(struct con *c, const char **why)
{
	unsigned int need, l;
	int err;

	*why = "no layer is wide enough for one hinge per transition (in >= T, out >= in + T), and the folded plan needs a dense first layer and at least 7 layers";
	if (c->nl < 7 || c->approx[0])
		return -EINVAL;
	c->span = FOLD_STEPS * (c->smax / 255);
	err = fold_steps(c);
	if (err == -EDOM)
		*why = "the fine symbols are not a function of the fold (internal)";
	if (err)
		return err == -EDOM ? -EINVAL : err;
	for (c->hk = 1; c->hk < 2 * c->tf; c->hk *= 2)
		;
	need = c->hk + c->tc;
	*why = "too narrow for the folded plan: layer 1 needs 4 x coarse steps + 1 outputs, layer 2 2 x coarse steps + 1, layers 3 to 5 the fine hinges' Hadamard size + coarse steps";
	if (c->size[1] < 1 + 4 * c->tc || c->size[2] < 1 + 2 * c->tc)
		return -EINVAL;
	c->ndig = c->size[1] - 4 * c->tc;
	if (c->ndig > c->size[0])
		c->ndig = c->size[0];
	for (l = 3; l <= 5; l++)
		if (c->size[l] < need)
			return -EINVAL;
	c->fold = 1;
	c->h = 3;
	return fold_fn(c);
}

/*
 * The fold row reads the input digits, not S: a mesh row's error grows
 * with the size of what it reads, and the digits are at most 3N where S is
 * up to 255N (with S, the realised r' was off by up to 0.4 at N = 16).
 * Layer 0 passes them in ndig groups: the lowest digits together (their
 * weights 4^k in the group's row), each of the others alone.
 */
static unsigned int fold_first(const struct con *c)
{
	return c->size[0] - c->ndig;
}

/* Weight of digit @k in group row @g of layer 0, and the group's weight in r'. */
static double fold_digit_w(const struct con *c, unsigned int g, unsigned int k)
{
	if (g == 0)
		return k <= fold_first(c) ? (double)(1u << (2 * k)) : 0.0;
	return k == fold_first(c) + g ? 1.0 : 0.0;
}

static double fold_group_w(const struct con *c, unsigned int g)
{
	return g == 0 ? 1.0 : (double)(1u << (2 * (fold_first(c) + g)));
}

/* Layer 0: the digit groups, and the coarse hinges on S twice. */
static void fold_hinges_c(const struct con *c, double *w, double *b)
{
	unsigned int in = c->size[0], g, i, k, j, cp, h;

	for (g = 0; g < c->ndig; g++)
		for (k = 0; k < in; k++)
			w[(size_t)g * in + k] = fold_digit_w(c, g, k);
	for (i = 0; i < 4 * c->tc; i++)
		for (k = 0; k < in; k++)
			w[(size_t)(c->ndig + i) * in + k] = (double)(1u << (2 * k));
	for (cp = 0; cp < 2; cp++)
		for (j = 0; j < c->tc; j++) {
			h = c->ndig + 2 * (cp * c->tc + j);
			b[h] = -(double)c->ac[j];
			b[h + 1] = -(double)c->ac[j] - 1.0;
		}
}

/* Layer 1: the digit groups on, the coarse ramps of both copies. */
static void fold_ramps_c(const struct con *c, double *w)
{
	unsigned int in = c->size[1], g, i, r;

	for (g = 0; g < c->ndig; g++)
		w[(size_t)g * in + g] = 1.0;
	for (i = 0; i < 2 * c->tc; i++) {
		r = c->ndig + i;
		w[(size_t)r * in + c->ndig + 2 * i] = 1.0;
		w[(size_t)r * in + c->ndig + 2 * i + 1] = -1.0;
	}
}

/* Layer 2: the fold r' from the digits and copy 1; copy 2 to hk.. */
static void fold_fold(const struct con *c, double *w, double *b)
{
	unsigned int in = c->size[2], g, j;

	for (g = 0; g < c->ndig; g++)
		w[g] = fold_group_w(c, g);
	b[0] = c->off;
	for (j = 0; j < c->tc; j++) {
		w[c->ndig + j] = -(double)c->span;
		w[(size_t)(c->hk + j) * in + c->ndig + c->tc + j] = 1.0;
	}
}

/* Hadamard (Sylvester) sign of row @i, column @x. */
static double fold_hadamard(unsigned int i, unsigned int x)
{
	return __builtin_popcount(i & x) & 1 ? -1.0 : 1.0;
}

/*
 * Layer 3: the fine hinges from r' (input 0; inputs 1..hk-1 are 0). r'
 * comes out of a mesh row that is mostly the coarse ramps' -16 M, so its S
 * part carries an error of up to a few tenths (float phases); a ramp from
 * a + 0.45 to a + 0.55 is still exactly 0 at a and 1 at a + 1 for errors
 * below 0.45, where one from a to a + 1 would pass the error on.
 */
#define FOLD_RAMP_LO	0.45
#define FOLD_RAMP_W	0.1

static void fold_hinges_f(const struct con *c, double *w, double *b)
{
	unsigned int in = c->size[3], i, x, j;

	for (i = 0; i < 2 * c->tf; i++) {
		for (x = 0; x < c->hk; x++)
			w[(size_t)i * in + x] = fold_hadamard(i, x) / FOLD_RAMP_W;
		b[i] = -((double)c->af[i / 2] + FOLD_RAMP_LO +
			 (i & 1) * FOLD_RAMP_W) / FOLD_RAMP_W;
	}
	for (j = 0; j < c->tc; j++)
		w[(size_t)(c->hk + j) * in + c->hk + j] = 1.0;
}

/* Layer 4: the fine ramps; the coarse ones passed on. */
static void fold_ramps_f(const struct con *c, double *w)
{
	unsigned int in = c->size[4], t, j;

	for (t = 0; t < c->tf; t++) {
		w[(size_t)t * in + 2 * t] = 1.0;
		w[(size_t)t * in + 2 * t + 1] = -1.0;
	}
	for (j = 0; j < c->tc; j++)
		w[(size_t)(c->hk + j) * in + c->hk + j] = 1.0;
}

/* Desired weights and biases of layers 0 .. 4 of the folded plan. */
void con_fold_layer(const struct con *c, unsigned int l, double *w, double *b)
{
	switch (l) {
	case 0: fold_hinges_c(c, w, b); break;
	case 1: fold_ramps_c(c, w); break;
	case 2: fold_fold(c, w, b); break;
	case 3: fold_hinges_f(c, w, b); break;
	default: fold_ramps_f(c, w); break;
	}
}

/* The readout's inputs at S = @s: fine ramps of the fold, coarse ones of S. */
void con_fold_inputs_at(const struct con *c, unsigned int s, double *v)
{
	unsigned int r = fold_r(c, s), t, j;

	for (t = 0; t < c->tf; t++)
		v[t] = c->af[t] < r;
	for (j = 0; j < c->tc; j++)
		v[c->hk + j] = c->ac[j] < s;
}

void con_fold_free(struct con *c)
{
	free(c->ac);
	free(c->af);
	free(c->ff);
}
