// SPDX-License-Identifier: GPL-2.0
/*
 * The ring's own layer (lib/ring.c, white-box: linked with liboptinc.a),
 * ranks as threads on 127.0.0.1: what a stalled ring says. One rank opens
 * the ring and then neither sends nor reads; its neighbours must time out
 * after their timeout_ms naming it, with the kernel's view of each connection
 * (lost segments, a closed window, or silence) in the message. And a rank
 * that comes late: the call completes, and its neighbours, having waited
 * for more than half their timeout, say so once.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <optinc/optinc.h>
#include "../../lib/ring.h"
#include "libtest.h"

#define RANKS		3
#define STALL_MS	1500
#define PEERS		"127.0.0.1,127.0.0.1,127.0.0.1"

struct stall_rank {
	int rank;
	unsigned int port, timeout_ms;
	size_t count;
	float *x;
	int ret;
	double secs;
	char msg[512];
};

/* Rank 1 joins the ring, then takes no part until the others gave up. */
static void *stall_thread(void *arg)
{
	struct stall_rank *s = arg;
	struct optinc_ring *ring;
	double t;

	s->ret = optinc_ring_open(&ring, s->rank, RANKS, PEERS, s->port,
				  s->timeout_ms, s->msg, sizeof(s->msg));
	if (s->ret)
		return NULL;
	if (s->rank == 1) {
		usleep((2 * STALL_MS + 1500) * 1000);
	} else {
		t = now_s();
		s->ret = optinc_ring_allreduce(ring, s->x, s->x, s->count,
					       OPTINC_FLOAT32, OPTINC_SUM,
					       s->msg, sizeof(s->msg));
		s->secs = now_s() - t;
	}
	optinc_ring_close(ring);
	return NULL;
}

/* The largest of /proc/sys/net/ipv4/@name's three sizes, or @dflt. */
static size_t tcp_mem_max(const char *name, size_t dflt)
{
	unsigned long lo, mid, hi;
	char path[64];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/%s", name);
	f = fopen(path, "r");
	if (!f)
		return dflt;
	n = fscanf(f, "%lu %lu %lu", &lo, &mid, &hi);
	fclose(f);
	return n == 3 ? hi : dflt;
}

/*
 * A step (a third of the call) must outgrow what rank 0's send buffer and
 * rank 1's receive buffer can hold, or rank 0 would not wait to send.
 */
static size_t stall_count(void)
{
	size_t seg = tcp_mem_max("tcp_rmem", 6 << 20) +
		     tcp_mem_max("tcp_wmem", 4 << 20) + (8 << 20);

	if (seg > (96u << 20))
		seg = 96u << 20;
	return RANKS * seg / sizeof(float);
}

