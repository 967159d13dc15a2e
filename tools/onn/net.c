// SPDX-License-Identifier: BSD-3-Clause
/*
 * The trainer's MLP in float: forward, margin loss, backward, Adam, the
 * Sigma * U projection of the approximated layers, and export to a model.
 * Matrix products go through OpenBLAS (cblas_sgemm).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>

#include "train.h"

/* Floats in a layer's one allocation, which its arrays share. */
static size_t net_layer_floats(const struct optinc_onn_tlayer *y)
{
	size_t wn = (size_t)y->in * y->out;

	/* w gw mw vw u du: 6 x wn; b gb mb vb: 4 x out; d gd md vd: 4 x
	 * (in + out), since d holds nblocks * k = max(in, out) values */
	return wn * 6 + (size_t)y->out * 4 + 4 * (size_t)(y->in + y->out);
}

int optinc_onn_net_alloc(struct optinc_onn_net *n,
			 const struct optinc_onn_cfg *c)
{
	unsigned int l, i;

	memset(n, 0, sizeof(*n));
	n->nl = c->nlayers;
	n->batch = c->batch;
	for (i = 0; i <= c->nlayers; i++)
		if (c->size[i] > n->width)
			n->width = c->size[i];
	for (l = 0; l < n->nl; l++) {
		struct optinc_onn_tlayer *y = &n->l[l];
		size_t wn = (size_t)c->size[l] * c->size[l + 1];
		unsigned int o = c->size[l + 1];

		y->in = c->size[l];
		y->out = o;
		y->k = optinc_onn_block_k(y->in, o);
		y->w = calloc(net_layer_floats(y), sizeof(float));
		if (!y->w)
			return -ENOMEM;
		y->gw = y->w + wn;
		y->mw = y->gw + wn;
		y->vw = y->mw + wn;
		y->u = y->vw + wn;
		y->b = y->u + wn;
		y->gb = y->b + o;
		y->mb = y->gb + o;
		y->vb = y->mb + o;
		y->d = y->vb + o;
		y->gd = y->d + y->in + o;
		y->md = y->gd + y->in + o;
		y->vd = y->md + y->in + o;
		y->du = y->vd + y->in + o;
	}
	for (i = 0; i <= n->nl; i++) {
		n->act[i] = calloc((size_t)n->batch * n->width, sizeof(float));
		if (!n->act[i])
			return -ENOMEM;
	}
	n->delta = calloc((size_t)n->batch * n->width, sizeof(float));
	n->delta2 = calloc((size_t)n->batch * n->width, sizeof(float));
	n->scratch = calloc((size_t)2 * n->width * n->width, sizeof(float));
	return n->delta && n->delta2 && n->scratch ? 0 : -ENOMEM;
}

/**
 * optinc_onn_net_copy() - the state of every layer of @src into @dst
 * @dst: a network allocated for the same configuration
 * @src: the network to copy
 *
 * Weights, biases, Sigma, U, Adam's moments and Adam's step: @dst then
 * evaluates and exports as @src did (train --keep-best).
 */
void optinc_onn_net_copy(struct optinc_onn_net *dst,
			 const struct optinc_onn_net *src)
{
	unsigned int l;

	for (l = 0; l < src->nl; l++)
		memcpy(dst->l[l].w, src->l[l].w,
		       net_layer_floats(&src->l[l]) * sizeof(float));
	dst->step = src->step;
}

void optinc_onn_net_free(struct optinc_onn_net *n)
{
	unsigned int l;

	for (l = 0; l < OPTINC_ONN_MAX_LAYERS; l++)
		free(n->l[l].w);
	for (l = 0; l <= OPTINC_ONN_MAX_LAYERS; l++)
		free(n->act[l]);
	free(n->delta);
	free(n->delta2);
	free(n->scratch);
	memset(n, 0, sizeof(*n));
}

/*
 * He-normal weights, the first layer's rows then put in the form the run
 * keeps them in (optinc_onn_net_first_rows(), when @low or @axes).
 * The first layer's biases put each unit's hinge through a random point
 * of the input cube [0, in_max]^in, so that its ReLU bends inside the
 * domain; the other biases start at zero.
 */
