// SPDX-License-Identifier: GPL-2.0
/*
 * One rank of a job in the many-jobs test: all-reduce deterministic data in
 * a loop for a given time (the ranks of a job agree when to stop), check the
 * first result against a double-precision reference and every later one
 * bit for bit against the first, and report the job's throughput. With -V
 * every call has new data (seed + call number) and every result is checked
 * against its own reference: a result of another call cannot pass.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <optinc/optinc.h>
#include "refdata.h"

#define SCALE_BLOCK	256	/* values per scale block, the library's default */

struct scale_cfg {
	size_t count;
	int dtype, op;
	unsigned int bits;
	uint64_t seed;
	double secs;		/* loop this long (the slowest rank decides) */
	double start_at;	/* CLOCK_REALTIME to start the loop at, 0: now */
	long max_iters;
	int grank, gsize;	/* -g: place among all ranks of a cascade */
	int vary;		/* -V: new data every call, every result checked */
};

struct scale_res {
	long iters;
	double busy;		/* seconds inside the data all-reduces */
	double wall;		/* seconds of the whole loop */
	long wrong;		/* results that differ from the first */
	long bad;		/* elements over the bound (first result, or all with -V) */
	struct refdata_err err;	/* the worst of the checked results */
	uint64_t hash;		/* of the first result, or of all with -V */
};

static void scale_usage(void)
{
	fprintf(stderr,
		"usage: scale_rank [-c COUNT] [-t float|int] [-o avg|sum] [-b BITS] [-s SEED]\n"
		"                  [-T SECS] [-n MAXITERS] [-S REALTIME_START] [-g RANK:SIZE] [-V]\n"
		"rank, size, job and switch come from the environment (OPTINC_*);\n"
		"-g: the data and the reference are those of rank RANK of SIZE (a rank\n"
		"of one first-level group in a two-level cascade);\n"
		"-V: call k all-reduces the data of seed SEED + k and checks its result\n"
		"against its reference; the hash covers every result.\n");
}

static int scale_parse(int argc, char **argv, struct scale_cfg *cfg)
{
	int c;

	while ((c = getopt(argc, argv, "c:t:o:b:s:T:n:S:g:Vh")) != -1) {
		switch (c) {
		case 'c': cfg->count = strtoull(optarg, NULL, 0); break;
		case 't':
			cfg->dtype = !strcmp(optarg, "int") ? OPTINC_INT32 :
				     !strcmp(optarg, "float") ? OPTINC_FLOAT32 : 0;
			break;
		case 'o':
			cfg->op = !strcmp(optarg, "sum") ? OPTINC_SUM :
				  !strcmp(optarg, "avg") ? OPTINC_AVG : 0;
			break;
		case 'b': cfg->bits = atoi(optarg); break;
		case 's': cfg->seed = strtoull(optarg, NULL, 0); break;
		case 'T': cfg->secs = atof(optarg); break;
		case 'n': cfg->max_iters = atol(optarg); break;
		case 'S': cfg->start_at = atof(optarg); break;
		case 'g':
			if (sscanf(optarg, "%d:%d", &cfg->grank, &cfg->gsize) != 2)
				return -EINVAL;
			break;
		case 'V': cfg->vary = 1; break;
		default: return -EINVAL;
		}
	}
	if (!cfg->dtype || !cfg->op || !cfg->count || cfg->max_iters < 1 ||
	    (cfg->gsize && (cfg->grank < 0 || cfg->grank >= cfg->gsize)) ||
	    (cfg->dtype == OPTINC_INT32 && cfg->op != OPTINC_SUM))
		return -EINVAL;
	return 0;
}

