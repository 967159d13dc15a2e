// SPDX-License-Identifier: GPL-2.0
/*
 * optinc_allreduce() through the loopback test switch (udpswitch.c), ranks
 * as threads: results within the documented bounds of a double-precision
 * reference, int32 exact, all ranks bit-identical, loss, missing ranks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <optinc/optinc.h>
#include "libtest.h"
#include "udpswitch.h"

#define MAX_RANKS	8
#define MAX_CALLS	3

struct ar_case {
	const char *name;
	int n;			/* ranks */
	size_t count;		/* elements of the first call */
	int dt, op;
	unsigned int bits, block, mtu, window;	/* 0: library default */
	uint16_t sw_window;	/* 0: harness default (64) */
	double loss;
	int inplace;
	int calls;		/* calls in a row, call k on count / (k + 1) */
	int ring;		/* algo ring (TCP between the ranks) instead */
};

struct ar_ctx {
	const struct ar_case *c;
	void *in[MAX_RANKS];
	void *out[MAX_RANKS][MAX_CALLS];
};

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double rng_unit(uint64_t *s)	/* in [-1, 1) */
{
	return (double)(rng_next(s) >> 11) / (double)(1ULL << 52) - 1.0;
}

/* Magnitudes vary by block and rank; some blocks are zero on some ranks. */
static void gen_f32(float *x, size_t count, int rank, unsigned int block)
{
	uint64_t s = 0x243f6a8885a308d3ULL + 977 * (uint64_t)(rank + 1);
	size_t i, b;
	int e;

	for (i = 0; i < count; i++) {
		b = i / block;
		e = (int)((b * 7 + rank * 3) % 41) - 20;
		if (b % 13 == 5 || (b % 11 == 3 && rank == 0))
			x[i] = 0.0f;
		else
			x[i] = (float)ldexp(rng_unit(&s), e);
	}
}

static void gen_i32(int32_t *x, size_t count, int rank)
{
	uint64_t s = 0x13198a2e03707344ULL + 31 * (uint64_t)(rank + 1);
	size_t i;

	for (i = 0; i < count; i++)
		x[i] = (int32_t)(uint32_t)rng_next(&s);
}

static size_t call_count(const struct ar_case *c, int k)
{
	return c->count / (size_t)(k + 1);
}

static int ar_rank(struct rank_run *r)
{
	struct ar_ctx *ctx = r->arg;
	const struct ar_case *c = ctx->c;
	int k, calls = c->calls ? c->calls : 1, err;
	size_t n;
	void *in;

	for (k = 0; k < calls; k++) {
		n = call_count(c, k);
		in = ctx->in[r->rank];
		if (c->inplace) {
			memcpy(ctx->out[r->rank][k], in, n * 4);
			in = ctx->out[r->rank][k];
		}
		err = optinc_allreduce(r->comm, in, ctx->out[r->rank][k], n,
				       c->dt, c->op);
		if (err)
			return err;
	}
	return 0;
}

/* The smallest e with max|x| < 2^e (1 - 2^-B): the documented block rule. */
static int ref_exp(const float *x, size_t n, unsigned int bits)
{
	double m = 0.0, f;
	size_t i;
	int e;

	for (i = 0; i < n; i++)
		m = fmax(m, fabs(x[i]));
	if (m == 0.0)
		return -128;
	f = frexp(m, &e);
	return f < 1.0 - ldexp(1.0, -(int)bits) ? e : e + 1;
}