void optinc_onn_net_init(struct optinc_onn_net *n, uint64_t seed,
			 const float *v, unsigned int low, int axes,
			 float in_max)
{
	struct optinc_onn_rng rng;
	unsigned int l, o, i;

	optinc_onn_rng_seed(&rng, seed);
	for (l = 0; l < n->nl; l++) {
		struct optinc_onn_tlayer *y = &n->l[l];
		float sd = sqrtf(2.0f / y->in);

		for (i = 0; i < y->in * y->out; i++)
			y->w[i] = sd * (float)optinc_onn_rng_gauss(&rng);
		if (l == 0 && (low || axes))
			optinc_onn_net_first_rows(n, v, low, axes);
		for (o = 0; o < y->out; o++) {
			float b = 0;

			for (i = 0; l == 0 && i < y->in; i++)
				b -= y->w[o * y->in + i] * in_max *
				     (float)optinc_onn_rng_uniform(&rng);
			y->b[o] = b;
		}
		for (i = 0; i < y->in + y->out; i++)
			y->d[i] = 1.0f;
	}
	optinc_onn_net_adam_reset(n);
}

void optinc_onn_net_adam_reset(struct optinc_onn_net *n)
{
	unsigned int l;

	for (l = 0; l < n->nl; l++) {
		struct optinc_onn_tlayer *y = &n->l[l];
		size_t wn = (size_t)y->in * y->out;

		memset(y->mw, 0, 2 * wn * sizeof(float));
		memset(y->mb, 0, 2 * y->out * sizeof(float));
		memset(y->md, 0, 2 * (y->in + y->out) * sizeof(float));
	}
	n->step = 0;
}

/* act[0] holds @rows inputs; every act[l] gets layer l's output. */
void optinc_onn_net_forward(struct optinc_onn_net *n, unsigned int rows)
{
	unsigned int l, r;

	for (l = 0; l < n->nl; l++) {
		struct optinc_onn_tlayer *y = &n->l[l];
		float *z = n->act[l + 1];
		size_t i, all = (size_t)rows * y->out;

		for (r = 0; r < rows; r++)
			memcpy(z + (size_t)r * y->out, y->b, y->out * sizeof(float));
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, y->out,
			    y->in, 1.0f, n->act[l], y->in, y->w, y->in, 1.0f,
			    z, y->out);
		if (l + 1 < n->nl)
			for (i = 0; i < all; i++)
				z[i] = z[i] > 0 ? z[i] : 0;
	}
}

/*
 * Squared hinge around the decision interval of the target symbol, shrunk
 * by @margin on each inner side: margin 0.5 is plain regression onto the
 * symbol for 1 and 2 and one-sided for 0 and 3 (the slicer's open ends).
 * Each row weighs w[r]. Leaves d(loss)/d(output) in n->delta; returns
 * the summed loss.
 */
double optinc_onn_net_loss(struct optinc_onn_net *n, const uint8_t *t,
			   const float *w, unsigned int rows, float margin,
			   uint32_t *wrong)
{
	unsigned int nout = n->l[n->nl - 1].out, r, k, bad;
	const float *y = n->act[n->nl];
	float scale = 1.0f / rows;
	double loss = 0;

	for (r = 0; r < rows; r++) {
		bad = 0;
		for (k = 0; k < nout; k++) {
			size_t i = (size_t)r * nout + k;
			float lo = t[i] ? t[i] - 0.5f + margin : -INFINITY;
			float hi = t[i] < 3 ? t[i] + 0.5f - margin : INFINITY;
			float e = y[i] < lo ? y[i] - lo : y[i] > hi ? y[i] - hi : 0;

			loss += (double)w[r] * e * e;
			n->delta[i] = 2 * e * w[r] * scale;
			bad |= optinc_onn_decide(y[i]) != t[i];
		}
		*wrong += bad;
	}
	return loss;
}

/*
 * The first layer's rows back into the form the run keeps them in, after
 * each step: with K = @low > 0, each row's part on inputs 0..K-1 onto
 * the unit vector @v of S_K there, w[0..K-1] <- (w . v) v, the other
 * inputs left free. With @axes each row also reads one axis only, the
 * (o mod A)-th of the A axes for row o: S_K, then inputs K..in-1 (K = 0:
 * the inputs), every other weight 0, so that its hinge is a value of
 * that axis alone (Documentation/onn.md, section 5).
 */
void optinc_onn_net_first_rows(struct optinc_onn_net *n, const float *v,
			       unsigned int low, int axes)
{
	struct optinc_onn_tlayer *y = &n->l[0];
	unsigned int o, k, a, nax = (low ? 1 : 0) + y->in - low;

	for (o = 0; o < y->out; o++) {
		float *row = y->w + (size_t)o * y->in;
		float s = low ? cblas_sdot(low, row, 1, v, 1) : 0;

		/* a: the axis kept, in 0..nax-1; ~0u: all of them */
		a = axes ? o % nax : ~0u;
		for (k = 0; k < low; k++)
			row[k] = a == ~0u || a == 0 ? s * v[k] : 0;
		for (k = low; axes && k < y->in; k++)
			if (k - low + (low ? 1 : 0) != a)
				row[k] = 0;
	}
}

