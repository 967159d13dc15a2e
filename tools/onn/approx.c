// SPDX-License-Identifier: BSD-3-Clause
/*
 * The paper's cheap realisation of a weight matrix: partition it into k x k
 * blocks (k = min(m, n), stacked vertically when m >= n, side by side
 * otherwise) and replace each block B by diag(d) * U, U orthogonal.
 *
 * Projection: minimise ||B - diag(d) U||_F. For fixed d the best U is the
 * orthogonal polar factor of diag(d) B (orthogonal Procrustes); for fixed U
 * the best d_i is <b_i, u_i>. We alternate the two, starting from
 * U = polar(B) or from the caller's previous d (warm start); each step
 * cannot increase the error. Polar factors come from LAPACK's SVD.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>

#include "onn.h"

/* LAPACK (in OpenBLAS); the trailing length is gfortran's hidden one */
void dgesdd_(const char *jobz, const int *m, const int *n, double *a,
	     const int *lda, double *s, double *u, const int *ldu, double *vt,
	     const int *ldvt, double *work, const int *lwork, int *iwork,
	     int *info, size_t jobz_len);

/*
 * SVD (divide and conquer: 2-4 times faster than dgesvd here) of a
 * column-major m x n matrix, overwritten: u m x m, vt n x n, column major.
 */
static int approx_gesvd(int m, int n, double *a, double *s, double *u,
			double *vt)
{
	int info, lwork = -1, *iwork = malloc(sizeof(int) * 8 * (m < n ? m : n));
	double q, *work = NULL;
	int err = -ENOMEM;

	if (!iwork)
		return err;
	dgesdd_("A", &m, &n, a, &m, s, u, &m, vt, &n, &q, &lwork, iwork, &info, 1);
	lwork = (int)q;
	if (!info)
		work = malloc(sizeof(double) * lwork);
	if (work) {
		dgesdd_("A", &m, &n, a, &m, s, u, &m, vt, &n, work, &lwork, iwork,
			&info, 1);
		err = info ? -EDOM : 0;
	}
	free(work);
	free(iwork);
	return err;
}

/**
 * optinc_onn_svd() - a = u diag(s) vt for a row-major m x n matrix
 * @u:  m x m, row major
 * @s:  min(m, n) singular values, descending
 * @vt: n x n, row major
 *
 * Return: 0, -ENOMEM, or -EDOM when LAPACK does not converge.
 */
int optinc_onn_svd(unsigned int m, unsigned int n, const double *a,
		   double *u, double *s, double *vt)
{
	double *at = malloc(sizeof(double) * m * n);
	int err;

	if (!at)
		return -ENOMEM;
	/* row-major a is column-major a^T = vt^T s u^T: swap the factors */
	memcpy(at, a, sizeof(double) * m * n);
	err = approx_gesvd(n, m, at, s, vt, u);
	free(at);
	return err;
}

/**
 * optinc_onn_polar() - orthogonal polar factor q of a square matrix a
 *
 * q = P Q^T for a = P S Q^T: the orthogonal matrix nearest to a.
 *
 * Return: 0 or a negative errno.
 */
int optinc_onn_polar(unsigned int k, const double *a, double *q)
{
	double *buf = malloc(sizeof(double) * k * (3 * k + 1));
	double *u = buf, *vt = u + k * k, *s = vt + k * k, *t = s + k;
	int err = -ENOMEM;

	if (buf) {
		memcpy(t, a, sizeof(double) * k * k);
		err = approx_gesvd(k, k, t, s, u, vt);
		/* column-major polar of a^T read row-major is polar of a */
		if (!err)
			cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans,
				    k, k, k, 1.0, u, k, vt, k, 0.0, q, k);
	}
	free(buf);
	return err;
}

static void approx_row_dots(unsigned int k, const double *b, const double *u,
			    double *d)
{
	unsigned int i;

	for (i = 0; i < k; i++)
		d[i] = cblas_ddot(k, b + i * k, 1, u + i * k, 1);
}

