// SPDX-License-Identifier: GPL-2.0
/*
 * Tail loss through the loopback test switch: the last frame of a phase
 * (or its result) is lost once, on purpose, and the call must finish in
 * well under the retransmission timeout's floor (retx_ms), by the tail
 * probe, with the right result. Ranks are threads; int32 SUM calls have
 * one phase, of 3 frames, of 1, or of 8 through a window of 4 (the frame
 * a full window waits for is a tail too: nothing is sent after it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <optinc/optinc.h>
#include "libtest.h"
#include "udpswitch.h"

#define N_RANKS		3
#define RETX_MS		1000	/* the timeout's floor: before the probe, a lost tail cost this */
/*
 * The probe comes at RETX_MS / 4, or twice that for a frame the switch
 * holds (a frame that lost only its result may be one); a lost tail
 * without it takes RETX_MS at least.
 */
#define LIMIT_MS	(RETX_MS * 3 / 4)
#define MTU		1028	/* 1028 - 28 - 32 = 968 bytes: 242 int32 a frame */
#define PER_FRAME	242
#define WARMUP		8	/* calls before the cases */
#define WINDOW		4

struct tail_case {
	const char *name;
	size_t count;		/* int32 values: frames = count / PER_FRAME, rounded up */
	struct {
		enum udpsw_dir dir;
		int rank;
		int frame;	/* of the call */
	} drop[2];
	int ndrop;
};

static const struct tail_case cases[] = {
	{ "last DATA frame of rank 1 lost", 3 * PER_FRAME - 5,
	  { { UDPSW_DATA, 1, 2 } }, 1 },
	{ "last RESULT frame to rank 0 lost", 3 * PER_FRAME - 5,
	  { { UDPSW_RESULT, 0, 2 } }, 1 },
	{ "last two DATA frames of rank 2 lost", 3 * PER_FRAME - 5,
	  { { UDPSW_DATA, 2, 1 }, { UDPSW_DATA, 2, 2 } }, 2 },
	{ "the only frame of a one-frame phase, DATA of rank 0 lost", 100,
	  { { UDPSW_DATA, 0, 0 } }, 1 },
	{ "the only frame of a one-frame phase, RESULT to rank 2 lost", 100,
	  { { UDPSW_RESULT, 2, 0 } }, 1 },
	{ "a full window waits for frame 0 of rank 1, lost twice (the hint's fast retransmission too)",
	  8 * PER_FRAME - 5, { { UDPSW_DATA, 1, 0 }, { UDPSW_DATA, 1, 0 } }, 2 },
};
#define NCASES	(sizeof(cases) / sizeof(cases[0]))
#define MAXCOUNT	(8 * PER_FRAME)

struct tail_ctx {
	pthread_barrier_t bar;		/* each case starts on every rank at once */
	double ms[N_RANKS][NCASES];	/* each case's call time per rank */
	int wrong[N_RANKS][NCASES];	/* elements off the exact sum */
	uint64_t frames_warm[N_RANKS];	/* frames sent by one warm-up call */
};

static int32_t tail_val(int rank, int call, size_t i)
{
	return (int32_t)(rank * 100003 + call * 7919 + (int)i);
}

static int tail_call(struct rank_run *r, int call, size_t count, int *wrong)
{
	int32_t *x = calloc(MAXCOUNT, sizeof(*x)), want;
	size_t i;
	int err, k;

	if (!x)
		return OPTINC_ERR_NOMEM;
	for (i = 0; i < count; i++)
		x[i] = tail_val(r->rank, call, i);
	err = optinc_allreduce(r->comm, x, x, count, OPTINC_INT32, OPTINC_SUM);
	*wrong = 0;
	for (i = 0; !err && i < count; i++) {
		want = 0;
		for (k = 0; k < N_RANKS; k++)
			want = (int32_t)((uint32_t)want + (uint32_t)tail_val(k, call, i));
		*wrong += x[i] != want;
	}
	free(x);
	return err;
}

