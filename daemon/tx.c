// SPDX-License-Identifier: BSD-3-Clause
/*
 * Frames optincd builds: mbufs from the ports' pools, sent to a member's
 * bound port and counted per job and member, and unit T's results of a
 * slot to every member on one payload. The rules that decide what is sent
 * are lib/core/switch.c's (agg.c hands them these); the uplink's frames to
 * the upper switch leave here too (uplink.c).
 */
#include <errno.h>
#include <string.h>
#include "optincd.h"

/*
 * Where a member's frames go: its bound port (every member that joined is
 * bound, lib/core/bind.c), never where its MAC was seen last.
 */
uint16_t optinc_tx_member_port(const struct optinc_agg_job *j, uint16_t rank,
			       uint64_t now)
{
	struct rte_ether_addr mac;
	uint32_t bound;
	uint16_t port;

	if (!optinc_bind_port(&j->bind, rank, &bound))
		return (uint16_t)bound;
	memcpy(mac.addr_bytes, j->core.members[rank].ep.mac, RTE_ETHER_ADDR_LEN);
	if (optinc_l2_lookup(&mac, now, &port))
		return 0;
	return port;
}

static void tx_count_out(struct optinc_agg_job *j, int rank, uint32_t len)
{
	if (!j)
		return;
	OPTINC_STAT_INC(j->stats.frames_out);
	OPTINC_STAT_ADD(j->stats.bytes_out, len);
	if (rank >= 0) {
		OPTINC_STAT_INC(j->stats.member[rank].frames_out);
		OPTINC_STAT_ADD(j->stats.member[rank].bytes_out, len);
	}
}

/**
 * optinc_tx_alloc() - an mbuf to build a frame in, for @port
 * @port: where the frame will go
 * @buf:  set to where it starts
 * @room: set to how much may be written: no more than the port's MTU
 *        allows, since a longer frame would die at the receiver
 *
 * Return: the mbuf, or NULL when the pool is empty (the caller counts).
 */
struct rte_mbuf *optinc_tx_alloc(uint16_t port, uint8_t **buf, uint32_t *room)
{
	struct rte_mbuf *m = optinc_port_alloc(port);

	if (unlikely(!m))
		return NULL;
	*buf = rte_pktmbuf_mtod(m, uint8_t *);
	*room = RTE_MIN(rte_pktmbuf_tailroom(m),
			(uint32_t)optinc_ports[port].mtu + RTE_ETHER_HDR_LEN);
	return m;
}

/*
 * Send @m holding a built frame of @len bytes for @rank of @j (-1: no
 * member; @j NULL: no job). @len 0: it was not built; freed, -EINVAL.
 */
int optinc_tx_send(struct optinc_agg_job *j, int rank, uint16_t port,
		   struct rte_mbuf *m, uint32_t len)
{
	if (unlikely(!len)) {
		rte_pktmbuf_free(m);
		return -EINVAL;
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	tx_count_out(j, rank, len);
	optinc_port_tx(port, m);
	return 0;
}

/* Member @rank's frame: its headers in @h, then @d attached to @pay. */
static int tx_chained(struct optinc_agg_job *j, const struct optinc_slot *s,
		      const struct optinc_endpoint *sw, uint16_t rank,
		      uint16_t port, struct rte_mbuf *pay, struct rte_mbuf *h,
		      struct rte_mbuf *d)
{
	uint32_t hdr, max = (uint32_t)optinc_ports[port].mtu + RTE_ETHER_HDR_LEN;

	hdr = optinc_build_result_hdr(rte_pktmbuf_mtod(h, void *),
				      rte_pktmbuf_tailroom(h), &j->core, s, sw,
				      rank);
	if (unlikely(!hdr || hdr + s->res_len > max)) {
		rte_pktmbuf_free(h);
		rte_pktmbuf_free(d);
		return -EMSGSIZE;
	}
	rte_pktmbuf_attach(d, pay);
	h->data_len = (uint16_t)hdr;
	h->next = d;
	h->nb_segs = 2;
	h->pkt_len = hdr + s->res_len;
	tx_count_out(j, rank, h->pkt_len);
	optinc_port_tx(port, h);
	return 0;
}

/**
 * optinc_tx_results() - unit T on one payload: slot @s to every member
 * @j:   the job
 * @s:   a complete slot
 * @sw:  the switch's address, the frames' source
 * @now: TSC of this poll round
 *
 * Where every member's port sends chained mbufs (OPTINCD_TX_CHAIN=1), the
 * elements are copied once, into a payload mbuf, and each member's frame
 * is its own headers followed by an indirect mbuf on it (the port copies
 * or DMAs from it; the payload goes back to its pool with the last frame).
 *
 * Return: the frames sent, or -errno when it cannot be done this way (the
 * caller then builds every frame whole).
 */
int optinc_tx_results(struct optinc_agg_job *j, const struct optinc_slot *s,
		      const struct optinc_endpoint *sw, uint64_t now)
{
	struct rte_mbuf *m[2 * OPTINC_MAX_MEMBERS], *pay;
	uint16_t ports[OPTINC_MAX_MEMBERS], r, n = j->core.size;
	int sent = 0;

	for (r = 0; r < n; r++) {
		ports[r] = optinc_tx_member_port(j, r, now);
		if (!optinc_ports[ports[r]].tx_chain)
			return -ENOTSUP;
	}
	pay = optinc_port_alloc(ports[0]);
	if (unlikely(!pay))
		return -ENOMEM;
	if (unlikely(rte_pktmbuf_tailroom(pay) < s->res_len ||
		     optinc_port_alloc_hdrs(m, 2u * n))) {
		rte_pktmbuf_free(pay);
		return -ENOMEM;
	}
	memcpy(rte_pktmbuf_mtod(pay, void *), s->res, s->res_len);
	pay->data_len = (uint16_t)s->res_len;
	pay->pkt_len = s->res_len;
	for (r = 0; r < n; r++)
		sent += !tx_chained(j, s, sw, r, ports[r], pay, m[2 * r],
				    m[2 * r + 1]);
	rte_pktmbuf_free(pay);	/* the frames hold it now */
	return sent;
}
