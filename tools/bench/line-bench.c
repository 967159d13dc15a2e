// SPDX-License-Identifier: BSD-3-Clause
/*
 * optinc-line-bench: a switch measured as a whole, without veth. A DPDK
 * process whose ports (net_memif clients, one per member, or any ethdev)
 * lead to the switch's ports plays N members: each JOINs the job (with its
 * token) and streams OptINC DATA frames built by the core (op AVG, 8-bit
 * values, one exponent per block), seq, slot and shadow bit per the
 * protocol, at most WINDOW in flight; every RESULT that comes back is
 * checked (type, job, token, seq in flight, slot, shadow bit, shape,
 * length, exponents, values: the exact average, or what the core's table
 * look-up of --table gives) and counted. Mode reflect sends the same
 * frames to a forwarder (dpdk-testpmd, io forwarding, loop topology) and
 * expects each one back unchanged: the I/O limit of the same ports. Prints
 * frames/s into the switch, elements/s, Gbit/s in and, with --peer PID,
 * the switch process's CPU cycles per input frame.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>
#include <arpa/inet.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <optinc/core.h>

#define LB_BURST	32
#define LB_PAT		61	/* values repeat with this period */
#define LB_HDR_ROOM	(OPTINC_FRAME_OVERHEAD + OPTINC_SCALES_LEN(OPTINC_MAX_SCALES))
#define LB_MAX_FRAME	9216
#define LB_JOIN_EVERY_MS 100
#define LB_JOIN_MS	20000
#define LB_LINK_MS	10000
#define LB_GIVEUP_MS	10000
#define LB_UDP_PORT	40000	/* every member's; they differ by address */

enum lb_mode { LB_OPTINC, LB_REFLECT };

struct lb_cfg {
	unsigned int members, window, elems, block, timeout_ms;
	unsigned int jobs, queues;	/* jobs job..job+jobs-1; queues per port */
	unsigned int spread;		/* job k sends on queue k % spread */
	unsigned long frames, warmup;	/* per member */
	int mode;
	uint16_t job, sw_port;
	uint32_t token;
	uint32_t sw_ip;			/* network order */
	const char *table;
	int peer;			/* switch process to read CPU time of */
	const char *ctl;		/* optincctl, for the switch's lcore counters */
	const char *prefix;		/* the switch's --file-prefix */
};

struct lb_member {
	uint16_t rank, port, job, queue;
	struct optinc_endpoint ep;
	struct rte_mbuf *pat;		/* this rank's values, LB_PAT longer */
	uint32_t nonce;
	uint64_t low, next, hi;		/* frames: back up to low, sent up to next */
	uint64_t last_rx;		/* TSC of the last frame back */
	uint8_t *done;			/* per window position */
	int joined;
};

/* One tx queue of a port (ctx.ports: port p, queue q at p * queues + q). */
struct lb_port {
	uint16_t id, queue, len;
	struct rte_mbuf *tx[LB_BURST * 4];
};

struct lb_stats {
	uint64_t rx, rx_bytes, dup, retx, other;
	uint64_t idle_tsc;		/* in rounds that sent and received nothing */
};

struct lb_ctx {
	struct lb_cfg cfg;
	struct lb_member *mb;
	unsigned int nb_mb;		/* jobs x members */
	struct lb_port *ports;
	uint16_t nb_ports, nb_txq;	/* ports; ports x queues */
	struct optinc_endpoint sw;
	struct rte_mempool *pool;	/* received frames, JOINs */
	struct rte_mempool *hdr_pool;	/* headers, and indirect payloads */
	uint8_t *want;			/* what each RESULT must hold */
	uint32_t sw_window, nscale, frame_len;
	uint64_t tsc_hz, total;
	struct lb_stats st;
};

static volatile int lb_quit;

static void lb_signal(int sig)
{
	(void)sig;
	lb_quit = 1;
}

static void lb_usage(void)
{
	fprintf(stderr,
		"usage: optinc-line-bench [EAL options] -- [-M optinc|reflect] [-N MEMBERS]\n"
		"         [-J JOBS] [-Q QUEUES [--spread S]] [-f FRAMES] [-w WARMUP]\n"
		"         [-W WINDOW]\n"
		"         [-c ELEMS] [--block N] [--job ID] [--token T]\n"
		"         [--switch IPV4[:UDP]] [--table FILE] [--peer PID\n"
		"         [--ctl OPTINCCTL --prefix PREFIX]] [-t TIMEOUT_MS]\n"
		"  JOBS jobs (ids ID..ID+JOBS-1) of N members (default: one per port,\n"
		"  member r on port r %% ports; job k on tx queue k %% S, default\n"
		"  S = QUEUES; every queue is received) each\n"
		"  send FRAMES data frames of ELEMS 8-bit values after WARMUP ones, and\n"
		"  every frame back is checked: RESULTs of optincd (optinc), or the own\n"
		"  frames from a forwarder (reflect). --ctl and --prefix: the switch's\n"
		"  per-lcore counters (optincctl daemon lcores) at the timed marks.\n");
}

/* ---- options ---- */

static int lb_num(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	return errno || !*s || *end || *v > max ? -EINVAL : 0;
}

static int lb_switch(struct lb_cfg *c, const char *s)
{
	char host[64], *colon;
	unsigned long port = OPTINC_UDP_PORT;

	if (strlen(s) >= sizeof(host))
		return -EINVAL;
	strcpy(host, s);
	colon = strchr(host, ':');
	if (colon) {
		*colon = '\0';
		if (lb_num(colon + 1, 65535, &port) || !port)
			return -EINVAL;
	}
	c->sw_port = (uint16_t)port;
	return inet_pton(AF_INET, host, &c->sw_ip) == 1 ? 0 : -EINVAL;
}

