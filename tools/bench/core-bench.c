// SPDX-License-Identifier: BSD-3-Clause
/*
 * Switch capacity without I/O: frames held in memory go through what a
 * datapath does per frame (parse, the slot state machine, finishing, and
 * building one result frame per member), on one core. Prints elements
 * aggregated per second of CPU time (so that a loaded machine still gives
 * comparable numbers) for exact and onn mode, and their ratio.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <optinc/core.h>
#include "core-bench.h"

#define WINDOW		64
#define ELEMS		8704	/* one MTU-9000 frame of 8-bit values */
#define BLOCK		256

struct bench {
	struct optinc_job job;
	struct optinc_table table;
	__u8 *tab;
	void *mem;
	__u8 *frames[OPTINC_MAX_MEMBERS];	/* one UDP payload per rank */
	__u32 len;
	__u8 out[OPTINC_FRAME_OVERHEAD + ELEMS + 64];
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int bench_setup(struct bench *b, int n, int onn)
{
	struct optinc_msg m = { .type = OPTINC_T_DATA, .op = OPTINC_OP_AVG,
				.bits = 8, .job = 1, .count = ELEMS,
				.block = BLOCK, .nscale = ELEMS / BLOCK };
	__u32 radix = 3u * n + 1, r, i;

	memset(b, 0, sizeof(*b));
	b->job = (struct optinc_job){ .id = 1, .size = (__u16)n,
		.window = WINDOW, .max_elems = ELEMS,
		.mode = onn ? OPTINC_MODE_ONN : OPTINC_MODE_EXACT };
	if (onn) {
		b->table = (struct optinc_table){ .members = (__u16)n,
			.bits = 8, .radix = (__u16)radix,
			.entries = radix * radix * radix * radix };
		b->tab = malloc(b->table.entries);
		if (!b->tab)
			return -1;
		optinc_table_fill_exact(b->tab, (__u16)n, 8);
		b->table.out = b->tab;
		b->job.table = &b->table;
	}
	b->mem = aligned_alloc(64, optinc_job_mem(WINDOW, ELEMS));
	if (!b->mem || optinc_job_init(&b->job, b->mem,
				       optinc_job_mem(WINDOW, ELEMS)))
		return -1;
	b->len = OPTINC_HDR_LEN + optinc_msg_payload_len(8, ELEMS, m.nscale);
	for (r = 0; r < (__u32)n; r++) {
		b->frames[r] = malloc(b->len);
		if (!b->frames[r])
			return -1;
		for (i = OPTINC_HDR_LEN; i < b->len; i++)
			b->frames[r][i] = (__u8)rand();
		memset(b->frames[r] + OPTINC_HDR_LEN, 0,
		       OPTINC_SCALES_LEN(m.nscale));
		m.rank = (__u16)r;
		optinc_hdr_fill((struct optinc_hdr *)b->frames[r], &m);
		b->job.members[r].ep.port = (__be16)(1000 + r);
		b->job.joined |= 1ULL << r;
	}
	return 0;
}

/* The per-frame path for one seq: N contributions, then N result frames. */
static int bench_seq(struct bench *b, __u32 seq)
{
	struct optinc_slot *s = NULL;
	enum optinc_drop why;
	enum optinc_verdict v = OPTINC_V_DROP;
	struct optinc_msg m;
	__u32 r, n = b->job.size;
	__u16 slot = (__u16)(seq % WINDOW);

	for (r = 0; r < n; r++) {
		__u8 *h = b->frames[r];

		h[12] = (__u8)(seq >> 24); h[13] = (__u8)(seq >> 16);
		h[14] = (__u8)(seq >> 8); h[15] = (__u8)seq;
		h[16] = (__u8)(slot >> 8); h[17] = (__u8)slot;
		h[18] = (__u8)((seq / WINDOW) & 1);
		if (optinc_msg_parse(h, b->len, &m) != OPTINC_DROP_NONE)
			return -1;
		v = optinc_job_rx(&b->job, &m, &b->job.members[r].ep, &why, &s);
	}
	if (v != OPTINC_V_COMPLETE)
		return -1;
	for (r = 0; r < n; r++)
		if (!optinc_build_result(b->out, sizeof(b->out), &b->job, s,
					 &b->job.members[0].ep, (__u16)r))
			return -1;
	return 0;
}

static double bench_run(int n, int onn, double secs)
{
	struct bench *b = calloc(1, sizeof(*b));
	double t0, t;
	__u32 seq = 0;

	if (!b || bench_setup(b, n, onn)) {
		fprintf(stderr, "core-bench: setup failed for N=%d\n", n);
		exit(1);
	}
	t0 = now();
	do {
		for (int i = 0; i < 256; i++)
			if (bench_seq(b, seq++)) {
				fprintf(stderr, "core-bench: seq %u failed\n", seq);
				exit(1);
			}
		t = now() - t0;
	} while (t < secs);
	return (double)seq * ELEMS * n / t;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	int ns[] = { 2, 4, 8, 16 };

	if (argc > 1 && !strcmp(argv[1], "--stages"))
		return core_stages(argc > 2 ? atoi(argv[2]) : 400) ? 1 : 0;

	printf("# core-bench: parse + slot state machine + finish + N result "
	       "frames per seq; %d elements (8-bit) per frame, one core\n", ELEMS);
	printf("#  N   exact(elem/s)     onn(elem/s)   onn/exact  exact(Gbit/s in)\n");
	for (unsigned int i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		double ex = bench_run(ns[i], 0, secs);
		double on = bench_run(ns[i], 1, secs);

		printf("%4d  %14.3e  %14.3e  %10.3f  %16.1f\n", ns[i], ex, on,
		       on / ex, ex * 8 / 1e9);
	}
	return 0;
}
