/* SPDX-License-Identifier: GPL-2.0 */
/* liboptinc tests: ranks as threads, one communicator each (TAP: ../tap.h). */
#ifndef OPTINC_SELFTEST_LIBTEST_H
#define OPTINC_SELFTEST_LIBTEST_H

#include <pthread.h>
#include <stdint.h>
#include <optinc/optinc.h>

#include "../tap.h"

/* One rank: creates its communicator with @opts, then runs @fn. */
struct rank_run {
	int rank;
	struct optinc_opts opts;
	int (*fn)(struct rank_run *r);
	void *arg;
	struct optinc_comm *comm;
	int create_ret;		/* optinc_comm_create()'s result */
	int ret;		/* create_ret, or @fn's result */
	char msg[512];		/* errmsg of a failure */
	struct optinc_comm_stats st;	/* after @fn */
	pthread_t thr;
	int started;
};

int ranks_run(struct rank_run *rr, int n, const struct optinc_opts *base,
	      int (*fn)(struct rank_run *r), void *arg);
void ranks_clear_env(void);
int ranks_report(const struct rank_run *rr, int n);
double now_s(void);

#endif /* OPTINC_SELFTEST_LIBTEST_H */
