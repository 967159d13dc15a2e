// SPDX-License-Identifier: GPL-2.0
/*
 * optinc.ko: the datapath. Every frame a member port receives comes here
 * (rx_handler, softirq, RCU): OptINC frames to the switch's address and
 * port go through the core's parser and slot state machine, ARP requests
 * and pings of the switch are answered (host.c), everything else is
 * switched at L2. Port security (lib/core/bind.c): a frame whose source
 * MAC is bound to another port is dropped as a spoof, unless it is that
 * member's JOIN with the token (a move); a bound member's frames must come
 * from its port; results and acks go out of the member's bound port.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/rculist.h>
#include <linux/skbuff.h>
#include "optinc_kmod.h"

/* Enough for Ethernet, an IPv4 header with options and UDP. */
#define DP_HDR_PULL	(ETH_HLEN + 60 + 8)

/* The port a frame the switch built goes out of; NULL: where the FDB says. */
#define DP_OUT(skb)	(*(struct optinc_kport **)(skb)->cb)

/* dp_job(): a port-security drop, counted already. */
#define DP_BIND_DROP	(-1)

/* Send @skb (data at the Ethernet header) out of @port; consumes it. */
void optinc_dp_xmit(struct optinc_kport *port, struct sk_buff *skb)
{
	unsigned int len = skb->len;
	int rc;

	skb->dev = port->dev;
	if (unlikely(!is_skb_forwardable(port->dev, skb))) {
		optinc_count(port->stats, OPTINC_STATS_A_TX_ERRORS, 1);
		kfree_skb(skb);
		return;
	}
	/* net_xmit_eval() evaluates its argument twice */
	rc = dev_queue_xmit(skb);
	if (net_xmit_eval(rc)) {
		optinc_count(port->stats, OPTINC_STATS_A_TX_ERRORS, 1);
		return;
	}
	optinc_count(port->stats, OPTINC_STATS_A_TX_FRAMES, 1);
	optinc_count(port->stats, OPTINC_STATS_A_TX_BYTES, len);
}

/* Send a copy of @skb to every port but @in; consumes @skb. */
static void dp_flood(struct optinc_kswitch *sw, struct optinc_kport *in,
		     struct sk_buff *skb)
{
	struct optinc_kport *port;
	struct sk_buff *c;

	list_for_each_entry_rcu(port, &sw->ports, node) {
		if (port == in)
			continue;
		c = skb_clone(skb, GFP_ATOMIC);
		if (!c) {
			optinc_count(port->stats, OPTINC_STATS_A_TX_ERRORS, 1);
			continue;
		}
		optinc_dp_xmit(port, c);
	}
	consume_skb(skb);
}

/* A frame the switch built: to its destination's port, or everywhere. */
static void dp_send_built(struct optinc_kswitch *sw, struct sk_buff *skb)
{
	struct optinc_kport *out = optinc_fdb_lookup(sw, eth_hdr(skb)->h_dest);

	if (out)
		optinc_dp_xmit(out, skb);
	else
		dp_flood(sw, NULL, skb);
}

static void dp_send_queue(struct optinc_kswitch *sw, struct sk_buff_head *q)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q))) {
		if (DP_OUT(skb))
			optinc_dp_xmit(DP_OUT(skb), skb);
		else
			dp_send_built(sw, skb);
	}
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

/*
 * Where @rank's results and acks go: its bound port (*@out), NULL for a
 * rank never bound (the FDB then), or -ENODEV when the bound port was
 * removed: never flooded, the member rebinds with its next JOIN.
 */
static int dp_member_out(struct optinc_kswitch *sw, struct optinc_kjob *job,
			 u16 rank, struct optinc_kport **out)
{
	u32 ifindex;

	*out = NULL;
	if (optinc_bind_port(&job->bind, rank, &ifindex))
		return 0;
	*out = optinc_port_by_ifindex(sw, ifindex);
	return *out ? 0 : -ENODEV;
}

