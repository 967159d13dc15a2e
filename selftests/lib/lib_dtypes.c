// SPDX-License-Identifier: GPL-2.0
/*
 * The collectives a framework needs, through the loopback test switch and
 * the ring, ranks as threads: float16, bfloat16, float32 and float64 AVG
 * and SUM within the documented bound of a double-precision reference,
 * MAX and MIN on the quantized grid, int32 exact; the non-finite rule; and
 * ranks in different calls failing together instead of mixing them.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <optinc/optinc.h>
#include "libtest.h"
#include "dtref.h"
#include "udpswitch.h"

#define N	4
#define BLOCK	256

struct dt_case {
	int dt, op, bits, ring;
	size_t count;
	double worst;		/* max |error| / bound, over ranks' results */
	int identical;		/* all ranks bit-identical */
};

struct dt_run {
	struct dt_case *c;
	double *in[N];		/* inputs as doubles (exact in the type) */
	void *buf[N];		/* in place: inputs, then results */
};

static int dt_rank(struct rank_run *r)
{
	struct dt_run *ru = r->arg;
	const struct dt_case *c = ru->c;

	return optinc_allreduce(r->comm, ru->buf[r->rank], ru->buf[r->rank],
				c->count, c->dt, c->op);
}

static void dt_check(struct dt_run *ru)
{
	struct dt_case *c = ru->c;
	struct dt_call k = { .dt = c->dt, .op = c->op, .bits = c->bits,
			     .ring = c->ring, .count = c->count, .block = BLOCK };
	size_t es = dt_size(c->dt);
	int r;

	c->identical = 1;
	for (r = 1; r < N; r++)
		c->identical &= !memcmp(ru->buf[0], ru->buf[r], c->count * es);
	c->worst = dt_worst(&k, ru->in, N, ru->buf[0]);
}

/* A first port of N free TCP ports (other tests may run at the same time). */
static unsigned int dt_ports(int salt)
{
	static unsigned int calls;	/* fresh ports for every run */
	struct sockaddr_in sa = { .sin_family = AF_INET };
	unsigned int base, tries, r;
	int fd[N], ok;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (tries = 0; tries < 100; tries++) {
		base = 20000 + (getpid() * 7 + salt * 97 + calls++ * 131) % 12000;
		for (r = 0, ok = 1; r < N; r++) {
			fd[r] = socket(AF_INET, SOCK_STREAM, 0);
			sa.sin_port = htons(base + r);
			ok = ok && fd[r] >= 0 &&
			     !bind(fd[r], (struct sockaddr *)&sa, sizeof(sa));
		}
		for (r = 0; r < N; r++)
			if (fd[r] >= 0)
				close(fd[r]);
		if (ok)
			return base;
	}
	return base;
}

static int dt_opts(struct optinc_opts *o, const char *addr, int bits, int ring)
{
	memset(o, 0, sizeof(*o));
	o->sz = sizeof(*o);
	o->rank = o->size = o->algo = o->nonfinite = -1;
	o->switch_addr = addr;
	o->bits = bits;
	o->block = BLOCK;
	o->timeout_ms = 8000;
	if (ring) {
		o->algo = OPTINC_ALGO_RING;
		o->peers = "127.0.0.1,127.0.0.1,127.0.0.1,127.0.0.1";
		o->ring_port = dt_ports(ring);
	}
	return 0;
}

static struct udpsw *sw;
static char sw_addr[32];

static int dt_start_switch(void)
{
	return test_switch_start(N, 0, 0, &sw, sw_addr, sizeof(sw_addr));
}