static int lb_opt(struct lb_cfg *c, int opt, const char *arg)
{
	unsigned long v = 0;
	int err = 0;

	if (!strchr("MSTCP", opt))
		err = lb_num(arg, opt == 'k' ? UINT32_MAX : 1ul << 40, &v);
	switch (opt) {
	case 'M':
		c->mode = !strcmp(arg, "reflect") ? LB_REFLECT : LB_OPTINC;
		return strcmp(arg, "reflect") && strcmp(arg, "optinc") ? -EINVAL : 0;
	case 'S': return lb_switch(c, arg);
	case 'T': c->table = arg; return 0;
	case 'C': c->ctl = arg; return 0;
	case 'P': c->prefix = arg; return 0;
	case 'J': c->jobs = v; break;
	case 'Q': c->queues = v; break;
	case 's': c->spread = v; break;
	case 'N': c->members = v; break;
	case 'f': c->frames = v; break;
	case 'w': c->warmup = v; break;
	case 'W': c->window = v; break;
	case 'c': c->elems = v; break;
	case 'B': c->block = v; break;
	case 'j': c->job = (uint16_t)v; err |= !v || v > 65535; break;
	case 'k': c->token = (uint32_t)v; break;
	case 'p': c->peer = (int)v; break;
	case 't': c->timeout_ms = v; break;
	default: return -EINVAL;
	}
	return err ? -EINVAL : 0;
}

static int lb_parse(struct lb_cfg *c, int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "block", 1, NULL, 'B' }, { "job", 1, NULL, 'j' },
		{ "token", 1, NULL, 'k' }, { "switch", 1, NULL, 'S' },
		{ "table", 1, NULL, 'T' }, { "peer", 1, NULL, 'p' },
		{ "ctl", 1, NULL, 'C' }, { "prefix", 1, NULL, 'P' },
		{ "spread", 1, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "M:N:J:Q:f:w:W:c:t:", lopts,
				  NULL)) != -1)
		if (lb_opt(c, opt, optarg))
			return -EINVAL;
	if (optind != argc || c->members > OPTINC_MAX_MEMBERS || !c->frames ||
	    !c->jobs || c->jobs > 64 || c->job + c->jobs - 1 > 65535 ||
	    !c->queues || c->queues > 16 || !c->ctl != !c->prefix ||
	    c->spread > c->queues ||
	    !c->window || c->window > 4096 || !c->block ||
	    !c->elems || c->elems > 65535 || !c->timeout_ms ||
	    (c->elems + c->block - 1) / c->block > OPTINC_MAX_SCALES ||
	    OPTINC_FRAME_OVERHEAD + OPTINC_SCALES_LEN(OPTINC_MAX_SCALES) +
	    c->elems > LB_MAX_FRAME)
		return -EINVAL;
	return 0;
}

/* ---- ports ---- */

static int lb_port_init(uint16_t id, uint16_t nq, struct rte_mempool *pool)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;
	uint16_t q;
	int ret;

	ret = rte_eth_dev_info_get(id, &info);
	if (ret)
		return ret;
	if (!(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)) {
		fprintf(stderr, "optinc-line-bench: port %u (%s) sends no chained mbufs\n",
			id, info.driver_name);
		return -ENOTSUP;
	}
	conf.txmode.offloads = RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	ret = rte_eth_dev_configure(id, nq, nq, &conf);
	for (q = 0; !ret && q < nq; q++)
		ret = rte_eth_rx_queue_setup(id, q, 1024, rte_eth_dev_socket_id(id),
					     NULL, pool);
	for (q = 0; !ret && q < nq; q++)
		ret = rte_eth_tx_queue_setup(id, q, 1024, rte_eth_dev_socket_id(id),
					     NULL);
	if (!ret)
		ret = rte_eth_dev_start(id);
	if (ret)
		fprintf(stderr, "optinc-line-bench: port %u: set-up: %s\n", id,
			strerror(-ret));
	return ret;
}

/*
 * Every port up within LB_LINK_MS. A memif client that connects before
 * its server has started its port is refused and does not try again by
 * itself: a port still down after 3 s is restarted (the callers start
 * it once the switch's ports are started, so this is the last resort).
 */
static int lb_links_up(struct lb_ctx *x)
{
	uint64_t start = rte_get_tsc_cycles(), now = start, retry = start;
	struct rte_eth_link link;
	uint16_t i, up;

	do {
		for (i = 0, up = 0; i < x->nb_ports; i++) {
			uint16_t id = x->ports[i * x->cfg.queues].id;

			if (!rte_eth_link_get_nowait(id, &link) &&
			    link.link_status) {
				up++;
			} else if (now - retry > 3 * x->tsc_hz) {
				rte_eth_dev_stop(id);
				rte_eth_dev_start(id);
			}
		}
		if (up == x->nb_ports)
			return 0;
		if (now - retry > 3 * x->tsc_hz)
			retry = now;
		rte_delay_ms(10);
		now = rte_get_tsc_cycles();
	} while (now - start < x->tsc_hz * LB_LINK_MS / 1000 && !lb_quit);
	fprintf(stderr, "optinc-line-bench: %u of %u ports up after %u ms "
		"(is the switch running?)\n", up, x->nb_ports, LB_LINK_MS);
	return -ETIMEDOUT;
}

static int lb_ports(struct lb_ctx *x)
{
	uint16_t id, q;
	int ret;

	x->nb_ports = rte_eth_dev_count_avail();
	if (!x->nb_ports) {
		fprintf(stderr, "optinc-line-bench: no ports: give --vdev net_memif...\n");
		return -ENODEV;
	}
	x->ports = calloc(x->nb_ports * x->cfg.queues, sizeof(*x->ports));
	if (!x->ports)
		return -ENOMEM;
	x->nb_ports = 0;
	x->nb_txq = 0;
	RTE_ETH_FOREACH_DEV(id) {
		ret = lb_port_init(id, (uint16_t)x->cfg.queues, x->pool);
		if (ret)
			return ret;
		for (q = 0; q < x->cfg.queues; q++) {
			x->ports[x->nb_txq].id = id;
			x->ports[x->nb_txq++].queue = q;
		}
		x->nb_ports++;
	}
	return lb_links_up(x);
}

