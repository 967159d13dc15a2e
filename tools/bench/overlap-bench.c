// SPDX-License-Identifier: BSD-3-Clause
/*
 * optinc-overlap-bench: one rank; how much of the communication hides
 * behind compute. k non-blocking all-reduces of B/k bytes each progress
 * while the rank "computes" for a fixed time, as a timed wait that leaves
 * the CPU free (a GPU's backward pass) and as a CPU busy loop. Rank 0
 * prints compute alone, communication alone, both, and the overlap ratio
 * total / max(compute, comm) (1.0: fully hidden, 2.0: none), then the CPU
 * its progress thread used while idle. Medians over iterations, each of
 * which times communication alone and then with compute as long as that.
 */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <optinc/optinc.h>
#include "progress_cpu.h"
#include "refdata.h"

#define OB_MAX_K	64

struct ob_cfg {
	size_t bytes;
	int k, iters, warmup;
	double compute_ms;	/* 0: as long as communication alone */
	double idle_s;
	int sleep, spin;
};

struct ob_run {
	struct optinc_comm *c;
	const struct ob_cfg *cfg;
	float *x, *y;
	size_t per;		/* elements of one request */
};

static double ob_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Compute for @secs: asleep (the CPU is free) or spinning on it. */
static void ob_compute(double secs, int spin)
{
	struct timespec ts;
	double end = ob_now() + secs;
	volatile unsigned long n = 0;

	if (!spin) {
		ts.tv_sec = (time_t)secs;
		ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		return;
	}
	while (ob_now() < end)
		n++;
}

static int ob_barrier(struct optinc_comm *c)
{
	int32_t v = 0;

	return optinc_allreduce(c, &v, &v, 1, OPTINC_INT32, OPTINC_SUM);
}

/*
 * One timed round after a barrier: post k requests, compute for @secs
 * (if > 0), wait for all. Returns the seconds it took, or < 0 on error.
 */
static double ob_round(struct ob_run *r, double secs, int spin)
{
	struct optinc_request *req[OB_MAX_K];
	int j, err = ob_barrier(r->c);
	double t0 = ob_now();

	for (j = 0; j < r->cfg->k && !err; j++)
		err = optinc_iallreduce(r->c, r->x + j * r->per,
					r->y + j * r->per, r->per,
					OPTINC_FLOAT32, OPTINC_AVG, &req[j]);
	if (secs > 0)
		ob_compute(secs, spin);
	if (!err)
		err = optinc_waitall(req, j, NULL);
	else
		optinc_waitall(req, j, NULL);
	if (err) {
		fprintf(stderr, "overlap-bench: %s: %s\n", optinc_strerror(err),
			optinc_comm_errmsg(r->c));
		return -1;
	}
	return ob_now() - t0;
}

/* The slowest rank's @t: every rank adds its own into a vector (SUM). */
static double ob_slowest(struct optinc_comm *c, double t)
{
	int n = optinc_comm_size(c), i;
	int32_t us[1024] = { 0 };
	double worst = 0;

	us[optinc_comm_rank(c)] = (int32_t)(t * 1e6);
	if (t < 0 || optinc_allreduce(c, us, us, n, OPTINC_INT32, OPTINC_SUM))
		return -1;
	for (i = 0; i < n; i++)
		if (us[i] / 1e6 > worst)
			worst = us[i] / 1e6;
	return worst;
}

