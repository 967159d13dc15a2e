// SPDX-License-Identifier: GPL-2.0
/*
 * Non-blocking calls through the loopback test switch, ranks as threads:
 * 1, 8, 64 requests of mixed shapes complete in posting order with the
 * results of the same blocking calls; posts from two threads; the ring;
 * failover in the middle of a queue; errors per request; progress while
 * the caller sleeps; destroy with requests outstanding; idle CPU.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libtest.h"
#include "progress_cpu.h"
#include "nbcalls.h"
#include "udpswitch.h"

#define MAX_RANKS	8
#define BIG		300007

struct nb_ctx {
	int k;			/* requests outstanding */
	size_t big;		/* count of the large calls */
	int two_threads;	/* post from two threads, taking turns */
	int ring;		/* algo ring: the ring's bounds */
	int in_order[MAX_RANKS];	/* out-of-order observations */
	int same[MAX_RANKS];	/* requests equal to blocking replays */
	size_t wrong[MAX_RANKS];	/* calls off the reference */
	uint64_t hash[MAX_RANKS];
	char why[MAX_RANKS][160];
};

/* The same calls, blocking, compared with what the requests gave. */
static int replay(struct rank_run *r, struct nb_ctx *ctx, struct nb_bufs *b)
{
	int j, err, same = 0;
	size_t len;
	void *y;

	ctx->hash[r->rank] = 0;
	for (j = 0; j < ctx->k; j++) {
		len = nb_bytes(&b->k[j]);
		y = malloc(len);
		if (!y)
			return -ENOMEM;
		err = optinc_allreduce(r->comm, b->in[j], y, b->k[j].count,
				       b->k[j].dt, b->k[j].op);
		same += !err && !memcmp(y, b->out[j], len);
		ctx->wrong[r->rank] += nb_check(&b->k[j], b->out[j],
						optinc_comm_size(r->comm),
						ctx->ring);
		ctx->hash[r->rank] ^= refdata_hash(b->out[j], len) * (j + 1);
		free(y);
		if (err)
			return err;
	}
	ctx->same[r->rank] = same;
	return 0;
}

static int nb_rank(struct rank_run *r)
{
	struct nb_ctx *ctx = r->arg;
	struct nb_bufs b;
	int j, err;

	err = nb_bufs_alloc(&b, ctx->k, ctx->big, r->rank);
	if (err)
		goto out;
	if (ctx->two_threads) {
		err = nb_two_threads(r->comm, &b, ctx->k);
		goto check;
	}
	for (j = 0; j < ctx->k && !err; j++)
		err = nb_post(r->comm, &b, j);
	if (err)
		goto out;
	ctx->in_order[r->rank] = nb_poll(b.req, b.code, ctx->k);
	for (j = 0; j < ctx->k && !err; j++)
		err = b.code[j];
check:
	err = err ?: replay(r, ctx, &b);
out:
	nb_bufs_free(&b);
	return err;
}

/* Two test lines: posting order; results as blocking, on every rank. */
static void nb_case(int n, int k, int two, int ring)
{
	struct nb_ctx ctx = { .k = k, .big = BIG, .two_threads = two,
			      .ring = ring };
	const char *how = two ? ", posted from two threads" :
			  ring ? ", algo ring" : "";
	struct rank_run rr[MAX_RANKS];
	int ok, r, order = 1, same = 1;
	struct udpsw *sw;
	char addr[32];
	double t;

	if (test_switch_start(n, 0, 0, &sw, addr, sizeof(addr))) {
		tap_ok(0, "N=%d, %d requests%s: switch", n, k, how);
		tap_ok(0, "N=%d, %d requests%s: switch", n, k, how);
		return;
	}
	OPTINC_OPTS(o, .switch_addr = addr, .timeout_ms = 5000);
	if (ring) {
		o.algo = OPTINC_ALGO_RING;
		o.peers = "127.0.0.1,127.0.0.1,127.0.0.1,127.0.0.1";
		o.ring_port = 20000 + (getpid() + 16 * k) % 12000;
	}
	t = now_s();
	ok = !ranks_run(rr, n, &o, nb_rank, &ctx) && ranks_report(rr, n);
	t = now_s() - t;
	udpsw_stop(sw);
	for (r = 0; r < n; r++) {
		order = order && !ctx.in_order[r];
		same = same && ctx.same[r] == k && !ctx.wrong[r] &&
		       ctx.hash[r] == ctx.hash[0];
		if (ctx.in_order[r] || ctx.same[r] != k || ctx.wrong[r])
			tap_diag("rank %d: %d out of order, %d of %d as blocking, %zu calls off, hash %016llx",
				 r, ctx.in_order[r], ctx.same[r], k,
				 ctx.wrong[r], (unsigned long long)ctx.hash[r]);
	}
	tap_diag("N=%d, %d requests%s: %.3f s", n, k, how, t);
	tap_ok(ok && order, "N=%d, %d requests%s: all complete, in posting order",
	       n, k, how);
	tap_ok(ok && same, "N=%d, %d requests%s: bit-identical to the same blocking calls and on every rank, within the reference's bounds",
	       n, k, how);
}

