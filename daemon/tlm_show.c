// SPDX-License-Identifier: BSD-3-Clause
/*
 * Telemetry, the reading commands: /optinc/info, /optinc/ports,
 * /optinc/jobs, /optinc/job and /optinc/members, as dicts of counters
 * (stats.h: per-lcore ones summed) and settings. telemetry.c registers
 * them and calls them under its lock; the job and port tables do not
 * change under them. A member's address may be seen half rewritten while
 * that rank re-joins (display only).
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_telemetry.h>
#include "optincd.h"
#include "tlm_ctrs.h"

#define TLM_U64(d, s, f)	rte_tel_data_add_dict_u64(d, #f, OPTINC_STAT_GET((s)->f))

static void tlm_ip(char *buf, size_t len, uint32_t ip)
{
	if (!inet_ntop(AF_INET, &ip, buf, (socklen_t)len))
		snprintf(buf, len, "?");
}

/* A dict of drop counters, keyed by optinc_drop_names. */
static struct rte_tel_data *tlm_drops(const uint64_t *drops)
{
	struct rte_tel_data *d = rte_tel_data_alloc();
	unsigned int i;

	if (!d)
		return NULL;
	rte_tel_data_start_dict(d);
	for (i = OPTINC_DROP_NONE + 1; i < OPTINC_DROP_NR; i++)
		rte_tel_data_add_dict_u64(d, optinc_drop_names[i],
					  OPTINC_STAT_GET(drops[i]));
	return d;
}

static int tlm_add_drops(struct rte_tel_data *d, const uint64_t *drops)
{
	struct rte_tel_data *c = tlm_drops(drops);

	if (!c)
		return -ENOMEM;
	return rte_tel_data_add_dict_container(d, "drops", c, 0);
}

static uint64_t tlm_drop_sum(const uint64_t *drops)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = OPTINC_DROP_NONE + 1; i < OPTINC_DROP_NR; i++)
		n += OPTINC_STAT_GET(drops[i]);
	return n;
}

static void tlm_info_sw(struct rte_tel_data *d, const struct optinc_sw_stats *s)
{
	TLM_U64(d, s, polls);
	TLM_U64(d, s, idle_sleeps);
	TLM_U64(d, s, idle_us);
	TLM_U64(d, s, l2_forwarded);
	TLM_U64(d, s, l2_flooded);
	TLM_U64(d, s, l2_filtered);
	TLM_U64(d, s, fdb_learned);
	TLM_U64(d, s, fdb_moved);
	TLM_U64(d, s, fdb_pin_full);
	TLM_U64(d, s, arp_replies);
	TLM_U64(d, s, icmp_replies);
	TLM_U64(d, s, to_switch_other);
	TLM_U64(d, s, runts);
	TLM_U64(d, s, nacks);
	TLM_U64(d, s, tx_errors);
}

/* /optinc/info: @c the configuration, @start_tsc when optincd started. */
int optinc_tlm_info(struct rte_tel_data *d, const struct optinc_conf *c,
		    uint64_t start_tsc)
{
	uint64_t now = rte_rdtsc();
	struct optinc_sw_stats s;
	char buf[64];

	optinc_sw_stats_sum(&s);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "version", OPTINCD_VERSION);
	rte_tel_data_add_dict_u64(d, "pid", (uint64_t)getpid());
	tlm_ip(buf, sizeof(buf), c->sw.ip);
	rte_tel_data_add_dict_string(d, "addr", buf);
	optinc_mac_fmt(buf, sizeof(buf), c->sw.mac);
	rte_tel_data_add_dict_string(d, "mac", buf);
	rte_tel_data_add_dict_u64(d, "udp_port", c->udp_port);
	rte_tel_data_add_dict_u64(d, "mtu", c->mtu);
	rte_tel_data_add_dict_u64(d, "idle_us_max", c->idle_us);
	rte_tel_data_add_dict_u64(d, "rate_limit_pps", c->rl_pps);
	rte_tel_data_add_dict_u64(d, "rate_limit_burst", c->rl_burst);
	rte_tel_data_add_dict_u64(d, "lcore", rte_get_main_lcore());
	rte_tel_data_add_dict_u64(d, "lcores", optinc_nb_workers);
	rte_tel_data_add_dict_u64(d, "uptime_s",
				  (now - start_tsc) / rte_get_tsc_hz());
	rte_tel_data_add_dict_u64(d, "ports", optinc_nb_ports);
	rte_tel_data_add_dict_u64(d, "jobs", optinc_agg_count());
	rte_tel_data_add_dict_u64(d, "fdb_entries", optinc_l2_count(now));
	rte_tel_data_add_dict_u64(d, "fdb_capacity", optinc_l2_capacity());
	tlm_info_sw(d, &s);
	return tlm_add_drops(d, s.drops);
}

