// SPDX-License-Identifier: GPL-2.0
/* Ring all-reduce (lib/ring.c) with ranks as processes on 127.0.0.1: TAP. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <optinc/optinc.h>
#include "../../lib/ring.h"

#define MAX_RANKS	4
#define NR_SIZES	4
#define NR_KINDS	4
#define MSG_LEN		256
#define CHILD_ALARM_S	60

static const size_t sizes[NR_SIZES] = { 0, 1, 1000, 1048583 };

enum kind { K_FSUM_EXACT, K_FAVG_EXACT, K_FAVG_RANDOM, K_ISUM };

static const char *const kind_names[NR_KINDS] = {
	"float32 sum (exact values, separate buffers)",
	"float32 avg (exact values, in place)",
	"float32 avg (random values, in place)",
	"int32 sum (wrapping, separate buffers)",
};

/* What each rank reports back to the parent through shared memory. */
struct result {
	int ret;		/* from the ring calls, 0 or negative */
	int ok;			/* equal to the reference */
	uint64_t hash;		/* of the result bytes */
	double ms;
	char msg[MSG_LEN];
};

struct shared {
	struct result open[MAX_RANKS];
	struct result res[NR_SIZES][NR_KINDS][MAX_RANKS];
};

static int tap_nr, tap_failed;

static void tap(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void tap(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++tap_nr);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		tap_failed++;
}

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint32_t value_bits(int kind, int rank, size_t i)
{
	return (uint32_t)mix64(((uint64_t)kind << 56) ^
			       ((uint64_t)rank << 48) ^ i);
}

/* Multiples of 1/4 in [-250, 250]: every sum order gives the same float. */
static float value_exact(int kind, int rank, size_t i)
{
	return (float)((int)(value_bits(kind, rank, i) % 2001) - 1000) * 0.25f;
}

static float value_random(int kind, int rank, size_t i)
{
	return (float)((double)value_bits(kind, rank, i) / 4294967296.0 *
		       2.0 - 1.0);
}

static void fill(int kind, int rank, void *buf, size_t n)
{
	uint32_t *u = buf;
	float *f = buf;
	size_t i;

	for (i = 0; i < n; i++) {
		if (kind == K_ISUM)
			u[i] = value_bits(kind, rank, i);
		else if (kind == K_FAVG_RANDOM)
			f[i] = value_random(kind, rank, i);
		else
			f[i] = value_exact(kind, rank, i);
	}
}

static int check_elem(int kind, int size, size_t i, const void *buf)
{
	double sum = 0, mag = 0;
	uint32_t usum = 0;
	float fsum = 0;
	int r;

	for (r = 0; r < size; r++) {
		usum += value_bits(kind, r, i);
		fsum += value_exact(kind, r, i);
		sum += value_random(kind, r, i);
		mag += fabs(value_random(kind, r, i));
	}
	switch (kind) {
	case K_ISUM:
		return ((const uint32_t *)buf)[i] == usum;
	case K_FSUM_EXACT:
		return ((const float *)buf)[i] == fsum;
	case K_FAVG_EXACT:
		return ((const float *)buf)[i] == fsum / (float)size;
	default:
		return fabs(((const float *)buf)[i] - sum / size) <=
		       mag / size * 1e-6 + 1e-30;
	}
}

