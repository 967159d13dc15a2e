// SPDX-License-Identifier: BSD-3-Clause
/* ICMP: answer echo requests (ping) to the switch's own IPv4 address. */
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include "optincd.h"

/* The echo request's ICMP part, or NULL when @m is not one for us. */
static struct rte_icmp_hdr *icmp_echo(struct rte_mbuf *m,
				      const struct optinc_conf *c,
				      uint16_t *icmp_len)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	uint16_t len = rte_pktmbuf_data_len(m) - sizeof(*eth), ihl, tot;
	struct rte_icmp_hdr *icmp;

	if (eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV4) ||
	    len < sizeof(*ip) || (ip->version_ihl >> 4) != 4 ||
	    ip->next_proto_id != IPPROTO_ICMP || ip->dst_addr != c->sw.ip ||
	    (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_MF_FLAG |
					     RTE_IPV4_HDR_OFFSET_MASK)))
		return NULL;
	ihl = rte_ipv4_hdr_len(ip);
	tot = rte_be_to_cpu_16(ip->total_length);
	if (ihl < sizeof(*ip) || tot > len || tot < ihl + sizeof(*icmp))
		return NULL;
	icmp = (struct rte_icmp_hdr *)((uint8_t *)ip + ihl);
	if (icmp->icmp_type != RTE_IP_ICMP_ECHO_REQUEST || icmp->icmp_code)
		return NULL;
	*icmp_len = tot - ihl;
	return icmp;
}

/**
 * optinc_icmp_input() - answer a ping to our address
 * @m:    a frame to our MAC, received on @port
 * @port: where it came from; the reply goes back there
 * @c:    our addresses
 *
 * The request is turned into the reply in place.
 *
 * Return: true when @m was consumed, false when it is not an echo request.
 */
bool optinc_icmp_input(struct rte_mbuf *m, uint16_t port,
		       const struct optinc_conf *c)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_icmp_hdr *icmp;
	uint16_t len;

	icmp = icmp_echo(m, c, &len);
	if (!icmp)
		return false;
	rte_ether_addr_copy(&eth->src_addr, &eth->dst_addr);
	memcpy(eth->src_addr.addr_bytes, c->sw.mac, RTE_ETHER_ADDR_LEN);
	ip->dst_addr = ip->src_addr;
	ip->src_addr = c->sw.ip;
	ip->time_to_live = 64;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	icmp->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
	icmp->icmp_cksum = 0;
	icmp->icmp_cksum = (uint16_t)~rte_raw_cksum(icmp, len);
	optinc_port_tx(port, m);
	return true;
}
