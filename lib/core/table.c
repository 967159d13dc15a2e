// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/* Truth-table files of an ONN (format in Documentation/onn.md). */
#include <optinc/core.h>
#include "compat.h"

static __u32 table_entries(__u32 radix, unsigned int symbols)
{
	__u32 e = 1;

	while (symbols--)
		e *= radix;
	return e;
}

/*
 * What a version says about the input: version 1, the one-level P unit
 * (B/2 digits, N up to 64); version 2, a cascade's second level (B/2 + 1
 * digits: rsvd[0] = 5, rsvd[1] = the fan-in N1 below each member, 2..4 so
 * that R_j is one base-4 digit; N up to OPTINC_CASCADE_MAX_MEMBERS).
 */
static int table_version(const struct optinc_table_file_hdr *h,
			 struct optinc_table *t, __u32 *max_members,
			 const char **why)
{
	__u32 digits = oi_le32(h->rsvd[0]), fanin = oi_le32(h->rsvd[1]);

	t->digits = 0;
	t->fanin = 0;
	*max_members = OPTINC_MAX_MEMBERS;
	if (oi_le16(h->version) == OPTINC_TABLE_VERSION)
		return 0;
	*why = "unsupported table version (this build reads versions 1 and 2)";
	if (oi_le16(h->version) != OPTINC_TABLE_VERSION_CASCADE)
		return -EINVAL;
	*why = "unsupported table version: version 2 is a cascade table, with 5 input digits and a fan-in of 2..4";
	if (digits != OPTINC_CASCADE_DIGITS || fanin < 2 || fanin > 4)
		return -EINVAL;
	t->digits = (__u8)digits;
	t->fanin = (__u16)fanin;
	*max_members = OPTINC_CASCADE_MAX_MEMBERS;
	return 0;
}

/**
 * optinc_table_parse() - check a truth-table file held in memory
 * @buf: the whole file
 * @len: its size
 * @t:   the table; t->out points into @buf
 * @why: set to what is wrong when the file is refused
 *
 * Only B = 8 tables exist: B = 16 would need radix^8 entries. Version 2
 * files are a cascade's second-level tables (t->fanin set).
 *
 * Return: 0, or -EINVAL with @why set.
 */
int optinc_table_parse(const void *buf, __u64 len, struct optinc_table *t,
		       const char **why)
{
	const struct optinc_table_file_hdr *h = buf;
	__u32 members, radix, entries, max_members;

	*why = "file shorter than the 64-byte table header";
	if (len < OPTINC_TABLE_HDR_LEN)
		return -EINVAL;
	*why = "not a truth-table file (bad magic)";
	if (memcmp(h->magic, OPTINC_TABLE_MAGIC, 8))
		return -EINVAL;
	if (table_version(h, t, &max_members, why))
		return -EINVAL;
	*why = "bits per value is not 8 (only B = 8 tables are supported)";
	if (oi_le16(h->bits) != 8)
		return -EINVAL;
	members = oi_le16(h->members);
	radix = oi_le16(h->radix);
	entries = oi_le32(h->entries);
	*why = t->fanin ? "cascade table: members out of range (1..21)" :
			  "members out of range (1..64)";
	if (members < 1 || members > max_members)
		return -EINVAL;
	*why = "radix is not 3 * members + 1";
	if (radix != 3 * members + 1)
		return -EINVAL;
	*why = t->fanin ? "entry count is not radix^5" :
			  "entry count is not radix^4";
	if (entries != table_entries(radix, t->fanin ? OPTINC_CASCADE_DIGITS : 4))
		return -EINVAL;
	*why = "file truncated: fewer entries than the header says";
	if (len < OPTINC_TABLE_HDR_LEN + (__u64)entries)
		return -EINVAL;
	*why = "trailing bytes after the last entry";
	if (len > OPTINC_TABLE_HDR_LEN + (__u64)entries)
		return -EINVAL;
	*why = NULL;
	t->members = (__u16)members;
	t->bits = 8;
	t->radix = (__u16)radix;
	t->entries = entries;
	t->out = (const __u8 *)buf + OPTINC_TABLE_HDR_LEN;
	t->by_sum = NULL;	/* the datapath's optinc_table_by_sum() */
	t->by_avg = 0;
	return 0;
}

