// SPDX-License-Identifier: BSD-3-Clause
/*
 * The job table: the jobs given at start, and jobs added and removed while
 * optincd runs (telemetry /optinc/job_add and /optinc/job_del, optincctl
 * job add|del). It has two views. The control plane's is in_use, changed
 * only under the telemetry lock; telemetry shows it. Each datapath
 * lcore's is its job_live[] (job_live.c), written only by that lcore
 * between two poll rounds. A job is served by one lcore ("worker", lcore.c), chosen when it
 * is added: the one with the fewest jobs (a cascade job with up=: worker
 * 0, which owns the uplinks). A control thread builds a job whole (slots,
 * table, uplink), hands it over (op ADD) and waits until its worker has
 * taken it; a removal (op DEL) is taken by the worker, which never looks
 * at the job again after that round, so the control thread frees it with
 * no lock on the hot path.
 */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_malloc.h>
#include "optincd.h"

static struct optinc_agg_job *job_tab;	/* OPTINC_MAX_JOBS entries */

/* The worker for a new job: the one with the fewest jobs, lowest first. */
static uint16_t job_place(const struct optinc_job_conf *jc)
{
	unsigned int n[OPTINC_MAX_WORKERS] = { 0 }, k, best = 0;

	if (jc->up_ip)
		return 0;
	for (k = 0; job_tab && k < OPTINC_MAX_JOBS; k++)
		if (job_tab[k].in_use)
			n[job_tab[k].worker]++;
	for (k = 1; k < optinc_nb_workers; k++)
		if (n[k] < n[best])
			best = k;
	return (uint16_t)best;
}

/*
 * Free what @j holds; the entry is free again. Control plane. @op and
 * @slot, which the lcore reads of every entry, are left alone.
 */
static void job_release(struct optinc_agg_job *j)
{
	rte_free(j->mem);
	optinc_agg_table_free(j->table);
	optinc_agg_table_free(j->pending);
	optinc_agg_table_free(j->retired);
	free(j->conf.table);
	memset(j, 0, offsetof(struct optinc_agg_job, op));
}

/*
 * Build job @jc in the free entry @j: its own copy of the configuration,
 * the slots, the table. A bad table fails the job when @strict (a job
 * added while running), else leaves it unserved (at start: the other jobs
 * run, and a table installed later serves it).
 */
static int job_init(struct optinc_agg_job *j, const struct optinc_job_conf *jc,
		    bool strict, char *why, size_t why_len)
{
	uint64_t len = optinc_job_mem(jc->window, jc->max_elems);
	int ret;

	j->conf = *jc;
	j->conf.table = jc->table ? strdup(jc->table) : NULL;
	j->core.id = jc->id;
	j->core.size = jc->size;
	j->core.token = jc->token;
	j->core.window = jc->window;
	j->core.max_elems = jc->max_elems;
	j->core.fanin = jc->fanin;
	j->core.mode = OPTINC_MODE_EXACT;
	j->served = true;
	j->worker = job_place(jc);
	optinc_bind_init(&j->bind);
	if (jc->table && !j->conf.table) {
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}
	if (jc->table && optinc_agg_job_table(j, why, why_len)) {
		if (strict)
			return -EINVAL;
		OPTINC_LOG(ERR, "job %u: table '%s': %s; the job is not "
			   "served until a good table is installed", jc->id,
			   jc->table, why);
		j->served = false;
	}
	j->mem = rte_zmalloc("optinc_job", len, RTE_CACHE_LINE_SIZE);
	if (!j->mem) {
		snprintf(why, why_len, "cannot allocate %" PRIu64 " bytes for "
			 "%u slots (window=%u) of %u elements (max-elems): "
			 "raise EAL -m or lower them", len, 2u * jc->window,
			 jc->window, jc->max_elems);
		return -ENOMEM;
	}
	ret = optinc_job_init(&j->core, j->mem, len);
	if (ret) {
		snprintf(why, why_len, "the core refused size=%u window=%u "
			 "max-elems=%u: %s", jc->size, jc->window,
			 jc->max_elems, strerror(-ret));
		return ret;
	}
	return 0;
}

/**
 * optinc_agg_init() - every configured job, with its uplink
 * @c: configuration; kept for the switch's own address
 *
 * A job whose truth table is bad (unreadable, truncated, wrong version,
 * another N or B) is reported and left unserved: its frames are treated
 * as those of an unknown job until a good table is installed, and every
 * other job runs. No memory for a job's slots stops the start.
 *
 * Return: 0, or a negative errno (reported).
 */
int optinc_agg_init(const struct optinc_conf *c)
{
	struct optinc_agg_job *j;
	char why[192];
	unsigned int i;
	int ret;

	job_tab = rte_zmalloc("optinc_jobs", OPTINC_MAX_JOBS * sizeof(*job_tab),
			      RTE_CACHE_LINE_SIZE);
	if (!job_tab) {
		OPTINC_LOG(ERR, "cannot allocate the job table (%u entries)",
			   OPTINC_MAX_JOBS);
		return -ENOMEM;
	}
	for (i = 0; i < OPTINC_MAX_JOBS; i++)
		job_tab[i].slot = (uint16_t)i;
	optinc_live_init(job_tab);
	for (i = 0; i < c->nb_jobs; i++) {
		j = &job_tab[i];
		ret = job_init(j, &c->jobs[i], false, why, sizeof(why));
		if (!ret && c->jobs[i].up_ip)
			ret = optinc_uplink_setup(j, why, sizeof(why));
		if (ret) {
			OPTINC_LOG(ERR, "job %u: %s", c->jobs[i].id, why);
			return ret;
		}
		if (c->jobs[i].up_ip)
			optinc_uplink_attach(j);
		j->in_use = true;
		optinc_live_add(j);
		optinc_lcore_set_owner(j->core.id, j->worker);
	}
	return 0;
}