/* Largest |error| / bound over all elements; -1 when a bound is broken. */
static double check_f32(const struct ar_ctx *ctx, size_t count,
			const float *y)
{
	const struct ar_case *c = ctx->c;
	unsigned int bits = c->bits ? c->bits : 8;
	size_t block = c->block ? c->block : 256, i, b, len;
	double worst = 0.0, ref, step, bound, err;
	int r, e;

	for (b = 0; b * block < count; b++) {
		len = count - b * block < block ? count - b * block : block;
		e = -128;
		for (r = 0; r < c->n; r++) {
			int er = ref_exp((float *)ctx->in[r] + b * block, len,
					 bits);

			e = er > e ? er : e;
		}
		step = ldexp(1.0, e - ((int)bits - 1));
		bound = c->op == OPTINC_AVG ? step : c->n * step / 2;
		for (i = b * block; i < b * block + len; i++) {
			ref = 0.0;
			for (r = 0; r < c->n; r++)
				ref += ((float *)ctx->in[r])[i];
			if (c->op == OPTINC_AVG)
				ref /= c->n;
			err = fabs((double)y[i] - ref);
			if (!(err <= bound * (1.0 + 1e-9))) {
				tap_diag("element %zu: got %.9g, reference %.12g, bound %.3g",
					 i, y[i], ref, bound);
				return -1.0;
			}
			if (bound > 0)
				worst = fmax(worst, err / bound);
		}
	}
	return worst;
}

static int check_i32(const struct ar_ctx *ctx, size_t count, const int32_t *y)
{
	size_t i;
	uint32_t s;
	int r;

	for (i = 0; i < count; i++) {
		s = 0;
		for (r = 0; r < ctx->c->n; r++)
			s += (uint32_t)((int32_t *)ctx->in[r])[i];
		if ((uint32_t)y[i] != s) {
			tap_diag("element %zu: got %d, want %d", i, y[i],
				 (int32_t)s);
			return 0;
		}
	}
	return 1;
}

/* Every call's results: identical on all ranks and right on rank 0. */
static int check_all(const struct ar_ctx *ctx, double *worst)
{
	const struct ar_case *c = ctx->c;
	int k, r, calls = c->calls ? c->calls : 1;
	double w;
	size_t n;

	*worst = 0.0;
	for (k = 0; k < calls; k++) {
		n = call_count(c, k);
		for (r = 1; r < c->n; r++)
			if (memcmp(ctx->out[0][k], ctx->out[r][k], n * 4)) {
				tap_diag("call %d: rank %d differs from rank 0", k, r);
				return 0;
			}
		if (c->dt == OPTINC_INT32) {
			if (!check_i32(ctx, n, ctx->out[0][k]))
				return 0;
			continue;
		}
		w = check_f32(ctx, n, ctx->out[0][k]);
		if (w < 0)
			return 0;
		*worst = fmax(*worst, w);
	}
	return 1;
}

static void ctx_free(struct ar_ctx *ctx)
{
	int r, k;

	for (r = 0; r < MAX_RANKS; r++) {
		free(ctx->in[r]);
		for (k = 0; k < MAX_CALLS; k++)
			free(ctx->out[r][k]);
	}
}

static int ctx_alloc(struct ar_ctx *ctx, const struct ar_case *c)
{
	int r, k, calls = c->calls ? c->calls : 1;
	size_t n = c->count ? c->count : 1;

	memset(ctx, 0, sizeof(*ctx));
	ctx->c = c;
	for (r = 0; r < c->n; r++) {
		ctx->in[r] = malloc(n * 4);
		if (!ctx->in[r])
			return -1;
		if (c->dt == OPTINC_INT32)
			gen_i32(ctx->in[r], c->count, r);
		else
			gen_f32(ctx->in[r], c->count, r,
				c->block ? c->block : 256);
		for (k = 0; k < calls; k++) {
			/* NaN everywhere: an element never written shows */
			ctx->out[r][k] = malloc(n * 4);
			if (!ctx->out[r][k])
				return -1;
			memset(ctx->out[r][k], 0xff, n * 4);
		}
	}
	return 0;
}

/* With loss, frames must really have been lost and re-sent. */
static int check_loss(const struct ar_case *c, const struct rank_run *rr,
		      struct udpsw *sw)
{
	struct udpsw_stats ss;
	uint64_t retx = 0;
	int r;

