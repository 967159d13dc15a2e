/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * Port security (lib/core/bind.c): what a job binds when a member's JOIN
 * is accepted, when a frame comes from the wrong port, and when a member
 * is rebound. The rule is here once; the datapaths (optincd, optinc.ko)
 * do the I/O: which port a frame came in on, sending to the bound port,
 * and pinning bound MACs in their L2 tables. Documentation/reliability.md,
 * "Membership and isolation".
 */
#ifndef OPTINC_BIND_H
#define OPTINC_BIND_H

#include "core.h"

/*
 * A job's bindings, one per rank: the member's MAC, IPv4 address and UDP
 * port (@ep) and the switch port its JOIN came in on (@port: a datapath's
 * own port id, a DPDK port id or an ifindex). Kept apart from the slot
 * state machine's members: a new generation of the job (optinc_job_reset())
 * forgets the members, not the bindings, so a bound MAC stays pinned to its
 * port until the member really moves.
 */
struct optinc_bind {
	__u64	bound;				/* ranks with a binding */
	__u32	port[OPTINC_MAX_MEMBERS];
	struct optinc_endpoint ep[OPTINC_MAX_MEMBERS];
};

/* What a datapath does with a frame after optinc_bind_rx(). */
enum optinc_bind_verdict {
	OPTINC_BIND_PASS = 0,	/* go on to optinc_job_rx() */
	OPTINC_BIND_SPOOF,	/* a bound MAC on another port: drop, count on the port */
	OPTINC_BIND_WRONG_PORT,	/* a bound member's frame not from its MAC and port */
};

/* What an accepted JOIN did to a rank's binding (optinc_bind_join()). */
enum optinc_bind_change {
	OPTINC_BIND_SAME = 0,	/* nothing, or the IP/UDP port on the same port */
	OPTINC_BIND_NEW,	/* first binding of the rank: pin ep.mac on port */
	OPTINC_BIND_MOVED,	/* another MAC or port: unpin the old, pin the new */
};

void optinc_bind_init(struct optinc_bind *b);
enum optinc_bind_verdict optinc_bind_rx(const struct optinc_bind *b,
					const struct optinc_job *job,
					const struct optinc_msg *m,
					const struct optinc_endpoint *src,
					__u32 in_port, int spoofed);
enum optinc_bind_change optinc_bind_join(struct optinc_bind *b, __u16 rank,
					 const struct optinc_endpoint *src,
					 __u32 in_port,
					 struct optinc_endpoint *old_ep,
					 __u32 *old_port);
int optinc_bind_port(const struct optinc_bind *b, __u16 rank, __u32 *port);
int optinc_bind_arp_ok(__be32 sender_ip, const struct optinc_endpoint *sw);

/*
 * The L2 rule: a frame whose source MAC is pinned (bound by some member
 * of some job) but not to the port it came in on is a spoof. The L2 table
 * neither learns nor moves it. A MAC may be pinned to several ports (one
 * member moved in one job while its other jobs still bind the old port):
 * the datapath says whether one of them is @pinned_here.
 */
static inline int optinc_bind_l2_spoof(int pinned, int pinned_here)
{
	return pinned && !pinned_here;
}

#endif /* OPTINC_BIND_H */