/* Each unit's largest pre-activation in layer @l over the rows of @d. */
static void net_max_pre(struct optinc_onn_net *n,
			const struct optinc_onn_data *d, unsigned int l,
			float *zmax)
{
	const struct optinc_onn_tlayer *y = &n->l[l];
	unsigned int rows, r, o;
	uint32_t i;

	for (o = 0; o < y->out; o++)
		zmax[o] = -INFINITY;
	for (i = 0; i < d->n; i += rows) {
		rows = d->n - i < n->batch ? d->n - i : n->batch;
		memcpy(n->act[0], d->x + (size_t)i * d->in,
		       (size_t)rows * d->in * sizeof(float));
		optinc_onn_net_forward(n, rows);
		for (r = 0; r < rows; r++)
			for (o = 0; o < y->out; o++) {
				float z = y->b[o] + cblas_sdot(y->in,
					y->w + (size_t)o * y->in, 1,
					n->act[l] + (size_t)r * y->in, 1);

				zmax[o] = fmaxf(zmax[o], z);
			}
	}
}

/**
 * optinc_onn_net_revive() - re-aim the first-layer units that are off on
 * every training row (their gradient is 0, so they would stay off)
 * @n:     the network (a first layer along S: rows w (4^0, 4^1, ..))
 * @d:     the training rows
 * @in_s:  input units per unit of S: 3N / input gain
 * @first, @step, @slope: the i-th unit found off (in unit order) becomes
 *         slope * (first + i * step - S), on below S = first + i * step
 *
 * Their Adam moments start again from 0. Return: units re-aimed.
 */
unsigned int optinc_onn_net_revive(struct optinc_onn_net *n,
				   const struct optinc_onn_data *d,
				   double in_s, double first, double step,
				   double slope)
{
	struct optinc_onn_tlayer *y = &n->l[0];
	unsigned int o, k, i = 0;
	float *zmax = n->scratch;

	net_max_pre(n, d, 0, zmax);
	for (o = 0; o < y->out; o++) {
		float *row = y->w + (size_t)o * y->in;

		if (zmax[o] > 0)
			continue;
		for (k = 0; k < y->in; k++)
			row[k] = (float)(-slope * in_s * (double)(1u << (2 * k)));
		y->b[o] = (float)(slope * (first + i * step));
		memset(y->mw + (size_t)o * y->in, 0, y->in * sizeof(float));
		memset(y->vw + (size_t)o * y->in, 0, y->in * sizeof(float));
		y->mb[o] = y->vb[o] = 0;
		i++;
	}
	return i;
}

/**
 * optinc_onn_net_revive_hidden() - turn the hidden units after the first
 * layer that are off on every training row back on, barely
 * @n:     the network
 * @d:     the training rows
 * @top:   a revived unit's largest pre-activation over the rows
 * @count: units revived per layer (n->nl entries; 0 for the first and last)
 *
 * A ReLU unit off on every row has no gradient and stays off for good.
 * Raising its bias by @top minus its largest pre-activation turns it on
 * where it came closest, at most @top: the network's outputs move by at
 * most @top times the next layers' gains, and the unit learns again.
 * Layers go in order, each seeing the ones before it revived. The Adam
 * moments of its bias and of its row of w (or U) start again from 0 (its
 * Sigma's got no gradient while it was off). Return: units revived.
 */
unsigned int optinc_onn_net_revive_hidden(struct optinc_onn_net *n,
					  const struct optinc_onn_data *d,
					  float top, unsigned int *count)
{
	unsigned int l, o, all = 0;

	memset(count, 0, n->nl * sizeof(*count));
	for (l = 1; l + 1 < n->nl; l++) {
		struct optinc_onn_tlayer *y = &n->l[l];
		float *zmax = n->scratch;

		net_max_pre(n, d, l, zmax);
		for (o = 0; o < y->out; o++) {
			if (zmax[o] > 0)
				continue;
			y->b[o] += top - zmax[o];
			y->mb[o] = y->vb[o] = 0;
			memset(y->mw + (size_t)o * y->in, 0, y->in * sizeof(float));
			memset(y->vw + (size_t)o * y->in, 0, y->in * sizeof(float));
			count[l]++;
		}
		all += count[l];
	}
	return all;
}

