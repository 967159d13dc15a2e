// SPDX-License-Identifier: GPL-2.0
/* Ring all-reduce (lib/ring.c) with ranks as processes on 127.0.0.1. */
#include <errno.h>
#include <math.h>
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
#include "kselftest_harness.h"

#define MAX_RANKS	4
#define NR_SIZES	4
#define NR_KINDS	4
#define PEERS4		"127.0.0.1,127.0.0.1,127.0.0.1,127.0.0.1"
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
	struct result res[NR_SIZES][MAX_RANKS];
};

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

/* One rank: open the ring, run every size of @kind, report in @sh. */
static int rank_main(struct shared *sh, int rank, int size, int kind,
		     unsigned int port)
{
	size_t max = sizes[NR_SIZES - 1];
	void *in = malloc(max * 4), *out = malloc(max * 4);
	struct optinc_ring *ring;
	int s;

	alarm(CHILD_ALARM_S);
	if (!in || !out)
		return 1;
	sh->open[rank].ret = optinc_ring_open(&ring, rank, size,
					      PEERS4 + 10 * (MAX_RANKS - size),
					      port, 10000, sh->open[rank].msg,
					      MSG_LEN);
	if (sh->open[rank].ret < 0)
		return 1;
	for (s = 0; s < NR_SIZES; s++)
		run_case(ring, rank, size, kind, sizes[s], in, out,
			 &sh->res[s][rank]);
	optinc_ring_close(ring);
	free(in);
	free(out);
	return 0;
}

static void *shared_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED)
		memset(p, 0, len);
	return p;
}

/*
 * A port range of its own for each test process (rank r: port + r),
 * below the kernel's ephemeral ports (32768 on), which outgoing
 * connections of other programs take and a listener then cannot.
 */
static unsigned int test_port(void)
{
	return 20000 + (getpid() % 390) * 32;
}

FIXTURE(ring) {
	struct shared *sh;
	unsigned int port;
};

FIXTURE_VARIANT(ring) {
	int size;
};

FIXTURE_VARIANT_ADD(ring, n2) { .size = 2 };
FIXTURE_VARIANT_ADD(ring, n3) { .size = 3 };
FIXTURE_VARIANT_ADD(ring, n4) { .size = 4 };

FIXTURE_SETUP(ring)
{
	int s, r;

	self->sh = shared_map(sizeof(*self->sh));
	ASSERT_NE(MAP_FAILED, self->sh);
	for (s = 0; s < NR_SIZES; s++)
		for (r = 0; r < MAX_RANKS; r++)
			self->sh->res[s][r].ret = -ECHILD;
	self->port = test_port();
}

FIXTURE_TEARDOWN(ring)
{
	munmap(self->sh, sizeof(*self->sh));
}

/* Every rank a process; each result equal to the reference, all alike. */
static void check_kind(struct __test_metadata *_metadata, struct shared *sh,
		       int size, unsigned int port, int kind)
{
	pid_t pids[MAX_RANKS];
	int r, s, st;

	for (r = 0; r < size; r++) {
		pids[r] = fork();
		ASSERT_LE(0, pids[r]);
		if (pids[r] == 0)
			_exit(rank_main(sh, r, size, kind, port));
	}
	for (r = 0; r < size; r++)
		waitpid(pids[r], &st, 0);
	for (r = 0; r < size; r++)
		ASSERT_EQ(0, sh->open[r].ret) TH_LOG("rank %d: %s", r,
						     sh->open[r].msg);
	for (s = 0; s < NR_SIZES; s++) {
		for (r = 0; r < size; r++) {
			struct result *res = &sh->res[s][r];

			ASSERT_EQ(0, res->ret) TH_LOG("count %zu rank %d: %s",
						      sizes[s], r, res->msg);
			EXPECT_TRUE(res->ok) TH_LOG("%s, count %zu, rank %d: wrong result",
						    kind_names[kind], sizes[s], r);
			EXPECT_EQ(sh->res[s][0].hash, res->hash)
				TH_LOG("%s, count %zu: rank %d differs from rank 0",
				       kind_names[kind], sizes[s], r);
		}
	}
	printf("# N=%d %s, %zu elements: %.1f ms on rank 0\n", size,
	       kind_names[kind], sizes[NR_SIZES - 1],
	       sh->res[NR_SIZES - 1][0].ms);
	fflush(stdout);
}

