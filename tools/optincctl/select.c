// SPDX-License-Identifier: BSD-3-Clause
/*
 * One grammar for both datapaths: "optincctl [-d DATAPATH] OBJECT VERB",
 * the datapath a selector (as ovs-dpctl takes a datapath name), the same
 * objects and verbs for optincd and optinc.ko. Each command is rewritten
 * into the datapath's own words ("daemon job 3", "kmod job show SW id 3")
 * and run by daemon.c or kmod.c, so one parser per datapath stays; the
 * old per-datapath spellings remain as aliases.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "optincctl.h"
#include "kmod.h"

#define SEL_MAX_WORDS	64

/* The command rewritten for one datapath: words, and how many. */
struct sel_cmd {
	char *w[SEL_MAX_WORDS];
	int n;
};

static int sel_add(struct sel_cmd *c, char *word)
{
	if (c->n >= SEL_MAX_WORDS - 1) {
		fprintf(stderr, "optincctl: more than %d words\n", SEL_MAX_WORDS - 2);
		return -E2BIG;
	}
	c->w[c->n++] = word;
	return 0;
}

static int sel_add_all(struct sel_cmd *c, int argc, char **argv)
{
	int i, ret = 0;

	for (i = 0; i < argc && !ret; i++)
		ret = sel_add(c, argv[i]);
	return ret;
}

/**
 * optincctl_select() - take "-d DATAPATH" into optincctl_opts
 * @spec: "daemon", "daemon:PREFIX", "kmod" or "kmod:SWITCH"
 *
 * Return: 0, or -EINVAL with the error printed.
 */
int optincctl_select(const char *spec)
{
	const char *colon = strchr(spec, ':');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	const char *name = colon ? colon + 1 : NULL;

	if (len == 6 && !strncmp(spec, "daemon", len))
		optincctl_opts.dp = OPTINCCTL_DP_DAEMON;
	else if (len == 4 && !strncmp(spec, "kmod", len))
		optincctl_opts.dp = OPTINCCTL_DP_KMOD;
	else {
		fprintf(stderr, "optincctl: -d '%s': not daemon[:PREFIX] or "
			"kmod[:SWITCH]\n", spec);
		return -EINVAL;
	}
	if (name && !*name) {
		fprintf(stderr, "optincctl: -d '%s': empty %s after ':'\n", spec,
			optincctl_opts.dp == OPTINCCTL_DP_KMOD ? "SWITCH" : "PREFIX");
		return -EINVAL;
	}
	if (name && optincctl_opts.dp == OPTINCCTL_DP_DAEMON)
		optincctl_opts.prefix = name;
	optincctl_opts.sw = optincctl_opts.dp == OPTINCCTL_DP_KMOD ? name : NULL;
	return 0;
}

/**
 * optincctl_netns() - run in network namespace @name, as "ip -n" does
 * @name: a name under /run/netns, or a path to a namespace file
 *
 * optinc.ko's switches live in a namespace; optincd's telemetry socket is
 * a file, found from any namespace.
 *
 * Return: 0, or a negative errno with the error printed.
 */
int optincctl_netns(const char *name)
{
	char path[PATH_MAX];
	int fd, ret = 0;

	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		fprintf(stderr, "optincctl: -n %s: %s: %s\n", name, path,
			strerror(errno));
		return ret;
	}
	if (setns(fd, CLONE_NEWNET)) {
		ret = -errno;
		fprintf(stderr, "optincctl: -n %s: setns: %s\n", name, strerror(errno));
	}
	close(fd);
	return ret;
}

/* A kmod command that works on one switch names it with -d kmod:SWITCH. */
static int sel_switch(struct sel_cmd *c, const char *what)
{
	if (!optincctl_opts.sw) {
		fprintf(stderr, "optincctl: %s on kmod needs a switch: "
			"-d kmod:SWITCH\n", what);
		return -EINVAL;
	}
	return sel_add(c, (char *)optincctl_opts.sw);
}

static bool sel_is(int argc, char **argv, const char *verb)
{
	return argc && optincctl_matches(argv[0], verb);
}

/* switch show | switch { add | set | del } [ KEY VALUE ]... (kmod) */
static int sel_switch_obj(struct sel_cmd *c, int argc, char **argv)
{
	bool daemon = optincctl_opts.dp == OPTINCCTL_DP_DAEMON;

	if (!argc || sel_is(argc, argv, "show")) {
		if (argc > 1)
			return optincctl_unknown(argv[1], "switch show");
		if (daemon)
			return sel_add(c, "show");
		return sel_add(c, "show") ?:
		       (optincctl_opts.sw ? sel_add(c, (char *)optincctl_opts.sw) : 0);
	}
	if (daemon) {
		fprintf(stderr, "optincctl: switch %s: optincd is one switch, set "
			"by its options; only \"switch show\"\n", argv[0]);
		return -EOPNOTSUPP;
	}
	return sel_add(c, "switch") ?: sel_add(c, argv[0]) ?:
	       sel_switch(c, "switch add/set/del") ?:
	       sel_add_all(c, argc - 1, argv + 1);
}

/* port show | port { add | del } { DEV | ifindex N } (kmod) */
static int sel_port(struct sel_cmd *c, int argc, char **argv)
{
	bool daemon = optincctl_opts.dp == OPTINCCTL_DP_DAEMON;

	if (!argc || sel_is(argc, argv, "show")) {
		if (argc > 1)
			return optincctl_unknown(argv[1], "port show");
		return sel_add(c, "ports") ?: (!daemon && optincctl_opts.sw ?
			sel_add(c, (char *)optincctl_opts.sw) : 0);
	}
	if (daemon) {
		fprintf(stderr, "optincctl: port %s: optincd's ports are its DPDK "
			"ports, fixed at start (--vdev, -a); only \"port show\"\n",
			argv[0]);
		return -EOPNOTSUPP;
	}
	return sel_add(c, "port") ?: sel_add(c, argv[0]) ?:
	       sel_switch(c, "port add/del") ?: sel_add_all(c, argc - 1, argv + 1);
}