/**
 * optinc_onn_net_hinge_rows() - put the hinge of every hidden unit through
 * a training row drawn at random (train --init rows)
 * @n:    the network, its weights as they will first train
 * @d:    the training rows
 * @seed: the run's seed (the draws are a stream of their own, so the
 *        weights are those of --init cube)
 *
 * Layer by layer from the first, each seeing the ones before it placed:
 * unit o of layer l draws a row r uniformly and its bias becomes minus its
 * weighted input at r, so that its ReLU bends at r and is on where its
 * input exceeds that. A network of S alone otherwise starts with a
 * quarter of its hidden units off on every row (zero biases on a curve of
 * non-negative first-layer outputs) and the first layer's hinges where
 * random points of the input cube put them, few at the ends of S's range.
 */
void optinc_onn_net_hinge_rows(struct optinc_onn_net *n,
			       const struct optinc_onn_data *d, uint64_t seed)
{
	struct optinc_onn_rng rng;
	unsigned int l, o, i, rows;

	optinc_onn_rng_seed(&rng, seed ^ 0x68696e6765ull);	/* "hinge" */
	for (l = 0; l + 1 < n->nl; l++) {
		struct optinc_onn_tlayer *y = &n->l[l];

		for (o = 0; o < y->out; o += rows) {
			rows = y->out - o < n->batch ? y->out - o : n->batch;
			for (i = 0; i < rows; i++) {
				uint32_t r = (uint32_t)(optinc_onn_rng_uniform(&rng) * d->n);

				memcpy(n->act[0] + (size_t)i * d->in,
				       d->x + (size_t)r * d->in,
				       d->in * sizeof(float));
			}
			/* act[l] depends only on the layers before l */
			optinc_onn_net_forward(n, rows);
			for (i = 0; i < rows; i++)
				y->b[o + i] = -cblas_sdot(y->in,
					y->w + (size_t)(o + i) * y->in, 1,
					n->act[l] + (size_t)i * y->in, 1);
		}
	}
}

/* Gradients of every layer from n->delta (d loss / d output). */
void optinc_onn_net_backward(struct optinc_onn_net *n, unsigned int rows)
{
	unsigned int l, r, o;
	float *dz = n->delta, *t;

	for (l = n->nl; l-- > 0;) {
		struct optinc_onn_tlayer *y = &n->l[l];
		const float *a = n->act[l];
		size_t i, all = (size_t)rows * y->in;

		cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, y->out, y->in,
			    rows, 1.0f, dz, y->out, a, y->in, 0.0f, y->gw, y->in);
		memset(y->gb, 0, y->out * sizeof(float));
		for (r = 0; r < rows; r++)
			for (o = 0; o < y->out; o++)
				y->gb[o] += dz[(size_t)r * y->out + o];
		if (!l)
			break;
		t = dz == n->delta ? n->delta2 : n->delta;
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, y->in,
			    y->out, 1.0f, dz, y->out, y->w, y->in, 0.0f, t, y->in);
		for (i = 0; i < all; i++)
			if (a[i] <= 0)
				t[i] = 0;
		dz = t;
	}
}

static void net_adam_vec(float *p, const float *g, float *m, float *v,
			 size_t cnt, float lr, float c1, float c2)
{
	const float b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;
	size_t i;

	for (i = 0; i < cnt; i++) {
		m[i] = b1 * m[i] + (1 - b1) * g[i];
		v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
		p[i] -= lr * (m[i] * c1) / (sqrtf(v[i] * c2) + eps);
	}
}

static void net_ema_vec(float *a, const float *p, size_t cnt, float decay)
{
	size_t i;

	for (i = 0; i < cnt; i++)
		a[i] = decay * a[i] + (1 - decay) * p[i];
}

/* Top-left entry of block j of a layer (row stride: in). */
static size_t net_block_at(const struct optinc_onn_tlayer *y, unsigned int j)
{
	return y->out >= y->in ? (size_t)j * y->k * y->in : (size_t)j * y->k;
}

static unsigned int net_blocks(const struct optinc_onn_tlayer *y)
{
	return (y->in + y->out - y->k) / y->k;
}

/*
 * Chain rule for w = diag(d) U: dL/dd_i = <g_i, u_i>, dL/dU_i = d_i g_i
 * (row i of a block); gw becomes U's gradient in place.
 */
static void net_manifold_grads(struct optinc_onn_tlayer *y)
{
	unsigned int j, i, nb = net_blocks(y), k = y->k;

	for (j = 0; j < nb; j++) {
		size_t at = net_block_at(y, j);

		for (i = 0; i < k; i++) {
			float *g = y->gw + at + (size_t)i * y->in;

			y->gd[j * k + i] = cblas_sdot(k, g, 1,
						      y->u + at + (size_t)i * y->in, 1);
			cblas_sscal(k, y->d[j * k + i], g, 1);
		}
	}
}

