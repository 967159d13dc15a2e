// SPDX-License-Identifier: GPL-2.0
/*
 * optinc.ko: the switch as a host on its members' network. It answers ARP
 * requests for its address (ranks find it without static neighbours) and
 * pings of it, like optincd, and asks where a first level's upper switch
 * is (its reply is caught here); it has no other host stack.
 */
#include <linux/etherdevice.h>
#include <linux/icmp.h>
#include <linux/if_arp.h>
#include <linux/ip.h>
#include <net/arp.h>
#include <net/checksum.h>
#include <net/ip.h>
#include <optinc/switch.h>
#include "optinc_kmod.h"

/*
 * The sender's MAC of an Ethernet/IPv4 ARP frame of opcode @op to the
 * switch's address (its sender and target addresses in @sip, @tip), or NULL.
 */
static const u8 *host_arp_to_us(struct optinc_kport *port, struct sk_buff *skb,
				u16 op, __be32 *sip, __be32 *tip)
{
	const struct arphdr *arp;
	const u8 *sha;

	if (!pskb_may_pull(skb, ETH_HLEN + arp_hdr_len(port->dev)))
		return NULL;
	arp = (const struct arphdr *)(skb->data + ETH_HLEN);
	if (arp->ar_hrd != htons(ARPHRD_ETHER) ||
	    arp->ar_pro != htons(ETH_P_IP) || arp->ar_hln != ETH_ALEN ||
	    arp->ar_pln != 4 || arp->ar_op != htons(op))
		return NULL;
	sha = (const u8 *)(arp + 1);
	memcpy(sip, sha + ETH_ALEN, 4);
	memcpy(tip, sha + 2 * ETH_ALEN + 4, 4);
	return *tip == port->sw->ep.ip ? sha : NULL;
}

/**
 * optinc_host_arp() - answer an ARP request for the switch's address
 * @port: where it came from
 * @skb:  the frame, data at the Ethernet header
 *
 * Return: true when @skb was such a request (and is consumed).
 */
bool optinc_host_arp(struct optinc_kport *port, struct sk_buff *skb)
{
	struct optinc_kswitch *sw = port->sw;
	struct sk_buff *reply;
	__be32 sip, tip;
	const u8 *sha;

	sha = host_arp_to_us(port, skb, ARPOP_REQUEST, &sip, &tip);
	if (!sha)
		return false;
	reply = arp_create(ARPOP_REPLY, ETH_P_ARP, sip, port->dev, tip, sha,
			   sw->ep.mac, sha);
	if (reply) {
		optinc_count(port->stats, OPTINC_STATS_A_ARP_REPLIES, 1);
		optinc_dp_xmit(port, reply);
	} else {
		optinc_count(port->stats, OPTINC_STATS_A_TX_ERRORS, 1);
	}
	consume_skb(skb);
	return true;
}

/**
 * optinc_host_arp_reply() - an upper switch's ARP reply to a first level
 * @port: where it came from
 * @skb:  the frame, data at the Ethernet header
 *
 * Every job whose uplink asked for the sender learns its MAC (under the
 * job's lock, as the state machine runs); frames to it go where the FDB
 * learnt it from this reply on.
 *
 * Return: true when @skb answered one of them (and is consumed).
 */
bool optinc_host_arp_reply(struct optinc_kport *port, struct sk_buff *skb)
{
	struct optinc_kswitch *sw = port->sw;
	struct optinc_kjob *job;
	unsigned long id;
	__be32 sip, tip;
	bool ours = false;
	const u8 *sha;

	if (!READ_ONCE(sw->nuplinks))
		return false;
	sha = host_arp_to_us(port, skb, ARPOP_REPLY, &sip, &tip);
	if (!sha)
		return false;
	xa_for_each(&sw->jobs, id, job) {
		if (!job->core.up)
			continue;
		spin_lock(&job->lock);
		ours |= optinc_up_arp_reply(&job->up, sip, tip, sha);
		spin_unlock(&job->lock);
	}
	if (ours)
		consume_skb(skb);
	return ours;
}

/**
 * optinc_host_arp_request() - an ARP request for a first level's upper switch
 * @port: a port of the switch, whose device builds the Ethernet header
 * @up:   the uplink: the upper switch's address, this switch as its member
 *
 * Broadcast; OPTINC_TX_OUT() is NULL, so tx.c floods it to every port.
 *
 * Return: the frame, data at the Ethernet header, or NULL (no memory).
 */
