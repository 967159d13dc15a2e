// SPDX-License-Identifier: BSD-3-Clause
/*
 * optinc-bench: all-reduce time over a range of sizes through liboptinc, one
 * process per rank (started by optinc-testbed run, mpirun, ...); rank 0
 * prints the table with the nccl-tests formulas (algbw = S/t,
 * busbw = algbw * 2(n-1)/n) and, with -c, the error against a
 * double-precision reference of all ranks' inputs; with -P, percentiles of
 * the call time over every rank's calls.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <optinc/optinc.h>
#include "refdata.h"

#define BENCH_SEED	0x6f7074696e63ull

struct bench_cfg {
	size_t minb, maxb;
	unsigned int factor, iters, warmup, bits, block;
	int dtype, op, algo, check, pct;
	double tlimit;
};

struct bench_row {
	size_t bytes, count;
	double us, sent;	/* mean time per call, UDP bytes sent per call */
	unsigned int iters;
	long bad;		/* -1: not checked */
	double max_abs, ratio;
	int same;		/* all ranks' results bit-identical */
	double p50, p99, pmax;	/* -P: over every rank's timed calls (us) */
	int32_t *t_us;		/* -P: this rank's call times */
};

static void bench_usage(void)
{
	fprintf(stderr,
		"usage: optinc-bench [-b MINBYTES] [-e MAXBYTES] [-f FACTOR] [-n ITERS] [-w WARMUP]\n"
		"                    [-d float|int] [-o avg|sum] [-a optinc|ring] [-c] [-T SECS]\n"
		"                    [--bits 8|16] [--block N] [-P]\n"
		"  sizes take K, M, G suffixes (powers of 1024); -c checks every size against\n"
		"  a double-precision reference; -T stops a size's iterations after SECS;\n"
		"  -P adds p50, p99 and the maximum of the call time over every rank's calls.\n"
		"  Rank, size and switch come from the environment (OPTINC_*, mpirun, Slurm).\n");
}

static int bench_word(const char *s, const char *a, int va, const char *b,
		      int vb)
{
	return !strcmp(s, a) ? va : !strcmp(s, b) ? vb : -1;
}

