// SPDX-License-Identifier: GPL-2.0
/*
 * optinc.ko: module init and exit, and the net device notifier that takes
 * ports away when their device goes (and refuses an MTU that a cascade's
 * upstream frames would not fit).
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include "optinc_kmod.h"

/*
 * An MTU that a first-level job's upstream frames do not fit is refused
 * at NETDEV_CHANGEMTU, where dev->mtu is already the new one: the kernel
 * then sets the old MTU back and reports that change too (which fits).
 * NETDEV_PRECHANGEMTU would refuse before any change, but 6.1 passes it
 * no new MTU (a plain netdev_notifier_info: no .ext to read).
 */
static int main_netdev_event(struct notifier_block *nb, unsigned long event,
			     void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct optinc_kport *port;

	if (event != NETDEV_UNREGISTER && event != NETDEV_CHANGEMTU)
		return NOTIFY_DONE;
	port = optinc_port_of(dev);
	if (!port)
		return NOTIFY_DONE;
	if (event == NETDEV_CHANGEMTU)
		return notifier_from_errno(optinc_job_up_fits(port->sw,
							      dev->mtu));
	optinc_port_del(port);
	return NOTIFY_OK;
}

static struct notifier_block main_netdev_nb = {
	.notifier_call = main_netdev_event,
};

static int __init optinc_init(void)
{
	int err;

	BUILD_BUG_ON((int)__OPTINC_DROPS_A_MAX != (int)OPTINC_DROP_NR);
	BUILD_BUG_ON((int)OPTINC_DROPS_A_TOO_BIG != (int)OPTINC_DROP_TOO_BIG);
	BUILD_BUG_ON((int)OPTINC_DROPS_A_SHORT != (int)OPTINC_DROP_SHORT);
	BUILD_BUG_ON(OPTINC_NL_MODE_ONN != OPTINC_MODE_ONN);
	BUILD_BUG_ON(OPTINC_NL_MODE_EXACT != OPTINC_MODE_EXACT);

	err = register_pernet_subsys(&optinc_switch_net_ops);
	if (err)
		return err;
	err = register_netdevice_notifier(&main_netdev_nb);
	if (err)
		goto out_pernet;
	err = optinc_nl_init();
	if (err)
		goto out_notifier;
	return 0;

out_notifier:
	unregister_netdevice_notifier(&main_netdev_nb);
out_pernet:
	unregister_pernet_subsys(&optinc_switch_net_ops);
	return err;
}

/*
 * ORDER: no new requests, then the notifier's goodbye (it reports every
 * device as unregistering, which removes all ports and waits for the
 * datapath), then the switches themselves.
 */
static void __exit optinc_exit(void)
{
	optinc_nl_exit();
	unregister_netdevice_notifier(&main_netdev_nb);
	unregister_pernet_subsys(&optinc_switch_net_ops);
	rcu_barrier();
}

module_init(optinc_init);
module_exit(optinc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("OptINC switch: in-network gradient averaging datapath");
MODULE_ALIAS_GENL_FAMILY(OPTINC_GENL_NAME);