/*
 * Back onto the orthogonal group: one Newton-Schulz step
 * U <- U (3I - U^T U) / 2 squares the distance of a nearly orthogonal U
 * from its polar factor. Then, retracted or not, w = diag(d) U again.
 */
static void net_manifold_retract(struct optinc_onn_tlayer *y, float *t,
				 int orth)
{
	unsigned int j, i, nb = net_blocks(y), k = y->k;
	float *t2 = t + (size_t)k * k;

	for (j = 0; j < nb; j++) {
		size_t at = net_block_at(y, j);
		float *u = y->u + at;

		if (orth) {
			cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, k, k,
				    k, 1.0f, u, y->in, u, y->in, 0.0f, t, k);
			cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, k,
				    k, k, -0.5f, u, y->in, t, k, 0.0f, t2, k);
		}
		for (i = 0; i < k; i++) {
			float *row = u + (size_t)i * y->in, *w = y->w + at + (size_t)i * y->in;

			if (orth) {
				cblas_saxpy(k, 1.5f, row, 1, t2 + (size_t)i * k, 1);
				memcpy(row, t2 + (size_t)i * k, k * sizeof(float));
			}
			memcpy(w, row, k * sizeof(float));
			cblas_sscal(k, y->d[j * k + i], w, 1);
		}
	}
}

/* Every layer trained as Sigma * U: U back onto the orthogonal group. */
void optinc_onn_net_retract(struct optinc_onn_net *n)
{
	unsigned int l;

	for (l = 0; l < n->nl; l++)
		if (n->l[l].manifold)
			net_manifold_retract(&n->l[l], n->scratch, 1);
}

/*
 * One Adam step at rate @lr, the first layer's weights (w, or U) at @lr_w1;
 * layers trained as Sigma * U step on d and U, and U is retracted when
 * @retract (else only w = diag(d) U is rebuilt).
 */
void optinc_onn_net_adam(struct optinc_onn_net *n, float lr, float lr_w1,
			 int retract)
{
	float c1, c2;
	unsigned int l;

	n->step++;
	c1 = 1.0f / (1.0f - powf(0.9f, (float)n->step));
	c2 = 1.0f / (1.0f - powf(0.999f, (float)n->step));
	for (l = 0; l < n->nl; l++) {
		struct optinc_onn_tlayer *y = &n->l[l];
		size_t wn = (size_t)y->in * y->out;
		float lw = l ? lr : lr_w1;

		net_adam_vec(y->b, y->gb, y->mb, y->vb, y->out, lr, c1, c2);
		if (!y->manifold) {
			net_adam_vec(y->w, y->gw, y->mw, y->vw, wn, lw, c1, c2);
			continue;
		}
		net_manifold_grads(y);
		net_adam_vec(y->u, y->gw, y->mw, y->vw, wn, lw, c1, c2);
		net_adam_vec(y->d, y->gd, y->md, y->vd, net_blocks(y) * y->k,
			     lr, c1, c2);
		net_manifold_retract(y, n->scratch, retract);
	}
}

/**
 * optinc_onn_net_ema() - fold one step into an exponential average
 * @avg:   the average so far (a network of the same configuration)
 * @n:     the network just stepped
 * @decay: weight of the average so far, in [0, 1)
 *
 * Only what a step changes is averaged: the biases and, for a layer
 * trained as Sigma * U, its d and U (w is diag(d) U, rebuilt by
 * optinc_onn_net_ema_realise()); for a dense layer, w.
 */
void optinc_onn_net_ema(struct optinc_onn_net *avg,
			const struct optinc_onn_net *n, float decay)
{
	unsigned int l;

	for (l = 0; l < n->nl; l++) {
		const struct optinc_onn_tlayer *y = &n->l[l];
		struct optinc_onn_tlayer *a = &avg->l[l];
		size_t wn = (size_t)y->in * y->out;

		net_ema_vec(a->b, y->b, y->out, decay);
		if (y->manifold) {
			net_ema_vec(a->u, y->u, wn, decay);
			net_ema_vec(a->d, y->d, net_blocks(y) * y->k, decay);
		} else {
			net_ema_vec(a->w, y->w, wn, decay);
		}
	}
}

/**
 * optinc_onn_net_ema_realise() - the averaged network, as the optics build it
 * @dst: gets the network (same configuration)
 * @avg: the average (optinc_onn_net_ema())
 * @n:   the trained network, for which layers are Sigma * U
 *
 * An average of orthogonal U is not quite orthogonal: three Newton-Schulz
 * steps (each squares the distance to the polar factor) put every block
 * back on the group before w = diag(d) U is rebuilt, so that @dst
 * evaluates and exports as a network of the trainer's own kind.
 */