/* One call on N ranks, in place, checked against the reference. */
static void dt_case_run(struct dt_case *c)
{
	struct dt_run ru = { .c = c };
	struct rank_run rr[N];
	struct optinc_opts o;
	size_t i, es = dt_size(c->dt);
	int r, ok;

	c->worst = 0;
	for (r = 0; r < N; r++) {
		ru.in[r] = malloc((c->count + 1) * sizeof(double));
		ru.buf[r] = malloc((c->count + 1) * es);
		for (i = 0; i < c->count; i++) {
			dt_put(c->dt, ru.buf[r], i, dt_gen(c->dt, r, i));
			ru.in[r][i] = dt_get(c->dt, ru.buf[r], i);
		}
	}
	dt_opts(&o, sw_addr, c->bits, c->ring);
	ok = !ranks_run(rr, N, &o, dt_rank, &ru);
	for (r = 0; r < N; r++)
		if (rr[r].ret)
			tap_diag("rank %d: %s: %s", r, optinc_strerror(rr[r].ret),
				 rr[r].msg);
	if (ok)
		dt_check(&ru);
	tap_ok(ok && c->identical && c->worst <= 1.0,
	       "%s %s %s %u bits, %zu elements: ranks identical, worst |error| / bound %.3f",
	       c->ring ? "ring" : "switch", dt_name(c->dt), dt_op_name(c->op),
	       c->bits, c->count, c->worst);
	for (r = 0; r < N; r++) {
		free(ru.in[r]);
		free(ru.buf[r]);
	}
}

static const int float_types[] = { OPTINC_FLOAT16, OPTINC_BFLOAT16,
				   OPTINC_FLOAT32, OPTINC_FLOAT64 };
static const size_t counts[] = { 1, BLOCK - 1, BLOCK + 1, 1000003 };

static int test_types(int ring)
{
	struct dt_case c = { .ring = ring };
	int t, op, k, n = 0;

	for (t = 0; t < 4; t++)
		for (op = OPTINC_SUM; op <= OPTINC_MIN; op++)
			for (k = 0; k < 4; k++, n++) {
				c.dt = float_types[t];
				c.op = op;
				c.count = counts[k];
				c.bits = k == 2 ? 16 : 8;
				dt_case_run(&c);
			}
	for (op = OPTINC_SUM; op <= OPTINC_MIN; op++, n++) {
		if (op == OPTINC_AVG)
			op++;
		c.dt = OPTINC_INT32;
		c.op = op;
		c.count = 4099;
		c.bits = 8;
		dt_case_run(&c);
	}
	return n;
}

/* ---- non-finite inputs: NaN, +Inf, -Inf on one rank or all ---- */

#define NF_COUNT	4099	/* 17 blocks, the last of 3 */
#define NF_CASES	18

struct nf_ctx {
	float base[N][NF_COUNT], clean[N][NF_COUNT];
	float x[N][NF_COUNT];
	double t_clean[N], t[N][NF_CASES];
	int code[N][NF_CASES], ok[N][NF_CASES], next_ok[N][NF_CASES];
};

static size_t nf_where(int k)
{
	return k % 3 == 0 ? 3 : k % 3 == 1 ? NF_COUNT / 2 : NF_COUNT - 1;
}

static float nf_value(int k)
{
	return k / 3 % 3 == 0 ? NAN : k / 3 % 3 == 1 ? INFINITY : -INFINITY;
}

/* Case @k's block is all NaN, every other element as in the clean call. */
static int nf_result_ok(const struct nf_ctx *x, int rank, int k)
{
	size_t b = nf_where(k) / BLOCK, i;

	for (i = 0; i < NF_COUNT; i++)
		if (i / BLOCK == b ? !isnan(x->x[rank][i]) :
		    memcmp(&x->x[rank][i], &x->clean[rank][i], 4))
			return 0;
	return 1;
}

/* One call of case @k (or the clean call for k < 0): its time, or -1 if wrong. */
static double nf_call(struct rank_run *r, struct nf_ctx *x, int k, float *buf)
{
	int me = r->rank, err;
	double t;

	memcpy(buf, x->base[me], sizeof(x->base[me]));
	if (k >= 0 && (k < 9 || me == 1))	/* cases 9..17: one rank only */
		buf[nf_where(k)] = nf_value(k);
	t = now_s();
	err = optinc_allreduce(r->comm, buf, buf, NF_COUNT, OPTINC_FLOAT32,
			       OPTINC_AVG);
	t = now_s() - t;
	if (k >= 0)
		x->code[me][k] = err;
	return err ? -1 : t;
}