static uint64_t hash_bytes(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void run_case(struct optinc_ring *ring, int rank, int size, int kind,
		     size_t n, void *in, void *out, struct result *res)
{
	static const int ops[NR_KINDS] = { OPTINC_SUM, OPTINC_AVG,
					   OPTINC_AVG, OPTINC_SUM };
	int dt = kind == K_ISUM ? OPTINC_INT32 : OPTINC_FLOAT32;
	int in_place = kind == K_FAVG_EXACT || kind == K_FAVG_RANDOM;
	void *dst = in_place ? in : out;
	double t0;
	size_t i;

	fill(kind, rank, in, n);
	memset(out, 0xa5, n * 4);
	t0 = now_ms();
	res->ret = optinc_ring_allreduce(ring, in, dst, n, dt, ops[kind],
					 res->msg, MSG_LEN);
	res->ms = now_ms() - t0;
	if (res->ret < 0)
		return;
	res->ok = 1;
	for (i = 0; i < n && res->ok; i++)
		res->ok = check_elem(kind, size, i, dst);
	res->hash = hash_bytes(dst, n * 4);
}

static int child(struct shared *sh, int rank, int size, unsigned int port,
		 const char *peers)
{
	size_t max = sizes[NR_SIZES - 1];
	struct optinc_ring *ring;
	void *in = malloc(max * 4), *out = malloc(max * 4);
	int s, k;

	alarm(CHILD_ALARM_S);
	if (!in || !out)
		return 1;
	sh->open[rank].ret = optinc_ring_open(&ring, rank, size, peers, port,
					      10000, sh->open[rank].msg,
					      MSG_LEN);
	if (sh->open[rank].ret < 0)
		return 1;
	for (s = 0; s < NR_SIZES; s++)
		for (k = 0; k < NR_KINDS; k++)
			run_case(ring, rank, size, k, sizes[s], in, out,
				 &sh->res[s][k][rank]);
	optinc_ring_close(ring);
	free(in);
	free(out);
	return 0;
}

static void spawn(pid_t *pids, int nr, int (*fn)(void *, int), void *arg)
{
	int r;

	for (r = 0; r < nr; r++) {
		pids[r] = fork();
		if (pids[r] == 0)
			_exit(fn(arg, r));
	}
}

static void reap(pid_t *pids, int nr)
{
	int r, st;

	for (r = 0; r < nr; r++)
		if (pids[r] > 0)
			waitpid(pids[r], &st, 0);
}

struct group {
	struct shared *sh;
	int size;
	unsigned int port;
	const char *peers;
};

static int group_child(void *arg, int rank)
{
	struct group *g = arg;

	return child(g->sh, rank, g->size, g->port, g->peers);
}

static void report_case(struct shared *sh, int size, int s, int k)
{
	struct result *res = sh->res[s][k];
	int r, ok = 1, same = 1;

	for (r = 0; r < size; r++) {
		if (res[r].ret < 0 || !res[r].ok) {
			ok = 0;
			printf("# rank %d: ret %d %s\n", r, res[r].ret,
			       res[r].ret < 0 ? res[r].msg : "wrong result");
		}
		if (res[r].hash != res[0].hash)
			same = 0;
	}
	tap(ok, "N=%d count=%zu %s equals the reference", size, sizes[s],
	    kind_names[k]);
	tap(ok && same, "N=%d count=%zu %s bit-identical on all ranks", size,
	    sizes[s], kind_names[k]);
	if (sizes[s] == sizes[NR_SIZES - 1] && ok)
		printf("# N=%d count=%zu %s: %.1f ms on rank 0\n", size,
		       sizes[s], kind_names[k], res[0].ms);
}

static void test_group(int size, unsigned int port)
{
	struct shared *sh;
	pid_t pids[MAX_RANKS];
	struct group g = {
		.size = size, .port = port,
		.peers = "127.0.0.1,127.0.0.1,127.0.0.1,127.0.0.1" +
			 10 * (MAX_RANKS - size),
	};
	int r, s, k, opened = 1;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		tap(0, "N=%d: mmap: %s", size, strerror(errno));
		return;
	}
	memset(sh, 0, sizeof(*sh));
	for (s = 0; s < NR_SIZES; s++)
		for (k = 0; k < NR_KINDS; k++)
			for (r = 0; r < MAX_RANKS; r++)
				sh->res[s][k][r].ret = -ECHILD;
	g.sh = sh;
	spawn(pids, size, group_child, &g);
	reap(pids, size);
	for (r = 0; r < size; r++)
		if (sh->open[r].ret < 0) {
			printf("# rank %d: %s\n", r, sh->open[r].msg);
			opened = 0;
		}
	tap(opened, "N=%d ranks open a ring on 127.0.0.1", size);
	for (s = 0; s < NR_SIZES; s++)
		for (k = 0; k < NR_KINDS; k++)
			report_case(sh, size, s, k);
	munmap(sh, sizeof(*sh));
}

