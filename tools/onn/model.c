// SPDX-License-Identifier: BSD-3-Clause
/* ONN model files: parse, load, save (format in Documentation/onn.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>

#include "model.h"

struct model_cursor {
	const uint8_t *p;
	size_t left;
};

static unsigned int model_get16(const uint8_t *p)
{
	return p[0] | (unsigned int)p[1] << 8;
}

static uint32_t model_get32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void model_put16(uint8_t *p, unsigned int v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8 & 0xff;
}

static void model_put32(uint8_t *p, uint32_t v)
{
	model_put16(p, v & 0xffff);
	model_put16(p + 2, v >> 16);
}

static float model_getf(const uint8_t *p)
{
	uint32_t u = model_get32(p);
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static void model_putf(uint8_t *p, float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	model_put32(p, u);
}

static size_t layer_floats(const struct optinc_onn_layer *l)
{
	if (l->form == OPTINC_ONN_DENSE)
		return (size_t)l->out * l->in + l->out;
	return (size_t)l->nblocks * l->k * (l->k + 1) + l->out;
}

/**
 * optinc_onn_layer_alloc() - set up a layer and allocate its arrays
 *
 * Return: 0, -EINVAL for a shape the format cannot hold, or -ENOMEM.
 */
int optinc_onn_layer_alloc(struct optinc_onn_layer *l, unsigned int in,
			   unsigned int out, unsigned int act,
			   unsigned int form)
{
	unsigned int k = optinc_onn_block_k(in, out);
	unsigned int big = in + out - k;

	memset(l, 0, sizeof(*l));
	if (!in || !out || in > OPTINC_ONN_MAX_WIDTH ||
	    out > OPTINC_ONN_MAX_WIDTH || act > OPTINC_ONN_ACT_RELU ||
	    form > OPTINC_ONN_BLOCKS || (form && big % k))
		return -EINVAL;
	l->in = in;
	l->out = out;
	l->act = act;
	l->form = form;
	l->bias = calloc(out, sizeof(float));
	if (form == OPTINC_ONN_DENSE) {
		l->w = calloc((size_t)in * out, sizeof(float));
		return l->bias && l->w ? 0 : -ENOMEM;
	}
	l->k = k;
	l->nblocks = big / k;
	l->sigma = calloc((size_t)l->nblocks * k, sizeof(float));
	l->phase = calloc((size_t)l->nblocks * k * k, sizeof(float));
	return l->bias && l->sigma && l->phase ? 0 : -ENOMEM;
}

void optinc_onn_free(struct optinc_onn *m)
{
	unsigned int i;

	for (i = 0; i < OPTINC_ONN_MAX_LAYERS; i++) {
		free(m->layer[i].w);
		free(m->layer[i].sigma);
		free(m->layer[i].phase);
		free(m->layer[i].bias);
	}
	memset(m, 0, sizeof(*m));
}

size_t optinc_onn_file_size(const struct optinc_onn *m)
{
	size_t n = OPTINC_ONN_HDR_LEN;
	unsigned int i;

	for (i = 0; i < m->nlayers; i++)
		n += OPTINC_ONN_LAYER_HDR_LEN + 4 * layer_floats(&m->layer[i]);
	return n;
}

static void model_sha256(const void *buf, size_t len, uint8_t md[32])
{
	unsigned int mdlen = 32;

	EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL);
}

/* The header's hash: of the file without the hash field (bytes 32-63). */
static int model_file_hash(const uint8_t *b, size_t len, uint8_t md[32])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned int mdlen = 32;
	int ok;

	if (!ctx)
		return -ENOMEM;
	ok = EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) &&
	     EVP_DigestUpdate(ctx, b, 32) &&
	     EVP_DigestUpdate(ctx, b + OPTINC_ONN_HDR_LEN,
			      len - OPTINC_ONN_HDR_LEN) &&
	     EVP_DigestFinal_ex(ctx, md, &mdlen);
	EVP_MD_CTX_free(ctx);
	return ok ? 0 : -ENOMEM;
}

static void model_read_floats(struct model_cursor *c, float *dst, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = model_getf(c->p + 4 * i);
	c->p += 4 * n;
	c->left -= 4 * n;
}