	udpsw_get_stats(sw, &ss);
	for (r = 0; r < c->n; r++)
		retx += rr[r].st.retransmits;
	tap_diag("switch: %llu frames in, %llu out, %llu lost on purpose, %llu results re-sent; ranks: %llu retransmits",
		 (unsigned long long)ss.rx, (unsigned long long)ss.tx,
		 (unsigned long long)ss.lost, (unsigned long long)ss.resend,
		 (unsigned long long)retx);
	return c->loss <= 0 || (ss.lost > 0 && retx > 0);
}

static void run_case(const struct ar_case *c)
{
	struct rank_run rr[MAX_RANKS];
	struct ar_ctx ctx;
	struct udpsw *sw;
	char addr[32];
	double worst = 0, t;
	int ok;

	if (ctx_alloc(&ctx, c) ||
	    test_switch_start(c->n, c->sw_window, c->loss, &sw, addr, sizeof(addr))) {
		ctx_free(&ctx);
		tap_ok(0, "%s", c->name);
		return;
	}
	OPTINC_OPTS(o, .switch_addr = addr, .bits = c->bits, .block = c->block,
		    .mtu = c->mtu, .window = c->window);
	if (c->ring) {
		o.algo = OPTINC_ALGO_RING;
		o.peers = "127.0.0.1,127.0.0.1,127.0.0.1,127.0.0.1";
		o.ring_port = 20000 + getpid() % 12000;
	}
	t = now_s();
	ok = !ranks_run(rr, c->n, &o, ar_rank, &ctx);
	t = now_s() - t;
	ok = ranks_report(rr, c->n) && ok && check_all(&ctx, &worst);
	ok = check_loss(c, rr, sw) && ok;
	tap_diag("%s: %.3f s, max |error| / bound %.3f, rank 0 sent %llu frames, %llu bytes",
		 c->name, t, worst, (unsigned long long)rr[0].st.frames_sent,
		 (unsigned long long)rr[0].st.bytes_sent);
	udpsw_stop(sw);
	ctx_free(&ctx);
	tap_ok(ok, "%s", c->name);
}

#define F32	OPTINC_FLOAT32
#define I32	OPTINC_INT32
#define AVG	OPTINC_AVG
#define SUM	OPTINC_SUM
#define BIG	1048583

#define CASE(nm, ranks, cnt, type, rop, ...)				\
	{ .name = nm, .n = ranks, .count = cnt, .dt = type, .op = rop,	\
	  __VA_ARGS__ }

static const struct ar_case cases[] = {
	CASE("f32 avg N=4 count=1", 4, 1, F32, AVG),
	CASE("f32 avg N=4 count=1000", 4, 1000, F32, AVG),
	CASE("f32 avg N=4 count=1048583", 4, BIG, F32, AVG),
	CASE("f32 avg N=2 count=1048583", 2, BIG, F32, AVG),
	CASE("f32 avg N=8 count=1048583", 8, BIG, F32, AVG),
	CASE("f32 sum N=4 count=1000", 4, 1000, F32, SUM),
	CASE("f32 sum N=4 count=1048583", 4, BIG, F32, SUM),
	CASE("i32 sum N=4 count=1048583 exact", 4, BIG, I32, SUM),
	CASE("i32 sum N=3 count=1 exact", 3, 1, I32, SUM),
	CASE("f32 avg N=4 in place", 4, 100003, F32, AVG, .inplace = 1),
	CASE("i32 sum N=4 in place", 4, 100003, I32, SUM, .inplace = 1),
	CASE("f32 avg N=4 B=16 count=1048583", 4, BIG, F32, AVG, .bits = 16),
	CASE("f32 sum N=4 B=16 count=1000", 4, 1000, F32, SUM, .bits = 16),
	CASE("f32 avg N=4 mtu=1500", 4, 100003, F32, AVG, .mtu = 1500),
	CASE("f32 avg N=3 block=100 count=1000", 3, 1000, F32, AVG, .block = 100),
	CASE("3 calls in a row, window 4 (slot copies reused)", 3, 100003, F32,
	     AVG, .window = 4, .sw_window = 4, .calls = 3),
	CASE("f32 avg N=4 count=1048583, 5% loss", 4, BIG, F32, AVG, .loss = 0.05),
	CASE("i32 sum N=4 count=100000, 5% loss", 4, 100000, I32, SUM,
	     .loss = 0.05),
	CASE("f32 sum N=3, 3 calls, window 4, 5% loss", 3, 50000, F32, SUM,
	     .window = 4, .sw_window = 4, .calls = 3, .loss = 0.05),
	CASE("algo ring: f32 avg N=4 count=100003, 2 calls", 4, 100003, F32,
	     AVG, .ring = 1, .calls = 2),
	CASE("algo ring: i32 sum N=4 count=1000 exact", 4, 1000, I32, SUM,
	     .ring = 1),
};

