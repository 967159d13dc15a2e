// SPDX-License-Identifier: GPL-2.0
/*
 * White-box tests of lib/env.c, linked with liboptinc.a: which variable
 * gives rank and size (OPTINC_*, mpirun, PMI, Slurm, torchrun, and in
 * which order), and how opts.nonfinite and OPTINC_NONFINITE resolve into
 * cfg.nonfinite, for callers of this header and of an older, smaller one;
 * the variables without an option (failover, afxdp queue and plugin),
 * the peers and ring ports, and OPTINC_LOG: the level of the library's
 * messages and its errors. Nothing is sent: optinc_cfg_resolve() only
 * reads (with afxdp it loads the build tree's plugin). TAP.
 */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/transport.h"
#include <optinc/quant.h>
#include "libtest.h"

#define ENV(...)	((const char *const[]){ __VA_ARGS__, NULL })

static struct optinc_comm env_c;

/* Clear the environment, set "NAME=value"s and a switch, resolve @o. */
static int resolve(const char *const *env, const struct optinc_opts *o)
{
	char buf[128], *eq;

	ranks_clear_env();
	setenv("OPTINC_SWITCH", "127.0.0.1", 1);
	for (; env && *env; env++) {
		snprintf(buf, sizeof(buf), "%s", *env);
		eq = strchr(buf, '=');
		*eq = '\0';
		setenv(buf, eq + 1, 1);
	}
	memset(&env_c, 0, sizeof(env_c));
	return optinc_cfg_resolve(&env_c, o);
}

/* Resolves with rank @rank and size @size. */
static int members_are(const char *const *env, int rank, int size)
{
	OPTINC_OPTS(o);
	int err = resolve(env, &o);

	if (!err && env_c.cfg.rank == rank && env_c.cfg.size == size)
		return 1;
	tap_diag("%s: got %d (%s) rank %d size %d, want rank %d size %d",
		 env[0], err, env_c.errmsg, env_c.cfg.rank, env_c.cfg.size,
		 rank, size);
	return 0;
}

/* Fails with OPTINC_ERR_INVALID and @text in the message. */
static int fails_with(const char *const *env, const struct optinc_opts *o,
		      const char *text)
{
	int err = resolve(env, o);

	if (err == OPTINC_ERR_INVALID && strstr(env_c.errmsg, text))
		return 1;
	tap_diag("got %d \"%s\", want OPTINC_ERR_INVALID and \"%s\"", err,
		 env_c.errmsg, text);
	return 0;
}

