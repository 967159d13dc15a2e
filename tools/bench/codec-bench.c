// SPDX-License-Identifier: BSD-3-Clause
/*
 * The codec on one core against memcpy: block exponent, quantize,
 * dequantize and dequantize_sum of N float32 (and the fused exponent +
 * codes, and quantize from those codes), per instruction-set path,
 * called per block as liboptinc does (and in one call), each repetition
 * timed beside a memcpy of the same floats; medians and spread.
 *
 * optinc-codec-bench [-n ELEMS] [-b 8|16] [-B BLOCK] [-F FRAME] [-r REPS]
 *                    [-i ISA]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>
#include <optinc/quant.h>

enum { ST_MEMCPY, ST_EXP, ST_Q, ST_DQ, ST_DQSUM, ST_EXPQ, ST_QFROM, ST_N };
enum { M_BLOCK, M_FRAME, M_ONE, M_N };

static const char *const cb_stage[ST_N] = {
	"memcpy", "block_exp", "quantize", "dequantize", "dequantize_sum",
	"exp+codes", "quantize_from",
};
static const char *const cb_mode[M_N] = { "block", "frame", "one" };

struct cb {
	__u32 n, block, nblocks, bits, reps, frame;
	float *x, *y;
	__u8 *q, *sum, *codes;
	__s8 *e, emax;
	double *t;	/* [rep][mode][stage] seconds */
};

static double cb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Gradient-like data: per block a scale over 2^-20..2^4, values within. */
static void cb_fill(struct cb *b)
{
	__u32 i, j, s = 12345;

	for (j = 0; j < b->nblocks; j++) {
		double scale = ldexp(1.0, (int)(j * 7 % 25) - 20);

		for (i = j * b->block; i < b->n && i < (j + 1) * b->block; i++) {
			s = s * 1103515245u + 12345u;
			b->x[i] = (float)(((double)(s >> 8) / (1 << 24) * 2 - 1) * scale);
		}
	}
	for (i = 0; i < b->n; i++) {	/* int32 sums of 4 ranks' codes */
		__s32 v = (__s32)(i * 2654435761u % 1017) - 508;

		b->sum[4 * i] = (__u8)(v >> 24);
		b->sum[4 * i + 1] = (__u8)(v >> 16);
		b->sum[4 * i + 2] = (__u8)(v >> 8);
		b->sum[4 * i + 3] = (__u8)v;
	}
}

static __u32 cb_len(const struct cb *b, __u32 j)
{
	return b->n - j * b->block < b->block ? b->n - j * b->block : b->block;
}

static void cb_blocks(struct cb *b, int st)
{
	__u32 j, esz = b->bits / 8, bl = b->block;

	for (j = 0; j < b->nblocks; j++) {
		const float *x = b->x + (size_t)j * bl;

		if (st == ST_EXP && optinc_block_exp(x, cb_len(b, j), b->bits, &b->e[j]))
			abort();
		else if (st == ST_Q)
			optinc_quantize(x, cb_len(b, j), b->e[j], b->bits,
					b->q + (size_t)j * bl * esz);
		else if (st == ST_DQ)
			optinc_dequantize(b->q + (size_t)j * bl * esz, cb_len(b, j),
					  b->e[j], b->bits, b->y + (size_t)j * bl);
		else if (st == ST_DQSUM)
			optinc_dequantize_sum(b->sum + (size_t)j * bl * 4, cb_len(b, j),
					      b->e[j], b->bits, b->y + (size_t)j * bl);
		else if (st == ST_EXPQ &&
			 optinc_block_exps_codes(x, cb_len(b, j), bl, b->bits, &b->e[j],
						 b->codes + (size_t)j * bl * esz, NULL))
			abort();
		else if (st == ST_QFROM)	/* agreed == own: the best case */
			optinc_quantize_blocks_from(x, cb_len(b, j), bl, &b->e[j], &b->e[j],
						    b->codes + (size_t)j * bl * esz, b->bits,
						    b->q + (size_t)j * bl * esz);
	}
}