/* ---- count 0 and the counters ---- */

struct stats_ctx {
	char why[MAX_RANKS][160];
};

static int stats_rank(struct rank_run *r)
{
	struct stats_ctx *sc = r->arg;
	struct optinc_comm_stats s0 = { .sz = sizeof(s0) }, s1 = s0, s2 = s0;
	static float x[MAX_RANKS][1000], y[MAX_RANKS][1000];
	char *why = sc->why[r->rank];
	uint64_t res;
	int err, i;

	for (i = 0; i < 1000; i++)
		x[r->rank][i] = (float)(i - 500 + r->rank) / 64.0f;
	optinc_comm_get_stats(r->comm, &s0);
	err = optinc_allreduce(r->comm, NULL, NULL, 0, OPTINC_FLOAT32,
			       OPTINC_AVG);
	optinc_comm_get_stats(r->comm, &s1);
	if (err || s1.frames_sent != s0.frames_sent || s1.calls != 1) {
		snprintf(why, 160, "count 0: %d, %llu frames sent", err,
			 (unsigned long long)(s1.frames_sent - s0.frames_sent));
		return err ?: -1;
	}
	err = optinc_allreduce(r->comm, x[r->rank], y[r->rank], 1000,
			       OPTINC_FLOAT32, OPTINC_AVG);
	optinc_comm_get_stats(r->comm, &s2);
	res = (s2.frames_rcvd - s2.frames_ignored - s2.dup_results) -
	      (s1.frames_rcvd - s1.frames_ignored - s1.dup_results);
	/* block codes: 32 + 4 x 2 bytes; data: 32 + 4 scales + 1000 values */
	if (err || s2.frames_sent - s1.frames_sent != 2 ||
	    s2.bytes_sent - s1.bytes_sent != 1076 || res != 2 ||
	    s2.retransmits || s2.calls != 2) {
		snprintf(why, 160, "count 1000: %d, sent %llu frames %llu bytes, %llu results, %llu retransmits",
			 err, (unsigned long long)(s2.frames_sent - s1.frames_sent),
			 (unsigned long long)(s2.bytes_sent - s1.bytes_sent),
			 (unsigned long long)res,
			 (unsigned long long)s2.retransmits);
		return err ?: -1;
	}
	return 0;
}

static void test_count0_stats(void)
{
	struct rank_run rr[2];
	struct stats_ctx sc = { 0 };
	struct udpsw *sw;
	char addr[32];
	int ok = 0, r;

	if (!test_switch_start(2, 0, 0, &sw, addr, sizeof(addr))) {
		/* no retransmission, however late a thread is scheduled */
		OPTINC_OPTS(o, .switch_addr = addr, .retx_ms = 5000);
		ok = !ranks_run(rr, 2, &o, stats_rank, &sc);
		for (r = 0; r < 2; r++)
			if (rr[r].ret)
				tap_diag("rank %d: %s %s", r, sc.why[r], rr[r].msg);
		udpsw_stop(sw);
	}
	tap_ok(ok, "count 0 sends nothing; counters count frames and bytes exactly");
}

/* ---- a rank that never calls ---- */

struct missing_ctx {
	double secs[MAX_RANKS];
	int first[MAX_RANKS], second[MAX_RANKS];
	char msg1[MAX_RANKS][256], msg2[MAX_RANKS][256];
};

