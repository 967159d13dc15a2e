// SPDX-License-Identifier: BSD-3-Clause
/*
 * The aggregation datapath: an OptINC frame to the switch goes through
 * the switch's rules (lib/core/switch.c: port security, the rate limit,
 * the slot state machine, the reply plan) with optincd's ops for them:
 * counting, pinning a member's MAC, the port's rate limit, and sending
 * through tx.c. The jobs are job.c's, their truth tables table.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <rte_cycles.h>
#include <rte_random.h>
#include "optincd.h"

static const struct optinc_conf *agg_conf;
/* --rate-limit in TSC ticks, set once at init */
static struct optinc_rl_conf agg_rl;

/* The configuration optinc_agg_dp_init() took (table.c: --table-dir). */
const struct optinc_conf *optinc_agg_conf(void)
{
	return agg_conf;
}

/* The switch's address and the rate limit, before any job (main.c). */
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

/* The optincd job around a core job, or NULL. */
static struct optinc_agg_job *agg_job(struct optinc_job *core)
{
	return core ? container_of(core, struct optinc_agg_job, core) : NULL;
}

/*
 * The port's and the switch's side of an event (the job's counters are
 * lib/core/sw_count.c's); a frame of no job counts on the switch.
 */
static void agg_count_port(struct optinc_agg_job *j,
			   const struct optinc_sw_msg *in,
			   enum optinc_sw_event ev, uint32_t arg)
{
	struct optinc_sw_stats *sw = optinc_sw();
	struct optinc_port_stats *ps;

	if (ev == OPTINC_SW_SENT || ev == OPTINC_SW_TX_ERROR) {
		if (!j && ev == OPTINC_SW_TX_ERROR)
			OPTINC_STAT_INC(sw->tx_errors);
		else if (!j && arg == OPTINC_T_NACK)
			OPTINC_STAT_INC(sw->nacks);
		return;
	}
	if (ev != OPTINC_SW_DROPPED && ev != OPTINC_SW_SPOOFED &&
	    ev != OPTINC_SW_WRONG_PORT && ev != OPTINC_SW_RATE_LIMITED)
		return;
	ps = optinc_pstats((uint16_t)in->port);
	OPTINC_STAT_INC(ps->rx_dropped);	/* every dropped frame, once */
	if (ev == OPTINC_SW_SPOOFED)
		OPTINC_STAT_INC(ps->spoofed);
	else if (ev == OPTINC_SW_WRONG_PORT)
		OPTINC_STAT_INC(ps->wrong_port);
	else if (ev == OPTINC_SW_RATE_LIMITED)
		OPTINC_STAT_INC(ps->rate_limited);
	else if (!j)
		OPTINC_STAT_INC(sw->drops[arg]);
	if (ev == OPTINC_SW_DROPPED && in->m->type == OPTINC_T_JOIN)
		OPTINC_LOG_AGG(DEBUG, "job %u: JOIN of rank %u from port %u "
			       "refused: %s", in->m->job, in->m->rank,
			       in->port, optinc_drop_names[arg]);
}

/* The rules' events, on optincd's counters (stats.h); ctx->seen: unserved. */
static void agg_count(void *dp, struct optinc_job *core,
		      const struct optinc_sw_msg *in, enum optinc_sw_event ev,
		      uint32_t arg)
{
	struct optinc_agg_ctx *ctx = dp;
	struct optinc_agg_job *j = core ? agg_job(core) : ctx->seen;	/* NULL: none */
	unsigned int c;
	uint32_t n;

	c = optinc_sw_job_counter(ev, arg, &n);
	if (j && c) {
		OPTINC_STAT_ADD(j->stats.ctr[c], n);
		if (c == OPTINC_STATS_A_DROPPED)
			OPTINC_STAT_INC(j->stats.drops[arg]);
	} else if (j) {
		optinc_uplink_log(j, ev, arg);	/* its refusals, not counted */
	}
	agg_count_port(j, in, ev, arg);
}

/* Where a frame to @rank goes: its bound port; -1: back where in came from. */
static uint16_t agg_out_port(const struct optinc_agg_ctx *ctx,
			     struct optinc_job *core,
			     const struct optinc_sw_msg *in, int rank)
{
	if (rank == OPTINC_SW_TO_UP)
		return optinc_uplink_port(agg_job(core), ctx->now);
	return rank < 0 ? (uint16_t)in->port :
	       optinc_tx_member_port(agg_job(core), (uint16_t)rank, ctx->now);
}

static int agg_alloc(void *dp, struct optinc_job *core,
		     const struct optinc_sw_msg *in, int rank, uint32_t len,
		     struct optinc_sw_frame *f)
{
	uint16_t port = agg_out_port(dp, core, in, rank);
	uint8_t *buf;

	f->port = port;		/* send() needs it too: looked up once */
	f->priv = optinc_tx_alloc(port, &buf, &f->room);
	f->buf = buf;
	return f->priv ? 0 : -ENOMEM;	/* a frame too big is not built */
}

static int agg_send(void *dp, struct optinc_job *core,
		    const struct optinc_sw_msg *in, int rank,
		    struct optinc_sw_frame *f, uint32_t len)
{
	return optinc_tx_send(agg_job(core), rank, (uint16_t)f->port, f->priv,
			      len);
}

static int agg_results(void *dp, struct optinc_job *core,
		       const struct optinc_slot *s)
{
	return optinc_tx_results(agg_job(core), s, &agg_conf->sw,
				 ((struct optinc_agg_ctx *)dp)->now);
}

