// SPDX-License-Identifier: BSD-3-Clause
/*
 * Telemetry: the /optinc/... commands of DPDK's telemetry socket, read by
 * dpdk-telemetry.py and optincctl. Handlers run on the telemetry thread
 * while the lcores work. This file registers every command, parses their
 * parameters and runs the ones that change the switch (/optinc/table,
 * job_add, job_del); the reading ones are tlm_show.c's. Every handler runs
 * under tlm_lock: jobs are added, removed and re-tabled only under it, so a
 * reading handler may walk the job table and read the truth table in use,
 * and once shutdown begins no handler touches the tables.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <rte_cycles.h>
#include <rte_telemetry.h>
#include "optincd.h"

static pthread_mutex_t tlm_lock = PTHREAD_MUTEX_INITIALIZER;
static bool tlm_stopped;
static const struct optinc_conf *tlm_conf;
static uint64_t tlm_start_tsc;

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
			ret = !strcmp(cmd, "/optinc/job") ?
			      optinc_tlm_job(d, j) :
			      optinc_tlm_members(d, j);
	} else if (tlm_no_params(cmd, params, d)) {
		if (!strcmp(cmd, "/optinc/info"))
			ret = optinc_tlm_info(d, tlm_conf, tlm_start_tsc);
		else if (!strcmp(cmd, "/optinc/lcores"))
			ret = optinc_tlm_lcores(d);
		else if (!strcmp(cmd, "/optinc/ports"))
			ret = optinc_tlm_ports(d);
		else
			ret = optinc_tlm_jobs(d);
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
