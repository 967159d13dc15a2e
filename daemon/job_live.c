// SPDX-License-Identifier: BSD-3-Clause
/*
 * The datapath lcores' view of the job table, and what control threads
 * hand them. Each worker (lcore.c) serves the jobs in its job_live[],
 * written only by that worker between two poll rounds (optinc_agg_sync()).
 * A control thread (telemetry: jobs added and removed, tables installed;
 * job.c, table.c) sets a job's op or pending table, raises every worker's
 * @pending flag and waits until the job's worker has taken it; after a
 * removal the worker never looks at the job again, so the control thread
 * frees it with no lock on the hot path. Nothing here calls job.c or
 * table.c: they call in.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <rte_cycles.h>
#include "optincd.h"

/* One worker's jobs, written by it only; @pending set by control threads. */
struct job_live {
	struct optinc_agg_job *jobs[OPTINC_MAX_JOBS];
	unsigned int nb;
	/* a job has an op or a table waiting: the worker's test each round */
	bool pending;
} __rte_cache_aligned;

static struct job_live job_live[OPTINC_MAX_WORKERS];
static struct optinc_agg_job *live_tab;	/* job.c's, OPTINC_MAX_JOBS entries */

/* @tab: the job table whose entries' ops the workers take. */
void optinc_live_init(struct optinc_agg_job *tab)
{
	memset(job_live, 0, sizeof(job_live));
	live_tab = tab;
}

/* A job given at start, before the workers run: served by its worker. */
void optinc_live_add(struct optinc_agg_job *j)
{
	struct job_live *l = &job_live[j->worker];

	l->jobs[l->nb++] = j;
}

static struct job_live *job_mine(void)
{
	return &job_live[optinc_self()->idx];
}

/* Every worker looks at the ops and tables in its next round. */
static void live_kick(void)
{
	unsigned int w;

	for (w = 0; w < optinc_nb_workers; w++)
		__atomic_store_n(&job_live[w].pending, true, __ATOMIC_RELEASE);
}

/**
 * live_table_take() - put @j's installed table in use; lcore only
 * @j: a job
 *
 * Called between frames (optinc_agg_sync()). A job's new table and onn
 * mode apply from the next frame on. Slots keep the reduction kind they
 * started with (the core folds and finishes with the slot's kind), and
 * every onn slot of a job accumulates P's sums, which do not depend on the
 * table, so a slot in flight finishes whole with the table in use at its
 * last contribution: no slot mixes two tables or two modes.
 */
static void live_table_take(struct optinc_agg_job *j)
{
	struct optinc_agg_table *t;

	t = __atomic_exchange_n(&j->pending, NULL, __ATOMIC_ACQ_REL);
	if (!t)
		return;
	OPTINC_LOG(DEBUG, "job %u: the datapath uses table '%s' from now on%s%s",
		   j->conf.id, t->path, j->table ? ", instead of " : "",
		   j->table ? j->table->path : "");
	j->retired = j->table;
	j->core.table = &t->t;
	j->core.mode = OPTINC_MODE_ONN;
	__atomic_store_n(&j->served, true, __ATOMIC_RELAXED);
	__atomic_store_n(&j->table, t, __ATOMIC_RELEASE);
}

/* Wait up to @ms for the lcore to put @t in use. */
static bool table_wait_applied(struct optinc_agg_job *j,
			     const struct optinc_agg_table *t, unsigned int ms)
{
	const struct timespec step = { .tv_nsec = 1000000 };

	while (ms--) {
		if (__atomic_load_n(&j->table, __ATOMIC_ACQUIRE) == t)
			return true;
		nanosleep(&step, NULL);
	}
	return __atomic_load_n(&j->table, __ATOMIC_ACQUIRE) == t;
}

/**
 * optinc_live_table_hand_over() - give @t to @j's worker, wait until in use
 * @j:       the job
 * @t:       its new table; freed by the caller when refused
 * @retired: set to the table @t replaced (the caller frees it), or NULL
 *
 * Control thread, one call at a time.
 *
 * Return: 0, or -ETIMEDOUT when the worker did not take it within 2 s (it
 * was withdrawn).
 */
