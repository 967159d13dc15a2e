// SPDX-License-Identifier: BSD-3-Clause
/* Data-parallel MLP training on Fashion-MNIST, gradients averaged by liboptinc. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cblas.h>
#include <zlib.h>

#include <optinc/optinc.h>

#define IMG_PIXELS	784
#define NR_CLASSES	10
#define NR_LAYERS	3
#define DATA_DIR	"/usr/share/datasets/fashion-mnist"

static const int layer_dims[NR_LAYERS + 1] = { IMG_PIXELS, 256, 128,
					       NR_CLASSES };

struct config {
	unsigned int epochs, batch, subset, test_subset, bits;
	float lr, momentum;
	uint64_t seed;
	const char *data_dir, *csv, *algo;
};

struct dataset {
	unsigned int n;
	uint8_t *images;	/* n x IMG_PIXELS */
	uint8_t *labels;
};

/* Weights (in x out, row-major) then biases of each layer, in one buffer. */
struct model {
	size_t nparams;
	size_t w_off[NR_LAYERS], b_off[NR_LAYERS];
	float *params, *grad, *vel;
	float *act[NR_LAYERS + 1];	/* batch x dims[l]; act[0] the input */
	float *delta[NR_LAYERS + 1];
	unsigned int cap;		/* rows act/delta hold */
};

/* What one epoch measured on this rank. */
struct epoch_stats {
	double loss_sum;	/* training loss summed over examples */
	uint64_t examples;
	unsigned int steps;
	double compute_s, comm_s;
	uint64_t bytes_sent;
};

