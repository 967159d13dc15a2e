// SPDX-License-Identifier: GPL-2.0
/*
 * One rank of the non-blocking tests on the testbed: K requests of mixed
 * sizes, datatypes and ops outstanding, polled newest first to see that they complete in
 * posting order, then the same calls blocking, compared bit for bit; or
 * (-s) batches of K in a loop for a time, the next batch posted before
 * the last is checked, every result checked against the reference, while
 * the tests kill the switch. Prints a hash of the
 * results (ranks compare them) and PASS/FAIL.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nbcalls.h"

struct nbc_cfg {
	int k, two, replay;
	int ring;		/* bounds: 0 the switch's, 1 the ring's, 2 either */
	size_t big;
	double secs;
	const char *kill_pid;	/* -X: rank 0 kills this pid mid-batch */
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
	size_t len;
	void *y;

	for (j = 0; j < cfg->k && !err; j++) {
		len = nb_bytes(&b->k[j]);
		*hash = (*hash ^ refdata_hash(b->out[j], len)) * 0x100000001b3ull;
		if (cfg->ring == 2 ?
		    nb_check(&b->k[j], b->out[j], size, 0) &&
		    nb_check(&b->k[j], b->out[j], size, 1) :
		    nb_check(&b->k[j], b->out[j], size, cfg->ring)) {
			printf("rank %d: request %d (%s %s of %zu) off the reference\n",
			       rank, j, dt_name(b->k[j].dt),
			       dt_op_name(b->k[j].op), b->k[j].count);
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

/*
 * -s: batches of K in a loop, the next one always posted before the last
 * one is checked, so that requests are queued whenever the switch dies.
 * The last request of a batch is a 1-value SUM of every rank's wish to
 * stop (its time is up): all ranks stop after the same batch.
 */
struct nbc_set {
	struct nb_bufs b;
	int32_t stop;
	struct optinc_request *sreq;
};

static int nbc_post_set(struct optinc_comm *c, const struct nbc_cfg *cfg,
			struct nbc_set *s, double t0)
{
	int j, err = 0;

	for (j = 0; j < cfg->k && !err; j++)
		err = nb_post(c, &s->b, j);
	s->stop = nbc_now() - t0 >= cfg->secs;
	return err ?: optinc_iallreduce(c, &s->stop, &s->stop, 1,
					OPTINC_INT32, OPTINC_SUM, &s->sreq);
}

/*
 * -X: the switch dies right after the first request of a batch is done,
 * killed from here (a script could not hit that window of milliseconds);
 * then how many requests were still outstanding, those done since kept.
 */
static int nbc_outstanding(struct nbc_set *s, int k)
{
	int j, done, n = 0;

	for (j = 0; j < k; j++) {
		if (!s->b.req[j])
			continue;
		s->b.code[j] = optinc_test(&s->b.req[j], &done);
		n += !done;
	}
	return n;
}

static int nbc_kill(const struct nbc_cfg *cfg, struct nbc_set *cur,
		    struct nbc_set *nxt)
{
	int err = 0, left;
	long pid = 0;
	FILE *f = fopen(cfg->kill_pid, "r");

	if (!f || fscanf(f, "%ld", &pid) != 1 || pid <= 0) {
		fprintf(stderr, "nb_check: no pid in %s\n", cfg->kill_pid);
		err = -ENOENT;
	}
	if (f)
		fclose(f);
	err = err ?: (cur->b.code[0] = optinc_wait(&cur->b.req[0]));
	if (!err && kill(pid, SIGKILL))
		err = -errno;
	left = nbc_outstanding(cur, cfg->k) + nbc_outstanding(nxt, cfg->k);
	printf("rank 0: switch (pid %ld) killed after request 0 of a batch: %s, %d requests still outstanding\n",
	       pid, err ? strerror(-err) : "ok", left);
	fflush(stdout);
	return err;
}

static int nbc_wait_set(struct optinc_comm *c, const struct nbc_cfg *cfg,
			struct nbc_set *s, int *bad, uint64_t *hash)
{
	int j, err = 0;

	*bad += nb_poll(s->b.req, s->b.code, cfg->k);
	for (j = 0; j < cfg->k && !err; j++)
		err = s->b.code[j];
	err = optinc_wait(&s->sreq) ?: err;
	return err ?: nbc_results(c, cfg, &s->b, hash);
}

static int nbc_loop(struct optinc_comm *c, const struct nbc_cfg *cfg,
		    int *batches, int *bad, uint64_t *hash)
{
	int rank = optinc_comm_rank(c), err, i, killed = !cfg->kill_pid || rank;
	struct nbc_set *set = calloc(2, sizeof(*set)), *cur, *nxt, *t;
	double t0 = nbc_now();
	int kill_now;

	if (!set)
		return -ENOMEM;
	err = nb_bufs_alloc(&set[0].b, cfg->k, cfg->big, rank) ?:
	      nb_bufs_alloc(&set[1].b, cfg->k, cfg->big, rank);
	cur = &set[0];
	nxt = &set[1];
	err = err ?: nbc_post_set(c, cfg, cur, t0);
	while (!err) {
		kill_now = !killed && nbc_now() - t0 >= cfg->secs / 3;
		killed |= kill_now;
		err = nbc_post_set(c, cfg, nxt, t0);
		if (!err && kill_now)
			err = nbc_kill(cfg, cur, nxt);
		err = err ?: nbc_wait_set(c, cfg, cur, bad, hash);
		++*batches;
		if (!err && cur->stop) {
			err = nbc_wait_set(c, cfg, nxt, bad, hash);
			++*batches;
			break;
		}
		t = cur;
		cur = nxt;
		nxt = t;
	}
	for (i = 0; i < 2; i++)
		nb_bufs_free(&set[i].b);
	free(set);
	return err;
}

static int nbc_run(struct optinc_comm *c, const struct nbc_cfg *cfg)
{
	int rank = optinc_comm_rank(c), bad = 0, batches = 0, err;
	double t0 = nbc_now();
	uint64_t hash = 0xcbf29ce484222325ull;
	struct nb_bufs b;

	if (cfg->secs > 0) {
		err = nbc_loop(c, cfg, &batches, &bad, &hash);
	} else {
		err = nb_bufs_alloc(&b, cfg->k, cfg->big, rank) ?:
		      nbc_batch(c, cfg, &b, &bad) ?:
		      nbc_results(c, cfg, &b, &hash);
		nb_bufs_free(&b);
		batches = 1;
	}
	if (err)
		printf("rank %d: batch %d: %s: %s\n", rank, batches,
		       optinc_strerror(err), optinc_comm_errmsg(c));
	printf("rank %d: %d batches of %d requests, %d seen out of order, %.3f s\n",
	       rank, batches, cfg->k, bad, nbc_now() - t0);
	if (!err)
		printf("rank %d hash %016llx\n", rank, (unsigned long long)hash);
	return err ?: bad ? -EPROTO : 0;
}

int main(int argc, char **argv)
{
	struct nbc_cfg cfg = { .k = 8, .big = 262147, .replay = 1 };
	struct optinc_comm *comm;
	int c, err;

	while ((c = getopt(argc, argv, "k:b:Ts:X:")) != -1) {
		switch (c) {
		case 'k': cfg.k = atoi(optarg); break;
		case 'b': cfg.big = strtoull(optarg, NULL, 0); break;
		case 'T': cfg.two = 1; break;
		case 's': cfg.secs = atof(optarg); cfg.replay = 0; break;
		case 'X': cfg.kill_pid = optarg; break;
		default:
			fprintf(stderr, "usage: nb_check [-k K] [-b BIG] [-T] [-s SECS [-X PIDFILE]]\n");
			return 2;
		}
	}
	/* after a failover a call went through the switch or the ring */
	cfg.ring = cfg.secs > 0 ? 2 : getenv("OPTINC_ALGO") &&
		   !strcmp(getenv("OPTINC_ALGO"), "ring");
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
