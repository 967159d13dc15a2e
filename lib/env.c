// SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
/* A communicator's settings: options first, then the environment, then defaults. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <optinc/quant.h>

#include "transport.h"
#include "ring.h"
#include "../bpf/optinc_bpf.h"	/* OPTINC_BPF_MAX_QUEUES */

#define ENV_NONE	(~0UL)	/* no default: must be given */

/*
 * The numeric settings: an option (a field of struct optinc_opts) and its
 * variables, or variables alone (opt NULL), with their range and default.
 * Every variable the library reads is in this file, and every one is
 * listed in optinc.h and Documentation/library.md.
 */
struct env_spec {
	const char *opt;	/* field of struct optinc_opts, or NULL */
	const char *const *env;		/* variables, first set wins */
	unsigned long min, max, def;
	int base;
};

/* A resolved number and where it came from, for messages. */
struct env_val {
	unsigned long v;
	int set;
	char from[64];
};

#define ENVS(...)	((const char *const[]){ __VA_ARGS__, NULL })

/*
 * Rank and size: OPTINC_* first, then the launchers' variables. torchrun's
 * RANK and WORLD_SIZE are generic names (DeepSpeed, accelerate and scripts
 * set them too), so they come last, except in a torchrun worker (torchrun
 * sets TORCHELASTIC_RUN_ID): torchrun is then the innermost launcher, and
 * the variables of an srun or mpirun that started it describe torchrun's
 * agent (one per node), not this worker.
 */
#define ENV_LAUNCHERS	5
static const char *const env_rank_vars[2][ENV_LAUNCHERS + 1] = {
	{ "OPTINC_RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID",
	  "RANK", NULL },
	{ "OPTINC_RANK", "RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK",
	  "SLURM_PROCID", NULL },
};
static const char *const env_size_vars[2][ENV_LAUNCHERS + 1] = {
	{ "OPTINC_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS",
	  "WORLD_SIZE", NULL },
	{ "OPTINC_SIZE", "WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
	  "SLURM_NTASKS", NULL },
};
static const struct env_spec env_rank = { "rank", NULL,
	0, 65535, ENV_NONE, 10 };
static const struct env_spec env_size = { "size", NULL,
	1, OPTINC_MAX_MEMBERS, ENV_NONE, 10 };
static const struct env_spec env_ring_size = { "size", NULL,
	1, OPTINC_RING_MAX_RANKS, ENV_NONE, 10 };
static const struct env_spec env_ring_port = { "ring_port",
	ENVS("OPTINC_RING_PORT"), 1, 65535, OPTINC_RING_PORT, 10 };
static const struct env_spec env_job = { "job", ENVS("OPTINC_JOB"),
	1, 65535, 1, 10 };
static const struct env_spec env_token = { "token", ENVS("OPTINC_TOKEN"),
	0, 0xffffffffUL, 0, 0 };
static const struct env_spec env_bits = { "bits", ENVS("OPTINC_BITS"),
	1, 255, 8, 10 };
static const struct env_spec env_timeout = { "timeout_ms",
	ENVS("OPTINC_TIMEOUT_MS"), 1, 86400000, 10000, 10 };
static const struct env_spec env_retx = { "retx_ms", ENVS("OPTINC_RETX_MS"),
	1, 60000, 20, 10 };
static const struct env_spec env_window = { "window", ENVS("OPTINC_WINDOW"),
	1, 65535, 64, 10 };
static const struct env_spec env_mtu = { "mtu", ENVS("OPTINC_MTU"),
	128, 65535, 9000, 10 };
static const struct env_spec env_block = { "block", ENVS("OPTINC_BLOCK"),
	1, 65535, 256, 10 };
static const struct env_spec env_failover_ms = { NULL,
	ENVS("OPTINC_FAILOVER_MS"), 0, 3600000, OPTINC_FAILOVER_MS, 10 };