/* Send what @p holds; what the port refuses stays for the next round. */
static unsigned int lb_flush(struct lb_port *p)
{
	uint16_t sent;

	if (!p->len)
		return 0;
	sent = rte_eth_tx_burst(p->id, p->queue, p->tx, p->len);
	if (sent < p->len)
		memmove(p->tx, p->tx + sent, (p->len - sent) * sizeof(p->tx[0]));
	p->len -= sent;
	return sent;
}

static void lb_queue(struct lb_port *p, struct rte_mbuf *m)
{
	if (p->len == RTE_DIM(p->tx))
		lb_flush(p);
	if (p->len == RTE_DIM(p->tx)) {
		rte_pktmbuf_free(m);	/* counted as lost; retransmitted */
		return;
	}
	p->tx[p->len++] = m;
}

/* ---- frames ---- */

/* The tx queue @mb sends on: its port's queue for its job. */
static struct lb_port *lb_txq(struct lb_ctx *x, const struct lb_member *mb)
{
	return &x->ports[mb->port * x->cfg.queues + mb->queue];
}

static uint32_t lb_frame_elems(const struct lb_ctx *x)
{
	return x->cfg.elems;
}

static int8_t lb_scale(uint64_t i, uint32_t b)
{
	return (int8_t)((i * 7 + b) % 17) - 8;
}

/* A header mbuf: Ethernet, IPv4, UDP to @dst and @m; @l4_pay bytes follow. */
static struct rte_mbuf *lb_hdr(struct lb_ctx *x, const struct lb_member *mb,
			       const struct optinc_endpoint *dst,
			       const struct optinc_msg *m, uint32_t l4_pay,
			       uint8_t **pay)
{
	struct rte_mbuf *h = rte_pktmbuf_alloc(x->hdr_pool);
	uint8_t *p;

	if (unlikely(!h))
		return NULL;
	p = rte_pktmbuf_mtod(h, uint8_t *);
	optinc_build_l2l4(p, &mb->ep, dst, OPTINC_HDR_LEN + l4_pay);
	optinc_hdr_fill((struct optinc_hdr *)(p + OPTINC_L2L4_LEN), m);
	*pay = p + OPTINC_FRAME_OVERHEAD;
	h->data_len = OPTINC_FRAME_OVERHEAD;
	h->pkt_len = OPTINC_FRAME_OVERHEAD;
	return h;
}

/*
 * Data frame @i of @mb: a header mbuf (addresses, OptINC header, scales)
 * and an indirect mbuf on the member's values, so that no frame is copied
 * here (the port copies it, as for any sender).
 */
static struct rte_mbuf *lb_data(struct lb_ctx *x, const struct lb_member *mb,
				uint64_t i)
{
	uint32_t n = lb_frame_elems(x), seq = (uint32_t)i, b;
	uint32_t scl = OPTINC_SCALES_LEN(x->nscale);
	struct optinc_msg m = {
		.type = OPTINC_T_DATA, .job = mb->job, .rank = mb->rank,
		.token = x->cfg.token, .seq = seq,
		.slot = (uint16_t)(seq % x->sw_window),
		.flags = (seq / x->sw_window) & 1 ? OPTINC_F_SHADOW : 0,
		.op = OPTINC_OP_AVG, .count = (uint16_t)n, .bits = 8,
		.nscale = (uint8_t)x->nscale, .block = (uint16_t)x->cfg.block,
	};
	struct rte_mbuf *h, *d;
	uint8_t *pay;

	h = lb_hdr(x, mb, &x->sw, &m, scl + n, &pay);
	d = h ? rte_pktmbuf_alloc(x->hdr_pool) : NULL;
	if (unlikely(!d)) {
		rte_pktmbuf_free(h);
		return NULL;
	}
	memset(pay, 0, scl);
	for (b = 0; b < x->nscale; b++)
		pay[b] = (uint8_t)lb_scale(i, b);
	h->data_len += scl;
	rte_pktmbuf_attach(d, mb->pat);
	d->data_off += i % LB_PAT;
	d->data_len = (uint16_t)n;
	d->pkt_len = n;
	h->next = d;
	h->nb_segs = 2;
	h->pkt_len = h->data_len + n;
	return h;
}

static void lb_join_send(struct lb_ctx *x, struct lb_member *mb)
{
	struct optinc_msg m = {
		.type = OPTINC_T_JOIN, .job = mb->job, .rank = mb->rank,
		.token = x->cfg.token, .seq = mb->nonce, .bits = 8,
	};
	struct optinc_endpoint bcast = x->sw;
	struct rte_mbuf *h;
	uint8_t *pay;

	/* broadcast: the switch's MAC is learnt from its JOIN_ACK */
	memset(bcast.mac, 0xff, sizeof(bcast.mac));
	h = lb_hdr(x, mb, &bcast, &m, 0, &pay);
	if (h)
		lb_queue(lb_txq(x, mb), h);
}

/* ---- what comes back ---- */

static int lb_bad(const struct lb_member *mb, uint32_t seq, const char *what)
{
	fprintf(stderr, "optinc-line-bench: member %u: frame back for seq %u: %s\n",
		mb->rank, seq, what);
	return -EPROTO;
}

