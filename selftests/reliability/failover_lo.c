// SPDX-License-Identifier: GPL-2.0
/*
 * liboptinc's failover without root: ranks as threads, the loopback UDP
 * switch of selftests/lib stopped in the middle of a loop of checked
 * all-reduces. With peers the ranks finish on the ring; without peers,
 * or with the switch up and a rank missing, calls fail with the timeout
 * error and nothing falls back. Then rank 0 left one call behind when
 * the switch stops, for each float datatype: it must return the very
 * bits the others got from the switch (the hand-over of the kept result).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/dtref.h"
#include "../lib/libtest.h"
#include "../lib/udpswitch.h"

#define N	3
#define COUNT	3000
#define CALLS	40

struct lo_ctx {
	int stop_after_ms;	/* stop the switch this long after the start */
	int idle_rank;		/* this rank joins, then never calls (-1: none) */
	double slowest[N];
};

static uint32_t lo_val(int call, int rank, int i)
{
	return (uint32_t)(call * 2654435761u + rank * 40503u + i * 7u);
}

static int lo_rank(struct rank_run *r)
{
	struct lo_ctx *ctx = r->arg;
	uint32_t *x = malloc(COUNT * 4), want;
	double t;
	int call, i, k, err = 0;

	if (!x)
		return -ENOMEM;
	if (r->rank == ctx->idle_rank) {
		usleep(3000 * 1000);
		free(x);
		return 0;
	}
	for (call = 0; call < CALLS && !err; call++) {
		for (i = 0; i < COUNT; i++)
			x[i] = lo_val(call, r->rank, i);
		t = now_s();
		err = optinc_allreduce(r->comm, x, x, COUNT, OPTINC_INT32,
				       OPTINC_SUM);
		t = now_s() - t;
		if (t > ctx->slowest[r->rank])
			ctx->slowest[r->rank] = t;
		for (i = 0; !err && i < COUNT; i++) {
			for (want = 0, k = 0; k < N; k++)
				want += lo_val(call, k, i);
			if (x[i] != want)
				err = -EBADMSG;
		}
		usleep(20 * 1000);
	}
	free(x);
	return err;
}

struct lo_stopper {
	struct udpsw *sw;
	int ms;
	pthread_t thr;
};

static void *lo_stop(void *arg)
{
	struct lo_stopper *s = arg;

	usleep(s->ms * 1000);
	udpsw_stop(s->sw);
	return NULL;
}

/* Run the ranks against a switch stopped after @ctx->stop_after_ms. */
static int lo_run(struct lo_ctx *ctx, const char *peers, unsigned int timeout,
		  struct rank_run *rr)
{
	struct udpsw_opts so = { .job = 1, .size = N };
	struct lo_stopper st = { .ms = ctx->stop_after_ms };
	struct udpsw *sw;
	char addr[32];
	int err;

	if (udpsw_start(&so, &sw))
		return -1;
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", udpsw_port(sw));
	OPTINC_OPTS(o, .switch_addr = addr, .timeout_ms = timeout,
		    .peers = peers, .ring_port = 20000 + getpid() % 12000);
	st.sw = sw;
	if (ctx->stop_after_ms >= 0)
		pthread_create(&st.thr, NULL, lo_stop, &st);
	err = ranks_run(rr, N, &o, lo_rank, ctx);
	if (ctx->stop_after_ms >= 0)
		pthread_join(st.thr, NULL);
	else
		udpsw_stop(sw);
	return err;
}

static int lo_all(const struct rank_run *rr, int want, const char *msg)
{
	int r, ok = 1;

	for (r = 0; r < N; r++) {
		if (rr[r].ret)
			tap_diag("rank %d: %d %s", r, rr[r].ret, rr[r].msg);
		if (want == 0 && rr[r].ret)
			ok = 0;
		if (want && r != 2 && (rr[r].ret != want || !strstr(rr[r].msg, msg)))
			ok = 0;
	}
	return ok;
}

/* ---- rank 0 one call behind: the result handed over, bit for bit */

#define BH_COUNT	20000	/* 8-bit: two frames of 8704 and a part (MTU 9000) */
#define BH_MAX_ES	8

struct bh_ctx {
	int dt, op;
	struct udpsw *sw;
	atomic_int ahead;	/* ranks but 0 that returned from call 1 */
	unsigned char res[N][BH_COUNT * BH_MAX_ES];	/* call 1's results */
	unsigned char res2[N][BH_COUNT * BH_MAX_ES];	/* call 2's */
};

/*
 * Three in-place calls. Before call 1, rank 0 gets blind to the switch's
 * 8-bit results: it still sends its data, so the others complete call 1
 * and wait in call 2, where rank 0 never comes while the switch is up.
 */
