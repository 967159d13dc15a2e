// SPDX-License-Identifier: BSD-3-Clause
/*
 * Max-min linear programs over a whole domain, by cutting planes on GLPK's
 * simplex: maximise t subject to row_r . v - alpha_r t >= rhs_r for every
 * constraint r. A domain has up to millions of constraints and few
 * variables, and only a few hundred constraints bind; so the program is
 * solved on a working set, every constraint is then checked against the
 * solution, the most violated join the set, and the dual simplex starts
 * again from the last basis, until none is violated.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glpk.h>

#include "onn.h"

/* constraints added per round, most violated first */
#define LP_ADD		2000
#define LP_ROUNDS	200
struct lp_viol {
	double slack;
	uint32_t r;
};

static int lp_viol_cmp(const void *a, const void *b)
{
	const struct lp_viol *x = a, *y = b;

	return x->slack < y->slack ? -1 : x->slack > y->slack;
}

/* Constraint @r as GLPK's row: 1-based indices, t last. */
static void lp_add_row(glp_prob *lp, const struct optinc_onn_lp *p,
		       uint32_t r, uint8_t *in, double *row, int *ind,
		       double *val)
{
	double alpha, rhs;
	unsigned int i, n = 0;
	int at;

	if (!p->cons(p->ctx, r, row, &alpha, &rhs))
		return;
	in[r] = 1;
	for (i = 0; i < p->nv; i++)
		if (row[i] != 0) {
			ind[++n] = (int)i + 1;
			val[n] = row[i];
		}
	if (alpha != 0) {
		ind[++n] = (int)p->nv + 1;
		val[n] = -alpha;
	}
	at = glp_add_rows(lp, 1);
	glp_set_row_bnds(lp, at, GLP_LO, rhs, 0.0);
	glp_set_mat_row(lp, at, (int)n, ind, val);
}

/* Whether constraints @a and @b (rows and t's coefficient) are the same. */
static int lp_same(const struct optinc_onn_lp *p, uint32_t a, uint32_t b,
		   double *ra, double *rb)
{
	double aa, ab, ha, hb;
	unsigned int i;

	p->cons(p->ctx, a, ra, &aa, &ha);
	p->cons(p->ctx, b, rb, &ab, &hb);
	if (fabs(aa - ab) > 1e-12 || fabs(ha - hb) > 1e-7)
		return 0;
	for (i = 0; i < p->nv; i++)
		if (fabs(ra[i] - rb[i]) > 1e-7 * (1 + fabs(ra[i])))
			return 0;
	return 1;
}

/*
 * The LP_ADD most violated constraints (@viol sorted) into the program,
 * each once: points that differ only where the network does not look
 * (other inputs with the same S) give the same constraint, violated by as
 * much, and two equal rows in a basis make it singular.
 */
static void lp_add_worst(glp_prob *lp, const struct optinc_onn_lp *p,
			 const struct lp_viol *viol, uint32_t nv, uint8_t *in,
			 double *row, int *ind, double *val)
{
	double *prev = row + p->nv + 2;
	uint32_t r, added = 0, last = 0;

	for (r = 0; r < nv && added < LP_ADD; r++) {
		if (added && viol[r].slack - viol[last].slack < 1e-9 &&
		    lp_same(p, viol[last].r, viol[r].r, prev, row))
			continue;
		lp_add_row(lp, p, viol[r].r, in, row, ind, val);
		last = r;
		added++;
	}
}

/*
 * Every constraint's slack at (v, t); the violated ones not in the
 * program yet (@in) into @viol. One in it and still violated is the
 * simplex's own tolerance at work: adding it again would only make a
 * basis singular. Return: how many.
 */
static uint32_t lp_check(const struct optinc_onn_lp *p, const double *v,
			 double t, const uint8_t *in, double *row,
			 struct lp_viol *viol)
{
	uint32_t r, nv = 0;
	double alpha, rhs, s;
	unsigned int i;