static void test_launchers(void)
{
	OPTINC_OPTS(o);

	tap_ok(members_are(ENV("OPTINC_RANK=1", "OPTINC_SIZE=3"), 1, 3) &&
	       members_are(ENV("OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=3"), 1, 3) &&
	       members_are(ENV("PMI_RANK=1", "PMI_SIZE=3"), 1, 3) &&
	       members_are(ENV("SLURM_PROCID=1", "SLURM_NTASKS=3"), 1, 3) &&
	       members_are(ENV("RANK=1", "WORLD_SIZE=3"), 1, 3) &&
	       members_are(ENV("RANK=1", "WORLD_SIZE=3", "LOCAL_RANK=0",
			       "TORCHELASTIC_RUN_ID=none"), 1, 3),
	       "rank and size from OPTINC_*, mpirun, PMI, Slurm and torchrun's RANK/WORLD_SIZE");
	tap_ok(members_are(ENV("OPTINC_RANK=0", "OMPI_COMM_WORLD_RANK=1",
			       "PMI_RANK=2", "SLURM_PROCID=3", "RANK=4",
			       "OPTINC_SIZE=10", "OMPI_COMM_WORLD_SIZE=11",
			       "PMI_SIZE=12", "SLURM_NTASKS=13",
			       "WORLD_SIZE=14"), 0, 10) &&
	       members_are(ENV("OMPI_COMM_WORLD_RANK=1", "PMI_RANK=2",
			       "SLURM_PROCID=3", "RANK=4",
			       "OMPI_COMM_WORLD_SIZE=11", "PMI_SIZE=12",
			       "SLURM_NTASKS=13", "WORLD_SIZE=14"), 1, 11) &&
	       members_are(ENV("PMI_RANK=2", "SLURM_PROCID=3", "RANK=4",
			       "PMI_SIZE=12", "SLURM_NTASKS=13",
			       "WORLD_SIZE=14"), 2, 12) &&
	       members_are(ENV("SLURM_PROCID=3", "RANK=4", "SLURM_NTASKS=13",
			       "WORLD_SIZE=14"), 3, 13) &&
	       members_are(ENV("OPTINC_RANK=2", "SLURM_PROCID=0",
			       "SLURM_NTASKS=4"), 2, 4),
	       "first set wins: OPTINC_*, mpirun, PMI, Slurm, then RANK/WORLD_SIZE last");
	/* srun -N 2 torchrun --nproc-per-node 4: Slurm sees 2 tasks, one per node */
	tap_ok(members_are(ENV("SLURM_PROCID=1", "SLURM_NTASKS=2", "RANK=6",
			       "WORLD_SIZE=8", "LOCAL_RANK=2",
			       "TORCHELASTIC_RUN_ID=job42"), 6, 8) &&
	       members_are(ENV("SLURM_PROCID=1", "SLURM_NTASKS=2", "RANK=6",
			       "WORLD_SIZE=8"), 1, 2) &&
	       members_are(ENV("OPTINC_RANK=0", "OPTINC_SIZE=1", "RANK=6",
			       "WORLD_SIZE=8", "TORCHELASTIC_RUN_ID=job42"), 0, 1),
	       "a torchrun worker (TORCHELASTIC_RUN_ID) takes RANK/WORLD_SIZE before srun's or mpirun's, never before OPTINC_*");
	tap_ok(fails_with(NULL, &o,
			  "rank not set: set opts.rank or OPTINC_RANK (or OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID, RANK)") &&
	       fails_with(ENV("RANK=0"), &o,
			  "size not set: set opts.size or OPTINC_SIZE (or OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_NTASKS, WORLD_SIZE)") &&
	       fails_with(ENV("RANK=8", "WORLD_SIZE=8"), &o,
			  "RANK=8: rank out of range for size 8 (WORLD_SIZE=8)") &&
	       fails_with(ENV("RANK=x", "WORLD_SIZE=8"), &o,
			  "RANK=x: not a number"),
	       "missing or bad rank/size name every variable read, and the one used");
}

/* cfg.nonfinite is @want after resolving @o in @env. */
static int nonfinite_is(const char *const *env, const struct optinc_opts *o,
			int want)
{
	int err = resolve(env, o);

	if (!err && env_c.cfg.nonfinite == want)
		return 1;
	tap_diag("%s: got %d (%s) nonfinite %d, want %d",
		 env ? env[0] : "(no variable)", err, env_c.errmsg,
		 env_c.cfg.nonfinite, want);
	return 0;
}

static void test_nonfinite(void)
{
	OPTINC_OPTS(o, .rank = 0, .size = 1);
	OPTINC_OPTS(nan, .rank = 0, .size = 1,
		    .nonfinite = OPTINC_NONFINITE_NAN);
	OPTINC_OPTS(error, .rank = 0, .size = 1,
		    .nonfinite = OPTINC_NONFINITE_ERROR);
	OPTINC_OPTS(bad, .rank = 0, .size = 1, .nonfinite = 2);

	tap_ok(o.nonfinite == -1 && nonfinite_is(NULL, &o, OPTINC_NONFINITE_NAN),
	       "OPTINC_OPTS() leaves nonfinite at -1; unset, it is OPTINC_NONFINITE_NAN");
	tap_ok(nonfinite_is(ENV("OPTINC_NONFINITE=nan"), &o, OPTINC_NONFINITE_NAN) &&
	       nonfinite_is(ENV("OPTINC_NONFINITE=NaN"), &o, OPTINC_NONFINITE_NAN) &&
	       nonfinite_is(ENV("OPTINC_NONFINITE=0"), &o, OPTINC_NONFINITE_NAN) &&
	       nonfinite_is(ENV("OPTINC_NONFINITE=error"), &o, OPTINC_NONFINITE_ERROR) &&
	       nonfinite_is(ENV("OPTINC_NONFINITE=ERROR"), &o, OPTINC_NONFINITE_ERROR) &&
	       nonfinite_is(ENV("OPTINC_NONFINITE=1"), &o, OPTINC_NONFINITE_ERROR),
	       "OPTINC_NONFINITE takes nan or error (any case), or 0 or 1");
	tap_ok(nonfinite_is(ENV("OPTINC_NONFINITE=error"), &nan, OPTINC_NONFINITE_NAN) &&
	       nonfinite_is(ENV("OPTINC_NONFINITE=nan"), &error, OPTINC_NONFINITE_ERROR),
	       "opts.nonfinite 0 or 1 wins over OPTINC_NONFINITE");
	tap_ok(fails_with(ENV("OPTINC_NONFINITE=raise"), &o,
			  "OPTINC_NONFINITE=raise: must be nan or error (or 0, 1)") &&
	       fails_with(ENV("OPTINC_NONFINITE=2"), &o,
			  "OPTINC_NONFINITE=2: must be nan or error") &&
	       fails_with(ENV("OPTINC_NONFINITE="), &o,
			  "OPTINC_NONFINITE=: must be nan or error") &&
	       fails_with(NULL, &bad,
			  "opts.nonfinite=2: must be OPTINC_NONFINITE_NAN (0), OPTINC_NONFINITE_ERROR (1), or -1"),
	       "a bad OPTINC_NONFINITE or opts.nonfinite is OPTINC_ERR_INVALID naming it and the values allowed");
}

