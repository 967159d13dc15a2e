// SPDX-License-Identifier: GPL-2.0
/* Unit tests: exact average, PAM4 unit P and the truth-table path. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <optinc/core.h>
#include "kselftest_harness.h"

/* Reference: round(sum / n) half to even, through long double. */
static __u32 ref_rhe(__u32 sum, __u32 n)
{
	long double v = (long double)sum / n, f = (__u32)v;

	if (v - f > 0.5L || (v - f == 0.5L && ((__u32)f & 1)))
		f += 1;
	return (__u32)f;
}

TEST(avg_rounds_half_to_even)
{
	__u32 n, s;

	EXPECT_EQ(2, optinc_avg_rhe(9, 4));	/* 2.25 */
	EXPECT_EQ(2, optinc_avg_rhe(10, 4));	/* 2.5 -> 2 */
	EXPECT_EQ(4, optinc_avg_rhe(14, 4));	/* 3.5 -> 4 */
	EXPECT_EQ(3, optinc_avg_rhe(11, 4));	/* 2.75 */
	for (n = 1; n <= 64; n++)
		for (s = 0; s <= 255 * n; s++)
			ASSERT_EQ(ref_rhe(s, n), optinc_avg_rhe(s, n));
}

TEST(pam4_spread_and_index)
{
	__u32 v, lanes, sums[4];

	for (v = 0; v < 256; v++) {
		lanes = optinc_pam4_spread8((__u8)v);
		ASSERT_EQ(v, (lanes & 3) | ((lanes >> 8) & 3) << 2 |
			     ((lanes >> 16) & 3) << 4 | ((lanes >> 24) & 3) << 6);
	}
	/* index and sums are inverse, mixed radix with s_0 least significant */
	lanes = 3 | 7 << 8 | 0 << 16 | 12 << 24;
	v = optinc_pam4_index(lanes, 13, 4);
	EXPECT_EQ(3 + 13 * (7 + 13 * (0 + 13 * 12)), v);
	optinc_pam4_sums(v, 13, 4, sums);
	EXPECT_EQ(3, sums[0]);
	EXPECT_EQ(7, sums[1]);
	EXPECT_EQ(0, sums[2]);
	EXPECT_EQ(12, sums[3]);
}

/* Reduce @n random contributions of @members ranks in kind @k. */
static void reduce(enum optinc_kind k, int members, __u8 *in, __u32 n,
		   const struct optinc_table *t, __u8 *out)
{
	static __u32 acc[4096];
	__u32 esz = k == OPTINC_K_AVG16 || k == OPTINC_K_SUM16 ||
		    k == OPTINC_K_MAX16 ? 2 :
		    k == OPTINC_K_ISUM || k == OPTINC_K_MAX32 ? 4 : 1;
	int r;

	optinc_acc_load(k, acc, in, n);
	for (r = 1; r < members; r++)
		optinc_acc_fold(k, acc, in + (size_t)r * n * esz, n);
	optinc_acc_finish(k, acc, n, (__u16)members, t, out);
}

TEST(avg8_matches_reference_for_every_n)
{
	__u8 in[64 * 512], out[512];
	int members, r;
	__u32 i;

	srand(1);
	for (members = 1; members <= 64; members++) {
		for (i = 0; i < sizeof(in); i++)
			in[i] = (__u8)rand();
		reduce(OPTINC_K_AVG8, members, in, 512, NULL, out);
		for (i = 0; i < 512; i++) {
			__u32 s = 0;

			for (r = 0; r < members; r++)
				s += in[r * 512 + i];
			ASSERT_EQ(ref_rhe(s, members), out[i]);
		}
	}
}

