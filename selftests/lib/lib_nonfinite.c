// SPDX-License-Identifier: GPL-2.0
/*
 * opts.nonfinite and OPTINC_NONFINITE end to end: two ranks (threads)
 * against the loopback test switch, a NaN on rank 1 only. With ERROR
 * (from the variable, or from the option over the variable) every rank's
 * call returns OPTINC_ERR_RANGE, long before timeout_ms, and the next
 * call is right; with NAN from the option over OPTINC_NONFINITE=error the
 * NaN's block is NaN on both ranks. Needs liboptinc 0.3's non-finite rule
 * (0.2 failed the NaN rank at once and timed the other out). TAP.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <optinc/optinc.h>
#include "libtest.h"
#include "udpswitch.h"

#define NF_COUNT	1000
#define NF_BLOCK	100
#define NF_AT		250	/* in the third block */
#define NF_TIMEOUT_MS	3000

struct nf_run {
	int code[2];		/* the NaN call's result per rank */
	int next_ok[2];		/* the clean call after it was right */
	int block_nan[2];	/* the NaN's block is NaN, nothing else is */
	double secs[2];
};

static float nf_val(int rank, int i)
{
	return (float)sin(0.01 * i + rank);
}

static int nf_rank(struct rank_run *r)
{
	struct nf_run *x = r->arg;
	float buf[NF_COUNT];
	double t, ref;
	int i, me = r->rank, bad = 0;

	for (i = 0; i < NF_COUNT; i++)
		buf[i] = nf_val(me, i);
	if (me == 1)
		buf[NF_AT] = NAN;
	t = now_s();
	x->code[me] = optinc_allreduce(r->comm, buf, buf, NF_COUNT,
				       OPTINC_FLOAT32, OPTINC_SUM);
	x->secs[me] = now_s() - t;
	for (i = 0; i < NF_COUNT && !x->code[me]; i++)
		bad += i / NF_BLOCK == NF_AT / NF_BLOCK ? !isnan(buf[i]) :
		       !isfinite(buf[i]);
	x->block_nan[me] = !x->code[me] && !bad;
	for (i = 0; i < NF_COUNT; i++)
		buf[i] = nf_val(me, i);
	if (optinc_allreduce(r->comm, buf, buf, NF_COUNT, OPTINC_FLOAT32,
			     OPTINC_SUM))
		return -1;
	for (i = 0, bad = 0; i < NF_COUNT; i++) {
		ref = nf_val(0, i) + nf_val(1, i);
		bad += !(fabs(buf[i] - ref) <= 2.0 / 128);
	}
	x->next_ok[me] = !bad;
	return 0;
}

/* Two ranks with opts.nonfinite @opt and OPTINC_NONFINITE @env (or unset). */
static int nf_run(int opt, const char *env, struct nf_run *x)
{
	struct udpsw_opts so = { .job = 1, .size = 2 };
	struct rank_run rr[2];
	struct udpsw *sw;
	char addr[32];
	int r, err;
	OPTINC_OPTS(o, .switch_addr = addr, .timeout_ms = NF_TIMEOUT_MS,
		    .block = NF_BLOCK, .nonfinite = opt);

	memset(x, 0, sizeof(*x));
	ranks_clear_env();
	if (env)
		setenv("OPTINC_NONFINITE", env, 1);
	if (udpsw_start(&so, &sw))
		return -1;
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", udpsw_port(sw));
	err = ranks_run(rr, 2, &o, nf_rank, x);
	for (r = 0; r < 2; r++)
		tap_diag("rank %d: NaN call %s (%d) after %.3f s%s%s", r,
			 optinc_strerror(x->code[r]), x->code[r], x->secs[r],
			 rr[r].ret ? ": " : "", rr[r].ret ? rr[r].msg : "");
	udpsw_stop(sw);
	return err;
}

static int nf_all_range(const struct nf_run *x)
{
	int r, ok = 1;

	for (r = 0; r < 2; r++)
		ok = ok && x->code[r] == OPTINC_ERR_RANGE &&
		     x->secs[r] < NF_TIMEOUT_MS / 2000.0 && x->next_ok[r];
	return ok;
}

int main(void)
{
	struct nf_run x;

	tap_plan(3);
	tap_ok(!nf_run(-1, "error", &x) && nf_all_range(&x),
	       "OPTINC_NONFINITE=error: a NaN on one rank is OPTINC_ERR_RANGE on both, at once; the next call is right");
	tap_ok(!nf_run(OPTINC_NONFINITE_ERROR, "nan", &x) && nf_all_range(&x),
	       "opts.nonfinite = OPTINC_NONFINITE_ERROR over OPTINC_NONFINITE=nan: the same");
	tap_ok(!nf_run(OPTINC_NONFINITE_NAN, "error", &x) &&
	       x.block_nan[0] && x.block_nan[1] && x.next_ok[0] && x.next_ok[1],
	       "opts.nonfinite = OPTINC_NONFINITE_NAN over OPTINC_NONFINITE=error: the NaN's block is NaN on both ranks, the rest finite");
	ranks_clear_env();
	return tap_done();
}
