// SPDX-License-Identifier: BSD-3-Clause
/* Ports: set-up of every EAL port, per-port mbuf pools, buffered transmit. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include "optincd.h"

#define PORT_RX_DESC	512
#define PORT_TX_DESC	512
#define PORT_CACHE	128
/* mbufs beyond the rings: rx bursts, tx buffers, frames the switch builds */
#define PORT_SPARE	(4 * OPTINC_BURST + 2 * OPTINC_MAX_MEMBERS)

/* headers of chained frames, and indirect mbufs (no data room of their own) */
#define PORT_HDR_ROOM	256

struct optinc_port optinc_ports[RTE_MAX_ETHPORTS];
uint16_t optinc_port_ids[RTE_MAX_ETHPORTS];
uint16_t optinc_nb_ports;
static struct rte_mempool *port_hdr_pool;

/*
 * net_memif reports 1518 bytes and a 1500-byte MTU limit to ethdev, but
 * carries any frame (a frame spans as many of its buffers as it needs, and
 * is copied into one mbuf when the mbuf holds it): the switch's MTU is
 * what limits its frames there.
 */
static bool port_is_memif(const struct rte_eth_dev_info *info)
{
	return !strcmp(info->driver_name, "net_memif");
}

/*
 * The largest frame a port's mbufs hold. net_af_packet reports 1518 but
 * receives what its ring frame holds (see eal_args.c); it needs data room
 * for framesz - 32 bytes; net_memif takes what the mbuf holds. Other
 * drivers say what they take; af_xdp's figure is what makes an mbuf fit
 * the page its umem chunk must fit in.
 */
static uint16_t port_max_frame(const struct rte_eth_dev_info *info)
{
	uint32_t len = RTE_MIN(info->max_rx_pktlen, (uint32_t)OPTINC_MAX_FRAME);

	if (!strcmp(info->driver_name, "net_af_packet") || port_is_memif(info))
		return OPTINC_MAX_FRAME;
	return (uint16_t)RTE_MAX(len, (uint32_t)RTE_ETHER_MAX_LEN);
}

/* The MTU to configure: ours, within what the driver and mbufs take. */
static uint16_t port_mtu(const struct optinc_port *p,
			 const struct rte_eth_dev_info *info, uint16_t want)
{
	uint32_t room = p->max_frame - RTE_ETHER_HDR_LEN - RTE_VLAN_HLEN;
	uint32_t mtu = RTE_MIN((uint32_t)want, room);

	mtu = RTE_MIN(mtu, (uint32_t)info->max_mtu);
	if (info->max_rx_pktlen > RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN)
		mtu = RTE_MIN(mtu, info->max_rx_pktlen - RTE_ETHER_HDR_LEN -
				   RTE_ETHER_CRC_LEN);
	return (uint16_t)RTE_MAX(mtu, (uint32_t)RTE_ETHER_MIN_MTU);
}

/*
 * net_af_packet keeps the MTU of its kernel interface (and reports 1500 to
 * ethdev); show the interface's, which is what limits its frames.
 */
static uint16_t port_afp_mtu(const struct optinc_port *p,
			     const struct rte_eth_dev_info *info)
{
	struct ifreq ifr = { 0 };
	int fd, mtu = -1;

	if (!info->if_index || !if_indextoname(info->if_index, ifr.ifr_name))
		return p->mtu;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd >= 0 && !ioctl(fd, SIOCGIFMTU, &ifr))
		mtu = ifr.ifr_mtu;
	if (fd >= 0)
		close(fd);
	if (mtu <= 0)
		return p->mtu;
	return (uint16_t)RTE_MIN(mtu, p->max_frame - RTE_ETHER_HDR_LEN -
				      RTE_VLAN_HLEN);
}

