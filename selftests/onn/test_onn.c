// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the ONN tools: Clements meshes, the Sigma * U projection,
 * the area model, and model / table files (good ones and refused ones).
 * Prints TAP.
 */
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cblas.h>
#include <optinc/core.h>

#include "train.h"
#include "../tap.h"

static double test_gauss(struct optinc_onn_rng *r)
{
	return optinc_onn_rng_gauss(r);
}

/* A random unitary by Gram-Schmidt on complex Gaussian columns. */
static void test_random_unitary(unsigned int n, struct optinc_onn_rng *r,
				int real, double complex *u)
{
	unsigned int i, j, k;

	for (i = 0; i < n * n; i++)
		u[i] = test_gauss(r) + (real ? 0 : I * test_gauss(r));
	for (j = 0; j < n; j++) {
		for (k = 0; k < j; k++) {
			double complex dot = 0;

			for (i = 0; i < n; i++)
				dot += conj(u[i * n + k]) * u[i * n + j];
			for (i = 0; i < n; i++)
				u[i * n + j] -= dot * u[i * n + k];
		}
		double nrm = 0;

		for (i = 0; i < n; i++)
			nrm += creal(u[i * n + j] * conj(u[i * n + j]));
		for (i = 0; i < n; i++)
			u[i * n + j] /= sqrt(nrm);
	}
}

/* Decompose and rebuild; the largest entry error. */
static double test_round_trip(unsigned int n, const double complex *u,
			      int *real_phases)
{
	unsigned int m = optinc_onn_mzis(n), i;
	double *th = malloc(sizeof(double) * (2 * m + n + 1)), *ph = th + m;
	double *al = ph + m, err = 0, d;
	double complex *v = malloc(sizeof(*v) * n * n);

	optinc_onn_mesh_decompose(n, u, th, ph, al);
	optinc_onn_mesh_build(n, th, ph, al, v);
	for (i = 0; i < n * n; i++) {
		d = cabs(u[i] - v[i]);
		err = d > err ? d : err;
	}
	*real_phases = 1;
	for (i = 0; i < m + n; i++) {
		double a = fabs(i < m ? ph[i] : al[i - m]);

		if (fmin(a, fabs(a - M_PI)) > 1e-6)
			*real_phases = 0;
	}
	free(th);
	free(v);
	return err;
}

static void test_clements(void)
{
	static const unsigned int sizes[] = { 2, 3, 4, 5, 7, 8, 16, 33, 64, 128, 256 };
	struct optinc_onn_rng r;
	unsigned int s, n;
	double complex *u;
	double e;
	int real;

	optinc_onn_rng_seed(&r, 42);
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		n = sizes[s];
		u = malloc(sizeof(*u) * n * n);
		test_random_unitary(n, &r, 0, u);
		e = test_round_trip(n, u, &real);
		tap_ok(e < 1e-12 * n, "clements: random %ux%u unitary rebuilt, max error %.1e",
			n, n, e);
		test_random_unitary(n, &r, 1, u);
		e = test_round_trip(n, u, &real);
		tap_ok(e < 1e-12 * n && real,
			"clements: random %ux%u orthogonal rebuilt (error %.1e), phases in {0, pi}",
			n, n, e);
		free(u);
	}
}

static void test_mesh_shape(void)
{
	unsigned int n = 8, m = optinc_onn_mzis(n), i, per[8] = { 0 }, ok = 1;
	uint16_t modes[28];

	optinc_onn_mesh_modes(n, modes);
	for (i = 0; i < m; i++) {
		if (modes[i] + 1u >= n)
			ok = 0;
		else
			per[modes[i]]++;
	}
	/* a rectangular Clements mesh of n columns: n/2 MZIs on each pair */
	for (i = 0; i + 1 < n; i++)
		if (per[i] != n / 2)
			ok = 0;
	tap_ok(m == 28 && ok, "clements: 8 modes take 28 MZIs in a rectangular mesh");
}

static double test_block_err(unsigned int k, const double *b, const double *d,
			     const double *u)
{
	double e = 0, x;
	unsigned int i;

	for (i = 0; i < k * k; i++) {
		x = b[i] - d[i / k] * u[i];
		e += x * x;
	}
	return sqrt(e);
}