static const struct env_spec env_failback_calls = { NULL,
	ENVS("OPTINC_FAILBACK_CALLS"), 0, 1000000000, OPTINC_FAILBACK_CALLS,
	10 };
static const struct env_spec env_xdp_queue = { NULL, ENVS("OPTINC_XDP_QUEUE"),
	0, OPTINC_BPF_MAX_QUEUES - 1, 0, 10 };

static int env_parse(const char *s, int base, unsigned long *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoul(s, &end, base);
	return (errno || *end) ? -1 : 0;
}

static int env_range(struct optinc_comm *c, const struct env_spec *sp,
		     const struct env_val *ev)
{
	if (ev->v >= sp->min && ev->v <= sp->max)
		return 0;
	return optinc_seterr(c, OPTINC_ERR_INVALID, "%s: must be in [%lu, %lu]",
			     ev->from, sp->min, sp->max);
}

/* Resolve one number: @optval when @opt_set, else the environment, else default. */
static int env_get(struct optinc_comm *c, const struct env_spec *sp,
		   int opt_set, unsigned long optval, struct env_val *ev)
{
	const char *const *n;
	const char *s;

	ev->set = 1;
	if (opt_set) {
		ev->v = optval;
		snprintf(ev->from, sizeof(ev->from), "opts.%s=%lu", sp->opt,
			 optval);
		return env_range(c, sp, ev);
	}
	for (n = sp->env; *n; n++) {
		s = getenv(*n);
		if (!s)
			continue;
		snprintf(ev->from, sizeof(ev->from), "%s=%.32s", *n, s);
		if (env_parse(s, sp->base, &ev->v))
			return optinc_seterr(c, OPTINC_ERR_INVALID,
					     "%s: not a number", ev->from);
		return env_range(c, sp, ev);
	}
	ev->set = sp->def != ENV_NONE;
	ev->v = sp->def;
	snprintf(ev->from, sizeof(ev->from), "%s (default %lu)",
		 sp->opt ? sp->opt : sp->env[0], sp->def);
	return 0;
}

/* A variable alone (no option): @out from the environment or the default. */
static int env_var(struct optinc_comm *c, const struct env_spec *sp,
		   unsigned int *out)
{
	struct env_val ev;
	int err;

	err = env_get(c, sp, 0, 0, &ev);
	if (err)
		return err;
	*out = ev.v;
	optinc_log(OPTINC_LOG_DEBUG, "setting %s", ev.from);
	return 0;
}

static int env_uint(struct optinc_comm *c, const struct env_spec *sp,
		    unsigned int optval, unsigned int *out, char *from,
		    size_t from_len)
{
	struct env_val ev;
	int err;

	err = env_get(c, sp, optval != 0, optval, &ev);
	if (err)
		return err;
	*out = ev.v;
	optinc_log(OPTINC_LOG_DEBUG, "setting %s", ev.from);
	if (from)
		snprintf(from, from_len, "%s", ev.from);
	return 0;
}

/* rank and size: -1 in the options means "from the environment". */
static int env_member(struct optinc_comm *c, const struct env_spec *sp,
		      int optval, struct env_val *ev)
{
	const char *const *v = sp->env;

	if (optval < -1)
		return optinc_seterr(c, OPTINC_ERR_INVALID,
				     "opts.%s=%d: must be >= 0, or -1 to read the environment",
				     sp->opt, optval);
	if (env_get(c, sp, optval >= 0, optval, ev))
		return OPTINC_ERR_INVALID;
	if (!ev->set)
		return optinc_seterr(c, OPTINC_ERR_INVALID,
				     "%s not set: set opts.%s or %s (or %s, %s, %s, %s)",
				     sp->opt, sp->opt, v[0], v[1], v[2], v[3],
				     v[4]);
	return 0;
}