static int model_parse_layer(struct model_cursor *c, struct optinc_onn_layer *l,
			     unsigned int in, const char **why)
{
	unsigned int out, act, form, k, nb;
	const uint8_t *h = c->p;
	size_t nk;

	*why = "layer header truncated";
	if (c->left < OPTINC_ONN_LAYER_HDR_LEN)
		return -EINVAL;
	out = model_get16(h + 2);
	act = h[4];
	form = h[5];
	k = model_get16(h + 6);
	nb = model_get16(h + 8);
	*why = "layer input width differs from the previous layer's output";
	if (model_get16(h) != in)
		return -EINVAL;
	*why = "layer width, activation or form out of range";
	if (optinc_onn_layer_alloc(l, in, out, act, form))
		return -EINVAL;
	*why = "block size or block count does not match the layer shape";
	if (form == OPTINC_ONN_BLOCKS ? (k != l->k || nb != l->nblocks) : (k || nb))
		return -EINVAL;
	c->p += OPTINC_ONN_LAYER_HDR_LEN;
	c->left -= OPTINC_ONN_LAYER_HDR_LEN;
	*why = "layer data truncated";
	if (c->left < 4 * layer_floats(l))
		return -EINVAL;
	if (form == OPTINC_ONN_DENSE) {
		model_read_floats(c, l->w, (size_t)in * out);
	} else {
		nk = (size_t)nb * k;
		model_read_floats(c, l->sigma, nk);
		model_read_floats(c, l->phase, nk * k);
	}
	model_read_floats(c, l->bias, out);
	return 0;
}

static int model_parse_hdr(const uint8_t *b, size_t len, struct optinc_onn *m,
			   const char **why)
{
	*why = "file shorter than the 64-byte model header";
	if (len < OPTINC_ONN_HDR_LEN)
		return -EINVAL;
	*why = "not an ONN model file (bad magic)";
	if (memcmp(b, OPTINC_ONN_MAGIC, 8))
		return -EINVAL;
	*why = "unsupported model version (this build reads version 1)";
	if (model_get16(b + 8) != OPTINC_ONN_VERSION)
		return -EINVAL;
	m->members = model_get16(b + 10);
	m->bits = model_get16(b + 12);
	m->nlayers = model_get16(b + 14);
	m->in_scale = model_getf(b + 16);
	*why = "members out of range (1..64)";
	if (m->members < 1 || m->members > 64)
		return -EINVAL;
	*why = "bits per value must be even, 2..16";
	if (m->bits < 2 || m->bits > 16 || m->bits % 2)
		return -EINVAL;
	*why = "layer count out of range (1..32)";
	if (m->nlayers < 1 || m->nlayers > OPTINC_ONN_MAX_LAYERS)
		return -EINVAL;
	*why = "file truncated: shorter than the header's payload length";
	if (len - OPTINC_ONN_HDR_LEN < model_get32(b + 20))
		return -EINVAL;
	*why = "trailing bytes after the payload";
	if (len - OPTINC_ONN_HDR_LEN > model_get32(b + 20))
		return -EINVAL;
	return 0;
}

/**
 * optinc_onn_parse() - check and decode a model file held in memory
 * @buf: the whole file
 * @len: its size
 * @m:   the model, allocated here; optinc_onn_free() it on success
 * @why: set to what is wrong when the file is refused
 *
 * Return: 0, or -EINVAL with @why set (nothing left allocated).
 */
int optinc_onn_parse(const void *buf, size_t len, struct optinc_onn *m,
		     const char **why)
{
	const uint8_t *b = buf;
	struct model_cursor c;
	unsigned int i, in;
	uint8_t md[32];
	int err;

	memset(m, 0, sizeof(*m));
	err = model_parse_hdr(b, len, m, why);
	if (err)
		return err;
	*why = "file corrupt (SHA-256 differs from the header's)";
	if (model_file_hash(b, len, md) || memcmp(md, b + 32, 32))
		return -EINVAL;
	c.p = b + OPTINC_ONN_HDR_LEN;
	c.left = len - OPTINC_ONN_HDR_LEN;
	in = m->bits / 2;
	for (i = 0; i < m->nlayers; i++) {
		err = model_parse_layer(&c, &m->layer[i], in, why);
		if (err)
			goto out_free;
		in = m->layer[i].out;
	}
	err = -EINVAL;
	*why = "last layer does not have B/2 outputs";
	if (in != m->bits / 2)
		goto out_free;
	*why = "trailing bytes after the last layer";
	if (c.left)
		goto out_free;
	*why = NULL;
	return 0;
out_free:
	optinc_onn_free(m);
	return err;
}