static int missing_rank(struct rank_run *r)
{
	struct missing_ctx *mc = r->arg;
	static float x[MAX_RANKS][1000];
	double t = now_s();

	if (r->rank == 2)
		return 0;
	mc->first[r->rank] = optinc_allreduce(r->comm, x[r->rank], x[r->rank],
					      1000, OPTINC_FLOAT32, OPTINC_AVG);
	mc->secs[r->rank] = now_s() - t;
	snprintf(mc->msg1[r->rank], 256, "%s", optinc_comm_errmsg(r->comm));
	mc->second[r->rank] = optinc_allreduce(r->comm, x[r->rank], x[r->rank],
					       1000, OPTINC_FLOAT32,
					       OPTINC_AVG);
	snprintf(mc->msg2[r->rank], 256, "%s", optinc_comm_errmsg(r->comm));
	return 0;
}

static void test_missing_rank(void)
{
	struct missing_ctx mc = { 0 };
	struct rank_run rr[3];
	struct udpsw *sw;
	char addr[32];
	int ok1 = 0, ok2 = 0, r;

	if (!test_switch_start(3, 0, 0, &sw, addr, sizeof(addr))) {
		OPTINC_OPTS(o, .switch_addr = addr, .timeout_ms = 400);
		ok1 = ok2 = !ranks_run(rr, 3, &o, missing_rank, &mc);
		for (r = 0; r < 2; r++) {
			tap_diag("rank %d: %.3f s: %s", r, mc.secs[r], mc.msg1[r]);
			ok1 = ok1 && mc.first[r] == OPTINC_ERR_TIMEOUT &&
			      strstr(mc.msg1[r], "no result for seq") &&
			      strstr(mc.msg1[r], "a rank may be missing") &&
			      strstr(mc.msg1[r], addr) &&
			      mc.secs[r] > 0.35 && mc.secs[r] < 3.0;
			tap_diag("rank %d, next call: %s", r, mc.msg2[r]);
			ok2 = ok2 && mc.second[r] == OPTINC_ERR_TIMEOUT &&
			      strstr(mc.msg2[r], "earlier call");
		}
		udpsw_stop(sw);
	}
	tap_ok(ok1, "a missing rank gives OPTINC_ERR_TIMEOUT after timeout_ms, naming seq and switch");
	tap_ok(ok2, "the communicator then keeps failing instead of mixing up calls");
}

/* ---- bad input on a one-rank job ---- */

static int expect(struct optinc_comm *c, int got, int want, const char *text)
{
	const char *msg = optinc_comm_errmsg(c);

	if (got == want && strstr(msg, text))
		return 1;
	tap_diag("got %d (%s) \"%s\", want %d and \"%s\"", got,
		 optinc_strerror(got), msg, want, text);
	return 0;
}