static double scale_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Sleep until the agreed wall-clock start, so that all jobs overlap. */
static void scale_wait_start(double at)
{
	struct timespec ts;
	double left = at - scale_clock(CLOCK_REALTIME);

	if (left <= 0 || left > 60)
		return;
	ts.tv_sec = (time_t)left;
	ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

static void scale_fill(const struct scale_cfg *cfg, void *in, uint64_t seed,
		       int rank)
{
	if (cfg->dtype == OPTINC_INT32)
		refdata_fill_int(in, cfg->count, seed, rank);
	else
		refdata_fill_float(in, cfg->count, seed, rank);
}

/*
 * Elements of @res (the data of @seed) over their bound, or -1 when it
 * cannot tell; the worst error so far is kept in @worst.
 */
static long scale_check(const struct scale_cfg *cfg, const void *res, int size,
			uint64_t seed, struct refdata_err *worst)
{
	struct refdata_err err;
	size_t first = 0;
	float tmp[SCALE_BLOCK];

	if (cfg->dtype == OPTINC_INT32)
		return refdata_check_int(res, cfg->count, size, seed, &first);
	if (refdata_check_float(res, cfg->count, size, seed,
				cfg->op == OPTINC_AVG, cfg->bits,
				SCALE_BLOCK, tmp, &err))
		return -1;
	if (err.max_abs > worst->max_abs)
		worst->max_abs = err.max_abs;
	if (err.max_ratio > worst->max_ratio)
		worst->max_ratio = err.max_ratio;
	return err.bad;
}

/* -V: call @seed's result against its own reference, into the hash. */
static void scale_check_call(const struct scale_cfg *cfg, const void *out,
			     int size, uint64_t seed, struct scale_res *r)
{
	long bad = scale_check(cfg, out, size, seed, &r->err);

	if (bad < 0 || r->bad < 0)
		r->bad = -1;
	else
		r->bad += bad;
	r->hash = (r->hash ^ refdata_hash(out, cfg->count * 4)) *
		  0x100000001b3ull;
}

/* Every rank votes whether its time is up; all see the same sum. */
static int scale_stop(struct optinc_comm *comm, int mine, int *stop)
{
	int32_t v = mine, sum = 0;
	int err;

	err = optinc_allreduce(comm, &v, &sum, 1, OPTINC_INT32, OPTINC_SUM);
	*stop = sum > 0;
	return err;
}

static int scale_loop(const struct scale_cfg *cfg, struct optinc_comm *comm,
		      int rank, int size, void *in, void *out, void *first,
		      struct scale_res *r)
{
	size_t len = cfg->count * 4;
	uint64_t seed = cfg->seed;
	double t0, t1, end;
	int err, stop = 0;

	t0 = scale_clock(CLOCK_MONOTONIC);
	end = t0 + cfg->secs;
	while (!stop) {
		if (cfg->vary) {
			seed = cfg->seed + (uint64_t)r->iters;
			scale_fill(cfg, in, seed, rank);
		}
		t1 = scale_clock(CLOCK_MONOTONIC);
		err = optinc_allreduce(comm, in, out, cfg->count, cfg->dtype,
				       cfg->op);
		if (err)
			return err;
		r->busy += scale_clock(CLOCK_MONOTONIC) - t1;
		if (cfg->vary)
			scale_check_call(cfg, out, size, seed, r);
		else if (!r->iters)
			memcpy(first, out, len);
		else if (memcmp(first, out, len))
			r->wrong++;
		r->iters++;
		err = scale_stop(comm, r->iters >= cfg->max_iters ||
				 scale_clock(CLOCK_MONOTONIC) >= end, &stop);
		if (err)
			return err;
	}
	r->wall = scale_clock(CLOCK_MONOTONIC) - t0;
	if (!cfg->vary)
		r->hash = refdata_hash(first, len);
	return 0;
}

static int scale_run(const struct scale_cfg *cfg, struct optinc_comm *comm,
		     struct scale_res *r)
{
	int rank = cfg->gsize ? cfg->grank : optinc_comm_rank(comm);
	int size = cfg->gsize ? cfg->gsize : optinc_comm_size(comm);
	size_t len = cfg->count * 4;
	void *in = malloc(len), *out = malloc(len), *first = malloc(len);
	int err = -ENOMEM;

	if (!in || !out || !first) {
		fprintf(stderr, "scale_rank: no memory for %zu elements\n",
			cfg->count);
		goto out_free;
	}
	scale_fill(cfg, in, cfg->seed, rank);
	scale_wait_start(cfg->start_at);
	r->hash = 0xcbf29ce484222325ull;
	err = scale_loop(cfg, comm, rank, size, in, out, first, r);
	if (err) {
		fprintf(stderr, "rank %d: allreduce: %s: %s\n", rank,
			optinc_strerror(err), optinc_comm_errmsg(comm));
		goto out_free;
	}
	if (!cfg->vary)
		r->bad = scale_check(cfg, first, size, cfg->seed, &r->err);
out_free:
	free(in);
	free(out);
	free(first);
	return err;
}

static void scale_report(const struct scale_cfg *cfg, struct optinc_comm *comm,
			 const struct scale_res *r)
{
	double mb = (double)cfg->count * 4 * r->iters / 1e6;

	printf("rank %d size %d iters %ld bytes %zu busy %.3f s wall %.3f s "
	       "algbw %.2f MB/s wallbw %.2f MB/s hash %016llx\n",
	       cfg->gsize ? cfg->grank : optinc_comm_rank(comm),
	       cfg->gsize ? cfg->gsize : optinc_comm_size(comm), r->iters,
	       cfg->count * 4, r->busy, r->wall, r->busy > 0 ? mb / r->busy : 0,
	       r->wall > 0 ? mb / r->wall : 0, (unsigned long long)r->hash);
	if (cfg->dtype != OPTINC_INT32 && r->bad >= 0)
		printf("%s: max |err| %.3g, max err/bound %.3f, %ld of %zu over the bound\n",
		       cfg->vary ? "all results" : "first result",
		       r->err.max_abs, r->err.max_ratio, r->bad,
		       cfg->vary ? cfg->count * r->iters : cfg->count);
	if (cfg->vary)
		printf("every result against its reference (%ld calls, new data each): %s\n",
		       r->iters, r->bad < 0 ? "not checkable" :
		       r->bad ? "WRONG" : "correct");
	else
		printf("results differing from the first: %ld; first result %s\n",
		       r->wrong, r->bad < 0 ? "not checkable" :
		       r->bad ? "WRONG" : "correct");
}

int main(int argc, char **argv)
{
	struct scale_cfg cfg = { .count = 262144, .dtype = OPTINC_FLOAT32,
				 .op = OPTINC_AVG, .bits = 8, .seed = 1,
				 .secs = 3, .max_iters = 1000000, .grank = -1 };
	struct optinc_comm_stats st = { .sz = sizeof(st) }, st0 = st;
	struct scale_res res = { 0 };
	struct optinc_comm *comm;
	int err;

	if (scale_parse(argc, argv, &cfg)) {
		scale_usage();
		return 2;
	}
	OPTINC_OPTS(opts, .bits = cfg.bits, .block = SCALE_BLOCK);
	err = optinc_comm_create(&opts, &comm);
	if (err) {
		fprintf(stderr, "comm_create: %s: %s\n", optinc_strerror(err),
			optinc_comm_errmsg(NULL));
		printf("FAIL\n");
		return 1;
	}
	/* What the join sent, so that the counts below are the calls' own. */
	if (!optinc_comm_get_stats(comm, &st0))
		printf("join frames %llu bytes %llu\n",
		       (unsigned long long)st0.frames_sent,
		       (unsigned long long)st0.bytes_sent);
	err = scale_run(&cfg, comm, &res);
	if (!err)
		scale_report(&cfg, comm, &res);
	if (!optinc_comm_get_stats(comm, &st))
		printf("frames sent %llu rcvd %llu retransmits %llu bytes sent %llu probes %llu\n",
		       (unsigned long long)(st.frames_sent - st0.frames_sent),
		       (unsigned long long)(st.frames_rcvd - st0.frames_rcvd),
		       (unsigned long long)(st.retransmits - st0.retransmits),
		       (unsigned long long)(st.bytes_sent - st0.bytes_sent),
		       (unsigned long long)(st.probes - st0.probes));
	optinc_comm_destroy(comm);
	err = err || res.wrong || res.bad;
	printf("%s\n", err ? "FAIL" : "PASS");
	return err ? 1 : 0;
}