/* ---- failover in the middle of a queue ---- */

#define FO_N	3
#define FO_K	48
#define FO_COUNT 60000

struct fo_ctx {
	struct udpsw *sw;
	int stopped_at;		/* requests rank 0 had done at the stop */
	size_t wrong[FO_N];
};

static int fo_rank(struct rank_run *r)
{
	struct fo_ctx *ctx = r->arg;
	struct nb_bufs b;
	int j, err;

	int first = 0, d = 1;

	err = nb_bufs_alloc(&b, FO_K, FO_COUNT, r->rank);
	for (j = 0; j < FO_K && !err; j++)
		err = nb_post(r->comm, &b, j);
	/* rank 0 stops the switch once a quarter of its queue is done */
	if (!err && r->rank == 0) {
		for (; first <= FO_K / 4 && !err; first++)
			err = optinc_wait(&b.req[first]);
		udpsw_stop(ctx->sw);
		for (; first < FO_K && d && !err; first += d)
			err = optinc_test(&b.req[first], &d);
		ctx->stopped_at = first;
	}
	/* done ones are a prefix: the rest is one stretch */
	if (!err)
		err = optinc_waitall(b.req + first, FO_K - first,
				     b.code + first);
	/* each call went through the switch or, after the stop, the ring */
	for (j = 0; j < FO_K && !err; j++)
		ctx->wrong[r->rank] += nb_check(&b.k[j], b.out[j], FO_N, 0) &&
				       nb_check(&b.k[j], b.out[j], FO_N, 1);
	nb_bufs_free(&b);
	return err;
}

static void test_failover(void)
{
	struct fo_ctx ctx = { 0 };
	struct rank_run rr[FO_N];
	char addr[32];
	int ok;

	setenv("OPTINC_FAILOVER_MS", "500", 1);
	ok = !test_switch_start(FO_N, 0, 0, &ctx.sw, addr, sizeof(addr));
	if (ok) {
		OPTINC_OPTS(o, .switch_addr = addr, .timeout_ms = 3000,
			    .peers = "127.0.0.1,127.0.0.1,127.0.0.1",
			    .ring_port = 20000 + (getpid() + 7) % 12000);
		ok = !ranks_run(rr, FO_N, &o, fo_rank, &ctx) &&
		     ranks_report(rr, FO_N);
	}
	unsetenv("OPTINC_FAILOVER_MS");
	tap_diag("switch stopped with %d of %d requests done on rank 0; calls off: %zu %zu %zu",
		 ctx.stopped_at, FO_K, ctx.wrong[0], ctx.wrong[1], ctx.wrong[2]);
	tap_ok(ok && ctx.stopped_at < FO_K && !ctx.wrong[0] && !ctx.wrong[1] &&
	       !ctx.wrong[2],
	       "switch stopped in the middle of a queue of %d: every request completes (ring), results within bounds",
	       FO_K);
}

/* ---- errors, progress without calls, destroy, idle CPU ---- */

struct err_ctx {
	int post_bad, post_null, test_null, wait_null;
	int first, second, third, test_done;
	double test_ms;
	char msg1[256], msg2[256], msg_bad[256];
};

/* Rank 1 of 2 never calls: rank 0's queue of 3 fails in order. */
static int err_rank(struct rank_run *r)
{
	struct err_ctx *e = r->arg;
	static float x[3][1000];
	struct optinc_request *q[3], *bad = (void *)1;
	double t;
	int j, err;

	if (r->rank == 1)
		return 0;
	e->post_bad = optinc_iallreduce(r->comm, x[0], x[0], 10, 77,
					OPTINC_SUM, &bad);
	snprintf(e->msg_bad, 256, "%s%s", optinc_comm_errmsg(r->comm),
		 bad ? " (req not NULL)" : "");
	e->post_null = optinc_iallreduce(r->comm, x[0], x[0], 10,
					 OPTINC_FLOAT32, OPTINC_SUM, NULL);
	e->test_null = optinc_test(NULL, &j);
	e->wait_null = optinc_wait(NULL);
	for (j = 0; j < 3; j++) {
		err = optinc_iallreduce(r->comm, x[j], x[j], 1000,
					OPTINC_FLOAT32, OPTINC_AVG, &q[j]);
		if (err)
			return err;
	}
	t = now_s();
	optinc_test(&q[2], &e->test_done);
	e->test_ms = (now_s() - t) * 1e3;
	e->first = optinc_wait(&q[0]);
	snprintf(e->msg1, 256, "%s", optinc_comm_errmsg(r->comm));
	e->second = optinc_wait(&q[1]);
	snprintf(e->msg2, 256, "%s", optinc_comm_errmsg(r->comm));
	e->third = optinc_wait(&q[2]);
	return 0;
}