/* The last contribution folded and finished at once: the same bits. */
TEST(fold_finish_equals_fold_then_finish)
{
	static __u32 a[1027], b[1027];
	static __u8 in[64 * 1027], x[4 * 1027], y[4 * 1027];
	enum optinc_kind kinds[] = { OPTINC_K_AVG8, OPTINC_K_SUM8, OPTINC_K_MAX8 };
	__u32 n = 1027, i, len;
	unsigned int k;
	int members, r;

	srand(7);
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		for (members = 2; members <= 64; members++) {
			for (i = 0; i < members * n; i++)
				in[i] = (__u8)(members == 64 ? 255 : rand());
			optinc_acc_load(kinds[k], a, in, n);
			for (r = 1; r < members - 1; r++)
				optinc_acc_fold(kinds[k], a, in + (size_t)r * n, n);
			memcpy(b, a, sizeof(a));
			optinc_acc_fold(kinds[k], a, in + (size_t)r * n, n);
			len = optinc_acc_finish(kinds[k], a, n, (__u16)members,
						NULL, x);
			ASSERT_EQ(len, optinc_acc_fold_finish(kinds[k], b,
					in + (size_t)r * n, n, (__u16)members,
					NULL, y));
			ASSERT_EQ(0, memcmp(x, y, len));
		}
	}
}

TEST(avg16_sum_isum_max)
{
	__u8 in[4 * 4 * 64], out[4 * 64];
	__u32 i;
	int r;

	srand(2);
	for (i = 0; i < sizeof(in); i++)
		in[i] = (__u8)rand();
	reduce(OPTINC_K_AVG16, 3, in, 64, NULL, out);
	for (i = 0; i < 64; i++) {
		__u32 s = 0;

		for (r = 0; r < 3; r++)
			s += (__u32)in[r * 128 + 2 * i] << 8 | in[r * 128 + 2 * i + 1];
		ASSERT_EQ(ref_rhe(s, 3), (__u32)out[2 * i] << 8 | out[2 * i + 1]);
	}
	reduce(OPTINC_K_SUM8, 4, in, 64, NULL, out);
	for (i = 0; i < 64; i++) {
		__s32 s = 0, got;

		for (r = 0; r < 4; r++)
			s += (__s32)in[r * 64 + i] - 128;
		got = (__s32)((__u32)out[4 * i] << 24 | out[4 * i + 1] << 16 |
			      out[4 * i + 2] << 8 | out[4 * i + 3]);
		ASSERT_EQ(s, got);
	}
	reduce(OPTINC_K_ISUM, 4, in, 64, NULL, out);
	for (i = 0; i < 64; i++) {
		__u32 s = 0;

		for (r = 0; r < 4; r++) {
			const __u8 *p = in + r * 256 + 4 * i;

			s += (__u32)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
		}
		ASSERT_EQ(s, (__u32)out[4 * i] << 24 | out[4 * i + 1] << 16 |
			     out[4 * i + 2] << 8 | out[4 * i + 3]);
	}
	reduce(OPTINC_K_MAX8, 4, in, 64, NULL, out);
	for (i = 0; i < 64; i++) {
		__s8 m = -128;

		for (r = 0; r < 4; r++)
			m = (__s8)in[r * 64 + i] > m ? (__s8)in[r * 64 + i] : m;
		ASSERT_EQ(m, (__s8)out[i]);
	}
}

/* Signed big-endian maxima at 16 and 32 bits, extremes included. */
TEST(max16_max32_signed)
{
	__u8 in[8 * 4 * 64], out[4 * 64];
	int r, w;
	__u32 i, n = 64;

	srand(7);
	for (w = 2; w <= 4; w += 2) {
		for (i = 0; i < sizeof(in); i++)
			in[i] = (__u8)rand();
		/* element 0: every rank at the minimum; 1: one at the maximum */
		for (r = 0; r < 8; r++) {
			memset(in + (size_t)r * n * w, 0, w);
			in[(size_t)r * n * w] = 0x80;
			memset(in + (size_t)r * n * w + w, 0x80, 1);
		}
		in[(size_t)3 * n * w + w] = 0x7f;
		memset(in + (size_t)3 * n * w + w + 1, 0xff, w - 1);
		reduce(w == 2 ? OPTINC_K_MAX16 : OPTINC_K_MAX32, 8, in, n,
		       NULL, out);
		EXPECT_EQ(8 * w, optinc_result_bits(w == 2 ? OPTINC_K_MAX16 :
						       OPTINC_K_MAX32));
		for (i = 0; i < n; i++) {
			__s64 m = INT64_MIN, v, got = 0;
			int b;

			for (r = 0; r < 8; r++) {
				const __u8 *p = in + ((size_t)r * n + i) * w;

				v = (__s8)p[0];
				for (b = 1; b < w; b++)
					v = v * 256 + p[b];
				m = v > m ? v : m;
			}
			got = (__s8)out[i * w];
			for (b = 1; b < w; b++)
				got = got * 256 + out[i * w + b];
			ASSERT_EQ(m, got);
		}
	}
}

