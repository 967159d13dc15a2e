// SPDX-License-Identifier: BSD-3-Clause
/* optincctl daemon: optincd's state and counters, from its telemetry. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "optincctl.h"

static uint64_t dmn_get_u64(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ?
	       json_object_get_uint64(v) : 0;
}

static const char *dmn_get_str(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ?
	       json_object_get_string(v) : NULL;
}

static void dmn_u64(json_object *o, const char *key, const char *fmt)
{
	optincctl_print_u64(key, fmt, dmn_get_u64(o, key));
}

static void dmn_str(json_object *o, const char *key, const char *fmt)
{
	optincctl_print_str(key, fmt, dmn_get_str(o, key));
}

/* "drops": {reason: n}; text shows the nonzero ones, all with -s. */
static void dmn_drops(json_object *o, const char *indent)
{
	bool any = false;
	json_object *d;

	if (!json_object_object_get_ex(o, "drops", &d))
		return;
	optincctl_print_text("%sdrops:", indent);
	optincctl_print_open("drops", false);
	json_object_object_foreach(d, reason, v) {
		uint64_t n = json_object_get_uint64(v);

		optincctl_print_u64(reason, NULL, n);
		if (n || optincctl_opts.stats) {
			optincctl_print_text(" %s %" PRIu64, reason, n);
			any = true;
		}
	}
	optincctl_print_close();
	optincctl_print_text("%s\n", any ? "" : " none");
}

static int dmn_show(struct optincctl_tel *t, char **argv)
{
	json_object *o;
	int ret;

	ret = optincctl_tel_query(t, "/optinc/info", &o);
	if (ret)
		return ret;
	optincctl_print_start(false);
	dmn_str(o, "version", "optincd %s");
	dmn_u64(o, "pid", " pid %" PRIu64);
	dmn_u64(o, "uptime_s", " up %" PRIu64 "s");
	dmn_u64(o, "lcore", " lcore %" PRIu64 "\n");
	dmn_str(o, "addr", "    switch %s");
	dmn_str(o, "mac", " mac %s");
	dmn_u64(o, "udp_port", " udp %" PRIu64);
	dmn_u64(o, "mtu", " mtu %" PRIu64);
	dmn_u64(o, "idle_us_max", " idle-us %" PRIu64 "\n");
	dmn_u64(o, "rate_limit_pps", "    rate-limit %" PRIu64 "/s");
	dmn_u64(o, "rate_limit_burst", " burst %" PRIu64 "\n");
	dmn_u64(o, "ports", "    ports %" PRIu64);
	dmn_u64(o, "jobs", " jobs %" PRIu64);
	dmn_u64(o, "fdb_entries", " fdb %" PRIu64);
	dmn_u64(o, "fdb_capacity", "/%" PRIu64 "\n");
	dmn_u64(o, "l2_forwarded", "    l2: forwarded %" PRIu64);
	dmn_u64(o, "l2_flooded", " flooded %" PRIu64);
	dmn_u64(o, "l2_filtered", " filtered %" PRIu64);
	dmn_u64(o, "arp_replies", " arp-replies %" PRIu64);
	dmn_u64(o, "icmp_replies", " ping-replies %" PRIu64 "\n");
	if (optincctl_opts.stats || optincctl_opts.json) {
		dmn_u64(o, "polls", "    loop: polls %" PRIu64);
		dmn_u64(o, "idle_sleeps", " idle-sleeps %" PRIu64);
		dmn_u64(o, "idle_us", " slept-us %" PRIu64 "\n");
		dmn_u64(o, "fdb_learned", "    fdb: learned %" PRIu64);
		dmn_u64(o, "fdb_moved", " moved %" PRIu64);
		dmn_u64(o, "fdb_pin_full", " pin-full %" PRIu64 "\n");
		dmn_u64(o, "to_switch_other", "    other: to-switch %" PRIu64);
		dmn_u64(o, "runts", " runts %" PRIu64);
		dmn_u64(o, "nacks", " nacks %" PRIu64);
		dmn_u64(o, "tx_errors", " tx-errors %" PRIu64 "\n");
	}
	dmn_drops(o, "    ");
	optincctl_print_end();
	json_object_put(o);
	return 0;
}

