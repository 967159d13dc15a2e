/* SPDX-License-Identifier: BSD-3-Clause */
/* The hardware-aware trainer's network, data and checkpoints. */
#ifndef OPTINC_ONN_TRAIN_H
#define OPTINC_ONN_TRAIN_H

#include <stdint.h>

#include "onn.h"

/* What a run is: all of it goes into the checkpoint's fingerprint. */
struct optinc_onn_cfg {
	unsigned int members, bits;
	unsigned int nlayers;
	unsigned int size[OPTINC_ONN_MAX_LAYERS + 1];
	int approx[OPTINC_ONN_MAX_LAYERS];
	uint64_t seed;
	unsigned int batch;
	unsigned int epochs1;	/* stage 1: dense, projected every proj_every */
	unsigned int epochs2;	/* stage 2 (at most): projected after each step */
	unsigned int proj_every;	/* stage 1, epochs */
	unsigned int retract_every;	/* stage 2, steps (and each epoch end) */
	unsigned int proj_iters;
	float lr1, lr2, lr_end;	/* lr_end: final fraction of a stage's rate */
	float margin1, margin2;	/* loss margins of the two stages */
	float stop_margin;	/* stage 2 ends when exact with this margin */
	float slack;		/* stage 2 trains points within margin2 + slack */
	float in_gain;		/* inputs are s_k * in_gain / (3N) */
	int s_invariant;	/* K: the first layer sees s_0..s_{K-1} only
				 * through sum 4^k s_k (rows along it); train
				 * on the tuples (S_K, s_K, ..); 0: off */
	int s_uniform;		/* ... each S value weighted 1, not by count */
	unsigned int eval_every;
	float noise;		/* stage 2: MZI phase noise in the loop, rad (in
				 * what was padding: older checkpoints read 0) */
	int first_axes;		/* 1: each first-layer row on one axis of its
				 * input (S_K or one s_k; checkpoint version 2
				 * on, version 1 reads 0) */
};

/*
 * A layer in stage 2 with blocks ("on the manifold") is parametrised by
 * its blocks' U (where w has them) and Sigma d: w = diag(d) U is rebuilt
 * after every step, and Adam's moments mw/vw then belong to U.
 */
struct optinc_onn_tlayer {
	unsigned int in, out, k;
	int manifold;
	float *w, *b;		/* out x in, out */
	float *gw, *gb;		/* gradients */
	float *mw, *vw, *mb, *vb; /* Adam moments */
	float *d, *gd, *md, *vd; /* Sigma of each block, in + out at most */
	float *u;		/* out x in: the blocks' U */
	float *du;		/* noise in the loop: realised U - U */
};

struct optinc_onn_net {
	unsigned int nl, batch, width;
	struct optinc_onn_tlayer l[OPTINC_ONN_MAX_LAYERS];
	float *act[OPTINC_ONN_MAX_LAYERS + 1];	/* batch x width */
	float *delta, *delta2;			/* batch x width */
	float *scratch;				/* 2 x width^2 */
	uint64_t step;				/* Adam steps taken */
	uint32_t noisy;		/* dense layers with noise in the loop */
};

/* Training points: the domain, or one point per value of S (data.c). */
struct optinc_onn_data {
	uint32_t n;		/* training points */
	uint32_t domain;	/* points of the domain */
	unsigned int in, out;
	float *x;		/* n x in */
	uint8_t *t;		/* n x out */
	uint32_t *mult;		/* domain points each stands for */
	float *w;		/* loss weight of each */
};

struct optinc_onn_stats {
	double loss;
	uint32_t wrong;		/* domain points wrong */
	double min_margin;
	uint32_t trained;	/* points trained on in the epoch */
};

int optinc_onn_data_init(struct optinc_onn_data *d, unsigned int members,
			 unsigned int bits, float scale, unsigned int low,
			 int uniform);
void optinc_onn_s_dir(unsigned int in, unsigned int low, float *v);
void optinc_onn_data_free(struct optinc_onn_data *d);

int optinc_onn_net_alloc(struct optinc_onn_net *n,
			 const struct optinc_onn_cfg *c);