/* L2 learning switch: known unicast to its port, the rest flooded. */
static void dp_forward(struct optinc_kport *in, struct sk_buff *skb)
{
	struct optinc_kswitch *sw = in->sw;
	const u8 *dst = eth_hdr(skb)->h_dest;
	struct optinc_kport *out = NULL;

	if (unlikely(ether_addr_equal(dst, sw->ep.mac))) {
		/* to the switch, but neither OptINC, ARP nor ping */
		optinc_count_drop(in->stats, OPTINC_DROP_NONE);
		kfree_skb(skb);
		return;
	}
	if (!is_multicast_ether_addr(dst))
		out = optinc_fdb_lookup(sw, dst);
	skb_clear_tstamp(skb);
	if (!out) {
		optinc_count(in->stats, OPTINC_STATS_A_FLOODED, 1);
		dp_flood(sw, in, skb);
	} else if (out == in) {
		consume_skb(skb);
	} else {
		optinc_count(in->stats, OPTINC_STATS_A_FORWARDED, 1);
		optinc_dp_xmit(out, skb);
	}
}

/* An empty frame of @len bytes for the switch to send. */
static struct sk_buff *dp_alloc(u32 len)
{
	struct sk_buff *skb = alloc_skb(NET_SKB_PAD + len, GFP_ATOMIC);

	if (!skb)
		return NULL;
	skb_reserve(skb, NET_SKB_PAD);
	skb_put(skb, len);
	skb_reset_mac_header(skb);
	skb_set_network_header(skb, ETH_HLEN);
	skb->protocol = htons(ETH_P_IP);
	DP_OUT(skb) = NULL;
	return skb;
}

/* A JOIN_ACK or NACK @m to @dst, queued on @q. */
static bool dp_queue_ctrl(struct optinc_kswitch *sw, const struct optinc_msg *m,
			  const struct optinc_endpoint *dst,
			  struct optinc_kport *out, struct sk_buff_head *q)
{
	struct sk_buff *skb = dp_alloc(OPTINC_FRAME_OVERHEAD);

	if (!skb)
		return false;
	if (!optinc_build_ctrl(skb->data, skb->len, m, &sw->ep, dst)) {
		kfree_skb(skb);
		return false;
	}
	DP_OUT(skb) = out;
	__skb_queue_tail(q, skb);
	return true;
}

/* Slot @s's result for @rank, queued on @q. Under the job's lock. */
static bool dp_queue_result(struct optinc_kswitch *sw, struct optinc_kjob *job,
			    const struct optinc_slot *s, u16 rank,
			    struct sk_buff_head *q)
{
	u32 len = OPTINC_FRAME_OVERHEAD + OPTINC_SCALES_LEN(s->nscale) +
		  s->res_len;
	struct optinc_kport *out;
	struct sk_buff *skb;

	if (dp_member_out(sw, job, rank, &out))
		return false;
	skb = dp_alloc(len);
	if (!skb)
		return false;
	DP_OUT(skb) = out;
	if (optinc_build_result(skb->data, len, &job->core, s, &sw->ep,
				rank) != len) {
		kfree_skb(skb);
		return false;
	}
	__skb_queue_tail(q, skb);
	return true;
}

/* Count what was queued (or could not be) for a job. */
static void dp_count_tx(struct optinc_kjob *job, int idx, bool ok)
{
	optinc_count(job->stats, ok ? idx : OPTINC_STATS_A_TX_ERRORS, 1);
}

/* A JOIN_ACK for @r, to its bound port. */
static bool dp_queue_ack(struct optinc_kswitch *sw, struct optinc_kjob *job,
			 u16 r, struct sk_buff_head *q)
{
	struct optinc_kport *out;
	struct optinc_msg reply;

	if (dp_member_out(sw, job, r, &out))
		return false;
	optinc_job_ack(&job->core, r, &reply);
	return dp_queue_ctrl(sw, &reply, &job->core.members[r].ep, out, q);
}

/* The answers to a verdict of the core, under the job's lock. */
static void dp_verdict(struct optinc_kswitch *sw, struct optinc_kjob *job,
		       enum optinc_verdict v, const struct optinc_msg *m,
		       const struct optinc_endpoint *src, struct optinc_kport *in,
		       const struct optinc_slot *s, enum optinc_drop why,
		       struct sk_buff_head *q)
{
	struct optinc_job *cj = &job->core;
	struct optinc_msg reply;
	u16 r;