static int bench_parse(int argc, char **argv, struct bench_cfg *cfg)
{
	static const struct option lopts[] = {
		{ "bits", required_argument, NULL, 'B' },
		{ "block", required_argument, NULL, 'K' },
		{ "check", no_argument, NULL, 'c' },
		{ "percentiles", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, err = 0;

	while ((c = getopt_long(argc, argv, "b:e:f:n:w:d:o:a:cPT:h", lopts,
				NULL)) != -1) {
		switch (c) {
		case 'b': err |= refdata_parse_size(optarg, &cfg->minb); break;
		case 'e': err |= refdata_parse_size(optarg, &cfg->maxb); break;
		case 'f': cfg->factor = atoi(optarg); break;
		case 'n': cfg->iters = atoi(optarg); break;
		case 'w': cfg->warmup = atoi(optarg); break;
		case 'd':
			cfg->dtype = bench_word(optarg, "float", OPTINC_FLOAT32,
						"int", OPTINC_INT32);
			break;
		case 'o':
			cfg->op = bench_word(optarg, "avg", OPTINC_AVG,
					     "sum", OPTINC_SUM);
			break;
		case 'a':
			cfg->algo = bench_word(optarg, "optinc", OPTINC_ALGO_OPTINC,
					       "ring", OPTINC_ALGO_RING);
			break;
		case 'c': cfg->check = 1; break;
		case 'P': cfg->pct = 1; break;
		case 'T': cfg->tlimit = atof(optarg); break;
		case 'B': cfg->bits = atoi(optarg); break;
		case 'K': cfg->block = atoi(optarg); break;
		default: return -EINVAL;
		}
	}
	if (err || optind != argc || cfg->dtype < 0 || cfg->op < 0 ||
	    cfg->algo == -1 || cfg->factor < 2 || !cfg->iters ||
	    cfg->minb < 4 || cfg->maxb < cfg->minb || !cfg->block ||
	    (cfg->dtype == OPTINC_INT32 && cfg->op != OPTINC_SUM))
		return -EINVAL;
	return 0;
}

static double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int bench_ar(struct optinc_comm *comm, const void *in, void *out,
		    size_t count, int dtype, int op)
{
	int err = optinc_allreduce(comm, in, out, count, dtype, op);

	if (err)
		fprintf(stderr, "rank %d: allreduce of %zu elements: %s: %s\n",
			optinc_comm_rank(comm), count, optinc_strerror(err),
			optinc_comm_errmsg(comm));
	return err;
}

/* Integer sum over ranks (exact), for agreeing on times, flags and hashes. */
static int bench_isum(struct optinc_comm *comm, int32_t *v, size_t n)
{
	return bench_ar(comm, v, v, n, OPTINC_INT32, OPTINC_SUM);
}

static uint64_t bench_sent(struct optinc_comm *comm)
{
	struct optinc_comm_stats st = { .sz = sizeof(st) };

	return optinc_comm_get_stats(comm, &st) ? 0 : st.bytes_sent;
}

/*
 * Run @n timed calls, or fewer when -T says so: after each call the ranks
 * agree (outside the timed part) on whether any of them is out of time.
 */
static int bench_loop(struct optinc_comm *comm, const struct bench_cfg *cfg,
		      const void *in, void *out, size_t count,
		      struct bench_row *row)
{
	double t = 0, t0;
	uint64_t s0 = bench_sent(comm);
	int32_t flag = 0;
	unsigned int i;
	int err = 0;

	for (i = 0; i < cfg->iters && !flag; i++) {
		t0 = bench_now();
		err = bench_ar(comm, in, out, count, cfg->dtype, cfg->op);
		t0 = bench_now() - t0;
		t += t0;
		if (row->t_us)
			row->t_us[i] = t0 * 1e6 > INT32_MAX / 64 ?
				       INT32_MAX / 64 : (int32_t)(t0 * 1e6);
		if (!err && cfg->tlimit > 0) {
			flag = t >= cfg->tlimit;
			err = bench_isum(comm, &flag, 1);
		}
		if (err)
			return err;
	}
	row->iters = i;
	row->us = t / i * 1e6;
	row->sent = (double)(bench_sent(comm) - s0) / i;
	return 0;
}

/* Mean time over ranks: integer microseconds summed exactly. */
static int bench_mean_time(struct optinc_comm *comm, struct bench_row *row)
{
	int32_t us = row->us > INT32_MAX / 64 ? INT32_MAX / 64 : (int32_t)row->us;
	int err = bench_isum(comm, &us, 1);

	if (!err)
		row->us = (double)us / optinc_comm_size(comm);
	return err;
}

static int bench_cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/*
 * -P: every rank's call times to rank 0 (an exact integer sum of arrays
 * where each rank fills its own part), then percentiles by nearest rank.
 */
static int bench_percentiles(struct optinc_comm *comm, struct bench_row *row)
{
	int rank = optinc_comm_rank(comm), size = optinc_comm_size(comm);
	size_t n = (size_t)size * row->iters;
	int32_t *all = calloc(n, sizeof(*all));
	int err;

	if (!all)
		return -ENOMEM;
	memcpy(all + (size_t)rank * row->iters, row->t_us,
	       row->iters * sizeof(*all));
	err = bench_isum(comm, all, n);
	if (!err) {
		qsort(all, n, sizeof(*all), bench_cmp_i32);
		row->p50 = all[(n * 50 + 99) / 100 - 1];
		row->p99 = all[(n * 99 + 99) / 100 - 1];
		row->pmax = all[n - 1];
	}
	free(all);
	return err;
}

/* Every rank hashes its result; rank 0 also checks it against the reference. */
static int bench_check(struct optinc_comm *comm, const struct bench_cfg *cfg,
		       const void *out, struct bench_row *row)
{
	int rank = optinc_comm_rank(comm), size = optinc_comm_size(comm);
	uint64_t h = refdata_hash(out, row->count * 4);
	int32_t *hs = calloc(2 * size, sizeof(*hs));
	struct refdata_err e;
	size_t first;
	float *tmp;
	int i, err;

	if (!hs)
		return -ENOMEM;
	hs[2 * rank] = (int32_t)(uint32_t)h;
	hs[2 * rank + 1] = (int32_t)(uint32_t)(h >> 32);
	err = bench_isum(comm, hs, 2 * size);
	row->same = 1;
	for (i = 1; !err && i < size; i++)
		row->same &= hs[2 * i] == hs[0] && hs[2 * i + 1] == hs[1];
	free(hs);
	if (err || rank)
		return err;
	if (cfg->dtype == OPTINC_INT32) {
		row->bad = refdata_check_int(out, row->count, size, BENCH_SEED,
					     &first);
		row->max_abs = row->ratio = 0;
		return 0;
	}
	tmp = malloc(cfg->block * sizeof(*tmp));
	if (!tmp || refdata_check_float(out, row->count, size, BENCH_SEED,
					cfg->op == OPTINC_AVG, cfg->bits,
					cfg->block, tmp, &e)) {
		free(tmp);
		fprintf(stderr, "optinc-bench: cannot compute the reference\n");
		return -ERANGE;
	}
	free(tmp);
	row->bad = e.bad;
	row->max_abs = e.max_abs;
	row->ratio = e.max_ratio;
	return 0;
}

static void bench_header(const struct bench_cfg *cfg, struct optinc_comm *comm)
{
	const char *xport = getenv("OPTINC_TRANSPORT");

	printf("# optinc-bench: %d ranks, algo %s%s%s, %s %s, bits %u, block %u, iters %u, warmup %u%s\n",
	       optinc_comm_size(comm),
	       cfg->algo == OPTINC_ALGO_RING ? "ring" : "optinc",
	       cfg->algo != OPTINC_ALGO_RING && xport ? " over " : "",
	       cfg->algo != OPTINC_ALGO_RING && xport ? xport : "",
	       cfg->dtype == OPTINC_INT32 ? "int32" : "float32",
	       cfg->op == OPTINC_AVG ? "avg" : "sum", cfg->bits, cfg->block,
	       cfg->iters, cfg->warmup, cfg->check ? ", checked" : "");
	printf("# %12s %11s %11s %9s %9s %12s %7s %9s %9s %4s", "size(B)",
	       "count", "time(us)", "algbw", "busbw", "sent/rank", "sent/S",
	       "max|err|", "err/bound", "same");
	if (cfg->pct)
		printf(" %10s %10s %10s", "p50(us)", "p99(us)", "max(us)");
	printf("\n# %12s %11s %11s %9s %9s %12s %7s %9s %9s %4s\n", "", "",
	       "", "(GB/s)", "(GB/s)", "(B/call)", "", "", "", "");
}

static void bench_print(const struct bench_row *r, int size)
{
	double algbw = r->bytes / (r->us * 1e-6) / 1e9;

	printf("  %12zu %11zu %11.1f %9.4f %9.4f %12.0f %7.3f", r->bytes,
	       r->count, r->us, algbw, algbw * 2 * (size - 1) / size, r->sent,
	       r->sent / r->bytes);
	if (r->bad < 0)
		printf(" %9s %9s %4s", "-", "-", "-");
	else
		printf(" %9.3g %9.3f %4s", r->max_abs, r->ratio,
		       r->same ? "yes" : "NO");
	if (r->t_us)
		printf(" %10.0f %10.0f %10.0f", r->p50, r->p99, r->pmax);
	printf("%s\n", r->bad > 0 ? "  WRONG" : "");
	fflush(stdout);
}

static int bench_sizes(struct optinc_comm *comm, const struct bench_cfg *cfg,
		       const void *in, void *out)
{
	int32_t *t_us = cfg->pct ? calloc(cfg->iters, sizeof(*t_us)) : NULL;
	struct bench_row row;
	unsigned int i;
	int err = cfg->pct && !t_us ? -ENOMEM : 0, wrong = 0;
	size_t b;

	for (b = cfg->minb; b <= cfg->maxb && !err; b *= cfg->factor) {
		memset(&row, 0, sizeof(row));
		row.bytes = b / 4 * 4;
		row.count = b / 4;
		row.bad = -1;
		row.t_us = t_us;
		for (i = 0; i < cfg->warmup && !err; i++)
			err = bench_ar(comm, in, out, row.count, cfg->dtype,
				       cfg->op);
		err = err ?: bench_loop(comm, cfg, in, out, row.count, &row) ?:
		      bench_mean_time(comm, &row);
		if (!err && t_us)
			err = bench_percentiles(comm, &row);
		if (!err && cfg->check)
			err = bench_check(comm, cfg, out, &row);
		if (err)
			break;
		if (optinc_comm_rank(comm) == 0)
			bench_print(&row, optinc_comm_size(comm));
		wrong |= row.bad > 0 || (cfg->check && !row.same);
	}
	free(t_us);
	return err ?: wrong ? -EDOM : 0;
}

int main(int argc, char **argv)
{
	struct bench_cfg cfg = { .minb = 4096, .maxb = 256u << 20, .factor = 2,
				 .iters = 20, .warmup = 2, .bits = 8,
				 .block = 256, .dtype = OPTINC_FLOAT32,
				 .op = OPTINC_AVG, .algo = -2 };
	struct optinc_comm *comm;
	void *in, *out;
	int err;

	if (bench_parse(argc, argv, &cfg)) {
		bench_usage();
		return 2;
	}
	OPTINC_OPTS(opts, .bits = cfg.bits, .block = cfg.block,
		    .algo = cfg.algo == -2 ? -1 : cfg.algo);
	err = optinc_comm_create(&opts, &comm);
	if (err) {
		fprintf(stderr, "optinc-bench: comm_create: %s: %s\n",
			optinc_strerror(err), optinc_comm_errmsg(NULL));
		return 1;
	}
	if (cfg.algo == -2)
		cfg.algo = OPTINC_ALGO_OPTINC;
	in = malloc(cfg.maxb);
	out = malloc(cfg.maxb);
	if (!in || !out) {
		fprintf(stderr, "optinc-bench: no memory for 2 x %zu bytes\n",
			cfg.maxb);
		err = -ENOMEM;
	} else {
		if (cfg.dtype == OPTINC_INT32)
			refdata_fill_int(in, cfg.maxb / 4, BENCH_SEED,
					 optinc_comm_rank(comm));
		else
			refdata_fill_float(in, cfg.maxb / 4, BENCH_SEED,
					   optinc_comm_rank(comm));
		if (optinc_comm_rank(comm) == 0)
			bench_header(&cfg, comm);
		err = bench_sizes(comm, &cfg, in, out);
	}
	free(in);
	free(out);
	optinc_comm_destroy(comm);
	if (err == -EDOM)
		fprintf(stderr, "optinc-bench: results out of bound or not identical\n");
	return err ? 1 : 0;
}
