// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Port security, shared by optincd and optinc.ko: a member's MAC, IPv4
 * address, UDP port and switch port are bound when its JOIN is accepted.
 * Frames of a bound member from another port or MAC are dropped even with
 * the job's token; a bound MAC seen on another port is a spoof and is not
 * learned; a JOIN with the token from a new port moves the member.
 */
#include <optinc/bind.h>
#include "compat.h"

void optinc_bind_init(struct optinc_bind *b)
{
	memset(b, 0, sizeof(*b));
}

static int bind_same_mac(const struct optinc_endpoint *a,
			 const struct optinc_endpoint *b)
{
	return !memcmp(a->mac, b->mac, sizeof(a->mac));
}

static int bind_has(const struct optinc_bind *b, __u16 rank)
{
	return rank < OPTINC_MAX_MEMBERS && (b->bound >> rank & 1);
}

/*
 * A frame whose source MAC is pinned to another port may only be the
 * member that owns that MAC moving: its JOIN, with the job's token, for
 * the rank whose binding holds that MAC. Anything else is a spoof, so one
 * tenant cannot move another's MAC through a job of its own.
 */
static enum optinc_bind_verdict bind_spoofed(const struct optinc_bind *b,
					     const struct optinc_job *job,
					     const struct optinc_msg *m,
					     const struct optinc_endpoint *src)
{
	if (m->type == OPTINC_T_JOIN && m->token == job->token &&
	    m->rank < job->size && bind_has(b, m->rank) &&
	    bind_same_mac(&b->ep[m->rank], src))
		return OPTINC_BIND_PASS;
	return OPTINC_BIND_SPOOF;
}

/**
 * optinc_bind_rx() - may a job's frame go on to the slot state machine?
 * @b:       the job's bindings
 * @job:     the job the frame names
 * @m:       the frame, parsed by optinc_msg_parse()
 * @src:     its source MAC, IPv4 address and UDP port
 * @in_port: the switch port it came in on
 * @spoofed: its source MAC is pinned to another port (the datapath's L2
 *           table said so, optinc_bind_l2_spoof())
 *
 * A DATA frame of a bound rank must come from the rank's bound MAC and
 * port, whatever its token; its IP address and UDP port are checked by
 * optinc_job_rx() (not_member). A JOIN goes on: with the token from a new
 * port it rebinds the rank once accepted (optinc_bind_join()), without it
 * optinc_job_rx() drops it as bad_token.
 *
 * Return: OPTINC_BIND_PASS, or why to drop the frame.
 */
enum optinc_bind_verdict optinc_bind_rx(const struct optinc_bind *b,
					const struct optinc_job *job,
					const struct optinc_msg *m,
					const struct optinc_endpoint *src,
					__u32 in_port, int spoofed)
{
	if (spoofed)
		return bind_spoofed(b, job, m, src);
	if (m->type != OPTINC_T_JOIN && bind_has(b, m->rank) &&
	    (b->port[m->rank] != in_port || !bind_same_mac(&b->ep[m->rank], src)))
		return OPTINC_BIND_WRONG_PORT;
	return OPTINC_BIND_PASS;
}

/**
 * optinc_bind_join() - bind a rank whose JOIN was accepted
 * @b:        the job's bindings
 * @rank:     the rank (optinc_job_rx() said OPTINC_V_JOIN_ACK: < size)
 * @src:      the JOIN's source MAC, IPv4 address and UDP port
 * @in_port:  the switch port it came in on
 * @old_ep:   set to the previous binding for OPTINC_BIND_MOVED
 * @old_port: likewise
 *
 * A new IP address or UDP port on the same MAC and port (a restarted
 * process) is taken silently; another MAC or port is a move, which the
 * datapath logs and counts, and for which it moves the MAC's pin.
 *
 * Return: what changed.
 */
enum optinc_bind_change optinc_bind_join(struct optinc_bind *b, __u16 rank,
					 const struct optinc_endpoint *src,
					 __u32 in_port,
					 struct optinc_endpoint *old_ep,
					 __u32 *old_port)
{
	enum optinc_bind_change c = OPTINC_BIND_SAME;

	if (rank >= OPTINC_MAX_MEMBERS)
		return OPTINC_BIND_SAME;
	if (!bind_has(b, rank)) {
		c = OPTINC_BIND_NEW;
	} else if (b->port[rank] != in_port ||
		   !bind_same_mac(&b->ep[rank], src)) {
		*old_ep = b->ep[rank];
		*old_port = b->port[rank];
		c = OPTINC_BIND_MOVED;
	}
	b->ep[rank] = *src;
	b->port[rank] = in_port;
	b->bound |= 1ULL << rank;
	return c;
}

/**
 * optinc_bind_port() - the port a rank's results and acks go out of
 * @b:    the job's bindings
 * @rank: the rank
 * @port: set to its bound port
 *
 * Return: 0, or -ENOENT when the rank was never bound.
 */
int optinc_bind_port(const struct optinc_bind *b, __u16 rank, __u32 *port)
{
	if (!bind_has(b, rank))
		return -ENOENT;
	*port = b->port[rank];
	return 0;
}

/*
 * An ARP frame received on a port that claims the switch's own address
 * (a reply, a gratuitous announcement, a request from it) can only come
 * from a server pretending to be the switch: it is dropped as a spoof.
 */
int optinc_bind_arp_ok(__be32 sender_ip, const struct optinc_endpoint *sw)
{
	return sender_ip != sw->ip;
}
