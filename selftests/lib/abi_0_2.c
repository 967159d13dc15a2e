// SPDX-License-Identifier: GPL-2.0
/*
 * A program built against the 0.2 header (abi/optinc-0.2.h, kept as it
 * was released) run against the current liboptinc.so.0: it creates
 * communicators with 0.2's smaller struct optinc_opts (from OPTINC_OPTS
 * and field by field in memory that is not zero), runs float32 and int32
 * all-reduces on two ranks (threads) against the loopback test switch,
 * and reads the counters. TAP.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/optinc-0.2.h"
#include "udpswitch.h"
#include "../tap.h"

#define ABI_RANKS	2
#define ABI_COUNT	1000

struct abi_rank {
	int rank, dirty;	/* dirty: opts in 0x5a-filled memory */
	const char *addr;
	int ret;
	char msg[256];
	struct optinc_comm_stats st;
};

static float abi_val(int rank, int i)
{
	return (float)sin(0.01 * i + rank);
}

/* 0.2's options: OPTINC_OPTS, or every 0.2 field set in dirty memory. */
static struct optinc_opts *abi_opts(const struct abi_rank *r)
{
	struct optinc_opts *o = malloc(sizeof(*o) + 64);
	OPTINC_OPTS(clean, .rank = r->rank, .size = ABI_RANKS,
		    .switch_addr = r->addr, .timeout_ms = 5000);

	if (!o || !r->dirty) {
		if (o)
			*o = clean;
		return o;
	}
	memset(o, 0x5a, sizeof(*o) + 64);
	o->sz = sizeof(*o);
	o->rank = r->rank;
	o->size = ABI_RANKS;
	o->switch_addr = r->addr;
	o->job = 0;
	o->token = 0;
	o->bits = 0;
	o->timeout_ms = 5000;
	o->retx_ms = 0;
	o->window = 0;
	o->mtu = 0;
	o->block = 0;
	o->algo = -1;
	o->transport = NULL;
	o->bind_addr = NULL;
	o->peers = NULL;
	o->ring_port = 0;
	return o;
}

static int abi_calls(struct abi_rank *r, struct optinc_comm *c)
{
	float f[ABI_COUNT], avg[ABI_COUNT];
	int32_t n[ABI_COUNT];
	double ref;
	int i, err, bad = 0;

	for (i = 0; i < ABI_COUNT; i++) {
		f[i] = avg[i] = abi_val(r->rank, i);
		n[i] = i * 1000 + r->rank;
	}
	err = optinc_allreduce(c, f, f, ABI_COUNT, OPTINC_FLOAT32, OPTINC_SUM) ?:
	      optinc_allreduce(c, avg, avg, ABI_COUNT, OPTINC_FLOAT32, OPTINC_AVG) ?:
	      optinc_allreduce(c, n, n, ABI_COUNT, OPTINC_INT32, OPTINC_SUM);
	if (err) {
		snprintf(r->msg, sizeof(r->msg), "%s", optinc_comm_errmsg(c));
		return err;
	}
	for (i = 0; i < ABI_COUNT; i++) {
		ref = abi_val(0, i) + abi_val(1, i);
		bad += !(fabs(f[i] - ref) <= 2.0 / 128) ||
		       !(fabs(avg[i] - ref / 2) <= 2.0 / 128) ||
		       n[i] != i * 2000 + 1;
	}
	if (bad)
		snprintf(r->msg, sizeof(r->msg), "%d wrong results", bad);
	return bad ? -1 : 0;
}

static void *abi_thread(void *arg)
{
	struct abi_rank *r = arg;
	struct optinc_opts *o = abi_opts(r);
	struct optinc_comm *c;

	r->ret = o ? optinc_comm_create(o, &c) : OPTINC_ERR_NOMEM;
	free(o);
	if (r->ret) {
		snprintf(r->msg, sizeof(r->msg), "create: %s",
			 optinc_comm_errmsg(NULL));
		return NULL;
	}
	r->ret = abi_calls(r, c);
	r->st.sz = sizeof(r->st);
	if (!r->ret)
		r->ret = optinc_comm_get_stats(c, &r->st);
	optinc_comm_destroy(c);
	return NULL;
}

/* Two ranks against a fresh switch; 1 when both did everything right. */
static int abi_run(int dirty)
{
	struct udpsw_opts so = { .job = 1, .size = ABI_RANKS };
	struct abi_rank rr[ABI_RANKS];
	pthread_t t[ABI_RANKS];
	struct udpsw *sw;
	char addr[32];
	int i, ok = 1;

	if (udpsw_start(&so, &sw))
		return 0;
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", udpsw_port(sw));
	for (i = 0; i < ABI_RANKS; i++) {
		rr[i] = (struct abi_rank){ .rank = i, .dirty = dirty,
					   .addr = addr };
		pthread_create(&t[i], NULL, abi_thread, &rr[i]);
	}
	for (i = 0; i < ABI_RANKS; i++) {
		pthread_join(t[i], NULL);
		if (rr[i].ret || rr[i].st.calls != 3 ||
		    rr[i].st.frames_sent < 4 || rr[i].st.sz != sizeof(rr[i].st)) {
			tap_diag("rank %d: %d %s; calls %llu frames sent %llu",
				 i, rr[i].ret, rr[i].msg,
				 (unsigned long long)rr[i].st.calls,
				 (unsigned long long)rr[i].st.frames_sent);
			ok = 0;
		}
	}
	udpsw_stop(sw);
	return ok;
}

/* One rank's create with OPTINC_NONFINITE set: its result and message. */
static int abi_nonfinite(const char *val, int want, const char *text)
{
	OPTINC_OPTS(o, .rank = 0, .size = 1, .switch_addr = "127.0.0.1:9",
		    .timeout_ms = 200);
	struct optinc_comm *c = NULL;
	int err;

	setenv("OPTINC_NONFINITE", val, 1);
	err = optinc_comm_create(&o, &c);
	unsetenv("OPTINC_NONFINITE");
	if (!err)
		optinc_comm_destroy(c);
	if (err == want && strstr(optinc_comm_errmsg(NULL), text))
		return 1;
	tap_diag("OPTINC_NONFINITE=%s: %d \"%s\", want %d \"%s\"", val, err,
		 optinc_comm_errmsg(NULL), want, text);
	return 0;
}

int main(void)
{
	static const char *const vars[] = {
		"OPTINC_RANK", "OPTINC_SIZE", "OPTINC_SWITCH", "OPTINC_JOB",
		"OPTINC_BITS", "OPTINC_NONFINITE", "OPTINC_PEERS", "RANK",
		"WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
	};
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
	tap_plan(5);
	tap_ok(OPTINC_LIB_VERSION_CODE == 200 && optinc_version() >= 300,
	       "built against the 0.2 header (sizeof(struct optinc_opts) %zu), runs with library %u",
	       sizeof(struct optinc_opts), optinc_version());
	tap_ok(abi_run(0),
	       "0.2's OPTINC_OPTS: two ranks create, float32 SUM and AVG, int32 SUM right, counters read");
	tap_ok(abi_run(1),
	       "0.2's struct set field by field in non-zero memory (its padding is anything): the same");
	tap_ok(abi_nonfinite("bogus", OPTINC_ERR_INVALID,
			     "OPTINC_NONFINITE=bogus: must be nan or error"),
	       "0.2's options lack nonfinite: it comes from OPTINC_NONFINITE, checked");
	tap_ok(abi_nonfinite("error", OPTINC_ERR_TIMEOUT, "no answer from switch"),
	       "... and OPTINC_NONFINITE=error is accepted (the create goes on to the join)");
	return tap_done();
}
