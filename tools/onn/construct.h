/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * optinc-onn construct: the closed-form ONN's plans (construct.c: one
 * hinge per transition; fold.c: coarse and fine steps) and what they share.
 */
#ifndef OPTINC_ONN_CONSTRUCT_H
#define OPTINC_ONN_CONSTRUCT_H

#include "onn.h"

#define CON_SYMS	4	/* B = 8: four PAM4 symbols */
#define CON_MAX_SIG	(CON_SYMS * 16)

struct con {
	const char *arch, *approx_spec;	/* as given, for messages */
	unsigned int members, nl, size[OPTINC_ONN_MAX_LAYERS + 1];
	unsigned int fanin;		/* cascade second level: N1; 0: one level */
	int approx[OPTINC_ONN_MAX_LAYERS];
	unsigned int smax, pairs;	/* S in [0, smax]; transitions */
	unsigned int *a;		/* pairs transition points */
	int *dsym;			/* pairs x 4: change of each symbol */
	double *fn;			/* readout inputs x 4: the functionals */
	double t0[CON_SYMS];		/* decoder constants */
	unsigned int h;			/* (fine) hinge layer, 0-based */
	unsigned int nsig;		/* readout signals */
	double r[CON_MAX_SIG][CON_SYMS]; /* D restricted = Q^T R, per signal */
	double beta[CON_MAX_SIG];	/* readout biases */
	/* the folded plan (fold.c) */
	int fold;
	unsigned int tc, tf;		/* coarse and fine transitions */
	unsigned int *ac, *af;		/* their points: in S, in r */
	int *ff;			/* f before each fine step, and last */
	unsigned int span, off, rmax;	/* r = S - span * coarse + off */
	unsigned int hk;		/* Hadamard size for the fine hinges */
	unsigned int ndig;		/* digit groups layer 0 passes on */
};

static inline unsigned int con_sym(unsigned int q, unsigned int k)
{
	return (q >> (2 * k)) & 3;
}

int con_fold_plan(struct con *c, const char **why);
void con_fold_layer(const struct con *c, unsigned int l, double *w, double *b);
void con_fold_inputs_at(const struct con *c, unsigned int s, double *v);
void con_fold_free(struct con *c);

#endif /* OPTINC_ONN_CONSTRUCT_H */
