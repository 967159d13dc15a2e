// SPDX-License-Identifier: GPL-2.0
/*
 * optinc.ko: the generic netlink family "optinc"
 * (Documentation/netlink/specs/optinc.yaml). Its policies, one per
 * operation, and ops table are generated from the spec (nl_spec.c); these
 * are the handlers of the commands that change things (nl_get.c has those
 * that read). They take RTNL, which guards all configuration; changes
 * need CAP_NET_ADMIN (GENL_ADMIN_PERM).
 */
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>
#include "nl_spec.h"
#include "nl_priv.h"
#include "optinc_kmod.h"



/* The switch named in the request, or NULL with extack set. */
struct optinc_kswitch *optinc_nl_switch(struct genl_info *info)
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
	sw = optinc_nl_switch(info);
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
	sw = optinc_nl_switch(info);
	if (sw) {
		optinc_switch_destroy(sw);
		err = 0;
	}
	rtnl_unlock();
	return err;
}

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
	sw = optinc_nl_switch(info);
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
	sw = optinc_nl_switch(info);
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

int optinc_nl_job_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct optinc_kjob_cfg cfg = { 0 };
	struct optinc_kswitch *sw;
	int err = -ENOENT;

	if (NL_REQUIRE(info, OPTINC_A_JOB_ID, "job-id") ||
	    NL_REQUIRE(info, OPTINC_A_JOB_SIZE, "job-size"))
		return -EINVAL;
	cfg.job.id = nla_get_u16(tb[OPTINC_A_JOB_ID]);
	cfg.job.size = nla_get_u16(tb[OPTINC_A_JOB_SIZE]);
	cfg.job.bits = nl_get_u(tb[OPTINC_A_JOB_BITS], 8, 8);
	/* the spec's mode numbers are the core's (optinc_init()) */
	cfg.job.mode = nl_get_u(tb[OPTINC_A_JOB_MODE], OPTINC_NL_MODE_EXACT, 8);
	cfg.job.token = nl_get_u(tb[OPTINC_A_JOB_TOKEN], 0, 32);
	cfg.job.window = nl_get_u(tb[OPTINC_A_JOB_WINDOW], OPTINC_DEF_WINDOW, 16);
	cfg.job.max_elems = nl_get_u(tb[OPTINC_A_JOB_MAX_ELEMS],
				 OPTINC_DEF_MAX_ELEMS, 16);
	cfg.job.fanin = nl_get_u(tb[OPTINC_A_JOB_FANIN], 0, 16);
	cfg.up_ip = tb[OPTINC_A_JOB_UP_ADDR] ?
		    nla_get_in_addr(tb[OPTINC_A_JOB_UP_ADDR]) : 0;
	cfg.up_port = nl_get_u(tb[OPTINC_A_JOB_UP_UDP_PORT], OPTINC_UDP_PORT, 16);
	cfg.up_job = nl_get_u(tb[OPTINC_A_JOB_UP_JOB], 0, 16);
	cfg.up_rank = nl_get_u(tb[OPTINC_A_JOB_UP_RANK], 0, 16);
	cfg.up_token = nl_get_u(tb[OPTINC_A_JOB_UP_TOKEN], 0, 32);
	rtnl_lock();
	sw = optinc_nl_switch(info);
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
	sw = optinc_nl_switch(info);
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
	sw = optinc_nl_switch(info);
	if (sw)
		err = optinc_table_chunk(sw, nla_get_u16(tb[OPTINC_A_JOB_ID]),
					 nla_get_u32(tb[OPTINC_A_TABLE_OFFSET]),
					 nl_get_u(tb[OPTINC_A_TABLE_TOTAL], 0, 32),
					 nla_data(tb[OPTINC_A_TABLE_DATA]),
					 nla_len(tb[OPTINC_A_TABLE_DATA]),
					 info->extack);
	if (err == 1)	/* complete: an onn job of that id switches to it */
		err = optinc_job_retable(sw, nla_get_u16(tb[OPTINC_A_JOB_ID]),
					 xa_load(&sw->tables,
						 nla_get_u16(tb[OPTINC_A_JOB_ID])),
					 info->extack);
	rtnl_unlock();
	return err;
}

struct genl_family optinc_nl_family __ro_after_init = {
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
	BUILD_BUG_ON(OPTINC_NL_WINDOW_MAX != OPTINC_MAX_WINDOW);
	BUILD_BUG_ON(OPTINC_NL_MAX_JOBS != OPTINC_MAX_JOBS);
	return genl_register_family(&optinc_nl_family);
}

void optinc_nl_exit(void)
{
	genl_unregister_family(&optinc_nl_family);
}
