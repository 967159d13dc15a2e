// SPDX-License-Identifier: GPL-2.0
/*
 * optinc.ko: frames leaving the switch. Frames it forwards go out of one
 * port or are flooded (clones); frames it builds (results, acks) go out
 * of the port the switch's rules chose, or where the FDB says. A message's
 * answers are built under its job's lock into a queue and sent after the
 * lock is dropped (agg.c), so no device is entered with a job locked.
 */
#include <linux/etherdevice.h>
#include <linux/skbuff.h>
#include "optinc_kmod.h"

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

/* Send a copy of @skb to every port but @in (NULL: all); consumes @skb. */
void optinc_dp_flood(struct optinc_kswitch *sw, struct optinc_kport *in,
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
static void tx_send_built(struct optinc_kswitch *sw, struct sk_buff *skb)
{
	struct optinc_kport *out = optinc_fdb_lookup(sw, eth_hdr(skb)->h_dest);

	if (out)
		optinc_dp_xmit(out, skb);
	else
		optinc_dp_flood(sw, NULL, skb);
}

/* Send what a message's answers queued on @q, each to its port. */
void optinc_tx_queue(struct optinc_kswitch *sw, struct sk_buff_head *q)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q))) {
		if (OPTINC_TX_OUT(skb))
			optinc_dp_xmit(OPTINC_TX_OUT(skb), skb);
		else
			tx_send_built(sw, skb);
	}
}

/* An empty frame of @len bytes for the switch to build, going out of @out. */
struct sk_buff *optinc_tx_alloc(u32 len, struct optinc_kport *out)
{
	struct sk_buff *skb = alloc_skb(NET_SKB_PAD + len, GFP_ATOMIC);

	if (!skb)
		return NULL;
	skb_reserve(skb, NET_SKB_PAD);
	skb_put(skb, len);
	skb_reset_mac_header(skb);
	skb_set_network_header(skb, ETH_HLEN);
	skb->protocol = htons(ETH_P_IP);
	OPTINC_TX_OUT(skb) = out;
	return skb;
}
