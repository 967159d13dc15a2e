// SPDX-License-Identifier: GPL-2.0
/*
 * optinc.ko: the generic netlink family's commands that read: a switch,
 * its jobs and the counters, one object or a dump of them
 * (Documentation/netlink/specs/optinc.yaml). Under RTNL, like the rest.
 */
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>
#include "nl_spec.h"
#include "nl_priv.h"
#include "optinc_kmod.h"

static int nl_fill_switch(struct sk_buff *skb, const struct optinc_kswitch *sw,
			  u32 portid, u32 seq, int flags)
{
	const struct optinc_kport *port;
	struct nlattr *nest;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &optinc_nl_family, flags,
			  OPTINC_CMD_SWITCH_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(skb, OPTINC_A_SWITCH_NAME, sw->name) ||
	    nla_put_be32(skb, OPTINC_A_SWITCH_ADDR, sw->ep.ip) ||
	    nla_put(skb, OPTINC_A_SWITCH_MAC, ETH_ALEN, sw->ep.mac) ||
	    nla_put_u16(skb, OPTINC_A_SWITCH_UDP_PORT, ntohs(sw->ep.port)) ||
	    nla_put_u32(skb, OPTINC_A_SWITCH_RATE_LIMIT, sw->rl_pps) ||
	    nla_put_u32(skb, OPTINC_A_SWITCH_RATE_BURST, sw->rl_burst))
		goto cancel;
	list_for_each_entry(port, &sw->ports, node) {
		nest = nla_nest_start(skb, OPTINC_A_PORT);
		if (!nest ||
		    nla_put_u32(skb, OPTINC_PORT_A_IFINDEX, port->dev->ifindex) ||
		    nla_put_string(skb, OPTINC_PORT_A_IFNAME, port->dev->name))
			goto cancel;
		nla_nest_end(skb, nest);
	}
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

int optinc_nl_switch_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct optinc_kswitch *sw;
	struct sk_buff *msg;
	int err = -ENOENT;

	msg = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rtnl_lock();
	sw = optinc_nl_switch(info);
	if (sw)
		err = nl_fill_switch(msg, sw, info->snd_portid, info->snd_seq, 0);
	rtnl_unlock();
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/*
 * Dumps walk the namespace's switches, only the one named if switch-name
 * is given; cb->args[0] is the next index.
 */
int optinc_nl_switch_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr *name = genl_dumpit_info(cb)->attrs[OPTINC_A_SWITCH_NAME];
	struct net *net = sock_net(skb->sk);
	struct optinc_kswitch *sw;
	long idx = 0;

	rtnl_lock();
	list_for_each_entry(sw, optinc_net_switches(net), node) {
		if (idx++ < cb->args[0])
			continue;
		if (name && nla_strcmp(name, sw->name))
			continue;
		if (nl_fill_switch(skb, sw, NETLINK_CB(cb->skb).portid,
				   cb->nlh->nlmsg_seq, NLM_F_MULTI))
			break;
		cb->args[0] = idx;
	}
	rtnl_unlock();
	return skb->len;
}

/* The device named by ifindex or ifname, in the request's namespace. */
static int nl_fill_job_cfg(struct sk_buff *skb, struct optinc_kjob *job)
{
	const struct optinc_kjob_cfg *c = &job->cfg;

	if (nla_put_u16(skb, OPTINC_JOB_A_ID, c->job.id) ||
	    nla_put_u16(skb, OPTINC_JOB_A_SIZE, c->job.size) ||
	    nla_put_u8(skb, OPTINC_JOB_A_BITS, c->job.bits) ||
	    nla_put_u8(skb, OPTINC_JOB_A_MODE, c->job.mode) ||
	    nla_put_u8(skb, OPTINC_JOB_A_TOKEN_SET, !!c->job.token) ||
	    nla_put_u16(skb, OPTINC_JOB_A_WINDOW, c->job.window) ||
	    nla_put_u16(skb, OPTINC_JOB_A_MAX_ELEMS, c->job.max_elems) ||
	    nla_put_u64_64bit(skb, OPTINC_JOB_A_JOINED, optinc_job_joined(job),
			      OPTINC_JOB_A_PAD))
		return -EMSGSIZE;
	if (c->job.fanin && nla_put_u16(skb, OPTINC_JOB_A_FANIN, c->job.fanin))
		return -EMSGSIZE;
	if (c->up_ip &&
	    (nla_put_in_addr(skb, OPTINC_JOB_A_UP_ADDR, c->up_ip) ||
	     nla_put_u16(skb, OPTINC_JOB_A_UP_UDP_PORT, c->up_port) ||
	     nla_put_u16(skb, OPTINC_JOB_A_UP_JOB, c->up_job) ||
	     nla_put_u16(skb, OPTINC_JOB_A_UP_RANK, c->up_rank)))
		return -EMSGSIZE;
	if (!job->table)
		return 0;
	if (nla_put_u16(skb, OPTINC_JOB_A_TABLE_MEMBERS, job->table->t.members) ||
	    nla_put_u32(skb, OPTINC_JOB_A_TABLE_WRONG, job->table->wrong))
		return -EMSGSIZE;
	return 0;
}