static void dmn_port_hw(json_object *p)
{
	dmn_u64(p, "hw_ipackets", "    HW RX: packets %" PRIu64);
	dmn_u64(p, "hw_ibytes", " bytes %" PRIu64);
	dmn_u64(p, "hw_imissed", " missed %" PRIu64);
	dmn_u64(p, "hw_ierrors", " errors %" PRIu64);
	dmn_u64(p, "hw_rx_nombuf", " nombuf %" PRIu64 "\n");
	dmn_u64(p, "hw_opackets", "    HW TX: packets %" PRIu64);
	dmn_u64(p, "hw_obytes", " bytes %" PRIu64);
	dmn_u64(p, "hw_oerrors", " errors %" PRIu64 "\n");
}

static void dmn_port(const char *id, json_object *p)
{
	optincctl_print_open(NULL, false);
	optincctl_print_u64("port", "%" PRIu64 ":", strtoull(id, NULL, 10));
	dmn_str(p, "name", " %s");
	dmn_str(p, "driver", " driver %s");
	dmn_str(p, "mac", " mac %s");
	dmn_u64(p, "mtu", " mtu %" PRIu64);
	dmn_u64(p, "max_frame", " max-frame %" PRIu64);
	dmn_str(p, "link", " link %s\n");
	dmn_u64(p, "rx_pkts", "    RX: packets %" PRIu64);
	dmn_u64(p, "rx_bytes", " bytes %" PRIu64);
	dmn_u64(p, "rx_dropped", " dropped %" PRIu64 "\n");
	dmn_u64(p, "tx_pkts", "    TX: packets %" PRIu64);
	dmn_u64(p, "tx_bytes", " bytes %" PRIu64);
	dmn_u64(p, "tx_dropped", " dropped %" PRIu64 "\n");
	dmn_u64(p, "spoofed", "    port-security: spoofed %" PRIu64);
	dmn_u64(p, "wrong_port", " wrong-port %" PRIu64);
	dmn_u64(p, "rate_limited", " rate-limited %" PRIu64 "\n");
	if (optincctl_opts.stats || optincctl_opts.json)
		dmn_port_hw(p);
	optincctl_print_close();
}

static int dmn_ports(struct optincctl_tel *t, char **argv)
{
	json_object *o;
	int ret;

	ret = optincctl_tel_query(t, "/optinc/ports", &o);
	if (ret)
		return ret;
	optincctl_print_start(true);
	json_object_object_foreach(o, id, p)
		dmn_port(id, p);
	optincctl_print_end();
	json_object_put(o);
	return 0;
}

/* "lcores": each datapath lcore's share of the work (optincd -l). */
static void dmn_lcore(const char *idx, json_object *w, uint64_t hz)
{
	uint64_t busy = dmn_get_u64(w, "busy_cycles");

	optincctl_print_open(NULL, false);
	optincctl_print_u64("worker", "worker %" PRIu64 ":", strtoull(idx, NULL, 10));
	dmn_u64(w, "lcore", " lcore %" PRIu64);
	dmn_u64(w, "jobs", " jobs %" PRIu64);
	dmn_u64(w, "rx_queues", " rx-queues %" PRIu64 "\n");
	dmn_u64(w, "rx_frames", "    frames: rx %" PRIu64);
	dmn_u64(w, "handed_out", " handed-out %" PRIu64);
	dmn_u64(w, "handed_in", " handed-in %" PRIu64);
	dmn_u64(w, "handoff_full", " ring-full %" PRIu64 "\n");
	dmn_u64(w, "polls", "    polls %" PRIu64);
	dmn_u64(w, "busy_rounds", " busy %" PRIu64);
	dmn_u64(w, "idle_sleeps", " idle-sleeps %" PRIu64);
	dmn_u64(w, "busy_cycles", NULL);
	optincctl_print_u64("tsc_hz", NULL, hz);
	optincctl_print_text(" busy-time %.3f s\n", hz ? (double)busy / hz : 0.0);
	optincctl_print_close();
}