static int tail_rank(struct rank_run *r)
{
	struct tail_ctx *ctx = r->arg;
	struct optinc_comm_stats a = { .sz = sizeof(a) }, b = { .sz = sizeof(b) };
	int call, err = 0, wrong;
	double t0;
	size_t k;

	for (call = 0; call < WARMUP && !err; call++) {
		optinc_comm_get_stats(r->comm, &a);
		err = tail_call(r, call, 3 * PER_FRAME - 5, &wrong);
		optinc_comm_get_stats(r->comm, &b);
		ctx->frames_warm[r->rank] = b.frames_sent - a.frames_sent;
		if (!err && wrong)
			err = OPTINC_ERR_PROTO;
	}
	/* every rank waits at every barrier, failed or not */
	for (k = 0; k < NCASES; k++, call++) {
		pthread_barrier_wait(&ctx->bar);
		if (err)
			continue;
		t0 = now_s();
		err = tail_call(r, call, cases[k].count,
				&ctx->wrong[r->rank][k]);
		ctx->ms[r->rank][k] = (now_s() - t0) * 1e3;
	}
	return err;
}

/* Set every case's drops: the seqs follow from the frames of each call. */
static int tail_drops(struct udpsw *sw)
{
	uint32_t seq = WARMUP * 3;
	size_t k;
	int d, err = 0;

	for (k = 0; k < NCASES; k++) {
		for (d = 0; d < cases[k].ndrop && !err; d++)
			err = udpsw_drop_once(sw, cases[k].drop[d].dir,
					      cases[k].drop[d].rank,
					      seq + cases[k].drop[d].frame);
		seq += (cases[k].count + PER_FRAME - 1) / PER_FRAME;
	}
	return err;
}

int main(void)
{
	static struct tail_ctx ctx;
	struct rank_run rr[N_RANKS];
	struct udpsw_stats ss;
	struct udpsw *sw;
	char addr[64];
	uint64_t probes = 0, bad = 0;
	double worst;
	size_t k;
	int r, ok, wrong, ndrop = 0;

	ranks_clear_env();
	pthread_barrier_init(&ctx.bar, NULL, N_RANKS);
	tap_plan(3 + NCASES);
	for (k = 0; k < NCASES; k++)
		ndrop += cases[k].ndrop;
	if (test_switch_start(N_RANKS, 0, 0, &sw, addr, sizeof(addr)) ||
	    tail_drops(sw)) {
		tap_ok(0, "loopback switch up, drops set");
		return tap_done();
	}
	OPTINC_OPTS(o, .switch_addr = addr, .retx_ms = RETX_MS, .mtu = MTU,
		    .block = 64, .window = WINDOW, .timeout_ms = 20000);
	ok = !ranks_run(rr, N_RANKS, &o, tail_rank, &ctx);
	udpsw_get_stats(sw, &ss);
	udpsw_stop(sw);
	tap_ok(ranks_report(rr, N_RANKS) && ok,
	       "%d ranks: %d warm-up calls and %zu cases of int32 SUM", N_RANKS,
	       WARMUP, NCASES);
	for (r = 0; r < N_RANKS; r++) {
		probes += rr[r].st.tail_probes;
		bad += ctx.frames_warm[r] != 3;
	}
	tap_ok(!bad, "a warm-up call is 3 frames on every rank (frames of %u int32)",
	       PER_FRAME);
	tap_ok(ss.lost == (uint64_t)ndrop && probes > 0,
	       "the switch lost the %d chosen frames (%llu), the ranks sent %llu tail probes",
	       ndrop, (unsigned long long)ss.lost, (unsigned long long)probes);
	for (k = 0; k < NCASES; k++) {
		worst = 0;
		wrong = 0;
		for (r = 0; r < N_RANKS; r++) {
			if (ctx.ms[r][k] > worst)
				worst = ctx.ms[r][k];
			wrong += ctx.wrong[r][k];
		}
		tap_diag("%s: %.0f %.0f %.0f ms", cases[k].name, ctx.ms[0][k],
			 ctx.ms[1][k], ctx.ms[2][k]);
		tap_ok(ok && !wrong && worst < LIMIT_MS,
		       "%s: exact on every rank, slowest rank %.0f ms (< %d ms; retx_ms %d)",
		       cases[k].name, worst, LIMIT_MS, RETX_MS);
	}
	return tap_done();
}
