// SPDX-License-Identifier: BSD-3-Clause
/*
 * Clements meshes: a k x k unitary as k(k-1)/2 MZIs on neighbouring modes
 * plus k output phases, and back (Clements et al., Optica 3, 1460, 2016).
 *
 * An MZI on modes (p, p+1) with phases (theta, phi) acts on rows p, p+1 as
 *   T = [ e^{i phi} cos theta   -sin theta ]
 *       [ e^{i phi} sin theta    cos theta ]
 * The mesh applies its MZIs in the order of optinc_onn_mesh_modes(), then
 * the output phases: U = diag(e^{i alpha}) T_last ... T_first.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onn.h"

/* One step of the nulling order. */
struct mesh_step {
	unsigned int right;	/* 1: T^-1 on columns (c, c+1), else T on rows */
	unsigned int p;		/* first mode of the MZI */
	unsigned int row, col;	/* element nulled */
};

static unsigned int mesh_steps(unsigned int n, struct mesh_step *st)
{
	unsigned int i, j, m = 0;

	for (i = 0; i + 1 < n; i++) {
		for (j = 0; j <= i; j++, m++) {
			if (i % 2 == 0) {
				st[m].right = 1;
				st[m].p = i - j;
				st[m].row = n - 1 - j;
				st[m].col = i - j;
			} else {
				st[m].right = 0;
				st[m].p = n - 2 - i + j;
				st[m].row = n - 1 - i + j;
				st[m].col = j;
			}
		}
	}
	return m;
}

/*
 * Mesh order: the right-nulling MZIs in the order they were found, then
 * the left-nulling ones in reverse (they are pushed through the diagonal).
 */
static void mesh_order(unsigned int n, const struct mesh_step *st,
		       unsigned int *order)
{
	unsigned int m = optinc_onn_mzis(n), i, o = 0;

	for (i = 0; i < m; i++)
		if (st[i].right)
			order[o++] = i;
	for (i = m; i-- > 0;)
		if (!st[i].right)
			order[o++] = i;
}

/**
 * optinc_onn_mesh_modes() - the first mode p of each MZI, in mesh order
 *
 * Return: 0 or -ENOMEM.
 */
int optinc_onn_mesh_modes(unsigned int n, uint16_t *modes)
{
	unsigned int m = optinc_onn_mzis(n), i;
	struct mesh_step *st = malloc(sizeof(*st) * (m ? m : 1));
	unsigned int *order = malloc(sizeof(*order) * (m ? m : 1));
	int err = -ENOMEM;

	if (st && order) {
		mesh_steps(n, st);
		mesh_order(n, st, order);
		for (i = 0; i < m; i++)
			modes[i] = st[order[i]].p;
		err = 0;
	}
	free(st);
	free(order);
	return err;
}

static double mesh_wrap(double a)
{
	a = remainder(a, 2 * M_PI);
	return a <= -M_PI ? a + 2 * M_PI : a;
}

static void mesh_null_right(unsigned int n, double complex *w,
			    const struct mesh_step *s, double *th, double *ph)
{
	double complex a = w[s->row * n + s->col], b = w[s->row * n + s->col + 1];
	double complex e;
	double c, sn;
	unsigned int r;

	*th = atan2(cabs(a), cabs(b));
	*ph = mesh_wrap(carg(a) - carg(b));
	e = cexp(-I * *ph);
	c = cos(*th);
	sn = sin(*th);
	for (r = 0; r < n; r++) {
		double complex x = w[r * n + s->p], y = w[r * n + s->p + 1];

		w[r * n + s->p] = x * e * c - y * sn;
		w[r * n + s->p + 1] = x * e * sn + y * c;
	}
	w[s->row * n + s->col] = 0;
}

static void mesh_rotate_rows(unsigned int n, double complex *w, unsigned int p,
			     double th, double ph)
{
	double complex e = cexp(I * ph);
	double c = cos(th), sn = sin(th);
	unsigned int col;

	for (col = 0; col < n; col++) {
		double complex x = w[p * n + col], y = w[(p + 1) * n + col];

		w[p * n + col] = e * c * x - sn * y;
		w[(p + 1) * n + col] = e * sn * x + c * y;
	}
}