static int dmn_lcores(struct optincctl_tel *t, char **argv)
{
	json_object *o;
	uint64_t hz;
	int ret;

	ret = optincctl_tel_query(t, "/optinc/lcores", &o);
	if (ret)
		return ret;
	hz = dmn_get_u64(o, "tsc_hz");
	optincctl_print_start(true);
	json_object_object_foreach(o, idx, w)
		if (json_object_is_type(w, json_type_object))
			dmn_lcore(idx, w, hz);
	optincctl_print_end();
	json_object_put(o);
	return 0;
}

/* The first line of a job, shared by "jobs" and "job ID". */
static void dmn_job_head(json_object *j)
{
	dmn_u64(j, "id", "job %" PRIu64);
	dmn_u64(j, "size", " size %" PRIu64);
	dmn_u64(j, "bits", " bits %" PRIu64);
	dmn_str(j, "mode", " mode %s");
	dmn_u64(j, "served", NULL);
	if (!dmn_get_u64(j, "served"))
		optincctl_print_text(" not-served");
	dmn_u64(j, "joined", " joined %" PRIu64);
	optincctl_print_text("/%" PRIu64, dmn_get_u64(j, "size"));
	dmn_u64(j, "lcore", " lcore %" PRIu64);
}

static void dmn_job_traffic(json_object *j)
{
	dmn_u64(j, "slots_completed", "    slots %" PRIu64);
	dmn_u64(j, "frames_in", " in %" PRIu64 " frames");
	dmn_u64(j, "bytes_in", " %" PRIu64 " bytes");
	dmn_u64(j, "frames_out", " out %" PRIu64 " frames");
	dmn_u64(j, "bytes_out", " %" PRIu64 " bytes");
}

static int dmn_jobs(struct optincctl_tel *t, char **argv)
{
	json_object *o;
	int ret;

	ret = optincctl_tel_query(t, "/optinc/jobs", &o);
	if (ret)
		return ret;
	optincctl_print_start(true);
	json_object_object_foreach(o, id, j) {
		optincctl_print_open(NULL, false);
		dmn_job_head(j);
		optincctl_print_text("\n");
		dmn_job_traffic(j);
		dmn_u64(j, "drops", " drops %" PRIu64 "\n");
		optincctl_print_close();
		(void)id;
	}
	optincctl_print_end();
	json_object_put(o);
	return 0;
}

static void dmn_member(const char *rank, json_object *m)
{
	bool joined = dmn_get_u64(m, "joined");

	optincctl_print_open(NULL, false);
	optincctl_print_u64("rank", "    rank %" PRIu64, strtoull(rank, NULL, 10));
	dmn_u64(m, "joined", NULL);
	if (joined) {
		dmn_str(m, "addr", " %s");
		dmn_str(m, "mac", " mac %s");
		dmn_u64(m, "port", " port %" PRIu64);
	} else {
		optincctl_print_text(" not joined");
	}
	dmn_u64(m, "frames_in", " in %" PRIu64);
	dmn_u64(m, "bytes_in", "/%" PRIu64);
	dmn_u64(m, "frames_out", " out %" PRIu64);
	dmn_u64(m, "bytes_out", "/%" PRIu64 "\n");
	optincctl_print_close();
}

/* A first-level job's uplink counters (text only once it sent up). */
static void dmn_job_uplink(json_object *j)
{
	bool up = dmn_get_u64(j, "up_frames_out") != 0;

	dmn_u64(j, "up_frames_out", up ? "    uplink: frames-out %" PRIu64 : NULL);
	dmn_u64(j, "up_results_in", up ? " results-in %" PRIu64 : NULL);
	dmn_u64(j, "up_resends", up ? " resends %" PRIu64 : NULL);
	dmn_u64(j, "up_hinted", up ? " (hinted %" PRIu64 ")" : NULL);
	dmn_u64(j, "up_results_dup", up ? " results-again %" PRIu64 "\n" : NULL);
}

