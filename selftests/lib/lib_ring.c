// SPDX-License-Identifier: GPL-2.0
/*
 * The ring's own layer (lib/ring.c, white-box: linked with liboptinc.a),
 * ranks as threads on 127.0.0.1: what a stalled ring says. One rank opens
 * the ring and then neither sends nor reads; its neighbours must time out
 * after their timeout_ms naming it, with the kernel's view of each connection
 * (lost segments, a closed window, or silence) in the message.
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
	const char *m0 = s[0].msg, *m2 = s[2].msg;
	int ran;

	ranks_clear_env();
	tap_plan(3);
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
	return tap_done();
}
