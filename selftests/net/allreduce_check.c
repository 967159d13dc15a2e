// SPDX-License-Identifier: GPL-2.0
/*
 * One rank of an integration test: all-reduce deterministic random data
 * through liboptinc, check the result against a double-precision reference
 * of all ranks' inputs, print its hash (ranks compare them) and PASS/FAIL.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <optinc/optinc.h>
#include "refdata.h"

struct check_cfg {
	size_t count;
	int dtype, op, algo, reps;
	int grank, gsize;	/* -g: the data and reference of rank grank of gsize */
	unsigned int bits, block;
	uint64_t seed;
	const char *out;
};

static void check_usage(void)
{
	fprintf(stderr,
		"usage: allreduce_check [-c COUNT] [-t float|int] [-o avg|sum] [-s SEED]\n"
		"                       [-r REPS] [-b BITS] [-B BLOCK] [-a optinc|ring] [-w FILE]\n"
		"                       [-g RANK:SIZE]\n"
		"rank, size and switch come from the environment (OPTINC_*).\n"
		"-g: the data and the reference are those of rank RANK of SIZE, not of\n"
		"the communicator's rank and size (a cascade's first-level job is part\n"
		"of a larger whole).\n");
}

static int check_parse(int argc, char **argv, struct check_cfg *cfg)
{
	int c;

	while ((c = getopt(argc, argv, "c:t:o:s:r:b:B:a:w:g:h")) != -1) {
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
		case 's': cfg->seed = strtoull(optarg, NULL, 0); break;
		case 'r': cfg->reps = atoi(optarg); break;
		case 'b': cfg->bits = atoi(optarg); break;
		case 'B': cfg->block = atoi(optarg); break;
		case 'a':
			cfg->algo = !strcmp(optarg, "ring") ? OPTINC_ALGO_RING :
				    !strcmp(optarg, "optinc") ? OPTINC_ALGO_OPTINC : -2;
			break;
		case 'w': cfg->out = optarg; break;
		case 'g':
			if (sscanf(optarg, "%d:%d", &cfg->grank, &cfg->gsize) != 2 ||
			    cfg->grank < 0 || cfg->grank >= cfg->gsize)
				return -EINVAL;
			break;
		default: return -EINVAL;
		}
	}
	if (!cfg->dtype || !cfg->op || cfg->algo == -2 || cfg->reps < 1 ||
	    !cfg->block || (cfg->dtype == OPTINC_INT32 && cfg->op != OPTINC_SUM))
		return -EINVAL;
	return 0;
}

static double check_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Returns the elements over their bound, or -1 when it cannot tell. */
static long check_result(const struct check_cfg *cfg, const void *res, int size)
{
	struct refdata_err err;
	size_t first = 0, bad;
	float *tmp;

	if (cfg->dtype == OPTINC_INT32) {
		bad = refdata_check_int(res, cfg->count, size, cfg->seed, &first);
		printf("int32 sum: %zu of %zu wrong%s", bad, cfg->count,
		       bad ? "" : "\n");
		if (bad)
			printf(", first at %zu\n", first);
		return bad;
	}
	tmp = malloc(cfg->block * sizeof(*tmp));
	if (!tmp || refdata_check_float(res, cfg->count, size, cfg->seed,
					cfg->op == OPTINC_AVG, cfg->bits,
					cfg->block, tmp, &err)) {
		fprintf(stderr, "check: cannot compute the reference\n");
		free(tmp);
		return -1;
	}
	free(tmp);
	printf("float32 %s: max |err| %.3g, max err/bound %.3f, %zu of %zu over the bound",
	       cfg->op == OPTINC_AVG ? "avg" : "sum", err.max_abs,
	       err.max_ratio, err.bad, cfg->count);
	if (err.bad)
		printf(", first at %zu", err.first_bad);
	printf("\n");
	return err.bad;
}