static void dmn_job_detail(json_object *j, json_object *members)
{
	const char *table = dmn_get_str(j, "table");

	dmn_job_head(j);
	dmn_u64(j, "window", " window %" PRIu64);
	dmn_u64(j, "max_elems", " max-elems %" PRIu64 "\n");
	dmn_u64(j, "joined_mask", NULL);
	dmn_u64(j, "token_set", NULL);
	if (table && *table) {
		dmn_str(j, "table", "    table %s");
		dmn_u64(j, "table_wrong", " wrong-entries %" PRIu64 "\n");
	}
	dmn_job_traffic(j);
	optincctl_print_text("\n");
	dmn_u64(j, "data", "    data %" PRIu64);
	dmn_u64(j, "absorbed", " absorbed %" PRIu64);
	dmn_u64(j, "results", " results %" PRIu64);
	dmn_u64(j, "results_shared", " shared %" PRIu64 "\n");
	dmn_u64(j, "resends", "    resends %" PRIu64);
	dmn_u64(j, "joins", " joins %" PRIu64);
	dmn_u64(j, "join_acks", " join-acks %" PRIu64);
	dmn_u64(j, "nacks", " nacks %" PRIu64);
	dmn_u64(j, "tx_errors", " tx-errors %" PRIu64 "\n");
	dmn_u64(j, "wrong_port", "    port-security: wrong-port %" PRIu64);
	dmn_u64(j, "spoofed", " spoofed %" PRIu64);
	dmn_u64(j, "rebinds", " rebinds %" PRIu64 "\n");
	dmn_job_uplink(j);
	dmn_drops(j, "    ");
	optincctl_print_open("members", true);
	json_object_object_foreach(members, rank, m)
		dmn_member(rank, m);
	optincctl_print_close();
}

/* A job id as the daemon takes it: decimal digits. */
static int dmn_job_id(const char *word)
{
	char *end;

	strtoul(word, &end, 10);
	if (!*word || *end) {
		fprintf(stderr, "optincctl: job \"%s\": not a job id\n", word);
		return -EINVAL;
	}
	return 0;
}

static int dmn_job(struct optincctl_tel *t, char **argv)
{
	json_object *j = NULL, *members = NULL;
	char cmd[64];
	int ret;

	ret = dmn_job_id(argv[0]);
	if (ret)
		return ret;
	snprintf(cmd, sizeof(cmd), "/optinc/job,%s", argv[0]);
	ret = optincctl_tel_query(t, cmd, &j);
	if (!ret) {
		snprintf(cmd, sizeof(cmd), "/optinc/members,%s", argv[0]);
		ret = optincctl_tel_query(t, cmd, &members);
	}
	if (ret == -ENOENT)
		fprintf(stderr, "optincctl: optincd has no job %s\n", argv[0]);
	if (!ret) {
		optincctl_print_start(false);
		dmn_job_detail(j, members);
		optincctl_print_end();
	}
	json_object_put(j);
	json_object_put(members);
	return ret;
}

/* "table ID FILE": optincd loads FILE itself, so send it as an absolute path. */
static int dmn_table(struct optincctl_tel *t, char **argv)
{
	char *path = realpath(argv[1], NULL), cmd[PATH_MAX + 32];
	const char *file = path ? path : argv[1];
	json_object *o = NULL;
	int ret;

	ret = dmn_job_id(argv[0]);
	if (!ret && snprintf(cmd, sizeof(cmd), "/optinc/table,%s,%s", argv[0],
			     file) >= (int)sizeof(cmd))
		ret = -ENAMETOOLONG;
	if (!ret)
		ret = optincctl_tel_query(t, cmd, &o);
	if (ret == -ENOENT)
		fprintf(stderr, "optincctl: optincd has no job %s\n", argv[0]);
	if (!ret && !dmn_get_u64(o, "installed")) {
		fprintf(stderr, "optincctl: job %s: table '%s': %s\n", argv[0],
			file, dmn_get_str(o, "error"));
		ret = -EINVAL;
	} else if (!ret) {
		optincctl_print_start(false);
		dmn_u64(o, "id", "job %" PRIu64);
		dmn_str(o, "table", " table %s");
		dmn_u64(o, "table_wrong", " wrong-entries %" PRIu64);
		dmn_str(o, "mode", " mode %s\n");
		optincctl_print_end();
	}
	json_object_put(o);
	free(path);
	return ret;
}