int optinc_live_table_hand_over(struct optinc_agg_job *j,
				struct optinc_agg_table *t,
				struct optinc_agg_table **retired)
{
	*retired = NULL;
	__atomic_store_n(&j->pending, t, __ATOMIC_RELEASE);
	live_kick();
	if (!table_wait_applied(j, t, 2000) &&
	    __atomic_exchange_n(&j->pending, NULL, __ATOMIC_ACQ_REL) == t) {
		return -ETIMEDOUT;
	}
	/* taken: the lcore stores j->table right after the exchange */
	table_wait_applied(j, t, 1000);
	*retired = __atomic_exchange_n(&j->retired, NULL, __ATOMIC_ACQUIRE);
	return 0;
}

/* This worker's job @id, or NULL; datapath lcores only. */
struct optinc_agg_job *optinc_agg_live_find(uint16_t id)
{
	const struct job_live *l = job_mine();
	unsigned int i;

	for (i = 0; i < l->nb; i++)
		if (l->jobs[i]->core.id == id)
			return l->jobs[i];
	return NULL;
}

/* The worker lets go of @j: no frame reaches it, its members' MACs unpinned. */
static void job_detach(struct job_live *l, struct optinc_agg_job *j)
{
	uint64_t now = rte_rdtsc();
	struct rte_ether_addr mac;
	unsigned int i;
	uint16_t r;

	for (i = 0; i < l->nb && l->jobs[i] != j; i++)
		;
	if (i == l->nb)
		return;
	l->jobs[i] = l->jobs[--l->nb];
	for (r = 0; r < j->core.size; r++) {
		if (!(j->bind.bound & (1ULL << r)))
			continue;
		memcpy(mac.addr_bytes, j->bind.ep[r].mac, RTE_ETHER_ADDR_LEN);
		optinc_l2_unpin(&mac, (uint16_t)j->bind.port[r], now);
	}
	optinc_uplink_detach(j);
}

/**
 * optinc_agg_sync() - take what control threads handed over; datapath lcores
 *
 * Called between frames, once per poll round on every worker: its jobs
 * added and removed, and installed tables (optinc_agg_table_take()), apply
 * from the next frame on. An op on another worker's job is left to it.
 */
void optinc_agg_sync(void)
{
	struct job_live *l = job_mine();
	struct optinc_agg_job *j;
	unsigned int i;
	uint8_t op;

	if (likely(!__atomic_load_n(&l->pending, __ATOMIC_ACQUIRE)))
		return;
	__atomic_store_n(&l->pending, false, __ATOMIC_RELAXED);
	for (i = 0; i < OPTINC_MAX_JOBS; i++) {
		j = &live_tab[i];
		op = __atomic_load_n(&j->op, __ATOMIC_ACQUIRE);
		if (!op || j->worker != optinc_self()->idx)
			continue;
		if (op == OPTINC_JOB_OP_ADD) {
			l->jobs[l->nb++] = j;
			optinc_uplink_attach(j);
		} else if (op == OPTINC_JOB_OP_DEL) {
			job_detach(l, j);
		}
		__atomic_store_n(&j->op, 0, __ATOMIC_RELEASE);
	}
	for (i = 0; i < l->nb; i++)
		live_table_take(l->jobs[i]);
}

/**
 * optinc_live_hand_over() - hand @op on @j to its worker; control threads
 * @j:  a job of the table given to optinc_live_init()
 * @op: OPTINC_JOB_OP_ADD or OPTINC_JOB_OP_DEL
 *
 * Return: 0 once the worker has taken it (a DEL: it never looks at @j
 * again), or -ETIMEDOUT after OPTINC_JOB_WAIT_MS, the op withdrawn.
 */
int optinc_live_hand_over(struct optinc_agg_job *j, uint8_t op)
{
	const struct timespec step = { .tv_nsec = 1000000 };
	unsigned int ms;
	uint8_t want = op;

	__atomic_store_n(&j->op, op, __ATOMIC_RELEASE);
	live_kick();
	for (ms = 0; ms < OPTINC_JOB_WAIT_MS; ms++) {
		if (!__atomic_load_n(&j->op, __ATOMIC_ACQUIRE))
			return 0;
		nanosleep(&step, NULL);
	}
	/* withdrawn, unless the lcore took it at the last moment */
	if (__atomic_compare_exchange_n(&j->op, &want, 0, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return -ETIMEDOUT;
	return 0;
}