/*
 * The table of a perfect ONN: every index maps to the exact average. Used
 * as the reference by the ONN tools and the tests.
 */
void optinc_table_fill_exact(__u8 *out, __u16 members, __u8 bits)
{
	__u32 radix = 3u * members + 1, symbols = bits / 2u, i;
	__u32 n = table_entries(radix, symbols);

	for (i = 0; i < n; i++)
		out[i] = (__u8)optinc_avg_rhe(optinc_pam4_plain_sum(i, radix,
								    symbols),
					      members);
}

/*
 * Elements indexed per round of the look-up. The index is computed in
 * vector registers and stored; the look-up loop then reads it back 8 bytes
 * at a time. At 64 a round (256 bytes) those loads came right after the
 * wide stores they read (which, the timings suggest, the CPU does not
 * forward to narrower loads): 256 cut the look-up's cycles per element by
 * about a sixth (optinc-core-bench --stages). The kernel's stack is small,
 * and its build has no vector registers here anyway.
 */
#ifdef __KERNEL__
#define TABLE_CHUNK	64
#else
#define TABLE_CHUNK	256
#endif

/*
 * The mixed-radix index of elements [i, i + m): s_0 + R s_1 and s_2 + R s_3
 * fit 16 bits (at most 192 + 193 * 192), so only the last step is 32-bit.
 * Pointers, not i + j, index the planes: so that the compiler sees affine
 * accesses and vectorizes.
 */
static inline void table_index(const __u8 *planes, __u32 n, __u32 i, __u32 m,
			       __u32 r, __u32 *idx)
{
	const __u8 *p0 = planes + i, *p1 = p0 + n, *p2 = p1 + n, *p3 = p2 + n;
	__u32 j, r2 = r * r;

	for (j = 0; j < m; j++) {
		__u16 lo = (__u16)(p0[j] + r * p1[j]);
		__u16 hi = (__u16)(p2[j] + r * p3[j]);

		idx[j] = lo + r2 * hi;
	}
}

/*
 * The same with one more contribution @src added to the sums on the way
 * (unit P of the last member fused with the index): the planes are read,
 * not written back.
 */
static inline void table_index_fold(const __u8 *planes, const __u8 *src,
				    __u32 n, __u32 i, __u32 m, __u32 r,
				    __u32 *idx)
{
	const __u8 *p0 = planes + i, *p1 = p0 + n, *p2 = p1 + n, *p3 = p2 + n;
	const __u8 *v = src + i;
	__u32 j, r2 = r * r;

	for (j = 0; j < m; j++) {
		__u8 s0 = (__u8)(p0[j] + (v[j] & 3));
		__u8 s1 = (__u8)(p1[j] + ((v[j] >> 2) & 3));
		__u8 s2 = (__u8)(p2[j] + ((v[j] >> 4) & 3));
		__u8 s3 = (__u8)(p3[j] + (v[j] >> 6));
		__u16 lo = (__u16)(s0 + r * s1), hi = (__u16)(s2 + r * s3);

		idx[j] = lo + r2 * hi;
	}
}

/*
 * dst[j] = out[idx[j]], eight at a time: two indices per 8-byte load and
 * one 8-byte store, since the loop is bound by the instructions it issues
 * (0.50 cycles per element here, against 0.57 with a load per index and
 * 0.68 with a store per byte; one byte load per element alone takes
 * 0.16-0.23, the --stages floor).
 */