static void test_projection(void)
{
	unsigned int k = 16, i, j;
	double complex *z = malloc(sizeof(*z) * k * k);
	double *b = malloc(sizeof(double) * k * k * 3), *u = b + k * k;
	double *q = u + k * k, d[16], d0[16], e0, e5, orth = 0;
	struct optinc_onn_rng r;

	optinc_onn_rng_seed(&r, 7);
	test_random_unitary(k, &r, 1, z);
	for (i = 0; i < k; i++) {
		d0[i] = 0.1 + optinc_onn_rng_uniform(&r);
		for (j = 0; j < k; j++)
			b[i * k + j] = d0[i] * creal(z[i * k + j]);
	}
	optinc_onn_project_block(k, b, d, u, 5, 0);
	tap_ok(test_block_err(k, b, d, u) < 1e-10,
		"projection: a block that is Sigma*U is kept (error %.1e)",
		test_block_err(k, b, d, u));
	for (i = 0; i < k * k; i++)
		b[i] = test_gauss(&r);
	optinc_onn_project_block(k, b, d, u, 0, 0);
	e0 = test_block_err(k, b, d, u);
	optinc_onn_project_block(k, b, d, u, 5, 0);
	e5 = test_block_err(k, b, d, u);
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, k, k, k, 1.0, u, k,
		    u, k, 0.0, q, k);
	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++)
			orth = fmax(orth, fabs(q[i * k + j] - (i == j)));
	tap_ok(e5 <= e0 + 1e-12 && orth < 1e-12,
		"projection: alternation lowers the error (%.4f -> %.4f), U orthogonal (%.1e)",
		e0, e5, orth);
	free(z);
	free(b);
}

