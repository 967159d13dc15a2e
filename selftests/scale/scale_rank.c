// SPDX-License-Identifier: GPL-2.0
/*
 * One rank of a job in the many-jobs test: all-reduce deterministic data in
 * a loop for a given time (the ranks of a job agree when to stop), check the
 * first result against a double-precision reference and every later one
 * bit for bit against the first, and report the job's throughput.
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
};

struct scale_res {
	long iters;
	double busy;		/* seconds inside the data all-reduces */
	double wall;		/* seconds of the whole loop */
	long wrong;		/* results that differ from the first */
	long bad;		/* elements of the first result over the bound */
	uint64_t hash;
};

static void scale_usage(void)
{
	fprintf(stderr,
		"usage: scale_rank [-c COUNT] [-t float|int] [-o avg|sum] [-b BITS] [-s SEED]\n"
		"                  [-T SECS] [-n MAXITERS] [-S REALTIME_START] [-g RANK:SIZE]\n"
		"rank, size, job and switch come from the environment (OPTINC_*);\n"
		"-g: the data and the reference are those of rank RANK of SIZE (a rank\n"
		"of one first-level group in a two-level cascade).\n");
}

static int scale_parse(int argc, char **argv, struct scale_cfg *cfg)
{
	int c;

	while ((c = getopt(argc, argv, "c:t:o:b:s:T:n:S:g:h")) != -1) {
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

/* Elements of @res over their bound, or -1 when it cannot tell. */
static long scale_check(const struct scale_cfg *cfg, const void *res, int size)
{
	struct refdata_err err;
	size_t first = 0;
	float tmp[SCALE_BLOCK];

	if (cfg->dtype == OPTINC_INT32)
		return refdata_check_int(res, cfg->count, size, cfg->seed, &first);
	if (refdata_check_float(res, cfg->count, size, cfg->seed,
				cfg->op == OPTINC_AVG, cfg->bits,
				SCALE_BLOCK, tmp, &err))
		return -1;
	printf("first result: max |err| %.3g, max err/bound %.3f, %zu of %zu over the bound\n",
	       err.max_abs, err.max_ratio, err.bad, cfg->count);
	return err.bad;
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
		      const void *in, void *out, void *first,
		      struct scale_res *r)
{
	size_t len = cfg->count * 4;
	double t0, t1, end;
	int err, stop = 0;

	t0 = scale_clock(CLOCK_MONOTONIC);
	end = t0 + cfg->secs;
	while (!stop) {
		t1 = scale_clock(CLOCK_MONOTONIC);
		err = optinc_allreduce(comm, in, out, cfg->count, cfg->dtype,
				       cfg->op);
		if (err)
			return err;
		r->busy += scale_clock(CLOCK_MONOTONIC) - t1;
		if (!r->iters++)
			memcpy(first, out, len);
		else if (memcmp(first, out, len))
			r->wrong++;
		err = scale_stop(comm, r->iters >= cfg->max_iters ||
				 scale_clock(CLOCK_MONOTONIC) >= end, &stop);
		if (err)
			return err;
	}
	r->wall = scale_clock(CLOCK_MONOTONIC) - t0;
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
	if (cfg->dtype == OPTINC_INT32)
		refdata_fill_int(in, cfg->count, cfg->seed, rank);
	else
		refdata_fill_float(in, cfg->count, cfg->seed, rank);
	scale_wait_start(cfg->start_at);
	err = scale_loop(cfg, comm, in, out, first, r);
	if (err) {
		fprintf(stderr, "rank %d: allreduce: %s: %s\n", rank,
			optinc_strerror(err), optinc_comm_errmsg(comm));
		goto out_free;
	}
	r->bad = scale_check(cfg, first, size);
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
