// SPDX-License-Identifier: GPL-2.0
/*
 * optinc.ko: the datapath. Every frame a member port receives comes here
 * (rx_handler, softirq, RCU): OptINC frames to the switch's address and
 * port go through the switch's rules (agg.c, lib/core/switch.c), ARP
 * requests and pings of the switch are answered (host.c), everything else
 * is switched at L2. A frame whose source MAC is pinned to another port
 * (port security, lib/core/bind.c) goes no further than the rules, which
 * let only that member's JOIN with the token through (a move).
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/rculist.h>
#include <linux/skbuff.h>
#include "optinc_kmod.h"

/* Enough for Ethernet, an IPv4 header with options and UDP. */
#define DP_HDR_PULL	(ETH_HLEN + 60 + 8)

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
		optinc_dp_flood(sw, in, skb);
	} else if (out == in) {
		consume_skb(skb);
	} else {
		optinc_count(in->stats, OPTINC_STATS_A_FORWARDED, 1);
		optinc_dp_xmit(out, skb);
	}
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
			optinc_agg_count_bind(port, NULL, OPTINC_STATS_A_SPOOFED);
		else
			optinc_count_drop(port->stats, OPTINC_DROP_SHORT);
		kfree_skb(skb);
		return true;
	}
	if (!ret || l4.dst.ip != sw->ep.ip)
		return false;
	optinc_count(port->stats, OPTINC_STATS_A_OPTINC, 1);
	optinc_agg_msg(port, skb, &l4, spoofed);
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
	     (!spoofed && (optinc_host_arp(port, skb) ||
			   optinc_host_arp_reply(port, skb)))))
		return RX_HANDLER_CONSUMED;
	if (skb->protocol == htons(ETH_P_IP) && !skb_vlan_tag_present(skb) &&
	    (dp_optinc(port, skb, spoofed) ||
	     (!spoofed && optinc_host_icmp(port, skb))))
		return RX_HANDLER_CONSUMED;
	if (unlikely(spoofed)) {
		optinc_agg_count_bind(port, NULL, OPTINC_STATS_A_SPOOFED);
		kfree_skb(skb);
		return RX_HANDLER_CONSUMED;
	}
	dp_forward(port, skb);
	return RX_HANDLER_CONSUMED;
}
