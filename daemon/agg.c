// SPDX-License-Identifier: BSD-3-Clause
/*
 * The aggregation datapath: an OptINC frame to the switch goes through
 * port security and the core's slot state machine, and what they decide is
 * sent (results to every member, JOIN_ACKs, NACKs). The jobs are job.c's,
 * their truth tables table.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <rte_cycles.h>
#include "optincd.h"

static const struct optinc_conf *agg_conf;
/* --rate-limit in TSC ticks, set once at init */
static struct optinc_rl_conf agg_rl;

/* The configuration optinc_agg_dp_init() took (table.c: --table-dir). */
const struct optinc_conf *optinc_agg_conf(void)
{
	return agg_conf;
}

/* The switch's address and the rate limit, before any job (job.c). */
int optinc_agg_dp_init(const struct optinc_conf *c)
{
	int ret;

	agg_conf = c;
	ret = optinc_rl_conf_set(&agg_rl, c->rl_pps, c->rl_burst,
				 rte_get_tsc_hz());
	if (ret)
		OPTINC_LOG(ERR, "--rate-limit %u,%u: %s", c->rl_pps,
			   c->rl_burst, strerror(-ret));
	return ret;
}


/*
 * Where a member's frames go: its bound port (every member that joined is
 * bound, lib/core/bind.c), never where its MAC was seen last.
 */
