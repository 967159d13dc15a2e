// SPDX-License-Identifier: BSD-3-Clause
/*
 * Cascading, the first-level side of a job (Documentation/scale.md
 * section 3): this switch is a member (up-rank) of a job (up-job) of an
 * upper switch. Once its own members have all joined it JOINs upstream,
 * and holds their JOIN barrier until every switch below the upper one has
 * joined; a complete slot goes up (optinc_build_up()) instead of down, and
 * the upper result fills the slot and goes to the members. Nothing here
 * runs on a timer: members' retransmissions of JOINs and DATA drive the
 * upstream JOINs, ARP requests and upstream re-sends, and so do the upper
 * switch's results: their retransmission hints name the upstream DATA (or
 * its result) that was lost, which goes up again at once.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_random.h>
#include "optincd.h"

/* ARP requests for the upper switch, at most this often */
#define UPLINK_ARP_EVERY_HZ	10

struct uplink {
	struct optinc_agg_job *j;
	struct optinc_uplink core;
	uint64_t gen;		/* the members' nonces this JOIN is for */
	uint32_t nonce;		/* upstream JOIN nonce; 0: not joined */
	bool complete;		/* every member of the upper job joined */
	bool resolved;		/* core.sw.mac known, from an ARP reply */
	bool refused;		/* NACK or too small a window: reported */
	uint16_t port;		/* where the upper switch's ARP reply came */
	uint64_t arp_tsc;	/* last ARP request */
};

/*
 * One per job table entry (j->slot). @j is set by the lcore when the job
 * goes live (optinc_uplink_attach()) and cleared when it goes; the lcore
 * looks only at entries with @j set, so a control thread may build an
 * entry while the lcore runs.
 */
static struct uplink uplinks[OPTINC_MAX_JOBS];
static unsigned int nb_uplinks;		/* live ones: the lcore's cheap test */
static const struct optinc_conf *up_conf;

/* "IPV4[:UDP]" of a job's up= key. */
int optinc_uplink_parse(struct optinc_job_conf *j, const char *val)
{
	char host[INET_ADDRSTRLEN];
	const char *colon = strchr(val, ':');
	size_t n = colon ? (size_t)(colon - val) : strlen(val);
	unsigned long port = OPTINC_UDP_PORT;
	char *end;

	if (n == 0 || n >= sizeof(host))
		return -EINVAL;
	memcpy(host, val, n);
	host[n] = '\0';
	if (inet_pton(AF_INET, host, &j->up_ip) != 1 || !j->up_ip)
		return -EINVAL;
	if (colon) {
		errno = 0;
		port = strtoul(colon + 1, &end, 10);
		if (errno || *end || !colon[1] || port == 0 || port > 65535)
			return -EINVAL;
	}
	j->up_port = (uint16_t)port;
	return 0;
}

/* Elements per frame such that the upstream frame (4 bytes each) fits. */
static uint16_t uplink_max_elems(void)
{
	uint32_t mtu = up_conf->mtu, room;
	uint16_t i;

	for (i = 0; i < optinc_nb_ports; i++)
		mtu = RTE_MIN(mtu, (uint32_t)optinc_ports[optinc_port_ids[i]].mtu);
	room = mtu - 20 - 8 - OPTINC_HDR_LEN - OPTINC_MAX_SCALES;
	return (uint16_t)(room / 4);
}

/**
 * optinc_uplink_setup() - build @j's uplink (a job with up=); not live yet
 * @j:       a first-level job, not yet seen by the lcore
 * @why:     set to the problem when refused
 * @why_len: size of @why
 *
 * Return: 0, or -EINVAL with @why set.
 */
int optinc_uplink_setup(struct optinc_agg_job *j, char *why, size_t why_len)
{
	struct uplink *u = &uplinks[j->slot];
	const struct optinc_job_conf *jc = &j->conf;
	uint16_t max = uplink_max_elems();
	char ip[INET_ADDRSTRLEN];

	if (!jc->up_job) {
		snprintf(why, why_len, "up= needs up-job=");
		return -EINVAL;
	}
	memset(u, 0, sizeof(*u));
	u->core.sw.ip = jc->up_ip;
	u->core.sw.port = htons(jc->up_port);
	u->core.self = up_conf->sw;
	u->core.job = jc->up_job;
	u->core.rank = jc->up_rank;
	u->core.token = jc->up_token;
	j->core.up = &u->core;
	if (j->core.max_elems > max) {
		OPTINC_LOG_UPLINK(NOTICE, "job %u: max-elems %u -> %u, so that "
				  "its upstream frames fit the MTU", jc->job.id,
				  j->core.max_elems, max);
		j->core.max_elems = max;
		j->conf.job.max_elems = max;
	}
	inet_ntop(AF_INET, &jc->up_ip, ip, sizeof(ip));
	OPTINC_LOG_UPLINK(INFO, "job %u: uplink to %s:%u, job %u rank %u",
			  jc->job.id, ip, jc->up_port, jc->up_job, jc->up_rank);
	return 0;
}

