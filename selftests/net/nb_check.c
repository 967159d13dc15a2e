// SPDX-License-Identifier: GPL-2.0
/*
 * One rank of the non-blocking tests on the testbed: K requests of mixed
 * shapes outstanding, polled newest first to see that they complete in
 * posting order, then the same calls blocking, compared bit for bit; or
 * (-s) batches of K in a loop for a time, every result checked against
 * the reference, while the tests kill the switch. Prints a hash of the
 * results (ranks compare them) and PASS/FAIL.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nbcalls.h"

struct nbc_cfg {
	int k, two, replay;
	size_t big;
	double secs;
};

static double nbc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Results checked against the reference, hashed, and (-r) replayed. */
static int nbc_results(struct optinc_comm *c, const struct nbc_cfg *cfg,
		       struct nb_bufs *b, uint64_t *hash)
{
	int j, err = 0, size = optinc_comm_size(c), rank = optinc_comm_rank(c);
	size_t len, off;
	void *y;

	for (j = 0; j < cfg->k && !err; j++) {
		len = b->k[j].count * 4;
		*hash = (*hash ^ refdata_hash(b->out[j], len)) * 0x100000001b3ull;
		off = nb_check(&b->k[j], b->out[j], size);
		if (off) {
			printf("rank %d: request %d: %zu of %zu elements off the reference\n",
			       rank, j, off, b->k[j].count);
			err = -EDOM;
		}
		if (err || !cfg->replay)
			continue;
		y = malloc(len);
		if (!y)
			return -ENOMEM;
		err = optinc_allreduce(c, b->in[j], y, b->k[j].count,
				       b->k[j].dt, b->k[j].op);
		if (!err && memcmp(y, b->out[j], len)) {
			printf("rank %d: request %d differs from the blocking call\n",
			       rank, j);
			err = -EDOM;
		}
		free(y);
	}
	return err;
}

/* One batch of K: posted (from two threads with -T), waited for in order. */
static int nbc_batch(struct optinc_comm *c, const struct nbc_cfg *cfg,
		     struct nb_bufs *b, int *bad_order)
{
	int j, err = 0;

	if (cfg->two)
		return nb_two_threads(c, b, cfg->k);
	for (j = 0; j < cfg->k && !err; j++)
		err = nb_post(c, b, j);
	if (err)
		return err;
	*bad_order += nb_poll(b->req, b->code, cfg->k);
	for (j = 0; j < cfg->k && !err; j++)
		err = b->code[j];
	return err;
}

/* All ranks stop after the same batch: the sum of their wishes to. */
static int nbc_stop(struct optinc_comm *c, double t0, double secs, int *stop)
{
	int32_t v = nbc_now() - t0 >= secs;
	int err = optinc_allreduce(c, &v, &v, 1, OPTINC_INT32, OPTINC_SUM);

	*stop = v > 0;
	return err;
}

static int nbc_run(struct optinc_comm *c, const struct nbc_cfg *cfg)
{
	int rank = optinc_comm_rank(c), bad = 0, batches = 0, stop = 0, err;
	double t0 = nbc_now();
	uint64_t hash = 0xcbf29ce484222325ull;
	struct nb_bufs b;

	err = nb_bufs_alloc(&b, cfg->k, cfg->big, rank);
	while (!err && !stop) {
		err = nbc_batch(c, cfg, &b, &bad) ?:
		      nbc_results(c, cfg, &b, &hash);
		batches++;
		if (!err && cfg->secs > 0)
			err = nbc_stop(c, t0, cfg->secs, &stop);
		else
			stop = 1;
	}
	if (err)
		printf("rank %d: batch %d: %s: %s\n", rank, batches,
		       optinc_strerror(err), optinc_comm_errmsg(c));
	printf("rank %d: %d batches of %d requests, %d seen out of order, %.3f s\n",
	       rank, batches, cfg->k, bad, nbc_now() - t0);
	if (!err)
		printf("rank %d hash %016llx\n", rank, (unsigned long long)hash);
	nb_bufs_free(&b);
	return err ?: bad ? -EPROTO : 0;
}

int main(int argc, char **argv)
{
	struct nbc_cfg cfg = { .k = 8, .big = 262147, .replay = 1 };
	struct optinc_comm *comm;
	int c, err;

	while ((c = getopt(argc, argv, "k:b:Ts:")) != -1) {
		switch (c) {
		case 'k': cfg.k = atoi(optarg); break;
		case 'b': cfg.big = strtoull(optarg, NULL, 0); break;
		case 'T': cfg.two = 1; break;
		case 's': cfg.secs = atof(optarg); cfg.replay = 0; break;
		default:
			fprintf(stderr, "usage: nb_check [-k K] [-b BIG] [-T] [-s SECS]\n");
			return 2;
		}
	}
	if (cfg.k < 1 || cfg.k > MAX_REQS || !cfg.big) {
		fprintf(stderr, "nb_check: K is 1..%d, BIG > 0\n", MAX_REQS);
		return 2;
	}
	OPTINC_OPTS(opts, .bits = 8);
	err = optinc_comm_create(&opts, &comm);
	if (err) {
		fprintf(stderr, "comm_create: %s: %s\n", optinc_strerror(err),
			optinc_comm_errmsg(NULL));
		printf("FAIL\n");
		return 1;
	}
	err = nbc_run(comm, &cfg);
	optinc_comm_destroy(comm);
	printf("%s\n", err ? "FAIL" : "PASS");
	return err ? 1 : 0;
}