struct sk_buff *optinc_host_arp_request(struct optinc_kport *port,
					const struct optinc_uplink *up)
{
	struct sk_buff *skb;

	skb = arp_create(ARPOP_REQUEST, ETH_P_ARP, up->sw.ip, port->dev,
			 up->self.ip, NULL, up->self.mac, NULL);
	if (!skb)
		return NULL;
	skb_reset_mac_header(skb);
	OPTINC_TX_OUT(skb) = NULL;
	return skb;
}

/**
 * optinc_host_arp_spoof() - drop ARP that claims the switch's address
 * @port: where it came from
 * @skb:  an ARP frame, data at the Ethernet header
 *
 * Port security: no server answers for the switch (lib/core/bind.c). Any
 * ARP frame whose sender is the switch's IPv4 address is dropped and
 * counted as a spoof on @port.
 *
 * Return: true when @skb was such a frame (and is consumed).
 */
bool optinc_host_arp_spoof(struct optinc_kport *port, struct sk_buff *skb)
{
	const struct arphdr *arp;
	__be32 sip;

	if (!pskb_may_pull(skb, ETH_HLEN + arp_hdr_len(port->dev)))
		return false;
	arp = (const struct arphdr *)(skb->data + ETH_HLEN);
	if (arp->ar_pro != htons(ETH_P_IP) || arp->ar_hln != ETH_ALEN ||
	    arp->ar_pln != 4)
		return false;
	memcpy(&sip, (const u8 *)(arp + 1) + ETH_ALEN, 4);
	if (optinc_bind_arp_ok(sip, &port->sw->ep))
		return false;
	optinc_count(port->stats, OPTINC_STATS_A_SPOOFED, 1);
	optinc_count_drop(port->stats, OPTINC_DROP_NONE);
	kfree_skb(skb);
	return true;
}

/* The IPv4 header of an echo request to the switch, or NULL. */
static struct iphdr *host_echo_request(struct optinc_kswitch *sw,
				       struct sk_buff *skb)
{
	const struct icmphdr *icmp;
	struct iphdr *iph;
	u32 ihl, tot;

	if (!pskb_may_pull(skb, ETH_HLEN + sizeof(*iph)))
		return NULL;
	iph = (struct iphdr *)(skb->data + ETH_HLEN);
	ihl = iph->ihl * 4u;
	tot = ntohs(iph->tot_len);
	if (iph->version != 4 || ihl < sizeof(*iph) ||
	    iph->protocol != IPPROTO_ICMP || iph->daddr != sw->ep.ip ||
	    ip_is_fragment(iph) || tot < ihl + sizeof(*icmp) ||
	    ETH_HLEN + tot > skb->len ||
	    !pskb_may_pull(skb, ETH_HLEN + ihl + sizeof(*icmp)))
		return NULL;
	iph = (struct iphdr *)(skb->data + ETH_HLEN);
	icmp = (const struct icmphdr *)((u8 *)iph + ihl);
	return icmp->type == ICMP_ECHO && icmp->code == 0 ? iph : NULL;
}

/**
 * optinc_host_icmp() - answer a ping of the switch's address
 * @port: where it came from
 * @skb:  an IPv4 frame, data at the Ethernet header
 *
 * The request becomes the reply in place: addresses swapped, type
 * changed, checksums updated.
 *
 * Return: true when @skb was such a request (and is consumed).
 */
bool optinc_host_icmp(struct optinc_kport *port, struct sk_buff *skb)
{
	struct optinc_kswitch *sw = port->sw;
	struct icmphdr *icmp;
	struct ethhdr *eth;
	struct iphdr *iph;

	iph = host_echo_request(sw, skb);
	if (!iph)
		return false;
	if (pskb_trim(skb, ETH_HLEN + ntohs(iph->tot_len)) ||
	    skb_ensure_writable(skb, skb->len)) {
		optinc_count(port->stats, OPTINC_STATS_A_TX_ERRORS, 1);
		kfree_skb(skb);
		return true;
	}
	eth = (struct ethhdr *)skb->data;
	iph = (struct iphdr *)(skb->data + ETH_HLEN);
	icmp = (struct icmphdr *)((u8 *)iph + iph->ihl * 4);
	ether_addr_copy(eth->h_dest, eth->h_source);
	ether_addr_copy(eth->h_source, sw->ep.mac);
	iph->daddr = iph->saddr;
	iph->saddr = sw->ep.ip;
	iph->ttl = 64;
	ip_send_check(iph);
	icmp->type = ICMP_ECHOREPLY;
	csum_replace2(&icmp->checksum, htons(ICMP_ECHO << 8),
		      htons(ICMP_ECHOREPLY << 8));
	skb->ip_summed = CHECKSUM_NONE;
	optinc_count(port->stats, OPTINC_STATS_A_ICMP_REPLIES, 1);
	optinc_dp_xmit(port, skb);
	return true;
}
