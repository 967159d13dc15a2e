// SPDX-License-Identifier: BSD-3-Clause
/*
 * optinc-core-bench --stages: where a slot's cycles go. Each reduction
 * stage of lib/core timed alone (TSC cycles per element, median and
 * minimum over rounds), on slots laid out as a job's (a window of 64, so
 * that the accumulators miss the caches as they do in optincd), for exact
 * and onn mode, and the floor of a look-up: one independent byte load per
 * element, with nothing else.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <optinc/core.h>
#include "core-bench.h"

#define ST_WINDOW	64
#define ST_ELEMS	8704

enum { ST_X_LOAD, ST_X_FOLD, ST_X_LAST, ST_O_LOAD, ST_O_FOLD, ST_O_LAST,
       ST_O_LOOKUP, ST_S_LAST, ST_A_LAST, ST_P_LAST, ST_COPY, ST_N };

static const char *const st_names[ST_N] = {
	"exact load", "exact fold", "exact fold+finish", "onn load (P)",
	"onn fold (P)", "onn fold+look-up", "onn look-up alone",
	"by-sum fold+look-up", "by-avg fold+finish", "by-avg, 8 patches",
	"result copy",
};

#if defined(__x86_64__)
static inline __u64 st_clock(void)
{
	return __builtin_ia32_rdtsc();
}
#else
static inline __u64 st_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000u + (__u64)ts.tv_nsec;
}
#endif

struct st_run {
	int n;
	struct optinc_table t, ts;	/* ts: t with a by-sum form */
	/* the exact table by avg, and with 8 sums off it */
	struct optinc_table ta, tp;
	__u8 *acc, *res, *src, *copy, *lut[2];
	double *c[ST_N];	/* cycles per element of each round */
};

/*
 * The exact table (by avg, no patches) and a copy with 8 sums off it (8
 * patches), each through optinc_table_by_sum() as a datapath installs it.
 */
static int st_by_avg(struct st_run *s)
{
	__u32 len = OPTINC_TABLE_BY_SUM_LEN(s->n), k, e;
	__u8 *ex = malloc(s->t.entries), *off = malloc(s->t.entries);

	s->ta = s->tp = s->t;
	s->ta.out = ex;
	s->tp.out = off;
	s->lut[0] = malloc(len);
	s->lut[1] = malloc(len);
	if (!ex || !off || !s->lut[0] || !s->lut[1])
		return -1;
	optinc_table_fill_exact(ex, (__u16)s->n, 8);
	memcpy(off, ex, s->t.entries);
	for (k = 0; k < s->t.entries; k++) {
		e = optinc_pam4_plain_sum(k, s->t.radix, 4);
		if (e % (len / 8) == len / 16)	/* 8 sums, spread */
			off[k] ^= 1;
	}
	if (optinc_table_by_sum(&s->ta, s->lut[0]) ||
	    optinc_table_by_sum(&s->tp, s->lut[1]) || s->ta.patches ||
	    s->tp.patches != 8) {
		fprintf(stderr, "core-bench: the by-avg tables came out wrong\n");
		return -1;
	}
	return 0;
}

static int st_setup(struct st_run *s, int n, int rounds)
{
	__u32 r = 3u * n + 1, k;
	__u8 *tab;

	s->n = n;
	s->t = (struct optinc_table){ .members = (__u16)n, .bits = 8,
		.radix = (__u16)r, .entries = r * r * r * r };
	tab = malloc(s->t.entries);
	s->acc = aligned_alloc(64, (size_t)ST_WINDOW * 4 * ST_ELEMS);
	s->res = aligned_alloc(64, (size_t)ST_WINDOW * ST_ELEMS);
	s->src = malloc((size_t)n * ST_ELEMS);
	s->copy = malloc(ST_ELEMS);
	if (!tab || !s->acc || !s->res || !s->src || !s->copy)
		return -1;
	/* not the exact table: the look-up must really read it */
	for (k = 0; k < s->t.entries; k++)
		tab[k] = (__u8)(k * 2654435761u >> 24);
	s->t.out = tab;
	/* a by-sum form of its own, as pseudo-random: ONNS8 reads only it */
	s->ts = s->t;
	s->ts.by_sum = tab;	/* entries > 255 N + 1 */
	if (st_by_avg(s))
		return -1;
	for (k = 0; k < (__u32)n * ST_ELEMS; k++)
		s->src[k] = (__u8)rand();
	memset(s->acc, 0, (size_t)ST_WINDOW * 4 * ST_ELEMS);
	memset(s->res, 0, (size_t)ST_WINDOW * ST_ELEMS);
	for (k = 0; k < ST_N; k++) {
		s->c[k] = calloc(rounds, sizeof(double));
		if (!s->c[k])
			return -1;
	}
	return 0;
}

