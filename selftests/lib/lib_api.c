// SPDX-License-Identifier: GPL-2.0
/*
 * liboptinc's API contract: version, result codes, options and environment
 * (including the variables of mpirun, PMI, Slurm and torchrun), join
 * refusals and timeouts against the loopback test switch (udpswitch.c): TAP.
 */
#include <arpa/inet.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <optinc/optinc.h>
#include "libtest.h"
#include "udpswitch.h"

#define SHORT_MS	300

/* "NAME=value" strings, NULL-terminated; the environment is cleared first. */
static void set_env(const char *const *env)
{
	char buf[128], *eq;

	ranks_clear_env();
	for (; env && *env; env++) {
		snprintf(buf, sizeof(buf), "%s", *env);
		eq = strchr(buf, '=');
		*eq = '\0';
		setenv(buf, eq + 1, 1);
	}
}

/* Create a communicator from @env and @o; expect @want and @text in errmsg. */
static int create_expect(const char *const *env, const struct optinc_opts *o,
			 int want, const char *text)
{
	struct optinc_comm *c = (struct optinc_comm *)1;
	const char *msg;
	int got;

	set_env(env);
	got = optinc_comm_create(o, &c);
	msg = optinc_comm_errmsg(NULL);
	if (!got)
		optinc_comm_destroy(c);
	if (got == want && (got ? !c : c != NULL) && strstr(msg, text))
		return 1;
	tap_diag("got %d (%s) \"%s\", want %d and \"%s\"", got,
		 optinc_strerror(got), msg, want, text);
	return 0;
}

#define ENV(...)	((const char *const[]){ __VA_ARGS__, NULL })

static void test_version_codes(void)
{
	static const int codes[] = {
		OPTINC_OK, OPTINC_ERR_INVALID, OPTINC_ERR_NOMEM,
		OPTINC_ERR_TIMEOUT, OPTINC_ERR_REFUSED, OPTINC_ERR_RANGE,
		OPTINC_ERR_UNSUPPORTED, OPTINC_ERR_PROTO, OPTINC_ERR_SYSTEM,
	};
	const char *unknown = optinc_strerror(12345);
	size_t i, j, n = sizeof(codes) / sizeof(codes[0]);
	int ok = 1;

	tap_ok(optinc_version() == OPTINC_LIB_VERSION_CODE,
	       "optinc_version() is OPTINC_LIB_VERSION_CODE (%u)",
	       optinc_version());
	for (i = 0; i < n; i++) {
		ok = ok && codes[i] <= 0 && strcmp(optinc_strerror(codes[i]),
						   unknown);
		for (j = 0; j < i; j++)
			ok = ok && strcmp(optinc_strerror(codes[i]),
					  optinc_strerror(codes[j]));
	}
	tap_ok(ok, "every result code is a negative errno with its own text");
}

static void test_rank_size(void)
{
	OPTINC_OPTS(o);

	tap_ok(create_expect(NULL, &o, OPTINC_ERR_INVALID, "rank not set") &&
	       create_expect(ENV("OPTINC_RANK=0"), &o, OPTINC_ERR_INVALID,
			     "size not set: set opts.size or OPTINC_SIZE"),
	       "missing rank or size is OPTINC_ERR_INVALID naming the variables");
	tap_ok(create_expect(ENV("OPTINC_RANK=abc", "OPTINC_SIZE=2"), &o,
			     OPTINC_ERR_INVALID, "OPTINC_RANK=abc: not a number") &&
	       create_expect(ENV("OPTINC_RANK=4", "OPTINC_SIZE=4"), &o,
			     OPTINC_ERR_INVALID,
			     "OPTINC_RANK=4: rank out of range for size 4 (OPTINC_SIZE=4)") &&
	       create_expect(ENV("OPTINC_RANK=0", "OPTINC_SIZE=65"), &o,
			     OPTINC_ERR_INVALID, "OPTINC_SIZE=65: must be in [1, 64]"),
	       "bad OPTINC_RANK/OPTINC_SIZE values are named with their value");
	tap_ok(create_expect(ENV("OMPI_COMM_WORLD_RANK=x",
				 "OMPI_COMM_WORLD_SIZE=2"), &o,
			     OPTINC_ERR_INVALID, "OMPI_COMM_WORLD_RANK=x") &&
	       create_expect(ENV("PMI_RANK=0", "PMI_SIZE=0"), &o,
			     OPTINC_ERR_INVALID, "PMI_SIZE=0: must be in") &&
	       create_expect(ENV("SLURM_PROCID=5", "SLURM_NTASKS=2"), &o,
			     OPTINC_ERR_INVALID,
			     "SLURM_PROCID=5: rank out of range for size 2 (SLURM_NTASKS=2)") &&
	       create_expect(ENV("OPTINC_RANK=1", "OMPI_COMM_WORLD_RANK=zz",
				 "SLURM_NTASKS=3"), &o, OPTINC_ERR_INVALID,
			     "switch address not set"),
	       "rank and size come from mpirun, PMI and Slurm variables, OPTINC_* first");
}