/* The member a frame back is for, from its addresses; NULL if none. */
static struct lb_member *lb_member_of(struct lb_ctx *x,
				      const struct optinc_l2l4 *l,
				      const struct optinc_msg *m)
{
	uint32_t i;

	if (x->cfg.mode == LB_REFLECT)
		i = (uint32_t)(uint16_t)(m->job - x->cfg.job) * x->cfg.members +
		    m->rank;
	else
		i = rte_be_to_cpu_32(l->dst.ip) - rte_be_to_cpu_32(x->mb[0].ep.ip);
	return i < x->nb_mb && (x->cfg.mode != LB_REFLECT ||
				m->rank < x->cfg.members) ? &x->mb[i] : NULL;
}

/* A frame back for @mb in the stream: is it what it must be? */
static int lb_check(struct lb_ctx *x, struct lb_member *mb,
		    const struct optinc_msg *m, uint64_t i, uint32_t len)
{
	uint32_t n = lb_frame_elems(x), b;
	uint8_t type = x->cfg.mode == LB_REFLECT ? OPTINC_T_DATA :
						   OPTINC_T_RESULT;
	const uint8_t *want;

	if (m->type != type)
		return lb_bad(mb, m->seq, "wrong type");
	if (m->slot != m->seq % x->sw_window ||
	    (m->flags & OPTINC_F_ALL) != ((m->seq / x->sw_window) & 1))
		return lb_bad(mb, m->seq, "wrong slot, shadow bit or flags");
	if (m->op != OPTINC_OP_AVG || m->bits != 8 || m->count != n ||
	    m->nscale != x->nscale || m->block != x->cfg.block)
		return lb_bad(mb, m->seq, "wrong op, bits, count or scales");
	if (len != OPTINC_HDR_LEN + optinc_msg_payload_len(8, n, m->nscale))
		return lb_bad(mb, m->seq, "wrong payload length");
	for (b = 0; b < x->nscale; b++)
		if (m->scales[b] != lb_scale(i, b))
			return lb_bad(mb, m->seq, "other exponents than were sent");
	want = x->cfg.mode == LB_REFLECT ?
	       rte_pktmbuf_mtod(mb->pat, const uint8_t *) : x->want;
	if (memcmp(m->elems, want + i % LB_PAT, n))
		return lb_bad(mb, m->seq, "wrong values");
	return 0;
}

static int lb_join_ack(struct lb_ctx *x, struct lb_member *mb,
		       const struct optinc_l2l4 *l, const struct optinc_msg *m)
{
	if (m->type == OPTINC_T_NACK) {
		fprintf(stderr, "optinc-line-bench: member %u: JOIN of job %u refused (reason %u)\n",
			mb->rank, mb->job, m->aux);
		return -EPERM;
	}
	if (m->type != OPTINC_T_JOIN_ACK || m->seq != mb->nonce ||
	    m->rank != mb->rank) {
		x->st.other++;
		return 0;
	}
	if (m->size != x->cfg.members || !m->slot || m->count < x->cfg.elems) {
		fprintf(stderr, "optinc-line-bench: job %u has %u members, window %u, %u elements per frame (we are %u members of %u elements)\n",
			mb->job, m->size, m->slot, m->count, x->cfg.members,
			x->cfg.elems);
		return -EPROTO;
	}
	memcpy(x->sw.mac, l->src.mac, sizeof(x->sw.mac));
	x->sw_window = m->slot;
	if (m->aux >= m->size)
		mb->joined = 1;
	return 0;
}

/* One frame back: a JOIN answer, a result (or reflected frame) of the stream. */
static int lb_take(struct lb_ctx *x, uint16_t port, const uint8_t *f,
		   uint32_t len, uint64_t now)
{
	struct optinc_l2l4 l;
	struct optinc_msg m;
	struct lb_member *mb;
	uint64_t i;
	uint16_t udp = x->cfg.mode == LB_REFLECT ? x->cfg.sw_port : LB_UDP_PORT;

	if (optinc_parse_l2l4(f, len, udp, &l) <= 0 ||
	    optinc_msg_parse(f + l.l4_off, l.l4_len, &m) != OPTINC_DROP_NONE ||
	    !(mb = lb_member_of(x, &l, &m)) || mb->port != port) {
		x->st.other++;
		return 0;
	}
	if (m.job != mb->job || m.token != x->cfg.token)
		return lb_bad(mb, m.seq, "wrong job or token");
	if (m.type == OPTINC_T_JOIN_ACK || m.type == OPTINC_T_NACK)
		return lb_join_ack(x, mb, &l, &m);
	/* seqs count the stream's frames from 0; a window is far below 2^31 */
	i = mb->low + (uint32_t)(m.seq - (uint32_t)mb->low);
	if ((int32_t)(m.seq - (uint32_t)mb->low) < 0 ||
	    (i < mb->next && mb->done[i % x->cfg.window])) {
		x->st.dup++;
		return 0;
	}
	if (i >= mb->next)
		return lb_bad(mb, m.seq, "not in flight");
	if (lb_check(x, mb, &m, i, l.l4_len))
		return -EPROTO;
	mb->done[i % x->cfg.window] = 1;
	mb->last_rx = now;
	x->st.rx++;
	x->st.rx_bytes += len;
	if (i + 1 > mb->hi)
		mb->hi = i + 1;
	while (mb->low < mb->next && mb->done[mb->low % x->cfg.window])
		mb->low++;
	return 0;
}

static int lb_rx(struct lb_ctx *x, uint64_t now)
{
	struct rte_mbuf *pkts[LB_BURST];
	uint16_t i, k, nb;
	int err = 0, got = 0;

	for (i = 0; i < x->nb_txq; i++) {
		nb = rte_eth_rx_burst(x->ports[i].id, x->ports[i].queue, pkts,
				      LB_BURST);
		for (k = 0; k < nb; k++) {
			if (!err)
				err = lb_take(x, i / x->cfg.queues,
					      rte_pktmbuf_mtod(pkts[k], uint8_t *),
					      rte_pktmbuf_data_len(pkts[k]), now);
			rte_pktmbuf_free(pkts[k]);
		}
		got += nb;
	}
	return err ? err : got;
}