static int bh_rank(struct rank_run *r)
{
	struct bh_ctx *x = r->arg;
	size_t es = dt_size(x->dt), i;
	unsigned char *buf = malloc(BH_COUNT * es);
	int call, err = 0;

	if (!buf)
		return -ENOMEM;
	for (call = 0; call < 3 && !err; call++) {
		for (i = 0; i < BH_COUNT; i++)
			dt_put(x->dt, buf, i, dt_gen(x->dt, r->rank + call, i));
		if (call == 1 && r->rank == 0)
			udpsw_blind(x->sw, 0);
		err = optinc_allreduce(r->comm, buf, buf, BH_COUNT, x->dt, x->op);
		if (call == 1)
			memcpy(x->res[r->rank], buf, BH_COUNT * es);
		if (call == 2)
			memcpy(x->res2[r->rank], buf, BH_COUNT * es);
		if (call == 1 && r->rank)
			atomic_fetch_add(&x->ahead, 1);
	}
	free(buf);
	return err;
}

/* Stop the switch once ranks 1.. are past call 1 (at most 10 s). */
static void *bh_stop(void *arg)
{
	struct bh_ctx *x = arg;
	int k;

	for (k = 0; k < 1000 && atomic_load(&x->ahead) < N - 1; k++)
		usleep(10 * 1000);
	usleep(50 * 1000);	/* they are in call 2 now, waiting for rank 0 */
	udpsw_stop(x->sw);
	return NULL;
}

static int bh_run(int dt, int op)
{
	static struct bh_ctx x;
	struct udpsw_opts so = { .job = 1, .size = N };
	struct rank_run rr[N];
	char addr[32];
	pthread_t thr;
	int r, ok;

	memset(&x, 0, sizeof(x));
	x.dt = dt;
	x.op = op;
	if (udpsw_start(&so, &x.sw))
		return 0;
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", udpsw_port(x.sw));
	OPTINC_OPTS(o, .switch_addr = addr, .timeout_ms = 5000,
		    .peers = "127.0.0.1,127.0.0.1,127.0.0.1",
		    .ring_port = 20000 + (getpid() + 7 * dt + op) % 12000);
	pthread_create(&thr, NULL, bh_stop, &x);
	ranks_run(rr, N, &o, bh_rank, &x);
	pthread_join(thr, NULL);
	ok = lo_all(rr, 0, NULL);
	for (r = 1; r < N; r++) {
		if (memcmp(x.res[0], x.res[r], BH_COUNT * dt_size(dt)))
			tap_diag("%s %s: rank 0's call 1 differs from rank %d's",
				 dt_name(dt), dt_op_name(op), r);
		ok = ok && !memcmp(x.res[0], x.res[r], BH_COUNT * dt_size(dt)) &&
		     !memcmp(x.res2[0], x.res2[r], BH_COUNT * dt_size(dt));
	}
	return ok;
}

int main(void)
{
	struct rank_run rr[N];
	struct lo_ctx ctx = { .stop_after_ms = 300, .idle_rank = -1 };
	double worst = 0;
	int r;

	ranks_clear_env();
	setenv("OPTINC_FAILOVER_MS", "500", 1);
	tap_plan(8);
	lo_run(&ctx, "127.0.0.1,127.0.0.1,127.0.0.1", 3000, rr);
	tap_ok(lo_all(rr, 0, NULL),
	       "switch stopped mid-loop: %d checked calls pass on every rank through the ring",
	       CALLS);
	for (r = 0; r < N; r++)
		worst = ctx.slowest[r] > worst ? ctx.slowest[r] : worst;
	tap_ok(worst < 0.5 + 1.0,
	       "slowest call %.0f ms (failover_ms 500: detection plus the ring)",
	       worst * 1e3);

	memset(&ctx, 0, sizeof(ctx));
	ctx.stop_after_ms = 300;
	ctx.idle_rank = -1;
	lo_run(&ctx, NULL, 1500, rr);
	tap_ok(lo_all(rr, OPTINC_ERR_TIMEOUT, "after 1500 ms"),
	       "without peers: the call fails with OPTINC_ERR_TIMEOUT, nothing falls back");

	memset(&ctx, 0, sizeof(ctx));
	ctx.stop_after_ms = -1;
	ctx.idle_rank = 2;
	lo_run(&ctx, "127.0.0.1,127.0.0.1,127.0.0.1", 1500, rr);
	tap_ok(lo_all(rr, OPTINC_ERR_TIMEOUT, "a rank may be missing"),
	       "switch up, rank 2 never calls: the others get OPTINC_ERR_TIMEOUT, no fallback");

	tap_ok(bh_run(OPTINC_FLOAT32, OPTINC_AVG),
	       "rank 0 a call behind at the switch's end, float32 AVG: it returns the switch's result of the others, bit for bit");
	tap_ok(bh_run(OPTINC_FLOAT64, OPTINC_SUM),
	       "... float64 SUM (32-bit result elements kept)");
	tap_ok(bh_run(OPTINC_FLOAT16, OPTINC_MAX),
	       "... float16 MAX (the flipped MAX elements kept as they came)");
	tap_ok(bh_run(OPTINC_BFLOAT16, OPTINC_MIN),
	       "... bfloat16 MIN");
	return tap_done();
}
