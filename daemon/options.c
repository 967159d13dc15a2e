// SPDX-License-Identifier: BSD-3-Clause
/* optincd's own options (after EAL's `--`) and its config file. */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <arpa/inet.h>
#include <rte_ether.h>
#include "optincd.h"

struct opts_def {
	const char *name;
	int (*set)(struct optinc_conf *c, const char *name, const char *val);
};

static int opts_addr(struct optinc_conf *c, const char *name, const char *val)
{
	if (inet_pton(AF_INET, val, &c->sw.ip) != 1)
		return optinc_opts_err(name, val, "not an IPv4 address");
	return 0;
}

static int opts_mac(struct optinc_conf *c, const char *name, const char *val)
{
	struct rte_ether_addr mac;

	if (rte_ether_unformat_addr(val, &mac) ||
	    !rte_is_valid_assigned_ether_addr(&mac))
		return optinc_opts_err(name, val, "not a unicast Ethernet address");
	memcpy(c->sw.mac, mac.addr_bytes, sizeof(c->sw.mac));
	c->mac_set = true;
	return 0;
}

static int opts_port(struct optinc_conf *c, const char *name, const char *val)
{
	unsigned long long v;

	if (optinc_opts_num(val, 10, 1, 65535, &v))
		return optinc_opts_err(name, val, "not a UDP port (1..65535)");
	c->udp_port = (uint16_t)v;
	c->sw.port = htons(c->udp_port);
	return 0;
}

static int opts_idle(struct optinc_conf *c, const char *name, const char *val)
{
	unsigned long long v;

	if (optinc_opts_num(val, 10, 0, 1000000, &v))
		return optinc_opts_err(name, val, "not a time in microseconds (0..1000000)");
	c->idle_us = (uint32_t)v;
	return 0;
}

/* --rate-limit PPS[,BURST]: charged frames a second per port; 0: off. */
static int opts_rl(struct optinc_conf *c, const char *name, const char *val)
{
	unsigned long long pps, burst = OPTINC_RL_BURST_DEFAULT;
	const char *comma = strchr(val, ',');
	char num[24];

	snprintf(num, sizeof(num), "%.*s",
		 (int)(comma ? (size_t)(comma - val) : strlen(val)), val);
	if (optinc_opts_num(num, 10, 0, 100000000, &pps))
		return optinc_opts_err(name, val, "not a rate in frames per second (0..100000000)");
	if (comma && optinc_opts_num(comma + 1, 10, 1, OPTINC_RL_BURST_MAX, &burst))
		return optinc_opts_err(name, val, "not a burst in frames (1..65535)");
	c->rl_pps = (uint32_t)pps;
	c->rl_burst = (uint32_t)burst;
	return 0;
}

static int opts_mtu(struct optinc_conf *c, const char *name, const char *val)
{
	unsigned long long v;
	char why[64];

	snprintf(why, sizeof(why), "not an MTU (68..%u)",
		 OPTINC_MAX_FRAME - RTE_ETHER_HDR_LEN - RTE_VLAN_HLEN);
	if (optinc_opts_num(val, 10, 68,
		     OPTINC_MAX_FRAME - RTE_ETHER_HDR_LEN - RTE_VLAN_HLEN, &v))
		return optinc_opts_err(name, val, why);
	c->mtu = (uint16_t)v;
	return 0;
}

/* --table-dir DIR: where a table= given as a bare file name is looked for. */
static int opts_table_dir(struct optinc_conf *c, const char *name,
			  const char *val)
{
	struct stat st;
	char *dir;

	if (!*val || stat(val, &st) || !S_ISDIR(st.st_mode))
		return optinc_opts_err(name, val, "not a directory");
	dir = strdup(val);
	if (!dir)
		return optinc_opts_err(name, val, "out of memory");
	free(c->table_dir);
	c->table_dir = dir;
	return 0;
}

static int opts_job(struct optinc_conf *c, const char *name, const char *val)
{
	struct optinc_job_conf j;
	unsigned int i;
	int ret;

	ret = optinc_opts_job_parse(&j, name, val);
	for (i = 0; !ret && i < c->nb_jobs; i++)
		if (c->jobs[i].job.id == j.job.id)
			ret = optinc_opts_err("job", val, "a job with this id exists");
	if (!ret && c->nb_jobs == OPTINC_MAX_JOBS)
		ret = optinc_opts_err("job", val, "too many jobs");
	if (ret) {
		free(j.table);
		return ret;
	}
	c->jobs[c->nb_jobs++] = j;
	return 0;
}

