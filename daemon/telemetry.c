// SPDX-License-Identifier: BSD-3-Clause
/*
 * Telemetry: the /optinc/... commands of DPDK's telemetry socket, read by
 * dpdk-telemetry.py and optincctl. Handlers run on the telemetry thread
 * while the lcores work: counters are read as stats.h says (per-lcore ones
 * summed), the job and port tables are fixed after start, and a member's
 * address may be seen half rewritten while that rank re-joins (display
 * only). A job's truth
 * table is replaced only by /optinc/table, which frees the old one while
 * it holds tlm_lock, so every handler may read the table in use. tlm_lock
 * also keeps the handlers away from the tables once shutdown begins.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_telemetry.h>
#include "optincd.h"

static pthread_mutex_t tlm_lock = PTHREAD_MUTEX_INITIALIZER;
static bool tlm_stopped;
static const struct optinc_conf *tlm_conf;
static uint64_t tlm_start_tsc;

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

static int tlm_info(struct rte_tel_data *d)
{
	const struct optinc_conf *c = tlm_conf;
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
				  (now - tlm_start_tsc) / rte_get_tsc_hz());
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

static int tlm_ports(struct rte_tel_data *d)
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

	rte_tel_data_add_dict_u64(d, "id", j->conf.id);
	rte_tel_data_add_dict_u64(d, "size", j->conf.size);
	rte_tel_data_add_dict_u64(d, "bits", j->conf.bits);
	rte_tel_data_add_dict_string(d, "mode", mode == OPTINC_MODE_ONN ?
				     "onn" : "exact");
	rte_tel_data_add_dict_u64(d, "served",
				  __atomic_load_n(&j->served, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(d, "joined", (uint64_t)__builtin_popcountll(joined));
	rte_tel_data_add_dict_u64(d, "lcore", optinc_workers[j->worker].lcore);
	TLM_U64(d, s, slots_completed);
	TLM_U64(d, s, frames_in);
	TLM_U64(d, s, bytes_in);
	TLM_U64(d, s, frames_out);
	TLM_U64(d, s, bytes_out);
}

static int tlm_job_detail(struct rte_tel_data *d, const struct optinc_agg_job *j)
{
	const struct optinc_agg_table *t = __atomic_load_n(&j->table,
							   __ATOMIC_ACQUIRE);
	const struct optinc_job_stats *s = &j->stats;

	rte_tel_data_start_dict(d);
	tlm_job_common(d, j);
	rte_tel_data_add_dict_u64(d, "joined_mask",
				  __atomic_load_n(&j->core.joined, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(d, "window", j->conf.window);
	rte_tel_data_add_dict_u64(d, "max_elems", j->conf.max_elems);
	rte_tel_data_add_dict_u64(d, "token_set", j->conf.token != 0);
	rte_tel_data_add_dict_string(d, "table", t ? t->path : "");
	rte_tel_data_add_dict_u64(d, "table_wrong", t ? t->wrong : 0);
	TLM_U64(d, s, resends);
	TLM_U64(d, s, joins);
	TLM_U64(d, s, join_acks);
	TLM_U64(d, s, nacks);
	TLM_U64(d, s, tx_errors);
	TLM_U64(d, s, up_frames_out);
	TLM_U64(d, s, up_results_in);
	TLM_U64(d, s, up_resends);
	TLM_U64(d, s, up_hinted);
	TLM_U64(d, s, up_results_dup);
	TLM_U64(d, s, wrong_port);
	TLM_U64(d, s, spoofed);
	TLM_U64(d, s, rebinds);
	return tlm_add_drops(d, s->drops);
}

static int tlm_jobs(struct rte_tel_data *d)
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
		snprintf(key, sizeof(key), "%u", j->conf.id);
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

static int tlm_members(struct rte_tel_data *d, const struct optinc_agg_job *j)
{
	uint64_t joined = __atomic_load_n(&j->core.joined, __ATOMIC_RELAXED);
	struct rte_tel_data *m;
	char key[8];
	uint16_t r;

	rte_tel_data_start_dict(d);
	for (r = 0; r < j->conf.size; r++) {
		m = tlm_member(j, r, joined);
		if (!m)
			return -ENOMEM;
		snprintf(key, sizeof(key), "%u", r);
		rte_tel_data_add_dict_container(d, key, m, 0);
	}
	return 0;
}

/*
 * A refused request answers {"error": WHY, "param": NAME}, NAME being the
 * parameter at fault ("id", "file", "params"), where a bare null would say
 * nothing. WHY is cut at RTE_TEL_MAX_STRING_LEN.
 */