void optinc_agg_free(void)
{
	unsigned int i;

	for (i = 0; job_tab && i < OPTINC_MAX_JOBS; i++)
		job_release(&job_tab[i]);
	rte_free(job_tab);
	job_tab = NULL;
	optinc_live_init(NULL);
}

/* The control plane's jobs (telemetry lock, or before the lcore runs). */
unsigned int optinc_agg_count(void)
{
	unsigned int i, n = 0;

	for (i = 0; job_tab && i < OPTINC_MAX_JOBS; i++)
		n += job_tab[i].in_use;
	return n;
}

struct optinc_agg_job *optinc_agg_at(unsigned int i)
{
	unsigned int k;

	for (k = 0; job_tab && k < OPTINC_MAX_JOBS; k++)
		if (job_tab[k].in_use && !i--)
			return &job_tab[k];
	return NULL;
}

struct optinc_agg_job *optinc_agg_find(uint16_t id)
{
	unsigned int k;

	for (k = 0; job_tab && k < OPTINC_MAX_JOBS; k++)
		if (job_tab[k].in_use && job_tab[k].core.id == id)
			return &job_tab[k];
	return NULL;
}

static struct optinc_agg_job *job_free_entry(void)
{
	unsigned int k;

	for (k = 0; k < OPTINC_MAX_JOBS; k++)
		if (!job_tab[k].in_use)
			return &job_tab[k];
	return NULL;
}

/**
 * optinc_agg_job_add() - add a job while optincd runs
 * @spec:    "key=value,...", as --job takes it
 * @why:     set to the problem when refused
 * @why_len: size of @why
 *
 * Control thread, one call at a time (the telemetry lock). The same parser
 * and checks as --job at start, and a new id; a bad table refuses the job.
 * The job is served from the lcore's next poll round on.
 *
 * Return: the job, or NULL with @why set (and logged).
 */
struct optinc_agg_job *optinc_agg_job_add(const char *spec, char *why,
					  size_t why_len)
{
	struct optinc_agg_job *j = NULL;
	struct optinc_job_conf jc;
	int ret;

	/* a bad spec is logged by the parser, as --job's errors are */
	ret = optinc_opts_job_spec(spec, &jc, why, why_len);
	if (ret)
		return NULL;
	if (optinc_agg_find(jc.id)) {
		snprintf(why, why_len, "job %u exists", jc.id);
		ret = -EEXIST;
	} else if (!(j = job_free_entry())) {
		snprintf(why, why_len, "the switch has %u jobs, the most it "
			 "takes", OPTINC_MAX_JOBS);
		ret = -ENOSPC;
	}
	if (!ret)
		ret = job_init(j, &jc, true, why, why_len);
	if (!ret && jc.up_ip)
		ret = optinc_uplink_setup(j, why, why_len);
	/* frames of the new id go to its worker, which serves it once taken */
	if (!ret)
		optinc_lcore_set_owner(jc.id, j->worker);
	if (!ret && optinc_live_hand_over(j, OPTINC_JOB_OP_ADD)) {
		snprintf(why, why_len, "the datapath did not take it within "
			 "%u ms (is optincd stopping?)", OPTINC_JOB_WAIT_MS);
		ret = -ETIMEDOUT;
	}
	free(jc.table);
	if (ret) {
		if (j)
			job_release(j);
		if (ret != -EEXIST)
			optinc_lcore_set_owner(jc.id, 0);
		OPTINC_LOG(ERR, "job add '%s': %s", spec, why);
		return NULL;
	}
	j->in_use = true;
	OPTINC_LOG(INFO, "job %u added: size %u bits %u mode %s window %u "
		   "max-elems %u lcore %u", jc.id, jc.size, jc.bits,
		   j->core.mode == OPTINC_MODE_ONN ? "onn" : "exact",
		   j->core.window, j->core.max_elems,
		   optinc_workers[j->worker].lcore);
	return j;
}

/**
 * optinc_agg_job_del() - remove job @id while optincd runs
 * @id:      the job
 * @why:     set to the problem when refused
 * @why_len: size of @why
 *
 * Control thread, one call at a time. Once the lcore has let go of the job
 * its slots, table and counters are freed; its frames are dropped and
 * counted as of an unknown job from then on.
 *
 * Return: 0, or a negative errno with @why set.
 */
int optinc_agg_job_del(uint16_t id, char *why, size_t why_len)
{
	struct optinc_agg_job *j = optinc_agg_find(id);

	if (!j) {
		snprintf(why, why_len, "no job %u", id);
		return -ENOENT;
	}
	if (optinc_live_hand_over(j, OPTINC_JOB_OP_DEL)) {
		snprintf(why, why_len, "the datapath did not let it go within "
			 "%u ms (is optincd stopping?)", OPTINC_JOB_WAIT_MS);
		return -ETIMEDOUT;
	}
	job_release(j);
	optinc_lcore_set_owner(id, 0);
	OPTINC_LOG(INFO, "job %u removed", id);
	return 0;
}