static uint16_t agg_member_port(const struct optinc_agg_job *j, uint16_t rank,
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

uint16_t optinc_agg_member_port(const struct optinc_agg_job *j, uint16_t rank,
				uint64_t now)
{
	return agg_member_port(j, rank, now);
}

static void agg_count_out(struct optinc_agg_job *j, int rank, uint32_t len)
{
	if (j) {
		OPTINC_STAT_INC(j->stats.frames_out);
		OPTINC_STAT_ADD(j->stats.bytes_out, len);
	}
	if (j && rank >= 0) {
		OPTINC_STAT_INC(j->stats.member[rank].frames_out);
		OPTINC_STAT_ADD(j->stats.member[rank].bytes_out, len);
	}
}

/* Send @m holding a built frame of @len bytes (0: it did not fit). */
static void agg_xmit(struct optinc_agg_job *j, int rank, uint16_t port,
		     struct rte_mbuf *m, uint32_t len)
{
	uint64_t *errs = j ? &j->stats.tx_errors : &optinc_sw()->tx_errors;

	if (unlikely(!len)) {
		rte_pktmbuf_free(m);
		OPTINC_STAT_INC(*errs);
		return;
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	agg_count_out(j, rank, len);
	optinc_port_tx(port, m);
}

/* An mbuf on @port's pool, with where to build and how much room. */
static struct rte_mbuf *agg_alloc(struct optinc_agg_job *j, uint16_t port,
				  uint8_t **buf, uint32_t *room)
{
	struct rte_mbuf *m = optinc_port_alloc(port);

	if (unlikely(!m)) {
		OPTINC_STAT_INC(*(j ? &j->stats.tx_errors : &optinc_sw()->tx_errors));
		return NULL;
	}
	/* a frame longer than the port's MTU would die at the receiver */
	*buf = rte_pktmbuf_mtod(m, uint8_t *);
	*room = RTE_MIN(rte_pktmbuf_tailroom(m),
			(uint32_t)optinc_ports[port].mtu + RTE_ETHER_HDR_LEN);
	return m;
}

static void agg_send_result(struct optinc_agg_job *j,
			    const struct optinc_slot *s, uint16_t rank,
			    uint16_t port)
{
	struct rte_mbuf *m;
	uint32_t room;
	uint8_t *buf;

	m = agg_alloc(j, port, &buf, &room);
	if (m)
		agg_xmit(j, rank, port, m, optinc_build_result(buf, room,
				&j->core, s, &agg_conf->sw, rank));
}

/* Member @rank's frame: its headers in @h, then @d attached to @pay. */
static void agg_send_chained(struct optinc_agg_job *j,
			     const struct optinc_slot *s, uint16_t rank,
			     uint16_t port, struct rte_mbuf *pay,
			     struct rte_mbuf *h, struct rte_mbuf *d)
{
	uint32_t hdr, max = (uint32_t)optinc_ports[port].mtu + RTE_ETHER_HDR_LEN;

	hdr = optinc_build_result_hdr(rte_pktmbuf_mtod(h, void *),
				      rte_pktmbuf_tailroom(h), &j->core, s,
				      &agg_conf->sw, rank);
	if (unlikely(!hdr || hdr + s->res_len > max)) {
		rte_pktmbuf_free(h);
		rte_pktmbuf_free(d);
		OPTINC_STAT_INC(j->stats.tx_errors);
		return;
	}
	rte_pktmbuf_attach(d, pay);
	h->data_len = (uint16_t)hdr;
	h->next = d;
	h->nb_segs = 2;
	h->pkt_len = hdr + s->res_len;
	agg_count_out(j, rank, h->pkt_len);
	optinc_port_tx(port, h);
}

/*
 * Unit T: slot @s's result to every member. Where every member's port
 * sends chained mbufs, the elements are copied once, into @pay, and each
 * member's frame is its own headers followed by an indirect mbuf on @pay
 * (the port copies or DMAs from it; @pay goes back to its pool with the
 * last of them). Else, or without mbufs for that, every frame is built
 * whole. Return: 0 when sent chained.
 */
static int agg_send_results_chained(struct optinc_agg_job *j,
				    const struct optinc_slot *s,
				    const uint16_t *ports)
{
	struct rte_mbuf *m[2 * OPTINC_MAX_MEMBERS], *pay;
	uint16_t r, n = j->core.size;

	for (r = 0; r < n; r++)
		if (!optinc_ports[ports[r]].tx_chain)
			return -ENOTSUP;
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
		agg_send_chained(j, s, r, ports[r], pay, m[2 * r], m[2 * r + 1]);
	rte_pktmbuf_free(pay);	/* the frames hold it now */
	return 0;
}

static void agg_send_results(struct optinc_agg_job *j,
			     const struct optinc_slot *s, uint64_t now)
{
	uint16_t ports[OPTINC_MAX_MEMBERS], r;

	for (r = 0; r < j->core.size; r++)
		ports[r] = agg_member_port(j, r, now);
	if (j->core.size > 1 && !agg_send_results_chained(j, s, ports))
		return;
	for (r = 0; r < j->core.size; r++)
		agg_send_result(j, s, r, ports[r]);
}

static void agg_send_ack(struct optinc_agg_job *j, uint16_t rank, uint64_t now)
{
	uint16_t port = agg_member_port(j, rank, now);
	struct optinc_msg ack;
	struct rte_mbuf *m;
	uint32_t room;
	uint8_t *buf;

	m = agg_alloc(j, port, &buf, &room);
	if (!m)
		return;
	optinc_job_ack(&j->core, rank, &ack);
	OPTINC_STAT_INC(j->stats.join_acks);
	agg_xmit(j, rank, port, m, optinc_build_ctrl(buf, room, &ack,
			&agg_conf->sw, &j->core.members[rank].ep));
}

/* Refuse a JOIN: the NACK goes back where the JOIN came from. */
static void agg_send_nack(struct optinc_agg_job *j, const struct optinc_msg *req,
			  enum optinc_drop why, const struct optinc_l2l4 *l,
			  uint16_t port)
{
	struct optinc_msg nack;
	struct rte_mbuf *m;
	uint32_t room;
	uint8_t *buf;

	OPTINC_LOG_AGG(DEBUG, "job %u: JOIN of rank %u from port %u refused: %s",
		       req->job, req->rank, port, optinc_drop_names[why]);
	m = agg_alloc(j, port, &buf, &room);
	if (!m)
		return;
	optinc_nack(req, why, &nack);
	OPTINC_STAT_INC(*(j ? &j->stats.nacks : &optinc_sw()->nacks));
	agg_xmit(j, -1, port, m, optinc_build_ctrl(buf, room, &nack,
			&agg_conf->sw, &l->src));
}

static void agg_send_all(struct optinc_agg_job *j, const struct optinc_slot *s,
			 uint64_t now)
{
	uint16_t r;

	if (s) {
		agg_send_results(j, s, now);
		return;
	}
	for (r = 0; r < j->core.size; r++)
		agg_send_ack(j, r, now);
}

static void agg_count_in(struct optinc_agg_job *j, const struct optinc_msg *msg,
			 uint32_t len)
{
	OPTINC_STAT_INC(j->stats.frames_in);
	OPTINC_STAT_ADD(j->stats.bytes_in, len);
	if (msg->rank < j->core.size) {
		OPTINC_STAT_INC(j->stats.member[msg->rank].frames_in);
		OPTINC_STAT_ADD(j->stats.member[msg->rank].bytes_in, len);
	}
}

static void agg_drop(struct optinc_agg_job *j, enum optinc_drop why,
		     uint16_t port)
{
	OPTINC_STAT_INC(*(j ? &j->stats.drops[why] : &optinc_sw()->drops[why]));
	OPTINC_STAT_INC(optinc_pstats(port)->rx_dropped);
}

/* Port security's drops: a spoofed MAC, or a bound member's frame from elsewhere. */
static void agg_drop_bind(struct optinc_agg_job *j, enum optinc_bind_verdict v,
			  uint16_t port)
{
	struct optinc_port_stats *ps = optinc_pstats(port);

	if (v == OPTINC_BIND_SPOOF) {
		OPTINC_STAT_INC(ps->spoofed);
		if (j)
			OPTINC_STAT_INC(j->stats.spoofed);
	} else {
		OPTINC_STAT_INC(ps->wrong_port);
		OPTINC_STAT_INC(j->stats.wrong_port);
	}
	OPTINC_STAT_INC(ps->rx_dropped);
}

/*
 * Bounded abuse: a JOIN, or a frame failing @j's token or membership
 * check, past @port's limit. Dropped without any answer, counted once.
 */
static bool agg_rate_limited(const struct optinc_agg_job *j,
			     const struct optinc_msg *msg,
			     const struct optinc_l2l4 *l, uint16_t port,
			     uint64_t now)
{
	struct optinc_port_q *q = &optinc_self()->q[port];

	if (likely(optinc_rl_rx(&q->rl, &agg_rl, j ? &j->core : NULL, msg,
				&l->src, now) != OPTINC_RL_LIMITED))
		return false;
	OPTINC_STAT_INC(q->stats.rate_limited);
	OPTINC_STAT_INC(q->stats.rx_dropped);
	return true;
}

/* Debug (optinc.agg): an accepted JOIN, with how many have joined. */
static void agg_log_join(const struct optinc_agg_job *j, uint16_t rank,
			 const struct optinc_endpoint *src, uint16_t port)
{
	char mac[24], ip[INET_ADDRSTRLEN];

	if (likely(!rte_log_can_log(optinc_logtype_agg, RTE_LOG_DEBUG)))
		return;
	optinc_mac_fmt(mac, sizeof(mac), src->mac);
	inet_ntop(AF_INET, &src->ip, ip, sizeof(ip));
	OPTINC_LOG_AGG(DEBUG, "job %u: rank %u joined from port %u (mac %s, "
		       "%s:%u), %u of %u members", j->conf.id, rank, port, mac,
		       ip, rte_be_to_cpu_16(src->port),
		       (unsigned int)__builtin_popcountll(j->core.joined),
		       j->core.size);
}

/* @rank's JOIN from @port was accepted: bind it, and pin its MAC there. */
static void agg_bind(struct optinc_agg_job *j, uint16_t rank,
		     const struct optinc_endpoint *src, uint16_t port,
		     uint64_t now)
{
	struct optinc_endpoint old;
	struct rte_ether_addr mac;
	char was[24], is[24];
	uint32_t old_port = 0;

	switch (optinc_bind_join(&j->bind, rank, src, port, &old, &old_port)) {
	case OPTINC_BIND_SAME:
		return;
	case OPTINC_BIND_MOVED:
		memcpy(mac.addr_bytes, old.mac, RTE_ETHER_ADDR_LEN);
		optinc_l2_unpin(&mac, (uint16_t)old_port, now);
		OPTINC_STAT_INC(j->stats.rebinds);
		optinc_mac_fmt(was, sizeof(was), old.mac);
		optinc_mac_fmt(is, sizeof(is), src->mac);
		OPTINC_LOG_AGG(NOTICE, "job %u: rank %u moved from port %u "
			       "(mac %s) to port %u (mac %s): rebound",
			       j->conf.id, rank, old_port, was, port, is);
		break;
	case OPTINC_BIND_NEW:
		break;
	}
	memcpy(mac.addr_bytes, src->mac, RTE_ETHER_ADDR_LEN);
	optinc_l2_pin(&mac, port, now);
}

/* Act on port security's and then the core's verdict on @msg. */
static void agg_verdict(struct optinc_agg_job *j, const struct optinc_msg *msg,
			const struct optinc_l2l4 *l, uint16_t port, uint64_t now,
			bool spoofed)
{
	enum optinc_bind_verdict bv;
	struct optinc_slot *s;
	enum optinc_drop why;

	bv = optinc_bind_rx(&j->bind, &j->core, msg, &l->src, port, spoofed);
	if (unlikely(bv != OPTINC_BIND_PASS)) {
		agg_drop_bind(j, bv, port);
		return;
	}
	if (unlikely(agg_rate_limited(j, msg, l, port, now)))
		return;
	switch (optinc_job_rx(&j->core, msg, &l->src, &why, &s)) {
	case OPTINC_V_DROP:
		agg_drop(j, why, port);
		break;
	case OPTINC_V_ABSORBED:
		break;
	case OPTINC_V_COMPLETE:
		OPTINC_STAT_INC(j->stats.slots_completed);
		agg_send_all(j, s, now);
		break;
	case OPTINC_V_RESEND:
		OPTINC_STAT_INC(j->stats.resends);
		agg_send_result(j, s, msg->rank,
				agg_member_port(j, msg->rank, now));
		break;
	case OPTINC_V_JOIN_ACK:
		OPTINC_STAT_INC(j->stats.joins);
		agg_bind(j, msg->rank, &l->src, port, now);
		agg_log_join(j, msg->rank, &l->src, port);
		if (optinc_uplink_joined(j, msg->rank, now))
			break;
		if (optinc_job_complete(&j->core))
			agg_send_all(j, NULL, now);
		else
			agg_send_ack(j, msg->rank, now);
		break;
	case OPTINC_V_NACK:
		agg_drop(j, why, port);
		agg_send_nack(j, msg, why, l, port);
		break;
	case OPTINC_V_FORWARD:
		optinc_uplink_forward(j, s, now);
		break;
	}
}

/**
 * optinc_agg_input() - an OptINC frame addressed to the switch
 * @m:    the frame; always consumed
 * @port: the port it came in on
 * @l:    its addresses and UDP payload, from optinc_parse_l2l4()
 * @now:  TSC of this poll round
 * @spoofed: its source MAC is pinned to another port; only a JOIN of the
 *        member that owns it (moving) gets past optinc_bind_rx()
 */
void optinc_agg_input(struct rte_mbuf *m, uint16_t port,
		      const struct optinc_l2l4 *l, uint64_t now, bool spoofed)
{
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	struct optinc_msg msg = { .job = 0 };
	struct optinc_agg_job *j = NULL;
	enum optinc_drop why;

	why = optinc_msg_parse(frame + l->l4_off, l->l4_len, &msg);
	if (why == OPTINC_DROP_NONE && !spoofed &&
	    optinc_uplink_input(&msg, l, port, now)) {
		rte_pktmbuf_free(m);
		return;
	}
	/* the job id is known once the header parsed past its type */
	if (msg.job)
		j = optinc_agg_live_find(msg.job);
	if (j)
		agg_count_in(j, &msg, rte_pktmbuf_pkt_len(m));
	if (unlikely(spoofed) && (why != OPTINC_DROP_NONE || !j ||
				  msg.type != OPTINC_T_JOIN)) {
		agg_drop_bind(why == OPTINC_DROP_NONE ? j : NULL,
			      OPTINC_BIND_SPOOF, port);
	} else if (why != OPTINC_DROP_NONE) {
		agg_drop(j, why, port);
	} else if (!j || unlikely(!j->served)) {
		if (unlikely(agg_rate_limited(NULL, &msg, l, port, now)))
			goto out_free;
		agg_drop(j, OPTINC_DROP_NO_JOB, port);
		if (msg.type == OPTINC_T_JOIN)
			agg_send_nack(j, &msg, OPTINC_DROP_NO_JOB, l, port);
	} else {
		agg_verdict(j, &msg, l, port, now, spoofed);
	}
out_free:
	rte_pktmbuf_free(m);
}

/* For uplink.c: building, sending and answering as this file does. */
struct rte_mbuf *optinc_agg_alloc(struct optinc_agg_job *j, uint16_t port,
				  uint8_t **buf, uint32_t *room)
{
	return agg_alloc(j, port, buf, room);
}

void optinc_agg_xmit(struct optinc_agg_job *j, int rank, uint16_t port,
		     struct rte_mbuf *m, uint32_t len)
{
	agg_xmit(j, rank, port, m, len);
}

void optinc_agg_send_all(struct optinc_agg_job *j, const struct optinc_slot *s,
			 uint64_t now)
{
	agg_send_all(j, s, now);
}