static void test_errors(void)
{
	struct err_ctx e = { 0 };
	struct rank_run rr[2];
	struct udpsw *sw;
	char addr[32];
	int ok;

	if (!test_switch_start(2, 0, 0, &sw, addr, sizeof(addr))) {
		OPTINC_OPTS(o, .switch_addr = addr, .timeout_ms = 300);
		ranks_run(rr, 2, &o, err_rank, &e);
		udpsw_stop(sw);
	}
	tap_diag("bad post: %d \"%s\"", e.post_bad, e.msg_bad);
	tap_ok(e.post_bad == OPTINC_ERR_UNSUPPORTED &&
	       strstr(e.msg_bad, "unknown datatype 77") &&
	       !strstr(e.msg_bad, "req not NULL") &&
	       e.post_null == OPTINC_ERR_INVALID &&
	       e.test_null == OPTINC_ERR_INVALID &&
	       e.wait_null == OPTINC_ERR_INVALID,
	       "an argument error is returned by the post (req NULL) with its message; NULL handles are refused");
	tap_diag("test of a queued request: %.3f ms, done %d", e.test_ms,
		 e.test_done);
	tap_ok(!e.test_done && e.test_ms < 50,
	       "optinc_test() of a queued request returns at once, not done");
	tap_diag("first: %s", e.msg1);
	tap_diag("second: %s", e.msg2);
	ok = e.first == OPTINC_ERR_TIMEOUT && strstr(e.msg1, "no result for seq") &&
	     e.second == OPTINC_ERR_TIMEOUT && strstr(e.msg2, "earlier call") &&
	     e.third == OPTINC_ERR_TIMEOUT;
	tap_ok(ok, "a rank missing: the first request times out, the ones queued behind it fail with its code; errmsg tells each one's error");
}

struct idle_ctx {
	int done_while_sleeping;
	long ticks, switches;	/* of every progress thread, while idle */
	int threads;
};

static int idle_rank(struct rank_run *r)
{
	struct idle_ctx *ic = r->arg;
	struct nb_bufs b;
	long t0, s0, t1, s1;
	int j, d, err;

	err = nb_bufs_alloc(&b, 8, 1000, r->rank);
	for (j = 0; j < 8 && !err; j++)
		err = nb_post(r->comm, &b, j);
	usleep(1000 * 1000);	/* compute, not calling the library */
	for (j = 0; j < 8 && !err; j++) {
		err = optinc_test(&b.req[j], &d);
		if (d)
			__atomic_add_fetch(&ic->done_while_sleeping, 1,
					   __ATOMIC_RELAXED);
	}
	for (j = 0; j < 8; j++)
		if (b.req[j])
			optinc_wait(&b.req[j]);
	if (!err && r->rank == 0) {
		ic->threads = optinc_progress_cpu(&t0, &s0);
		usleep(2000 * 1000);
		optinc_progress_cpu(&t1, &s1);
		ic->ticks = t1 - t0;
		ic->switches = s1 - s0;
	} else {
		usleep(2500 * 1000);	/* its thread lives on meanwhile */
	}
	nb_bufs_free(&b);
	return err;
}

static void test_progress_idle(void)
{
	struct idle_ctx ic = { 0 };
	struct rank_run rr[2];
	struct udpsw *sw;
	char addr[32];
	int ok = 0;

	if (!test_switch_start(2, 0, 0, &sw, addr, sizeof(addr))) {
		OPTINC_OPTS(o, .switch_addr = addr, .timeout_ms = 3000);
		ok = !ranks_run(rr, 2, &o, idle_rank, &ic) && ranks_report(rr, 2);
		udpsw_stop(sw);
	}
	tap_ok(ok && ic.done_while_sleeping == 16,
	       "requests complete while the caller sleeps (%d of 16 done without a library call)",
	       ic.done_while_sleeping);
	tap_diag("%d progress threads idle for 2 s: %ld ticks of CPU (%ld Hz), %ld context switches",
		 ic.threads, ic.ticks, sysconf(_SC_CLK_TCK), ic.switches);
	tap_ok(ok && ic.threads == 2 && ic.ticks == 0 && ic.switches == 0,
	       "an idle progress thread sleeps: no CPU and no wake-up in 2 s");
}

