// SPDX-License-Identifier: BSD-3-Clause
/*
 * The L2 learning table: source MAC -> port, with port security's pins
 * (forwarding by it is in l2_fwd.c).
 *
 * Open addressing with a bounded probe window. Entries are never emptied,
 * only aged (an entry not refreshed for L2_AGE_S is treated as absent and
 * may be reused), so a key never sits behind an empty slot and lookups
 * stop at the first empty one. Only worker 0 (the main lcore) touches the
 * table; telemetry reads just the count. Another worker's jobs pin and
 * unpin their members' MACs through a ring to worker 0, which applies
 * them between two poll rounds (optinc_l2_take_requests()).
 *
 * Port security: the MAC of every bound job member is pinned to its bound
 * port (optinc_l2_pin(), one pin per binding, counted per (MAC, port) in
 * l2_pins). A pinned entry never ages, is never reused for another MAC and
 * is never moved by learning: a frame with that source MAC from a port it
 * is not pinned to is a spoof (lib/core/bind.c). The entry forwards to the
 * port of the newest pin; when that pin goes, to another pinned port.
 */
#include <errno.h>
#include <stdio.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include "optincd.h"

#define L2_SIZE		4096		/* power of two */
#define L2_PROBES	16
#define L2_AGE_S	300
#define L2_REFRESH_S	1		/* rewrite the timestamp at most this often */
#define L2_PINS		16384		/* >= OPTINC_MAX_JOBS * OPTINC_MAX_MEMBERS */
#define L2_PIN_PROBES	32
#define L2_ANY_PORT	(-1)
#define L2_REQ_RING	1024		/* pins in flight from one worker */

struct l2_entry {
	struct rte_ether_addr mac;
	uint16_t port;
	uint16_t pins;			/* bindings of this MAC; 0: learned only */
	uint64_t seen;			/* TSC of the last frame; 0: never used */
};

/* Bindings of one MAC to one port; count 0: a free slot. */
struct l2_pin {
	struct rte_ether_addr mac;
	uint16_t port;
	uint16_t count;
};

/* A pin (or unpin) of a member of another worker's job, for worker 0. */
struct l2_req {
	struct rte_ether_addr mac;
	uint16_t port;
	uint8_t pin;			/* 1: pin, 0: unpin */
	uint8_t pad[7];			/* ring elements are multiples of 4 bytes */
};

static struct l2_entry l2_table[L2_SIZE];
static struct l2_pin l2_pins[L2_PINS];
static uint64_t l2_age_tsc, l2_refresh_tsc;

void optinc_l2_init(void)
{
	memset(l2_table, 0, sizeof(l2_table));
	memset(l2_pins, 0, sizeof(l2_pins));
	l2_age_tsc = L2_AGE_S * rte_get_tsc_hz();
	l2_refresh_tsc = L2_REFRESH_S * rte_get_tsc_hz();
}

static uint32_t l2_hash(const struct rte_ether_addr *mac)
{
	const uint8_t *b = mac->addr_bytes;
	uint32_t lo = (uint32_t)b[2] << 24 | (uint32_t)b[3] << 16 |
		      (uint32_t)b[4] << 8 | b[5];

	return ((lo ^ ((uint32_t)b[0] << 8 | b[1]) * 0x9e3779b1u) *
		0x85ebca6bu) >> 20;
}

/* The pin of @mac on @port (L2_ANY_PORT: on any), or NULL; *@free_p a free slot. */
static struct l2_pin *l2_pin_get(const struct rte_ether_addr *mac, int port,
				 struct l2_pin **free_p)
{
	uint32_t h = l2_hash(mac) << 1, i;
	struct l2_pin *p;

	if (free_p)
		*free_p = NULL;
	for (i = 0; i < L2_PIN_PROBES; i++) {
		p = &l2_pins[(h + i) & (L2_PINS - 1)];
		if (!p->count) {
			if (free_p && !*free_p)
				*free_p = p;
			continue;
		}
		if (rte_is_same_ether_addr(&p->mac, mac) &&
		    (port == L2_ANY_PORT || p->port == port))
			return p;
	}
	return NULL;
}

static void l2_touch(struct l2_entry *e, uint64_t now)
{
	__atomic_store_n(&e->seen, now, __ATOMIC_RELAXED);
}

