// SPDX-License-Identifier: GPL-2.0
/* A runner of ranks as threads, for the liboptinc tests (TAP: ../tap.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libtest.h"

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Variables the library reads; tests set what they need. */
void ranks_clear_env(void)
{
	static const char *const vars[] = {
		"OPTINC_RANK", "OPTINC_SIZE", "OPTINC_SWITCH", "OPTINC_JOB",
		"OPTINC_TOKEN", "OPTINC_BITS", "OPTINC_TIMEOUT_MS",
		"OPTINC_RETX_MS", "OPTINC_WINDOW", "OPTINC_MTU",
		"OPTINC_BLOCK", "OPTINC_ALGO", "OPTINC_TRANSPORT",
		"OPTINC_BIND", "OPTINC_PEERS", "OPTINC_RING_PORT",
		"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMI_RANK",
		"PMI_SIZE", "SLURM_PROCID", "SLURM_NTASKS", "RANK",
		"WORLD_SIZE", "LOCAL_RANK", "TORCHELASTIC_RUN_ID",
		"OPTINC_NONFINITE", "OPTINC_FAILOVER_MS",
		"OPTINC_FAILBACK_CALLS", "OPTINC_XDP_QUEUE",
		"OPTINC_AFXDP_PLUGIN",
	};
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

static void *ranks_thread(void *arg)
{
	struct rank_run *r = arg;

	r->create_ret = optinc_comm_create(&r->opts, &r->comm);
	r->ret = r->create_ret;
	if (r->create_ret) {
		snprintf(r->msg, sizeof(r->msg), "%s", optinc_comm_errmsg(NULL));
		return NULL;
	}
	r->ret = r->fn ? r->fn(r) : 0;
	if (r->ret)
		snprintf(r->msg, sizeof(r->msg), "%s",
			 optinc_comm_errmsg(r->comm));
	r->st.sz = sizeof(r->st);
	optinc_comm_get_stats(r->comm, &r->st);
	optinc_comm_destroy(r->comm);
	r->comm = NULL;
	return NULL;
}

/*
 * Run @n ranks as threads: rank i gets @base with rank = i and, unless
 * @base sets one, size = @n. Return: 0 when every rank returned 0.
 */
int ranks_run(struct rank_run *rr, int n, const struct optinc_opts *base,
	      int (*fn)(struct rank_run *r), void *arg)
{
	int i, bad = 0;

	for (i = 0; i < n; i++) {
		memset(&rr[i], 0, sizeof(rr[i]));
		rr[i].rank = i;
		rr[i].opts = *base;
		rr[i].opts.rank = i;
		if (base->size < 0)
			rr[i].opts.size = n;
		rr[i].fn = fn;
		rr[i].arg = arg;
		rr[i].started = !pthread_create(&rr[i].thr, NULL, ranks_thread,
						&rr[i]);
		if (!rr[i].started) {
			rr[i].ret = -EAGAIN;
			snprintf(rr[i].msg, sizeof(rr[i].msg),
				 "pthread_create failed");
		}
	}
	for (i = 0; i < n; i++) {
		if (rr[i].started)
			pthread_join(rr[i].thr, NULL);
		bad |= rr[i].ret != 0;
	}
	return bad;
}

/* 1 if every rank of @rr succeeded; else 0, each failure said as a diagnostic. */
int ranks_report(const struct rank_run *rr, int n)
{
	int r, ok = 1;

	for (r = 0; r < n; r++) {
		if (!rr[r].ret)
			continue;
		tap_diag("rank %d: %s: %s", r, optinc_strerror(rr[r].ret),
			 rr[r].msg);
		ok = 0;
	}
	return ok;
}