/* ---- the members' streams ---- */

/* Queue what @mb's window allows, up to a burst. */
static unsigned int lb_fill(struct lb_ctx *x, struct lb_member *mb)
{
	struct lb_port *p = lb_txq(x, mb);
	unsigned int k = 0;
	struct rte_mbuf *m;

	while (mb->next < x->total && mb->next < mb->low + x->cfg.window &&
	       k < LB_BURST && p->len < RTE_DIM(p->tx)) {
		m = lb_data(x, mb, mb->next);
		if (unlikely(!m))
			break;
		mb->done[mb->next % x->cfg.window] = 0;
		p->tx[p->len++] = m;
		mb->next++;
		k++;
	}
	return k;
}

/*
 * Nothing back for @mb for a while: send again the oldest frame without
 * its answer and every hole before the latest one back.
 */
static void lb_retx(struct lb_ctx *x, struct lb_member *mb, uint64_t now)
{
	struct rte_mbuf *m;
	uint64_t i;

	for (i = mb->low; i < mb->next && (i == mb->low || i < mb->hi); i++) {
		if (mb->done[i % x->cfg.window])
			continue;
		m = lb_data(x, mb, i);
		if (!m)
			return;
		lb_queue(lb_txq(x, mb), m);
		x->st.retx++;
	}
	mb->last_rx = now;
}

static uint64_t lb_cpu_ns(int pid)
{
	char path[64], line[128];
	unsigned long long ns, sum = 0;
	struct dirent *e;
	FILE *f;
	DIR *d;

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/schedstat",
			 pid, e->d_name);
		f = fopen(path, "r");
		if (f && fgets(line, sizeof(line), f) &&
		    sscanf(line, "%llu", &ns) == 1)
			sum += ns;
		if (f)
			fclose(f);
	}
	closedir(d);
	return sum;
}

/* ---- the switch's lcores: its counters and each lcore thread's CPU ---- */

#define LB_MAX_LCORES	16

struct lb_lcores {
	unsigned int n;
	uint64_t hz;
	uint64_t lcore[LB_MAX_LCORES], frames[LB_MAX_LCORES];
	uint64_t busy[LB_MAX_LCORES], cpu_ns[LB_MAX_LCORES];
	uint64_t handed_in[LB_MAX_LCORES], handed_out[LB_MAX_LCORES];
};

static uint64_t lb_json_u64(const char *obj, const char *end, const char *key)
{
	char k[48];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(obj, k);
	return p && p < end ? strtoull(p + strlen(k), NULL, 10) : 0;
}

/* CPU time of the switch's thread for @lcore: worker 0 is its main thread. */
static uint64_t lb_lcore_ns(int pid, unsigned int worker, uint64_t lcore)
{
	char path[80], want[32], comm[32] = "", line[128];
	unsigned long long ns = 0;
	struct dirent *e;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	snprintf(want, sizeof(want), "rte-worker-%" PRIu64, lcore);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/comm", pid, e->d_name);
		f = fopen(path, "r");
		if (f && !fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		if (f)
			fclose(f);
		comm[strcspn(comm, "\n")] = '\0';
		if (worker ? strcmp(comm, want) : atoi(e->d_name) != pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/schedstat", pid,
			 e->d_name);
		f = fopen(path, "r");
		if (f && (!fgets(line, sizeof(line), f) || sscanf(line, "%llu", &ns) != 1))
			ns = 0;
		if (f)
			fclose(f);
		break;
	}
	if (d)
		closedir(d);
	return ns;
}

/*
 * The switch's per-lcore counters (optincctl -j daemon lcores), then each
 * lcore thread's CPU time: frames each switched, busy cycles, hand-offs.
 */
static void lb_lcores_get(const struct lb_ctx *x, struct lb_lcores *lc)
{
	char cmd[512], buf[16384];
	const char *p, *end;
	size_t len;
	FILE *f;

	memset(lc, 0, sizeof(*lc));
	if (!x->cfg.ctl || x->cfg.peer <= 0)
		return;
	snprintf(cmd, sizeof(cmd), "'%s' --prefix '%s' -j daemon lcores",
		 x->cfg.ctl, x->cfg.prefix);
	f = popen(cmd, "r");
	if (!f)
		return;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	pclose(f);
	buf[len] = '\0';
	for (p = strstr(buf, "{\"worker\":"); p && lc->n < LB_MAX_LCORES;
	     p = strstr(end, "{\"worker\":"), lc->n++) {
		unsigned int i = lc->n;

		end = strchr(p, '}');
		if (!end)
			break;
		lc->lcore[i] = lb_json_u64(p, end, "lcore");
		lc->handed_in[i] = lb_json_u64(p, end, "handed_in");
		lc->handed_out[i] = lb_json_u64(p, end, "handed_out");
		lc->frames[i] = lb_json_u64(p, end, "rx_frames") -
				lc->handed_out[i] + lc->handed_in[i];
		lc->busy[i] = lb_json_u64(p, end, "busy_cycles");
		lc->hz = lb_json_u64(p, end, "tsc_hz");
		lc->cpu_ns[i] = lb_lcore_ns(x->cfg.peer, i, lc->lcore[i]);
	}
}

/*
 * Per switch lcore, over the timed part: frames it switched, its thread's
 * CPU time and its busy time (TSC of rounds that had frames), per frame.
 * Both bound the time it spent switching from above: CPU time includes
 * its empty polls, busy time the time it was preempted in a busy round.
 * So frames / min(CPU, busy) is a lower bound of the frames/s that lcore
 * switches with a CPU of its own, and their sum over lcores, "capacity",
 * is what a machine with a CPU per lcore and a faster generator would at
 * least reach (memory bandwidth permitting), where one with fewer CPUs
 * than lcores plus generator cannot show it as a rate.
 */