void optinc_onn_net_ema_realise(struct optinc_onn_net *dst,
				const struct optinc_onn_net *avg,
				const struct optinc_onn_net *n)
{
	unsigned int l, i;

	optinc_onn_net_copy(dst, avg);
	for (l = 0; l < n->nl; l++)
		dst->l[l].manifold = n->l[l].manifold;
	for (i = 0; i < 3; i++)
		optinc_onn_net_retract(dst);
}

/* Block j's U (stride in) -> its Clements phases -> a perturbed mesh. */
static int net_noise_block(struct optinc_onn_tlayer *y, unsigned int j,
			   float sigma, struct optinc_onn_rng *rng,
			   double complex *z, double *ph)
{
	unsigned int k = y->k, r, c;
	size_t at = net_block_at(y, j);
	int err;

	for (r = 0; r < k; r++)
		for (c = 0; c < k; c++)
			z[r * k + c] = y->u[at + (size_t)r * y->in + c];
	err = optinc_onn_block_phases(k, z, ph);
	if (!err)
		err = optinc_onn_mesh_realise(k, ph, sigma, rng, z);
	for (r = 0; r < k && !err; r++)
		for (c = 0; c < k; c++) {
			size_t i = at + (size_t)r * y->in + c;

			y->du[i] = (float)creal(z[r * k + c]) - y->u[i];
		}
	return err;
}

/* A dense layer's w -> its SVD meshes with phase noise -> du = that - w. */
static int net_noise_dense(struct optinc_onn_tlayer *y, float sigma,
			   struct optinc_onn_rng *rng, double *z)
{
	size_t i, wn = (size_t)y->in * y->out;
	int err = optinc_onn_dense_noisy(y->out, y->in, y->w, sigma, rng, z);

	for (i = 0; i < wn && !err; i++)
		y->du[i] = (float)(z[i] - y->w[i]);
	return err;
}

/**
 * optinc_onn_net_noise_sample() - one fabrication error for some layers
 * @sigma:  MZI phase noise, radians
 * @layers: bit l: layer l (from 0) gets it
 *
 * Each block's U of such a layer is decomposed into its Clements phases,
 * as export would store them, the phases get N(0, sigma^2) and the mesh is
 * rebuilt: du is the real part of that minus U, what verify --phase-noise
 * would see. A dense layer's w goes through its SVD meshes the same way
 * (optinc_onn_dense_noisy(), verify's code), and du is that minus w.
 *
 * Return: 0 or -ENOMEM.
 */
int optinc_onn_net_noise_sample(struct optinc_onn_net *n, float sigma,
				uint32_t layers, struct optinc_onn_rng *rng)
{
	double complex *z = malloc(sizeof(*z) * n->width * n->width);
	double *ph = malloc(sizeof(double) * n->width * n->width);
	unsigned int l, j;
	int err = z && ph ? 0 : -ENOMEM;

	n->noisy = 0;
	for (l = 0; l < n->nl && !err; l++) {
		if (!(layers >> l & 1))
			continue;
		if (!n->l[l].manifold) {
			err = net_noise_dense(&n->l[l], sigma, rng, (double *)z);
			n->noisy |= 1u << l;
			continue;
		}
		for (j = 0; j < net_blocks(&n->l[l]) && !err; j++)
			err = net_noise_block(&n->l[l], j, sigma, rng, z, ph);
	}
	free(z);
	free(ph);
	return err;
}

/*
 * w = diag(d) (U + du) for the next forward and backward pass: the loss
 * and its gradients are those of the perturbed chip, applied to the clean
 * d and U (Adam's step rebuilds w = diag(d) U). A noisy dense layer's w
 * gets du too; its clean w waits in u (a dense layer has no U) until
 * optinc_onn_net_noise_remove().
 */
void optinc_onn_net_noise_apply(struct optinc_onn_net *n)
{
	unsigned int l, j, i, c;

	for (l = 0; l < n->nl; l++) {
		struct optinc_onn_tlayer *y = &n->l[l];
		size_t wn = (size_t)y->in * y->out, e;

		if (!y->manifold && (n->noisy >> l & 1))
			for (e = 0; e < wn; e++) {
				y->u[e] = y->w[e];
				y->w[e] += y->du[e];
			}
		for (j = 0; y->manifold && j < net_blocks(y); j++)
			for (i = 0; i < y->k; i++) {
				size_t at = net_block_at(y, j) + (size_t)i * y->in;
				float d = y->d[j * y->k + i];

				for (c = 0; c < y->k; c++)
					y->w[at + c] = d * (y->u[at + c] + y->du[at + c]);
			}
	}
}

