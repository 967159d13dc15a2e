// SPDX-License-Identifier: BSD-3-Clause
/*
 * What happens to one received frame: learn its source (a bound member's
 * MAC from another port is a spoof: dropped, unless it is that member's
 * JOIN, which aggregation judges), then OptINC to the switch ->
 * aggregation, ARP or ping for the switch -> reply, anything else to the
 * switch's MAC -> dropped, the rest -> L2 forwarding.
 */
#include <errno.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include "optincd.h"

static bool dp_to_switch_mac(const struct rte_ether_hdr *eth,
			     const struct optinc_conf *c)
{
	return !memcmp(eth->dst_addr.addr_bytes, c->sw.mac, RTE_ETHER_ADDR_LEN);
}

/* An OptINC frame to the switch (@ret, @l from optinc_parse_l2l4()). */
static bool dp_to_agg(const struct rte_ether_hdr *eth, int ret,
		      const struct optinc_l2l4 *l, const struct optinc_conf *c)
{
	return ret > 0 && l->dst.ip == c->sw.ip &&
	       (dp_to_switch_mac(eth, c) ||
		rte_is_multicast_ether_addr(&eth->dst_addr));
}

/**
 * optinc_dp_owner() - the worker that must switch @m
 * @m: a received frame
 * @c: the switch's addresses
 *
 * An OptINC frame to the switch naming a job goes to the job's worker;
 * everything else (L2 forwarding, ARP, ping, runts, answers of an upper
 * switch, which only members' switches receive) to worker 0, which owns
 * the L2 table and the uplinks. Costs a parse of the headers (which the
 * owner's optinc_dp_input() repeats) and one byte of the owner map.
 */
uint16_t optinc_dp_owner(struct rte_mbuf *m, const struct optinc_conf *c)
{
	const struct rte_ether_hdr *eth;
	const struct optinc_hdr *h;
	struct optinc_l2l4 l;
	int ret;

	if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN))
		return 0;
	eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	ret = optinc_parse_l2l4(eth, rte_pktmbuf_data_len(m), c->udp_port, &l);
	if (!dp_to_agg(eth, ret, &l, c) || l.l4_len < OPTINC_HDR_LEN)
		return 0;
	h = (const struct optinc_hdr *)((const uint8_t *)eth + l.l4_off);
	if (h->type == OPTINC_T_RESULT || h->type == OPTINC_T_JOIN_ACK ||
	    h->type == OPTINC_T_NACK)
		return 0;
	return optinc_lcore_owner(rte_be_to_cpu_16(h->job));
}

static void dp_drop(struct rte_mbuf *m, uint16_t port, uint64_t *counter)
{
	OPTINC_STAT_INC(*counter);
	OPTINC_STAT_INC(optinc_pstats(port)->rx_dropped);
	rte_pktmbuf_free(m);
}

/**
 * optinc_dp_input() - switch one received frame
 * @m:    the frame (one segment is all the parsers look at); consumed
 * @port: the port it came in on
 * @c:    the switch's addresses
 * @now:  TSC of this poll round
 */
void optinc_dp_input(struct rte_mbuf *m, uint16_t port,
		     const struct optinc_conf *c, uint64_t now)
{
	const struct rte_ether_hdr *eth;
	struct optinc_l2l4 l;
	bool spoofed = false, to_agg;
	int ret;

	if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN)) {
		dp_drop(m, port, &optinc_sw()->runts);
		return;
	}
	eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	/*
	 * Worker 0 owns the L2 table. Another worker gets only frames of its
	 * own jobs (optinc_dp_owner()), which its jobs' bindings judge.
	 */
	if (likely(!rte_is_multicast_ether_addr(&eth->src_addr)) &&
	    !optinc_self()->idx)
		spoofed = optinc_l2_learn(&eth->src_addr, port, now) == -EPERM;

	ret = optinc_parse_l2l4(eth, rte_pktmbuf_data_len(m), c->udp_port, &l);
	to_agg = dp_to_agg(eth, ret, &l, c);
	if (unlikely(spoofed) && !to_agg) {
		dp_drop(m, port, &optinc_pstats(port)->spoofed);
		return;
	}
	if (unlikely(ret < 0) && dp_to_switch_mac(eth, c)) {
		dp_drop(m, port, &optinc_sw()->drops[OPTINC_DROP_SHORT]);
		return;
	}
	if (to_agg) {
		optinc_agg_input(m, port, &l, now, spoofed);
		return;
	}
	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP) &&
	    optinc_arp_input(m, port, c))
		return;
	if (dp_to_switch_mac(eth, c)) {
		if (optinc_icmp_input(m, port, c)) {
			OPTINC_STAT_INC(optinc_sw()->icmp_replies);
			return;
		}
		dp_drop(m, port, &optinc_sw()->to_switch_other);
		return;
	}
	optinc_l2_forward(m, port, now);
}
