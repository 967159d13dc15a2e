// SPDX-License-Identifier: BSD-3-Clause
/*
 * Cascading, optincd's shell around a first-level job's uplink: the state
 * machine towards the upper switch is lib/core/upstate.c's (the same in
 * optinc.ko); here are the up= option, the uplinks of the job table, the
 * upper switch's port (ARP requests and replies, the L2 table) and the
 * logs of what the state machine reports (Documentation/scale.md
 * section 3).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <rte_arp.h>
#include <rte_byteorder.h>
#include "optincd.h"

struct uplink {
	struct optinc_agg_job *j;
	struct optinc_uplink core;	/* the state machine's (upstate.c) */
	uint16_t port;		/* where the upper switch's ARP reply came */
};

/*
 * One per job table entry (j->slot). @j is set by the lcore when the job
 * goes live (optinc_uplink_attach()) and cleared when it goes; the lcore
 * looks only at entries with @j set, so a control thread may build an
 * entry while the lcore runs.
 */
static struct uplink uplinks[OPTINC_MAX_JOBS];
static unsigned int nb_uplinks;		/* live ones, of every lcore: the scans' cheap test */
/* entries below it were ever live: the scans stop there (slots fill from 0) */
static unsigned int up_hwm;
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
	uint32_t mtu = up_conf->mtu;
	uint16_t i;

	for (i = 0; i < optinc_nb_ports; i++)
		mtu = RTE_MIN(mtu, (uint32_t)optinc_ports[optinc_port_ids[i]].mtu);
	return optinc_up_max_elems(mtu);
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
	optinc_up_init(&u->core, &up_conf->sw, jc->up_ip, htons(jc->up_port),
		       jc->up_job, jc->up_rank, jc->up_token);
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
	unsigned int hwm = __atomic_load_n(&up_hwm, __ATOMIC_RELAXED);

	if (!j->core.up || u->j)
		return;
	__atomic_store_n(&u->j, j, __ATOMIC_RELEASE);
	/* lcores attach their own jobs' uplinks: raise it, never lower it */
	while (j->slot >= hwm &&
	       !__atomic_compare_exchange_n(&up_hwm, &hwm, j->slot + 1u, false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	__atomic_fetch_add(&nb_uplinks, 1, __ATOMIC_RELEASE);
}

/* @j is removed: the lcore stops looking at its uplink. */
void optinc_uplink_detach(struct optinc_agg_job *j)
{
	struct uplink *u = &uplinks[j->slot];

	if (u->j != j)
		return;
	__atomic_store_n(&u->j, NULL, __ATOMIC_RELEASE);
	__atomic_fetch_sub(&nb_uplinks, 1, __ATOMIC_RELEASE);
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

/* One ARP request for the upper switch out of @port. */
static void uplink_arp_tx(const struct optinc_uplink *up, uint16_t port)
{
	struct rte_mbuf *m = optinc_port_alloc(port);
	struct rte_ether_hdr *eth;
	struct rte_arp_hdr *a;

	if (!m)
		return;
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	a = (struct rte_arp_hdr *)(eth + 1);
	memset(&eth->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
	memcpy(eth->src_addr.addr_bytes, up->self.mac, RTE_ETHER_ADDR_LEN);
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	a->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	a->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	a->arp_hlen = RTE_ETHER_ADDR_LEN;
	a->arp_plen = 4;
	a->arp_opcode = RTE_BE16(RTE_ARP_OP_REQUEST);
	memcpy(a->arp_data.arp_sha.addr_bytes, up->self.mac, RTE_ETHER_ADDR_LEN);
	a->arp_data.arp_sip = up->self.ip;
	memset(&a->arp_data.arp_tha, 0, RTE_ETHER_ADDR_LEN);
	a->arp_data.arp_tip = up->sw.ip;
	m->data_len = m->pkt_len = sizeof(*eth) + sizeof(*a);
	optinc_port_tx(port, m);
}

/* The up_arp op: where is @up's upper switch? Asked on every port. */
void optinc_uplink_arp_request(const struct optinc_uplink *up)
{
	uint16_t i;

	for (i = 0; i < optinc_nb_ports; i++)
		uplink_arp_tx(up, optinc_port_ids[i]);
}

/* An ARP reply from an upper switch: where it is. */
bool optinc_uplink_arp(const struct rte_arp_hdr *a, uint16_t port)
{
	unsigned int i, n = __atomic_load_n(&nb_uplinks, __ATOMIC_ACQUIRE),
		     hwm = __atomic_load_n(&up_hwm, __ATOMIC_ACQUIRE);
	bool ours = false;

	if (a->arp_opcode != RTE_BE16(RTE_ARP_OP_REPLY) ||
	    a->arp_hardware != RTE_BE16(RTE_ARP_HRD_ETHER) ||
	    a->arp_protocol != RTE_BE16(RTE_ETHER_TYPE_IPV4))
		return false;
	for (i = 0; n && i < hwm; i++) {
		struct uplink *u = &uplinks[i];

		if (!u->j || !optinc_up_arp_reply(&u->core, a->arp_data.arp_sip,
						  a->arp_data.arp_tip,
						  a->arp_data.arp_sha.addr_bytes))
			continue;
		u->port = port;
		ours = true;
	}
	return ours;
}

/* The port towards @j's upper switch (its MAC is known by then). */
uint16_t optinc_uplink_port(const struct optinc_agg_job *j, uint64_t now)
{
	const struct uplink *u = container_of(j->core.up, struct uplink, core);
	struct rte_ether_addr mac;
	uint16_t port;

	memcpy(mac.addr_bytes, u->core.sw.mac, RTE_ETHER_ADDR_LEN);
	if (optinc_l2_lookup(&mac, now, &port))
		return u->port;
	return port;
}

/* What the uplink's state machine reports that is worth a log line. */
void optinc_uplink_log(const struct optinc_agg_job *j, enum optinc_sw_event ev,
		       uint32_t arg)
{
	const struct optinc_uplink *up = j->core.up;

	if (ev == OPTINC_SW_UP_NACKED)
		OPTINC_LOG_UPLINK(ERR, "job %u: upper switch job %u: refused "
				  "the JOIN, reason %u", j->conf.job.id, up->job, arg);
	else if (ev == OPTINC_SW_UP_WINDOW)
		OPTINC_LOG_UPLINK(ERR, "job %u: upper switch job %u: window "
				  "smaller than this job's: %u", j->conf.job.id,
				  up->job, arg);
	else if (ev == OPTINC_SW_UP_COMPLETE)
		OPTINC_LOG_UPLINK(DEBUG, "job %u: rank %u of upper job %u, which "
				  "has all its members now (window %u)",
				  j->conf.job.id, up->rank, up->job, arg);
}

/**
 * optinc_uplink_input() - a frame from an upper switch?
 * @sw: the poll round's switch (agg.c), to answer members with
 * @in: a parsed OptINC message to our address
 *
 * Return: true when it was an upper switch's answer to one of our uplinks
 * (taken by the state machine), false for everything else.
 */
bool optinc_uplink_input(const struct optinc_sw *sw,
			 const struct optinc_sw_msg *in)
{
	unsigned int i, n = __atomic_load_n(&nb_uplinks, __ATOMIC_ACQUIRE),
		     hwm = __atomic_load_n(&up_hwm, __ATOMIC_ACQUIRE);

	for (i = 0; n && i < hwm; i++) {
		struct optinc_agg_job *j = uplinks[i].j;

		if (j && optinc_up_match(&j->core, in->m, in->src)) {
			optinc_up_input(sw, &j->core, in);
			return true;
		}
	}
	return false;
}