/* Both ranks post 8 and destroy at once: the call running ends, the rest go. */
static int destroy_rank(struct rank_run *r)
{
	struct nb_bufs b;
	double *secs = r->arg, t;
	int j, err;

	err = nb_bufs_alloc(&b, 8, 1000, r->rank);
	for (j = 0; j < 8 && !err; j++)
		err = nb_post(r->comm, &b, j);
	t = now_s();
	optinc_comm_destroy(r->comm);
	secs[r->rank] = now_s() - t;
	/* the harness would destroy it again */
	r->comm = NULL;
	nb_bufs_free(&b);
	return err;
}

static void test_destroy(void)
{
	double secs[2] = { 0 };
	struct rank_run rr[2];
	struct udpsw *sw;
	char addr[32];
	int ok = 0;

	if (!test_switch_start(2, 0, 0, &sw, addr, sizeof(addr))) {
		OPTINC_OPTS(o, .switch_addr = addr, .timeout_ms = 500);
		ok = !ranks_run(rr, 2, &o, destroy_rank, secs);
		udpsw_stop(sw);
	}
	tap_diag("destroy took %.3f and %.3f s", secs[0], secs[1]);
	tap_ok(ok && secs[0] < 1.5 && secs[1] < 1.5,
	       "destroy with 8 requests outstanding returns within timeout_ms + 1 s");
}

/* ---- one rank: lazy thread, counters, messages per thread ---- */

static void *other_thread(void *arg)
{
	struct optinc_comm *c = arg;
	static float x[10];
	struct optinc_request *r;
	char *msg = malloc(256);

	if (!msg)
		return NULL;
	optinc_iallreduce(c, x, x, 10, OPTINC_FLOAT32, 99, &r);
	snprintf(msg, 256, "%s", optinc_comm_errmsg(c));
	return msg;
}

static void one_rank_tests(struct optinc_comm *c)
{
	struct optinc_comm_stats st = { .sz = sizeof(st) };
	static float x[1000], y[1000];
	int before, after_post, ok;
	struct optinc_request *r;
	long ticks, sw;
	pthread_t thr;
	char *other = NULL;

	x[5] = 2.5f;
	ok = !optinc_allreduce(c, x, y, 1000, OPTINC_FLOAT32, OPTINC_AVG);
	before = optinc_progress_cpu(&ticks, &sw);
	ok = ok && !optinc_iallreduce(c, x, y, 1000, OPTINC_FLOAT32,
				      OPTINC_SUM, &r) && !optinc_wait(&r);
	after_post = optinc_progress_cpu(&ticks, &sw);
	optinc_comm_get_stats(c, &st);
	tap_diag("progress threads: %d after a blocking call, %d after a post; calls %llu",
		 before, after_post, (unsigned long long)st.calls);
	tap_ok(ok && before == 0 && after_post == 1 && st.calls == 2 &&
	       y[5] == 2.5f,
	       "blocking calls alone start no progress thread, the first post does; counters count both");
	optinc_iallreduce(c, x, y, 10, 77, OPTINC_SUM, &r);
	if (!pthread_create(&thr, NULL, other_thread, c))
		pthread_join(thr, (void **)&other);
	tap_diag("this thread: \"%s\"; the other: \"%s\"",
		 optinc_comm_errmsg(c), other ? other : "?");
	tap_ok(other && strstr(other, "unknown op 99") &&
	       strstr(optinc_comm_errmsg(c), "unknown datatype 77"),
	       "optinc_comm_errmsg() tells each thread its own failure");
	free(other);
}

static void test_one_rank(void)
{
	struct optinc_comm *c = NULL;
	struct udpsw *sw;
	char addr[32];
	long ticks, n;

	if (!test_switch_start(1, 0, 0, &sw, addr, sizeof(addr))) {
		OPTINC_OPTS(o, .rank = 0, .size = 1, .switch_addr = addr);
		if (optinc_comm_create(&o, &c))
			tap_diag("comm_create: %s", optinc_comm_errmsg(NULL));
	}
	if (c) {
		one_rank_tests(c);
		optinc_comm_destroy(c);
	} else {
		tap_ok(0, "one rank: no communicator");
		tap_ok(0, "one rank: no communicator");
	}
	tap_ok(c && optinc_progress_cpu(&ticks, &n) == 0,
	       "destroy joins the progress thread");
	if (sw)
		udpsw_stop(sw);
}

int main(void)
{
	ranks_clear_env();
	tap_plan(2 * 7 + 1 + 3 + 2 + 1 + 3);
	nb_case(4, 1, 0, 0);
	nb_case(4, 8, 0, 0);
	nb_case(4, 64, 0, 0);
	nb_case(2, 16, 0, 0);
	nb_case(8, 16, 0, 0);
	nb_case(4, 16, 1, 0);
	nb_case(4, 8, 0, 1);
	test_failover();
	test_errors();
	test_progress_idle();
	test_destroy();
	test_one_rank();
	return tap_done();
}