static int env_rank_size(struct optinc_comm *c, const struct optinc_opts *o)
{
	int torchrun = getenv("TORCHELASTIC_RUN_ID") != NULL;
	struct env_spec rsp = env_rank, ssp = c->cfg.algo == OPTINC_ALGO_RING ?
					    env_ring_size : env_size;
	struct env_val rank, size;

	rsp.env = env_rank_vars[torchrun];
	ssp.env = env_size_vars[torchrun];
	if (env_member(c, &rsp, o->rank, &rank) ||
	    env_member(c, &ssp, o->size, &size))
		return OPTINC_ERR_INVALID;
	if (rank.v >= size.v)
		return optinc_seterr(c, OPTINC_ERR_INVALID,
				     "%s: rank out of range for size %lu (%s)",
				     rank.from, size.v, size.from);
	c->cfg.rank = rank.v;
	c->cfg.size = size.v;
	optinc_log(OPTINC_LOG_DEBUG, "setting %s, %s", rank.from, size.from);
	return 0;
}

/* "a.b.c.d[:port]" into @sa; port @def_port when not given. */
static int env_addr(struct optinc_comm *c, const char *from, const char *s,
		    unsigned int def_port, struct sockaddr_in *sa)
{
	char host[INET_ADDRSTRLEN];
	const char *colon = strchr(s, ':');
	size_t hl = colon ? (size_t)(colon - s) : strlen(s);
	unsigned long port = def_port;

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	if (hl >= sizeof(host))
		goto bad;
	memcpy(host, s, hl);
	host[hl] = '\0';
	if (inet_pton(AF_INET, host, &sa->sin_addr) != 1)
		goto bad;
	if (colon && (env_parse(colon + 1, 10, &port) || !port ||
		      port > 65535))
		goto bad;
	sa->sin_port = htons(port);
	return 0;
bad:
	return optinc_seterr(c, OPTINC_ERR_INVALID,
			     "%s=%.40s: not an IPv4 address[:port]", from, s);
}

static int env_switch(struct optinc_comm *c, const struct optinc_opts *o)
{
	const char *s = o->switch_addr, *from = "opts.switch_addr";
	int err;

	if (!s) {
		s = getenv("OPTINC_SWITCH");
		from = "OPTINC_SWITCH";
	}
	if (!s)
		return optinc_seterr(c, OPTINC_ERR_INVALID,
				     "switch address not set: set opts.switch_addr or OPTINC_SWITCH=ip[:port]");
	err = env_addr(c, from, s, OPTINC_UDP_PORT, &c->cfg.sw);
	if (err)
		return err;
	snprintf(c->cfg.sw_str, sizeof(c->cfg.sw_str), "%s:%u",
		 inet_ntoa(c->cfg.sw.sin_addr), ntohs(c->cfg.sw.sin_port));
	optinc_log(OPTINC_LOG_DEBUG, "setting %s=%s", from, c->cfg.sw_str);
	return 0;
}

static int env_bind(struct optinc_comm *c, const struct optinc_opts *o)
{
	const char *s = o->bind_addr, *from = "opts.bind_addr";

	if (!s) {
		s = getenv("OPTINC_BIND");
		from = "OPTINC_BIND";
	}
	if (s)
		return env_addr(c, from, s, 0, &c->cfg.bind);
	c->cfg.bind.sin_family = AF_INET;
	c->cfg.bind.sin_addr.s_addr = htonl(INADDR_ANY);
	return 0;
}

static int env_algo(struct optinc_comm *c, const struct optinc_opts *o)
{
	const char *s = getenv("OPTINC_ALGO");
	char from[64];
	int algo = o->algo;

	snprintf(from, sizeof(from), "opts.algo=%d", algo);
	if (algo == -1 && s) {
		snprintf(from, sizeof(from), "OPTINC_ALGO=%.32s", s);
		algo = !strcmp(s, "optinc") ? OPTINC_ALGO_OPTINC :
		       !strcmp(s, "ring") ? OPTINC_ALGO_RING : -2;
	}
	if (algo == -1)
		algo = OPTINC_ALGO_OPTINC;
	if (algo != OPTINC_ALGO_OPTINC && algo != OPTINC_ALGO_RING)
		return optinc_seterr(c, OPTINC_ERR_INVALID,
				     "%s: unknown algorithm (optinc, ring)", from);
	c->cfg.algo = algo;
	return 0;
}