/*
 * "job add KEY VALUE..." as optincd's job spec "KEY=VALUE,...", the words
 * optinc.ko's job set takes; @argv ends with NULL.
 */
static int dmn_spec(char **argv, char *spec, size_t len)
{
	size_t off = 0;
	char *path;
	int i, n;

	for (i = 0; argv[i]; i += 2) {
		if (!argv[i + 1]) {
			fprintf(stderr, "optincctl: job add: \"%s\" needs a value\n",
				argv[i]);
			return -EINVAL;
		}
		if (strchr(argv[i], ',') || strchr(argv[i + 1], ',') ||
		    strchr(argv[i], '=')) {
			fprintf(stderr, "optincctl: job add: \"%s %s\": no ',' or "
				"'=' in a key or value\n", argv[i], argv[i + 1]);
			return -EINVAL;
		}
		/* optincd reads the table itself: give it an absolute path */
		path = strcmp(argv[i], "table") ? NULL : realpath(argv[i + 1], NULL);
		n = snprintf(spec + off, len - off, "%s%s=%s", i ? "," : "",
			     argv[i], path ? path : argv[i + 1]);
		free(path);
		if (n < 0 || (size_t)n >= len - off) {
			fprintf(stderr, "optincctl: job add: the spec is too long\n");
			return -E2BIG;
		}
		off += (size_t)n;
	}
	if (!off) {
		fprintf(stderr, "optincctl: job add: id ID size N [ KEY VALUE ]...\n");
		return -EINVAL;
	}
	return 0;
}

/* The answer of job_add or job_del: @key 1, or the error optincd gave. */
static int dmn_answer(json_object *o, const char *key, const char *what,
		      const char *arg)
{
	if (dmn_get_u64(o, key))
		return 0;
	fprintf(stderr, "optincctl: %s %s: %s\n", what, arg,
		dmn_get_str(o, "error"));
	return -EINVAL;
}

/* "job add KEY VALUE...": /optinc/job_add,KEY=VALUE,... */
static int dmn_job_add(struct optincctl_tel *t, char **argv)
{
	char spec[1000], cmd[1024];
	json_object *o = NULL;
	int ret;

	ret = dmn_spec(argv, spec, sizeof(spec));
	if (ret)
		return ret;
	snprintf(cmd, sizeof(cmd), "/optinc/job_add,%s", spec);
	ret = optincctl_tel_query(t, cmd, &o);
	if (ret == -ENOENT)
		fprintf(stderr, "optincctl: job add: optincd does not add jobs "
			"(an older version)\n");
	if (!ret)
		ret = dmn_answer(o, "added", "job add", spec);
	if (!ret) {
		optincctl_print_start(false);
		dmn_u64(o, "id", "job %" PRIu64 " added\n");
		optincctl_print_end();
	}
	json_object_put(o);
	return ret;
}

/* "job del ID": /optinc/job_del,ID */
static int dmn_job_del(struct optincctl_tel *t, char **argv)
{
	json_object *o = NULL;
	char cmd[64];
	int ret;

	if (!argv[0] || argv[1]) {
		fprintf(stderr, "optincctl: job del: one job ID\n");
		return -EINVAL;
	}
	ret = dmn_job_id(argv[0]);
	if (ret)
		return ret;
	snprintf(cmd, sizeof(cmd), "/optinc/job_del,%s", argv[0]);
	ret = optincctl_tel_query(t, cmd, &o);
	if (ret == -ENOENT)
		fprintf(stderr, "optincctl: job del: optincd does not remove "
			"jobs (an older version)\n");
	if (!ret)
		ret = dmn_answer(o, "removed", "job del", argv[0]);
	json_object_put(o);
	return ret;
}