/* The noisy dense layers' clean w back, for Adam's step (bit for bit). */
void optinc_onn_net_noise_remove(struct optinc_onn_net *n)
{
	unsigned int l;

	for (l = 0; l < n->nl; l++) {
		struct optinc_onn_tlayer *y = &n->l[l];
		size_t wn = (size_t)y->in * y->out;

		if (y->manifold || !(n->noisy >> l & 1))
			continue;
		memcpy(y->w, y->u, sizeof(float) * wn);
		memset(y->u, 0, sizeof(float) * wn);
	}
}

/**
 * optinc_onn_net_noise_eval() - the domain through one noisy chip
 * @probe: scratch network of @n's configuration; holds the chip after
 * @n:     the network (not changed)
 * @sigma, @layers, @rng: the draw, as optinc_onn_net_noise_sample()
 * @st, @worst: as optinc_onn_net_eval(), of the perturbed network
 *
 * What the training steps see with --noise, for every row at once
 * (train --noise-hot). Return: 0 or -ENOMEM.
 */
int optinc_onn_net_noise_eval(struct optinc_onn_net *probe,
			      const struct optinc_onn_net *n,
			      const struct optinc_onn_data *d, float sigma,
			      uint32_t layers, struct optinc_onn_rng *rng,
			      struct optinc_onn_stats *st, float *worst)
{
	unsigned int l;
	int err;

	optinc_onn_net_copy(probe, n);
	for (l = 0; l < n->nl; l++)
		probe->l[l].manifold = n->l[l].manifold;
	err = optinc_onn_net_noise_sample(probe, sigma, layers, rng);
	if (err)
		return err;
	optinc_onn_net_noise_apply(probe);
	optinc_onn_net_eval(probe, d, st, NULL, 0, worst);
	return 0;
}

/**
 * optinc_onn_net_noise_lost() - points lost over a fixed set of chips
 * @seed:  the chips' stream: the same @seed gives any two networks the
 *         same phase errors, chip by chip (the draw consumes the same
 *         normals, in the same order, for every network of a shape), so
 *         their counts differ by the networks, not by the draws
 * @draws: chips
 * @limit: stop after the chip that takes the sum past it (then *@lost is
 *         only a bound: more than @limit)
 * @lost:  domain points wrong, summed over the chips
 * @worst: the worst margin on any of them (negative when a point is lost)
 *
 * Return: 0 or -ENOMEM.
 */
int optinc_onn_net_noise_lost(struct optinc_onn_net *probe,
			      const struct optinc_onn_net *n,
			      const struct optinc_onn_data *d, float sigma,
			      uint32_t layers, uint64_t seed,
			      unsigned int draws, uint64_t limit,
			      uint64_t *lost, double *worst)
{
	struct optinc_onn_stats st;
	struct optinc_onn_rng rng;
	unsigned int k;
	int err = 0;

	optinc_onn_rng_seed(&rng, seed);
	*lost = 0;
	*worst = 1e9;
	for (k = 0; k < draws && *lost <= limit; k++) {
		err = optinc_onn_net_noise_eval(probe, n, d, sigma, layers,
						&rng, &st, NULL);
		if (err)
			return err;
		*lost += st.wrong;
		if (st.min_margin < *worst)
			*worst = st.min_margin;
	}
	return 0;
}

/* Every approximated layer onto its Sigma * U blocks. */
int optinc_onn_net_project(struct optinc_onn_net *n,
			   const struct optinc_onn_cfg *c,
			   unsigned int iters, int warm)
{
	unsigned int l;
	int err = 0;

	for (l = 0; l < n->nl && !err; l++)
		if (c->approx[l])
			err = optinc_onn_project_layer(n->l[l].out, n->l[l].in,
						       n->l[l].w, n->l[l].d,
						       n->l[l].u, iters, warm);
	return err;
}

/*
 * Project the approximated layers, then train them as diag(d) U from
 * here on (stage 2).
 */
int optinc_onn_net_manifold(struct optinc_onn_net *n,
			    const struct optinc_onn_cfg *c, unsigned int iters)
{
	unsigned int l;
	int err = optinc_onn_net_project(n, c, iters, 1);

	for (l = 0; l < n->nl && !err; l++)
		n->l[l].manifold = c->approx[l];
	return err;
}

/*
 * Loss-free pass over the whole domain: wrong points, the worst margin
 * (distance of an output inside its target symbol's interval, negative
 * when wrong) and, when @active is not NULL, which points have an output
 * closer than @thresh to leaving that interval (1, or 2 when wrong);
 * when @worst is not NULL, every point's worst margin.
 */
