// SPDX-License-Identifier: GPL-2.0
/*
 * optinc.ko: the generic netlink family "optinc"
 * (Documentation/netlink/specs/optinc.yaml). Its policies, one per
 * operation, and ops table are generated from the spec (nl_spec.c); these
 * are the handlers. They take RTNL, which guards all configuration;
 * changes need CAP_NET_ADMIN (GENL_ADMIN_PERM).
 */
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>
#include "nl_spec.h"
#include "optinc_kmod.h"

#define NL_WINDOW_DEFAULT	64
#define NL_MAX_ELEMS_DEFAULT	8704

static struct genl_family optinc_nl_family;

/* A required attribute: extack names its type and says it is missing. */
#define NL_REQUIRE(info, attr, name) ({					\
	bool __missing = GENL_REQ_ATTR_CHECK(info, attr);		\
									\
	if (__missing)							\
		NL_SET_ERR_MSG((info)->extack, name " is required");	\
	__missing;							\
})

/* The switch named in the request, or NULL with extack set. */
static struct optinc_kswitch *nl_switch(struct genl_info *info)
{
	struct nlattr *a = info->attrs[OPTINC_A_SWITCH_NAME];
	struct optinc_kswitch *sw;

	if (NL_REQUIRE(info, OPTINC_A_SWITCH_NAME, "switch-name"))
		return NULL;
	sw = optinc_switch_find(genl_info_net(info), nla_data(a));
	if (!sw)
		NL_SET_ERR_MSG_ATTR(info->extack, a, "no switch of this name");
	return sw;
}

int optinc_nl_switch_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct optinc_endpoint ep = { .port = htons(OPTINC_UDP_PORT) };
	u32 pps = OPTINC_RL_PPS_DEFAULT, burst = OPTINC_RL_BURST_DEFAULT;
	int err;

	if (NL_REQUIRE(info, OPTINC_A_SWITCH_NAME, "switch-name") ||
	    NL_REQUIRE(info, OPTINC_A_SWITCH_ADDR, "switch-addr"))
		return -EINVAL;
	ep.ip = nla_get_be32(tb[OPTINC_A_SWITCH_ADDR]);
	if (ipv4_is_zeronet(ep.ip) || ipv4_is_multicast(ep.ip) ||
	    ipv4_is_lbcast(ep.ip) || ipv4_is_loopback(ep.ip)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[OPTINC_A_SWITCH_ADDR],
				    "switch-addr must be a unicast IPv4 address");
		return -EINVAL;
	}
	if (tb[OPTINC_A_SWITCH_MAC]) {
		memcpy(ep.mac, nla_data(tb[OPTINC_A_SWITCH_MAC]), ETH_ALEN);
		if (!is_valid_ether_addr(ep.mac)) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[OPTINC_A_SWITCH_MAC],
					    "switch-mac must be a unicast address");
			return -EINVAL;
		}
	} else {
		eth_random_addr(ep.mac);
	}
	if (tb[OPTINC_A_SWITCH_UDP_PORT])
		ep.port = htons(nla_get_u16(tb[OPTINC_A_SWITCH_UDP_PORT]));
	if (tb[OPTINC_A_SWITCH_RATE_LIMIT])
		pps = nla_get_u32(tb[OPTINC_A_SWITCH_RATE_LIMIT]);
	if (tb[OPTINC_A_SWITCH_RATE_BURST])
		burst = nla_get_u32(tb[OPTINC_A_SWITCH_RATE_BURST]);
	rtnl_lock();
	err = optinc_switch_new(genl_info_net(info),
				nla_data(tb[OPTINC_A_SWITCH_NAME]), &ep, pps,
				burst, info->extack);
	rtnl_unlock();
	return err;
}

