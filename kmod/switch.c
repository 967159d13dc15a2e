// SPDX-License-Identifier: GPL-2.0
/*
 * optinc.ko: switch instances, per network namespace, and their member
 * ports. Everything here runs under RTNL; the datapath sees a port through
 * its net device's rx_handler.
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/rculist.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include "optinc_kmod.h"

struct optinc_net {
	struct list_head switches;	/* RTNL */
};

static unsigned int optinc_net_id __read_mostly;

/* The switches of namespace @net (RTNL). */
struct list_head *optinc_net_switches(struct net *net)
{
	struct optinc_net *on = net_generic(net, optinc_net_id);

	return &on->switches;
}

static int __net_init switch_net_init(struct net *net)
{
	INIT_LIST_HEAD(optinc_net_switches(net));
	return 0;
}

static void __net_exit switch_net_exit(struct net *net)
{
	struct optinc_kswitch *sw, *tmp;

	rtnl_lock();
	list_for_each_entry_safe(sw, tmp, optinc_net_switches(net), node)
		optinc_switch_destroy(sw);
	rtnl_unlock();
}

/* Registered by main.c: every namespace gets its list of switches. */
struct pernet_operations optinc_switch_net_ops = {
	.init	= switch_net_init,
	.exit	= switch_net_exit,
	.id	= &optinc_net_id,
	.size	= sizeof(struct optinc_net),
};

/* The switch named @name in @net, or NULL (RTNL). */
struct optinc_kswitch *optinc_switch_find(struct net *net, const char *name)
{
	struct optinc_kswitch *sw;

	ASSERT_RTNL();
	list_for_each_entry(sw, optinc_net_switches(net), node)
		if (!strcmp(sw->name, name))
			return sw;
	return NULL;
}

/**
 * optinc_switch_new() - create a switch instance in a network namespace
 * @net:    the namespace; its ports must live there
 * @name:   unique name in @net
 * @ep:     its MAC, IPv4 address and UDP port (network order)
 * @rl_pps:   per port, JOINs and frames failing the token or membership
 *            check let through a second (0: no limit)
 * @rl_burst: and at once, 1..65535
 * @extack: where to say what is wrong
 *
 * Return: 0, -EEXIST, -EINVAL or -ENOMEM.
 */
int optinc_switch_new(struct net *net, const char *name,
		      const struct optinc_endpoint *ep, u32 rl_pps, u32 rl_burst,
		      struct netlink_ext_ack *extack)
{
	struct optinc_rl_conf rl;
	struct optinc_kswitch *sw;

	ASSERT_RTNL();
	if (optinc_rl_conf_set(&rl, rl_pps, rl_burst, NSEC_PER_SEC)) {
		NL_SET_ERR_MSG(extack, "switch-rate-burst must be 1..65535");
		return -EINVAL;
	}
	if (optinc_switch_find(net, name)) {
		NL_SET_ERR_MSG(extack, "a switch of this name exists");
		return -EEXIST;
	}
	sw = kzalloc(sizeof(*sw), GFP_KERNEL);
	if (!sw)
		return -ENOMEM;
	sw->net = net;
	strscpy(sw->name, name, sizeof(sw->name));
	sw->ep = *ep;
	sw->rl_pps = rl_pps;
	sw->rl_burst = rl_burst;
	sw->rl_conf = rl;
	INIT_LIST_HEAD(&sw->ports);
	xa_init(&sw->jobs);
	xa_init(&sw->tables);
	optinc_fdb_init(sw);
	list_add_tail(&sw->node, optinc_net_switches(net));
	return 0;
}

/**
 * optinc_switch_set_rl() - change a switch's rate limit (RTNL)
 * @sw:       the switch
 * @rl_pps:   as for optinc_switch_new()
 * @rl_burst: likewise
 * @extack:   where to say what is wrong
 *
 * A frame racing the change sees the old or the new interval and
 * tolerance (one of them torn at worst: one frame judged by a mix).
 * Every port's bucket starts full.
 *
 * Return: 0 or -EINVAL.
 */
int optinc_switch_set_rl(struct optinc_kswitch *sw, u32 rl_pps, u32 rl_burst,
			 struct netlink_ext_ack *extack)
{
	struct optinc_kport *port;
	struct optinc_rl_conf rl;