	switch (v) {
	case OPTINC_V_COMPLETE:
		for (r = 0; r < cj->size; r++)
			dp_count_tx(job, OPTINC_STATS_A_RESULTS,
				    dp_queue_result(sw, job, s, r, q));
		break;
	case OPTINC_V_RESEND:
		dp_count_tx(job, OPTINC_STATS_A_RESULTS,
			    dp_queue_result(sw, job, s, m->rank, q));
		break;
	case OPTINC_V_JOIN_ACK:
		for (r = 0; r < cj->size; r++) {
			if (r != m->rank && !optinc_job_complete(cj))
				continue;
			dp_count_tx(job, OPTINC_STATS_A_JOIN_ACKS,
				    dp_queue_ack(sw, job, r, q));
		}
		break;
	case OPTINC_V_NACK:
		optinc_nack(m, why, &reply);
		dp_count_tx(job, OPTINC_STATS_A_NACKS,
			    dp_queue_ctrl(sw, &reply, src, in, q));
		break;
	default:
		break;
	}
}

/* A port-security drop of a frame from @in (naming @job, if known). */
static void dp_count_bind(struct optinc_kport *in, struct optinc_kjob *job,
			  enum optinc_bind_verdict bv)
{
	int idx = bv == OPTINC_BIND_SPOOF ? OPTINC_STATS_A_SPOOFED :
					    OPTINC_STATS_A_WRONG_PORT;

	optinc_count(in->stats, idx, 1);
	optinc_count_drop(in->stats, OPTINC_DROP_NONE);
	if (job)
		optinc_count(job->stats, idx, 1);
}

/*
 * Bounded abuse: a JOIN, or a frame failing @job's token or membership
 * check (@job may be NULL), past @in's limit? Then it is counted here and
 * dropped without any answer. Under @job's lock when there is a job.
 */
static bool dp_rate_limited(struct optinc_kport *in,
			    const struct optinc_kjob *job,
			    const struct optinc_msg *m,
			    const struct optinc_endpoint *src)
{
	struct optinc_rl_conf c = {
		.interval = READ_ONCE(in->sw->rl_conf.interval),
		.tau = READ_ONCE(in->sw->rl_conf.tau),
	};
	enum optinc_rl_verdict v;

	if (!c.interval)
		return false;
	spin_lock(&in->rl_lock);
	v = optinc_rl_rx(&in->rl, &c, job ? &job->core : NULL, m, src,
			 ktime_get_ns());
	spin_unlock(&in->rl_lock);
	if (likely(v != OPTINC_RL_LIMITED))
		return false;
	optinc_count(in->stats, OPTINC_STATS_A_RATE_LIMITED, 1);
	optinc_count_drop(in->stats, OPTINC_DROP_NONE);
	return true;
}

/* @m's JOIN from @in was accepted: bind the rank there, pin its MAC. */
static void dp_bind(struct optinc_kswitch *sw, struct optinc_kjob *job,
		    const struct optinc_msg *m,
		    const struct optinc_endpoint *src, struct optinc_kport *in)
{
	struct optinc_endpoint old;
	u32 old_if = 0;

	switch (optinc_bind_join(&job->bind, m->rank, src, in->dev->ifindex,
				 &old, &old_if)) {
	case OPTINC_BIND_SAME:
		return;
	case OPTINC_BIND_MOVED:
		optinc_fdb_unpin(sw, old.mac, optinc_port_by_ifindex(sw, old_if));
		optinc_count(job->stats, OPTINC_STATS_A_REBINDS, 1);
		net_info_ratelimited("optinc: %s: job %u: rank %u moved from ifindex %u (%pM) to %s (%pM): rebound\n",
				     sw->name, job->cfg.id, m->rank, old_if,
				     old.mac, in->dev->name, src->mac);
		break;
	case OPTINC_BIND_NEW:
		break;
	}
	if (optinc_fdb_pin(sw, src->mac, in))
		optinc_count(in->stats, OPTINC_STATS_A_TX_ERRORS, 1);
}