/*
 * OPTINC_QUANT_ISA, the codec's instruction-set path (quant.h): checked
 * here, where a bad name can be an error that names it; the codec itself
 * would only fall back to the best path.
 */
static int env_quant_isa(struct optinc_comm *c)
{
	const char *v = getenv("OPTINC_QUANT_ISA");
	int err;

	if (!v || !*v)
		return 0;
	err = optinc_quant_use(v);
	if (err == -EOPNOTSUPP)
		return optinc_seterr(c, OPTINC_ERR_INVALID,
				     "OPTINC_QUANT_ISA=%s: this CPU cannot run that codec path",
				     v);
	if (err)
		return optinc_seterr(c, OPTINC_ERR_INVALID,
				     "OPTINC_QUANT_ISA=%s: must be avx2, sse4.1, portable or scalar",
				     v);
	return 0;
}

/* What a NaN or Inf does: opts.nonfinite, else OPTINC_NONFINITE, else NaN. */
static int env_nonfinite(struct optinc_comm *c, const struct optinc_opts *o)
{
	const char *s = getenv("OPTINC_NONFINITE");
	int nf = o->nonfinite;

	if (nf != -1 && nf != OPTINC_NONFINITE_NAN &&
	    nf != OPTINC_NONFINITE_ERROR)
		return optinc_seterr(c, OPTINC_ERR_INVALID,
				     "opts.nonfinite=%d: must be OPTINC_NONFINITE_NAN (0), OPTINC_NONFINITE_ERROR (1), or -1 to read the environment",
				     nf);
	if (nf == -1 && s) {
		nf = !strcasecmp(s, "nan") || !strcmp(s, "0") ?
			OPTINC_NONFINITE_NAN :
		     !strcasecmp(s, "error") || !strcmp(s, "1") ?
			OPTINC_NONFINITE_ERROR : -2;
		if (nf == -2)
			return optinc_seterr(c, OPTINC_ERR_INVALID,
					     "OPTINC_NONFINITE=%.32s: must be nan or error (or 0, 1)",
					     s);
	}
	c->cfg.nonfinite = nf == -1 ? OPTINC_NONFINITE_NAN : nf;
	return 0;
}

/*
 * opts.peers or OPTINC_PEERS (one IPv4 address per rank, rank 0 first),
 * checked here by the ring's parser, where the message can name where it
 * came from. Return: 0 (also when not set), else an error.
 */
static int env_peers(struct optinc_comm *c, const struct optinc_opts *o)
{
	const char *s = o->peers, *from = "opts.peers";
	int err;

	if (!s && (s = getenv("OPTINC_PEERS")))
		from = "OPTINC_PEERS";
	c->cfg.peers = s;
	if (!s)
		return 0;
	err = optinc_ring_peers(s, from, c->cfg.size, NULL, c->errmsg,
				sizeof(c->errmsg));
	if (!err)
		optinc_log(OPTINC_LOG_DEBUG, "setting %s=%s", from, s);
	return err;
}

/* The ring's TCP ports: rank r listens on ring_port + r, all below 65536. */
static int env_ring_port_of(struct optinc_comm *c, const struct optinc_opts *o)
{
	char from[64];
	int err;

	err = env_uint(c, &env_ring_port, o->ring_port, &c->cfg.ring_port,
		       from, sizeof(from));
	if (err || c->cfg.ring_port + c->cfg.size - 1 <= 65535)
		return err;
	return optinc_seterr(c, OPTINC_ERR_INVALID,
			     "%s: ranks 0..%d would listen on TCP ports up to %u (above 65535)",
			     from, c->cfg.size - 1,
			     c->cfg.ring_port + c->cfg.size - 1);
}