static void bad_input_tests(struct optinc_comm *c)
{
	static float x[1000], y[1000];
	int32_t iv[4] = { 1, 2, 3, 4 };
	int ok;

	int i;

	/* the block of 256 holding a NaN or an infinity is NaN, no other */
	x[777] = NAN;
	x[5] = 2.0f;
	ok = optinc_allreduce(c, x, y, 1000, OPTINC_FLOAT32, OPTINC_AVG) == 0;
	for (i = 0; ok && i < 1000; i++)
		ok = i >= 768 ? isnan(y[i]) : y[i] == x[i];
	x[777] = 0;
	x[0] = -INFINITY;
	ok = ok && optinc_allreduce(c, x, y, 1000, OPTINC_FLOAT32,
				    OPTINC_SUM) == 0;
	for (i = 0; ok && i < 1000; i++)
		ok = i < 256 ? isnan(y[i]) : y[i] == x[i];
	if (!ok)
		tap_diag("element %d: %g from %g", i - 1, y[i - 1], x[i - 1]);
	x[0] = 1.5f;
	x[5] = 0;
	tap_ok(ok, "a non-finite input makes its block NaN, the call succeeds");
	tap_ok(expect(c, optinc_allreduce(c, iv, iv, 4, OPTINC_INT32,
					  OPTINC_AVG), OPTINC_ERR_UNSUPPORTED,
		      "int32 AVG"), "int32 AVG gives OPTINC_ERR_UNSUPPORTED");
	ok = expect(c, optinc_allreduce(c, x, y, 10, 7, OPTINC_AVG),
		    OPTINC_ERR_UNSUPPORTED, "unknown datatype 7") &&
	     expect(c, optinc_allreduce(c, x, y, 10, OPTINC_FLOAT32, 9),
		    OPTINC_ERR_UNSUPPORTED, "unknown op 9") &&
	     expect(c, optinc_allreduce(c, NULL, y, 10, OPTINC_FLOAT32,
					OPTINC_AVG), OPTINC_ERR_INVALID,
		    "sendbuf is NULL") &&
	     expect(c, optinc_allreduce(c, x, x + 1, 10, OPTINC_FLOAT32,
					OPTINC_AVG), OPTINC_ERR_INVALID,
		    "overlap") &&
	     optinc_allreduce(NULL, x, y, 10, OPTINC_FLOAT32, OPTINC_AVG) ==
	     OPTINC_ERR_INVALID;
	tap_ok(ok, "unknown datatype and op give OPTINC_ERR_UNSUPPORTED, bad buffers OPTINC_ERR_INVALID");
	ok = !optinc_allreduce(c, x, y, 1000, OPTINC_FLOAT32, OPTINC_AVG) &&
	     y[0] == 1.5f && y[1] == 0.0f &&
	     !optinc_allreduce(c, iv, iv, 4, OPTINC_INT32, OPTINC_SUM) &&
	     iv[3] == 4;
	tap_ok(ok, "the communicator works after those errors (one rank: y = x)");
}

static void test_bad_input(void)
{
	struct optinc_comm *c = NULL;
	struct udpsw *sw;
	char addr[32];
	int i;

	if (!test_switch_start(1, 0, 0, &sw, addr, sizeof(addr))) {
		OPTINC_OPTS(o, .rank = 0, .size = 1, .switch_addr = addr,
			    .timeout_ms = 2000);
		if (optinc_comm_create(&o, &c))
			tap_diag("comm_create: %s", optinc_comm_errmsg(NULL));
	}
	if (c) {
		bad_input_tests(c);
		optinc_comm_destroy(c);
	} else {
		for (i = 0; i < 4; i++)
			tap_ok(0, "bad input test %d (no communicator)", i + 1);
	}
	if (sw)
		udpsw_stop(sw);
}

/* ---- a switch answering with other exponents ---- */

static void test_proto(void)
{
	struct udpsw_opts so = { .job = 1, .size = 1, .bad_scales = 1 };
	static float x[1000];
	struct optinc_comm *c = NULL;
	struct udpsw *sw = NULL;
	char addr[32];
	int ok = 0;

	x[10] = 3.0f;
	if (!udpsw_start(&so, &sw)) {
		snprintf(addr, sizeof(addr), "127.0.0.1:%u", udpsw_port(sw));
		OPTINC_OPTS(o, .rank = 0, .size = 1, .switch_addr = addr);
		if (!optinc_comm_create(&o, &c)) {
			ok = expect(c, optinc_allreduce(c, x, x, 1000,
							OPTINC_FLOAT32,
							OPTINC_AVG),
				    OPTINC_ERR_PROTO, "other block exponents");
			optinc_comm_destroy(c);
		}
		udpsw_stop(sw);
	}
	tap_ok(ok, "a result with other exponents than sent is OPTINC_ERR_PROTO");
}

int main(void)
{
	size_t i, n = sizeof(cases) / sizeof(cases[0]);

	ranks_clear_env();
	tap_plan(n + 1 + 2 + 4 + 1);
	for (i = 0; i < n; i++)
		run_case(&cases[i]);
	test_count0_stats();
	test_missing_rank();
	test_bad_input();
	test_proto();
	return tap_done();
}