/**
 * optinc_onn_read_file() - a whole file into memory
 * @buf: receives the contents (free() them)
 *
 * Return: 0 or a negative errno.
 */
int optinc_onn_read_file(const char *path, uint8_t **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;
	int err = -errno;

	*buf = NULL;
	*len = 0;
	if (!f)
		return err;
	err = -EIO;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto out_close;
	err = -ENOMEM;
	*buf = malloc(n ? n : 1);
	if (!*buf)
		goto out_close;
	err = 0;
	if (fread(*buf, 1, n, f) != (size_t)n) {
		err = -EIO;
		free(*buf);
		*buf = NULL;
	}
	*len = n;
out_close:
	fclose(f);
	return err;
}

/**
 * optinc_onn_load() - read and check a model file
 * @sha256: if not NULL, receives the SHA-256 of the whole file
 * @err:    receives "PATH: problem" when the file is refused
 *
 * Return: 0, or a negative errno with @err filled.
 */
int optinc_onn_load(const char *path, struct optinc_onn *m,
		    uint8_t sha256[32], char *err, size_t errlen)
{
	const char *why;
	uint8_t *buf;
	size_t len;
	int ret;

	ret = optinc_onn_read_file(path, &buf, &len);
	if (ret) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(-ret));
		return ret;
	}
	ret = optinc_onn_parse(buf, len, m, &why);
	if (ret)
		snprintf(err, errlen, "%s: %s", path, why);
	else if (sha256)
		model_sha256(buf, len, sha256);
	free(buf);
	return ret;
}

static uint8_t *model_write_floats(uint8_t *p, const float *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		model_putf(p + 4 * i, src[i]);
	return p + 4 * n;
}

static uint8_t *model_encode_layer(uint8_t *p, const struct optinc_onn_layer *l)
{
	size_t nk = (size_t)l->nblocks * l->k;

	memset(p, 0, OPTINC_ONN_LAYER_HDR_LEN);
	model_put16(p, l->in);
	model_put16(p + 2, l->out);
	p[4] = l->act;
	p[5] = l->form;
	model_put16(p + 6, l->k);
	model_put16(p + 8, l->nblocks);
	p += OPTINC_ONN_LAYER_HDR_LEN;
	if (l->form == OPTINC_ONN_DENSE) {
		p = model_write_floats(p, l->w, (size_t)l->in * l->out);
	} else {
		p = model_write_floats(p, l->sigma, nk);
		p = model_write_floats(p, l->phase, nk * l->k);
	}
	return model_write_floats(p, l->bias, l->out);
}

static int model_encode(const struct optinc_onn *m, uint8_t **out, size_t *len)
{
	size_t n = optinc_onn_file_size(m);
	uint8_t *b = calloc(1, n), *p;
	unsigned int i;

	if (!b)
		return -ENOMEM;
	memcpy(b, OPTINC_ONN_MAGIC, 8);
	model_put16(b + 8, OPTINC_ONN_VERSION);
	model_put16(b + 10, m->members);
	model_put16(b + 12, m->bits);
	model_put16(b + 14, m->nlayers);
	model_putf(b + 16, m->in_scale);
	model_put32(b + 20, n - OPTINC_ONN_HDR_LEN);
	p = b + OPTINC_ONN_HDR_LEN;
	for (i = 0; i < m->nlayers; i++)
		p = model_encode_layer(p, &m->layer[i]);
	if (model_file_hash(b, n, b + 32)) {
		free(b);
		return -ENOMEM;
	}
	*out = b;
	*len = n;
	return 0;
}

/**
 * optinc_onn_save() - write a model file (atomically: temporary + rename)
 *
 * Return: 0, or a negative errno with @err filled.
 */
int optinc_onn_save(const char *path, const struct optinc_onn *m,
		    char *err, size_t errlen)
{
	char tmp[4096];
	uint8_t *buf;
	size_t len;
	FILE *f;
	int ret;

	ret = model_encode(m, &buf, &len);
	if (ret) {
		snprintf(err, errlen, "%s: out of memory", path);
		return ret;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "wb");
	ret = -errno;
	if (f) {
		ret = fwrite(buf, 1, len, f) == len ? 0 : -EIO;
		if (fclose(f) && !ret)
			ret = -errno;
		if (!ret && rename(tmp, path))
			ret = -errno;
	}
	if (ret)
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(-ret));
	free(buf);
	return ret;
}