/* The ring baseline needs the ranks' addresses, not a switch. */
static int env_ring(struct optinc_comm *c, const struct optinc_opts *o)
{
	int err = env_peers(c, o);

	if (!err && !c->cfg.peers)
		return optinc_seterr(c, OPTINC_ERR_INVALID,
				     "ring: peers not set: set opts.peers or OPTINC_PEERS=ip0,ip1,... (one per rank)");
	return err ?: env_ring_port_of(c, o);
}

/*
 * Failover to the ring when the switch is gone (comm.c, allreduce.c):
 * possible when the peers are known; OPTINC_FAILOVER_MS=0 turns it off.
 * Peers that could not make a ring turn it off too, saying why: calls
 * through the switch do not need them (a testbed's OPTINC_PEERS may list
 * more servers than a job has ranks).
 */
static int env_failover(struct optinc_comm *c, const struct optinc_opts *o)
{
	int err;

	err = env_var(c, &env_failover_ms, &c->cfg.failover_ms) ?:
	      env_var(c, &env_failback_calls, &c->cfg.failback_calls);
	if (err || !c->cfg.failover_ms)
		return err;
	if (env_peers(c, o)) {
		optinc_log(OPTINC_LOG_WARN, "rank %d: %s; failover to the ring is off",
			   c->cfg.rank, c->errmsg);
		c->errmsg[0] = '\0';
		c->cfg.peers = NULL;
		return 0;
	}
	return c->cfg.peers ? env_ring_port_of(c, o) : 0;
}

/* afxdp only: its plugin's path (transport.c) and its receive queue. */
static int env_afxdp(struct optinc_comm *c)
{
	const char *s = getenv("OPTINC_AFXDP_PLUGIN");

	if (s && !strchr(s, '/'))
		return optinc_seterr(c, OPTINC_ERR_INVALID,
				     "OPTINC_AFXDP_PLUGIN=%.64s: must be a path (with a '/') to liboptinc-afxdp.so",
				     s);
	c->cfg.afxdp_plugin = s;
	return env_var(c, &env_xdp_queue, &c->cfg.xdp_queue);
}

static int env_transport(struct optinc_comm *c, const struct optinc_opts *o)
{
	const char *s = o->transport, *from = "opts.transport";
	int err;

	if (!s && (s = getenv("OPTINC_TRANSPORT")))
		from = "OPTINC_TRANSPORT";
	if (!s) {
		s = optinc_udp_ops.name;
		from = "transport (default)";
	}
	if (!strcmp(s, "afxdp")) {
		err = env_afxdp(c);
		if (err)
			return err;
	}
	err = optinc_xport_get(c, s, from, &c->cfg.xops);
	c->cfg.afxdp_plugin = NULL;	/* getenv's string: create only */
	if (!err)
		optinc_log(OPTINC_LOG_DEBUG, "setting %s=%s", from, s);
	return err;
}

/*
 * OPTINC_LOG: the level of the library's messages on stderr (log.c), for
 * the whole process, set by each optinc_comm_create(); unset or empty:
 * warn (what the library printed before it had levels).
 */
static int env_log(struct optinc_comm *c)
{
	const char *s = getenv("OPTINC_LOG");
	int level = OPTINC_LOG_WARN;

	if (s && *s) {
		level = optinc_log_parse(s);
		if (level < 0)
			return optinc_seterr(c, OPTINC_ERR_INVALID,
					     "OPTINC_LOG=%.32s: must be error, warn, info, debug or none",
					     s);
	}
	optinc_log_set(level);
	return 0;
}

