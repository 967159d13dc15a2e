// SPDX-License-Identifier: BSD-3-Clause
/*
 * Forwarding of the frames that are not the switch's own, as a learning
 * switch does: to the port the L2 table (l2.c) knows for the destination,
 * unknown, broadcast and multicast destinations flooded to every other
 * port, and a frame for the port it came from dropped.
 */
#include <rte_ether.h>
#include <rte_mbuf.h>
#include "optincd.h"

static void l2_flood(struct rte_mbuf *m, uint16_t in_port)
{
	uint16_t i, n = optinc_nb_ports - 1;

	if (!n) {
		OPTINC_STAT_INC(optinc_pstats(in_port)->rx_dropped);
		rte_pktmbuf_free(m);
		return;
	}
	OPTINC_STAT_INC(optinc_sw()->l2_flooded);
	/* the same mbuf goes to every other port; each send drops one ref */
	rte_mbuf_refcnt_update(m, (int16_t)(n - 1));
	for (i = 0; i < optinc_nb_ports; i++)
		if (optinc_port_ids[i] != in_port)
			optinc_port_tx(optinc_port_ids[i], m);
}

/* Forward @m, received on @in_port, as a learning switch does. */
void optinc_l2_forward(struct rte_mbuf *m, uint16_t in_port, uint64_t now)
{
	const struct rte_ether_hdr *eth =
		rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	uint16_t out;

	if (rte_is_multicast_ether_addr(&eth->dst_addr) ||
	    optinc_l2_lookup(&eth->dst_addr, now, &out)) {
		l2_flood(m, in_port);
	} else if (out == in_port) {
		OPTINC_STAT_INC(optinc_sw()->l2_filtered);
		OPTINC_STAT_INC(optinc_pstats(in_port)->rx_dropped);
		rte_pktmbuf_free(m);
	} else {
		OPTINC_STAT_INC(optinc_sw()->l2_forwarded);
		optinc_port_tx(out, m);
	}
}