/* the block calls, a frame of b->frame elements at a time */
static void cb_frames(struct cb *b, int st)
{
	__u32 f, len, esz = b->bits / 8;

	for (f = 0; f < b->n; f += b->frame) {
		const __s8 *e = b->e + f / b->block;

		len = b->n - f < b->frame ? b->n - f : b->frame;
		if (st == ST_EXP && optinc_block_exps(b->x + f, len, b->block, b->bits,
						      b->e + f / b->block, NULL))
			abort();
		else if (st == ST_Q)
			optinc_quantize_blocks(b->x + f, len, b->block, e, b->bits,
					       b->q + (size_t)f * esz);
		else if (st == ST_DQ)
			optinc_dequantize_blocks(b->q + (size_t)f * esz, len, b->block,
						 e, b->bits, b->y + f);
		else if (st == ST_DQSUM)
			optinc_dequantize_sum_blocks(b->sum + (size_t)f * 4, len,
						     b->block, e, b->bits, b->y + f);
		else if (st == ST_EXPQ && optinc_block_exps_codes(b->x + f, len, b->block,
							     b->bits, b->e + f / b->block,
							     b->codes + (size_t)f * esz, NULL))
			abort();
		else if (st == ST_QFROM)
			optinc_quantize_blocks_from(b->x + f, len, b->block, e, e,
						    b->codes + (size_t)f * esz, b->bits,
						    b->q + (size_t)f * esz);
	}
}

static void cb_one(struct cb *b, int st)
{
	__s8 e;

	if (st == ST_EXP && optinc_block_exp(b->x, b->n, b->bits, &e))
		abort();
	else if (st == ST_Q)
		optinc_quantize(b->x, b->n, b->emax, b->bits, b->q);
	else if (st == ST_DQ)
		optinc_dequantize(b->q, b->n, b->emax, b->bits, b->y);
	else if (st == ST_DQSUM)
		optinc_dequantize_sum(b->sum, b->n, b->emax, b->bits, b->y);
	else if (st == ST_EXPQ && optinc_block_exps_codes(b->x, b->n, b->n, b->bits, &e,
						     b->codes, NULL))
		abort();
	else if (st == ST_QFROM)
		optinc_quantize_blocks_from(b->x, b->n, b->n, &b->emax, &b->emax,
					    b->codes, b->bits, b->q);
}

static double cb_time(struct cb *b, int mode, int st)
{
	double t0 = cb_now();

	if (st == ST_MEMCPY)
		memcpy(b->y, b->x, (size_t)b->n * 4);
	else if (mode == M_BLOCK)
		cb_blocks(b, st);
	else if (mode == M_FRAME)
		cb_frames(b, st);
	else
		cb_one(b, st);
	return cb_now() - t0;
}

static int cb_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* median, min and max of v[0..n) (sorted in place) */
static void cb_stats(double *v, unsigned int n, double out[3])
{
	qsort(v, n, sizeof(*v), cb_cmp);
	out[0] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	out[1] = v[0];
	out[2] = v[n - 1];
}

#define CB_T(b, r, m, s)	((b)->t[((r) * M_N + (m)) * ST_N + (s)])

/* Each repetition: memcpy, then every stage in both modes. */
static void cb_measure(struct cb *b)
{
	unsigned int r, m, s;

	for (r = 0; r < b->reps; r++) {
		for (m = 0; m < M_N; m++) {
			CB_T(b, r, m, ST_MEMCPY) = cb_time(b, m, ST_MEMCPY);
			for (s = ST_EXP; s < ST_N; s++)
				CB_T(b, r, m, s) = cb_time(b, m, s);
		}
	}
}

/* ns/el and x memcpy of stages a + b + dequantize, per repetition */
static void cb_total(struct cb *b, unsigned int m, int sa, int sb,
		     double st[3], double rt[3])
{
	double v[64], w[64], t;
	unsigned int r;

	for (r = 0; r < b->reps; r++) {
		t = CB_T(b, r, m, sa) + CB_T(b, r, m, sb) + CB_T(b, r, m, ST_DQ);
		v[r] = t * 1e9 / b->n;
		w[r] = t / CB_T(b, r, m, ST_MEMCPY);
	}
	cb_stats(v, b->reps, st);
	cb_stats(w, b->reps, rt);
}

