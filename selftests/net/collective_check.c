// SPDX-License-Identifier: GPL-2.0
/*
 * One rank of the collectives test on a testbed: every datatype and op
 * against the double-precision reference of all ranks' inputs (each rank
 * makes every rank's data), the non-finite rule (NaN, +Inf, -Inf on one
 * rank or all, in the first, a middle and the last block; timed against
 * the clean call), and last the call that one rank makes with another
 * count (every rank must fail with OPTINC_ERR_PROTO, quickly). Prints a
 * line per case, "rank R hash H" over the results and PASS or FAIL.
 */
#include <getopt.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <optinc/optinc.h>
#include "../lib/dtref.h"

#define BLOCK	256

struct cc {
	struct optinc_comm *comm;
	int rank, size;		/* of the data: global in a cascade */
	int ring, bits, quick, fail;
	uint64_t hash;
};

static double cc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void cc_hash(struct cc *c, const void *p, size_t len)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		c->hash = (c->hash ^ b[i]) * 0x100000001b3ULL;
}

static void cc_verdict(struct cc *c, int ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void cc_verdict(struct cc *c, int ok, const char *fmt, ...)
{
	va_list ap;

	printf("case %s: ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	c->fail |= !ok;
}

/* One call of every rank's generated data, checked against the reference. */
static void cc_type(struct cc *c, int dt, int op, size_t count)
{
	struct dt_call k = { .dt = dt, .op = op, .bits = c->bits,
			     .ring = c->ring, .count = count, .block = BLOCK };
	size_t es = dt_size(dt), i;
	double **in = calloc(c->size, sizeof(*in));
	void *buf = malloc(count * es), *tmp = malloc(count * es);
	double worst = INFINITY;
	int r, err = -1;

	for (r = 0; in && buf && tmp && r < c->size; r++) {
		in[r] = malloc(count * sizeof(double));
		if (!in[r])
			goto out;
		for (i = 0; i < count; i++) {
			dt_put(dt, tmp, i, dt_gen(dt, r, i));
			in[r][i] = dt_get(dt, tmp, i);
		}
		if (r == c->rank)
			memcpy(buf, tmp, count * es);
	}
	if (r == c->size) {
		err = optinc_allreduce(c->comm, buf, buf, count, dt, op);
		if (!err)
			worst = dt_worst(&k, in, c->size, buf);
		cc_hash(c, buf, count * es);
	}
out:
	cc_verdict(c, !err && worst <= 1.0, "%s %s of %zu, %d bits: %s, worst |error| / bound %.3f",
		   dt_name(dt), dt_op_name(op), count, c->bits,
		   err ? optinc_comm_errmsg(c->comm) : "done", worst);
	for (r = 0; in && r < c->size; r++)
		free(in[r]);
	free(in);
	free(buf);
	free(tmp);
}

static void cc_types(struct cc *c)
{
	static const int types[] = { OPTINC_FLOAT16, OPTINC_BFLOAT16,
				     OPTINC_FLOAT32, OPTINC_FLOAT64 };
	size_t count = c->quick ? 4099 : 100003;
	int t, op;

	for (t = 0; t < 4; t++)
		for (op = OPTINC_SUM; op <= OPTINC_MIN; op++)
			cc_type(c, types[t], op, count);
	cc_type(c, OPTINC_INT32, OPTINC_SUM, count);
	cc_type(c, OPTINC_INT32, OPTINC_MAX, count);
	cc_type(c, OPTINC_INT32, OPTINC_MIN, count);
}

#define NF_COUNT	4099	/* 17 blocks, the last of 3 */

/* Case @k of 18: what, where and on whom (0..8 every rank, 9..17 rank 1). */
static void cc_nf_case(int k, float *v, size_t *at, int *all)
{
	*v = k / 3 % 3 == 0 ? NAN : k / 3 % 3 == 1 ? INFINITY : -INFINITY;
	*at = k % 3 == 0 ? 3 : k % 3 == 1 ? NF_COUNT / 2 : NF_COUNT - 1;
	*all = k < 9;
}

/*
 * Frames this rank sent for the first time so far: not retransmissions,
 * tail probes or JOIN probes. A call needs as many as its phases have
 * frames, however loaded the machine, so a call that needs more than a
 * clean one took another round. The ring counts no frames (0 = 0): its
 * non-finite values never leave the ranks' own arithmetic.
 */
static uint64_t cc_fresh(const struct cc *c)
{
	struct optinc_comm_stats st = { .sz = sizeof(st) };

	if (optinc_comm_get_stats(c->comm, &st))
		return 0;
	return st.frames_sent - st.retransmits - st.probes;
}

/*
 * Case @k, three times. What must not happen is a value that the switch
 * or the library cannot carry on the fast path: an error, wrong values,
 * or another round of frames (each call's fresh frames equal to a clean
 * call's). Time is shown, not judged: a loaded machine (a TCG VM beside
 * other work) preempts ranks and makes retransmissions of its own, and
 * timed checks flaked there.
 */
static int cc_nf_one(struct cc *c, int k, const float *base,
		     const float *clean, float *x, double t_clean,
		     uint64_t fresh_clean)
{
	double t, best = 1e9;
	int all, err = 0, ok = 1, rep;
	uint64_t f0, fresh = 0;
	size_t at, i;
	float v;

	cc_nf_case(k, &v, &at, &all);
	for (rep = 0; rep < 3 && ok; rep++) {
		memcpy(x, base, NF_COUNT * 4);
		if (all || c->rank == 1 % c->size)
			x[at] = v;
		f0 = cc_fresh(c);
		t = cc_now();
		err = optinc_allreduce(c->comm, x, x, NF_COUNT, OPTINC_FLOAT32,
				       OPTINC_AVG);
		t = cc_now() - t;
		fresh = cc_fresh(c) - f0;
		best = t < best ? t : best;
		ok = fresh == fresh_clean;
		ok = ok && !err;
		for (i = 0; ok && i < NF_COUNT; i++)
			ok = i / BLOCK == at / BLOCK ? isnan(x[i]) :
			     !memcmp(&x[i], &clean[i], 4);
		memcpy(x, base, NF_COUNT * 4);
		ok = ok && !optinc_allreduce(c->comm, x, x, NF_COUNT,
					     OPTINC_FLOAT32, OPTINC_AVG) &&
		     !memcmp(x, clean, NF_COUNT * 4);
	}
	cc_verdict(c, ok,
		   "%s at element %zu on %s: its block NaN, the rest as without it, the next call right, %llu fresh frames (clean %llu): %s; best of 3 %.2f ms (clean %.2f ms)",
		   isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf", at,
		   all ? "every rank" : "rank 1", (unsigned long long)fresh,
		   (unsigned long long)fresh_clean,
		   err ? optinc_strerror(err) : "OK", best * 1e3, t_clean * 1e3);
	return ok;
}

static void cc_nonfinite(struct cc *c)
{
	static float base[NF_COUNT], clean[NF_COUNT], x[NF_COUNT];
	uint64_t f0, fresh = 0;
	double t = 1e9, t0;
	size_t i;
	int k, err = 0;

	for (i = 0; i < NF_COUNT; i++)
		base[i] = (float)dt_gen(OPTINC_FLOAT32, c->rank, i);
	for (k = 0; k < 3 && !err; k++) {	/* the best of 3 clean calls */
		memcpy(clean, base, sizeof(clean));
		f0 = cc_fresh(c);
		t0 = cc_now();
		err = optinc_allreduce(c->comm, clean, clean, NF_COUNT,
				       OPTINC_FLOAT32, OPTINC_AVG);
		t0 = cc_now() - t0;
		t = t0 < t ? t0 : t;
		fresh = cc_fresh(c) - f0;
	}
	if (err) {
		cc_verdict(c, 0, "clean call: %s", optinc_comm_errmsg(c->comm));
		return;
	}
	for (k = 0; k < 18; k++)
		cc_nf_one(c, k, base, clean, x, t, fresh);
	cc_hash(c, clean, sizeof(clean));
}

/* The last rank calls with one element fewer: every rank fails, fast. */
static void cc_mismatch(struct cc *c)
{
	static float x[1000];
	size_t n = c->rank == c->size - 1 ? 999 : 1000;
	double t = cc_now();
	int err;

	err = optinc_allreduce(c->comm, x, x, n, OPTINC_FLOAT32, OPTINC_AVG);
	t = cc_now() - t;
	cc_verdict(c, err == OPTINC_ERR_PROTO && t < 2.0,
		   "count %zu here, 1000 on the other ranks: %s in %.3f s: %s", n,
		   optinc_strerror(err), t, optinc_comm_errmsg(c->comm));
}

int main(int argc, char **argv)
{
	struct cc c = { .hash = 0xcbf29ce484222325ULL, .bits = 8 };
	OPTINC_OPTS(o, .block = BLOCK);
	int opt, err;

	while ((opt = getopt(argc, argv, "rqb:g:")) != -1) {
		switch (opt) {
		case 'r': c.ring = 1; break;
		case 'q': c.quick = 1; break;
		case 'b': c.bits = atoi(optarg); break;
		case 'g':
			if (sscanf(optarg, "%d:%d", &c.rank, &c.size) != 2)
				return 2;
			break;
		default:
			fprintf(stderr, "usage: collective_check [-r] [-q] [-b BITS] [-g RANK:SIZE]\n");
			return 2;
		}
	}
	o.bits = c.bits;
	o.algo = c.ring ? OPTINC_ALGO_RING : OPTINC_ALGO_OPTINC;
	err = optinc_comm_create(&o, &c.comm);
	if (err) {
		printf("comm_create: %s\nFAIL\n", optinc_comm_errmsg(NULL));
		return 1;
	}
	if (!c.size) {
		c.rank = optinc_comm_rank(c.comm);
		c.size = optinc_comm_size(c.comm);
	}
	cc_types(&c);
	cc_nonfinite(&c);
	printf("rank %d hash %016llx\n", c.rank, (unsigned long long)c.hash);
	cc_mismatch(&c);
	optinc_comm_destroy(c.comm);
	printf("%s\n", c.fail ? "FAIL" : "PASS");
	return c.fail;
}
