// SPDX-License-Identifier: GPL-2.0
/*
 * optinc.ko: the learning table of the L2 switch (MAC -> member port), so
 * that traffic between servers keeps flowing and results find their port.
 * Readers run under RCU in the datapath; an entry's port and time are
 * updated in place, entries are added and removed under fdb_lock.
 *
 * Port security: the MAC of every bound job member is pinned to its bound
 * port (optinc_fdb_pin(), one pin per binding, counted per (MAC, port) in
 * sw->fdb_pins under fdb_lock). A pinned entry does not age and is never
 * moved by learning: that MAC on a port it is not pinned to is a spoof
 * (lib/core/bind.c). It forwards to its newest pin's port. A pin is made even when the
 * table holds OPTINC_FDB_MAX entries (there are at most jobs x members).
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
	u32		pins;		/* bindings of this MAC, fdb_lock */
	u8		mac[ETH_ALEN];
};

/* The bindings of one MAC to one port (sw->fdb_pins, by MAC's hash). */
struct optinc_fdb_pin {
	struct hlist_node node;
	struct rcu_head	rcu;
	struct optinc_kport *port;
	u32		count;		/* fdb_lock */
	u8		mac[ETH_ALEN];
};

static u32 fdb_hash(const u8 *mac)
{
	u32 key = get_unaligned((const u32 *)(mac + 2)) ^ mac[0] ^ mac[1] << 8;

	return hash_32(key, OPTINC_FDB_BITS);
}

static struct hlist_head *fdb_bucket(struct optinc_kswitch *sw, const u8 *mac)
{
	return &sw->fdb[fdb_hash(mac)];
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

	if (!e || (!READ_ONCE(e->pins) &&
		   time_after(jiffies, READ_ONCE(e->seen) + OPTINC_FDB_AGE)))
		return NULL;
	return READ_ONCE(e->port);
}

/* The pin of @mac on @port (any port when NULL), or NULL. RCU or fdb_lock. */
static struct optinc_fdb_pin *fdb_pin_find(struct optinc_kswitch *sw,
					   const u8 *mac,
					   const struct optinc_kport *port)
{
	struct optinc_fdb_pin *p;

	hlist_for_each_entry_rcu(p, &sw->fdb_pins[fdb_hash(mac)], node,
				 lockdep_is_held(&sw->fdb_lock))
		if (ether_addr_equal(p->mac, mac) && (!port || p->port == port))
			return p;
	return NULL;
}

/**
 * optinc_fdb_learn() - @mac sent a frame on @port
 * @sw:   the switch
 * @mac:  the frame's source address
 * @port: where it came in
 *
 * Called in the datapath (softirq). A pin moves an entry only under
 * fdb_lock; a frame racing with that may still be learned the old way,
 * which the next frame corrects.
 *
 * Return: 0, or -EPERM when @mac is pinned to another port (a spoof: the
 * entry keeps its port and the caller drops the frame).
 */
int optinc_fdb_learn(struct optinc_kswitch *sw, const u8 *mac,
		     struct optinc_kport *port)
{
	struct optinc_fdb_entry *e = fdb_find(sw, mac);

	if (e) {
		/* pinned: never moved; from another of its pinned ports is fine */
		if (READ_ONCE(e->pins) && READ_ONCE(e->port) != port)
			return optinc_bind_l2_spoof(1, fdb_pin_find(sw, mac, port) !=
						    NULL) ? -EPERM : 0;
		if (READ_ONCE(e->port) != port)
			WRITE_ONCE(e->port, port);
		if (READ_ONCE(e->seen) != jiffies)
			WRITE_ONCE(e->seen, jiffies);
		return 0;
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
	e->pins = 0;
	hlist_add_head_rcu(&e->node, fdb_bucket(sw, mac));
	sw->fdb_count++;
out_unlock:
	spin_unlock(&sw->fdb_lock);
	return 0;
}

/**
 * optinc_fdb_pin() - a job member with @mac was bound to @port
 * @sw:   the switch
 * @mac:  the member's MAC
 * @port: its bound port; the entry forwards there from now on (a member
 *        that moved, optinc_bind_join() said so, takes its MAC along)
 *
 * Datapath (softirq), under the job's lock. Return: 0 or -ENOMEM.
 */
int optinc_fdb_pin(struct optinc_kswitch *sw, const u8 *mac,
		   struct optinc_kport *port)
{
	struct optinc_fdb_entry *e;
	struct optinc_fdb_pin *p;
	int ret = -ENOMEM;