static void lb_lcores_report(const struct lb_lcores *a, const struct lb_lcores *b)
{
	double cap_cpu = 0, cap_busy = 0, cap = 0, cpu, busy;
	uint64_t fr, hi = 0, ho = 0;
	unsigned int i;

	if (!a->n || a->n != b->n)
		return;
	for (i = 0; i < b->n; i++) {
		fr = b->frames[i] - a->frames[i];
		cpu = (b->cpu_ns[i] - a->cpu_ns[i]) * 1e-9;
		busy = (double)(b->busy[i] - a->busy[i]) / (double)b->hz;
		hi += b->handed_in[i] - a->handed_in[i];
		ho += b->handed_out[i] - a->handed_out[i];
		printf("lcore=%" PRIu64 " frames=%" PRIu64 " cpu_s=%.4f busy_s=%.4f "
		       "cpu_cycles_per_frame=%.0f busy_cycles_per_frame=%.0f\n",
		       b->lcore[i], fr, cpu, busy, fr ? cpu * b->hz / fr : 0.0,
		       fr ? busy * b->hz / fr : 0.0);
		cap_cpu += cpu > 0 ? fr / cpu : 0;
		cap_busy += busy > 0 ? fr / busy : 0;
		cap += cpu > 0 && busy > 0 ? fr / RTE_MIN(cpu, busy) : 0;
	}
	printf("lcores=%u capacity=%.0f capacity_cpu=%.0f capacity_busy=%.0f "
	       "handed_over=%" PRIu64 " handed_in=%" PRIu64 "\n", b->n, cap,
	       cap_cpu, cap_busy, ho, hi);
}

struct lb_mark {
	uint64_t tsc, cpu_ns, own_ns;
	struct lb_stats st;
	struct lb_lcores lc;
};

static uint64_t lb_own_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/*
 * At the start the switch's lcore counters come first (optincctl takes a
 * few ms, while the streams wait), at the end last (after the streams).
 */
static void lb_mark(struct lb_ctx *x, struct lb_mark *k, int start)
{
	if (start)
		lb_lcores_get(x, &k->lc);
	k->cpu_ns = lb_cpu_ns(x->cfg.peer);
	k->own_ns = lb_own_ns();
	k->tsc = rte_get_tsc_cycles();
	k->st = x->st;
	if (!start)
		lb_lcores_get(x, &k->lc);
}

/* One round: fill every window, send, receive; retransmit after silence. */
static int lb_round(struct lb_ctx *x, uint64_t timeout)
{
	uint64_t now = rte_get_tsc_cycles();
	unsigned int sent = 0, r;
	uint16_t i;
	int got;

	for (r = 0; r < x->nb_mb; r++)
		lb_fill(x, &x->mb[r]);
	for (i = 0; i < x->nb_txq; i++)
		sent += lb_flush(&x->ports[i]);
	got = lb_rx(x, now);
	if (got < 0)
		return got;
	if (!got && !sent)
		x->st.idle_tsc += rte_get_tsc_cycles() - now;
	for (r = 0; !got && r < x->nb_mb; r++) {
		struct lb_member *mb = &x->mb[r];

		if (mb->low < mb->next && now - mb->last_rx > timeout)
			lb_retx(x, mb, now);
		if (now - mb->last_rx > x->tsc_hz * (LB_GIVEUP_MS / 1000) &&
		    mb->low < mb->next)
			return lb_bad(mb, (uint32_t)mb->low, "none back after 10 s");
	}
	return 0;
}

static int lb_done(const struct lb_ctx *x, uint64_t upto)
{
	unsigned int r;

	for (r = 0; r < x->nb_mb; r++)
		if (x->mb[r].low < upto)
			return 0;
	return 1;
}

static int lb_stream(struct lb_ctx *x, struct lb_mark *t0, struct lb_mark *t1)
{
	uint64_t timeout = x->tsc_hz * x->cfg.timeout_ms / 1000, now;
	unsigned int r;
	int err = 0, marked = !x->cfg.warmup;

	now = rte_get_tsc_cycles();
	for (r = 0; r < x->nb_mb; r++)
		x->mb[r].last_rx = now;
	if (marked)
		lb_mark(x, t0, 1);
	while (!err && !lb_done(x, x->total) && !lb_quit) {
		err = lb_round(x, timeout);
		if (!marked && lb_done(x, x->cfg.warmup)) {
			lb_mark(x, t0, 1);
			marked = 1;
		}
	}
	lb_mark(x, t1, 0);
	return err ? err : lb_quit ? -EINTR : 0;
}

/* ---- set-up ---- */

static int lb_join(struct lb_ctx *x)
{
	uint64_t every = x->tsc_hz * LB_JOIN_EVERY_MS / 1000, next = 0;
	uint64_t end = rte_get_tsc_cycles() + x->tsc_hz * LB_JOIN_MS / 1000;
	unsigned int r, all;
	uint16_t i;
	int err;

	while (rte_get_tsc_cycles() < end && !lb_quit) {
		for (r = 0, all = 1; r < x->nb_mb; r++)
			all &= x->mb[r].joined;
		if (all)
			return 0;
		if (rte_get_tsc_cycles() >= next) {
			for (r = 0; r < x->nb_mb; r++)
				if (!x->mb[r].joined)
					lb_join_send(x, &x->mb[r]);
			next = rte_get_tsc_cycles() + every;
		}
		for (i = 0; i < x->nb_txq; i++)
			lb_flush(&x->ports[i]);
		err = lb_rx(x, rte_get_tsc_cycles());
		if (err < 0)
			return err;
	}
	fprintf(stderr, "optinc-line-bench: not every member joined jobs %u..%u in %u ms\n",
		x->cfg.job, x->cfg.job + x->cfg.jobs - 1, LB_JOIN_MS);
	return -ETIMEDOUT;
}