static void test_area(void)
{
	unsigned int n4[] = { 4, 64, 128, 256, 128, 64, 4 };
	unsigned int n8[] = { 4, 64, 128, 256, 512, 256, 128, 64, 4 };
	int all[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	int mid[8] = { 0, 1, 1, 1, 1, 1, 1, 0 };
	struct optinc_onn_area a;
	double r4, r8;

	optinc_onn_area_layer(4, 64, &a);
	/* 64x64 + 4x4 meshes, 4 attenuators; 16 blocks of 4x4 */
	tap_ok(a.dense_mzi == 2016 + 6 && a.dense_att == 4 &&
		a.approx_mzi == 16 * 6 && a.approx_att == 64,
		"area: 64x4 layer: %llu + %llu dense, %llu + %llu as blocks",
		(unsigned long long)a.dense_mzi, (unsigned long long)a.dense_att,
		(unsigned long long)a.approx_mzi, (unsigned long long)a.approx_att);
	optinc_onn_area_layer(256, 128, &a);
	tap_ok(a.dense_mzi == 32640 + 8128 && a.dense_att == 128 &&
		a.approx_mzi == 2 * 8128 && a.approx_att == 256,
		"area: 128x256 layer counts");
	r4 = optinc_onn_area_report(NULL, 6, n4, all);
	tap_ok(fabs(r4 - 41664.0 / 106260) < 1e-12 && fabs(100 * r4 - 39.2) < 0.05,
		"area: N = 4, all layers approximated: %.2f %% (paper 39.3 %%)", 100 * r4);
	r8 = optinc_onn_area_report(NULL, 8, n8, mid);
	tap_ok(fabs(100 * r8 - 40.81) < 0.01 && r8 <= 0.409,
		"area: N = 8, layers 2-7 approximated: %.2f %% (paper 40.9 %%)", 100 * r8);
}

static char test_dir[] = "/tmp/optinc-onn-test.XXXXXX";

/* A small random model: dense, then blocks of both orientations. */
static int test_make_model(struct optinc_onn *m, unsigned int members)
{
	static const unsigned int size[] = { 4, 8, 16, 8, 4 };
	static const unsigned int form[] = { 0, 1, 1, 0 };
	struct optinc_onn_rng r;
	unsigned int l, i, n;

	memset(m, 0, sizeof(*m));
	m->members = members;
	m->bits = 8;
	m->nlayers = 4;
	m->in_scale = optinc_onn_in_scale(members);
	optinc_onn_rng_seed(&r, 3);
	for (l = 0; l < m->nlayers; l++) {
		struct optinc_onn_layer *y = &m->layer[l];

		if (optinc_onn_layer_alloc(y, size[l], size[l + 1],
					   l + 1 < m->nlayers, form[l]))
			return -ENOMEM;
		n = y->form ? y->nblocks * y->k * y->k : y->in * y->out;
		for (i = 0; i < n; i++)
			(y->form ? y->phase : y->w)[i] = test_gauss(&r);
		for (i = 0; y->form && i < y->nblocks * y->k; i++)
			y->sigma[i] = optinc_onn_rng_uniform(&r);
		for (i = 0; i < y->out; i++)
			y->bias[i] = test_gauss(&r);
	}
	return 0;
}

static int test_same_model(const struct optinc_onn *a, const struct optinc_onn *b)
{
	unsigned int l;

	if (a->members != b->members || a->bits != b->bits ||
	    a->nlayers != b->nlayers || a->in_scale != b->in_scale)
		return 0;
	for (l = 0; l < a->nlayers; l++) {
		const struct optinc_onn_layer *x = &a->layer[l], *y = &b->layer[l];
		size_t nk = (size_t)x->nblocks * x->k;

		if (x->in != y->in || x->out != y->out || x->act != y->act ||
		    x->form != y->form || memcmp(x->bias, y->bias, 4 * x->out))
			return 0;
		if (x->form ? memcmp(x->sigma, y->sigma, 4 * nk) ||
			      memcmp(x->phase, y->phase, 4 * nk * x->k)
			    : memcmp(x->w, y->w, 4 * (size_t)x->in * x->out))
			return 0;
	}
	return 1;
}

static void test_write(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (f) {
		fwrite(buf, 1, len, f);
		fclose(f);
	}
}

/* Load must refuse @buf with a message naming the file and @what. */
static void test_model_refused(const void *buf, size_t len, const char *what,
			       const char *name)
{
	char path[256], err[512] = "";
	struct optinc_onn m;
	int ret;

	snprintf(path, sizeof(path), "%s/bad-%s.onn", test_dir, name);
	test_write(path, buf, len);
	ret = optinc_onn_load(path, &m, NULL, err, sizeof(err));
	tap_ok(ret < 0 && strstr(err, path) && strstr(err, what),
		"model file %s refused: \"%s\"", name, err);
}

static void test_model_files(void)
{
	char path[256], err[512];
	struct optinc_onn m, back;
	uint8_t *buf, *bad;
	size_t len;
	int ok;

	snprintf(path, sizeof(path), "%s/good.onn", test_dir);
	ok = !test_make_model(&m, 2) && !optinc_onn_save(path, &m, err, sizeof(err)) &&
	     !optinc_onn_load(path, &back, NULL, err, sizeof(err));
	tap_ok(ok && test_same_model(&m, &back), "model file: save and load give the same model");
	if (ok)
		optinc_onn_free(&back);
	optinc_onn_free(&m);
	if (optinc_onn_read_file(path, &buf, &len))
		return;
	bad = malloc(len + 1);
	test_model_refused(buf, len - 1, "truncated", "truncated");
	test_model_refused(buf, 40, "shorter", "short");
	memcpy(bad, buf, len);
	bad[8] = 2;
	test_model_refused(bad, len, "version", "version");
	memcpy(bad, buf, len);
	bad[0] = 'X';
	test_model_refused(bad, len, "magic", "magic");
	memcpy(bad, buf, len);
	bad[len - 3] ^= 1;
	test_model_refused(bad, len, "corrupt", "corrupt");
	memcpy(bad, buf, len);
	bad[len] = 0;
	test_model_refused(bad, len + 1, "trailing", "trailing");
	free(bad);
	free(buf);
}

/* Table load must refuse @buf, naming the file and @what on stderr. */
static void test_table_refused(const void *buf, size_t len, unsigned int members,
			       const char *what, const char *name)
{
	char path[256], log[256], msg[1024] = "";
	uint32_t wrong;
	uint8_t *t;
	FILE *f;
	int ret, fd = dup(2);

	snprintf(path, sizeof(path), "%s/bad-%s.tbl", test_dir, name);
	snprintf(log, sizeof(log), "%s/stderr-%s", test_dir, name);
	test_write(path, buf, len);
	fflush(stderr);
	if (!freopen(log, "w", stderr))
		return;
	ret = optinc_onn_table_load(path, members, 8, &t, &wrong);
	fflush(stderr);
	dup2(fd, 2);
	close(fd);
	f = fopen(log, "r");
	if (f) {
		if (!fgets(msg, sizeof(msg), f))
			msg[0] = 0;
		fclose(f);
	}
	msg[strcspn(msg, "\n")] = 0;
	tap_ok(ret < 0 && strstr(msg, path) && strstr(msg, what),
		"table file %s refused: \"%s\"", name, msg);
	if (!ret)
		free(t);
}

static void test_table_files(void)
{
	struct optinc_onn_eval ev;
	struct optinc_onn m;
	uint8_t sha[32] = { 1 }, *buf, *bad;
	uint32_t wrong, i, cnt = 0;
	char path[256];
	size_t len;
	int ok;

	snprintf(path, sizeof(path), "%s/good.tbl", test_dir);
	if (test_make_model(&m, 2) || optinc_onn_evaluate(&m, 0, 0, 0, &ev)) {
		tap_ok(0, "table file: evaluate a model");
		return;
	}
	for (i = 0; i < ev.entries; i++)
		cnt += ev.out[i] != ev.exact[i];
	ok = cnt == ev.wrong && ev.entries == 2401 &&
	     !optinc_onn_table_write(path, &m, sha, &ev) &&
	     !optinc_onn_table_load(path, 2, 8, &buf, &wrong);
	tap_ok(ok && wrong == ev.wrong &&
		!memcmp(buf + OPTINC_TABLE_HDR_LEN, ev.out, ev.entries),
		"table file: written, read back, %u wrong entries recorded", wrong);
	optinc_onn_eval_free(&ev);
	optinc_onn_free(&m);
	if (!ok || optinc_onn_read_file(path, &buf, &len))
		return;
	bad = malloc(len + 1);
	test_table_refused(buf, len - 1, 2, "truncated", "truncated");
	test_table_refused(buf, 10, 2, "shorter", "short");
	memcpy(bad, buf, len);
	bad[8] = 9;
	test_table_refused(bad, len, 2, "version", "version");
	test_table_refused(buf, len, 4, "N = 2", "wrong-n");
	memcpy(bad, buf, len);
	bad[12] = 16;
	test_table_refused(bad, len, 2, "bits", "wrong-b");
	memcpy(bad, buf, len);
	bad[len] = 7;
	test_table_refused(bad, len + 1, 2, "trailing", "trailing");
	free(bad);
	free(buf);
}

/* The trainer's projected weights and the model file's realisation agree. */
static void test_export(void)
{
	struct optinc_onn_cfg c;
	struct optinc_onn_net n;
	struct optinc_onn m;
	double *w = malloc(sizeof(double) * 64 * 64), e = 0;
	unsigned int l, i;
	int ok;

	memset(&c, 0, sizeof(c));
	c.members = 2;
	c.bits = 8;
	c.batch = 16;
	if (optinc_onn_parse_arch("4-16-32-8-4", c.size, &c.nlayers) ||
	    optinc_onn_parse_approx("1-3", c.nlayers, c.approx))
		return;
	ok = !optinc_onn_net_alloc(&n, &c);
	if (ok) {
		optinc_onn_net_init(&n, 5, NULL, 0, 0, 1.0f);
		ok = !optinc_onn_net_project(&n, &c, 10, 1) &&
		     !optinc_onn_net_export(&n, &c, optinc_onn_in_scale(2), &m);
	}
	for (l = 0; ok && l < c.nlayers; l++) {
		ok = !optinc_onn_realise(&m, l, w, 0, NULL) &&
		     m.layer[l].form == (unsigned int)c.approx[l];
		for (i = 0; ok && i < n.l[l].in * n.l[l].out; i++)
			e = fmax(e, fabs(w[i] - n.l[l].w[i]));
	}
	tap_ok(ok && e < 1e-5,
		"export: blocks rebuilt from phases equal the trained weights (%.1e)", e);
	if (ok)
		optinc_onn_free(&m);
	optinc_onn_net_free(&n);
	free(w);
}

static int test_rm(const char *path, const struct stat *st, int flag,
		   struct FTW *ftw)
{
	return remove(path);
}

int main(void)
{
	tap_plan(22 + 1 + 2 + 4 + 7 + 7 + 1);
	if (!mkdtemp(test_dir))
		tap_bail("cannot create a temporary directory");
	test_clements();
	test_mesh_shape();
	test_projection();
	test_area();
	test_model_files();
	test_table_files();
	test_export();
	nftw(test_dir, test_rm, 8, FTW_DEPTH | FTW_PHYS);
	return tap_done();
}