static bool l2_fresh(const struct l2_entry *e, uint64_t now)
{
	return e->pins || (e->seen && now - e->seen < l2_age_tsc);
}

/*
 * @mac's entry, or NULL with *@slot set to where a new one may go (NULL
 * when every slot of the probe window is pinned).
 */
static struct l2_entry *l2_find(const struct rte_ether_addr *mac,
				uint64_t now, struct l2_entry **slot)
{
	uint32_t h = l2_hash(mac), i;
	struct l2_entry *e, *free_e = NULL, *oldest = NULL;

	for (i = 0; i < L2_PROBES; i++) {
		e = &l2_table[(h + i) & (L2_SIZE - 1)];
		if (e->seen && rte_is_same_ether_addr(&e->mac, mac))
			return e;
		if (e->pins)
			continue;
		if (!free_e && !l2_fresh(e, now))
			free_e = e;
		if (!oldest || e->seen < oldest->seen)
			oldest = e;
		if (!e->seen)
			break;
	}
	*slot = free_e ? free_e : oldest;
	return NULL;
}

/**
 * optinc_l2_learn() - a frame from @mac came in on @port
 * @mac:  its source address (unicast)
 * @port: where it came in
 * @now:  TSC of this poll round
 *
 * Return: 0, or -EPERM when @mac is pinned to another port (a spoof: the
 * table keeps its port and the caller drops the frame).
 */
int optinc_l2_learn(const struct rte_ether_addr *mac, uint16_t port,
		    uint64_t now)
{
	struct l2_entry *e, *slot = NULL;

	e = l2_find(mac, now, &slot);
	if (e && e->pins && e->port != port) {
		/* pinned: never moved; from another of its pinned ports is fine */
		if (optinc_bind_l2_spoof(1, l2_pin_get(mac, port, NULL) != NULL))
			return -EPERM;
		return 0;
	}
	if (e) {
		if (e->port != port) {
			OPTINC_STAT_INC(optinc_sw()->fdb_moved);
			e->port = port;
			l2_touch(e, now);
		} else if (now - e->seen > l2_refresh_tsc) {
			l2_touch(e, now);
		}
		return 0;
	}
	if (!slot)
		return 0;
	slot->mac = *mac;
	slot->port = port;
	l2_touch(slot, now);
	OPTINC_STAT_INC(optinc_sw()->fdb_learned);
	return 0;
}

/**
 * l2_pin_here() - a job member with @mac was bound to @port
 * @mac:  the member's MAC
 * @port: its bound port; an entry pinned elsewhere moves here (the member
 *        moved, optinc_bind_join() said so)
 * @now:  TSC of this poll round
 *
 * Return: 0, or -ENOSPC when the probe window has no slot that is not
 * pinned (counted as fdb_pin_full; results still go to the bound port).
 */
static int l2_pin_here(const struct rte_ether_addr *mac, uint16_t port,
		       uint64_t now)
{
	struct l2_entry *e, *slot = NULL;
	struct l2_pin *p, *free_p;

	e = l2_find(mac, now, &slot);
	p = l2_pin_get(mac, port, &free_p);
	if ((!e && !slot) || (!p && !free_p)) {
		OPTINC_STAT_INC(optinc_sw()->fdb_pin_full);
		return -ENOSPC;
	}
	if (!p) {
		p = free_p;
		p->mac = *mac;
		p->port = port;
	}
	p->count++;
	if (!e) {
		e = slot;
		e->mac = *mac;
		e->pins = 0;
		OPTINC_STAT_INC(optinc_sw()->fdb_learned);
	} else if (e->port != port) {
		OPTINC_STAT_INC(optinc_sw()->fdb_moved);
	}
	e->port = port;
	e->pins++;
	l2_touch(e, now);
	return 0;
}

/*
 * One binding of @mac to @port is gone. The entry forwards to another of
 * its pinned ports if it has one, and ages normally once none is left.
 */
static void l2_unpin_here(const struct rte_ether_addr *mac, uint16_t port,
			  uint64_t now)
{
	struct l2_pin *p = l2_pin_get(mac, port, NULL), *other;
	struct l2_entry *e, *slot;

	if (!p)
		return;		/* never pinned (its slots were full) */
	p->count--;
	e = l2_find(mac, now, &slot);
	if (!e || !e->pins)
		return;
	e->pins--;
	l2_touch(e, now);
	if (e->pins && e->port == port && !p->count) {
		other = l2_pin_get(mac, L2_ANY_PORT, NULL);
		if (other)
			e->port = other->port;
	}
}