	spin_lock(&sw->fdb_lock);
	e = fdb_find(sw, mac);
	if (!e) {
		e = kmalloc(sizeof(*e), GFP_ATOMIC);
		if (!e)
			goto out_unlock;
		ether_addr_copy(e->mac, mac);
		e->pins = 0;
		e->port = port;
		hlist_add_head_rcu(&e->node, fdb_bucket(sw, mac));
		sw->fdb_count++;
	}
	p = fdb_pin_find(sw, mac, port);
	if (!p) {
		p = kmalloc(sizeof(*p), GFP_ATOMIC);
		if (!p)
			goto out_unlock;
		ether_addr_copy(p->mac, mac);
		p->port = port;
		p->count = 0;
		hlist_add_head_rcu(&p->node, &sw->fdb_pins[fdb_hash(mac)]);
	}
	p->count++;
	WRITE_ONCE(e->port, port);
	WRITE_ONCE(e->seen, jiffies);
	WRITE_ONCE(e->pins, e->pins + 1);
	ret = 0;
out_unlock:
	spin_unlock(&sw->fdb_lock);
	return ret;
}

/* Drop @n counts of pin @p (of entry @e, if any); fdb_lock held. */
static void fdb_pin_put(struct optinc_kswitch *sw, struct optinc_fdb_entry *e,
			struct optinc_fdb_pin *p, u32 n)
{
	struct optinc_kport *port = p->port;
	struct optinc_fdb_pin *other;
	bool gone;

	p->count -= n;
	gone = !p->count;
	if (gone) {
		hlist_del_rcu(&p->node);
		kfree_rcu(p, rcu);
	}
	if (!e)
		return;
	WRITE_ONCE(e->pins, e->pins > n ? e->pins - n : 0);
	WRITE_ONCE(e->seen, jiffies);
	/* the entry forwarded to that port: to another pinned one, if any */
	if (e->pins && e->port == port && gone) {
		other = fdb_pin_find(sw, e->mac, NULL);
		if (other)
			WRITE_ONCE(e->port, other->port);
	}
}

/**
 * optinc_fdb_unpin() - one binding of @mac to @port is gone
 * @sw:   the switch
 * @mac:  the MAC
 * @port: the port it was bound to
 *
 * The entry ages normally once no pin is left.
 */
void optinc_fdb_unpin(struct optinc_kswitch *sw, const u8 *mac,
		      struct optinc_kport *port)
{
	struct optinc_fdb_pin *p;

	spin_lock_bh(&sw->fdb_lock);
	p = fdb_pin_find(sw, mac, port);
	if (p)
		fdb_pin_put(sw, fdb_find(sw, mac), p, 1);
	spin_unlock_bh(&sw->fdb_lock);
}

/* Forget every pin on @port (all pins when NULL); fdb_lock held. */
static void fdb_prune_pins(struct optinc_kswitch *sw, struct optinc_kport *port)
{
	struct optinc_fdb_pin *p;
	struct hlist_node *tmp;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sw->fdb_pins); i++) {
		hlist_for_each_entry_safe(p, tmp, &sw->fdb_pins[i], node) {
			if (port && p->port != port)
				continue;
			fdb_pin_put(sw, fdb_find(sw, p->mac), p, p->count);
		}
	}
}

/* Remove entries of @port (all entries when NULL), or aged ones. */
static void fdb_prune(struct optinc_kswitch *sw, struct optinc_kport *port,
		      bool aged)
{
	struct optinc_fdb_entry *e;
	struct hlist_node *tmp;
	unsigned int i;

	spin_lock_bh(&sw->fdb_lock);
	if (!aged)
		fdb_prune_pins(sw, port);
	for (i = 0; i < ARRAY_SIZE(sw->fdb); i++) {
		hlist_for_each_entry_safe(e, tmp, &sw->fdb[i], node) {
			if (aged ? e->pins ||
				   !time_after(jiffies, e->seen + OPTINC_FDB_AGE) :
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
	for (i = 0; i < ARRAY_SIZE(sw->fdb); i++) {
		INIT_HLIST_HEAD(&sw->fdb[i]);
		INIT_HLIST_HEAD(&sw->fdb_pins[i]);
	}
	INIT_DELAYED_WORK(&sw->fdb_gc, fdb_gc);
	schedule_delayed_work(&sw->fdb_gc, FDB_GC_PERIOD);
}

/**
 * optinc_port_by_ifindex() - the member port of @sw on device @ifindex
 * @sw:      the switch
 * @ifindex: a bound port, as lib/core/bind.c keeps it
 *
 * Under RCU or RTNL. Return: the port, or NULL when it was removed.
 */
struct optinc_kport *optinc_port_by_ifindex(struct optinc_kswitch *sw,
					    u32 ifindex)
{
	struct optinc_kport *port;

	list_for_each_entry_rcu(port, &sw->ports, node, lockdep_rtnl_is_held())
		if (port->dev->ifindex == ifindex)
			return port;
	return NULL;
}