/* Bounded abuse: a JOIN, or a frame failing the job's checks, past the port's limit. */
static int agg_limited(void *dp, struct optinc_job *core,
		       const struct optinc_sw_msg *in)
{
	struct optinc_agg_ctx *ctx = dp;

	return optinc_rl_rx(&optinc_self()->q[in->port].rl, &agg_rl, core, in->m,
			    in->src, ctx->now) == OPTINC_RL_LIMITED;
}

/* Cascade: where is a first-level job's upper switch? */
static int agg_up_arp(void *dp, struct optinc_job *core)
{
	optinc_uplink_arp_request(core->up);
	return 0;
}

static uint32_t agg_random(void *dp)
{
	return (uint32_t)rte_rand();
}

static __u64 agg_clock_ms(void *dp)
{
	return ((struct optinc_agg_ctx *)dp)->now / (rte_get_tsc_hz() / 1000);
}

/* Debug (optinc.agg): an accepted JOIN, with how many have joined. */
static void agg_log_join(const struct optinc_agg_job *j,
			 const struct optinc_sw_msg *in)
{
	char mac[24], ip[INET_ADDRSTRLEN];

	if (likely(!rte_log_can_log(optinc_logtype_agg, RTE_LOG_DEBUG)))
		return;
	optinc_mac_fmt(mac, sizeof(mac), in->src->mac);
	inet_ntop(AF_INET, &in->src->ip, ip, sizeof(ip));
	OPTINC_LOG_AGG(DEBUG, "job %u: rank %u joined from port %u (mac %s, "
		       "%s:%u), %u of %u members", j->conf.job.id, in->m->rank,
		       in->port, mac, ip, rte_be_to_cpu_16(in->src->port),
		       (unsigned int)__builtin_popcountll(j->core.joined),
		       j->core.size);
}

/* A JOIN bound its member: pin the MAC to its port (unpin where it was). */
static void agg_pin(void *dp, struct optinc_job *core,
		    const struct optinc_sw_msg *in,
		    const struct optinc_endpoint *old, uint32_t old_port)
{
	struct optinc_agg_ctx *ctx = dp;
	struct optinc_agg_job *j = agg_job(core);
	struct rte_ether_addr mac;
	char was[24], is[24];

	agg_log_join(j, in);
	if (old) {
		memcpy(mac.addr_bytes, old->mac, RTE_ETHER_ADDR_LEN);
		optinc_l2_unpin(&mac, (uint16_t)old_port, ctx->now);
		optinc_mac_fmt(was, sizeof(was), old->mac);
		optinc_mac_fmt(is, sizeof(is), in->src->mac);
		OPTINC_LOG_AGG(NOTICE, "job %u: rank %u moved from port %u "
			       "(mac %s) to port %u (mac %s): rebound",
			       j->conf.job.id, in->m->rank, old_port, was,
			       in->port, is);
	}
	memcpy(mac.addr_bytes, in->src->mac, RTE_ETHER_ADDR_LEN);
	optinc_l2_pin(&mac, (uint16_t)in->port, ctx->now);
}

static const struct optinc_sw_ops agg_ops = {
	.alloc = agg_alloc,
	.send = agg_send,
	.count = agg_count,
	.pin = agg_pin,
	.limited = agg_limited,
	.results = agg_results,
	.up_arp = agg_up_arp,
	.random = agg_random,
	.clock_ms = agg_clock_ms,
};

/* optincd as lib/core/switch.c sees it, for one poll round at @now. */
void optinc_agg_switch(struct optinc_sw *sw, struct optinc_agg_ctx *ctx,
		       uint64_t now)
{
	ctx->sw = sw;
	ctx->now = now;
	ctx->seen = NULL;
	sw->ops = &agg_ops;
	sw->dp = ctx;
	sw->ep = &agg_conf->sw;
}

/**
 * optinc_agg_input() - an OptINC frame addressed to the switch
 * @m:    the frame; always consumed
 * @port: the port it came in on
 * @l:    its addresses and UDP payload, from optinc_parse_l2l4()
 * @now:  TSC of this poll round
 * @spoofed: its source MAC is pinned to another port; only a JOIN of the
 *        member that owns it (moving) gets past the switch's rules
 */
void optinc_agg_input(struct rte_mbuf *m, uint16_t port,
		      const struct optinc_l2l4 *l, uint64_t now, bool spoofed)
{
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	struct optinc_msg msg = { .job = 0 };
	struct optinc_sw_msg in = {
		.m = &msg, .src = &l->src, .port = port, .spoofed = spoofed,
	};
	struct optinc_agg_job *j = NULL;
	struct optinc_agg_ctx ctx;
	struct optinc_sw sw;
	enum optinc_drop why;

	optinc_agg_switch(&sw, &ctx, now);
	why = optinc_msg_parse(frame + l->l4_off, l->l4_len, &msg);
	if (why == OPTINC_DROP_NONE && !spoofed &&
	    optinc_uplink_input(&sw, &in)) {
		rte_pktmbuf_free(m);
		return;
	}
	/* the job id is known once the header parsed past its type */
	if (msg.job)
		j = optinc_agg_live_find(msg.job);
	if (j)
		agg_count_in(j, &msg, rte_pktmbuf_pkt_len(m));
	if (j && unlikely(!j->served)) {	/* counted on it, as of no job */
		ctx.seen = j;
		j = NULL;
	}
	optinc_sw_input(&sw, j ? &j->core : NULL, j ? &j->bind : NULL, &in,
			why);
	rte_pktmbuf_free(m);
}
