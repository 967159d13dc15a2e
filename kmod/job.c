// SPDX-License-Identifier: GPL-2.0
/*
 * optinc.ko: jobs, the core's struct optinc_job with its slots. Configuration
 * runs under RTNL; a job is replaced as a whole and the old one freed once
 * the datapath is done with it.
 */
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include "optinc_kmod.h"

/*
 * Give back the FDB pins of @job's bindings; the datapath is done with the
 * job (after synchronize_net()), so no binding is made behind this.
 */
static void job_unpin(struct optinc_kswitch *sw, struct optinc_kjob *job)
{
	struct optinc_kport *port;
	u16 r;

	for (r = 0; r < OPTINC_MAX_MEMBERS; r++) {
		if (!(job->bind.bound >> r & 1))
			continue;
		/* a removed port took its pins with it (optinc_fdb_flush()) */
		port = optinc_port_by_ifindex(sw, job->bind.port[r]);
		if (port)
			optinc_fdb_unpin(sw, job->bind.ep[r].mac, port);
	}
}

static void job_free(struct optinc_kjob *job)
{
	free_percpu(job->stats);
	kvfree(job->mem);
	optinc_ktable_put(job->table);
	kfree(job);
}

/*
 * The core decides what makes a job (lib/core/job_cfg.c); its messages are
 * static strings, so extack may point at them as NL_SET_ERR_MSG() points
 * at a literal. What only optinc.ko limits is checked here.
 */
static int job_check(struct optinc_kswitch *sw, const struct optinc_job_cfg *cfg,
		     struct optinc_ktable *t, struct netlink_ext_ack *extack)
{
	struct optinc_job_err e;

	if (cfg->fanin) {
		NL_SET_ERR_MSG(extack, "optinc.ko has no second-level (fanin) jobs");
		return -EOPNOTSUPP;
	}
	if (optinc_job_cfg_check(cfg, cfg->mode == OPTINC_MODE_ONN && t ?
				 &t->t : NULL, &e)) {
		if (extack)
			extack->_msg = e.msg;
		return -EINVAL;
	}
	if (optinc_job_mem(cfg->window, cfg->max_elems) > OPTINC_KJOB_MEM_MAX) {
		NL_SET_ERR_MSG(extack,
			       "job-window * job-max-elems needs more than 256 MiB");
		return -E2BIG;
	}
	if (cfg->mode == OPTINC_MODE_ONN && !t) {
		NL_SET_ERR_MSG(extack,
			       "mode onn needs a truth table: load one for this job id first");
		return -ENOENT;
	}
	return 0;
}

static struct optinc_kjob *job_alloc(const struct optinc_job_cfg *cfg,
				     struct optinc_ktable *t)
{
	u64 len = optinc_job_mem(cfg->window, cfg->max_elems);
	struct optinc_kjob *job;

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return NULL;
	spin_lock_init(&job->lock);
	optinc_bind_init(&job->bind);
	job->cfg = *cfg;
	if (cfg->mode == OPTINC_MODE_ONN) {
		kref_get(&t->ref);
		job->table = t;
	}
	job->stats = optinc_stats_alloc();
	job->mem = kvzalloc(len, GFP_KERNEL);
	if (!job->stats || !job->mem ||
	    optinc_job_setup(&job->core, cfg, job->table ? &job->table->t : NULL,
			     job->mem, len)) {
		job_free(job);
		return NULL;
	}
	return job;
}

/* Put @job in place of whatever job has its id; free the old one. */
static int job_install(struct optinc_kswitch *sw, struct optinc_kjob *job)
{
	struct optinc_kjob *old;

	old = xa_store(&sw->jobs, job->cfg.id, job, GFP_KERNEL);
	if (xa_is_err(old)) {
		job_free(job);
		return xa_err(old);
	}
	if (!old) {
		sw->njobs++;
		return 0;
	}
	/* ORDER: the datapath may still be inside the old job */
	synchronize_net();
	job_unpin(sw, old);
	job_free(old);
	return 0;
}

/**
 * optinc_job_set() - create or replace a job of a switch
 * @sw:     the switch
 * @cfg:    the job's settings (checked here)
 * @extack: where to say what is wrong
 *
 * A replaced job's members, slots and counters are gone: a new generation.
 *
 * Return: 0, or a negative errno.
 */
int optinc_job_set(struct optinc_kswitch *sw, const struct optinc_job_cfg *cfg,
		   struct netlink_ext_ack *extack)
{
	struct optinc_ktable *t = xa_load(&sw->tables, cfg->id);
	struct optinc_kjob *job;
	int err;

	ASSERT_RTNL();
	err = job_check(sw, cfg, t, extack);
	if (err)
		return err;
	if (!xa_load(&sw->jobs, cfg->id) && sw->njobs >= OPTINC_NL_MAX_JOBS) {
		NL_SET_ERR_MSG(extack, "switch has the most jobs it can have");
		return -ENOSPC;
	}
	job = job_alloc(cfg, t);
	if (!job) {
		NL_SET_ERR_MSG(extack, "no memory for the job's slots");
		return -ENOMEM;
	}
	return job_install(sw, job);
}

/* Delete job @id and its truth table. Return: 0 or -ENOENT. */
int optinc_job_del(struct optinc_kswitch *sw, u16 id)
{
	struct optinc_kjob *job;

	ASSERT_RTNL();
	optinc_ktable_put(xa_erase(&sw->tables, id));
	job = xa_erase(&sw->jobs, id);
	if (!job)
		return -ENOENT;
	sw->njobs--;
	synchronize_net();
	job_unpin(sw, job);
	job_free(job);
	return 0;
}

/* Free all jobs of a switch that has no ports left. */
void optinc_jobs_destroy(struct optinc_kswitch *sw)
{
	struct optinc_kjob *job;
	unsigned long id;

	synchronize_net();
	xa_for_each(&sw->jobs, id, job)
		job_free(job);
	xa_destroy(&sw->jobs);
}

/**
 * optinc_job_retable() - move an onn job to a new truth table
 * @sw:     the switch
 * @id:     the job id the table was loaded for
 * @t:      the table (checked, of the job's N)
 * @extack: where to say what is wrong
 *
 * A new generation of the job starts on @t; other jobs are left alone.
 *
 * Return: 0, or -ENOMEM.
 */
int optinc_job_retable(struct optinc_kswitch *sw, u16 id,
		       struct optinc_ktable *t, struct netlink_ext_ack *extack)
{
	struct optinc_kjob *job = xa_load(&sw->jobs, id), *fresh;

	ASSERT_RTNL();
	if (!job || job->cfg.mode != OPTINC_MODE_ONN)
		return 0;
	fresh = job_alloc(&job->cfg, t);
	if (!fresh) {
		NL_SET_ERR_MSG(extack, "no memory to restart the job on the new table");
		return -ENOMEM;
	}
	return job_install(sw, fresh);
}

/* The bitmap of joined ranks, read under the job's lock. */
u64 optinc_job_joined(struct optinc_kjob *job)
{
	u64 joined;

	spin_lock_bh(&job->lock);
	joined = job->core.joined;
	spin_unlock_bh(&job->lock);
	return joined;
}