/* Copy the caller's options, which may come from an older or newer header. */
static int env_copy_opts(struct optinc_comm *c, const struct optinc_opts *o,
			 struct optinc_opts *dst)
{
	OPTINC_OPTS(def);
	const unsigned char *p = (const unsigned char *)o;
	size_t i;

	*dst = def;
	if (!o)
		return 0;
	if (o->sz < sizeof(o->sz))
		return optinc_seterr(c, OPTINC_ERR_INVALID,
				     "opts.sz=%zu: set it to sizeof(struct optinc_opts) (OPTINC_OPTS() does)",
				     o->sz);
	for (i = sizeof(*o); i < o->sz; i++)
		if (p[i])
			return optinc_seterr(c, OPTINC_ERR_INVALID,
					     "opts.sz=%zu: sets options this library (%u) does not know",
					     o->sz, optinc_version());
	memcpy(dst, o, OPTINC_MIN(o->sz, sizeof(*dst)));
	return 0;
}

/* The largest frame must hold one block of 32-bit results and its scale. */
static int env_check_fit(struct optinc_comm *c, const char *mtu_from,
			 const char *block_from)
{
	struct optinc_cfg *cfg = &c->cfg;
	unsigned int room = cfg->mtu - OPTINC_IP_UDP_LEN - OPTINC_HDR_LEN;

	if (OPTINC_SCALES_LEN(1) + 4 * cfg->block <= room)
		return 0;
	return optinc_seterr(c, OPTINC_ERR_INVALID,
			     "%s: a frame of %s holds %u payload bytes, too few for one block (4 bytes per value + 4)",
			     block_from, mtu_from, room);
}

static int env_numbers(struct optinc_comm *c, const struct optinc_opts *o)
{
	struct optinc_cfg *cfg = &c->cfg;
	char bits_from[64], mtu_from[64], block_from[64];
	unsigned int job, token;
	int err;

	err = env_uint(c, &env_job, o->job, &job, NULL, 0) ?:
	      env_uint(c, &env_token, o->token, &token, NULL, 0) ?:
	      env_uint(c, &env_bits, o->bits, &cfg->bits, bits_from,
		       sizeof(bits_from)) ?:
	      env_uint(c, &env_timeout, o->timeout_ms, &cfg->timeout_ms,
		       NULL, 0) ?:
	      env_uint(c, &env_retx, o->retx_ms, &cfg->retx_ms, NULL, 0) ?:
	      env_uint(c, &env_window, o->window, &cfg->window, NULL, 0) ?:
	      env_uint(c, &env_mtu, o->mtu, &cfg->mtu, mtu_from,
		       sizeof(mtu_from)) ?:
	      env_uint(c, &env_block, o->block, &cfg->block, block_from,
		       sizeof(block_from));
	if (err)
		return err;
	cfg->job = job;
	cfg->token = token;
	if (cfg->bits != 8 && cfg->bits != 16)
		return optinc_seterr(c, OPTINC_ERR_INVALID,
				     "%s: must be 8 or 16", bits_from);
	return env_check_fit(c, mtu_from, block_from);
}

/**
 * optinc_cfg_resolve() - fill c->cfg from @o, the environment and defaults
 * Return: 0 or a result code with c->errmsg naming the option or variable.
 */
int optinc_cfg_resolve(struct optinc_comm *c, const struct optinc_opts *o)
{
	struct optinc_opts opts;
	int err;

	err = env_log(c) ?:
	      env_copy_opts(c, o, &opts) ?:
	      env_algo(c, &opts) ?:
	      env_rank_size(c, &opts) ?:
	      env_numbers(c, &opts) ?:
	      env_nonfinite(c, &opts) ?:
	      env_quant_isa(c);
	if (err)
		return err;
	if (c->cfg.algo == OPTINC_ALGO_RING)
		return env_ring(c, &opts);
	return env_switch(c, &opts) ?:
	       env_bind(c, &opts) ?:
	       env_failover(c, &opts) ?:
	       env_transport(c, &opts);
}