/*
 * A caller of an older header: its sz ends before nonfinite, and what
 * lies after its struct is anything (here 0x5a bytes): read as -1.
 */
static void test_nonfinite_old_sz(void)
{
	union {
		struct optinc_opts o;
		unsigned char b[sizeof(struct optinc_opts)];
	} old;
	OPTINC_OPTS(o, .rank = 0, .size = 1);

	memset(&old, 0x5a, sizeof(old));
	memcpy(&old, &o, offsetof(struct optinc_opts, reserved0));
	old.o.sz = offsetof(struct optinc_opts, nonfinite);
	tap_ok(nonfinite_is(NULL, &old.o, OPTINC_NONFINITE_NAN) &&
	       nonfinite_is(ENV("OPTINC_NONFINITE=error"), &old.o,
			    OPTINC_NONFINITE_ERROR) &&
	       fails_with(ENV("OPTINC_NONFINITE=x"), &old.o,
			  "OPTINC_NONFINITE=x"),
	       "opts.sz without nonfinite (0.2's header: sz %zu): OPTINC_NONFINITE decides, the bytes after sz are not read",
	       old.o.sz);
}

/* OPTINC_QUANT_ISA: a name the codec knows, or an error naming it. */
static void test_quant_isa(void)
{
	OPTINC_OPTS(o, .rank = 0, .size = 1);

	tap_ok(!resolve(ENV("OPTINC_QUANT_ISA=scalar"), &o) &&
	       !strcmp(optinc_quant_isa(), "scalar") &&
	       fails_with(ENV("OPTINC_QUANT_ISA=avx9"), &o,
			  "OPTINC_QUANT_ISA=avx9: must be avx2, sse4.1, portable or scalar"),
	       "OPTINC_QUANT_ISA picks the codec's path; an unknown name is OPTINC_ERR_INVALID naming it");
	unsetenv("OPTINC_QUANT_ISA");
	optinc_quant_use(NULL);
}

/* Resolves, and cfg.@field is @want. */
#define RESOLVES_TO(env, o, field, want)				\
	(!resolve(env, o) && env_c.cfg.field == (want) ? 1 :		\
	 (tap_diag("%s: %s = %ld, want %ld (%s)", (env)[0], #field,	\
		   (long)env_c.cfg.field, (long)(want), env_c.errmsg), 0))