/* A one-level table's N, radix and entries for @members. */
static void table_shape(struct optinc_table *t, int members)
{
	t->members = (__u16)members;
	t->radix = (__u16)(3 * members + 1);
	t->entries = t->radix * t->radix * t->radix * t->radix;
}

TEST(onn_with_exact_table_equals_exact_mode)
{
	static __u8 tab[49 * 49 * 49 * 49];
	__u8 in[16 * 1000], exact[1000], onn[1000];
	struct optinc_table t = { .bits = 8, .out = tab };
	int members;
	__u32 i;

	srand(3);
	for (members = 1; members <= 16; members++) {
		table_shape(&t, members);
		optinc_table_fill_exact(tab, (__u16)members, 8);
		for (i = 0; i < sizeof(in); i++)
			in[i] = (__u8)rand();
		reduce(OPTINC_K_AVG8, members, in, 1000, NULL, exact);
		reduce(OPTINC_K_ONN8, members, in, 1000, &t, onn);
		ASSERT_EQ(0, memcmp(exact, onn, sizeof(exact)));
	}
}

/* Element @i's sum over @members rows of @n values. */
static __u32 col_sum(const __u8 *in, int members, __u32 n, __u32 i)
{
	__u32 sum = 0;
	int r;

	for (r = 0; r < members; r++)
		sum += in[(size_t)r * n + i];
	return sum;
}

/* The index of @sum whose symbol sums are the most that fit, top down. */
static __u32 greedy_idx(__u32 sum, int members)
{
	__u32 radix = 3u * members + 1, idx = 0, d;
	int k;

	for (k = 3; k >= 0; k--) {
		d = sum >> (2 * k);
		d = d < 3u * members ? d : 3u * members;
		sum -= d << (2 * k);
		idx = idx * radix + d;
	}
	return idx;
}

/* The plain sum of the symbol sums of table index @idx. */
static __u32 idx_sum(__u32 idx, __u32 radix)
{
	__u32 s[4];

	optinc_pam4_sums(idx, radix, 4, s);
	return s[0] + 4 * s[1] + 16 * s[2] + 64 * s[3];
}

/*
 * A table whose outputs depend on the sum alone (random ones, not only
 * the exact average) has a by-sum form, and ONNS8 (the values summed,
 * then that form) gives ONN8's bits (symbol planes, the full table), in
 * two passes and folded; one entry off and it has none. A slot opened by
 * sum whose table lost the form answers by one index of that sum.
 */
