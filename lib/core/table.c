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

/**
 * optinc_table_parse() - check a truth-table file held in memory
 * @buf: the whole file
 * @len: its size
 * @t:   the table; t->out points into @buf
 * @why: set to what is wrong when the file is refused
 *
 * Only B = 8 tables exist: B = 16 would need radix^8 entries.
 *
 * Return: 0, or -EINVAL with @why set.
 */
int optinc_table_parse(const void *buf, __u64 len, struct optinc_table *t,
		       const char **why)
{
	const struct optinc_table_file_hdr *h = buf;
	__u32 members, radix, entries;

	*why = "file shorter than the 64-byte table header";
	if (len < OPTINC_TABLE_HDR_LEN)
		return -EINVAL;
	*why = "not a truth-table file (bad magic)";
	if (memcmp(h->magic, OPTINC_TABLE_MAGIC, 8))
		return -EINVAL;
	if (oi_le16(h->version) == OPTINC_TABLE_VERSION_CASCADE)
		return optinc_cascade_table_parse(buf, len, t, why);
	*why = "unsupported table version (this build reads versions 1 and 2)";
	if (oi_le16(h->version) != OPTINC_TABLE_VERSION)
		return -EINVAL;
	*why = "bits per value is not 8 (only B = 8 tables are supported)";
	if (oi_le16(h->bits) != 8)
		return -EINVAL;
	members = oi_le16(h->members);
	radix = oi_le16(h->radix);
	entries = oi_le32(h->entries);
	*why = "members out of range (1..64)";
	if (members < 1 || members > OPTINC_MAX_MEMBERS)
		return -EINVAL;
	*why = "radix is not 3 * members + 1";
	if (radix != 3 * members + 1)
		return -EINVAL;
	*why = "entry count is not radix^4";
	if (entries != table_entries(radix, 4))
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
	return 0;
}

/*
 * The table of a perfect ONN: every index maps to the exact average. Used
 * as the reference by the ONN tools and the tests.
 */
void optinc_table_fill_exact(__u8 *out, __u16 members, __u8 bits)
{
	__u32 radix = 3u * members + 1, symbols = bits / 2u, i, k;
	__u32 n = table_entries(radix, symbols), sums[8];

	for (i = 0; i < n; i++) {
		__u32 total = 0;

		optinc_pam4_sums(i, radix, symbols, sums);
		for (k = symbols; k-- > 0;)
			total = total * 4 + sums[k];
		out[i] = (__u8)optinc_avg_rhe(total, members);
	}
}