static void tlm_port_hw(struct rte_tel_data *d, uint16_t id)
{
	struct rte_eth_stats st;

	if (rte_eth_stats_get(id, &st))
		return;
	rte_tel_data_add_dict_u64(d, "hw_ipackets", st.ipackets);
	rte_tel_data_add_dict_u64(d, "hw_ibytes", st.ibytes);
	rte_tel_data_add_dict_u64(d, "hw_opackets", st.opackets);
	rte_tel_data_add_dict_u64(d, "hw_obytes", st.obytes);
	rte_tel_data_add_dict_u64(d, "hw_imissed", st.imissed);
	rte_tel_data_add_dict_u64(d, "hw_ierrors", st.ierrors);
	rte_tel_data_add_dict_u64(d, "hw_oerrors", st.oerrors);
	rte_tel_data_add_dict_u64(d, "hw_rx_nombuf", st.rx_nombuf);
}

static struct rte_tel_data *tlm_port(const struct optinc_port *p)
{
	struct rte_tel_data *d = rte_tel_data_alloc();
	struct optinc_port_stats sum, *s = &sum;
	struct rte_eth_link link = { 0 };
	char buf[64];

	if (!d)
		return NULL;
	optinc_port_stats_sum(p->id, &sum);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", p->name);
	rte_tel_data_add_dict_string(d, "driver", p->driver);
	optinc_mac_fmt(buf, sizeof(buf), p->mac.addr_bytes);
	rte_tel_data_add_dict_string(d, "mac", buf);
	rte_tel_data_add_dict_u64(d, "mtu", p->mtu);
	rte_tel_data_add_dict_u64(d, "max_frame", p->max_frame);
	rte_eth_link_get_nowait(p->id, &link);
	rte_tel_data_add_dict_string(d, "link", link.link_status ? "up" : "down");
	TLM_U64(d, s, rx_pkts);
	TLM_U64(d, s, rx_bytes);
	TLM_U64(d, s, rx_dropped);
	TLM_U64(d, s, tx_pkts);
	TLM_U64(d, s, tx_bytes);
	TLM_U64(d, s, tx_dropped);
	TLM_U64(d, s, spoofed);
	TLM_U64(d, s, wrong_port);
	TLM_U64(d, s, rate_limited);
	tlm_port_hw(d, p->id);
	return d;
}

int optinc_tlm_ports(struct rte_tel_data *d)
{
	struct rte_tel_data *p;
	char key[8];
	uint16_t i;

	rte_tel_data_start_dict(d);
	for (i = 0; i < optinc_nb_ports; i++) {
		p = tlm_port(&optinc_ports[optinc_port_ids[i]]);
		if (!p)
			return -ENOMEM;
		snprintf(key, sizeof(key), "%u", optinc_port_ids[i]);
		rte_tel_data_add_dict_container(d, key, p, 0);
	}
	return 0;
}