TEST(onn_by_sum_equals_planes)
{
	static __u8 tab[49 * 49 * 49 * 49], g[255 * 16 + 1], lut[255 * 16 + 1];
	__u8 in[16 * 1000], planes[1000], sums[1000], folded[1000];
	static __u32 acc[1000];
	struct optinc_table t = { .bits = 8, .out = tab };
	int members, r;
	__u32 i, idx;

	srand(5);
	for (members = 1; members <= 16; members++) {
		table_shape(&t, members);
		for (i = 0; i < OPTINC_TABLE_BY_SUM_LEN(members); i++)
			g[i] = (__u8)rand();
		for (i = 0; i < t.entries; i++)
			tab[i] = g[idx_sum(i, t.radix)];
		ASSERT_EQ(0, optinc_table_by_sum(&t, lut));
		ASSERT_TRUE(t.by_sum == lut);
		ASSERT_EQ(0, memcmp(g, lut, OPTINC_TABLE_BY_SUM_LEN(members)));
		for (i = 0; i < sizeof(in); i++)
			in[i] = (__u8)rand();
		for (r = 0; r < members; r++) {
			in[(size_t)r * 1000] = r ? 0 : 4;	/* sum 4 */
			in[(size_t)r * 1000 + 10] = 0xff;	/* 255 N */
		}
		reduce(OPTINC_K_ONN8, members, in, 1000, &t, planes);
		reduce(OPTINC_K_ONNS8, members, in, 1000, &t, sums);
		ASSERT_EQ(0, memcmp(planes, sums, sizeof(sums)));
		ASSERT_EQ(g[255 * members], sums[10]);
		optinc_acc_load(OPTINC_K_ONNS8, acc, in, 1000);
		for (r = 1; r < members - 1; r++)
			optinc_acc_fold(OPTINC_K_ONNS8, acc, in + (size_t)r * 1000,
					1000);
		if (members > 1) {
			ASSERT_EQ(1000, optinc_acc_fold_finish(OPTINC_K_ONNS8,
					acc, in + (size_t)r * 1000, 1000,
					(__u16)members, &t, folded));
		} else {
			optinc_acc_finish(OPTINC_K_ONNS8, acc, 1000, 1, &t,
					  folded);
		}
		ASSERT_EQ(0, memcmp(planes, folded, sizeof(folded)));
		/*
		 * the entry of element 0's sum 4 at its greedy index (s_1 = 1)
		 * off: the other index of 4 (s_0 = 4) disagrees, so there is
		 * no by-sum form and t.by_sum is cleared (N = 1 has one index
		 * per sum: still one); a slot by sum still answers, by that
		 * index: element 0 sees the change
		 */
		idx = greedy_idx(4, members);
		tab[idx] ^= 1;
		if (members == 1)
			continue;
		ASSERT_EQ(-ENOENT, optinc_table_by_sum(&t, lut));
		ASSERT_TRUE(t.by_sum == NULL);
		reduce(OPTINC_K_ONNS8, members, in, 1000, &t, sums);
		for (i = 0; i < 1000; i++)
			ASSERT_EQ(tab[greedy_idx(col_sum(in, members, 1000, i),
						 members)], sums[i]);
		ASSERT_EQ(planes[0] ^ 1, sums[0]);
		tab[idx] ^= 1;
	}
	/* a cascade table has none */
	t.fanin = 2;
	EXPECT_EQ(-ENOENT, optinc_table_by_sum(&t, lut));
	EXPECT_TRUE(t.by_sum == NULL);
}

/* Column @i of @members rows of @n values set to sum to @sum. */
static void col_set(__u8 *in, int members, __u32 n, __u32 i, __u32 sum)
{
	__u32 v;
	int r;

	for (r = 0; r < members; r++) {
		v = sum < 255 ? sum : 255;
		in[(size_t)r * n + i] = (__u8)v;
		sum -= v;
	}
}

/*
 * A by-sum table within OPTINC_TABLE_PATCH_MAX sums of the exact average
 * is kept as that average and its patches (sums ascending), and a slot by
 * sum then gives every element its sum's entry, patched sums included, in
 * two passes and folded; one patch more and it looks up, with the same
 * bits.
 */