void optinc_onn_net_eval(struct optinc_onn_net *n,
			 const struct optinc_onn_data *d,
			 struct optinc_onn_stats *st, uint8_t *active,
			 float thresh, float *worst_of)
{
	unsigned int rows, r, k;
	uint32_t i;

	st->loss = 0;
	st->wrong = 0;
	st->min_margin = 1e9;
	for (i = 0; i < d->n; i += rows) {
		rows = d->n - i < n->batch ? d->n - i : n->batch;
		memcpy(n->act[0], d->x + (size_t)i * d->in,
		       (size_t)rows * d->in * sizeof(float));
		optinc_onn_net_forward(n, rows);
		for (r = 0; r < rows; r++) {
			unsigned int bad = 0;
			float worst = 1e9f;

			for (k = 0; k < d->out; k++) {
				float y = n->act[n->nl][(size_t)r * d->out + k];
				unsigned int t = d->t[(size_t)(i + r) * d->out + k];
				float g = fminf(t ? y - (t - 0.5f) : 1e9f,
						t < 3 ? t + 0.5f - y : 1e9f);

				bad |= optinc_onn_decide(y) != t;
				worst = fminf(worst, g);
			}
			st->wrong += bad ? d->mult[i + r] : 0;
			if (worst < st->min_margin)
				st->min_margin = worst;
			if (active)
				active[i + r] = worst < thresh ? 1 + !!bad : 0;
			if (worst_of)
				worst_of[i + r] = worst;
		}
	}
}

/* Block j of an approximated layer into the model's sigma and phases. */
static int net_export_block(const struct optinc_onn_tlayer *y,
			    struct optinc_onn_layer *ly, unsigned int j,
			    unsigned int iters)
{
	unsigned int k = ly->k, r, c;
	double *b = malloc(sizeof(double) * (2 * k * k + k + k * k));
	double *u = b + k * k, *dd = u + k * k, *ph = dd + k;
	double complex *z = malloc(sizeof(*z) * k * k);
	int err = b && z ? 0 : -ENOMEM;

	if (!err) {
		optinc_onn_block_get(y->out, y->in, y->w, j, b);
		for (r = 0; r < k; r++)
			dd[r] = y->d[j * k + r];
		err = optinc_onn_project_block(k, b, dd, u, iters, 1);
	}
	for (r = 0; r < k && !err; r++) {
		/* keep attenuations non-negative: a sign goes into U's row */
		double sg = dd[r] < 0 ? -1.0 : 1.0;

		ly->sigma[j * k + r] = (float)(sg * dd[r]);
		for (c = 0; c < k; c++)
			z[r * k + c] = sg * u[r * k + c];
	}
	if (!err)
		err = optinc_onn_block_phases(k, z, ph);
	for (r = 0; r < k * k && !err; r++)
		ly->phase[(size_t)j * k * k + r] = (float)ph[r];
	free(b);
	free(z);
	return err;
}

/**
 * optinc_onn_net_export() - the trained network as a model
 * @m: filled and allocated here; optinc_onn_free() it
 *
 * Approximated layers are projected once more (to convergence) and
 * stored as Sigma and Clements phases; the others as dense matrices.
 *
 * Return: 0 or a negative errno.
 */
int optinc_onn_net_export(struct optinc_onn_net *n,
			  const struct optinc_onn_cfg *c, float in_scale,
			  struct optinc_onn *m)
{
	unsigned int l, j;
	int err = 0;

	memset(m, 0, sizeof(*m));
	m->members = c->members;
	m->bits = c->bits;
	m->nlayers = n->nl;
	m->in_scale = in_scale;
	for (l = 0; l < n->nl && !err; l++) {
		struct optinc_onn_tlayer *y = &n->l[l];
		struct optinc_onn_layer *ly = &m->layer[l];

		err = optinc_onn_layer_alloc(ly, y->in, y->out,
					     l + 1 < n->nl ? OPTINC_ONN_ACT_RELU
							   : OPTINC_ONN_ACT_NONE,
					     c->approx[l] ? OPTINC_ONN_BLOCKS
							  : OPTINC_ONN_DENSE);
		if (err)
			break;
		memcpy(ly->bias, y->b, y->out * sizeof(float));
		if (!c->approx[l])
			memcpy(ly->w, y->w, (size_t)y->in * y->out * sizeof(float));
		for (j = 0; c->approx[l] && j < ly->nblocks && !err; j++)
			err = net_export_block(y, ly, j, 50);
	}
	if (err)
		optinc_onn_free(m);
	return err;
}