static void mesh_null_left(unsigned int n, double complex *w,
			   const struct mesh_step *s, double *th, double *ph)
{
	double complex a = w[s->p * n + s->col], b = w[(s->p + 1) * n + s->col];

	*th = atan2(cabs(b), cabs(a));
	*ph = mesh_wrap(M_PI + carg(b) - carg(a));
	mesh_rotate_rows(n, w, s->p, *th, *ph);
	w[(s->p + 1) * n + s->col] = 0;
}

/*
 * A left MZI T^dagger(theta, phi) in front of the diagonal D becomes
 * D' T(theta, phi') with D' changed on modes p, p+1 only:
 * phi' = pi + arg d_p - arg d_p+1, d'_p = -e^{-i phi} d_p+1, d'_p+1 = d_p+1.
 */
static void mesh_push_left(double complex *d, unsigned int p, double *ph)
{
	double complex d1 = d[p], d2 = d[p + 1];

	d[p] = -cexp(-I * *ph) * d2;
	*ph = mesh_wrap(M_PI + carg(d1) - carg(d2));
}

/**
 * optinc_onn_mesh_decompose() - Clements decomposition of a unitary
 * @n:     modes
 * @u:     n x n unitary, row major
 * @theta: n(n-1)/2 MZI angles, in the order of optinc_onn_mesh_modes()
 * @phi:   n(n-1)/2 MZI phases, same order
 * @alpha: n output phases
 *
 * A real orthogonal @u gives a mesh that is real to rounding, but phi and
 * alpha are in {0, pi} only where no element the nulling meets has a zero
 * real part: at exact zeros a rounding residue decides the phase and the
 * later MZIs compensate (Documentation/onn.md, "Real matrices").
 *
 * Return: 0 or -ENOMEM.
 */
int optinc_onn_mesh_decompose(unsigned int n, const double complex *u,
			      double *theta, double *phi, double *alpha)
{
	unsigned int m = optinc_onn_mzis(n), i;
	double complex *w = malloc(sizeof(*w) * n * n);
	double complex *d = malloc(sizeof(*d) * n);
	struct mesh_step *st = malloc(sizeof(*st) * (m ? m : 1));
	unsigned int *order = malloc(sizeof(*order) * (m ? m : 1));
	double *th = malloc(sizeof(double) * 2 * (m ? m : 1)), *ph = th + m;
	int err = -ENOMEM;

	if (!w || !d || !st || !order || !th)
		goto out_free;
	memcpy(w, u, sizeof(*w) * n * n);
	mesh_steps(n, st);
	for (i = 0; i < m; i++) {
		if (st[i].right)
			mesh_null_right(n, w, &st[i], &th[i], &ph[i]);
		else
			mesh_null_left(n, w, &st[i], &th[i], &ph[i]);
	}
	for (i = 0; i < n; i++)
		d[i] = w[i * n + i] / cabs(w[i * n + i]);
	for (i = m; i-- > 0;)
		if (!st[i].right)
			mesh_push_left(d, st[i].p, &ph[i]);
	mesh_order(n, st, order);
	for (i = 0; i < m; i++) {
		theta[i] = th[order[i]];
		phi[i] = ph[order[i]];
	}
	for (i = 0; i < n; i++)
		alpha[i] = carg(d[i]);
	err = 0;
out_free:
	free(w);
	free(d);
	free(st);
	free(order);
	free(th);
	return err;
}

/**
 * optinc_onn_mesh_build() - the n x n unitary of a mesh, row major
 *
 * Return: 0 or -ENOMEM.
 */
int optinc_onn_mesh_build(unsigned int n, const double *theta,
			  const double *phi, const double *alpha,
			  double complex *u)
{
	unsigned int m = optinc_onn_mzis(n), i, col;
	uint16_t *modes = malloc(sizeof(*modes) * (m ? m : 1));

	if (!modes || optinc_onn_mesh_modes(n, modes)) {
		free(modes);
		return -ENOMEM;
	}
	memset(u, 0, sizeof(*u) * n * n);
	for (i = 0; i < n; i++)
		u[i * n + i] = 1;
	for (i = 0; i < m; i++)
		mesh_rotate_rows(n, u, modes[i], theta[i], phi[i]);
	for (i = 0; i < n; i++) {
		double complex e = cexp(I * alpha[i]);

		for (col = 0; col < n; col++)
			u[i * n + col] *= e;
	}
	free(modes);
	return 0;
}