static void test_failover_vars(void)
{
	OPTINC_OPTS(o, .rank = 0, .size = 2);

	tap_ok(RESOLVES_TO(ENV("OPTINC_JOB=1"), &o, failover_ms, 1000) &&
	       RESOLVES_TO(ENV("OPTINC_JOB=1"), &o, failback_calls, 100) &&
	       RESOLVES_TO(ENV("OPTINC_FAILOVER_MS=0"), &o, failover_ms, 0) &&
	       RESOLVES_TO(ENV("OPTINC_FAILOVER_MS=3600000"), &o, failover_ms,
			   3600000) &&
	       RESOLVES_TO(ENV("OPTINC_FAILBACK_CALLS=20"), &o, failback_calls,
			   20),
	       "OPTINC_FAILOVER_MS (default 1000, 0 off) and OPTINC_FAILBACK_CALLS (default 100) from the table");
	tap_ok(fails_with(ENV("OPTINC_FAILOVER_MS=1s"), &o,
			  "OPTINC_FAILOVER_MS=1s: not a number") &&
	       fails_with(ENV("OPTINC_FAILOVER_MS=3600001"), &o,
			  "OPTINC_FAILOVER_MS=3600001: must be in [0, 3600000]") &&
	       fails_with(ENV("OPTINC_FAILBACK_CALLS=-1"), &o,
			  "OPTINC_FAILBACK_CALLS=-1: not a number") &&
	       fails_with(ENV("OPTINC_FAILBACK_CALLS=1000000001"), &o,
			  "OPTINC_FAILBACK_CALLS=1000000001: must be in [0, 1000000000]"),
	       "a bad OPTINC_FAILOVER_MS or OPTINC_FAILBACK_CALLS is OPTINC_ERR_INVALID naming it, before any join");
}

