/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * optinc-onn internals: the optical hardware model (Clements meshes, block
 * partition, Sigma * U projection, area), realisation of a model file into
 * matrices, evaluation over the whole P-unit domain, and the trainer.
 */
#ifndef OPTINC_ONN_H
#define OPTINC_ONN_H

#include <complex.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"

/* ---- random numbers (xoshiro256**, seeded by splitmix64) ---- */
struct optinc_onn_rng {
	uint64_t s[4];
};

void optinc_onn_rng_seed(struct optinc_onn_rng *r, uint64_t seed);
uint64_t optinc_onn_rng_next(struct optinc_onn_rng *r);
double optinc_onn_rng_uniform(struct optinc_onn_rng *r);
double optinc_onn_rng_gauss(struct optinc_onn_rng *r);

/* ---- Clements meshes (mesh.c) ---- */
static inline unsigned int optinc_onn_mzis(unsigned int k)
{
	return k * (k - 1) / 2;
}

int optinc_onn_mesh_modes(unsigned int n, uint16_t *modes);
int optinc_onn_mesh_decompose(unsigned int n, const double complex *u,
			      double *theta, double *phi, double *alpha);
int optinc_onn_mesh_build(unsigned int n, const double *theta,
			  const double *phi, const double *alpha,
			  double complex *u);

/* ---- linear algebra and the Sigma * U approximation (approx.c) ---- */
int optinc_onn_polar(unsigned int k, const double *a, double *q);
int optinc_onn_project_block(unsigned int k, const double *b, double *d,
			     double *u, unsigned int iters, int warm);
int optinc_onn_project_layer(unsigned int out, unsigned int in, float *w,
			     float *d, float *u, unsigned int iters, int warm);
void optinc_onn_block_get(unsigned int out, unsigned int in, const float *w,
			  unsigned int j, double *b);
void optinc_onn_block_put(unsigned int out, unsigned int in, float *w,
			  unsigned int j, const double *b);
int optinc_onn_svd(unsigned int m, unsigned int n, const double *a,
		   double *u, double *s, double *vt);

/* ---- area model (area.c) ---- */
struct optinc_onn_area {
	uint64_t dense_mzi, dense_att;	/* SVD: U + V meshes, Sigma */
	uint64_t approx_mzi, approx_att; /* blocks Sigma * U */
};

void optinc_onn_area_layer(unsigned int in, unsigned int out,
			   struct optinc_onn_area *a);
double optinc_onn_area_report(FILE *f, unsigned int nlayers,
			      const unsigned int *size, const int *approx);

/* ---- realisation of a model into matrices (realise.c) ---- */
int optinc_onn_block_phases(unsigned int n, const double complex *u,
			    double *ph);
int optinc_onn_mesh_realise(unsigned int n, const double *ph, double noise,
			    struct optinc_onn_rng *rng, double complex *u);
int optinc_onn_realise(const struct optinc_onn *m, unsigned int l,
		       double *w, double noise, struct optinc_onn_rng *rng);
int optinc_onn_dense_noisy(unsigned int m, unsigned int n, const float *wf,
			   double noise, struct optinc_onn_rng *rng, double *w);

/* ---- the domain of unit P and evaluation over it (eval.c) ---- */
struct optinc_onn_eval {
	uint32_t entries;	/* (3N+1)^(B/2) */
	uint32_t wrong;		/* points whose output differs from exact */
	uint32_t wrong_sym[8];	/* points whose symbol k differs */
	double min_margin;	/* closest output to a decision threshold */
	uint8_t *out;		/* entries output values (B = 8) */
	uint8_t *exact;		/* entries exact averages */
};

/* Input encoding: input k is s_k / (3N), in [0, 1]. */
static inline float optinc_onn_in_scale(unsigned int members)
{
	return 1.0f / (3.0f * members);
}

uint32_t optinc_onn_domain_size(unsigned int members, unsigned int bits);
void optinc_onn_domain_point(uint32_t index, unsigned int members,
			     unsigned int bits, unsigned int *sums);
unsigned int optinc_onn_exact(const unsigned int *sums, unsigned int members,
			      unsigned int bits);
unsigned int optinc_onn_decide(double y);
double optinc_onn_margin(double y, unsigned int sym);

/* A model realised into matrices, run on OPTINC_ONN_CHUNK rows at a time. */
#define OPTINC_ONN_CHUNK 4096
struct optinc_onn_rnet {
	unsigned int nl, width;
	double *w[OPTINC_ONN_MAX_LAYERS];
	double *a, *b;	/* activations, OPTINC_ONN_CHUNK x width each */
};