/* Another worker's pin: to worker 0's ring; lost (counted) when it is full. */
static int l2_post(const struct rte_ether_addr *mac, uint16_t port, bool pin)
{
	struct l2_req r = { .mac = *mac, .port = port, .pin = pin };

	if (unlikely(rte_ring_enqueue_elem(optinc_self()->l2_req, &r,
					   sizeof(r)))) {
		OPTINC_STAT_INC(optinc_sw()->fdb_pin_full);
		return -ENOSPC;
	}
	return 0;
}

/* A member with @mac was bound to @port (l2_pin_here()); any worker. */
int optinc_l2_pin(const struct rte_ether_addr *mac, uint16_t port,
		  uint64_t now)
{
	if (optinc_self()->idx)
		return l2_post(mac, port, true);
	return l2_pin_here(mac, port, now);
}

/* One binding of @mac to @port is gone (l2_unpin_here()); any worker. */
void optinc_l2_unpin(const struct rte_ether_addr *mac, uint16_t port,
		     uint64_t now)
{
	if (optinc_self()->idx)
		l2_post(mac, port, false);
	else
		l2_unpin_here(mac, port, now);
}

/* Worker 0, between poll rounds: the other workers' pins, in their order. */
void optinc_l2_take_requests(uint64_t now)
{
	struct l2_req r[OPTINC_BURST];
	unsigned int w, i, n;

	for (w = 1; w < optinc_nb_workers; w++) {
		n = rte_ring_dequeue_burst_elem(optinc_workers[w].l2_req, r,
						sizeof(r[0]), OPTINC_BURST, NULL);
		for (i = 0; i < n; i++) {
			if (r[i].pin)
				l2_pin_here(&r[i].mac, r[i].port, now);
			else
				l2_unpin_here(&r[i].mac, r[i].port, now);
		}
	}
}

int optinc_l2_rings(void)
{
	char name[RTE_RING_NAMESIZE];
	unsigned int w;

	for (w = 1; w < optinc_nb_workers; w++) {
		snprintf(name, sizeof(name), "optinc_l2req%u", w);
		optinc_workers[w].l2_req = rte_ring_create_elem(name,
				sizeof(struct l2_req), L2_REQ_RING, rte_socket_id(),
				RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (!optinc_workers[w].l2_req) {
			OPTINC_LOG(ERR, "cannot create ring %s: %s", name,
				   rte_strerror(rte_errno));
			return -rte_errno;
		}
	}
	return 0;
}

void optinc_l2_rings_free(void)
{
	unsigned int w;

	for (w = 1; optinc_workers && w < optinc_nb_workers; w++) {
		rte_ring_free(optinc_workers[w].l2_req);
		optinc_workers[w].l2_req = NULL;
	}
}

/*
 * The port @mac was last seen on; -ENOENT when unknown or aged out, and
 * on workers other than 0, which have no table (their callers use a
 * member's bound port, which every member that was answered has).
 */
int optinc_l2_lookup(const struct rte_ether_addr *mac, uint64_t now,
		     uint16_t *port)
{
	uint32_t h = l2_hash(mac), i;
	const struct l2_entry *e;

	if (optinc_self()->idx)
		return -ENOENT;
	for (i = 0; i < L2_PROBES; i++) {
		e = &l2_table[(h + i) & (L2_SIZE - 1)];
		if (!e->seen)
			return -ENOENT;
		if (rte_is_same_ether_addr(&e->mac, mac)) {
			if (!l2_fresh(e, now))
				return -ENOENT;
			*port = e->port;
			return 0;
		}
	}
	return -ENOENT;
}

/* Entries not aged out; read by telemetry while the lcore learns. */
unsigned int optinc_l2_count(uint64_t now)
{
	unsigned int i, n = 0;
	uint64_t seen;

	for (i = 0; i < L2_SIZE; i++) {
		seen = __atomic_load_n(&l2_table[i].seen, __ATOMIC_RELAXED);
		if (__atomic_load_n(&l2_table[i].pins, __ATOMIC_RELAXED) ||
		    (seen && now - seen < l2_age_tsc))
			n++;
	}
	return n;
}

unsigned int optinc_l2_capacity(void)
{
	return L2_SIZE;
}