/*
 * Every case three times; the best time counts (a loaded machine preempts
 * a rank now and then; what must not happen is waiting for a
 * retransmission or a timeout, 20 ms and more).
 */
static int nf_rank(struct rank_run *r)
{
	struct nf_ctx *x = r->arg;
	int k, me = r->rank, rep;
	double t;

	x->t_clean[me] = 1e9;
	for (rep = 0; rep < 3; rep++) {
		t = nf_call(r, x, -1, x->clean[me]);
		if (t < 0)
			return -1;
		x->t_clean[me] = t < x->t_clean[me] ? t : x->t_clean[me];
	}
	for (k = 0; k < NF_CASES; k++) {
		x->t[me][k] = 1e9;
		x->ok[me][k] = x->next_ok[me][k] = 1;
		for (rep = 0; rep < 3; rep++) {
			t = nf_call(r, x, k, x->x[me]);
			x->ok[me][k] &= t >= 0 && nf_result_ok(x, me, k);
			if (t >= 0 && t < x->t[me][k])
				x->t[me][k] = t;
			x->next_ok[me][k] &= nf_call(r, x, -1, x->x[me]) >= 0 &&
				!memcmp(x->x[me], x->clean[me], sizeof(x->x[me]));
		}
	}
	return 0;
}

static void test_nonfinite(int ring)
{
	static struct nf_ctx x;
	static const char *const what[] = { "NaN", "+Inf", "-Inf" };
	static const char *const where[] = { "first", "middle", "last" };
	struct rank_run rr[N];
	struct optinc_opts o;
	double worst;
	int r, k, ok, run_ok;
	size_t i;

	for (r = 0; r < N; r++)
		for (i = 0; i < NF_COUNT; i++)
			x.base[r][i] = (float)dt_gen(OPTINC_FLOAT32, r, i);
	dt_opts(&o, sw_addr, 8, ring + 2);
	run_ok = !ranks_run(rr, N, &o, nf_rank, &x);
	for (r = 0; r < N; r++)
		if (rr[r].ret)
			tap_diag("rank %d: %s", r, rr[r].msg);
	for (k = 0; k < NF_CASES; k++) {
		ok = run_ok;
		worst = 0;
		for (r = 0; r < N; r++) {
			ok = ok && x.ok[r][k] && x.next_ok[r][k] &&
			     x.t[r][k] < 2 * x.t_clean[r] + 0.02;
			worst = fmax(worst, x.t[r][k] / x.t_clean[r]);
		}
		tap_ok(ok,
		       "%s: %s in the %s block on %s: that block NaN on every rank, the rest and the next call right; best of 3 / clean %.2f",
		       ring ? "ring" : "switch", what[k / 3 % 3],
		       where[k % 3], k < 9 ? "every rank" : "rank 1", worst);
	}
}

/* ---- ranks in different calls ---- */

struct mix_ctx {
	int kind;	/* 0: NaN replay; 1: NULL on rank 0; 2: count on rank 2 */
	int code[N][2];
	double secs[N];
	float x[N][1000];
	int right[N];
};