static int check_write(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");
	int err = 0;

	if (!f) {
		perror(path);
		return -errno;
	}
	if (len && fwrite(buf, len, 1, f) != 1)
		err = -EIO;
	if (fclose(f) || err) {
		fprintf(stderr, "%s: write failed\n", path);
		return -EIO;
	}
	return 0;
}

static int check_run(const struct check_cfg *cfg, struct optinc_comm *comm)
{
	int rank = cfg->gsize ? cfg->grank : optinc_comm_rank(comm);
	int size = cfg->gsize ? cfg->gsize : optinc_comm_size(comm);
	size_t len = cfg->count * 4;
	void *in = malloc(len ? len : 1), *out = malloc(len ? len : 1);
	long bad = 0, b;
	double t0, t = 0;
	int i, err = 0;

	if (!in || !out) {
		fprintf(stderr, "check: no memory for %zu elements\n", cfg->count);
		err = -ENOMEM;
		goto out_free;
	}
	if (cfg->dtype == OPTINC_INT32)
		refdata_fill_int(in, cfg->count, cfg->seed, rank);
	else
		refdata_fill_float(in, cfg->count, cfg->seed, rank);
	for (i = 0; i < cfg->reps && !err; i++) {
		memset(out, 0xff, len);
		t0 = check_now();
		err = optinc_allreduce(comm, in, out, cfg->count, cfg->dtype,
				       cfg->op);
		t += check_now() - t0;
		if (err) {
			fprintf(stderr, "rank %d: allreduce: %s: %s\n", rank,
				optinc_strerror(err), optinc_comm_errmsg(comm));
			break;
		}
		b = check_result(cfg, out, size);
		bad = b < 0 || bad < 0 ? -1 : bad + b;
	}
	if (!err) {
		printf("rank %d size %d count %zu time %.6f s hash %016llx\n",
		       rank, size, cfg->count, t / cfg->reps,
		       (unsigned long long)refdata_hash(out, len));
		if (cfg->out)
			err = check_write(cfg->out, out, len);
		if (bad)
			err = -EDOM;
	}
out_free:
	free(in);
	free(out);
	return err;
}

int main(int argc, char **argv)
{
	struct check_cfg cfg = { .count = 1000, .dtype = OPTINC_FLOAT32,
				 .op = OPTINC_AVG, .algo = -1, .reps = 1,
				 .bits = 8, .block = 256, .seed = 1 };
	struct optinc_comm_stats st = { .sz = sizeof(st) }, st0 = st;
	struct optinc_comm *comm;
	int err;

	if (check_parse(argc, argv, &cfg)) {
		check_usage();
		return 2;
	}
	OPTINC_OPTS(opts, .bits = cfg.bits, .block = cfg.block, .algo = cfg.algo);
	err = optinc_comm_create(&opts, &comm);
	if (err) {
		fprintf(stderr, "comm_create: %s: %s\n", optinc_strerror(err),
			optinc_comm_errmsg(NULL));
		printf("FAIL\n");
		return 1;
	}
	/* What the join sent, so that the counts below are the calls' own. */
	if (!optinc_comm_get_stats(comm, &st0))
		printf("join frames %llu\n", (unsigned long long)st0.frames_sent);
	err = check_run(&cfg, comm);
	if (!optinc_comm_get_stats(comm, &st))
		printf("frames sent %llu rcvd %llu retransmits %llu dup results %llu probes %llu\n",
		       (unsigned long long)(st.frames_sent - st0.frames_sent),
		       (unsigned long long)(st.frames_rcvd - st0.frames_rcvd),
		       (unsigned long long)(st.retransmits - st0.retransmits),
		       (unsigned long long)(st.dup_results - st0.dup_results),
		       (unsigned long long)(st.probes - st0.probes));
	optinc_comm_destroy(comm);
	printf("%s\n", err ? "FAIL" : "PASS");
	return err ? 1 : 0;
}
