// SPDX-License-Identifier: GPL-2.0
/*
 * Predicts, element by element, what an all-reduce of allreduce_check's
 * data gives through an onn job with a given truth table and through an
 * exact job: every rank's inputs are regenerated, quantized with the
 * block exponents the ranks agree on (the maximum), summed by unit P and
 * looked up, all with the core's functions. Compares the predictions with
 * result files that allreduce_check wrote, and counts the elements whose
 * P-unit index hits an entry that differs from the exact average.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <optinc/core.h>
#include <optinc/quant.h>
#include "refdata.h"

struct oc_cfg {
	int size;
	size_t count;
	unsigned int block;
	uint64_t seed;
	const char *table, *onn, *exact;
};

struct oc_state {
	struct optinc_table t;
	void *tbuf;
	__u8 *exact_tab;	/* the exact average of every index */
	float *x;		/* one block of one rank */
	float *onn, *exact;	/* the result files */
};

static void *oc_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	void *buf = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) || !(buf = malloc(n ? n : 1)) ||
	    fread(buf, 1, n, f) != (size_t)n) {
		fprintf(stderr, "onn_check: reading %s: %s\n", path,
			strerror(errno ? errno : EIO));
		free(buf);
		buf = NULL;
	} else {
		*len = (size_t)n;
	}
	if (f)
		fclose(f);
	return buf;
}

static float *oc_result(const char *path, size_t count)
{
	size_t len = 0;
	float *r = oc_read(path, &len);

	if (r && len != count * sizeof(float)) {
		fprintf(stderr, "onn_check: %s: %zu bytes, wanted %zu\n", path,
			len, count * sizeof(float));
		free(r);
		return NULL;
	}
	return r;
}

static int oc_load(const struct oc_cfg *c, struct oc_state *st)
{
	const char *why = NULL;
	size_t len = 0;

	st->tbuf = oc_read(c->table, &len);
	if (!st->tbuf)
		return -EIO;
	if (optinc_table_parse(st->tbuf, len, &st->t, &why) ||
	    st->t.members != c->size) {
		fprintf(stderr, "onn_check: %s: %s\n", c->table,
			why ? why : "not a table for this size");
		return -EINVAL;
	}
	st->exact_tab = malloc(st->t.entries);
	st->x = malloc(c->block * sizeof(float));
	st->onn = oc_result(c->onn, c->count);
	st->exact = oc_result(c->exact, c->count);
	if (!st->exact_tab || !st->x || !st->onn || !st->exact)
		return -ENOMEM;
	optinc_table_fill_exact(st->exact_tab, (__u16)c->size, 8);
	return 0;
}

/* The exponent the ranks agree on for elements [i0, i0 + n). */
static __s8 oc_block_exp(const struct oc_cfg *c, struct oc_state *st,
			 size_t i0, __u32 n)
{
	__s8 e, emax = OPTINC_EXP_MIN;
	size_t i;
	int r;

	for (r = 0; r < c->size; r++) {
		for (i = 0; i < n; i++)
			st->x[i] = refdata_float(c->seed, r, i0 + i);
		if (!optinc_block_exp(st->x, n, 8, &e) && e > emax)
			emax = e;
	}
	return emax;
}

/* P's sums of element i0 + j as a table index, and the sum of the values. */
static __u32 oc_index(const struct oc_cfg *c, struct oc_state *st, size_t i,
		      __s8 e, __u32 *sum)
{
	__u32 lanes = 0;
	float x;
	__u8 q;
	int r;

	*sum = 0;
	for (r = 0; r < c->size; r++) {
		x = refdata_float(c->seed, r, i);
		optinc_quantize(&x, 1, e, 8, &q);
		lanes += optinc_pam4_spread8(q);
		*sum += q;
	}
	return optinc_pam4_index(lanes, st->t.radix, 4);
}

struct oc_counts {
	size_t hit, differ, bad_onn, bad_exact;
	size_t first_hit, first_bad;
};

static void oc_element(const struct oc_cfg *c, struct oc_state *st, size_t i,
		       __s8 e, struct oc_counts *k)
{
	__u32 sum, idx = oc_index(c, st, i, e, &sum);
	__u8 want_onn = st->t.out[idx];
	__u8 want_exact = (__u8)optinc_avg_rhe(sum, c->size);
	float fo, fe;

	optinc_dequantize(&want_onn, 1, e, 8, &fo);
	optinc_dequantize(&want_exact, 1, e, 8, &fe);
	if (want_exact != st->exact_tab[idx])
		k->bad_exact = SIZE_MAX;	/* the core disagrees with itself */
	if (want_onn != want_exact && !k->hit++)
		k->first_hit = i;
	if (memcmp(&st->onn[i], &st->exact[i], sizeof(float)))
		k->differ++;
	if (memcmp(&st->onn[i], &fo, sizeof(float)) && !k->bad_onn++)
		k->first_bad = i;
	if (memcmp(&st->exact[i], &fe, sizeof(float)) && k->bad_exact != SIZE_MAX)
		k->bad_exact++;
}

static int oc_run(const struct oc_cfg *c, struct oc_state *st)
{
	struct oc_counts k = { 0 };
	size_t i0, i;
	__u32 n;
	__s8 e;

	for (i0 = 0; i0 < c->count; i0 += c->block) {
		n = (__u32)(c->count - i0 < c->block ? c->count - i0 : c->block);
		e = oc_block_exp(c, st, i0, n);
		for (i = i0; i < i0 + n; i++)
			oc_element(c, st, i, e, &k);
	}
	printf("elements %zu: %zu hit a wrong entry (first at %zu), onn and "
	       "exact results differ at %zu, %zu onn and %zu exact results "
	       "differ from the prediction", c->count, k.hit,
	       k.hit ? k.first_hit : 0, k.differ, k.bad_onn, k.bad_exact);
	if (k.bad_onn)
		printf(" (first onn at %zu)", k.first_bad);
	printf("\n");
	return k.bad_onn || k.bad_exact || k.differ != k.hit ? -EDOM : 0;
}

static int oc_parse(int argc, char **argv, struct oc_cfg *c)
{
	int o;

	while ((o = getopt(argc, argv, "n:c:s:B:T:O:E:")) != -1) {
		switch (o) {
		case 'n': c->size = atoi(optarg); break;
		case 'c': c->count = strtoull(optarg, NULL, 0); break;
		case 's': c->seed = strtoull(optarg, NULL, 0); break;
		case 'B': c->block = (unsigned int)atoi(optarg); break;
		case 'T': c->table = optarg; break;
		case 'O': c->onn = optarg; break;
		case 'E': c->exact = optarg; break;
		default: return -EINVAL;
		}
	}
	return c->size < 1 || c->size > 16 || !c->count || !c->block ||
	       !c->table || !c->onn || !c->exact ? -EINVAL : 0;
}

int main(int argc, char **argv)
{
	struct oc_cfg c = { .block = 256, .seed = 1 };
	struct oc_state st = { 0 };
	int err;

	if (oc_parse(argc, argv, &c)) {
		fprintf(stderr, "usage: onn_check -n N -c COUNT -s SEED [-B BLOCK] "
			"-T TABLE -O ONN_RESULT -E EXACT_RESULT\n");
		return 2;
	}
	err = oc_load(&c, &st) ?: oc_run(&c, &st);
	free(st.tbuf);
	free(st.exact_tab);
	free(st.x);
	free(st.onn);
	free(st.exact);
	printf("%s\n", err ? "FAIL" : "PASS");
	return err ? 1 : 0;
}