/* @j's uplink goes live with it; lcore only (or before it runs). */
void optinc_uplink_attach(struct optinc_agg_job *j)
{
	struct uplink *u = &uplinks[j->slot];

	if (!j->core.up || u->j)
		return;
	__atomic_store_n(&u->j, j, __ATOMIC_RELEASE);
	nb_uplinks++;
}

/* @j is removed: the lcore stops looking at its uplink. */
void optinc_uplink_detach(struct optinc_agg_job *j)
{
	struct uplink *u = &uplinks[j->slot];

	if (u->j != j)
		return;
	__atomic_store_n(&u->j, NULL, __ATOMIC_RELEASE);
	nb_uplinks--;
}

/**
 * optinc_uplink_init() - the switch's address and MTU for every uplink
 * @c: configuration; kept
 *
 * Before the jobs of the start (optinc_agg_init()), which set up their
 * uplinks as jobs added later do: optinc_uplink_setup() for a job with
 * up= (first level); a job with fanin= (second level) takes CAVG frames,
 * which job.c sets up.
 *
 * Return: 0.
 */
int optinc_uplink_init(const struct optinc_conf *c)
{
	up_conf = c;
	return 0;
}

static struct uplink *uplink_of(const struct optinc_agg_job *j)
{
	struct uplink *u = &uplinks[j->slot];

	return u->j == j ? u : NULL;
}