static void test_opts_values(void)
{
	const char *const *base = ENV("OPTINC_RANK=0", "OPTINC_SIZE=1",
				      "OPTINC_SWITCH=127.0.0.1:9");
	OPTINC_OPTS(o);
	OPTINC_OPTS(bits4, .bits = 4);
	OPTINC_OPTS(addr, .switch_addr = "switchhost");
	OPTINC_OPTS(rank, .rank = -3);
	OPTINC_OPTS(mtu, .mtu = 1000);

	tap_ok(create_expect(ENV("OPTINC_RANK=0", "OPTINC_SIZE=1",
				 "OPTINC_SWITCH=10.0.0.1:99999"), &o,
			     OPTINC_ERR_INVALID,
			     "OPTINC_SWITCH=10.0.0.1:99999: not an IPv4 address[:port]") &&
	       create_expect(base, &addr, OPTINC_ERR_INVALID,
			     "opts.switch_addr=switchhost: not an IPv4") &&
	       create_expect(base, &rank, OPTINC_ERR_INVALID,
			     "opts.rank=-3: must be >= 0"),
	       "bad addresses and ranks in options and variables are named");
	tap_ok(create_expect(ENV("OPTINC_RANK=0", "OPTINC_SIZE=1",
				 "OPTINC_SWITCH=127.0.0.1", "OPTINC_BITS=12"),
			     &o, OPTINC_ERR_INVALID,
			     "OPTINC_BITS=12: must be 8 or 16") &&
	       create_expect(base, &bits4, OPTINC_ERR_INVALID,
			     "opts.bits=4: must be 8 or 16") &&
	       create_expect(ENV("OPTINC_RANK=0", "OPTINC_SIZE=1",
				 "OPTINC_SWITCH=127.0.0.1", "OPTINC_TIMEOUT_MS=0"),
			     &o, OPTINC_ERR_INVALID, "OPTINC_TIMEOUT_MS=0: must be in") &&
	       create_expect(ENV("OPTINC_RANK=0", "OPTINC_SIZE=1",
				 "OPTINC_SWITCH=127.0.0.1", "OPTINC_WINDOW=-1"),
			     &o, OPTINC_ERR_INVALID, "OPTINC_WINDOW=-1: not a number") &&
	       create_expect(ENV("OPTINC_RANK=0", "OPTINC_SIZE=1",
				 "OPTINC_SWITCH=127.0.0.1", "OPTINC_JOB=70000"),
			     &o, OPTINC_ERR_INVALID, "OPTINC_JOB=70000") &&
	       create_expect(base, &mtu, OPTINC_ERR_INVALID,
			     "block (default 256): a frame of opts.mtu=1000 holds 940 payload bytes"),
	       "bad bits, timeout, window, job, mtu are OPTINC_ERR_INVALID naming the value");
}

static void test_transport_algo_sz(void)
{
	const char *const *base = ENV("OPTINC_RANK=0", "OPTINC_SIZE=1",
				      "OPTINC_SWITCH=127.0.0.1");
	struct {
		struct optinc_opts o;
		char extra[8];
	} big = { .extra = { 1 } };
	OPTINC_OPTS(o);
	OPTINC_OPTS(tcp, .transport = "tcp");
	OPTINC_OPTS(sz0, .sz = 0);

	tap_ok(create_expect(ENV("OPTINC_RANK=0", "OPTINC_SIZE=1",
				 "OPTINC_SWITCH=127.0.0.1",
				 "OPTINC_TRANSPORT=afxdp", "OPTINC_TIMEOUT_MS=300"),
			     &o, OPTINC_ERR_TIMEOUT, "join: no answer from switch") &&
	       create_expect(base, &tcp, OPTINC_ERR_INVALID,
			     "opts.transport=tcp: unknown transport") &&
	       create_expect(ENV("OPTINC_RANK=0", "OPTINC_SIZE=1",
				 "OPTINC_SWITCH=127.0.0.1", "OPTINC_ALGO=tree"),
			     &o, OPTINC_ERR_INVALID, "OPTINC_ALGO=tree: unknown algorithm") &&
	       create_expect(ENV("OPTINC_RANK=0", "OPTINC_SIZE=2",
				 "OPTINC_ALGO=ring"), &o, OPTINC_ERR_INVALID,
			     "ring: peers not set: set opts.peers or OPTINC_PEERS"),
	       "transport and algorithm names are checked; afxdp without XDP program falls back to udp");
	big.o = o;
	big.o.sz = sizeof(big);
	tap_ok(create_expect(base, &sz0, OPTINC_ERR_INVALID, "opts.sz=0") &&
	       create_expect(base, &big.o, OPTINC_ERR_INVALID,
			     "sets options this library") &&
	       optinc_comm_create(&o, NULL) == OPTINC_ERR_INVALID,
	       "opts.sz is checked: unknown options set in a larger struct are refused");
}