/**
 * optinc_onn_project_block() - nearest diag(d) * U to a k x k block
 * @b:     the block, row major
 * @d:     k diagonal values (in: previous ones when @warm)
 * @u:     k x k orthogonal result, row major
 * @iters: alternations after the start
 * @warm:  start from U = polar(diag(d) b) instead of polar(b)
 *
 * Return: 0 or a negative errno.
 */
int optinc_onn_project_block(unsigned int k, const double *b, double *d,
			     double *u, unsigned int iters, int warm)
{
	double *db = malloc(sizeof(double) * k * k);
	unsigned int i, it;
	int err = -ENOMEM;

	if (!db)
		return err;
	memcpy(db, b, sizeof(double) * k * k);
	if (warm)
		for (i = 0; i < k; i++)
			cblas_dscal(k, d[i], db + i * k, 1);
	err = optinc_onn_polar(k, db, u);
	for (it = 0; !err; it++) {
		approx_row_dots(k, b, u, d);
		if (it == iters)
			break;
		memcpy(db, b, sizeof(double) * k * k);
		for (i = 0; i < k; i++)
			cblas_dscal(k, d[i], db + i * k, 1);
		err = optinc_onn_polar(k, db, u);
	}
	free(db);
	return err;
}

/* Block j of an out x in matrix (see the partition above), as k x k. */
void optinc_onn_block_get(unsigned int out, unsigned int in, const float *w,
			  unsigned int j, double *b)
{
	unsigned int k = optinc_onn_block_k(in, out), r, c;
	unsigned int r0 = out >= in ? j * k : 0, c0 = out >= in ? 0 : j * k;

	for (r = 0; r < k; r++)
		for (c = 0; c < k; c++)
			b[r * k + c] = w[(size_t)(r0 + r) * in + c0 + c];
}

void optinc_onn_block_put(unsigned int out, unsigned int in, float *w,
			  unsigned int j, const double *b)
{
	unsigned int k = optinc_onn_block_k(in, out), r, c;
	unsigned int r0 = out >= in ? j * k : 0, c0 = out >= in ? 0 : j * k;

	for (r = 0; r < k; r++)
		for (c = 0; c < k; c++)
			w[(size_t)(r0 + r) * in + c0 + c] = (float)b[r * k + c];
}

/**
 * optinc_onn_project_layer() - replace every block of w by diag(d) * U
 * @w: out x in, row major, overwritten with the projection
 * @d: nblocks * k diagonal values (in: previous ones when @warm)
 * @u: if not NULL, receives the U of each block where w has the block
 *
 * Return: 0, -EINVAL when the shape does not partition, or an errno.
 */
int optinc_onn_project_layer(unsigned int out, unsigned int in, float *w,
			     float *d, float *u, unsigned int iters, int warm)
{
	unsigned int k = optinc_onn_block_k(in, out), nb, j, i, r;
	double *b, *q, *dd;
	int err = 0;

	if ((in + out - k) % k)
		return -EINVAL;
	nb = (in + out - k) / k;
	b = malloc(sizeof(double) * (2 * k * k + k));
	if (!b)
		return -ENOMEM;
	q = b + k * k;
	dd = q + k * k;
	for (j = 0; j < nb && !err; j++) {
		optinc_onn_block_get(out, in, w, j, b);
		for (i = 0; i < k; i++)
			dd[i] = d[j * k + i];
		err = optinc_onn_project_block(k, b, dd, q, iters, warm);
		if (err)
			break;
		if (u)
			optinc_onn_block_put(out, in, u, j, q);
		for (r = 0; r < k; r++) {
			d[j * k + r] = (float)dd[r];
			cblas_dscal(k, dd[r], q + r * k, 1);
		}
		optinc_onn_block_put(out, in, w, j, q);
	}
	free(b);
	return err;
}