static int opts_config(struct optinc_conf *c, const char *name,
		       const char *path);

static const struct opts_def opts_defs[] = {
	{ "addr", opts_addr },
	{ "mac", opts_mac },
	{ "port", opts_port },
	{ "job", opts_job },
	{ "config", opts_config },
	{ "idle-us", opts_idle },
	{ "mtu", opts_mtu },
	{ "rate-limit", opts_rl },
	{ "table-dir", opts_table_dir },
};

static int opts_set(struct optinc_conf *c, const char *name, const char *val)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(opts_defs); i++) {
		if (strcmp(name, opts_defs[i].name))
			continue;
		if (!val) {
			OPTINC_LOG(ERR, "%s--%s needs a value", optinc_opts_where,
				   name);
			return -EINVAL;
		}
		return opts_defs[i].set(c, name, val);
	}
	OPTINC_LOG(ERR, "%sunknown option '--%s' (see --help)", optinc_opts_where,
		   name);
	return -EINVAL;
}

static char *opts_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* One config line: "[--]name value" or "[--]name=value". */
static int opts_config_line(struct optinc_conf *c, char *line)
{
	char *name = opts_trim(line), *val = NULL;
	size_t n;

	if (!*name || *name == '#')
		return 0;
	if (!strncmp(name, "--", 2))
		name += 2;
	n = strcspn(name, " \t=");
	if (name[n]) {
		name[n] = '\0';
		val = opts_trim(name + n + 1);
	}
	if (!strcmp(name, "config")) {
		OPTINC_LOG(ERR, "%s--config inside a config file", optinc_opts_where);
		return -EINVAL;
	}
	return opts_set(c, name, val);
}

static int opts_config(struct optinc_conf *c, const char *name,
		       const char *path)
{
	unsigned int lineno = 0;
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		return optinc_opts_err(name, path, strerror(-ret)), ret;
	}
	while (!ret && getline(&line, &cap, f) >= 0) {
		snprintf(optinc_opts_where, sizeof(optinc_opts_where), "%s:%u: ", path,
			 ++lineno);
		ret = opts_config_line(c, line);
	}
	optinc_opts_where[0] = '\0';
	free(line);
	fclose(f);
	return ret;
}

void optinc_opts_defaults(struct optinc_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->udp_port = OPTINC_UDP_PORT;
	c->sw.port = htons(OPTINC_UDP_PORT);
	c->idle_us = OPTINC_DEF_IDLE_US;
	c->mtu = OPTINC_DEF_MTU;
	c->rl_pps = OPTINC_RL_PPS_DEFAULT;
	c->rl_burst = OPTINC_RL_BURST_DEFAULT;
}

/**
 * optinc_table_find() - the file a job's table= names
 * @c:       configuration (--table-dir)
 * @name:    the table as given (table=, /optinc/table, optincctl)
 * @path:    set to the file to read, to be freed
 * @why:     set to the problem when there is none
 * @why_len: size of @why
 *
 * Search order: @name as given (an absolute path, or relative to optincd's
 * working directory), then, for a bare file name (no '/'), the table
 * directory: --table-dir, by default OPTINC_TABLE_DIR, where `make
 * install` puts the shipped tables ($(PREFIX)/share/optinc).
 *
 * Return: 0, -ENOENT (@why names every place looked in) or -ENOMEM.
 */
int optinc_table_find(const struct optinc_conf *c, const char *name,
		      char **path, char *why, size_t why_len)
{
	const char *dir = c->table_dir ? c->table_dir : OPTINC_TABLE_DIR;
	char cwd[256];
	struct stat st;

	/* as given: found, unreadable (its load says why), or a path */
	if (!stat(name, &st) || errno != ENOENT || strchr(name, '/') || !*dir)
		*path = strdup(name);
	else if (asprintf(path, "%s/%s", dir, name) < 0)
		*path = NULL;
	if (!*path) {
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}
	if (!strcmp(*path, name) || !stat(*path, &st) || errno != ENOENT)
		return 0;
	free(*path);
	*path = NULL;
	snprintf(why, why_len, "no such file in optincd's working directory "
		 "(%s) nor in --table-dir %s",
		 getcwd(cwd, sizeof(cwd)) ? cwd : "?", dir);
	return -ENOENT;
}