/*
 * Run message @m, from @in, through its job. Return: why it was dropped,
 * none, or DP_BIND_DROP (port security or the rate limit; counted here).
 */
static int dp_job(struct optinc_kswitch *sw, struct optinc_kjob *job,
		  struct optinc_kport *in, const struct optinc_msg *m,
		  const struct optinc_endpoint *src, bool spoofed,
		  struct sk_buff_head *q)
{
	enum optinc_drop why = OPTINC_DROP_NONE;
	enum optinc_bind_verdict bv;
	struct optinc_slot *slot;
	enum optinc_verdict v;

	optinc_count(job->stats, m->type == OPTINC_T_JOIN ?
		     OPTINC_STATS_A_JOINS : OPTINC_STATS_A_DATA, 1);
	spin_lock(&job->lock);
	bv = optinc_bind_rx(&job->bind, &job->core, m, src, in->dev->ifindex,
			    spoofed);
	if (unlikely(bv != OPTINC_BIND_PASS)) {
		spin_unlock(&job->lock);
		dp_count_bind(in, job, bv);
		return DP_BIND_DROP;
	}
	if (unlikely(dp_rate_limited(in, job, m, src))) {
		spin_unlock(&job->lock);
		return DP_BIND_DROP;
	}
	v = optinc_job_rx(&job->core, m, src, &why, &slot);
	if (v == OPTINC_V_JOIN_ACK)
		dp_bind(sw, job, m, src, in);
	dp_verdict(sw, job, v, m, src, in, slot, why, q);
	spin_unlock(&job->lock);

	if (v == OPTINC_V_ABSORBED || v == OPTINC_V_COMPLETE)
		optinc_count(job->stats, OPTINC_STATS_A_ABSORBED, 1);
	if (v == OPTINC_V_COMPLETE)
		optinc_count(job->stats, OPTINC_STATS_A_COMPLETED, 1);
	if (v == OPTINC_V_RESEND)
		optinc_count(job->stats, OPTINC_STATS_A_RESENT, 1);
	if (v == OPTINC_V_DROP || v == OPTINC_V_NACK)
		optinc_count_drop(job->stats, why);
	return v == OPTINC_V_DROP || v == OPTINC_V_NACK ? why : OPTINC_DROP_NONE;
}

/*
 * An OptINC message to the switch; consumes @skb. @spoofed: its source MAC
 * is bound to another port; only that member's JOIN may go on (a move).
 */
static void dp_msg(struct optinc_kport *port, struct sk_buff *skb,
		   const struct optinc_l2l4 *l4, bool spoofed)
{
	struct optinc_kswitch *sw = port->sw;
	struct optinc_kjob *job = NULL;
	struct sk_buff_head q;
	struct optinc_msg m;
	int why;

	__skb_queue_head_init(&q);
	why = optinc_msg_parse(skb->data + l4->l4_off, l4->l4_len, &m);
	if (why == OPTINC_DROP_NONE)
		job = xa_load(&sw->jobs, m.job);
	if (unlikely(spoofed) && (!job || m.type != OPTINC_T_JOIN)) {
		dp_count_bind(port, job, OPTINC_BIND_SPOOF);
		kfree_skb(skb);
		return;
	}
	if (why != OPTINC_DROP_NONE)
		goto drop;
	if (job) {
		why = dp_job(sw, job, port, &m, &l4->src, spoofed, &q);
	} else if (unlikely(dp_rate_limited(port, NULL, &m, &l4->src))) {
		why = DP_BIND_DROP;
	} else {
		why = OPTINC_DROP_NO_JOB;
		if (m.type == OPTINC_T_JOIN) {
			struct optinc_msg reply;

			optinc_nack(&m, why, &reply);
			if (!dp_queue_ctrl(sw, &reply, &l4->src, port, &q))
				optinc_count(port->stats,
					     OPTINC_STATS_A_TX_ERRORS, 1);
		}
	}
	dp_send_queue(sw, &q);
	if (why == DP_BIND_DROP) {
		kfree_skb(skb);
		return;
	}
	if (why != OPTINC_DROP_NONE)
		goto drop;
	consume_skb(skb);
	return;
drop:
	optinc_count_drop(port->stats, why);
	kfree_skb(skb);
}