/* The build tree's plugin, seen from this program in selftests/lib/. */
static void env_plugin_path(char *buf, size_t len)
{
	char exe[PATH_MAX - 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = '\0';
	if (strrchr(exe, '/'))
		*strrchr(exe, '/') = '\0';
	snprintf(buf, len, "OPTINC_AFXDP_PLUGIN=%s/../../lib/optinc/liboptinc-afxdp.so",
		 exe);
}

static void test_afxdp_vars(void)
{
	OPTINC_OPTS(o, .rank = 0, .size = 1);
	char plugin[PATH_MAX];

	env_plugin_path(plugin, sizeof(plugin));
	tap_ok(RESOLVES_TO(ENV("OPTINC_TRANSPORT=afxdp", "OPTINC_XDP_QUEUE=63",
			       plugin), &o, xdp_queue, 63) &&
	       !strcmp(env_c.cfg.xops->name, "afxdp") &&
	       RESOLVES_TO(ENV("OPTINC_TRANSPORT=afxdp", plugin), &o,
			   xdp_queue, 0) &&
	       fails_with(ENV("OPTINC_TRANSPORT=afxdp", "OPTINC_XDP_QUEUE=64"), &o,
			  "OPTINC_XDP_QUEUE=64: must be in [0, 63]") &&
	       fails_with(ENV("OPTINC_TRANSPORT=afxdp", "OPTINC_XDP_QUEUE=q1"), &o,
			  "OPTINC_XDP_QUEUE=q1: not a number") &&
	       RESOLVES_TO(ENV("OPTINC_XDP_QUEUE=q1"), &o, xdp_queue, 0),
	       "OPTINC_XDP_QUEUE: 0..63 (default 0) with afxdp, from the table; not read with udp");
	tap_ok(fails_with(ENV("OPTINC_TRANSPORT=afxdp",
			      "OPTINC_AFXDP_PLUGIN=liboptinc-afxdp.so"), &o,
			  "OPTINC_AFXDP_PLUGIN=liboptinc-afxdp.so: must be a path") &&
	       fails_with(ENV("OPTINC_TRANSPORT=xdp"), &o,
			  "OPTINC_TRANSPORT=xdp: unknown transport (udp, afxdp)"),
	       "OPTINC_AFXDP_PLUGIN must be a path; an unknown OPTINC_TRANSPORT is named");
}

static void test_peers(void)
{
	OPTINC_OPTS(ring, .rank = 0, .size = 2, .algo = OPTINC_ALGO_RING);
	OPTINC_OPTS(sw, .rank = 0, .size = 2);
	OPTINC_OPTS(ring_opt, .rank = 0, .size = 2, .algo = OPTINC_ALGO_RING,
		    .peers = "10.0.0.1,10.0.0.2,10.0.0.3");

	tap_ok(fails_with(ENV("OPTINC_PEERS=10.0.0.1"), &ring,
			  "OPTINC_PEERS=10.0.0.1: 1 peer addresses for 2 ranks") &&
	       fails_with(NULL, &ring_opt,
			  "opts.peers=10.0.0.1,10.0.0.2,10.0.0.3: 3 peer addresses for 2 ranks") &&
	       fails_with(ENV("OPTINC_PEERS=10.0.0.1,10.0.0.256"), &ring,
			  "OPTINC_PEERS: address 1, \"10.0.0.256\", is not an IPv4 address") &&
	       fails_with(ENV("OPTINC_PEERS=10.0.0.1,,10.0.0.2"), &ring,
			  "OPTINC_PEERS=10.0.0.1,,10.0.0.2: address 1 is empty") &&
	       RESOLVES_TO(ENV("OPTINC_PEERS=10.0.0.1"), &sw, peers, NULL) &&
	       fails_with(ENV("OPTINC_PEERS=10.0.0.1,10.0.0.2",
			      "OPTINC_RING_PORT=65535"), &ring,
			  "OPTINC_RING_PORT=65535: ranks 0..1 would listen on TCP ports up to 65536") &&
	       RESOLVES_TO(ENV("OPTINC_PEERS=10.0.0.1,10.0.0.2",
			       "OPTINC_RING_PORT=65534"), &sw, ring_port, 65534),
	       "peers and ring ports checked at create, each error naming OPTINC_PEERS, opts.peers or OPTINC_RING_PORT; with the switch, peers that make no ring only turn failover off");
}

/* Resolve with stderr in a file; Return: what the library wrote there. */
static const char *resolve_logged(const char *const *env)
{
	static char out[4096];
	OPTINC_OPTS(o, .rank = 0, .size = 1);
	FILE *f = tmpfile();
	int saved = dup(2);
	size_t n = 0;

	fflush(stderr);
	dup2(fileno(f), 2);
	resolve(env, &o);
	optinc_log(OPTINC_LOG_WARN, "a warning");
	optinc_log(OPTINC_LOG_ERROR, "an error");
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	fclose(f);
	return out;
}

static void test_log(void)
{
	OPTINC_OPTS(o, .rank = 0, .size = 1);
	const char *dbg, *def, *warn, *err, *none;

	unsetenv("OPTINC_LOG");
	def = strdup(resolve_logged(NULL));
	setenv("OPTINC_LOG", "debug", 1);
	dbg = strdup(resolve_logged(NULL));
	setenv("OPTINC_LOG", "INFO", 1);
	warn = strdup(resolve_logged(NULL));
	setenv("OPTINC_LOG", "error", 1);
	err = strdup(resolve_logged(NULL));
	setenv("OPTINC_LOG", "none", 1);
	none = strdup(resolve_logged(NULL));
	tap_ok(strstr(dbg, "optinc: setting bits (default 8)\n") &&
	       strstr(dbg, "optinc: setting opts.rank=0, opts.size=1\n") &&
	       !strstr(def, "setting") && !strstr(warn, "setting") &&
	       !strstr(err, "setting"),
	       "OPTINC_LOG=debug: the settings and where each came from; not at info, warn (default) or error");
	tap_ok(!strcmp(def, "optinc: a warning\noptinc: an error\n") &&
	       !strcmp(warn, "optinc: a warning\noptinc: an error\n") &&
	       !strcmp(err, "optinc: an error\n") && !*none,
	       "levels: warn by default (warnings and errors), error: errors only, none: nothing");
	setenv("OPTINC_LOG", "error", 1);
	resolve(NULL, &o);
	if (!tap_ok(fails_with(ENV("OPTINC_LOG=verbose"), &o,
			       "OPTINC_LOG=verbose: must be error, warn, info, debug or none") &&
		    optinc_log_on(OPTINC_LOG_ERROR) &&
		    !optinc_log_on(OPTINC_LOG_WARN),
		    "a bad OPTINC_LOG is OPTINC_ERR_INVALID naming it, and leaves the level as it was"))
		tap_diag("default: [%s] debug: [%s] info: [%s] error: [%s] none: [%s]",
			 def, dbg, warn, err, none);
	unsetenv("OPTINC_LOG");
	optinc_log_set(OPTINC_LOG_WARN);
}

int main(void)
{
	tap_plan(18);
	test_launchers();
	test_nonfinite();
	test_nonfinite_old_sz();
	test_quant_isa();
	test_failover_vars();
	test_afxdp_vars();
	test_peers();
	test_log();
	ranks_clear_env();
	return tap_done();
}