/**
 * optinc_opts_parse() - read optincd's options
 * @c:    configuration, set to defaults by optinc_opts_defaults()
 * @argc: argument count, argv[0] being the program
 * @argv: the arguments left after EAL's
 *
 * --help sets c->help and stops reading.
 *
 * Return: 0, or -EINVAL (reported).
 */
int optinc_opts_parse(struct optinc_conf *c, int argc, char **argv)
{
	int i, ret;

	for (i = 1; i < argc; i++) {
		char *arg = argv[i], *val = NULL, name[64];
		size_t n;

		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			c->help = true;
			return 0;
		}
		if (strncmp(arg, "--", 2) || !arg[2]) {
			OPTINC_LOG(ERR, "unexpected argument '%s': optincd's "
				   "options are --NAME VALUE (see --help)", arg);
			return -EINVAL;
		}
		n = strcspn(arg + 2, "=");
		snprintf(name, sizeof(name), "%.*s", (int)n, arg + 2);
		if (arg[2 + n])
			val = arg + 3 + n;
		else if (i + 1 < argc)
			val = argv[++i];
		ret = opts_set(c, name, val);
		if (ret)
			return ret;
	}
	if (!c->sw.ip) {
		OPTINC_LOG(ERR, "--addr is required (see --help)");
		return -EINVAL;
	}
	return 0;
}

void optinc_opts_usage(const char *prog)
{
	printf("Usage: %s [EAL options] -- --addr IPV4 [--job SPEC]... [OPTIONS]\n"
	       "\n"
	       "  --addr IPV4      the switch's IPv4 address (required); ARP for it is answered\n"
	       "  --mac MAC        the switch's Ethernet address (default: port 0's)\n"
	       "  --port UDP       OptINC UDP port (default %u)\n"
	       "  --job SPEC       a job, repeatable; SPEC is key=value,... with keys\n"
	       "                   id=1..65535 (required), size=1..%u members (required),\n"
	       "                   bits=8|16 (8), mode=exact|onn (onn when table= is given),\n"
	       "                   table=FILE (truth table, onn mode; a bare file name\n"
	       "                   not in the working directory is looked for in\n"
	       "                   --table-dir), token=U32 (0),\n"
	       "                   window=SLOTS (%u), max-elems=N per slot (%u);\n"
	       "                   cascade: up=IPV4[:UDP],up-job=ID,up-rank=R[,up-token=T]\n"
	       "                   (a first-level job), fanin=N1 (a second-level job)\n"
	       "  --config FILE    read options from FILE, one per line: 'job id=1,size=4'\n"
	       "  --idle-us N      longest sleep when idle, microseconds (%u; 0: busy-poll)\n"
	       "  --mtu N          MTU set on ports that take one (%u)\n"
	       "  --rate-limit PPS[,BURST]\n"
	       "                   per port: JOINs and frames failing the token or\n"
	       "                   membership check, per second (%u; 0: off), bursts\n"
	       "                   of BURST (%u); past it dropped without an answer\n"
	       "  --table-dir DIR  where a table= file name without '/' is looked for\n"
	       "                   when the working directory has none (%s)\n"
	       "  --help           this text\n",
	       prog, OPTINC_UDP_PORT, OPTINC_MAX_MEMBERS, OPTINC_DEF_WINDOW,
	       OPTINC_DEF_MAX_ELEMS, OPTINC_DEF_IDLE_US, OPTINC_DEF_MTU,
	       OPTINC_RL_PPS_DEFAULT, OPTINC_RL_BURST_DEFAULT, OPTINC_TABLE_DIR);
}

void optinc_opts_free(struct optinc_conf *c)
{
	unsigned int i;

	for (i = 0; i < c->nb_jobs; i++)
		free(c->jobs[i].table);
	c->nb_jobs = 0;
	free(c->table_dir);
	c->table_dir = NULL;
}