struct gone {
	struct result res[MAX_RANKS];
	unsigned int port;
	int mode;		/* 0: rank 2 never starts, 1: it leaves */
};

static int gone_child(void *arg, int rank)
{
	struct gone *g = arg;
	struct result *res = &g->res[rank];
	struct optinc_ring *ring;
	size_t n = 1 << 20;
	float *buf;
	double t0 = now_ms();

	alarm(CHILD_ALARM_S);
	buf = calloc(n, sizeof(*buf));
	res->ret = optinc_ring_open(&ring, rank, 3, "127.0.0.1,127.0.0.1,127.0.0.1",
				    g->port, 1000, res->msg, MSG_LEN);
	if (res->ret == 0 && (rank == 2 || !buf)) {
		optinc_ring_close(ring);
		return 0;
	}
	if (res->ret == 0) {
		res->ret = optinc_ring_allreduce(ring, buf, buf, n,
						 OPTINC_FLOAT32, OPTINC_SUM,
						 res->msg, MSG_LEN);
		optinc_ring_close(ring);
	}
	res->ms = now_ms() - t0;
	free(buf);
	return 0;
}

static void test_gone(unsigned int port, int mode)
{
	struct gone *g;
	pid_t pids[3];
	int r, ok = 1, nr = mode ? 3 : 2;

	g = mmap(NULL, sizeof(*g), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (g == MAP_FAILED) {
		tap(0, "missing peer: mmap: %s", strerror(errno));
		return;
	}
	memset(g, 0, sizeof(*g));
	g->port = port;
	g->mode = mode;
	spawn(pids, nr, gone_child, g);
	reap(pids, nr);
	for (r = 0; r < 2; r++) {
		printf("# rank %d: ret %d after %.0f ms: %s\n", r,
		       g->res[r].ret, g->res[r].ms, g->res[r].msg);
		if (g->res[r].ret >= 0 || g->res[r].ms > 5000)
			ok = 0;
		if (!mode && (g->res[r].ret != OPTINC_ERR_TIMEOUT ||
			      !strstr(g->res[r].msg, "rank 2")))
			ok = 0;
	}
	if (mode)
		tap(ok, "a rank that leaves after open fails the others' all-reduce instead of hanging");
	else
		tap(ok, "a missing rank 2 gives a timeout naming it on ranks 0 and 1");
	munmap(g, sizeof(*g));
}

static void test_args(unsigned int port)
{
	char err[MSG_LEN] = "";
	struct optinc_ring *ring;
	float x[3] = { 1.5f, -2.0f, 3.25f }, y[3];
	int ret;

	ret = optinc_ring_open(&ring, 0, 2, "127.0.0.1", port, 100, err,
			       sizeof(err));
	tap(ret == OPTINC_ERR_INVALID && *err,
	    "one peer address for two ranks is refused (%s)", err);
	ret = optinc_ring_open(&ring, 0, 1, "127.0.0.1", port, 100, err,
			       sizeof(err));
	tap(ret == 0, "a ring of one rank opens");
	if (ret)
		return;
	ret = optinc_ring_allreduce(ring, x, y, 3, OPTINC_FLOAT32, OPTINC_AVG,
				    err, sizeof(err));
	tap(ret == 0 && !memcmp(x, y, sizeof(x)),
	    "a ring of one rank copies its input");
	ret = optinc_ring_allreduce(ring, x, y, 3, OPTINC_INT32, OPTINC_AVG,
				    err, sizeof(err));
	tap(ret == OPTINC_ERR_UNSUPPORTED, "int32 avg is unsupported (%s)",
	    err);
	optinc_ring_close(ring);
}

int main(void)
{
	unsigned int port = 20000 + (getpid() % 1400) * 32;
	int size;

	printf("TAP version 13\n");
	fflush(stdout);
	test_args(port);
	for (size = 2; size <= MAX_RANKS; size++)
		test_group(size, port + 4 * size);
	test_gone(port + 20, 0);
	test_gone(port + 24, 1);
	printf("1..%d\n", tap_nr);
	return tap_failed ? 1 : 0;
}