/* Sums over the ranks of an epoch's results (exact: int32 words). */
struct epoch_totals {
	double train_loss, test_loss, test_acc;
	int in_sync;		/* parameters equal on every rank */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = (*s += 0x9e3779b97f4a7c15ull);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static double rng_uniform(uint64_t *s)
{
	return ((rng_next(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double rng_normal(uint64_t *s)
{
	double u = rng_uniform(s), v = rng_uniform(s);

	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

/* ---- data: IDX files (big-endian header), gzip-compressed ---- */

static int idx_read(const char *path, uint32_t magic, unsigned int dims,
		    uint32_t *shape, uint8_t **data)
{
	unsigned char hdr[16];
	size_t len = 1;
	gzFile f;
	unsigned int i;
	int ret = -EIO;

	f = gzopen(path, "rb");
	if (!f) {
		fprintf(stderr, "train_fmnist: open %s: %s (install dataset-fashion-mnist)\n",
			path, strerror(errno));
		return -ENOENT;
	}
	if (gzread(f, hdr, 4 + 4 * dims) != (int)(4 + 4 * dims))
		goto out_bad;
	if (((uint32_t)hdr[0] << 24 | hdr[1] << 16 | hdr[2] << 8 | hdr[3]) !=
	    magic)
		goto out_bad;
	for (i = 0; i < dims; i++) {
		const unsigned char *p = hdr + 4 + 4 * i;

		shape[i] = (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
		len *= shape[i];
	}
	*data = malloc(len);
	if (!*data) {
		ret = -ENOMEM;
		goto out;
	}
	if (gzread(f, *data, len) == (int)len) {
		ret = 0;
		goto out;
	}
	free(*data);
out_bad:
	fprintf(stderr, "train_fmnist: %s: not an IDX file of %u dimensions\n",
		path, dims);
out:
	gzclose(f);
	return ret;
}

static int dataset_load(struct dataset *d, const char *dir, const char *set,
			unsigned int limit)
{
	uint32_t ishape[3], lshape[1];
	char path[4096];
	int ret;

	snprintf(path, sizeof(path), "%s/%s-images-idx3-ubyte.gz", dir, set);
	ret = idx_read(path, 0x803, 3, ishape, &d->images);
	if (ret < 0)
		return ret;
	snprintf(path, sizeof(path), "%s/%s-labels-idx1-ubyte.gz", dir, set);
	ret = idx_read(path, 0x801, 1, lshape, &d->labels);
	if (ret < 0) {
		free(d->images);
		return ret;
	}
	if (ishape[0] != lshape[0] || ishape[1] * ishape[2] != IMG_PIXELS) {
		fprintf(stderr, "train_fmnist: %s: %u images of %ux%u, %u labels\n",
			set, ishape[0], ishape[1], ishape[2], lshape[0]);
		free(d->images);
		free(d->labels);
		return -EINVAL;
	}
	d->n = ishape[0];
	if (limit && limit < d->n)
		d->n = limit;
	return 0;
}

static void dataset_free(struct dataset *d)
{
	free(d->images);
	free(d->labels);
}

/* Pixels scaled to about zero mean and unit variance (FMNIST statistics). */
static void load_rows(const struct dataset *d, const unsigned int *idx,
		      unsigned int rows, float *x)
{
	unsigned int r, p;

	for (r = 0; r < rows; r++) {
		const uint8_t *img = d->images + (size_t)idx[r] * IMG_PIXELS;

		for (p = 0; p < IMG_PIXELS; p++)
			x[(size_t)r * IMG_PIXELS + p] =
				(img[p] / 255.0f - 0.2860f) / 0.3530f;
	}
}

/* ---- the model: an MLP with ReLU, softmax cross-entropy ---- */

static int model_init(struct model *m, unsigned int cap, uint64_t seed)
{
	size_t off = 0, i;
	int l;

	memset(m, 0, sizeof(*m));
	for (l = 0; l < NR_LAYERS; l++) {
		m->w_off[l] = off;
		off += (size_t)layer_dims[l] * layer_dims[l + 1];
		m->b_off[l] = off;
		off += layer_dims[l + 1];
	}
	m->nparams = off;
	m->cap = cap;
	m->params = calloc(off, sizeof(float));
	m->grad = calloc(off, sizeof(float));
	m->vel = calloc(off, sizeof(float));
	if (!m->params || !m->grad || !m->vel)
		return -ENOMEM;
	for (l = 0; l <= NR_LAYERS; l++) {
		m->act[l] = malloc((size_t)cap * layer_dims[l] * sizeof(float));
		m->delta[l] = malloc((size_t)cap * layer_dims[l] * sizeof(float));
		if (!m->act[l] || !m->delta[l])
			return -ENOMEM;
	}
	/* He initialisation; the same seed gives every rank the same model */
	for (l = 0; l < NR_LAYERS; l++) {
		double sd = sqrt(2.0 / layer_dims[l]);
		size_t n = (size_t)layer_dims[l] * layer_dims[l + 1];

		for (i = 0; i < n; i++)
			m->params[m->w_off[l] + i] = (float)(sd * rng_normal(&seed));
	}
	return 0;
}

static void model_free(struct model *m)
{
	int l;

	for (l = 0; l <= NR_LAYERS; l++) {
		free(m->act[l]);
		free(m->delta[l]);
	}
	free(m->params);
	free(m->grad);
	free(m->vel);
}

static void model_forward(struct model *m, unsigned int rows)
{
	int l;

	for (l = 0; l < NR_LAYERS; l++) {
		int in = layer_dims[l], out = layer_dims[l + 1];
		const float *b = m->params + m->b_off[l];
		float *y = m->act[l + 1];
		size_t r, j;

		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, out,
			    in, 1.0f, m->act[l], in, m->params + m->w_off[l],
			    out, 0.0f, y, out);
		for (r = 0; r < rows; r++)
			for (j = 0; j < (size_t)out; j++) {
				float v = y[r * out + j] + b[j];

				y[r * out + j] = l < NR_LAYERS - 1 && v < 0 ? 0 : v;
			}
	}
}

/*
 * Softmax cross-entropy of the last layer against @labels: returns the
 * summed loss, counts correct predictions, and with @delta sets the
 * output gradient of the mean loss over @rows.
 */
static double model_loss(struct model *m, unsigned int rows,
			 const uint8_t *labels, const unsigned int *idx,
			 unsigned int *correct, int delta)
{
	const float *z = m->act[NR_LAYERS];
	float *d = m->delta[NR_LAYERS];
	double loss = 0;
	unsigned int r, j;

	for (r = 0; r < rows; r++) {
		const float *zr = z + (size_t)r * NR_CLASSES;
		unsigned int y = labels[idx[r]], best = 0;
		double max = zr[0], sum = 0;

		for (j = 1; j < NR_CLASSES; j++) {
			if (zr[j] > zr[best])
				best = j;
			if (zr[j] > max)
				max = zr[j];
		}
		for (j = 0; j < NR_CLASSES; j++)
			sum += exp(zr[j] - max);
		loss += log(sum) - (zr[y] - max);
		*correct += best == y;
		if (!delta)
			continue;
		for (j = 0; j < NR_CLASSES; j++)
			d[(size_t)r * NR_CLASSES + j] =
				(float)((exp(zr[j] - max) / sum - (j == y)) / rows);
	}
	return loss;
}

static void model_backward(struct model *m, unsigned int rows)
{
	int l;

	for (l = NR_LAYERS - 1; l >= 0; l--) {
		int in = layer_dims[l], out = layer_dims[l + 1];
		const float *d = m->delta[l + 1];
		float *gb = m->grad + m->b_off[l];
		size_t r, j;

		cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, in, out,
			    rows, 1.0f, m->act[l], in, d, out, 0.0f,
			    m->grad + m->w_off[l], out);
		memset(gb, 0, out * sizeof(float));
		for (r = 0; r < rows; r++)
			for (j = 0; j < (size_t)out; j++)
				gb[j] += d[r * out + j];
		if (l == 0)
			break;
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, in,
			    out, 1.0f, d, out, m->params + m->w_off[l], out,
			    0.0f, m->delta[l], in);
		for (r = 0; r < (size_t)rows * in; r++)
			if (m->act[l][r] <= 0)
				m->delta[l][r] = 0;
	}
}

static void model_update(struct model *m, float lr, float momentum)
{
	size_t i;

	for (i = 0; i < m->nparams; i++) {
		m->vel[i] = momentum * m->vel[i] + m->grad[i];
		m->params[i] -= lr * m->vel[i];
	}
}

static uint64_t model_hash(const struct model *m)
{
	const unsigned char *p = (const unsigned char *)m->params;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < m->nparams * sizeof(float); i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* ---- training ---- */

static void shuffle(unsigned int *perm, unsigned int n, uint64_t seed)
{
	unsigned int i, j, t;

	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {
		j = rng_next(&seed) % (i + 1);
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
}

/* Cosine decay from lr to 0 over the run: the last epochs settle down. */
static float lr_at(const struct config *cfg, unsigned int epoch,
		   unsigned int step, unsigned int steps)
{
	double done = (epoch + (double)step / steps) / cfg->epochs;

	return (float)(cfg->lr * 0.5 * (1.0 + cos(M_PI * done)));
}

static int train_step(struct optinc_comm *comm, struct model *m,
		      const struct config *cfg, const struct dataset *train,
		      const unsigned int *idx, unsigned int rows, float lr,
		      struct epoch_stats *st)
{
	unsigned int correct = 0;
	double t0, t1, t2;
	int ret;

	t0 = now_s();
	load_rows(train, idx, rows, m->act[0]);
	model_forward(m, rows);
	st->loss_sum += model_loss(m, rows, train->labels, idx, &correct, 1);
	model_backward(m, rows);
	t1 = now_s();
	ret = optinc_allreduce(comm, m->grad, m->grad, m->nparams,
			       OPTINC_FLOAT32, OPTINC_AVG);
	if (ret < 0) {
		fprintf(stderr, "train_fmnist: rank %d: gradient all-reduce: %s\n",
			optinc_comm_rank(comm), optinc_comm_errmsg(comm));
		return ret;
	}
	t2 = now_s();
	model_update(m, lr, cfg->momentum);
	st->compute_s += (t1 - t0) + (now_s() - t2);
	st->comm_s += t2 - t1;
	st->examples += rows;
	st->steps++;
	return 0;
}

static int train_epoch(struct optinc_comm *comm, struct model *m,
		       const struct config *cfg, const struct dataset *train,
		       unsigned int *perm, unsigned int epoch,
		       struct epoch_stats *st)
{
	unsigned int size = optinc_comm_size(comm), rank = optinc_comm_rank(comm);
	unsigned int local = cfg->batch / size, s, steps = train->n / cfg->batch;
	struct optinc_comm_stats cs0 = { .sz = sizeof(cs0) };
	struct optinc_comm_stats cs1 = { .sz = sizeof(cs1) };
	int ret;

	memset(st, 0, sizeof(*st));
	shuffle(perm, train->n, cfg->seed ^ (0x5eedull << 32 | epoch));
	optinc_comm_get_stats(comm, &cs0);
	for (s = 0; s < steps; s++) {
		ret = train_step(comm, m, cfg, train,
				 perm + (size_t)s * cfg->batch + rank * local,
				 local, lr_at(cfg, epoch, s, steps), st);
		if (ret < 0)
			return ret;
	}
	optinc_comm_get_stats(comm, &cs1);
	st->bytes_sent = cs1.bytes_sent - cs0.bytes_sent;
	return 0;
}

/* This rank's share of a data set: summed loss and correct answers. */
static void evaluate(struct model *m, const struct dataset *test,
		     unsigned int rank, unsigned int size, double *loss,
		     unsigned int *correct, unsigned int *count)
{
	unsigned int first = (uint64_t)test->n * rank / size;
	unsigned int end = (uint64_t)test->n * (rank + 1) / size;
	unsigned int idx[256], i, rows;

	*loss = 0;
	*correct = 0;
	*count = end - first;
	while (first < end) {
		rows = end - first < 256 ? end - first : 256;
		for (i = 0; i < rows; i++)
			idx[i] = first + i;
		load_rows(test, idx, rows, m->act[0]);
		model_forward(m, rows);
		*loss += model_loss(m, rows, test->labels, idx, correct, 0);
		first += rows;
	}
}

/* Epoch 0 only measures the initial model: its loss on the training set. */
static int run_epoch(struct optinc_comm *comm, struct model *m,
		     const struct config *cfg, const struct dataset *train,
		     unsigned int *perm, unsigned int epoch,
		     struct epoch_stats *st)
{
	unsigned int correct, count;

	if (epoch)
		return train_epoch(comm, m, cfg, train, perm, epoch - 1, st);
	memset(st, 0, sizeof(*st));
	evaluate(m, train, optinc_comm_rank(comm), optinc_comm_size(comm),
		 &st->loss_sum, &correct, &count);
	st->examples = count;
	return 0;
}

/*
 * Sum counters over the ranks exactly with int32 SUM: each non-negative
 * 64-bit value travels as (v >> 16, v & 0xffff), so no word overflows.
 */
static int sum_counters(struct optinc_comm *comm, const uint64_t *v,
			uint64_t *total, unsigned int n)
{
	int32_t w[16];
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		w[2 * i] = (int32_t)(v[i] >> 16);
		w[2 * i + 1] = (int32_t)(v[i] & 0xffff);
	}
	ret = optinc_allreduce(comm, w, w, 2 * n, OPTINC_INT32, OPTINC_SUM);
	if (ret < 0) {
		fprintf(stderr, "train_fmnist: rank %d: counter all-reduce: %s\n",
			optinc_comm_rank(comm), optinc_comm_errmsg(comm));
		return ret;
	}
	for (i = 0; i < n; i++)
		total[i] = (uint64_t)(uint32_t)w[2 * i] * 65536 +
			   (uint32_t)w[2 * i + 1];
	return 0;
}

static int epoch_totals(struct optinc_comm *comm, struct model *m,
			const struct dataset *test,
			const struct epoch_stats *st, struct epoch_totals *t)
{
	unsigned int size = optinc_comm_size(comm), correct, count;
	uint64_t v[7], sum[7], h = model_hash(m);
	double test_loss;
	int ret;

	evaluate(m, test, optinc_comm_rank(comm), size, &test_loss, &correct,
		 &count);
	v[0] = llround(st->loss_sum * 1e6);
	v[1] = st->examples;
	v[2] = llround(test_loss * 1e6);
	v[3] = correct;
	v[4] = count;
	v[5] = h >> 32;
	v[6] = h & 0xffffffffu;
	ret = sum_counters(comm, v, sum, 7);
	if (ret < 0)
		return ret;
	t->train_loss = sum[0] * 1e-6 / (sum[1] ? sum[1] : 1);
	t->test_loss = sum[2] * 1e-6 / (sum[4] ? sum[4] : 1);
	t->test_acc = 100.0 * sum[3] / (sum[4] ? sum[4] : 1);
	t->in_sync = sum[5] == v[5] * size && sum[6] == v[6] * size;
	return 0;
}

/* ---- reporting ---- */

static FILE *csv_open(const char *path)
{
	FILE *f = fopen(path, "a");

	if (!f) {
		fprintf(stderr, "train_fmnist: open %s: %s\n", path,
			strerror(errno));
		return NULL;
	}
	if (ftell(f) == 0)
		fprintf(f, "epoch,algo,ranks,bits,steps,batch,train_loss,test_loss,test_acc,step_ms,compute_ms,comm_ms,bytes_sent_per_step,grad_bytes\n");
	return f;
}

static void report(const struct config *cfg, const struct model *m,
		   unsigned int size, unsigned int bits, unsigned int epoch,
		   const struct epoch_stats *st, const struct epoch_totals *t,
		   FILE *csv)
{
	double n = st->steps ? st->steps : 1;
	double comp = st->compute_s * 1e3 / n, comm = st->comm_s * 1e3 / n;

	printf("epoch %u/%u %s: train loss %.4f, test loss %.4f, test accuracy %.2f %%",
	       epoch, cfg->epochs, cfg->algo, t->train_loss, t->test_loss,
	       t->test_acc);
	if (st->steps)
		printf(", step %.2f ms (compute %.2f, comm %.2f), sent %.0f B/step/rank",
		       comp + comm, comp, comm, st->bytes_sent / n);
	printf("\n");
	fflush(stdout);
	if (!csv)
		return;
	fprintf(csv, "%u,%s,%u,%u,%u,%u,%.6f,%.6f,%.4f,%.4f,%.4f,%.4f,%.1f,%zu\n",
		epoch, cfg->algo, size, bits, st->steps, cfg->batch,
		t->train_loss, t->test_loss, t->test_acc, comp + comm, comp,
		comm, st->bytes_sent / n, m->nparams * sizeof(float));
	fflush(csv);
}

static int train(struct optinc_comm *comm, const struct config *cfg,
		 const struct dataset *train_set, const struct dataset *test)
{
	unsigned int size = optinc_comm_size(comm), e, bits;
	int rank = optinc_comm_rank(comm), ret;
	const char *env_bits = getenv("OPTINC_BITS");
	struct epoch_stats st;
	struct epoch_totals t;
	unsigned int *perm;
	FILE *csv = NULL;
	struct model m = { 0 };

	bits = cfg->bits ? cfg->bits : env_bits ? strtoul(env_bits, NULL, 0) : 8;
	if (!strcmp(cfg->algo, "ring"))
		bits = 32;
	perm = malloc(train_set->n * sizeof(*perm));
	ret = perm ? model_init(&m, cfg->batch / size > 256 ?
				cfg->batch / size : 256, cfg->seed) : -ENOMEM;
	if (ret < 0) {
		fprintf(stderr, "train_fmnist: out of memory\n");
		goto out;
	}
	if (rank == 0) {
		printf("train_fmnist: %u ranks, algo %s, %u bits, %zu parameters, %u train / %u test examples, batch %u, lr %g, momentum %g\n",
		       size, cfg->algo, bits, m.nparams, train_set->n, test->n,
		       cfg->batch, cfg->lr, cfg->momentum);
		if (cfg->csv && !(csv = csv_open(cfg->csv)))
			ret = -EIO;
	}
	for (e = 0; e <= cfg->epochs && !ret; e++) {
		ret = run_epoch(comm, &m, cfg, train_set, perm, e, &st);
		if (!ret)
			ret = epoch_totals(comm, &m, test, &st, &t);
		if (!ret && !t.in_sync) {
			fprintf(stderr, "train_fmnist: rank %d: parameters differ between ranks after epoch %u\n",
				rank, e);
			ret = -EPROTO;
		}
		if (!ret && rank == 0)
			report(cfg, &m, size, bits, e, &st, &t, csv);
	}
	if (csv)
		fclose(csv);
out:
	model_free(&m);
	free(perm);
	return ret;
}

/* ---- main ---- */

static void usage(void)
{
	fprintf(stderr,
		"usage: train_fmnist [--epochs N] [--batch B] [--lr LR] [--momentum M]\n"
		"                    [--subset N] [--test-subset N] [--bits 8|16]\n"
		"                    [--algo optinc|ring] [--seed S] [--data DIR] [--csv FILE]\n"
		"Rank, size and switch come from the environment (OPTINC_RANK, OPTINC_SIZE,\n"
		"OPTINC_SWITCH, OPTINC_PEERS, OPTINC_ALGO, ...); B is the global batch.\n");
}

static int parse_args(int argc, char **argv, struct config *c)
{
	static const struct option lopts[] = {
		{ "epochs", 1, NULL, 'e' }, { "batch", 1, NULL, 'b' },
		{ "lr", 1, NULL, 'l' }, { "momentum", 1, NULL, 'm' },
		{ "subset", 1, NULL, 's' }, { "test-subset", 1, NULL, 't' },
		{ "bits", 1, NULL, 'B' }, { "algo", 1, NULL, 'a' },
		{ "seed", 1, NULL, 'S' }, { "data", 1, NULL, 'd' },
		{ "csv", 1, NULL, 'c' }, { "help", 0, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int o;

	while ((o = getopt_long(argc, argv, "e:b:l:m:s:t:B:a:S:d:c:h", lopts,
				NULL)) != -1) {
		switch (o) {
		case 'e': c->epochs = strtoul(optarg, NULL, 0); break;
		case 'b': c->batch = strtoul(optarg, NULL, 0); break;
		case 'l': c->lr = strtof(optarg, NULL); break;
		case 'm': c->momentum = strtof(optarg, NULL); break;
		case 's': c->subset = strtoul(optarg, NULL, 0); break;
		case 't': c->test_subset = strtoul(optarg, NULL, 0); break;
		case 'B': c->bits = strtoul(optarg, NULL, 0); break;
		case 'a': c->algo = optarg; break;
		case 'S': c->seed = strtoull(optarg, NULL, 0); break;
		case 'd': c->data_dir = optarg; break;
		case 'c': c->csv = optarg; break;
		default: usage(); return -EINVAL;
		}
	}
	if (optind != argc || !c->epochs || !c->batch || !(c->lr > 0) ||
	    (c->algo && strcmp(c->algo, "optinc") && strcmp(c->algo, "ring"))) {
		usage();
		return -EINVAL;
	}
	return 0;
}

static int open_comm(struct config *cfg, struct optinc_comm **comm)
{
	OPTINC_OPTS(opts, .bits = cfg->bits);
	int ret;

	if (cfg->algo)
		opts.algo = strcmp(cfg->algo, "ring") ? OPTINC_ALGO_OPTINC :
							 OPTINC_ALGO_RING;
	else
		cfg->algo = getenv("OPTINC_ALGO") ? getenv("OPTINC_ALGO") : "optinc";
	ret = optinc_comm_create(&opts, comm);
	if (ret < 0) {
		fprintf(stderr, "train_fmnist: joining the job: %s\n",
			optinc_comm_errmsg(*comm));
		return ret;
	}
	if (cfg->batch % optinc_comm_size(*comm)) {
		fprintf(stderr, "train_fmnist: batch %u is not a multiple of the %d ranks\n",
			cfg->batch, optinc_comm_size(*comm));
		optinc_comm_destroy(*comm);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct config cfg = {
		.epochs = 3, .batch = 128, .lr = 0.05f, .momentum = 0.9f,
		.seed = 1, .data_dir = DATA_DIR,
	};
	struct dataset train_set, test;
	struct optinc_comm *comm = NULL;
	int ret;

	if (parse_args(argc, argv, &cfg) < 0)
		return 2;
	openblas_set_num_threads(1);
	ret = open_comm(&cfg, &comm);
	if (ret < 0)
		return 1;
	ret = dataset_load(&train_set, cfg.data_dir, "train", cfg.subset);
	if (ret == 0) {
		ret = dataset_load(&test, cfg.data_dir, "t10k", cfg.test_subset);
		if (ret == 0) {
			ret = train(comm, &cfg, &train_set, &test);
			dataset_free(&test);
		}
		dataset_free(&train_set);
	}
	optinc_comm_destroy(comm);
	return ret < 0 ? 1 : 0;
}