static int mix_rank(struct rank_run *r)
{
	struct mix_ctx *m = r->arg;
	int me = r->rank, i;
	size_t n = m->kind == 2 && me == 2 ? 999 : 1000;
	double t = now_s();

	for (i = 0; i < 1000; i++)
		m->x[me][i] = (float)(i % 7) * 0.25f;
	if (m->kind == 0 && me == 0)
		m->x[me][300] = NAN;
	m->code[me][0] = optinc_allreduce(r->comm,
					  m->kind == 1 && me == 0 ? NULL : m->x[me],
					  m->x[me], n, OPTINC_FLOAT32,
					  OPTINC_AVG);
	for (i = 0; i < 1000; i++)
		m->x[me][i] = (float)(i % 7) * 0.25f;
	m->x[me][300] = 1.0f;
	m->code[me][1] = optinc_allreduce(r->comm, m->x[me], m->x[me], 1000,
					  OPTINC_FLOAT32, OPTINC_AVG);
	m->secs[me] = now_s() - t;
	m->right[me] = 1;
	for (i = 0; i < 1000; i++)
		m->right[me] &= m->x[me][i] == (i == 300 ? 1.0f :
						(float)(i % 7) * 0.25f);
	return 0;
}

static void test_mix(int ring, int kind)
{
	static const char *const what[] = {
		"NaN on rank 0, then the next call on every rank",
		"a NULL sendbuf on rank 0 only, then the next call",
		"count 999 on rank 2, 1000 elsewhere, then the next call",
	};
	struct mix_ctx m = { .kind = kind };
	struct rank_run rr[N];
	struct optinc_opts o;
	int r, ok;

	dt_opts(&o, sw_addr, 8, ring + 4 + kind);
	ok = !ranks_run(rr, N, &o, mix_rank, &m);
	for (r = 0; r < N; r++) {
		tap_diag("rank %d: %d, %d in %.3f s: %s", r, m.code[r][0],
			 m.code[r][1], m.secs[r], rr[r].msg);
		ok = ok && m.secs[r] < 2.0;
		if (kind == 0)
			ok = ok && !m.code[r][0] && !m.code[r][1] && m.right[r];
		else
			ok = ok && m.code[r][1] == OPTINC_ERR_PROTO &&
			     m.code[r][0] == (kind == 1 && r == 0 ?
					      OPTINC_ERR_INVALID : r == 0 || kind == 1 ?
					      OPTINC_ERR_PROTO : m.code[r][0]) &&
			     m.code[r][0] != 0;
	}
	tap_ok(ok, "%s: %s: %s, within 2 s", ring ? "ring" : "switch",
	       what[kind], kind ? "no rank returns OPTINC_OK, all fail" :
	       "every rank gets the documented result");
}

/* ---- OPTINC_NONFINITE_ERROR: every rank fails, recvbuf untouched ---- */

struct nfe_ctx {
	float x[N][1000];
	int code[N], kept[N], next[N];
};

static int nfe_rank(struct rank_run *r)
{
	struct nfe_ctx *m = r->arg;
	int me = r->rank, i;

	for (i = 0; i < 1000; i++)
		m->x[me][i] = (float)i;
	if (me == 1)
		m->x[me][700] = -INFINITY;
	m->code[me] = optinc_allreduce(r->comm, m->x[me], m->x[me], 1000,
				       OPTINC_FLOAT32, OPTINC_SUM);
	m->kept[me] = 1;
	for (i = 0; i < 1000; i++)
		m->kept[me] &= i == 700 && me == 1 ? isinf(m->x[me][i]) :
			       m->x[me][i] == (float)i;
	m->x[me][700] = 700;
	m->next[me] = optinc_allreduce(r->comm, m->x[me], m->x[me], 1000,
				       OPTINC_FLOAT32, OPTINC_MAX) == 0 &&
		      m->x[me][700] == 700 && m->x[me][999] == 999;
	return 0;
}