/* The line-rate goals (issue 14), for the calls liboptinc makes. */
static void cb_goals(struct cb *b, const char *isa)
{
	const char *verdict[2] = { "NOT met", "met" };
	const char *tag = b->bits == 8 ? "goal" : "at 16 bits (goals are for 8)";
	double v[64], q[3], r3[3];
	unsigned int r;

	for (r = 0; r < b->reps; r++)
		v[r] = b->n / CB_T(b, r, M_BLOCK, ST_Q);
	cb_stats(v, b->reps, q);
	for (r = 0; r < b->reps; r++)
		v[r] = (CB_T(b, r, M_BLOCK, ST_EXP) + CB_T(b, r, M_BLOCK, ST_Q) +
			CB_T(b, r, M_BLOCK, ST_DQ)) / CB_T(b, r, M_BLOCK, ST_MEMCPY);
	cb_stats(v, b->reps, r3);
	printf("# %s %s: exp+quantize+dequantize <= 2 x memcpy: %.3f [%.3f, %.3f] %s; "
	       "quantize >= 4e9 el/s: %.3e [%.3e, %.3e] %s\n", tag, isa, r3[0],
	       r3[1], r3[2], b->bits == 8 ? verdict[r3[0] <= 2] : "-", q[0], q[1],
	       q[2], b->bits == 8 ? verdict[q[0] >= 4e9] : "-");
	cb_total(b, M_FRAME, ST_EXPQ, ST_QFROM, q, r3);
	printf("# %s %s, fused (exp+codes, quantize_from, dequantize per frame; "
	       "agreed = own exponents): %.3f [%.3f, %.3f] x memcpy %s\n", tag, isa,
	       r3[0], r3[1], r3[2], b->bits == 8 ? verdict[r3[0] <= 2] : "-");
}

static void cb_report(struct cb *b, const char *isa)
{
	double v[64], st[3], rt[3];
	unsigned int r, m, s;

	for (m = 0; m < M_N; m++) {
		for (s = 0; s < ST_N; s++) {
			for (r = 0; r < b->reps; r++)
				v[r] = b->n / CB_T(b, r, m, s);
			cb_stats(v, b->reps, st);
			for (r = 0; r < b->reps; r++)
				v[r] = CB_T(b, r, m, s) / CB_T(b, r, m, ST_MEMCPY);
			cb_stats(v, b->reps, rt);
			printf("%-7s %-6s %-15s %9.3e %9.3e %9.3e %7.3f %7.3f [%.3f, %.3f]\n",
			       isa, cb_mode[m], cb_stage[s], st[0], st[1], st[2],
			       1e9 / st[0], rt[0], rt[1], rt[2]);
		}
		for (r = 0; r < b->reps; r++)
			v[r] = (CB_T(b, r, m, ST_EXP) + CB_T(b, r, m, ST_Q) +
				CB_T(b, r, m, ST_DQ)) / CB_T(b, r, m, ST_MEMCPY);
		cb_stats(v, b->reps, rt);
		for (r = 0; r < b->reps; r++)
			v[r] = (CB_T(b, r, m, ST_EXP) + CB_T(b, r, m, ST_Q) +
				CB_T(b, r, m, ST_DQ)) * 1e9 / b->n;
		cb_stats(v, b->reps, st);
		printf("%-7s %-6s %-15s %9s %9s %9s %7.3f %7.3f [%.3f, %.3f]\n",
		       isa, cb_mode[m], "exp+q+dq", "-", "-", "-", st[0],
		       rt[0], rt[1], rt[2]);
		cb_total(b, m, ST_EXPQ, ST_QFROM, st, rt);
		printf("%-7s %-6s %-15s %9s %9s %9s %7.3f %7.3f [%.3f, %.3f]\n",
		       isa, cb_mode[m], "fused+q_from+dq", "-", "-", "-", st[0],
		       rt[0], rt[1], rt[2]);
	}
}