/* The number printed right after @key in @msg, or -1. */
static long num_after(const char *msg, const char *key)
{
	const char *p = strstr(msg, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static int run_stall(struct stall_rank *s)
{
	pthread_t thr[RANKS];
	size_t count = stall_count();
	unsigned int port = 20000 + (getpid() + 11) % 12000;
	int r, ok = 1;

	tap_diag("%zu elements per call, %zu MB per step", count,
		 count * sizeof(float) / RANKS >> 20);
	for (r = 0; r < RANKS; r++) {
		/* rank 2 waits longer, so that rank 0 sees the stall
		 * before rank 2 gives up and closes its side */
		s[r] = (struct stall_rank){ .rank = r, .port = port,
					    .count = count,
					    .timeout_ms = r == 2 ? 2 * STALL_MS :
								   STALL_MS };
		if (r != 1 && !(s[r].x = calloc(count, sizeof(float))))
			ok = 0;
	}
	for (r = 0; ok && r < RANKS; r++)
		if (pthread_create(&thr[r], NULL, stall_thread, &s[r]))
			ok = 0, r--;	/* join only the threads made */
	while (r-- > 0)
		pthread_join(thr[r], NULL);
	for (r = 0; r < RANKS; r++) {
		free(s[r].x);
		tap_diag("rank %d: %d after %.3f s: %s", r, s[r].ret,
			 s[r].secs, s[r].msg);
	}
	return ok && !s[1].ret;
}

/* The straggler: rank 1 enters the first of two calls LATE_MS late. */
#define LATE_MS		1300
#define LATE_TIMEOUT_MS	2000
#define LATE_COUNT	3001

struct late_rank {
	int rank;
	unsigned int port;
	int ret[2];
	float x[LATE_COUNT];
	struct optinc_ring_stats st[2];
	char msg[512];
};

static void *late_thread(void *arg)
{
	struct late_rank *s = arg;
	struct optinc_ring *ring;
	size_t i;
	int c;

	s->ret[0] = optinc_ring_open(&ring, s->rank, RANKS, PEERS, s->port,
				     LATE_TIMEOUT_MS, s->msg, sizeof(s->msg));
	if (s->ret[0])
		return NULL;
	for (c = 0; c < 2; c++) {
		for (i = 0; i < LATE_COUNT; i++)
			s->x[i] = (float)(s->rank + 1 + c);
		if (s->rank == 1 && !c)
			usleep(LATE_MS * 1000);
		s->ret[c] = optinc_ring_allreduce(ring, s->x, s->x, LATE_COUNT,
						  OPTINC_FLOAT32, OPTINC_SUM,
						  s->msg, sizeof(s->msg));
		for (i = 0; !s->ret[c] && i < LATE_COUNT; i++)
			if (s->x[i] != 6 + 3 * c)
				s->ret[c] = -1000;
		optinc_ring_get_stats(ring, &s->st[c]);
	}
	optinc_ring_close(ring);
	return NULL;
}

/* Both calls on every rank; the library's stderr (its log) into @log. */
static int run_late(struct late_rank *s, char *log, size_t loglen)
{
	FILE *f = tmpfile();	/* unlinked already */
	pthread_t thr[RANKS];
	int r, fd, saved, ok = 1;
	char *p, *e;
	ssize_t n;

	if (!f)
		return 0;
	fd = fileno(f);
	saved = dup(STDERR_FILENO);
	if (saved < 0) {
		fclose(f);
		return 0;
	}
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	for (r = 0; r < RANKS; r++)
		s[r] = (struct late_rank){ .rank = r,
			.port = 20000 + (getpid() + 5011) % 12000 };
	for (r = 0; ok && r < RANKS; r++)
		if (pthread_create(&thr[r], NULL, late_thread, &s[r]))
			ok = 0, r--;
	while (r-- > 0)
		pthread_join(thr[r], NULL);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, log, loglen - 1, 0);
	fclose(f);
	log[n > 0 ? n : 0] = 0;
	for (r = 0; r < RANKS; r++) {
		tap_diag("rank %d: %d %d, longest wait %llu then %llu ms %s", r,
			 s[r].ret[0], s[r].ret[1],
			 (unsigned long long)s[r].st[0].longest_wait_ms,
			 (unsigned long long)s[r].st[1].longest_wait_ms,
			 s[r].msg);
		ok = ok && !s[r].ret[0] && !s[r].ret[1];
	}
	for (p = log; *p; p = *e ? e + 1 : e) {
		e = strchrnul(p, '\n');
		tap_diag("its log: %.*s", (int)(e - p), p);
	}
	return ok;
}

/* Lines of @log with @key in them. */
static int lines_with(const char *log, const char *key)
{
	int n = 0;

	for (; (log = strstr(log, key)); log += strlen(key))
		n++;
	return n;
}

/* Within timeout_ms of its last progress, give or take the scheduler. */
static int in_time(const struct stall_rank *s)
{
	return s->ret == OPTINC_ERR_TIMEOUT &&
	       s->secs >= s->timeout_ms / 1000.0 &&
	       s->secs < s->timeout_ms / 1000.0 + 3;
}

int main(void)
{
	struct stall_rank s[RANKS];
	static struct late_rank l[RANKS];
	const char *m0 = s[0].msg, *m2 = s[2].msg;
	char log[4096];
	int ran;

	ranks_clear_env();
	tap_plan(5);
	ran = run_stall(s);
	/*
	 * Rank 0 sends to rank 1: its step 0 fills rank 1's receive buffer
	 * and the window closes, the rest stays queued. It also waits for
	 * rank 2, which waits for rank 1.
	 */
	tap_ok(ran && in_time(&s[0]) &&
	       strstr(m0, "no progress for 1500 ms in step 2 of 4: rank 2 (127.0.0.1) sends nothing, rank 1 (127.0.0.1) takes nothing") &&
	       num_after(m0, "to rank 1: ") > 0 &&
	       strstr(m0, "peer's window 0 B,"),
	       "a rank that reads nothing: its left neighbour times out after timeout_ms naming it, with bytes queued and the peer's window 0");
	tap_ok(ran && in_time(&s[2]) &&
	       strstr(m2, "no progress for 3000 ms in step 1 of 4: rank 1 (127.0.0.1) sends nothing (") &&
	       num_after(m2, "TCP from rank 1: data last in ") >= 2 * STALL_MS,
	       "... its right neighbour names it as sending nothing, no data from it for at least timeout_ms");
	/* in ms, between the kernel's 200 ms floor and its 120 s ceiling */
	tap_ok(ran && num_after(m0, "peer's window 0 B, ") == 0 &&
	       num_after(m0, "(RTO now ") >= 200 &&
	       num_after(m0, "(RTO now ") <= 120000,
	       "... on loopback no RTO retransmission; the RTO in ms, within the kernel's bounds");

	ran = run_late(l, log, sizeof(log));
	/* rank 2 waits for rank 1's data, rank 0 for rank 2's */
	tap_ok(ran && l[2].st[0].longest_wait_ms >= LATE_MS - 100 &&
	       l[2].st[0].longest_wait_ms < LATE_TIMEOUT_MS &&
	       l[0].st[0].longest_wait_ms >= LATE_MS - 100 &&
	       l[2].st[1].longest_wait_ms == l[2].st[0].longest_wait_ms,
	       "a rank %d ms late into a call: the call completes on every rank, its neighbours' longest wait counted", LATE_MS);
	tap_ok(ran && lines_with(log, "ring: rank 2: a call waited ") == 1 &&
	       lines_with(log, "ring: rank 0: a call waited ") == 1 &&
	       lines_with(log, "a call waited ") == 2 &&
	       strstr(log, "(step 1 of 4), more than half of its 2000 ms timeout: a late rank, or TCP backing off") &&
	       strstr(log, "OPTINC_TIMEOUT_MS raises the timeout"),
	       "... each of them warns once, naming the step and its timeout; the next, prompt call warns no more");
	return tap_done();
}