/* ---- against the test switch ---- */

static struct udpsw *sw_start(uint16_t size, uint32_t token,
			      uint16_t max_elems, char *addr, size_t len)
{
	struct udpsw_opts so = { .job = 1, .size = size, .token = token,
				 .max_elems = max_elems };
	struct udpsw *sw;

	if (udpsw_start(&so, &sw)) {
		tap_diag("udpswitch did not start");
		return NULL;
	}
	snprintf(addr, len, "127.0.0.1:%u", udpsw_port(sw));
	return sw;
}

/* One-rank jobs joined with rank and size from a launcher's variables. */
static int launcher_env(const char *addr, const char *rank, const char *size)
{
	char a[64], r[64], s[64];
	struct optinc_comm *c;
	int ok;
	OPTINC_OPTS(o, .timeout_ms = 2000);

	snprintf(a, sizeof(a), "OPTINC_SWITCH=%s", addr);
	snprintf(r, sizeof(r), "%s=0", rank);
	snprintf(s, sizeof(s), "%s=1", size);
	set_env(ENV(a, r, s));
	ok = !optinc_comm_create(&o, &c);
	if (!ok) {
		tap_diag("%s, %s: %s", r, s, optinc_comm_errmsg(NULL));
		return 0;
	}
	ok = optinc_comm_rank(c) == 0 && optinc_comm_size(c) == 1;
	optinc_comm_destroy(c);
	return ok;
}

static void test_launchers(void)
{
	struct {
		struct optinc_opts o;
		char extra[8];
	} big = { .extra = { 0 } };
	struct optinc_comm *c = NULL;
	struct udpsw *sw;
	char addr[32];
	int ok = 0;

	sw = sw_start(1, 0, 0, addr, sizeof(addr));
	if (sw) {
		ok = launcher_env(addr, "OMPI_COMM_WORLD_RANK",
				  "OMPI_COMM_WORLD_SIZE") &&
		     launcher_env(addr, "PMI_RANK", "PMI_SIZE") &&
		     launcher_env(addr, "SLURM_PROCID", "SLURM_NTASKS") &&
		     launcher_env(addr, "RANK", "WORLD_SIZE") &&
		     launcher_env(addr, "OPTINC_RANK", "OPTINC_SIZE");
	}
	tap_ok(ok, "a one-rank job joins with rank/size from mpirun, PMI, Slurm, torchrun, OPTINC_*");
	ok = 0;
	if (sw) {
		OPTINC_OPTS(o, .rank = 0, .size = 1, .switch_addr = addr);
		big.o = o;
		big.o.sz = sizeof(big);
		ranks_clear_env();
		ok = !optinc_comm_create(&big.o, &c) && c;
		optinc_comm_destroy(c);
		udpsw_stop(sw);
	}
	tap_ok(ok, "a larger opts.sz whose extra bytes are zero is accepted");
}

static void test_refused(void)
{
	struct udpsw *sw = NULL;
	char addr[32];
	int ok = 0;

	sw = sw_start(2, 0, 0, addr, sizeof(addr));
	if (sw) {
		OPTINC_OPTS(job7, .rank = 0, .size = 2, .switch_addr = addr,
			    .job = 7, .timeout_ms = 2000);
		OPTINC_OPTS(rank3, .rank = 3, .size = 4, .switch_addr = addr,
			    .timeout_ms = 2000);
		OPTINC_OPTS(size3, .rank = 0, .size = 3, .switch_addr = addr,
			    .timeout_ms = 2000);

		ok = create_expect(NULL, &job7, OPTINC_ERR_REFUSED,
				   "refused job 7 rank 0: no such job") &&
		     create_expect(NULL, &rank3, OPTINC_ERR_REFUSED,
				   "rank not below the job's size") &&
		     create_expect(NULL, &size3, OPTINC_ERR_REFUSED,
				   "has 2 members, this rank was started with size 3");
		udpsw_stop(sw);
	}
	tap_ok(ok, "NACKs and a size mismatch give OPTINC_ERR_REFUSED with the reason");
}

static uint16_t closed_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl))
		sa.sin_port = htons(9);
	if (fd >= 0)
		close(fd);
	return ntohs(sa.sin_port);
}

