// SPDX-License-Identifier: GPL-2.0
/*
 * optinc.ko: jobs, the core's struct optinc_job with its slots. Configuration
 * runs under RTNL; a job is replaced as a whole and the old one freed once
 * the datapath is done with it.
 */
#include <linux/in.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <optinc/switch.h>
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

/* A first level's uplink (job-up-*) or a second level's fan-in, or neither. */
static int job_check_cascade(struct optinc_kswitch *sw,
			     const struct optinc_kjob_cfg *cfg,
			     struct netlink_ext_ack *extack)
{
	__be32 ip = cfg->up_ip;

	if (!ip && cfg->up_job) {
		NL_SET_ERR_MSG(extack, "job-up-job needs job-up-addr");
		return -EINVAL;
	}
	if (!ip)
		return 0;
	if (!cfg->up_job) {
		NL_SET_ERR_MSG(extack, "job-up-addr needs job-up-job");
		return -EINVAL;
	}
	if (ipv4_is_zeronet(ip) || ipv4_is_multicast(ip) ||
	    ipv4_is_lbcast(ip) || ipv4_is_loopback(ip) || ip == sw->ep.ip) {
		NL_SET_ERR_MSG(extack,
			       "job-up-addr must be another switch's unicast address");
		return -EINVAL;
	}
	if (cfg->job.fanin) {
		NL_SET_ERR_MSG(extack,
			       "a job is a first level (job-up-addr) or a second (job-fanin), not both");
		return -EINVAL;
	}
	return 0;
}

static int job_check(struct optinc_kswitch *sw, const struct optinc_kjob_cfg *cfg,
		     struct optinc_ktable *t, struct netlink_ext_ack *extack)
{
	struct optinc_job_err e;

	/* the core decides what makes a job (lib/core/job_cfg.c) */
	if (optinc_job_cfg_check(&cfg->job, cfg->job.mode == OPTINC_MODE_ONN && t ?
				 &t->t : NULL, &e)) {
		if (extack)	/* a static string, as a literal would be */
			extack->_msg = e.msg;
		return -EINVAL;
	}
	if (optinc_job_mem(cfg->job.window, cfg->job.max_elems) > OPTINC_KJOB_MEM_MAX) {
		NL_SET_ERR_MSG(extack,
			       "job-window * job-max-elems needs more than 256 MiB");
		return -E2BIG;
	}
	if (job_check_cascade(sw, cfg, extack))
		return -EINVAL;
	if (cfg->job.mode == OPTINC_MODE_ONN && !t) {
		NL_SET_ERR_MSG(extack,
			       "mode onn needs a truth table: load one for this job id first");
		return -ENOENT;
	}
	return 0;
}

/*
 * A first level's slots hold no more than its upstream frames (4 bytes per
 * value) carry through the smallest MTU of the switch's ports now (1500
 * without ports); optinc_job_up_fits() keeps it so as ports come and
 * change their MTU.
 */
static u16 job_up_max_elems(struct optinc_kswitch *sw, u16 max_elems)
{
	struct optinc_kport *port;
	u32 mtu = ETH_DATA_LEN;
	u16 up_max;

	ASSERT_RTNL();
	if (sw->nports)
		mtu = U32_MAX;
	list_for_each_entry(port, &sw->ports, node)
		mtu = min(mtu, port->dev->mtu);
	up_max = optinc_up_max_elems(mtu);
	if (max_elems > up_max)
		pr_info("optinc: %s: job: max-elems %u -> %u, so that its upstream frames fit the MTU (%u)\n",
			sw->name, max_elems, up_max, mtu);
	return min(max_elems, up_max);
}

/**
 * optinc_job_up_fits() - can a port of MTU @mtu carry @sw's upstream frames?
 * @sw:  the switch
 * @mtu: the MTU of a port being added, or a port's new MTU
 *
 * A first-level job's upstream DATA goes out of whichever port reaches the
 * upper switch, and its slots were sized for the ports it had (see
 * job_up_max_elems()). A port that could not carry them is refused, so
 * that the job never meets frames it cannot send. Caller holds RTNL.
 *
 * Return: 0, or -EINVAL naming the first job that would not fit.
 */