static void dmn_usage(FILE *f)
{
	fprintf(f,
		"Usage: optincctl [ OPTIONS ] daemon { show | ports | lcores | jobs | help }\n"
		"       optincctl [ OPTIONS ] daemon job ID\n"
		"       optincctl [ OPTIONS ] daemon job add id ID size N [ KEY VALUE ]...\n"
		"       optincctl [ OPTIONS ] daemon job del ID\n"
		"       optincctl [ OPTIONS ] daemon table ID FILE\n"
		"OPTIONS := { -j[son] | -p[retty] | -s[tatistics] | --prefix PREFIX }\n"
		"Reads optincd's DPDK telemetry socket, /var/run/dpdk/PREFIX/dpdk_telemetry.v2\n"
		"(PREFIX: optincd's --file-prefix, default \"rte\").\n");
}

static const struct dmn_cmd {
	const char *name;
	int (*fn)(struct optincctl_tel *t, char **argv);
	int nargs;
} dmn_cmds[] = {
	{ "show", dmn_show, 0 },
	{ "ports", dmn_ports, 0 },
	{ "lcores", dmn_lcores, 0 },
	{ "jobs", dmn_jobs, 0 },
	{ "job", dmn_job, 1 },
	{ "table", dmn_table, 2 },
	{ "add", dmn_job_add, -1 },	/* "job add ...", any number */
	{ "del", dmn_job_del, -1 },	/* "job del ID" */
};

/* Exact names first, so "job" is not taken for "jobs". */
static const struct dmn_cmd *dmn_find(const char *word)
{
	unsigned int i;

	for (i = 0; i < sizeof(dmn_cmds) / sizeof(dmn_cmds[0]); i++)
		if (!strcmp(word, dmn_cmds[i].name))
			return &dmn_cmds[i];
	for (i = 0; i < sizeof(dmn_cmds) / sizeof(dmn_cmds[0]); i++)
		if (optincctl_matches(word, dmn_cmds[i].name))
			return &dmn_cmds[i];
	return NULL;
}

/**
 * optincctl_daemon() - run "optincctl daemon COMMAND ..."
 * @argc: words after "daemon"
 * @argv: them; none means "show"
 *
 * Return: 0 or a negative errno; the error has been printed.
 */
int optincctl_daemon(int argc, char **argv)
{
	const char *word = argc ? argv[0] : "show";
	const struct dmn_cmd *c;
	struct optincctl_tel t;
	int ret;

	if (optincctl_matches(word, "help")) {
		dmn_usage(stdout);
		return 0;
	}
	c = dmn_find(word);
	/* "job add ..." and "job del ID": the verb after "job" */
	if (c && c->fn == dmn_job && argc > 1 &&
	    (optincctl_matches(argv[1], "add") ||
	     optincctl_matches(argv[1], "delete"))) {
		c = dmn_find(optincctl_matches(argv[1], "add") ? "add" : "del");
		argc--;
		argv++;
	} else if (c && c->nargs < 0) {
		c = NULL;
	}
	if (!c)
		return optincctl_unknown(word, "daemon");
	if (c->nargs >= 0 && (argc ? argc - 1 : 0) != c->nargs) {
		fprintf(stderr, "optincctl: daemon %s: %s, try \"optincctl "
			"daemon help\".\n", c->name, c->nargs == 2 ?
			"needs a job id and a file" : c->nargs ? "needs a job id" :
			"takes no arguments");
		return -EINVAL;
	}
	ret = optincctl_tel_open(&t, optincctl_opts.prefix);
	if (ret)
		return ret;
	ret = c->fn(&t, argv + 1);
	if (ret == -ENOENT && c->fn != dmn_job && c->fn != dmn_table &&
	    c->nargs >= 0)
		fprintf(stderr, "optincctl: optincd gave no answer (an older "
			"version, or stopping)\n");
	optincctl_tel_close(&t);
	return ret;
}