static inline void table_gather(const __u8 *out, const __u32 *idx, __u32 m,
				__u8 *dst)
{
	__u32 j;
	__u64 a, b, c, d, v;

	for (j = 0; j + 8 <= m; j += 8) {
		memcpy(&a, idx + j, 8);
		memcpy(&b, idx + j + 2, 8);
		memcpy(&c, idx + j + 4, 8);
		memcpy(&d, idx + j + 6, 8);
		v = (__u64)out[(__u32)a] | (__u64)out[a >> 32] << 8 |
		    (__u64)out[(__u32)b] << 16 | (__u64)out[b >> 32] << 24 |
		    (__u64)out[(__u32)c] << 32 | (__u64)out[c >> 32] << 40 |
		    (__u64)out[(__u32)d] << 48 | (__u64)out[d >> 32] << 56;
		v = oi_le64(v);
		memcpy(dst + j, &v, 8);
	}
	for (; j < m; j++)
		dst[j] = out[idx[j]];
}

/**
 * optinc_table_lookup() - f_theta by table: the outputs of P's sums
 * @t:      the truth table; @t->members contributions are in @planes
 * @planes: P's sums as optinc_pam4_planes_load() leaves them
 * @n:      elements
 * @dst:    @n output values
 */
OI_SIMD_CLONES
void optinc_table_lookup(const struct optinc_table *t, const __u8 *planes,
			 __u32 n, __u8 *dst)
{
	__u32 idx[TABLE_CHUNK], i, m;

	for (i = 0; i < n; i += m) {
		m = n - i < TABLE_CHUNK ? n - i : TABLE_CHUNK;
		table_index(planes, n, i, m, t->radix, idx);
		table_gather(t->out, idx, m, dst + i);
	}
}

/**
 * optinc_table_fold_lookup() - the last contribution, unit P and f_theta
 * @t:      the truth table; @t->members contributions in all
 * @planes: P's sums of the others (optinc_pam4_planes_load() and _fold())
 * @src:    the last contribution's @n 8-bit values
 * @n:      elements
 * @dst:    @n output values
 *
 * The bits of optinc_pam4_planes_fold() then optinc_table_lookup(), in one
 * pass that only reads the planes (they then leave out @src).
 */
OI_SIMD_CLONES
void optinc_table_fold_lookup(const struct optinc_table *t, const __u8 *planes,
			      const __u8 *src, __u32 n, __u8 *dst)
{
	__u32 idx[TABLE_CHUNK], i, m;

	for (i = 0; i < n; i += m) {
		m = n - i < TABLE_CHUNK ? n - i : TABLE_CHUNK;
		table_index_fold(planes, src, n, i, m, t->radix, idx);
		table_gather(t->out, idx, m, dst + i);
	}
}

/*
 * The index of sum @s as symbol sums, each the most that fits (3N) from
 * the top symbol down: every s <= 255 N has one, as 255 N is 3N * 85.
 */
static __u32 table_sum_index(__u32 s, __u32 members, __u32 radix)
{
	__u32 idx = 0, max = 3 * members, w, d;
	int k;

	for (k = 3; k >= 0; k--) {
		w = 1u << (2 * k);
		d = s / w < max ? s / w : max;
		s -= d * w;
		idx = idx * radix + d;
	}
	return idx;
}

/*
 * Where @lut differs from the exact average of its sum, if at no more than
 * OPTINC_TABLE_PATCH_MAX sums: t->by_avg, and those sums' outputs.
 */
static void table_by_avg(struct optinc_table *t, const __u8 *lut)
{
	__u32 s, k = 0;

	for (s = 0; s < OPTINC_TABLE_BY_SUM_LEN(t->members); s++) {
		if (lut[s] == optinc_avg_rhe(s, t->members))
			continue;
		if (k == OPTINC_TABLE_PATCH_MAX)
			return;
		t->patch_sum[k] = (__u16)s;
		t->patch_out[k++] = lut[s];
	}
	t->patches = (__u8)k;
	t->by_avg = 1;
}