static int ob_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double ob_median(double *v, int n)
{
	qsort(v, n, sizeof(*v), ob_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double ob_compute_alone(double secs, int spin)
{
	double t0 = ob_now();

	ob_compute(secs, spin);
	return ob_now() - t0;
}

static void ob_idle(const struct ob_cfg *cfg, int rank)
{
	long t0, s0, t1, s1;
	int n;

	n = optinc_progress_cpu(&t0, &s0);
	ob_compute(cfg->idle_s, 0);
	optinc_progress_cpu(&t1, &s1);
	if (rank)
		return;
	printf("idle: %d progress thread(s), %.0f s idle: %ld ticks = %.1f ms of CPU (%.3f %%), %ld context switches\n",
	       n, cfg->idle_s, t1 - t0, (t1 - t0) * 1e3 / sysconf(_SC_CLK_TCK),
	       (t1 - t0) * 100.0 / sysconf(_SC_CLK_TCK) / cfg->idle_s,
	       s1 - s0);
}

#define OB_MAX_ITERS	1000

struct ob_stats {
	double comp[OB_MAX_ITERS], comm[OB_MAX_ITERS], tot[OB_MAX_ITERS];
	double ratio[OB_MAX_ITERS];
};

/* Medians (each sorted on its own), and the range of the ratios. */
static void ob_line(const char *mode, struct ob_stats *s, int n)
{
	double comp = ob_median(s->comp, n), comm = ob_median(s->comm, n);
	double tot = ob_median(s->tot, n), r = ob_median(s->ratio, n);

	printf("%-6s compute %8.3f ms  comm %8.3f ms  total %8.3f ms  overlap ratio %.3f (%.3f-%.3f)\n",
	       mode, comp * 1e3, comm * 1e3, tot * 1e3, r, s->ratio[0],
	       s->ratio[n - 1]);
}

/*
 * Per iteration, one round of communication alone, then one with compute
 * as long as that (the slowest rank's, the same on all), or -C: a change
 * of the machine's load hits both alike. Each time is the slowest rank's.
 */
static int ob_mode(struct ob_run *r, int spin, struct ob_stats *s)
{
	double secs = r->cfg->compute_ms / 1e3;
	int i;

	for (i = 0; i < r->cfg->iters; i++) {
		s->comm[i] = ob_slowest(r->c, ob_round(r, 0, 0));
		if (r->cfg->compute_ms <= 0)
			secs = s->comm[i];
		s->comp[i] = ob_compute_alone(secs, spin);
		s->tot[i] = ob_slowest(r->c, ob_round(r, secs, spin));
		if (s->comm[i] < 0 || s->tot[i] < 0)
			return -1;
		s->ratio[i] = s->tot[i] / (s->comp[i] > s->comm[i] ?
					   s->comp[i] : s->comm[i]);
	}
	return 0;
}

static int ob_bench(struct ob_run *r)
{
	const struct ob_cfg *cfg = r->cfg;
	int rank = optinc_comm_rank(r->c), i, spin;
	struct ob_stats *s = calloc(1, sizeof(*s));

	for (i = 0; s && i < cfg->warmup; i++)
		if (ob_round(r, 0, 0) < 0)
			goto out_fail;
	if (!s)
		goto out_fail;
	if (!rank)
		printf("N %d, %zu bytes float32 AVG in %d requests of %zu bytes, %d iterations; compute %s\n",
		       optinc_comm_size(r->c), cfg->bytes, cfg->k, r->per * 4,
		       cfg->iters, cfg->compute_ms > 0 ? "fixed (-C)" :
		       "as long as the iteration's comm alone");
	for (spin = 0; spin < 2; spin++) {
		if ((spin && !cfg->spin) || (!spin && !cfg->sleep))
			continue;
		if (ob_mode(r, spin, s))
			goto out_fail;
		if (!rank)
			ob_line(spin ? "spin" : "sleep", s, cfg->iters);
	}
	if (cfg->idle_s > 0)
		ob_idle(cfg, rank);
	free(s);
	return 0;
out_fail:
	free(s);
	return 1;
}

static int ob_parse(int argc, char **argv, struct ob_cfg *cfg)
{
	int c;

	while ((c = getopt(argc, argv, "b:k:n:w:C:m:i:")) != -1) {
		switch (c) {
		case 'b':
			if (refdata_parse_size(optarg, &cfg->bytes))
				return -1;
			break;
		case 'k': cfg->k = atoi(optarg); break;
		case 'n': cfg->iters = atoi(optarg); break;
		case 'w': cfg->warmup = atoi(optarg); break;
		case 'C': cfg->compute_ms = atof(optarg); break;
		case 'm':
			cfg->sleep = !strcmp(optarg, "sleep") || !strcmp(optarg, "both");
			cfg->spin = !strcmp(optarg, "spin") || !strcmp(optarg, "both");
			break;
		case 'i': cfg->idle_s = atof(optarg); break;
		default: return -1;
		}
	}
	return cfg->k < 1 || cfg->k > OB_MAX_K || cfg->iters < 1 ||
	       cfg->iters > OB_MAX_ITERS || cfg->warmup < 1 ||
	       cfg->warmup > OB_MAX_ITERS ||
	       cfg->bytes < 4u * cfg->k || (!cfg->sleep && !cfg->spin) ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct ob_cfg cfg = { .bytes = 16 << 20, .k = 4, .iters = 9,
			      .warmup = 2, .idle_s = 5, .sleep = 1, .spin = 1 };
	struct ob_run r = { .cfg = &cfg };
	size_t i, n;
	int err;

	if (ob_parse(argc, argv, &cfg)) {
		fprintf(stderr,
			"usage: optinc-overlap-bench [-b BYTES] [-k REQUESTS] [-n ITERS] [-w WARMUP]\n"
			"                            [-C COMPUTE_MS] [-m sleep|spin|both] [-i IDLE_SECS]\n");
		return 2;
	}
	r.per = cfg.bytes / 4 / cfg.k;
	n = r.per * cfg.k;
	r.x = malloc(n * 4);
	r.y = malloc(n * 4);
	OPTINC_OPTS(opts, .bits = 8);
	if (!r.x || !r.y || optinc_comm_create(&opts, &r.c)) {
		fprintf(stderr, "overlap-bench: %s\n", r.x && r.y ?
			optinc_comm_errmsg(NULL) : "out of memory");
		return 1;
	}
	for (i = 0; i < n; i++)
		r.x[i] = refdata_float(1, optinc_comm_rank(r.c), i);
	err = ob_bench(&r);
	optinc_comm_destroy(r.c);
	free(r.x);
	free(r.y);
	return err;
}