static void test_nonfinite_error(int ring)
{
	struct nfe_ctx m;
	struct rank_run rr[N];
	struct optinc_opts o;
	int r, ok;

	memset(&m, 0, sizeof(m));
	dt_opts(&o, sw_addr, 8, ring + 10);
	o.nonfinite = OPTINC_NONFINITE_ERROR;
	ok = !ranks_run(rr, N, &o, nfe_rank, &m);
	for (r = 0; r < N; r++) {
		ok = ok && m.code[r] == OPTINC_ERR_RANGE && m.kept[r] && m.next[r];
		if (m.code[r] != OPTINC_ERR_RANGE || !m.kept[r] || !m.next[r])
			tap_diag("rank %d: %d, kept %d, next %d", r, m.code[r],
				 m.kept[r], m.next[r]);
	}
	tap_ok(ok, "%s: OPTINC_NONFINITE_ERROR, -Inf on rank 1: every rank OPTINC_ERR_RANGE, its buffer untouched, the next call right",
	       ring ? "ring" : "switch");
}

/* ---- count 0: every datatype and op returns at once, nothing sent ---- */

static int zero_rank(struct rank_run *r)
{
	struct optinc_comm_stats s0 = { .sz = sizeof(s0) }, s1 = s0;
	int dt, op, bad = 0;

	optinc_comm_get_stats(r->comm, &s0);
	for (dt = OPTINC_FLOAT32; dt <= OPTINC_FLOAT64; dt++)
		for (op = OPTINC_SUM; op <= OPTINC_MIN; op++)
			if (!(dt == OPTINC_INT32 && op == OPTINC_AVG))
				bad += optinc_allreduce(r->comm, NULL, NULL, 0, dt,
							op) != 0;
	optinc_comm_get_stats(r->comm, &s1);
	return bad || s1.frames_sent != s0.frames_sent || s1.calls != s0.calls + 19;
}

static void test_count0(int ring)
{
	struct rank_run rr[N];
	struct optinc_opts o;

	dt_opts(&o, sw_addr, 8, ring + 12);
	tap_ok(!ranks_run(rr, N, &o, zero_rank, NULL),
	       "%s: count 0 of every datatype and op (NULL buffers): OK at once, no frame sent",
	       ring ? "ring" : "switch");
}

/* ---- the ring's AVG near +-FLT_MAX ---- */

static int big_rank(struct rank_run *r)
{
	float *x = r->arg;
	int i;

	for (i = 0; i < 4097; i++)
		x[r->rank * 4097 + i] = (i & 1 ? -1 : 1) * FLT_MAX * (0.9f + 0.02f * r->rank);
	return optinc_allreduce(r->comm, x + r->rank * 4097, x + r->rank * 4097,
				4097, OPTINC_FLOAT32, OPTINC_AVG);
}

static void test_ring_big(void)
{
	static float x[N * 4097];
	struct rank_run rr[N];
	struct optinc_opts o;
	double want = FLT_MAX * (0.9 + 0.03), worst = 0;
	int ok, i;

	dt_opts(&o, sw_addr, 8, 9);
	ok = !ranks_run(rr, N, &o, big_rank, x);
	for (i = 0; ok && i < 4097; i++) {
		ok = isfinite(x[i]);
		worst = fmax(worst, fabs(fabs(x[i]) - want) / (want * N * ldexp(1, -24)));
	}
	tap_ok(ok && worst <= 1.0, "ring: float AVG of values near +-FLT_MAX is finite, worst |error| / bound %.3f",
	       worst);
}

/* types x ops x counts, int32 ops, per path; non-finite; count 0; mixed; big */
#define PLAN	(2 * (4 * 4 * 4 + 3) + 2 * NF_CASES + 2 + 2 + 2 * 3 + 1)

int main(void)
{
	int k;

	ranks_clear_env();
	tap_plan(PLAN);
	if (dt_start_switch()) {
		for (k = 0; k < PLAN; k++)
			tap_ok(0, "no test switch");
		return tap_done();
	}
	test_types(0);
	test_types(1);
	test_nonfinite(0);
	test_nonfinite(1);
	test_nonfinite_error(0);
	test_nonfinite_error(1);
	test_count0(0);
	test_count0(1);
	for (k = 0; k < 3; k++) {
		test_mix(0, k);
		test_mix(1, k);
	}
	test_ring_big();
	udpsw_stop(sw);
	return tap_done();
}