int optinc_nl_switch_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct optinc_kswitch *sw;
	int err = -ENOENT;
	u32 pps, burst;

	rtnl_lock();
	sw = nl_switch(info);
	if (sw) {
		pps = tb[OPTINC_A_SWITCH_RATE_LIMIT] ?
		      nla_get_u32(tb[OPTINC_A_SWITCH_RATE_LIMIT]) : sw->rl_pps;
		burst = tb[OPTINC_A_SWITCH_RATE_BURST] ?
			nla_get_u32(tb[OPTINC_A_SWITCH_RATE_BURST]) : sw->rl_burst;
		err = optinc_switch_set_rl(sw, pps, burst, info->extack);
	}
	rtnl_unlock();
	return err;
}

int optinc_nl_switch_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct optinc_kswitch *sw;
	int err = -ENOENT;

	rtnl_lock();
	sw = nl_switch(info);
	if (sw) {
		optinc_switch_destroy(sw);
		err = 0;
	}
	rtnl_unlock();
	return err;
}

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
	sw = nl_switch(info);
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
static struct net_device *nl_dev(struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct net *net = genl_info_net(info);
	struct net_device *dev = NULL;

	if (tb[OPTINC_A_IFINDEX])
		dev = __dev_get_by_index(net, nla_get_u32(tb[OPTINC_A_IFINDEX]));
	else if (tb[OPTINC_A_IFNAME])
		dev = __dev_get_by_name(net, nla_data(tb[OPTINC_A_IFNAME]));
	else
		NL_SET_ERR_MSG(info->extack, "ifindex or ifname is required");
	if (!dev && (tb[OPTINC_A_IFINDEX] || tb[OPTINC_A_IFNAME]))
		NL_SET_ERR_MSG(info->extack, "no such device in this namespace");
	return dev;
}

int optinc_nl_port_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct optinc_kswitch *sw;
	struct net_device *dev;
	int err = -ENOENT;

	rtnl_lock();
	sw = nl_switch(info);
	if (!sw)
		goto out_unlock;
	err = -ENODEV;
	dev = nl_dev(info);
	if (dev)
		err = optinc_port_add(sw, dev, info->extack);
out_unlock:
	rtnl_unlock();
	return err;
}

int optinc_nl_port_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct optinc_kswitch *sw;
	struct optinc_kport *port;
	struct net_device *dev;
	int err = -ENOENT;

	rtnl_lock();
	sw = nl_switch(info);
	if (!sw)
		goto out_unlock;
	err = -ENODEV;
	dev = nl_dev(info);
	if (!dev)
		goto out_unlock;
	port = optinc_port_of(dev);
	err = -ENOENT;
	if (!port || port->sw != sw) {
		NL_SET_ERR_MSG(info->extack, "device is not a port of this switch");
		goto out_unlock;
	}
	optinc_port_del(port);
	err = 0;
out_unlock:
	rtnl_unlock();
	return err;
}

static u32 nl_get_u(struct nlattr *a, u32 def, int width)
{
	if (!a)
		return def;
	return width == 8 ? nla_get_u8(a) : width == 16 ? nla_get_u16(a) :
	       nla_get_u32(a);
}

int optinc_nl_job_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct optinc_kjob_cfg cfg;
	struct optinc_kswitch *sw;
	int err = -ENOENT;

	if (NL_REQUIRE(info, OPTINC_A_JOB_ID, "job-id") ||
	    NL_REQUIRE(info, OPTINC_A_JOB_SIZE, "job-size"))
		return -EINVAL;
	cfg.id = nla_get_u16(tb[OPTINC_A_JOB_ID]);
	cfg.size = nla_get_u16(tb[OPTINC_A_JOB_SIZE]);
	cfg.bits = nl_get_u(tb[OPTINC_A_JOB_BITS], 8, 8);
	cfg.mode = nl_get_u(tb[OPTINC_A_JOB_MODE], OPTINC_NL_MODE_EXACT, 8);
	cfg.token = nl_get_u(tb[OPTINC_A_JOB_TOKEN], 0, 32);
	cfg.window = nl_get_u(tb[OPTINC_A_JOB_WINDOW], NL_WINDOW_DEFAULT, 16);
	cfg.max_elems = nl_get_u(tb[OPTINC_A_JOB_MAX_ELEMS],
				 NL_MAX_ELEMS_DEFAULT, 16);
	rtnl_lock();
	sw = nl_switch(info);
	if (sw)
		err = optinc_job_set(sw, &cfg, info->extack);
	rtnl_unlock();
	return err;
}