static void st_free(struct st_run *s)
{
	int k;

	free((void *)s->t.out);
	free((void *)s->ta.out);
	free((void *)s->tp.out);
	free(s->lut[0]);
	free(s->lut[1]);
	free(s->acc);
	free(s->res);
	free(s->src);
	free(s->copy);
	for (k = 0; k < ST_N; k++)
		free(s->c[k]);
}

#define ST_TIME(i, stmt) do {			\
	__u64 t0_ = st_clock();			\
	stmt;					\
	dt[i] = st_clock() - t0_;		\
} while (0)

/* One slot's life in both modes, each stage timed; @k selects the slot. */
static void st_round(struct st_run *s, int k)
{
	__u32 *a = (__u32 *)(s->acc + (size_t)(k % ST_WINDOW) * 4 * ST_ELEMS);
	__u8 *d = s->res + (size_t)(k % ST_WINDOW) * ST_ELEMS, *v = s->src;
	const __u8 *last = v + (size_t)(s->n - 1) * ST_ELEMS;
	__u64 dt[ST_N];
	int r, j, n = s->n;

	ST_TIME(ST_X_LOAD, optinc_acc_load(OPTINC_K_AVG8, a, v, ST_ELEMS));
	ST_TIME(ST_X_FOLD, for (r = 1; r < n - 1; r++)
		optinc_acc_fold(OPTINC_K_AVG8, a, v + r * ST_ELEMS, ST_ELEMS));
	ST_TIME(ST_X_LAST, optinc_acc_fold_finish(OPTINC_K_AVG8, a, last,
			ST_ELEMS, (__u16)n, NULL, d));
	ST_TIME(ST_O_LOAD, optinc_acc_load(OPTINC_K_ONN8, a, v, ST_ELEMS));
	ST_TIME(ST_O_FOLD, for (r = 1; r < n - 1; r++)
		optinc_acc_fold(OPTINC_K_ONN8, a, v + r * ST_ELEMS, ST_ELEMS));
	ST_TIME(ST_O_LAST, optinc_acc_fold_finish(OPTINC_K_ONN8, a, last,
			ST_ELEMS, (__u16)n, &s->t, d));
	optinc_acc_fold(OPTINC_K_ONN8, a, last, ST_ELEMS);
	ST_TIME(ST_O_LOOKUP, optinc_table_lookup(&s->t, (const __u8 *)a,
						 ST_ELEMS, d));
	/* by sum: the load and folds are the exact average's */
	optinc_acc_load(OPTINC_K_ONNS8, a, v, ST_ELEMS);
	for (r = 1; r < n - 1; r++)
		optinc_acc_fold(OPTINC_K_ONNS8, a, v + r * ST_ELEMS, ST_ELEMS);
	ST_TIME(ST_S_LAST, optinc_acc_fold_finish(OPTINC_K_ONNS8, a, last,
			ST_ELEMS, (__u16)n, &s->ts, d));
	for (r = 0; r < 2; r++) {
		optinc_acc_load(OPTINC_K_ONNS8, a, v, ST_ELEMS);
		for (j = 1; j < n - 1; j++)
			optinc_acc_fold(OPTINC_K_ONNS8, a, v + j * ST_ELEMS,
					ST_ELEMS);
		ST_TIME(r ? ST_P_LAST : ST_A_LAST,
			optinc_acc_fold_finish(OPTINC_K_ONNS8, a, last,
				ST_ELEMS, (__u16)n, r ? &s->tp : &s->ta, d));
	}
	ST_TIME(ST_COPY, memcpy(s->copy, d, ST_ELEMS));
	for (r = 0; r < ST_N; r++)
		s->c[r][k] = (double)dt[r] / ST_ELEMS;
	/* per fold, so that N compare; N = 2 has none */
	s->c[ST_X_FOLD][k] = n > 2 ? s->c[ST_X_FOLD][k] / (n - 2) : 0;
	s->c[ST_O_FOLD][k] = n > 2 ? s->c[ST_O_FOLD][k] / (n - 2) : 0;
}