/*
 * An IPv4 frame: to the switch's OptINC address and port? The core's
 * parser needs the frame in one piece, so a non-linear frame it may want
 * is linearised first. Return: true when @skb was consumed.
 */
static bool dp_optinc(struct optinc_kport *port, struct sk_buff *skb,
		      bool spoofed)
{
	struct optinc_kswitch *sw = port->sw;
	u16 udp_port = ntohs(sw->ep.port);
	struct optinc_l2l4 l4;
	int ret;

	if (!pskb_may_pull(skb, min_t(u32, skb->len, DP_HDR_PULL)))
		return false;
	ret = optinc_parse_l2l4(skb->data, skb_headlen(skb), udp_port, &l4);
	if (ret && skb_is_nonlinear(skb)) {
		if (skb_linearize(skb)) {
			optinc_count_drop(port->stats, OPTINC_DROP_NONE);
			kfree_skb(skb);
			return true;
		}
		ret = optinc_parse_l2l4(skb->data, skb->len, udp_port, &l4);
	}
	if (ret < 0) {
		optinc_count(port->stats, OPTINC_STATS_A_OPTINC, 1);
		if (spoofed)
			dp_count_bind(port, NULL, OPTINC_BIND_SPOOF);
		else
			optinc_count_drop(port->stats, OPTINC_DROP_SHORT);
		kfree_skb(skb);
		return true;
	}
	if (!ret || l4.dst.ip != sw->ep.ip)
		return false;
	optinc_count(port->stats, OPTINC_STATS_A_OPTINC, 1);
	dp_msg(port, skb, &l4, spoofed);
	return true;
}

/**
 * optinc_dp_handle_frame() - rx_handler of member ports
 * @pskb: the received frame
 *
 * Called with rcu_read_lock held and bottom halves disabled.
 *
 * Return: RX_HANDLER_CONSUMED, or RX_HANDLER_PASS for looped-back frames.
 */
rx_handler_result_t optinc_dp_handle_frame(struct sk_buff **pskb)
{
	struct optinc_kport *port;
	struct sk_buff *skb = *pskb;
	bool spoofed;

	if (unlikely(skb->pkt_type == PACKET_LOOPBACK))
		return RX_HANDLER_PASS;
	port = rcu_dereference(skb->dev->rx_handler_data);
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return RX_HANDLER_CONSUMED;
	skb_push(skb, skb->data - skb_mac_header(skb));
	optinc_count(port->stats, OPTINC_STATS_A_RX_FRAMES, 1);
	optinc_count(port->stats, OPTINC_STATS_A_RX_BYTES, skb->len);

	if (unlikely(!is_valid_ether_addr(eth_hdr(skb)->h_source))) {
		optinc_count_drop(port->stats, OPTINC_DROP_NONE);
		kfree_skb(skb);
		return RX_HANDLER_CONSUMED;
	}
	spoofed = optinc_fdb_learn(port->sw, eth_hdr(skb)->h_source, port) == -EPERM;
	if (skb->protocol == htons(ETH_P_ARP) &&
	    (optinc_host_arp_spoof(port, skb) ||
	     (!spoofed && optinc_host_arp(port, skb))))
		return RX_HANDLER_CONSUMED;
	if (skb->protocol == htons(ETH_P_IP) && !skb_vlan_tag_present(skb) &&
	    (dp_optinc(port, skb, spoofed) ||
	     (!spoofed && optinc_host_icmp(port, skb))))
		return RX_HANDLER_CONSUMED;
	if (unlikely(spoofed)) {
		dp_count_bind(port, NULL, OPTINC_BIND_SPOOF);
		kfree_skb(skb);
		return RX_HANDLER_CONSUMED;
	}
	dp_forward(port, skb);
	return RX_HANDLER_CONSUMED;
}