int optinc_nl_job_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct optinc_kswitch *sw;
	int err = -ENOENT;

	if (NL_REQUIRE(info, OPTINC_A_JOB_ID, "job-id"))
		return -EINVAL;
	rtnl_lock();
	sw = nl_switch(info);
	if (sw) {
		err = optinc_job_del(sw, nla_get_u16(info->attrs[OPTINC_A_JOB_ID]));
		if (err)
			NL_SET_ERR_MSG_ATTR(info->extack,
					    info->attrs[OPTINC_A_JOB_ID],
					    "no job of this id");
	}
	rtnl_unlock();
	return err;
}

static int nl_fill_job_cfg(struct sk_buff *skb, struct optinc_kjob *job)
{
	const struct optinc_kjob_cfg *c = &job->cfg;

	if (nla_put_u16(skb, OPTINC_JOB_A_ID, c->id) ||
	    nla_put_u16(skb, OPTINC_JOB_A_SIZE, c->size) ||
	    nla_put_u8(skb, OPTINC_JOB_A_BITS, c->bits) ||
	    nla_put_u8(skb, OPTINC_JOB_A_MODE, c->mode) ||
	    nla_put_u8(skb, OPTINC_JOB_A_TOKEN_SET, !!c->token) ||
	    nla_put_u16(skb, OPTINC_JOB_A_WINDOW, c->window) ||
	    nla_put_u16(skb, OPTINC_JOB_A_MAX_ELEMS, c->max_elems) ||
	    nla_put_u64_64bit(skb, OPTINC_JOB_A_JOINED, optinc_job_joined(job),
			      OPTINC_JOB_A_PAD))
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
	    nla_put_u16(skb, OPTINC_JOB_A_ID, job->cfg.id) :
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
	sw = nl_switch(info);
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

int optinc_nl_table_load_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct optinc_kswitch *sw;
	int err = -ENOENT;

	if (NL_REQUIRE(info, OPTINC_A_JOB_ID, "job-id") ||
	    NL_REQUIRE(info, OPTINC_A_TABLE_OFFSET, "table-offset") ||
	    NL_REQUIRE(info, OPTINC_A_TABLE_DATA, "table-data"))
		return -EINVAL;
	rtnl_lock();
	sw = nl_switch(info);
	if (sw)
		err = optinc_table_chunk(sw, nla_get_u16(tb[OPTINC_A_JOB_ID]),
					 nla_get_u32(tb[OPTINC_A_TABLE_OFFSET]),
					 nl_get_u(tb[OPTINC_A_TABLE_TOTAL], 0, 32),
					 nla_data(tb[OPTINC_A_TABLE_DATA]),
					 nla_len(tb[OPTINC_A_TABLE_DATA]),
					 info->extack);
	rtnl_unlock();
	return err;
}

static struct genl_family optinc_nl_family __ro_after_init = {
	.name		= OPTINC_GENL_NAME,
	.version	= OPTINC_GENL_VERSION,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.ops		= optinc_nl_ops,
	.n_ops		= ARRAY_SIZE(optinc_nl_ops),
	.resv_start_op	= OPTINC_CMD_STATS_GET + 1,
};

/* Register the family. Return: 0 or a negative errno. */
int optinc_nl_init(void)
{
	/* the spec's limits are the core's */
	BUILD_BUG_ON(OPTINC_NL_MAX_MEMBERS != OPTINC_MAX_MEMBERS);
	BUILD_BUG_ON(OPTINC_NL_TABLE_MIN != OPTINC_TABLE_HDR_LEN);
	BUILD_BUG_ON(OPTINC_NL_RATE_BURST_MAX != OPTINC_RL_BURST_MAX);
	return genl_register_family(&optinc_nl_family);
}

void optinc_nl_exit(void)
{
	genl_unregister_family(&optinc_nl_family);
}