static int st_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The floor of a look-up: byte loads at eight fixed, independent addresses
 * per step (so the CPU may issue them as fast as its load ports allow),
 * TSC cycles per load, minimum of @rounds.
 */
static double st_floor(int rounds)
{
#if defined(__x86_64__)
	static __u8 tab[4096];
	double best = 1e9;
	__u64 t0, steps = 1u << 20;
	int k;

	for (k = 0; k < rounds && k < 50; k++) {
		t0 = st_clock();
		__asm__ volatile(
			"mov %0, %%rcx\n"
			"1:\n"
			"movzbl (%1), %%eax\n movzbl 64(%1), %%edx\n"
			"movzbl 128(%1), %%esi\n movzbl 192(%1), %%edi\n"
			"movzbl 1(%1), %%eax\n movzbl 65(%1), %%edx\n"
			"movzbl 129(%1), %%esi\n movzbl 193(%1), %%edi\n"
			"dec %%rcx\n jnz 1b\n"
			: : "r"(steps), "r"(tab)
			: "rax", "rcx", "rdx", "rsi", "rdi", "memory");
		t0 = st_clock() - t0;
		if ((double)t0 / (8.0 * steps) < best)
			best = (double)t0 / (8.0 * steps);
	}
	return best;
#else
	return 0;
#endif
}

static void st_print(struct st_run *s, int rounds)
{
	double slot[4] = { 0, 0, 0, 0 }, med;
	int i, folds = s->n > 2 ? s->n - 2 : 0;

	for (i = 0; i < ST_N; i++) {
		qsort(s->c[i], rounds, sizeof(double), st_cmp);
		med = s->c[i][rounds / 2];
		printf("%3d  %-20s %8.3f %8.3f\n", s->n, st_names[i], med,
		       s->c[i][0]);
		if (i <= ST_X_LAST || (i >= ST_O_LOAD && i <= ST_O_LAST))
			slot[i >= ST_O_LOAD] += med *
				(i == ST_X_FOLD || i == ST_O_FOLD ? folds : 1);
		if (i == ST_X_LOAD || i == ST_X_FOLD) {	/* by sum's too */
			slot[2] += med * (i == ST_X_FOLD ? folds : 1);
			slot[3] += med * (i == ST_X_FOLD ? folds : 1);
		}
		if (i == ST_S_LAST)
			slot[2] += med;
		if (i == ST_A_LAST)
			slot[3] += med;
	}
	printf("%3d  slot, exact / onn / onn by sum / onn by avg: %.3f / %.3f / "
	       "%.3f / %.3f cycles per element (medians), %.0f / %.0f / %.0f / "
	       "%.0f per frame\n", s->n, slot[0], slot[1], slot[2], slot[3],
	       slot[0] * ST_ELEMS / s->n, slot[1] * ST_ELEMS / s->n,
	       slot[2] * ST_ELEMS / s->n, slot[3] * ST_ELEMS / s->n);
}

/**
 * core_stages() - print each stage's TSC cycles per element for N = 2..16
 * @rounds: slots timed per N
 *
 * Return: 0, or -1 when memory runs out.
 */
int core_stages(int rounds)
{
	static const int ns[] = { 2, 4, 8, 16 };
	struct st_run s;
	unsigned int i;
	int k;

	printf("# core-bench --stages: TSC cycles per element of %d-element "
	       "slots (window %d), median and minimum of %d rounds; folds "
	       "per fold\n#  N  stage                  median      min\n",
	       ST_ELEMS, ST_WINDOW, rounds);
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		if (st_setup(&s, ns[i], rounds))
			return -1;
		for (k = 0; k < rounds; k++)
			st_round(&s, k);
		st_print(&s, rounds);
		st_free(&s);
	}
	printf("# look-up floor: %.3f TSC cycles per independent byte load\n",
	       st_floor(rounds));
	return 0;
}