TEST(onn_near_exact_by_patches)
{
	static __u8 tab[49 * 49 * 49 * 49], g[255 * 16 + 1], lut[255 * 16 + 1];
	static const int ks[] = { 0, 1, 3, OPTINC_TABLE_PATCH_MAX,
				  OPTINC_TABLE_PATCH_MAX + 1 };
	__u8 in[16 * 1000], planes[1000], sums[1000], folded[1000];
	__u32 i, s, len, prev;
	static __u32 acc[1000];
	struct optinc_table t = { .bits = 8, .out = tab };
	int members, r, j, e;

	srand(7);
	for (members = 1; members <= 16; members++) {
		table_shape(&t, members);
		len = OPTINC_TABLE_BY_SUM_LEN(members);
		for (j = 0; j < (int)(sizeof(ks) / sizeof(ks[0])); j++) {
			__u32 off[OPTINC_TABLE_PATCH_MAX + 1];

			for (s = 0; s < len; s++)
				g[s] = (__u8)optinc_avg_rhe(s, members);
			for (e = 0; e < ks[j]; e++) {	/* k distinct sums off */
				do
					off[e] = (__u32)rand() % len;
				while (g[off[e]] != optinc_avg_rhe(off[e],
								   members));
				g[off[e]] ^= (__u8)(1 + rand() % 255);
			}
			for (i = 0; i < t.entries; i++)
				tab[i] = g[idx_sum(i, t.radix)];
			ASSERT_EQ(0, optinc_table_by_sum(&t, lut));
			ASSERT_EQ(ks[j] <= OPTINC_TABLE_PATCH_MAX, t.by_avg);
			if (t.by_avg) {
				ASSERT_EQ(ks[j], t.patches);
				for (e = 0, prev = 0; e < ks[j]; e++) {
					s = t.patch_sum[e];
					ASSERT_TRUE(!e || s > prev);
					ASSERT_NE(optinc_avg_rhe(s, members),
						  t.patch_out[e]);
					ASSERT_EQ(g[s], t.patch_out[e]);
					prev = s;
				}
			}
			for (i = 0; i < sizeof(in); i++)
				in[i] = (__u8)rand();
			for (e = 0; e < ks[j]; e++)	/* each patch, twice */
				col_set(in, members, 1000, 100 + 2 * e, off[e]);
			for (e = 0; e < ks[j]; e++)
				col_set(in, members, 1000, 501 + 2 * e, off[e]);
			col_set(in, members, 1000, 10, 255u * members);
			col_set(in, members, 1000, 11, 0);
			reduce(OPTINC_K_ONN8, members, in, 1000, &t, planes);
			reduce(OPTINC_K_ONNS8, members, in, 1000, &t, sums);
			optinc_acc_load(OPTINC_K_ONNS8, acc, in, 1000);
			for (r = 1; r < members - 1; r++)
				optinc_acc_fold(OPTINC_K_ONNS8, acc,
						in + (size_t)r * 1000, 1000);
			if (members > 1)
				optinc_acc_fold_finish(OPTINC_K_ONNS8, acc,
						in + (size_t)r * 1000, 1000,
						(__u16)members, &t, folded);
			else
				optinc_acc_finish(OPTINC_K_ONNS8, acc, 1000, 1,
						  &t, folded);
			for (i = 0; i < 1000; i++) {
				s = col_sum(in, members, 1000, i);
				ASSERT_EQ(g[s], planes[i]);
				ASSERT_EQ(g[s], sums[i]);
				ASSERT_EQ(g[s], folded[i]);
			}
		}
	}
}

TEST(onn_wrong_entry_shows_where_it_is)
{
	static __u8 tab[13 * 13 * 13 * 13];
	struct optinc_table t = { .members = 4, .bits = 8, .radix = 13,
				  .entries = 13 * 13 * 13 * 13, .out = tab };
	__u8 in[4] = { 0x1b, 0x1b, 0x1b, 0x1b }, out[1];
	__u32 idx;

	optinc_table_fill_exact(tab, 4, 8);
	/* all four send 0x1b: s = (3*4, 2*4, 1*4, 0), average 0x1b */
	idx = optinc_pam4_index(12 | 8 << 8 | 4 << 16, 13, 4);
	EXPECT_EQ(0x1b, tab[idx]);
	tab[idx] = 0x1b + 4;
	reduce(OPTINC_K_ONN8, 4, in, 1, &t, out);
	EXPECT_EQ(0x1b + 4, out[0]);
}

/* P's sums of element i of @in (@members rows of @n values), via the spread. */
static __u32 ref_lanes(const __u8 *in, int members, __u32 n, __u32 i)
{
	__u32 lanes = 0;
	int r;

	for (r = 0; r < members; r++)
		lanes += optinc_pam4_spread8(in[(size_t)r * n + i]);
	return lanes;
}

TEST(pam4_planes_hold_the_symbol_sums)
{
	static __u8 in[64 * 77], planes[4 * 77];
	__u32 n, i, k, lanes;
	int members, r;

	srand(5);
	for (members = 1; members <= 64; members += 9) {
		for (n = 1; n <= 77; n += 4) {
			for (i = 0; i < (__u32)members * n; i++)
				in[i] = members == 64 ? 0xff : (__u8)rand();
			optinc_pam4_planes_load(planes, in, n);
			for (r = 1; r < members; r++)
				optinc_pam4_planes_fold(planes, in + (size_t)r * n, n);
			for (i = 0; i < n; i++) {
				lanes = ref_lanes(in, members, n, i);
				for (k = 0; k < 4; k++)
					ASSERT_EQ((lanes >> (8 * k)) & 0xff,
						  planes[k * n + i]);
			}
		}
	}
}