TEST_F(ring, float32_sum_exact_values)
{
	check_kind(_metadata, self->sh, variant->size, self->port,
		   K_FSUM_EXACT);
}

TEST_F(ring, float32_avg_exact_values_in_place)
{
	check_kind(_metadata, self->sh, variant->size, self->port,
		   K_FAVG_EXACT);
}

TEST_F(ring, float32_avg_random_values_in_place)
{
	check_kind(_metadata, self->sh, variant->size, self->port,
		   K_FAVG_RANDOM);
}

TEST_F(ring, int32_sum_wraps)
{
	check_kind(_metadata, self->sh, variant->size, self->port, K_ISUM);
}

/* Ranks 0 and 1 of 3; rank 2 never comes (mode 0) or leaves after open. */
static int gone_rank(struct result *res, int rank, unsigned int port,
		     int mode)
{
	size_t n = 1 << 20;
	float *buf = calloc(n, sizeof(*buf));
	struct optinc_ring *ring;
	double t0 = now_ms();

	alarm(CHILD_ALARM_S);
	res->ret = optinc_ring_open(&ring, rank, 3, PEERS4 + 10, port, 1000,
				    res->msg, MSG_LEN);
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

static void check_gone(struct __test_metadata *_metadata, int mode)
{
	struct result *res = shared_map(3 * sizeof(*res));
	unsigned int port = test_port();
	int r, st, nr = mode ? 3 : 2;
	pid_t pids[3];

	ASSERT_NE(MAP_FAILED, res);
	for (r = 0; r < nr; r++) {
		pids[r] = fork();
		ASSERT_LE(0, pids[r]);
		if (pids[r] == 0)
			_exit(gone_rank(&res[r], r, port, mode));
	}
	for (r = 0; r < nr; r++)
		waitpid(pids[r], &st, 0);
	for (r = 0; r < 2; r++) {
		printf("# rank %d: %d after %.0f ms: %s\n", r, res[r].ret,
		       res[r].ms, res[r].msg);
		fflush(stdout);
		EXPECT_GT(0, res[r].ret);
		EXPECT_GT(5000, res[r].ms);
		if (!mode) {
			EXPECT_EQ(OPTINC_ERR_TIMEOUT, res[r].ret);
			EXPECT_NE(NULL, strstr(res[r].msg, "rank 2"));
		}
	}
	munmap(res, 3 * sizeof(*res));
}

TEST(missing_rank_gives_timeout_naming_it)
{
	check_gone(_metadata, 0);
}

TEST(rank_leaving_fails_allreduce_instead_of_hanging)
{
	check_gone(_metadata, 1);
}

TEST(bad_arguments)
{
	float x[3] = { 1.5f, -2.0f, 3.25f }, y[3];
	char err[MSG_LEN] = "";
	struct optinc_ring *ring;

	EXPECT_EQ(OPTINC_ERR_INVALID,
		  optinc_ring_open(&ring, 0, 2, "127.0.0.1", test_port(), 100,
				   err, sizeof(err)));
	EXPECT_NE(0, err[0]);
	EXPECT_EQ(OPTINC_ERR_INVALID,
		  optinc_ring_open(&ring, 0, 2, "127.0.0.1,localhost",
				   test_port(), 100, err, sizeof(err)));
	EXPECT_EQ(OPTINC_ERR_INVALID,
		  optinc_ring_open(&ring, 2, 2, PEERS4 + 20, test_port(), 100,
				   err, sizeof(err)));
	ASSERT_EQ(0, optinc_ring_open(&ring, 0, 1, "127.0.0.1", test_port(),
				      100, err, sizeof(err)));
	EXPECT_EQ(0, optinc_ring_allreduce(ring, x, y, 3, OPTINC_FLOAT32,
					   OPTINC_AVG, err, sizeof(err)));
	EXPECT_EQ(0, memcmp(x, y, sizeof(x)));
	EXPECT_EQ(OPTINC_ERR_UNSUPPORTED,
		  optinc_ring_allreduce(ring, x, y, 3, OPTINC_INT32,
					OPTINC_AVG, err, sizeof(err)));
	EXPECT_EQ(OPTINC_ERR_INVALID,
		  optinc_ring_allreduce(ring, NULL, y, 3, OPTINC_FLOAT32,
					OPTINC_SUM, err, sizeof(err)));
	optinc_ring_close(ring);
}

TEST_HARNESS_MAIN
