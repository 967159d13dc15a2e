// SPDX-License-Identifier: BSD-3-Clause
/*
 * Realisation of a model file into the real matrices the optics compute:
 * blocks are rebuilt from their MZI phases and attenuations. With phase
 * noise (fabrication error, N(0, noise^2) radians added to every theta,
 * phi and output phase), a mesh becomes complex; the layer then computes
 * the real part of its complex transfer matrix (coherent detection).
 * Dense layers are realised as SVD meshes U Sigma V^T in the noise case.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>

#include "onn.h"

static double realise_jitter(double noise, struct optinc_onn_rng *rng)
{
	return noise > 0 ? noise * optinc_onn_rng_gauss(rng) : 0.0;
}

/**
 * optinc_onn_mesh_realise() - a mesh as a chip with phase error builds it
 * @ph:    k(k-1)/2 (theta, phi) pairs, then n output phases (a file's order)
 * @noise: sigma of the N(0, sigma^2) radians added to each phase, drawn
 *         from @rng in that order (0: none, @rng unused)
 * @u:     the n x n unitary built
 *
 * Return: 0 or -ENOMEM.
 */
int optinc_onn_mesh_realise(unsigned int n, const double *ph, double noise,
			    struct optinc_onn_rng *rng, double complex *u)
{
	unsigned int m = optinc_onn_mzis(n), i;
	double *th = malloc(sizeof(double) * n * n), *fi = th + m;
	double *al = fi + m;
	int err;

	if (!th)
		return -ENOMEM;
	for (i = 0; i < m; i++) {
		th[i] = ph[2 * i] + realise_jitter(noise, rng);
		fi[i] = ph[2 * i + 1] + realise_jitter(noise, rng);
	}
	for (i = 0; i < n; i++)
		al[i] = ph[2 * m + i] + realise_jitter(noise, rng);
	err = optinc_onn_mesh_build(n, th, fi, al, u);
	free(th);
	return err;
}

/**
 * optinc_onn_block_phases() - a unitary into the phases a model file holds
 * @ph: n * n values: k(k-1)/2 (theta, phi) pairs, then n output phases
 *
 * Return: 0 or -ENOMEM.
 */
int optinc_onn_block_phases(unsigned int n, const double complex *u, double *ph)
{
	unsigned int m = optinc_onn_mzis(n), i;
	double *th = malloc(sizeof(double) * n * n), *fi = th + m;
	int err;

	if (!th)
		return -ENOMEM;
	err = optinc_onn_mesh_decompose(n, u, th, fi, ph + 2 * m);
	for (i = 0; i < m && !err; i++) {
		ph[2 * i] = th[i];
		ph[2 * i + 1] = fi[i];
	}
	free(th);
	return err;
}

static int realise_blocks(const struct optinc_onn_layer *l, double *w,
			  double noise, struct optinc_onn_rng *rng)
{
	unsigned int k = l->k, kk = k * k, j, r, c;
	double complex *u = malloc(sizeof(*u) * kk);
	double *ph = malloc(sizeof(double) * kk);
	int err = u && ph ? 0 : -ENOMEM;

	for (j = 0; j < l->nblocks && !err; j++) {
		unsigned int r0 = l->out >= l->in ? j * k : 0;
		unsigned int c0 = l->out >= l->in ? 0 : j * k;

		for (r = 0; r < kk; r++)
			ph[r] = l->phase[(size_t)j * kk + r];
		err = optinc_onn_mesh_realise(k, ph, noise, rng, u);
		for (r = 0; r < k && !err; r++)
			for (c = 0; c < k; c++)
				w[(size_t)(r0 + r) * l->in + c0 + c] =
					l->sigma[j * k + r] * creal(u[r * k + c]);
	}
	free(u);
	free(ph);
	return err;
}

/* A square real orthogonal matrix through a perturbed mesh. */
static int realise_noisy_orth(unsigned int n, const double *q, double noise,
			      struct optinc_onn_rng *rng, double complex *out)
{
	double complex *z = malloc(sizeof(*z) * n * n);
	double *ph = malloc(sizeof(double) * n * n);
	unsigned int i;
	int err = z && ph ? 0 : -ENOMEM;

	for (i = 0; i < n * n && !err; i++)
		z[i] = q[i];
	if (!err)
		err = optinc_onn_block_phases(n, z, ph);
	if (!err)
		err = optinc_onn_mesh_realise(n, ph, noise, rng, out);
	free(z);
	free(ph);
	return err;
}

/**
 * optinc_onn_dense_noisy() - a dense m x n matrix as its SVD meshes with
 * phase noise realise it (Documentation/onn.md, section 2)
 * @wf:    the matrix, row major (float, as a model file stores it)
 * @w:     the realised matrix, row major
 *
 * Return: 0 or a negative errno.
 */
int optinc_onn_dense_noisy(unsigned int m, unsigned int n, const float *wf,
			   double noise, struct optinc_onn_rng *rng, double *w)
{
	unsigned int r = m < n ? m : n, i, j;
	double *a = malloc(sizeof(double) * (m * n + m * m + n * n + r));
	double *pu = a + m * n, *vt = pu + m * m, *s = vt + n * n;
	double complex *zu = malloc(sizeof(*zu) * (m * m + n * n + m * n));
	double complex *zv = zu + m * m, *zw = zv + n * n;
	const double complex one = 1, zero = 0;
	int err = a && zu ? 0 : -ENOMEM;

	for (i = 0; i < m * n && !err; i++)
		a[i] = wf[i];
	if (!err)
		err = optinc_onn_svd(m, n, a, pu, s, vt);
	if (!err)
		err = realise_noisy_orth(m, pu, noise, rng, zu);
	if (!err)
		err = realise_noisy_orth(n, vt, noise, rng, zv);
	if (!err) {
		/* scale the first r columns of U by Sigma, drop the rest */
		for (i = 0; i < m; i++)
			for (j = 0; j < m; j++)
				zu[i * m + j] *= j < r ? s[j] : 0.0;
		cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, r,
			    &one, zu, m, zv, n, &zero, zw, n);
		for (i = 0; i < m * n; i++)
			w[i] = creal(zw[i]);
	}
	free(a);
	free(zu);
	return err;
}

/**
 * optinc_onn_realise() - the real out x in matrix layer @l computes
 * @w:     out x in, row major
 * @noise: phase noise sigma in radians (0: none)
 * @rng:   source of the noise (unused when @noise is 0)
 *
 * Return: 0 or a negative errno.
 */
int optinc_onn_realise(const struct optinc_onn *m, unsigned int l,
		       double *w, double noise, struct optinc_onn_rng *rng)
{
	const struct optinc_onn_layer *ly = &m->layer[l];
	size_t i;

	if (ly->form == OPTINC_ONN_BLOCKS)
		return realise_blocks(ly, w, noise, rng);
	if (noise > 0)
		return optinc_onn_dense_noisy(ly->out, ly->in, ly->w, noise, rng,
					      w);
	for (i = 0; i < (size_t)ly->in * ly->out; i++)
		w[i] = ly->w[i];
	return 0;
}