/**
 * optinc_table_by_sum() - the table's by-sum form, where it has one
 * @t:   a one-level table (optinc_table_parse())
 * @buf: OPTINC_TABLE_BY_SUM_LEN(@t->members) bytes, the datapath's
 *
 * A table whose output depends on P's four sums only through S = s_0 +
 * 4 s_1 + 16 s_2 + 64 s_3, the plain sum of the members' values (a
 * perfect ONN's does, and so do the shipped ones), can be looked up by
 * that sum: the slot then adds the values as the exact average does, with
 * no symbol planes and no mixed-radix index, for the same bits
 * (optinc_table_sum_lookup()). Reads every entry once. A form within
 * OPTINC_TABLE_PATCH_MAX sums of the exact average is also kept as its
 * patches on that average (struct optinc_table, by_avg), which the slot
 * then computes instead of looking up (optinc_acc_finish()).
 *
 * Return: 0 with @t->by_sum set to @buf; -ENOENT, @t->by_sum NULL, when
 * two indices of one S have different outputs, or for a cascade table.
 */
int optinc_table_by_sum(struct optinc_table *t, __u8 *buf)
{
	__u32 r = t->radix, s, i = 0, s0, s1, s2, s3;
	const __u8 *out = t->out;

	t->by_sum = NULL;
	t->by_avg = 0;
	if (t->fanin)
		return -ENOENT;
	for (s = 0; s < OPTINC_TABLE_BY_SUM_LEN(t->members); s++)
		buf[s] = out[table_sum_index(s, t->members, r)];
	/* index order: s_0 fastest (onn.md section 4) */
	for (s3 = 0; s3 < r; s3++)
		for (s2 = 0; s2 < r; s2++)
			for (s1 = 0; s1 < r; s1++)
				for (s0 = 0; s0 < r; s0++, i++)
					if (out[i] != buf[s0 + 4 * s1 +
							  16 * s2 + 64 * s3])
						return -ENOENT;
	t->by_sum = buf;
	table_by_avg(t, buf);
	return 0;
}

/*
 * Eight elements a step: the eight values from one 64-bit load, the eight
 * outputs stored as one 64-bit word (as table_gather()). Return: the
 * elements done.
 */
static __u32 sum_lookup8(const __u8 *lut, const __u16 *acc, const __u8 *src,
			 __u32 n, __u8 *dst)
{
	const __u16 *a;
	__u64 v, o;
	__u32 i;

	for (i = 0; i + 8 <= n; i += 8) {
		a = acc + i;
		memcpy(&v, src + i, 8);
		v = oi_le64(v);
		o = (__u64)lut[a[0] + (v & 0xff)] |
		    (__u64)lut[a[1] + (v >> 8 & 0xff)] << 8 |
		    (__u64)lut[a[2] + (v >> 16 & 0xff)] << 16 |
		    (__u64)lut[a[3] + (v >> 24 & 0xff)] << 24 |
		    (__u64)lut[a[4] + (v >> 32 & 0xff)] << 32 |
		    (__u64)lut[a[5] + (v >> 40 & 0xff)] << 40 |
		    (__u64)lut[a[6] + (v >> 48 & 0xff)] << 48 |
		    (__u64)lut[a[7] + (v >> 56)] << 56;
		o = oi_le64(o);
		memcpy(dst + i, &o, 8);
	}
	return i;
}

/**
 * optinc_table_sum_lookup() - f_theta by the plain sum (OPTINC_K_ONNS8)
 * @t:   the job's table
 * @acc: the sums of the members' values (16-bit, as the exact average's)
 * @src: the last contribution's values, added on the way; NULL: none
 * @n:   elements
 * @dst: @n output values
 *
 * A table put in while the slot was open may have no by-sum form: its
 * entry at the sum's index of table_sum_index() answers then (one of the
 * indices of that sum; the slot kept no symbol sums).
 */
void optinc_table_sum_lookup(const struct optinc_table *t, const __u16 *acc,
			     const __u8 *src, __u32 n, __u8 *dst)
{
	const __u8 *lut = t->by_sum;
	__u32 i;

	if (!lut) {
		for (i = 0; i < n; i++)
			dst[i] = t->out[table_sum_index(acc[i] +
					 (src ? src[i] : 0), t->members, t->radix)];
		return;
	}
	i = 0;
	if (src)
		i = sum_lookup8(lut, acc, src, n, dst);
	for (; i < n; i++)
		dst[i] = lut[acc[i] + (src ? src[i] : 0)];
}