static void uplink_arp_request(struct uplink *u, uint64_t now)
{
	struct rte_ether_hdr *eth;
	struct rte_arp_hdr *a;
	struct rte_mbuf *m;
	uint16_t i, port;

	if (u->arp_tsc && now - u->arp_tsc < rte_get_tsc_hz() / UPLINK_ARP_EVERY_HZ)
		return;
	u->arp_tsc = now;
	for (i = 0; i < optinc_nb_ports; i++) {
		port = optinc_port_ids[i];
		m = optinc_port_alloc(port);
		if (!m)
			continue;
		eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		a = (struct rte_arp_hdr *)(eth + 1);
		memset(&eth->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
		memcpy(eth->src_addr.addr_bytes, u->core.self.mac, RTE_ETHER_ADDR_LEN);
		eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
		a->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
		a->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
		a->arp_hlen = RTE_ETHER_ADDR_LEN;
		a->arp_plen = 4;
		a->arp_opcode = RTE_BE16(RTE_ARP_OP_REQUEST);
		memcpy(a->arp_data.arp_sha.addr_bytes, u->core.self.mac,
		       RTE_ETHER_ADDR_LEN);
		a->arp_data.arp_sip = u->core.self.ip;
		memset(&a->arp_data.arp_tha, 0, RTE_ETHER_ADDR_LEN);
		a->arp_data.arp_tip = u->core.sw.ip;
		m->data_len = m->pkt_len = sizeof(*eth) + sizeof(*a);
		optinc_port_tx(port, m);
	}
}

/* An ARP reply from an upper switch: where it is. */
bool optinc_uplink_arp(const struct rte_arp_hdr *a, uint16_t port)
{
	bool ours = false;
	unsigned int i;

	if (a->arp_opcode != RTE_BE16(RTE_ARP_OP_REPLY) ||
	    a->arp_hardware != RTE_BE16(RTE_ARP_HRD_ETHER) ||
	    a->arp_protocol != RTE_BE16(RTE_ETHER_TYPE_IPV4))
		return false;
	for (i = 0; nb_uplinks && i < OPTINC_MAX_JOBS; i++) {
		struct uplink *u = &uplinks[i];

		if (!u->j || a->arp_data.arp_sip != u->core.sw.ip ||
		    a->arp_data.arp_tip != u->core.self.ip)
			continue;
		memcpy(u->core.sw.mac, a->arp_data.arp_sha.addr_bytes,
		       RTE_ETHER_ADDR_LEN);
		u->port = port;
		u->resolved = true;
		ours = true;
	}
	return ours;
}

/* The port towards the upper switch, or false (an ARP request went out). */
static bool uplink_port(struct uplink *u, uint64_t now, uint16_t *port)
{
	struct rte_ether_addr mac;

	if (!u->resolved) {
		uplink_arp_request(u, now);
		return false;
	}
	memcpy(mac.addr_bytes, u->core.sw.mac, RTE_ETHER_ADDR_LEN);
	if (optinc_l2_lookup(&mac, now, port))
		*port = u->port;
	return true;
}

/* Send a frame built by @build towards the upper switch: false if none was built. */
static bool uplink_send(struct uplink *u, uint64_t now,
			uint32_t (*build)(struct uplink *u, const void *arg,
					  uint8_t *buf, uint32_t room),
			const void *arg)
{
	struct rte_mbuf *m;
	uint32_t room, len;
	uint16_t port;
	uint8_t *buf;

	if (!uplink_port(u, now, &port))
		return false;
	m = optinc_tx_alloc(port, &buf, &room);
	len = m ? build(u, arg, buf, room) : 0;
	if (!m || optinc_tx_send(u->j, -1, port, m, len)) {
		OPTINC_STAT_INC(u->j->stats.tx_errors);
		return false;
	}
	OPTINC_STAT_INC(u->j->stats.up_frames_out);
	return true;
}

static uint32_t uplink_build_join(struct uplink *u, const void *arg,
				  uint8_t *buf, uint32_t room)
{
	struct optinc_msg join;

	optinc_up_join(&u->core, u->nonce, &join);
	return optinc_build_ctrl(buf, room, &join, &u->core.self, &u->core.sw);
}

static uint32_t uplink_build_data(struct uplink *u, const void *arg,
				  uint8_t *buf, uint32_t room)
{
	return optinc_build_up(buf, room, &u->j->core, arg);
}

/* A waiting slot's partial result goes up (again, if it went before). */
static void uplink_send_data(struct uplink *u, struct optinc_slot *s,
			     uint64_t now)
{
	if (uplink_send(u, now, uplink_build_data, s) &&
	    optinc_up_sent(&u->j->core, s))
		OPTINC_STAT_INC(u->j->stats.up_resends);
}

/* The members' nonces: a new set is a new generation of the job. */
static uint64_t uplink_gen(const struct optinc_job *job)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint16_t r;

	for (r = 0; r < job->size; r++)
		h = (h ^ job->members[r].nonce) * 0x100000001b3ull;
	return h;
}

/**
 * optinc_uplink_joined() - a member of @j joined (or repeated its JOIN)
 * @ctx:  the poll round's switch (agg.c)
 * @j:    the job
 * @rank: the member
 *
 * Once all members joined, a new set of them is a new generation
 * upstream too: a new JOIN nonce, which makes the upper switch start over
 * once all its members are new. Until the upper job is complete the
 * members hear "not everyone yet", and each of their JOINs repeats ours.
 *
 * Return: true when the answer was given here, false to answer as usual.
 */
bool optinc_uplink_joined(struct optinc_agg_ctx *ctx, struct optinc_agg_job *j,
			  uint16_t rank)
{
	struct uplink *u = uplink_of(j);
	uint64_t gen;

	if (!u || !optinc_job_complete(&j->core))
		return false;
	gen = uplink_gen(&j->core);
	if (!u->nonce || gen != u->gen) {
		u->gen = gen;
		u->nonce = (uint32_t)rte_rand() | 1;
		u->complete = false;
		u->refused = false;
		u->core.window = 0;
	}
	if (u->complete)
		return false;
	uplink_send(u, ctx->now, uplink_build_join, NULL);
	/* "not everyone yet": not everyone below the upper switch */
	optinc_sw_ack(ctx->sw, &j->core, rank, 1);
	return true;
}

/* A slot of @j is complete, or a member sent again while it waits: it goes up. */
void optinc_uplink_forward(struct optinc_agg_ctx *ctx, struct optinc_agg_job *j,
			   struct optinc_slot *s)
{
	struct uplink *u = uplink_of(j);

	if (!u || !u->complete) {
		OPTINC_STAT_INC(j->stats.tx_errors);
		return;
	}
	uplink_send_data(u, s, ctx->now);
}