static int cb_alloc(struct cb *b)
{
	size_t n = b->n;

	b->nblocks = (b->n + b->block - 1) / b->block;
	b->x = aligned_alloc(64, n * 4);
	b->y = aligned_alloc(64, n * 4);
	b->q = aligned_alloc(64, n * 2);
	b->sum = aligned_alloc(64, n * 4);
	b->codes = aligned_alloc(64, n * 2);
	b->e = malloc(b->nblocks);
	b->t = calloc((size_t)b->reps * M_N * ST_N, sizeof(*b->t));
	if (!b->x || !b->y || !b->q || !b->sum || !b->codes || !b->e || !b->t)
		return -1;
	memset(b->y, 0, n * 4);
	memset(b->q, 0, n * 2);
	memset(b->codes, 0, n * 2);
	cb_fill(b);
	return 0;
}

static void cb_usage(void)
{
	fprintf(stderr, "usage: optinc-codec-bench [-n ELEMS] [-b 8|16] [-B BLOCK] "
		"[-F FRAME] [-r REPS] [-i scalar|portable|sse4.1|avx2|all]\n");
}

int main(int argc, char **argv)
{
	static const char *const isas[] = { "scalar", "portable", "sse4.1", "avx2" };
	struct cb b = { .n = 16u << 20, .block = 256, .bits = 8, .reps = 7 };
	const char *only = "all";
	double load[3] = { 0 };
	unsigned int k;
	int c;

	while ((c = getopt(argc, argv, "n:b:B:F:r:i:h")) != -1) {
		switch (c) {
		case 'n': b.n = (__u32)strtoul(optarg, NULL, 0); break;
		case 'b': b.bits = (__u32)atoi(optarg); break;
		case 'B': b.block = (__u32)atoi(optarg); break;
		case 'F': b.frame = (__u32)atoi(optarg); break;
		case 'r': b.reps = (__u32)atoi(optarg); break;
		case 'i': only = optarg; break;
		default: cb_usage(); return c == 'h' ? 0 : 2;
		}
	}
	if (!b.frame)	/* a frame's values at MTU 9000, as liboptinc cuts them */
		b.frame = b.bits == 8 ? 8704 : 4352;
	if (!b.n || !b.block || (b.bits != 8 && b.bits != 16) || !b.reps ||
	    b.reps > 64 || b.frame % b.block) {
		cb_usage();
		return 2;
	}
	if (cb_alloc(&b)) {
		fprintf(stderr, "codec-bench: no memory for %u elements\n", b.n);
		return 1;
	}
	if (optinc_block_exp(b.x, b.n, b.bits, &b.emax))
		return 1;
	if (getloadavg(load, 3) < 0)
		load[0] = load[1] = load[2] = -1;
	printf("# codec-bench: %u float32, %u bits, block %u, %u reps, one core, "
	       "thread CPU time; load %.2f %.2f %.2f\n", b.n, b.bits, b.block,
	       b.reps, load[0], load[1], load[2]);
	printf("# calls: block = one call per block of %u (as liboptinc), frame = "
	       "the block calls per frame of %u, one = one call for all (one "
	       "exponent);\n"
	       "# x memcpy = time / memcpy of the %u floats in the same "
	       "repetition\n", b.block, b.frame, b.n);
	printf("#isa    calls  stage           el/s(med)       min       max   "
	       "ns/el x memcpy(med) [min, max]\n");
	for (k = 0; k < sizeof(isas) / sizeof(isas[0]); k++) {
		if (strcmp(only, "all") && strcmp(only, isas[k]))
			continue;
		if (optinc_quant_use(isas[k])) {
			printf("# %s: not on this CPU\n", isas[k]);
			continue;
		}
		cb_blocks(&b, ST_EXP);	/* warm up, and the exponents */
		cb_measure(&b);
		cb_report(&b, isas[k]);
		cb_goals(&b, isas[k]);
	}
	return 0;
}