static int port_pool(struct optinc_port *p, uint16_t nb_rxd, uint16_t nb_txd)
{
	unsigned int w = optinc_nb_workers, n;
	char name[RTE_MEMPOOL_NAMESIZE];

	/*
	 * Any worker's tx buffer of any port may hold this pool's mbufs, and
	 * the hand-off rings to a worker those it received here (lcore.c).
	 */
	n = p->nb_rxq * nb_rxd + w * (nb_txd + PORT_SPARE + PORT_CACHE +
	    OPTINC_BURST * rte_eth_dev_count_avail()) +
	    (w - 1) * OPTINC_HANDOFF_RING + PORT_CACHE;
	snprintf(name, sizeof(name), "optinc_pool%u", p->id);
	p->pool = rte_pktmbuf_pool_create(name, n, PORT_CACHE, 0,
					  RTE_PKTMBUF_HEADROOM + p->max_frame,
					  rte_eth_dev_socket_id(p->id));
	if (!p->pool) {
		OPTINC_LOG(ERR, "port %u: cannot create a pool of %u mbufs of "
			   "%u bytes: %s (raise EAL -m)", p->id, n, p->max_frame,
			   rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

/*
 * Ring sizes: the driver's preferred ones where it has them (af_xdp fills
 * its 2048-entry fill queue from the pool at set-up), else ours. af_packet
 * and memif copy between their shared rings and mbufs: their descriptors
 * hold no mbufs, and a small pool lets many ports fit in the -m of a
 * testbed.
 */
static int port_queues(struct optinc_port *p, const struct rte_eth_dev_info *info)
{
	uint16_t nb_rxd = info->default_rxportconf.ring_size ?: PORT_RX_DESC;
	uint16_t nb_txd = info->default_txportconf.ring_size ?: PORT_TX_DESC;
	int socket = rte_eth_dev_socket_id(p->id), ret;
	uint16_t q;

	if (!strcmp(info->driver_name, "net_af_packet") || port_is_memif(info))
		nb_rxd = nb_txd = OPTINC_BURST;
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(p->id, &nb_rxd, &nb_txd);
	if (ret) {
		OPTINC_LOG(ERR, "port %u: adjusting descriptors: %s", p->id,
			   strerror(-ret));
		return ret;
	}
	p->nb_txd = nb_txd;
	ret = port_pool(p, nb_rxd, nb_txd);
	if (ret)
		return ret;
	for (q = 0; q < p->nb_rxq; q++) {
		ret = rte_eth_rx_queue_setup(p->id, q, nb_rxd, socket, NULL,
					     p->pool);
		if (ret) {
			OPTINC_LOG(ERR, "port %u: rx queue %u set-up: %s",
				   p->id, q, strerror(-ret));
			return ret;
		}
	}
	for (q = 0; q < optinc_nb_workers; q++) {
		ret = rte_eth_tx_queue_setup(p->id, q, nb_txd, socket, NULL);
		if (ret) {
			OPTINC_LOG(ERR, "port %u: tx queue %u set-up: %s",
				   p->id, q, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/*
 * One tx queue per worker, so that no two lcores share one; one rx queue
 * per worker where the port has that many (a worker without one of a
 * port gets that port's frames of its jobs handed over, lcore.c).
 */
static int port_nb_queues(struct optinc_port *p,
			  const struct rte_eth_dev_info *info)
{
	if (info->max_tx_queues < optinc_nb_workers) {
		OPTINC_LOG(ERR, "port %u (%s, %s) has %u tx queues; %u lcores "
			   "need one each: give fewer lcores (EAL -l) or more "
			   "queues (net_af_packet: qpairs=%u)", p->id, p->name,
			   info->driver_name, info->max_tx_queues,
			   optinc_nb_workers, optinc_nb_workers);
		return -EINVAL;
	}
	p->nb_rxq = (uint16_t)RTE_MIN((unsigned int)info->max_rx_queues,
				      optinc_nb_workers);
	return 0;
}

/*
 * Results go out chained (agg.c: one copy of a slot's elements, each
 * member's headers in front of an indirect mbuf on it) only where the
 * environment says OPTINCD_TX_CHAIN=1 and the port takes chains. Built
 * whole is the default: on PMDs that copy every frame anyway (memif,
 * af_packet) it measured faster (tools/bench/line-bench.sh, mode chain,
 * Documentation/bench.md); a NIC that DMAs from the mbufs is where the
 * chain would save the copies.
 */
static bool port_chain_allowed(void)
{
	const char *v = getenv("OPTINCD_TX_CHAIN");

	return v && !strcmp(v, "1");
}

static int port_init(struct optinc_port *p, const struct optinc_conf *c)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;
	int ret;

	ret = rte_eth_dev_info_get(p->id, &info);
	if (ret) {
		OPTINC_LOG(ERR, "port %u: device info: %s", p->id,
			   strerror(-ret));
		return ret;
	}
	rte_eth_dev_get_name_by_port(p->id, p->name);
	snprintf(p->driver, sizeof(p->driver), "%s", info.driver_name);
	p->max_frame = port_max_frame(&info);
	p->mtu = port_mtu(p, &info, c->mtu);
	conf.rxmode.mtu = p->mtu;
	p->tx_chain = !!(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) &&
		      port_chain_allowed();
	if (p->tx_chain)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	ret = port_nb_queues(p, &info);
	if (ret)
		return ret;
	ret = rte_eth_dev_configure(p->id, p->nb_rxq, optinc_nb_workers, &conf);
	if (ret) {
		OPTINC_LOG(ERR, "port %u (%s): configure with MTU %u (--mtu): "
			   "%s", p->id, p->name, p->mtu, strerror(-ret));
		return ret;
	}
	ret = port_queues(p, &info);
	if (ret)
		return ret;
	ret = rte_eth_dev_start(p->id);
	if (ret) {
		OPTINC_LOG(ERR, "port %u (%s): start: %s", p->id, p->name,
			   strerror(-ret));
		return ret;
	}
	if (!strcmp(info.driver_name, "net_af_packet"))
		p->mtu = port_afp_mtu(p, &info);
	else if (port_is_memif(&info))
		p->mtu = RTE_MIN(c->mtu, p->max_frame - RTE_ETHER_HDR_LEN -
				 RTE_VLAN_HLEN);
	ret = rte_eth_promiscuous_enable(p->id);
	if (ret)
		OPTINC_LOG(WARNING, "port %u (%s): promiscuous mode: %s (L2 "
			   "forwarding sees only frames to its MAC)", p->id,
			   p->name, strerror(-ret));
	return rte_eth_macaddr_get(p->id, &p->mac);
}

/*
 * Small mbufs for chained frames (agg.c's results: per member a header
 * and an indirect mbuf on the one copy of the elements): two for every
 * descriptor and buffered frame of every port that chains.
 */
static int port_hdr_pool_create(void)
{
	unsigned int n = 2 * OPTINC_MAX_MEMBERS + 2 * PORT_CACHE;
	uint16_t i;

	for (i = 0; i < optinc_nb_ports; i++) {
		const struct optinc_port *p = &optinc_ports[optinc_port_ids[i]];

		if (p->tx_chain)
			n += 2 * (p->nb_txd + OPTINC_BURST);
	}
	port_hdr_pool = rte_pktmbuf_pool_create("optinc_hdr", n, PORT_CACHE, 0,
						RTE_PKTMBUF_HEADROOM + PORT_HDR_ROOM,
						rte_socket_id());
	if (!port_hdr_pool) {
		fprintf(stderr, "optincd: cannot create a pool of %u header "
			"mbufs: %s\n", n, rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

/**
 * optinc_ports_init() - configure and start every port EAL found
 * @c: configuration (MTU)
 *
 * Per port one tx queue per datapath lcore and, where the port has them,
 * one rx queue per lcore (optinc_lcores_init() first).
 *
 * Return: 0, or a negative errno (reported).
 */
int optinc_ports_init(const struct optinc_conf *c)
{
	uint16_t id;
	int ret;

	RTE_ETH_FOREACH_DEV(id) {
		struct optinc_port *p = &optinc_ports[id];

		p->id = id;
		ret = port_init(p, c);
		if (ret)
			return ret;
		optinc_port_ids[optinc_nb_ports++] = id;
	}
	if (!optinc_nb_ports) {
		OPTINC_LOG(ERR, "no ports: give EAL --vdev options or bind NICs "
			   "to a DPDK driver (dpdk-devbind.py)");
		return -ENODEV;
	}
	return port_hdr_pool_create();
}

void optinc_ports_close(void)
{
	uint16_t i, id;

	for (i = 0; i < optinc_nb_ports; i++) {
		id = optinc_port_ids[i];
		rte_eth_dev_stop(id);
		rte_eth_promiscuous_disable(id);
		rte_eth_dev_close(id);
	}
	for (i = 0; i < optinc_nb_ports; i++)
		rte_mempool_free(optinc_ports[optinc_port_ids[i]].pool);
	rte_mempool_free(port_hdr_pool);
	port_hdr_pool = NULL;
	optinc_nb_ports = 0;
}

static void port_flush(uint16_t port, uint16_t queue, struct optinc_port_q *q)
{
	uint64_t bytes = 0;
	uint16_t i, sent;

	for (i = 0; i < q->tx_len; i++)
		bytes += rte_pktmbuf_pkt_len(q->tx[i]);
	sent = rte_eth_tx_burst(port, queue, q->tx, q->tx_len);
	for (i = sent; i < q->tx_len; i++) {
		bytes -= rte_pktmbuf_pkt_len(q->tx[i]);
		rte_pktmbuf_free(q->tx[i]);
	}
	OPTINC_STAT_ADD(q->stats.tx_pkts, sent);
	OPTINC_STAT_ADD(q->stats.tx_bytes, bytes);
	if (unlikely(sent < q->tx_len))
		OPTINC_STAT_ADD(q->stats.tx_dropped, q->tx_len - sent);
	q->tx_len = 0;
}

/*
 * Queue @m for sending on @port, on this worker's own tx queue; the burst
 * goes out when full or flushed.
 */
void optinc_port_tx(uint16_t port, struct rte_mbuf *m)
{
	struct optinc_worker *w = optinc_self();
	struct optinc_port_q *q = &w->q[port];

	q->tx[q->tx_len++] = m;
	if (q->tx_len == OPTINC_BURST)
		port_flush(port, w->idx, q);
}

/* Send what this worker has buffered, on every port. */
void optinc_ports_flush(void)
{
	struct optinc_worker *w = optinc_self();
	uint16_t i, id;

	for (i = 0; i < optinc_nb_ports; i++) {
		id = optinc_port_ids[i];
		if (w->q[id].tx_len)
			port_flush(id, w->idx, &w->q[id]);
	}
}

/* An mbuf from @port's pool, for a frame the switch builds. */
struct rte_mbuf *optinc_port_alloc(uint16_t port)
{
	return rte_pktmbuf_alloc(optinc_ports[port].pool);
}

/* @n small mbufs (PORT_HDR_ROOM bytes of room), all or none: 0 or -ENOMEM. */
int optinc_port_alloc_hdrs(struct rte_mbuf **m, unsigned int n)
{
	return rte_pktmbuf_alloc_bulk(port_hdr_pool, m, n) ? -ENOMEM : 0;
}