	for (r = 0; r < p->ncons; r++) {
		if (in[r] || !p->cons(p->ctx, r, row, &alpha, &rhs))
			continue;
		s = -alpha * t - rhs;
		for (i = 0; i < p->nv; i++)
			s += row[i] * v[i];
		if (s < -p->tol) {
			viol[nv].slack = s;
			viol[nv++].r = r;
		}
	}
	return nv;
}

/*
 * One simplex solve: the dual simplex from the last basis (rows were
 * added), or, when that fails on an ill-conditioned basis (the units of a
 * layer are nearly collinear over much of a domain), the primal simplex
 * from a fresh one.
 */
static int lp_simplex(glp_prob *lp, glp_smcp *parm)
{
	glp_scale_prob(lp, GLP_SF_AUTO);
	parm->meth = GLP_DUALP;
	if (!glp_simplex(lp, parm) && glp_get_status(lp) == GLP_OPT)
		return 0;
	glp_adv_basis(lp, 0);
	parm->meth = GLP_PRIMAL;
	if (!glp_simplex(lp, parm) && glp_get_status(lp) == GLP_OPT)
		return 0;
	return -EIO;
}

static glp_prob *lp_create(const struct optinc_onn_lp *p)
{
	glp_prob *lp = glp_create_prob();
	unsigned int i;

	glp_set_obj_dir(lp, GLP_MAX);
	glp_add_cols(lp, (int)p->nv + 1);
	for (i = 0; i < p->nv; i++)
		glp_set_col_bnds(lp, (int)i + 1, GLP_DB, -p->bound[i],
				 p->bound[i]);
	glp_set_col_bnds(lp, (int)p->nv + 1, GLP_UP, 0.0, p->tmax);
	glp_set_obj_coef(lp, (int)p->nv + 1, 1.0);
	return lp;
}

/**
 * optinc_onn_lp_solve() - maximise t over every constraint of @p
 * @p:     the program
 * @start: constraints to start from (p->ncons flags)
 * @v:     the solution's variables (p->nv)
 * @t:     its objective, the worst slack
 *
 * Return: cutting-plane rounds taken, -ENOMEM, -EIO when the simplex
 * fails, or -ERANGE when LP_ROUNDS rounds leave constraints violated.
 */
int optinc_onn_lp_solve(const struct optinc_onn_lp *p, const uint8_t *start,
			double *v, double *t)
{
	double *row = malloc(sizeof(double) * 2 * (p->nv + 2));
	double *val = malloc(sizeof(double) * (p->nv + 2));
	int *ind = malloc(sizeof(int) * (p->nv + 2));
	struct lp_viol *viol = malloc(sizeof(*viol) * p->ncons);
	uint8_t *in = calloc(p->ncons, 1);
	glp_prob *lp = NULL;
	int ret = -ENOMEM, round;
	uint32_t r, nv;
	unsigned int i;
	glp_smcp parm;

	if (!row || !val || !ind || !viol || !in)
		goto out;
	glp_term_out(GLP_OFF);
	lp = lp_create(p);
	for (r = 0; r < p->ncons; r++)
		if (start[r])
			lp_add_row(lp, p, r, in, row, ind, val);
	glp_init_smcp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	for (round = 1; round <= LP_ROUNDS; round++) {
		ret = lp_simplex(lp, &parm);
		if (ret)
			goto out;
		for (i = 0; i < p->nv; i++)
			v[i] = glp_get_col_prim(lp, (int)i + 1);
		*t = glp_get_col_prim(lp, (int)p->nv + 1);
		nv = lp_check(p, v, *t, in, row, viol);
		if (!nv) {
			ret = round;
			goto out;
		}
		qsort(viol, nv, sizeof(*viol), lp_viol_cmp);
		lp_add_worst(lp, p, viol, nv, in, row, ind, val);
	}
	ret = -ERANGE;
out:
	if (lp)
		glp_delete_prob(lp);
	glp_term_out(GLP_ON);
	free(row);
	free(val);
	free(ind);
	free(viol);
	free(in);
	return ret;
}