static int tlm_error(struct rte_tel_data *d, const char *param,
		     const char *fmt, ...)
{
	char why[RTE_TEL_MAX_STRING_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "error", why);
	rte_tel_data_add_dict_string(d, "param", param);
	return 0;
}

/*
 * The job of "ID" (@rest NULL) or "ID,REST" (@rest set to REST) in
 * @params of @cmd; NULL with @d set to the error when there is none.
 */
static struct optinc_agg_job *tlm_job_param(const char *cmd,
					    const char *params,
					    const char **rest,
					    struct rte_tel_data *d)
{
	const char *form = rest ? "ID,FILE" : "ID";
	struct optinc_agg_job *j;
	unsigned long id = 0;
	char *end = NULL;
	size_t n;

	if (!params || !*params) {
		tlm_error(d, "id", "job id missing: %s,%s", cmd, form);
		return NULL;
	}
	n = strcspn(params, ",");
	if (isdigit((unsigned char)*params))
		id = strtoul(params, &end, 10);
	if (!end || end != params + n || id == 0 || id > 65535) {
		tlm_error(d, "id", "job id '%.*s': not a number in 1..65535 "
			  "(%s,%s)", (int)RTE_MIN(n, (size_t)16), params, cmd,
			  form);
		return NULL;
	}
	if (!rest && params[n]) {
		tlm_error(d, "params", "one parameter, the job id: %s,%s",
			  cmd, form);
		return NULL;
	}
	j = optinc_agg_find((uint16_t)id);
	if (!j) {
		tlm_error(d, "id", "job id '%lu': no such job (see "
			  "/optinc/jobs)", id);
		return NULL;
	}
	if (rest)
		*rest = params[n] ? params + n + 1 : "";
	return j;
}

/*
 * /optinc/table,ID,PATH: install a truth table. The answer is a dict with
 * "installed" 1 and the table's details, or "installed" 0 and "error", the
 * problem with the file (a null answer would lose it), or, for a missing
 * or bad ID or a missing PATH, tlm_error()'s. Strings are cut at
 * RTE_TEL_MAX_STRING_LEN; optincd's log has the whole message.
 */
static int tlm_table(struct rte_tel_data *d, const char *params)
{
	const struct optinc_agg_table *t;
	struct optinc_agg_job *j;
	const char *path = NULL;
	char why[512];

	j = tlm_job_param("/optinc/table", params, &path, d);
	if (!j)
		return 0;
	if (!*path)
		return tlm_error(d, "file", "table file missing: "
				 "/optinc/table,ID,FILE");
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "id", j->conf.id);
	if (optinc_agg_table_install(j, path, why, sizeof(why))) {
		rte_tel_data_add_dict_u64(d, "installed", 0);
		rte_tel_data_add_dict_string(d, "table", path);
		rte_tel_data_add_dict_string(d, "error", why);
		return 0;
	}
	t = j->table;
	rte_tel_data_add_dict_u64(d, "installed", 1);
	rte_tel_data_add_dict_string(d, "table", t->path);
	rte_tel_data_add_dict_u64(d, "table_wrong", t->wrong);
	rte_tel_data_add_dict_string(d, "mode", "onn");
	return 0;
}

/*
 * /optinc/job_add,SPEC: add a job (SPEC as --job takes it). The answer is a
 * dict with "added" 1 and the job's id, or "added" 0 and "error".
 */
static int tlm_job_add(struct rte_tel_data *d, const char *params)
{
	char why[RTE_TEL_MAX_STRING_LEN];
	struct optinc_agg_job *j;

	if (!params || !*params) {
		tlm_error(d, "params", "/optinc/job_add needs a job spec, "
			  "key=value,... as --job takes it");
		return 0;
	}
	j = optinc_agg_job_add(params, why, sizeof(why));
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "added", j != NULL);
	if (j)
		rte_tel_data_add_dict_u64(d, "id", j->conf.id);
	else
		rte_tel_data_add_dict_string(d, "error", why);
	return 0;
}