/* job show [ ID ] | job add id ID size N ... | job del ID */
static int sel_job(struct sel_cmd *c, int argc, char **argv)
{
	bool daemon = optincctl_opts.dp == OPTINCCTL_DP_DAEMON;

	if (!argc || sel_is(argc, argv, "show")) {
		if (argc > 2)
			return optincctl_unknown(argv[2], "job show");
		if (argc < 2)
			return sel_add(c, "jobs") ?: (!daemon && optincctl_opts.sw ?
				sel_add(c, (char *)optincctl_opts.sw) : 0);
		if (daemon)
			return sel_add(c, "job") ?: sel_add(c, argv[1]);
		return sel_add(c, "job") ?: sel_add(c, "show") ?:
		       sel_switch(c, "job show ID") ?: sel_add(c, "id") ?:
		       sel_add(c, argv[1]);
	}
	if (!sel_is(argc, argv, "add") && !sel_is(argc, argv, "delete"))
		return optincctl_unknown(argv[0], "job");
	if (daemon)
		return sel_add(c, "job") ?: sel_add_all(c, argc, argv);
	if (sel_is(argc, argv, "add"))
		return sel_add(c, "job") ?: sel_add(c, "set") ?:
		       sel_switch(c, "job add") ?: sel_add_all(c, argc - 1, argv + 1);
	if (argc != 2) {
		fprintf(stderr, "optincctl: job del: one job ID\n");
		return -EINVAL;
	}
	return sel_add(c, "job") ?: sel_add(c, "del") ?: sel_switch(c, "job del") ?:
	       sel_add(c, "id") ?: sel_add(c, argv[1]);
}

/* table load ID FILE */
static int sel_table(struct sel_cmd *c, int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "optincctl: table load: a job ID and a FILE\n");
		return -EINVAL;
	}
	if (optincctl_opts.dp == OPTINCCTL_DP_DAEMON)
		return sel_add(c, "table") ?: sel_add_all(c, 2, argv + 1);
	return sel_add(c, "table") ?: sel_add(c, "load") ?:
	       sel_switch(c, "table load") ?: sel_add(c, "id") ?:
	       sel_add_all(c, 2, argv + 1);
}

static int sel_run(struct sel_cmd *c)
{
	c->w[c->n] = NULL;
	if (optincctl_opts.dp == OPTINCCTL_DP_KMOD)
		return optincctl_kmod(c->n, c->w, optincctl_opts.json);
	return optincctl_daemon(c->n, c->w);
}

static const struct {
	const char *name;
	int (*rewrite)(struct sel_cmd *c, int argc, char **argv);
} sel_objects[] = {
	{ "switch", sel_switch_obj },
	{ "port", sel_port },
	{ "job", sel_job },
};

/**
 * optincctl_dp_object() - run "OBJECT VERB ..." on the selected datapath
 * @argc: the words, the object first
 * @argv: them
 *
 * "table" is shared with the file object: "table show FILE" reads a file,
 * "table load ID FILE" goes to the datapath.
 *
 * Return: 0, a negative errno (printed), or 1 when @argv[0] is none of
 * this grammar's objects (nothing printed). Not -ENOENT: that is also what
 * a command returns for a missing job, table file or daemon socket, which
 * the caller must not take for "try the other objects".
 */
int optincctl_dp_object(int argc, char **argv)
{
	struct sel_cmd c = { .n = 0 };
	unsigned int i;
	int ret;

	if (argc > 1 && optincctl_matches(argv[1], "help") &&
	    !optincctl_matches(argv[0], "table")) {
		optincctl_dp_usage(stdout);
		return 0;
	}

	if (optincctl_matches(argv[0], "table")) {
		if (argc < 2 || !optincctl_matches(argv[1], "load"))
			return optincctl_table(argc - 1, argv + 1);
		ret = sel_table(&c, argc - 1, argv + 1);
		return ret ?: sel_run(&c);
	}
	for (i = 0; i < sizeof(sel_objects) / sizeof(sel_objects[0]); i++) {
		if (!optincctl_matches(argv[0], sel_objects[i].name))
			continue;
		ret = sel_objects[i].rewrite(&c, argc - 1, argv + 1);
		return ret ?: sel_run(&c);
	}
	return 1;
}

void optincctl_dp_usage(FILE *f)
{
	fprintf(f,
		"Usage: optincctl [ OPTIONS ] [ -d DATAPATH ] [ -n NETNS ] OBJECT VERB ...\n"
		"where  DATAPATH := { daemon[:PREFIX] | kmod[:SWITCH] }  (default daemon)\n"
		"       optincctl switch show\n"
		"       optincctl switch { add | set | del } [ KEY VALUE ]...   (kmod)\n"
		"       optincctl port show\n"
		"       optincctl port { add | del } { DEV | ifindex N }         (kmod)\n"
		"       optincctl job show [ ID ]\n"
		"       optincctl job add id ID size N [ KEY VALUE ]...\n"
		"       optincctl job del ID\n"
		"       optincctl table load ID FILE\n"
		"       optincctl table show FILE                       (no datapath)\n"
		"PREFIX: optincd's DPDK --file-prefix; SWITCH: an optinc.ko switch;\n"
		"NETNS: a name under /run/netns, or a path. The keys are kmod's\n"
		"(optincctl kmod help).\n");
}