/* What every RESULT must hold: the average of the members' values, by the core. */
static int lb_want(struct lb_ctx *x)
{
	uint32_t n = lb_frame_elems(x) + LB_PAT, r, j, acc_len;
	const struct optinc_table *tab = NULL;
	struct optinc_table t;
	enum optinc_kind k = OPTINC_K_AVG8;
	void *buf = NULL;
	uint32_t *acc;
	long len = 0;
	const char *why = "unreadable";
	FILE *f;
	int bad = 0;

	if (x->cfg.table) {
		f = fopen(x->cfg.table, "rb");
		if (f && !fseek(f, 0, SEEK_END) && (len = ftell(f)) > 0 &&
		    !fseek(f, 0, SEEK_SET) && (buf = malloc(len)) &&
		    fread(buf, 1, len, f) == (size_t)len)
			why = NULL;
		if (f)
			fclose(f);
		if (why || optinc_table_parse(buf, len, &t, &why) ||
		    t.members != x->cfg.members || t.bits != 8 || t.fanin) {
			fprintf(stderr, "optinc-line-bench: table %s: %s\n",
				x->cfg.table, why ? why : "not for these members");
			free(buf);
			return -EINVAL;
		}
		tab = &t;
		k = OPTINC_K_ONN8;
	}
	acc_len = 4 * n;
	acc = aligned_alloc(64, RTE_ALIGN_CEIL(acc_len, 64));
	x->want = malloc(n);
	if (!acc || !x->want) {
		free(acc);
		free(buf);
		return -ENOMEM;
	}
	for (r = 0; r < x->cfg.members; r++) {
		const uint8_t *v = rte_pktmbuf_mtod(x->mb[r].pat, uint8_t *);

		if (r)
			optinc_acc_fold(k, acc, v, n);
		else
			optinc_acc_load(k, acc, v, n);
	}
	optinc_acc_finish(k, acc, n, (uint16_t)x->cfg.members, tab, x->want);
	for (j = 0; j < LB_PAT; j++)
		bad += x->want[j] != 98 + j;
	if (tab)
		printf("# table %s: %d of the stream's %d averages differ from the exact one\n",
		       x->cfg.table, bad, LB_PAT);
	free(acc);
	free(buf);
	return tab || !bad ? 0 : -EINVAL;
}

/* Rank r's values (every job's rank r sends the same): v + 2r - (N - 1). */
static struct rte_mbuf *lb_pattern(struct lb_ctx *x, uint32_t r)
{
	uint32_t n = lb_frame_elems(x) + LB_PAT, j;
	struct rte_mbuf *m = rte_pktmbuf_alloc(x->pool);
	int c = 2 * (int)r - ((int)x->cfg.members - 1);
	uint8_t *v;

	if (!m || rte_pktmbuf_tailroom(m) < n) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	/* the exact average is v */
	v = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)n);
	for (j = 0; j < n; j++)
		v[j] = (uint8_t)(98 + j % LB_PAT + c);
	return m;
}

/*
 * Member i = k * N + r, rank r of job ID + k: port r % ports, tx queue
 * k % spread (default: queues), 02:00:00:00:(1 + i / 256):(i % 256), 10.77.0.1 + i, UDP
 * LB_UDP_PORT.
 */
static int lb_members(struct lb_ctx *x)
{
	uint32_t i, r, k;

	x->nb_mb = x->cfg.jobs * x->cfg.members;
	x->mb = calloc(x->nb_mb, sizeof(*x->mb));
	if (!x->mb)
		return -ENOMEM;
	for (i = 0; i < x->nb_mb; i++) {
		struct lb_member *mb = &x->mb[i];

		r = i % x->cfg.members;
		k = i / x->cfg.members;
		mb->rank = (uint16_t)r;
		mb->job = (uint16_t)(x->cfg.job + k);
		mb->port = (uint16_t)(r % x->nb_ports);
		mb->queue = (uint16_t)(k % (x->cfg.spread ? x->cfg.spread :
						  x->cfg.queues));
		memcpy(mb->ep.mac, (uint8_t[]){ 2, 0, 0, 0, (uint8_t)(1 + i / 256),
						(uint8_t)i }, 6);
		mb->ep.ip = rte_cpu_to_be_32(RTE_IPV4(10, 77, 0, 1) + i);
		mb->ep.port = rte_cpu_to_be_16(LB_UDP_PORT);
		if (getrandom(&mb->nonce, sizeof(mb->nonce), 0) != sizeof(mb->nonce))
			mb->nonce = rte_rand();
		mb->done = calloc(x->cfg.window, 1);
		mb->pat = k ? x->mb[r].pat : lb_pattern(x, r);
		if (!mb->done || !mb->pat)
			return -ENOMEM;
	}
	return 0;
}