static int timed_expect(const struct optinc_opts *o, const char *text)
{
	double t = now_s();
	int ok = create_expect(NULL, o, OPTINC_ERR_TIMEOUT, text);

	t = now_s() - t;
	tap_diag("failed after %.3f s: %s", t, optinc_comm_errmsg(NULL));
	return ok && t >= SHORT_MS / 1000.0 - 0.01 && t < 3.0;
}

static void test_timeouts(void)
{
	char addr[32], text[96];
	struct udpsw *sw;
	int ok;

	snprintf(addr, sizeof(addr), "127.0.0.1:%u", closed_port());
	snprintf(text, sizeof(text), "no answer from switch %s (job 1) after %u ms",
		 addr, SHORT_MS);
	{
		OPTINC_OPTS(o, .rank = 0, .size = 1, .switch_addr = addr,
			    .timeout_ms = SHORT_MS);
		ok = timed_expect(&o, text) &&
		     strstr(optinc_comm_errmsg(NULL), "port unreachable");
	}
	tap_ok(ok, "no switch: OPTINC_ERR_TIMEOUT after timeout_ms naming the address");
	ok = 0;
	sw = sw_start(2, 5, 0, addr, sizeof(addr));
	if (sw) {
		OPTINC_OPTS(o, .rank = 0, .size = 2, .switch_addr = addr,
			    .timeout_ms = SHORT_MS, .token = 5);
		OPTINC_OPTS(tok, .rank = 0, .size = 2, .switch_addr = addr,
			    .timeout_ms = SHORT_MS, .token = 6);

		snprintf(text, sizeof(text),
			 "only 1 of 2 ranks joined job 1 on switch %s", addr);
		ok = timed_expect(&o, text);
		tap_ok(ok, "a rank that never joins: OPTINC_ERR_TIMEOUT, 1 of 2 joined");
		ok = timed_expect(&tok, "is the token right?");
		udpsw_stop(sw);
	} else {
		tap_ok(0, "a rank that never joins: OPTINC_ERR_TIMEOUT, 1 of 2 joined");
	}
	tap_ok(ok, "a wrong token: the switch stays silent, OPTINC_ERR_TIMEOUT");
}

static void *errmsg_thread(void *arg)
{
	*(int *)arg = optinc_comm_errmsg(NULL)[0] == '\0';
	return NULL;
}

static void test_block_stats_errmsg(void)
{
	struct optinc_comm_stats st;
	struct optinc_comm *c = NULL;
	struct udpsw *sw;
	char addr[32];
	pthread_t t;
	int ok = 0, clean = 0;

	sw = sw_start(1, 0, 200, addr, sizeof(addr));
	if (sw) {
		OPTINC_OPTS(o, .rank = 0, .size = 1, .switch_addr = addr);
		OPTINC_OPTS(b100, .rank = 0, .size = 1, .switch_addr = addr,
			    .block = 100);

		ok = create_expect(NULL, &o, OPTINC_ERR_INVALID,
				   "block 256 is larger than the 200 elements") &&
		     !optinc_comm_create(&b100, &c);
	}
	tap_ok(ok, "a block larger than the switch's frames is OPTINC_ERR_INVALID");
	ok = 0;
	if (c) {
		memset(&st, 0xaa, sizeof(st));
		st.sz = offsetof(struct optinc_comm_stats, frames_sent) + 8;
		ok = !optinc_comm_get_stats(c, &st) && st.calls == 0 &&
		     st.frames_sent >= 1 && st.frames_rcvd == 0xaaaaaaaaaaaaaaaaULL;
		st.sz = 0;
		ok = ok && optinc_comm_get_stats(c, &st) == OPTINC_ERR_INVALID;
		optinc_comm_destroy(c);
	}
	tap_ok(ok, "get_stats fills only the st->sz bytes the caller knows");
	create_expect(ENV("OPTINC_RANK=x"), NULL, OPTINC_ERR_INVALID,
		      "OPTINC_RANK=x");
	if (!pthread_create(&t, NULL, errmsg_thread, &clean))
		pthread_join(t, NULL);
	tap_ok(clean && strstr(optinc_comm_errmsg(NULL), "OPTINC_RANK=x"),
	       "optinc_comm_errmsg(NULL) is the calling thread's last create failure");
	if (sw)
		udpsw_stop(sw);
}

int main(void)
{
	tap_plan(18);
	test_version_codes();
	test_rank_size();
	test_opts_values();
	test_transport_algo_sz();
	test_launchers();
	test_refused();
	test_timeouts();
	test_block_stats_errmsg();
	ranks_clear_env();
	return tap_done();
}