void optinc_onn_net_free(struct optinc_onn_net *n);
void optinc_onn_net_copy(struct optinc_onn_net *dst,
			 const struct optinc_onn_net *src);
void optinc_onn_net_init(struct optinc_onn_net *n, uint64_t seed,
			 const float *v, unsigned int low, int axes,
			 float in_max);
void optinc_onn_net_forward(struct optinc_onn_net *n, unsigned int rows);
double optinc_onn_net_loss(struct optinc_onn_net *n, const uint8_t *t,
			   const float *w, unsigned int rows, float margin,
			   uint32_t *wrong);
void optinc_onn_net_first_rows(struct optinc_onn_net *n, const float *v,
			       unsigned int low, int axes);
unsigned int optinc_onn_net_revive(struct optinc_onn_net *n,
				   const struct optinc_onn_data *d,
				   double in_s, double first, double step,
				   double slope);
unsigned int optinc_onn_net_revive_hidden(struct optinc_onn_net *n,
					  const struct optinc_onn_data *d,
					  float top, unsigned int *count);
void optinc_onn_net_hinge_rows(struct optinc_onn_net *n,
			       const struct optinc_onn_data *d, uint64_t seed);
void optinc_onn_net_backward(struct optinc_onn_net *n, unsigned int rows);
void optinc_onn_net_adam(struct optinc_onn_net *n, float lr, float lr_w1,
			 int retract);
void optinc_onn_net_retract(struct optinc_onn_net *n);
void optinc_onn_net_ema(struct optinc_onn_net *avg,
			const struct optinc_onn_net *n, float decay);
void optinc_onn_net_ema_realise(struct optinc_onn_net *dst,
				const struct optinc_onn_net *avg,
				const struct optinc_onn_net *n);
void optinc_onn_net_adam_reset(struct optinc_onn_net *n);
int optinc_onn_net_project(struct optinc_onn_net *n,
			   const struct optinc_onn_cfg *c,
			   unsigned int iters, int warm);
int optinc_onn_net_manifold(struct optinc_onn_net *n,
			    const struct optinc_onn_cfg *c, unsigned int iters);
void optinc_onn_net_eval(struct optinc_onn_net *n,
			 const struct optinc_onn_data *d,
			 struct optinc_onn_stats *st, uint8_t *active,
			 float thresh, float *worst);
int optinc_onn_net_noise_sample(struct optinc_onn_net *n, float sigma,
				uint32_t layers, struct optinc_onn_rng *rng);
void optinc_onn_net_noise_apply(struct optinc_onn_net *n);
void optinc_onn_net_noise_remove(struct optinc_onn_net *n);
int optinc_onn_net_noise_eval(struct optinc_onn_net *probe,
			      const struct optinc_onn_net *n,
			      const struct optinc_onn_data *d, float sigma,
			      uint32_t layers, struct optinc_onn_rng *rng,
			      struct optinc_onn_stats *st, float *worst);
int optinc_onn_net_noise_lost(struct optinc_onn_net *probe,
			      const struct optinc_onn_net *n,
			      const struct optinc_onn_data *d, float sigma,
			      uint32_t layers, uint64_t seed,
			      unsigned int draws, uint64_t limit,
			      uint64_t *lost, double *worst);
int optinc_onn_net_export(struct optinc_onn_net *n,
			  const struct optinc_onn_cfg *c, float in_scale,
			  struct optinc_onn *m);

/* Where a run stands, for checkpoints. */
struct optinc_onn_progress {
	unsigned int epoch;	/* epochs done */
	unsigned int done;	/* 1 when stage 2 has stopped */
	double seconds;		/* training time so far */
};

int optinc_onn_ckpt_save(const char *path, const struct optinc_onn_cfg *c,
			 const struct optinc_onn_net *n,
			 const struct optinc_onn_progress *p);
int optinc_onn_ckpt_load(const char *path, const struct optinc_onn_cfg *c,
			 struct optinc_onn_net *n,
			 struct optinc_onn_progress *p);

#endif /* OPTINC_ONN_TRAIN_H */
