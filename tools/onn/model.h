/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ONN model files: the one loader and writer (format in Documentation/onn.md).
 * A model is an MLP whose weight matrices are either dense or partitioned
 * into k x k blocks Sigma * U, U given by the MZI phases of a Clements mesh.
 */
#ifndef OPTINC_ONN_MODEL_H
#define OPTINC_ONN_MODEL_H

#include <stddef.h>
#include <stdint.h>

#define OPTINC_ONN_MAGIC	"OINCONN1"
#define OPTINC_ONN_VERSION	1
#define OPTINC_ONN_HDR_LEN	64
#define OPTINC_ONN_LAYER_HDR_LEN 16
#define OPTINC_ONN_MAX_LAYERS	32
#define OPTINC_ONN_MAX_WIDTH	4096

enum optinc_onn_act {
	OPTINC_ONN_ACT_NONE = 0,
	OPTINC_ONN_ACT_RELU = 1,
};

enum optinc_onn_form {
	OPTINC_ONN_DENSE = 0,	/* out x in matrix, row major */
	OPTINC_ONN_BLOCKS = 1,	/* nblocks blocks diag(sigma) * U */
};

/*
 * A block's phases: k(k-1)/2 MZIs as (theta, phi) pairs in the order of
 * optinc_onn_mesh_modes(), then k output phases; k * k floats in all.
 */
struct optinc_onn_layer {
	unsigned int in, out;
	unsigned int act;	/* enum optinc_onn_act */
	unsigned int form;	/* enum optinc_onn_form */
	unsigned int k;		/* blocks: min(in, out) */
	unsigned int nblocks;	/* blocks: max(in, out) / k */
	float *w;		/* dense: out * in */
	float *sigma;		/* blocks: nblocks * k */
	float *phase;		/* blocks: nblocks * k * k */
	float *bias;		/* out */
};

struct optinc_onn {
	unsigned int members;	/* N */
	unsigned int bits;	/* B */
	unsigned int nlayers;
	float in_scale;		/* input k is s_k * in_scale */
	struct optinc_onn_layer layer[OPTINC_ONN_MAX_LAYERS];
};

/* Blocks of an in -> out layer: vertical stack when out >= in. */
static inline unsigned int optinc_onn_block_k(unsigned int in, unsigned int out)
{
	return in < out ? in : out;
}

int optinc_onn_layer_alloc(struct optinc_onn_layer *l, unsigned int in,
			   unsigned int out, unsigned int act,
			   unsigned int form);
void optinc_onn_free(struct optinc_onn *m);
size_t optinc_onn_file_size(const struct optinc_onn *m);
int optinc_onn_parse(const void *buf, size_t len, struct optinc_onn *m,
		     const char **why);
int optinc_onn_read_file(const char *path, uint8_t **buf, size_t *len);
int optinc_onn_load(const char *path, struct optinc_onn *m,
		    uint8_t sha256[32], char *err, size_t errlen);
int optinc_onn_save(const char *path, const struct optinc_onn *m,
		    char *err, size_t errlen);

#endif /* OPTINC_ONN_MODEL_H */