int optinc_job_up_fits(struct optinc_kswitch *sw, u32 mtu)
{
	u16 up_max = optinc_up_max_elems(mtu);
	struct optinc_kjob *job;
	unsigned long id;

	ASSERT_RTNL();
	xa_for_each(&sw->jobs, id, job) {
		if (job->cfg.up_ip && job->cfg.job.max_elems > up_max) {
			pr_info("optinc: %s: MTU %u cannot carry job %lu's upstream frames (max-elems %u, at most %u)\n",
				sw->name, mtu, id, job->cfg.job.max_elems, up_max);
			return -EINVAL;
		}
	}
	return 0;
}

/* The uplink of a first-level job, from the switch's address and @cfg. */
static void job_up_init(struct optinc_kswitch *sw, struct optinc_kjob *job)
{
	const struct optinc_kjob_cfg *c = &job->cfg;

	optinc_up_init(&job->up, &sw->ep, c->up_ip, htons(c->up_port),
		       c->up_job, c->up_rank, c->up_token);
	job->core.up = &job->up;
}

static struct optinc_kjob *job_alloc(struct optinc_kswitch *sw,
				     const struct optinc_kjob_cfg *cfg,
				     struct optinc_ktable *t)
{
	struct optinc_kjob *job;
	u64 len;

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return NULL;
	spin_lock_init(&job->lock);
	optinc_bind_init(&job->bind);
	job->cfg = *cfg;
	if (cfg->up_ip)
		job->cfg.job.max_elems = job_up_max_elems(sw, cfg->job.max_elems);
	len = optinc_job_mem(job->cfg.job.window, job->cfg.job.max_elems);
	if (cfg->up_ip)
		job_up_init(sw, job);
	if (cfg->job.mode == OPTINC_MODE_ONN) {
		kref_get(&t->ref);
		job->table = t;
	}
	job->stats = optinc_stats_alloc();
	job->mem = kvzalloc(len, GFP_KERNEL);
	if (!job->stats || !job->mem ||
	    optinc_job_setup(&job->core, &job->cfg.job,
			     job->table ? &job->table->t : NULL, job->mem, len)) {
		job_free(job);
		return NULL;
	}
	return job;
}

/*
 * How many jobs have an uplink: the datapath looks for an upper switch's
 * answers only where some job has one. @in replaced @out (either NULL).
 */
static void job_count_uplinks(struct optinc_kswitch *sw,
			      const struct optinc_kjob *in,
			      const struct optinc_kjob *out)
{
	unsigned int n = sw->nuplinks;

	n += in && in->core.up;
	n -= out && out->core.up;
	WRITE_ONCE(sw->nuplinks, n);
}

/* Put @job in place of whatever job has its id; free the old one. */
static int job_install(struct optinc_kswitch *sw, struct optinc_kjob *job)
{
	struct optinc_kjob *old;

	old = xa_store(&sw->jobs, job->cfg.job.id, job, GFP_KERNEL);
	if (xa_is_err(old)) {
		job_free(job);
		return xa_err(old);
	}
	job_count_uplinks(sw, job, old);
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
int optinc_job_set(struct optinc_kswitch *sw, const struct optinc_kjob_cfg *cfg,
		   struct netlink_ext_ack *extack)
{
	struct optinc_ktable *t = xa_load(&sw->tables, cfg->job.id);
	struct optinc_kjob *job;
	int err;

	ASSERT_RTNL();
	err = job_check(sw, cfg, t, extack);
	if (err)
		return err;
	if (!xa_load(&sw->jobs, cfg->job.id) && sw->njobs >= OPTINC_MAX_JOBS) {
		NL_SET_ERR_MSG(extack, "switch has the most jobs it can have");
		return -ENOSPC;
	}
	job = job_alloc(sw, cfg, t);
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
	job_count_uplinks(sw, NULL, job);
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
	if (!job || job->cfg.job.mode != OPTINC_MODE_ONN)
		return 0;
	fresh = job_alloc(sw, &job->cfg, t);
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
