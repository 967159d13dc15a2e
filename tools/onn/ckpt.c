// SPDX-License-Identifier: BSD-3-Clause
/*
 * Trainer checkpoints: the run's configuration, where it stands, and every
 * parameter with its Adam moments, in host byte order (a checkpoint resumes
 * a run on the same kind of machine; models are the portable files).
 * Written to a temporary file and renamed, so a crash leaves the last one.
 *
 * Version 2 (magic OINCCKP2): the magic, struct optinc_onn_cfg whole,
 * struct optinc_onn_progress, the Adam step count (uint64), then each
 * layer's parts as ckpt_io_layer() lists them. Version 1 (OINCCKP1,
 * before --first-axes) is the same with the configuration ending before
 * first_axes: it is read with that field 0, and written no more.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train.h"

#define CKPT_MAGIC	"OINCCKP2"
#define CKPT_MAGIC_V1	"OINCCKP1"
#define CKPT_CFG_V1	offsetof(struct optinc_onn_cfg, first_axes)

struct ckpt_hdr {
	char magic[8];
	struct optinc_onn_cfg cfg;
	struct optinc_onn_progress prog;
	uint64_t step;
};

/* The header's parts one after another (no padding between them). */
static int ckpt_io_hdr(FILE *f, struct ckpt_hdr *h, int wr)
{
	size_t cfg = sizeof(h->cfg);
	struct { void *p; size_t n; } part[] = {
		{ h->magic, 8 }, { &h->cfg, cfg }, { &h->prog, sizeof(h->prog) },
		{ &h->step, sizeof(h->step) },
	};
	size_t i;

	for (i = 0; i < sizeof(part) / sizeof(part[0]); i++) {
		if (!wr && i == 1 && !memcmp(h->magic, CKPT_MAGIC_V1, 8))
			part[i].n = CKPT_CFG_V1;
		if ((wr ? fwrite(part[i].p, part[i].n, 1, f)
			: fread(part[i].p, part[i].n, 1, f)) != 1)
			return -EIO;
	}
	return 0;
}

/* Everything but the gradients. */
static int ckpt_io_layer(FILE *f, struct optinc_onn_tlayer *y, int wr)
{
	size_t wn = (size_t)y->in * y->out, nd = y->in + y->out;
	struct { float *p; size_t n; } part[] = {
		{ y->w, wn }, { y->mw, 2 * wn }, { y->u, wn }, { y->b, y->out },
		{ y->mb, 2 * (size_t)y->out }, { y->d, nd }, { y->md, 2 * nd },
	};
	size_t i, got;

	for (i = 0; i < sizeof(part) / sizeof(part[0]); i++) {
		got = wr ? fwrite(part[i].p, sizeof(float), part[i].n, f)
			 : fread(part[i].p, sizeof(float), part[i].n, f);
		if (got != part[i].n)
			return -EIO;
	}
	return 0;
}

int optinc_onn_ckpt_save(const char *path, const struct optinc_onn_cfg *c,
			 const struct optinc_onn_net *n,
			 const struct optinc_onn_progress *p)
{
	struct ckpt_hdr h;
	char tmp[4096];
	unsigned int l;
	FILE *f;
	int err;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, CKPT_MAGIC, 8);
	h.cfg = *c;
	h.prog = *p;
	h.step = n->step;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "wb");
	if (!f) {
		err = -errno;
		goto out_report;
	}
	err = ckpt_io_hdr(f, &h, 1);
	for (l = 0; l < n->nl && !err; l++)
		err = ckpt_io_layer(f, (struct optinc_onn_tlayer *)&n->l[l], 1);
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
out_report:
	if (err)
		fprintf(stderr, "optinc-onn: %s: cannot write checkpoint: %s\n",
			path, strerror(-err));
	return err;
}

/*
 * K of a checkpoint's first layer: those written before --s-low stored 1
 * for "all symbols" (B/2).
 */
static int ckpt_low(const struct optinc_onn_cfg *c)
{
	return c->s_invariant == 1 ? (int)c->bits / 2 : c->s_invariant;
}

/*
 * A run may go on with other stage-2 settings: length, learning rate and
 * the fraction of it the cosine ends at (hence its cosine), loss margin,
 * slack and stopping margin, evaluation period, phase noise in the loop,
 * and the weights of the rows (--s-weights: the loss, not the network).
 * The seed may change too: it drew the initial network, which the
 * checkpoint replaces, and from here it only picks the shuffles and the
 * noise draws, so another seed is another walk from the same network
 * (the same seed still goes on as if the run had not stopped).
 * It may also see more of its input: a network of S_K (and s_K, ..) is
 * one of S_J for every J < K, and of the whole input (K = 0), so K may
 * drop (the curriculum of section 5 of Documentation/onn.md), never rise.
 * Likewise a first layer on axes (--first-axes) is one that may leave
 * them, so the option may be dropped, not added; while it stays, K stays
 * too, since the axes are those of S_K.
 */
static int ckpt_same_run(const struct optinc_onn_cfg *a,
			 const struct optinc_onn_cfg *b)
{
	struct optinc_onn_cfg x = *a, y = *b;
	int ka = ckpt_low(a), kb = ckpt_low(b);

	if (kb && (!ka || kb > ka))
		return 0;
	if (b->first_axes && (!a->first_axes || ka != kb))
		return 0;
	x.s_invariant = y.s_invariant = 0;
	x.first_axes = y.first_axes = 0;

	x.epochs2 = y.epochs2 = 0;
	x.eval_every = y.eval_every = 0;
	x.stop_margin = y.stop_margin = 0;
	x.margin2 = y.margin2 = 0;
	x.slack = y.slack = 0;
	x.lr2 = y.lr2 = 0;
	x.lr_end = y.lr_end = 0;
	x.noise = y.noise = 0;
	x.s_uniform = y.s_uniform = 0;
	x.seed = y.seed = 0;
	return !memcmp(&x, &y, sizeof(x));
}

/**
 * optinc_onn_ckpt_load() - resume a run
 *
 * Return: 0, -ENOENT when there is no checkpoint, or another negative
 * errno (reported) when it cannot be used.
 */
int optinc_onn_ckpt_load(const char *path, const struct optinc_onn_cfg *c,
			 struct optinc_onn_net *n,
			 struct optinc_onn_progress *p)
{
	const char *why = "truncated";
	struct ckpt_hdr h;
	unsigned int l;
	int err = 0;
	FILE *f;

	f = fopen(path, "rb");
	if (!f)
		return -errno;
	memset(&h, 0, sizeof(h));
	if (ckpt_io_hdr(f, &h, 0))
		err = -EINVAL;
	if (!err && memcmp(h.magic, CKPT_MAGIC, 8) &&
	    memcmp(h.magic, CKPT_MAGIC_V1, 8)) {
		why = "not a checkpoint of this version (bad magic)";
		err = -EINVAL;
	}
	if (!err && !ckpt_same_run(&h.cfg, c)) {
		why = "written by a run with other settings";
		err = -EINVAL;
	}
	for (l = 0; l < n->nl && !err; l++)
		err = ckpt_io_layer(f, &n->l[l], 0);
	if (!err && fgetc(f) != EOF) {
		why = "trailing bytes";
		err = -EINVAL;
	}
	fclose(f);
	if (err) {
		fprintf(stderr, "optinc-onn: %s: cannot resume: %s\n", path, why);
		return err < 0 && err != -ENOENT ? err : -EINVAL;
	}
	*p = h.prog;
	n->step = h.step;
	return 0;
}