TEST(table_lookup_reads_the_entry_of_each_index)
{
	static __u8 tab[49 * 49 * 49 * 49], in[16 * 200], planes[4 * 200];
	__u8 out[200];
	struct optinc_table t = { .bits = 8, .out = tab };
	__u32 i, n, idx;
	int members, r;

	srand(6);
	for (i = 0; i < sizeof(tab); i++)
		tab[i] = (__u8)(i * 2654435761u >> 24);
	for (members = 2; members <= 16; members *= 2) {
		table_shape(&t, members);
		for (n = 1; n <= 200; n += 13) {
			for (i = 0; i < (__u32)members * n; i++)
				in[i] = (__u8)rand();
			optinc_pam4_planes_load(planes, in, n);
			for (r = 1; r < members; r++)
				optinc_pam4_planes_fold(planes, in + (size_t)r * n, n);
			memset(out, 0, sizeof(out));
			optinc_table_lookup(&t, planes, n, out);
			for (i = 0; i < n; i++) {
				idx = optinc_pam4_index(ref_lanes(in, members, n, i),
							t.radix, 4);
				ASSERT_LT(idx, t.entries);
				ASSERT_EQ(tab[idx], out[i]);
			}
		}
	}
}

/* A nonzero byte per index: a look-up at a wrong index reads another. */
static __u8 idx_hash(__u32 idx)
{
	return (__u8)((idx * 2654435761u >> 24) | 1);
}

/*
 * Every N in 1..64, the table's whole index range (up to 193^4 entries,
 * so the table is reserved, not filled: only the entries the elements use
 * are written, the rest read 0), lengths around the look-up's rounds of
 * 64 and 256 and its steps of 8: optinc_table_lookup() and the fused
 * optinc_table_fold_lookup() (also through optinc_acc_fold_finish())
 * against optinc_pam4_index() of the spread reference.
 */
TEST(table_paths_match_the_scalar_reference_for_every_n)
{
	static __u8 in[64 * 600], planes[4 * 600], before[4 * 600];
	static __u8 want[600], out[600];
	static const __u32 lens[] = { 1, 7, 8, 9, 63, 64, 65, 255, 256, 257,
				      511, 513, 600 };
	struct optinc_table t = { .bits = 8 };
	__u32 i, n, l, idx;
	size_t size;
	int members, r;

	srand(8);
	for (members = 1; members <= 64; members++) {
		table_shape(&t, members);
		size = t.entries;
		t.out = mmap(NULL, size, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		ASSERT_NE(MAP_FAILED, t.out);
		for (l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			n = lens[l];
			for (i = 0; i < (__u32)members * n; i++)
				in[i] = (__u8)rand();
			/* the corners of the index range: all 0, all 255 */
			for (r = 0; r < members; r++) {
				in[(size_t)r * n] = 0;
				in[(size_t)r * n + n - 1] = 0xff;
			}
			for (i = 0; i < n; i++) {
				idx = optinc_pam4_index(ref_lanes(in, members, n, i),
							t.radix, 4);
				ASSERT_LT(idx, t.entries);
				((__u8 *)t.out)[idx] = idx_hash(idx);
				want[i] = idx_hash(idx);
			}
			memset(planes, 0, 4 * n);
			for (r = 0; r < members - 1; r++)
				optinc_pam4_planes_fold(planes, in + (size_t)r * n, n);
			memcpy(before, planes, 4 * n);
			memset(out, 0, n);
			optinc_table_fold_lookup(&t, planes, in + (size_t)r * n,
						 n, out);
			ASSERT_EQ(0, memcmp(want, out, n));
			ASSERT_EQ(0, memcmp(before, planes, 4 * n));
			memset(out, 0, n);
			ASSERT_EQ(n, optinc_acc_fold_finish(OPTINC_K_ONN8,
					(__u32 *)planes, in + (size_t)r * n, n,
					(__u16)members, &t, out));
			ASSERT_EQ(0, memcmp(want, out, n));
			optinc_pam4_planes_fold(planes, in + (size_t)r * n, n);
			memset(out, 0, n);
			optinc_table_lookup(&t, planes, n, out);
			ASSERT_EQ(0, memcmp(want, out, n));
		}
		munmap((void *)t.out, size);
	}
}

TEST_HARNESS_MAIN