/* One job of @sw in a message of its own: counters, and settings for JOB_GET. */
static int nl_fill_job(struct sk_buff *skb, const struct optinc_kswitch *sw,
		       struct optinc_kjob *job, u8 cmd, u32 portid, u32 seq,
		       int flags)
{
	struct nlattr *nest;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &optinc_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(skb, OPTINC_A_SWITCH_NAME, sw->name))
		goto cancel;
	nest = nla_nest_start(skb, OPTINC_A_JOB);
	if (!nest)
		goto cancel;
	if (cmd == OPTINC_CMD_STATS_GET ?
	    nla_put_u16(skb, OPTINC_JOB_A_ID, job->cfg.job.id) :
	    nl_fill_job_cfg(skb, job))
		goto cancel;
	if (optinc_stats_fill(skb, OPTINC_JOB_A_STATS, job->stats, true))
		goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

int optinc_nl_job_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct optinc_kswitch *sw;
	struct optinc_kjob *job;
	struct sk_buff *msg;
	int err = -ENOENT;

	if (NL_REQUIRE(info, OPTINC_A_JOB_ID, "job-id"))
		return -EINVAL;
	msg = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rtnl_lock();
	sw = optinc_nl_switch(info);
	job = sw ? xa_load(&sw->jobs,
			   nla_get_u16(info->attrs[OPTINC_A_JOB_ID])) : NULL;
	if (job)
		err = nl_fill_job(msg, sw, job, OPTINC_CMD_JOB_GET,
				  info->snd_portid, info->snd_seq, 0);
	else if (sw)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[OPTINC_A_JOB_ID],
				    "no job of this id");
	rtnl_unlock();
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

static int nl_fill_port_stats(struct sk_buff *skb,
			      const struct optinc_kswitch *sw,
			      struct optinc_kport *port, u32 portid, u32 seq)
{
	struct nlattr *nest;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &optinc_nl_family, NLM_F_MULTI,
			  OPTINC_CMD_STATS_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(skb, OPTINC_A_SWITCH_NAME, sw->name))
		goto cancel;
	nest = nla_nest_start(skb, OPTINC_A_PORT);
	if (!nest ||
	    nla_put_u32(skb, OPTINC_PORT_A_IFINDEX, port->dev->ifindex) ||
	    nla_put_string(skb, OPTINC_PORT_A_IFNAME, port->dev->name) ||
	    optinc_stats_fill(skb, OPTINC_PORT_A_STATS, port->stats, false))
		goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/*
 * Dump cursor: args[0] switch index, args[1] ports done, args[2] next job
 * id; one message per port (stats only) and per job, only job @only if it
 * is not 0.
 */
static int nl_dump_switch(struct sk_buff *skb, struct netlink_callback *cb,
			  struct optinc_kswitch *sw, u8 cmd, u16 only)
{
	u32 portid = NETLINK_CB(cb->skb).portid, seq = cb->nlh->nlmsg_seq;
	struct optinc_kport *port;
	struct optinc_kjob *job;
	unsigned long id;
	long idx = 0;

	if (cmd == OPTINC_CMD_STATS_GET) {
		list_for_each_entry(port, &sw->ports, node) {
			if (idx++ < cb->args[1])
				continue;
			if (nl_fill_port_stats(skb, sw, port, portid, seq))
				return -EMSGSIZE;
			cb->args[1] = idx;
		}
	}
	id = cb->args[2];
	xa_for_each_start(&sw->jobs, id, job, cb->args[2]) {
		if (only && id != only)
			continue;
		if (nl_fill_job(skb, sw, job, cmd, portid, seq, NLM_F_MULTI))
			return -EMSGSIZE;
		cb->args[2] = id + 1;
	}
	return 0;
}

/* A dump of @cmd, filtered by switch-name and (job-get) job-id when given. */
static int nl_dump(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct nlattr *name = info->attrs[OPTINC_A_SWITCH_NAME];
	u16 only = nl_get_u(info->attrs[OPTINC_A_JOB_ID], 0, 16);
	struct net *net = sock_net(skb->sk);
	struct optinc_kswitch *sw;
	long idx = 0;

	rtnl_lock();
	list_for_each_entry(sw, optinc_net_switches(net), node) {
		if (idx++ < cb->args[0])
			continue;
		if (name && nla_strcmp(name, sw->name))
			continue;
		if (nl_dump_switch(skb, cb, sw, cmd, only))
			break;
		cb->args[0] = idx;
		cb->args[1] = 0;
		cb->args[2] = 0;
	}
	rtnl_unlock();
	return skb->len;
}

int optinc_nl_job_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return nl_dump(skb, cb, OPTINC_CMD_JOB_GET);
}

int optinc_nl_stats_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return nl_dump(skb, cb, OPTINC_CMD_STATS_GET);
}