/* The counters a job summary and a job's detail share. */
static void tlm_job_common(struct rte_tel_data *d, const struct optinc_agg_job *j)
{
	const struct optinc_job_stats *s = &j->stats;
	uint64_t joined = __atomic_load_n(&j->core.joined, __ATOMIC_RELAXED);
	uint8_t mode = __atomic_load_n(&j->core.mode, __ATOMIC_RELAXED);

	rte_tel_data_add_dict_u64(d, "id", j->conf.job.id);
	rte_tel_data_add_dict_u64(d, "size", j->conf.job.size);
	rte_tel_data_add_dict_u64(d, "bits", j->conf.job.bits);
	rte_tel_data_add_dict_string(d, "mode", mode == OPTINC_MODE_ONN ?
				     "onn" : "exact");
	rte_tel_data_add_dict_u64(d, "served",
				  __atomic_load_n(&j->served, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(d, "joined", (uint64_t)__builtin_popcountll(joined));
	rte_tel_data_add_dict_u64(d, "lcore", optinc_workers[j->worker].lcore);
	rte_tel_data_add_dict_u64(d, "slots_completed",
				  OPTINC_STAT_GET(s->ctr[OPTINC_STATS_A_COMPLETED]));
	TLM_U64(d, s, frames_in);
	TLM_U64(d, s, bytes_in);
	TLM_U64(d, s, frames_out);
	TLM_U64(d, s, bytes_out);
}

int optinc_tlm_job(struct rte_tel_data *d, const struct optinc_agg_job *j)
{
	const struct optinc_agg_table *t = __atomic_load_n(&j->table,
							   __ATOMIC_ACQUIRE);
	const struct optinc_job_stats *s = &j->stats;
	const struct optinc_tlm_ctr *c;
	unsigned int i;

	rte_tel_data_start_dict(d);
	tlm_job_common(d, j);
	rte_tel_data_add_dict_u64(d, "joined_mask",
				  __atomic_load_n(&j->core.joined, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(d, "window", j->conf.job.window);
	rte_tel_data_add_dict_u64(d, "max_elems", j->conf.job.max_elems);
	rte_tel_data_add_dict_u64(d, "token_set", j->conf.job.token != 0);
	rte_tel_data_add_dict_string(d, "table", t ? t->path : "");
	rte_tel_data_add_dict_u64(d, "table_wrong", t ? t->wrong : 0);
	for (i = 0; i < RTE_DIM(optinc_tlm_job_ctrs); i++) {
		c = &optinc_tlm_job_ctrs[i];
		if (c->id != OPTINC_STATS_A_COMPLETED)	/* tlm_job_common's */
			rte_tel_data_add_dict_u64(d, c->key,
						  OPTINC_STAT_GET(s->ctr[c->id]));
	}
	return tlm_add_drops(d, s->drops);
}

int optinc_tlm_jobs(struct rte_tel_data *d)
{
	const struct optinc_agg_job *j;
	struct rte_tel_data *c;
	unsigned int i;
	char key[8];

	rte_tel_data_start_dict(d);
	for (i = 0; (j = optinc_agg_at(i)); i++) {
		c = rte_tel_data_alloc();
		if (!c)
			return -ENOMEM;
		rte_tel_data_start_dict(c);
		tlm_job_common(c, j);
		rte_tel_data_add_dict_u64(c, "drops", tlm_drop_sum(j->stats.drops));
		snprintf(key, sizeof(key), "%u", j->conf.job.id);
		rte_tel_data_add_dict_container(d, key, c, 0);
	}
	return 0;
}

static struct rte_tel_data *tlm_member(const struct optinc_agg_job *j,
				       uint16_t r, uint64_t joined)
{
	const struct optinc_member_stats *s = &j->stats.member[r];
	const struct optinc_endpoint *ep = &j->core.members[r].ep;
	struct rte_tel_data *d = rte_tel_data_alloc();
	char ip[32], buf[64];

	if (!d)
		return NULL;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "joined", (joined >> r) & 1);
	if ((joined >> r) & 1) {
		tlm_ip(ip, sizeof(ip), ep->ip);
		snprintf(buf, sizeof(buf), "%s:%u", ip, ntohs(ep->port));
		rte_tel_data_add_dict_string(d, "addr", buf);
		optinc_mac_fmt(buf, sizeof(buf), ep->mac);
		rte_tel_data_add_dict_string(d, "mac", buf);
	}
	/* the binding outlives a new generation of the job (bind.h) */
	if ((__atomic_load_n(&j->bind.bound, __ATOMIC_RELAXED) >> r) & 1)
		rte_tel_data_add_dict_u64(d, "port",
			__atomic_load_n(&j->bind.port[r], __ATOMIC_RELAXED));
	TLM_U64(d, s, frames_in);
	TLM_U64(d, s, bytes_in);
	TLM_U64(d, s, frames_out);
	TLM_U64(d, s, bytes_out);
	return d;
}

int optinc_tlm_members(struct rte_tel_data *d, const struct optinc_agg_job *j)
{
	uint64_t joined = __atomic_load_n(&j->core.joined, __ATOMIC_RELAXED);
	struct rte_tel_data *m;
	char key[8];
	uint16_t r;

	rte_tel_data_start_dict(d);
	for (r = 0; r < j->conf.job.size; r++) {
		m = tlm_member(j, r, joined);
		if (!m)
			return -ENOMEM;
		snprintf(key, sizeof(key), "%u", r);
		rte_tel_data_add_dict_container(d, key, m, 0);
	}
	return 0;
}

static struct rte_tel_data *lcore_tlm_one(const struct optinc_worker *w,
					  unsigned int jobs)
{
	struct rte_tel_data *d = rte_tel_data_alloc();

	if (!d)
		return NULL;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "lcore", w->lcore);
	rte_tel_data_add_dict_u64(d, "jobs", jobs);
	rte_tel_data_add_dict_u64(d, "rx_queues", w->nb_rx);
	rte_tel_data_add_dict_u64(d, "polls", OPTINC_STAT_GET(w->sw.polls));
	rte_tel_data_add_dict_u64(d, "busy_rounds", OPTINC_STAT_GET(w->ls.busy_rounds));
	rte_tel_data_add_dict_u64(d, "busy_cycles", OPTINC_STAT_GET(w->ls.busy_tsc));
	rte_tel_data_add_dict_u64(d, "rx_frames", OPTINC_STAT_GET(w->ls.rx_frames));
	rte_tel_data_add_dict_u64(d, "handed_out", OPTINC_STAT_GET(w->ls.handed_out));
	rte_tel_data_add_dict_u64(d, "handed_in", OPTINC_STAT_GET(w->ls.handed_in));
	rte_tel_data_add_dict_u64(d, "handoff_full", OPTINC_STAT_GET(w->ls.handoff_full));
	rte_tel_data_add_dict_u64(d, "idle_sleeps", OPTINC_STAT_GET(w->sw.idle_sleeps));
	return d;
}

/**
 * optinc_tlm_lcores() - /optinc/lcores: each worker's counters, by worker
 * @d: the reply
 *
 * Telemetry thread, under its lock. busy_cycles are TSC cycles of rounds
 * that had frames (time the lcore was preempted in such a round included).
 *
 * Return: 0, or -ENOMEM.
 */
int optinc_tlm_lcores(struct rte_tel_data *d)
{
	unsigned int jobs[OPTINC_MAX_WORKERS] = { 0 }, i;
	struct rte_tel_data *w;
	const struct optinc_agg_job *j;
	char key[8];

	for (i = 0; (j = optinc_agg_at(i)); i++)
		jobs[j->worker]++;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "tsc_hz", rte_get_tsc_hz());
	for (i = 0; i < optinc_nb_workers; i++) {
		w = lcore_tlm_one(&optinc_workers[i], jobs[i]);
		if (!w)
			return -ENOMEM;
		snprintf(key, sizeof(key), "%u", i);
		rte_tel_data_add_dict_container(d, key, w, 0);
	}
	return 0;
}
