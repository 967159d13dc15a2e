// SPDX-License-Identifier: GPL-2.0
/*
 * optinc.ko: the learning table of the L2 switch (MAC -> member port), so
 * that traffic between servers keeps flowing and results find their port.
 * Readers run under RCU in the datapath; an entry's port and time are
 * updated in place, entries are added and removed under fdb_lock.
 */
#include <linux/etherdevice.h>
#include <linux/hash.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <asm/unaligned.h>
#include "optinc_kmod.h"

#define FDB_GC_PERIOD	(30 * HZ)

struct optinc_fdb_entry {
	struct hlist_node node;
	struct rcu_head	rcu;
	struct optinc_kport *port;
	unsigned long	seen;		/* jiffies */
	u8		mac[ETH_ALEN];
};

static struct hlist_head *fdb_bucket(struct optinc_kswitch *sw, const u8 *mac)
{
	u32 key = get_unaligned((const u32 *)(mac + 2)) ^ mac[0] ^ mac[1] << 8;

	return &sw->fdb[hash_32(key, OPTINC_FDB_BITS)];
}

static struct optinc_fdb_entry *fdb_find(struct optinc_kswitch *sw,
					 const u8 *mac)
{
	struct optinc_fdb_entry *e;

	hlist_for_each_entry_rcu(e, fdb_bucket(sw, mac), node,
				 lockdep_is_held(&sw->fdb_lock))
		if (ether_addr_equal(e->mac, mac))
			return e;
	return NULL;
}

/* The port @mac was last seen on, or NULL: unknown or aged out. */
struct optinc_kport *optinc_fdb_lookup(struct optinc_kswitch *sw,
				       const u8 *mac)
{
	struct optinc_fdb_entry *e = fdb_find(sw, mac);

	if (!e || time_after(jiffies, READ_ONCE(e->seen) + OPTINC_FDB_AGE))
		return NULL;
	return READ_ONCE(e->port);
}

/* @mac sent a frame on @port. Called in the datapath (softirq). */
void optinc_fdb_learn(struct optinc_kswitch *sw, const u8 *mac,
		      struct optinc_kport *port)
{
	struct optinc_fdb_entry *e = fdb_find(sw, mac);

	if (e) {
		if (READ_ONCE(e->port) != port)
			WRITE_ONCE(e->port, port);
		if (READ_ONCE(e->seen) != jiffies)
			WRITE_ONCE(e->seen, jiffies);
		return;
	}
	spin_lock(&sw->fdb_lock);
	if (fdb_find(sw, mac) || sw->fdb_count >= OPTINC_FDB_MAX)
		goto out_unlock;
	e = kmalloc(sizeof(*e), GFP_ATOMIC);
	if (!e)
		goto out_unlock;
	ether_addr_copy(e->mac, mac);
	e->port = port;
	e->seen = jiffies;
	hlist_add_head_rcu(&e->node, fdb_bucket(sw, mac));
	sw->fdb_count++;
out_unlock:
	spin_unlock(&sw->fdb_lock);
}

/* Remove entries of @port (all entries when NULL), or aged ones. */
static void fdb_prune(struct optinc_kswitch *sw, struct optinc_kport *port,
		      bool aged)
{
	struct optinc_fdb_entry *e;
	struct hlist_node *tmp;
	unsigned int i;

	spin_lock_bh(&sw->fdb_lock);
	for (i = 0; i < ARRAY_SIZE(sw->fdb); i++) {
		hlist_for_each_entry_safe(e, tmp, &sw->fdb[i], node) {
			if (aged ? !time_after(jiffies, e->seen + OPTINC_FDB_AGE) :
			    port && e->port != port)
				continue;
			hlist_del_rcu(&e->node);
			kfree_rcu(e, rcu);
			sw->fdb_count--;
		}
	}
	spin_unlock_bh(&sw->fdb_lock);
}

/*
 * Forget @port's addresses (every address when @port is NULL). The caller
 * waits for readers (synchronize_net()) before freeing the port.
 */
void optinc_fdb_flush(struct optinc_kswitch *sw, struct optinc_kport *port)
{
	fdb_prune(sw, port, false);
}

static void fdb_gc(struct work_struct *work)
{
	struct optinc_kswitch *sw = container_of(to_delayed_work(work),
						 struct optinc_kswitch, fdb_gc);

	fdb_prune(sw, NULL, true);
	schedule_delayed_work(&sw->fdb_gc, FDB_GC_PERIOD);
}

/* An empty FDB for a new switch, and its ageing work. */
void optinc_fdb_init(struct optinc_kswitch *sw)
{
	unsigned int i;

	spin_lock_init(&sw->fdb_lock);
	for (i = 0; i < ARRAY_SIZE(sw->fdb); i++)
		INIT_HLIST_HEAD(&sw->fdb[i]);
	INIT_DELAYED_WORK(&sw->fdb_gc, fdb_gc);
	schedule_delayed_work(&sw->fdb_gc, FDB_GC_PERIOD);
}
