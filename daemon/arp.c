// SPDX-License-Identifier: BSD-3-Clause
/*
 * ARP: answer requests for the switch's own IPv4 address; drop any ARP
 * from a port that claims that address (port security: no server answers
 * for the switch).
 */
#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include "optincd.h"

static bool arp_for_us(const struct rte_arp_hdr *a, const struct optinc_conf *c)
{
	return a->arp_hardware == RTE_BE16(RTE_ARP_HRD_ETHER) &&
	       a->arp_protocol == RTE_BE16(RTE_ETHER_TYPE_IPV4) &&
	       a->arp_hlen == RTE_ETHER_ADDR_LEN && a->arp_plen == 4 &&
	       a->arp_opcode == RTE_BE16(RTE_ARP_OP_REQUEST) &&
	       a->arp_data.arp_tip == c->sw.ip;
}

/**
 * optinc_arp_input() - answer an ARP request for our address
 * @m:    an untagged frame of EtherType ARP, received on @port
 * @port: where it came from; the reply goes back there
 * @c:    our addresses
 *
 * The request is turned into the reply in place. An ARP frame whose sender
 * is the switch's address is dropped and counted as a spoof on @port.
 *
 * Return: true when @m was consumed, false when it is someone else's.
 */
bool optinc_arp_input(struct rte_mbuf *m, uint16_t port,
		      const struct optinc_conf *c)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *a = (struct rte_arp_hdr *)(eth + 1);
	struct rte_arp_ipv4 *d = &a->arp_data;

	if (rte_pktmbuf_data_len(m) < sizeof(*eth) + sizeof(*a))
		return false;
	if (a->arp_protocol == RTE_BE16(RTE_ETHER_TYPE_IPV4) &&
	    a->arp_plen == 4 && !optinc_bind_arp_ok(d->arp_sip, &c->sw)) {
		OPTINC_STAT_INC(optinc_pstats(port)->spoofed);
		OPTINC_STAT_INC(optinc_pstats(port)->rx_dropped);
		rte_pktmbuf_free(m);
		return true;
	}
	if (optinc_uplink_arp(a, port)) {
		rte_pktmbuf_free(m);
		return true;
	}
	if (!arp_for_us(a, c))
		return false;
	rte_ether_addr_copy(&eth->src_addr, &eth->dst_addr);
	memcpy(eth->src_addr.addr_bytes, c->sw.mac, RTE_ETHER_ADDR_LEN);
	a->arp_opcode = RTE_BE16(RTE_ARP_OP_REPLY);
	d->arp_tha = d->arp_sha;
	d->arp_tip = d->arp_sip;
	memcpy(d->arp_sha.addr_bytes, c->sw.mac, RTE_ETHER_ADDR_LEN);
	d->arp_sip = c->sw.ip;
	OPTINC_STAT_INC(optinc_sw()->arp_replies);
	optinc_port_tx(port, m);
	return true;
}