	ASSERT_RTNL();
	if (optinc_rl_conf_set(&rl, rl_pps, rl_burst, NSEC_PER_SEC)) {
		NL_SET_ERR_MSG(extack, "switch-rate-burst must be 1..65535");
		return -EINVAL;
	}
	sw->rl_pps = rl_pps;
	sw->rl_burst = rl_burst;
	WRITE_ONCE(sw->rl_conf.interval, rl.interval);
	WRITE_ONCE(sw->rl_conf.tau, rl.tau);
	list_for_each_entry(port, &sw->ports, node) {
		spin_lock_bh(&port->rl_lock);
		optinc_rl_init(&port->rl);
		spin_unlock_bh(&port->rl_lock);
	}
	return 0;
}

/* Delete a switch: its ports go back to the host, its jobs are freed. */
void optinc_switch_destroy(struct optinc_kswitch *sw)
{
	struct optinc_kport *port, *tmp;

	ASSERT_RTNL();
	list_del(&sw->node);
	list_for_each_entry_safe(port, tmp, &sw->ports, node)
		optinc_port_del(port);
	cancel_delayed_work_sync(&sw->fdb_gc);
	optinc_fdb_flush(sw, NULL);
	optinc_jobs_destroy(sw);
	optinc_tables_destroy(sw);
	kfree(sw);
}

/* The member port behind @dev, or NULL when @dev is not one. */
struct optinc_kport *optinc_port_of(const struct net_device *dev)
{
	ASSERT_RTNL();
	if (rtnl_dereference(dev->rx_handler) != optinc_dp_handle_frame)
		return NULL;
	return rtnl_dereference(dev->rx_handler_data);
}

static int switch_port_check(struct optinc_kswitch *sw, struct net_device *dev,
		      struct netlink_ext_ack *extack)
{
	if (dev->flags & IFF_LOOPBACK || dev->type != ARPHRD_ETHER ||
	    dev->addr_len != ETH_ALEN) {
		NL_SET_ERR_MSG(extack, "only Ethernet devices can be ports");
		return -EINVAL;
	}
	if (optinc_port_of(dev)) {
		NL_SET_ERR_MSG(extack, "device is a port of a switch already");
		return -EBUSY;
	}
	if (sw->nports >= OPTINC_NL_MAX_PORTS) {
		NL_SET_ERR_MSG(extack, "switch has the most ports it can have");
		return -ENOSPC;
	}
	if (optinc_job_up_fits(sw, dev->mtu)) {
		NL_SET_ERR_MSG(extack,
			       "device MTU too small for a first-level job's upstream frames");
		return -EINVAL;
	}
	return 0;
}

/**
 * optinc_port_add() - make @dev a member port of @sw
 * @sw:     the switch
 * @dev:    an Ethernet device in the switch's namespace
 * @extack: where to say what is wrong
 *
 * From now on every frame @dev receives goes to the switch; the host
 * stack no longer sees them.
 *
 * Return: 0, or a negative errno (-EBUSY when @dev has an rx_handler).
 */
int optinc_port_add(struct optinc_kswitch *sw, struct net_device *dev,
		    struct netlink_ext_ack *extack)
{
	struct optinc_kport *port;
	int err;

	ASSERT_RTNL();
	err = switch_port_check(sw, dev, extack);
	if (err)
		return err;
	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return -ENOMEM;
	port->stats = optinc_stats_alloc();
	if (!port->stats) {
		err = -ENOMEM;
		goto out_free_port;
	}
	port->dev = dev;
	port->sw = sw;
	spin_lock_init(&port->rl_lock);
	optinc_rl_init(&port->rl);
	netdev_hold(dev, &port->tracker, GFP_KERNEL);
	err = netdev_rx_handler_register(dev, optinc_dp_handle_frame, port);
	if (err) {
		NL_SET_ERR_MSG(extack,
			       "device is in use (bridge, bond or other rx_handler)");
		goto out_put_dev;
	}
	dev_disable_lro(dev);
	dev_set_promiscuity(dev, 1);
	list_add_tail_rcu(&port->node, &sw->ports);
	sw->nports++;
	return 0;

out_put_dev:
	netdev_put(dev, &port->tracker);
	free_percpu(port->stats);
out_free_port:
	kfree(port);
	return err;
}

/* Give a port's device back to the host; waits for the datapath. */
void optinc_port_del(struct optinc_kport *port)
{
	struct optinc_kswitch *sw = port->sw;

	ASSERT_RTNL();
	list_del_rcu(&port->node);
	sw->nports--;
	dev_set_promiscuity(port->dev, -1);
	/* ORDER: no frame can learn @port after this (it waits for readers) */
	netdev_rx_handler_unregister(port->dev);
	optinc_fdb_flush(sw, port);
	/* ORDER: readers that found @port in the list or the FDB are done */
	synchronize_net();
	free_percpu(port->stats);
	netdev_put(port->dev, &port->tracker);
	kfree(port);
}