/* /optinc/job_del,ID: remove a job; "removed" 1, or 0 and "error". */
static int tlm_job_del(struct rte_tel_data *d, const char *params)
{
	char why[RTE_TEL_MAX_STRING_LEN], *end = NULL;
	unsigned long id;
	int ret;

	id = params && isdigit((unsigned char)*params) ?
	     strtoul(params, &end, 10) : 0;
	if (!id || *end || id > 65535) {
		tlm_error(d, "id", "/optinc/job_del needs a job id, 1..65535, "
			  "got '%.32s'", params ? params : "");
		return 0;
	}
	ret = optinc_agg_job_del((uint16_t)id, why, sizeof(why));
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "id", id);
	rte_tel_data_add_dict_u64(d, "removed", !ret);
	if (ret)
		rte_tel_data_add_dict_string(d, "error", why);
	return 0;
}

/* A command of no parameters: true, or false with @d set to the error. */
static bool tlm_no_params(const char *cmd, const char *params,
			  struct rte_tel_data *d)
{
	if (!params || !*params)
		return true;
	tlm_error(d, "params", "%s takes no parameters, got '%.32s'", cmd,
		  params);
	return false;
}

/* Every command goes through here: one lock, one stopped check. */
static int tlm_cmd(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct optinc_agg_job *j;
	int ret = 0;

	OPTINC_LOG(DEBUG, "telemetry: %s%s%s", cmd, params ? "," : "",
		   params ? params : "");
	pthread_mutex_lock(&tlm_lock);
	if (tlm_stopped) {
		ret = -ESHUTDOWN;
	} else if (!strcmp(cmd, "/optinc/table")) {
		ret = tlm_table(d, params);
	} else if (!strcmp(cmd, "/optinc/job_add")) {
		ret = tlm_job_add(d, params);
	} else if (!strcmp(cmd, "/optinc/job_del")) {
		ret = tlm_job_del(d, params);
	} else if (!strcmp(cmd, "/optinc/job") ||
		   !strcmp(cmd, "/optinc/members")) {
		j = tlm_job_param(cmd, params, NULL, d);
		if (j)
			ret = !strcmp(cmd, "/optinc/job") ? tlm_job_detail(d, j) :
			      tlm_members(d, j);
	} else if (tlm_no_params(cmd, params, d)) {
		if (!strcmp(cmd, "/optinc/info"))
			ret = tlm_info(d);
		else if (!strcmp(cmd, "/optinc/lcores"))
			ret = optinc_lcore_tlm(d);
		else if (!strcmp(cmd, "/optinc/ports"))
			ret = tlm_ports(d);
		else
			ret = tlm_jobs(d);
	}
	pthread_mutex_unlock(&tlm_lock);
	return ret;
}

static const struct {
	const char *cmd;
	const char *help;
} tlm_cmds[] = {
	{ "/optinc/info", "Switch addresses, uptime, L2 and global drop counters. No parameters" },
	{ "/optinc/ports", "Per-port counters, keyed by port id. No parameters" },
	{ "/optinc/lcores", "Per datapath lcore: jobs, queues, frames, hand-offs, busy cycles. No parameters" },
	{ "/optinc/jobs", "Summary of every job, keyed by job id. No parameters" },
	{ "/optinc/job", "A job's shape and counters, drops by reason. Parameters: job id" },
	{ "/optinc/members", "A job's members and their counters, keyed by rank. Parameters: job id" },
	{ "/optinc/table", "Install a job's truth table (onn mode). Parameters: job id, file" },
	{ "/optinc/job_add", "Add a job while running. Parameters: a --job spec, key=value,..." },
	{ "/optinc/job_del", "Remove a job while running. Parameters: job id" },
};

/**
 * optinc_tlm_init() - register the /optinc/ telemetry commands
 * @c: configuration, shown by /optinc/info
 *
 * Return: 0, or a negative errno (reported).
 */
int optinc_tlm_init(const struct optinc_conf *c)
{
	unsigned int i;
	int ret;

	tlm_conf = c;
	tlm_start_tsc = rte_rdtsc();
	for (i = 0; i < RTE_DIM(tlm_cmds); i++) {
		ret = rte_telemetry_register_cmd(tlm_cmds[i].cmd, tlm_cmd,
						 tlm_cmds[i].help);
		if (ret) {
			OPTINC_LOG(ERR, "registering telemetry command %s: %s",
				   tlm_cmds[i].cmd, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* After this, handlers answer -ESHUTDOWN and touch nothing. */
void optinc_tlm_stop(void)
{
	pthread_mutex_lock(&tlm_lock);
	tlm_stopped = true;
	pthread_mutex_unlock(&tlm_lock);
}