static void uplink_refused(struct uplink *u, const char *why, unsigned int v)
{
	if (!u->refused)
		OPTINC_LOG_UPLINK(ERR, "job %u: upper switch job %u: %s %u",
				  u->j->conf.job.id, u->core.job, why, v);
	u->refused = true;
}

static void uplink_ack(const struct optinc_sw *sw, struct uplink *u,
		       const struct optinc_msg *msg)
{
	if (msg->rank != u->core.rank || msg->seq != u->nonce || u->complete)
		return;
	if (msg->slot < u->j->core.window) {
		uplink_refused(u, "window smaller than this job's:", msg->slot);
		return;
	}
	u->core.window = msg->slot;
	if (msg->aux < msg->size)
		return;
	u->complete = true;
	OPTINC_LOG_UPLINK(DEBUG, "job %u: rank %u of upper job %u, which has "
			  "all its %u members now (window %u)", u->j->conf.job.id,
			  u->core.rank, u->core.job, msg->size, u->core.window);
	if (optinc_job_complete(&u->j->core))
		optinc_sw_acks(sw, &u->j->core);
}

/* What the upper result's hint says we lost goes up again at once. */
static void uplink_hinted(struct uplink *u, const struct optinc_msg *msg,
			  uint64_t now)
{
	struct optinc_slot *lost[OPTINC_HINT_SPAN];
	uint32_t i, n;

	n = optinc_up_lost(&u->j->core, msg, lost, RTE_DIM(lost));
	for (i = 0; i < n; i++)
		uplink_send_data(u, lost[i], now);
	OPTINC_STAT_ADD(u->j->stats.up_hinted, n);
}

static void uplink_result(const struct optinc_sw *sw, struct uplink *u,
			  const struct optinc_msg *msg, uint16_t port)
{
	uint64_t now = ((struct optinc_agg_ctx *)sw->dp)->now;
	struct optinc_agg_job *j = u->j;
	struct optinc_slot *s;
	enum optinc_drop why;

	switch (optinc_job_rx_up(&j->core, msg, &why, &s)) {
	case OPTINC_V_COMPLETE:
		OPTINC_STAT_INC(j->stats.up_results_in);
		OPTINC_STAT_INC(j->stats.slots_completed);
		optinc_sw_results(sw, &j->core, s);
		uplink_hinted(u, msg, now);
		break;
	case OPTINC_V_DROP:
		OPTINC_STAT_INC(j->stats.drops[why]);
		OPTINC_STAT_INC(optinc_pstats(port)->rx_dropped);
		break;
	case OPTINC_V_RESEND:	/* the slot had it: a duplicate, or the answer to a re-send */
		OPTINC_STAT_INC(j->stats.up_results_dup);
		uplink_hinted(u, msg, now);
		break;
	default:
		break;
	}
}

/**
 * optinc_uplink_input() - a frame from an upper switch?
 * @sw:   the poll round's switch (agg.c), to answer members with
 * @msg:  parsed OptINC message to our address
 * @l:    its addresses
 * @port: where it came in
 *
 * Return: true when it was an upper switch's answer to one of our uplinks
 * (consumed), false for everything else.
 */
bool optinc_uplink_input(const struct optinc_sw *sw,
			 const struct optinc_msg *msg,
			 const struct optinc_l2l4 *l, uint16_t port)
{
	struct uplink *u = NULL;
	unsigned int i;

	if (msg->type != OPTINC_T_RESULT && msg->type != OPTINC_T_JOIN_ACK &&
	    msg->type != OPTINC_T_NACK)
		return false;
	for (i = 0; nb_uplinks && i < OPTINC_MAX_JOBS && !u; i++)
		if (uplinks[i].j && uplinks[i].core.job == msg->job &&
		    uplinks[i].core.sw.ip == l->src.ip &&
		    uplinks[i].core.token == msg->token)
			u = &uplinks[i];
	if (!u)
		return false;
	if (msg->type == OPTINC_T_RESULT)
		uplink_result(sw, u, msg, port);
	else if (msg->type == OPTINC_T_JOIN_ACK)
		uplink_ack(sw, u, msg);
	else if (msg->rank == u->core.rank && msg->seq == u->nonce)
		uplink_refused(u, "refused the JOIN, reason", msg->aux);
	return true;
}