#define OPTINC_ONN_ALL_LAYERS	0xffffffffu	/* every layer noisy */
int optinc_onn_rnet_init(const struct optinc_onn *m, double noise,
			 uint64_t seed, uint32_t layers,
			 struct optinc_onn_rnet *n);
void optinc_onn_rnet_layer(const struct optinc_onn *m,
			   struct optinc_onn_rnet *n, unsigned int l,
			   unsigned int rows);
void optinc_onn_rnet_forward(const struct optinc_onn *m,
			     struct optinc_onn_rnet *n, unsigned int rows);
void optinc_onn_eval_inputs(const struct optinc_onn *m,
			    struct optinc_onn_rnet *n, uint32_t first,
			    unsigned int rows);
void optinc_onn_rnet_free(struct optinc_onn_rnet *n);
int optinc_onn_evaluate(const struct optinc_onn *m, double noise,
			uint64_t seed, uint32_t layers,
			struct optinc_onn_eval *ev);
/* One noise draw followed through a model (profile.c). */
struct optinc_onn_profile {
	double dw[OPTINC_ONN_MAX_LAYERS];	/* ||W~ - W|| / ||W||, Frobenius */
	double alone[OPTINC_ONN_MAX_LAYERS];	/* output error rms, l alone */
	double rel[OPTINC_ONN_MAX_LAYERS];	/* activation error / activation */
	double all;				/* output error rms, together */
};

int optinc_onn_hot(const struct optinc_onn *m, double sigma,
		   unsigned int trials, uint64_t seed, uint32_t layers,
		   unsigned int top);
int optinc_onn_noise_profile(const struct optinc_onn *m, double sigma,
			     uint64_t seed, uint32_t layers,
			     struct optinc_onn_profile *p);
int optinc_onn_units_on(const struct optinc_onn *m, unsigned int *on);
void optinc_onn_eval_free(struct optinc_onn_eval *ev);
void optinc_onn_histogram(FILE *f, const struct optinc_onn_eval *ev);
void optinc_onn_wrong_by_value(FILE *f, const struct optinc_onn_eval *ev);

/* ---- max-min linear programs over a domain (lp.c, GLPK) ---- */
struct optinc_onn_lp {
	unsigned int nv;	/* variables v, besides the objective t */
	const double *bound;	/* |v_i| <= bound[i] */
	double tmax;		/* t <= tmax */
	double tol;		/* a constraint is violated below -tol */
	uint32_t ncons;		/* constraints r = 0 .. ncons - 1 */
	/* fill constraint @r: row . v - alpha t >= rhs; return 0 if none */
	int (*cons)(void *ctx, uint32_t r, double *row, double *alpha,
		    double *rhs);
	void *ctx;
};

int optinc_onn_lp_solve(const struct optinc_onn_lp *p, const uint8_t *start,
			double *v, double *t);

/* ---- the second level of a cascade (cascade.c) ---- */
int optinc_onn_cascade_table(const char *path, const struct optinc_onn *m,
			     unsigned int fanin);

/* ---- table files (table.c) ---- */
int optinc_onn_table_write(const char *path, const struct optinc_onn *m,
			   const uint8_t sha256[32],
			   const struct optinc_onn_eval *ev);
int optinc_onn_table_load(const char *path, unsigned int members,
			  unsigned int bits, uint8_t **buf, uint32_t *wrong);

/* ---- command-line specs (spec.c) ---- */
int optinc_onn_parse_arch(const char *s, unsigned int *size,
			  unsigned int *nlayers);
int optinc_onn_parse_approx(const char *s, unsigned int nlayers, int *approx);
int optinc_onn_parse_layers(const char *s, unsigned int nlayers,
			    uint32_t *mask);

/* ---- subcommands ---- */
int optinc_onn_cmd_train(int argc, char **argv);
int optinc_onn_cmd_construct(int argc, char **argv);
int optinc_onn_cmd_verify(int argc, char **argv);
int optinc_onn_cmd_compile(int argc, char **argv);
int optinc_onn_cmd_area(int argc, char **argv);
int optinc_onn_cmd_check_table(int argc, char **argv);
int optinc_onn_cmd_info(int argc, char **argv);
void optinc_onn_eval_summary(const char *path, const struct optinc_onn *m,
			     const struct optinc_onn_eval *ev);
int optinc_onn_cmd_finish(int argc, char **argv);

#endif /* OPTINC_ONN_H */