static int lb_setup(struct lb_ctx *x)
{
	struct lb_cfg *c = &x->cfg;
	int err;

	x->tsc_hz = rte_get_tsc_hz();
	x->pool = rte_pktmbuf_pool_create("lb_pool", 4095, 256, 0,
					  RTE_PKTMBUF_HEADROOM + LB_MAX_FRAME,
					  rte_socket_id());
	x->hdr_pool = rte_pktmbuf_pool_create("lb_hdr", 16383, 256, 0,
					      RTE_PKTMBUF_HEADROOM + LB_HDR_ROOM,
					      rte_socket_id());
	if (!x->pool || !x->hdr_pool) {
		fprintf(stderr, "optinc-line-bench: mbuf pools: %s (raise -m)\n",
			rte_strerror(rte_errno));
		return -ENOMEM;
	}
	err = lb_ports(x);
	if (err)
		return err;
	if (!c->members)
		c->members = x->nb_ports;
	x->nscale = (c->elems + c->block - 1) / c->block;
	x->frame_len = OPTINC_FRAME_OVERHEAD + OPTINC_SCALES_LEN(x->nscale) +
		       c->elems;
	x->total = c->warmup + c->frames;
	x->sw.ip = c->sw_ip;
	x->sw.port = rte_cpu_to_be_16(c->sw_port);
	memcpy(x->sw.mac, (uint8_t[]){ 2, 0, 0, 0, 1, 0xfe }, 6);
	x->sw_window = c->window;
	err = lb_members(x);
	if (!err && c->mode == LB_OPTINC)
		err = lb_want(x);
	if (!err && c->mode == LB_OPTINC)
		err = lb_join(x);
	if (c->window > x->sw_window)
		c->window = x->sw_window;
	return err;
}

static void lb_report(const struct lb_ctx *x, const struct lb_mark *t0,
		      const struct lb_mark *t1)
{
	double secs = (double)(t1->tsc - t0->tsc) / x->tsc_hz;
	uint64_t frames = t1->st.rx - t0->st.rx;
	uint64_t bytes = frames * x->frame_len;
	double cpu = (t1->cpu_ns - t0->cpu_ns) * 1e-9;
	double own = (t1->own_ns - t0->own_ns) * 1e-9;
	uint64_t idle = t1->st.idle_tsc - t0->st.idle_tsc;

	printf("# optinc-line-bench: mode %s, %u members on %u ports, %u job(s) "
	       "from %u on %u queue(s), %u elements per frame (%u-byte frames), "
	       "window %u, %lu frames per member after %lu warm-up\n",
	       x->cfg.mode == LB_REFLECT ? "reflect" : "optinc", x->cfg.members,
	       x->nb_ports, x->cfg.jobs, x->cfg.job, x->cfg.queues, x->cfg.elems,
	       x->frame_len, x->cfg.window, x->cfg.frames, x->cfg.warmup);
	printf("frames_in=%" PRIu64 " secs=%.4f frames_per_s=%.0f elems_per_s=%.4g "
	       "gbit_in=%.2f peer_cpu_s=%.4f cycles_per_frame=%.0f peer_cpu_wall=%.3f "
	       "gen_cpu_wall=%.3f gen_idle=%.3f\n",
	       frames, secs, frames / secs, frames * (double)x->cfg.elems / secs,
	       bytes * 8 / secs / 1e9, cpu,
	       frames && x->cfg.peer ? cpu * x->tsc_hz / frames : 0.0,
	       cpu / secs, own / secs,
	       (double)idle / (double)(t1->tsc - t0->tsc));
	printf("# %" PRIu64 " frames back, all checked (seq, slot, shadow bit, shape, "
	       "length, exponents, values), warm-up included; %" PRIu64
	       " duplicates, %" PRIu64 " retransmitted, %" PRIu64 " other\n",
	       t1->st.rx, t1->st.dup, t1->st.retx, t1->st.other);
	lb_lcores_report(&t0->lc, &t1->lc);
}

/*
 * Leave the switch idle before disconnecting: DPDK 22.11's memif unmaps
 * the shared memory in its control thread while the peer's lcore may be
 * in a burst on it (a switch sending results when the client goes away
 * was seen to crash). Take what still comes, until 50 ms of silence.
 */
static void lb_drain(struct lb_ctx *x)
{
	uint64_t quiet = x->tsc_hz / 20, end = rte_get_tsc_cycles() + x->tsc_hz;
	uint64_t last = rte_get_tsc_cycles(), now;
	struct rte_mbuf *pkts[LB_BURST];
	uint16_t i, k, nb;

	do {
		now = rte_get_tsc_cycles();
		for (i = 0; i < x->nb_txq; i++) {
			nb = rte_eth_rx_burst(x->ports[i].id, x->ports[i].queue,
					      pkts, LB_BURST);
			for (k = 0; k < nb; k++)
				rte_pktmbuf_free(pkts[k]);
			if (nb)
				last = now;
		}
	} while (now - last < quiet && now < end);
}

static void lb_close(struct lb_ctx *x)
{
	uint16_t i;

	if (x->nb_ports && x->tsc_hz)
		lb_drain(x);
	for (i = 0; i < x->nb_ports; i++) {
		rte_eth_dev_stop(x->ports[i * x->cfg.queues].id);
		rte_eth_dev_close(x->ports[i * x->cfg.queues].id);
	}
}

int main(int argc, char **argv)
{
	static struct lb_ctx x = {
		.cfg = { .window = 64, .elems = 8704, .block = 256,
			 .timeout_ms = 20, .frames = 20000, .warmup = 2000,
			 .job = 1, .sw_port = OPTINC_UDP_PORT, .jobs = 1,
			 .queues = 1 },
	};
	struct lb_mark t0, t1;
	int ret, err;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "optinc-line-bench: EAL arguments\n");
	x.cfg.sw_ip = rte_cpu_to_be_32(RTE_IPV4(10, 77, 0, 254));
	if (lb_parse(&x.cfg, argc - ret, argv + ret)) {
		lb_usage();
		rte_eal_cleanup();
		return EXIT_FAILURE;
	}
	signal(SIGINT, lb_signal);
	signal(SIGTERM, lb_signal);
	err = lb_setup(&x);
	if (!err)
		err = lb_stream(&x, &t0, &t1);
	if (!err)
		lb_report(&x, &t0, &t1);
	else
		fprintf(stderr, "optinc-line-bench: failed: %s\n", strerror(-err));
	lb_close(&x);
	rte_eal_cleanup();
	return err ? EXIT_FAILURE : EXIT_SUCCESS;
}
