// SPDX-License-Identifier: GPL-2.0
/* Unit tests: truth-table files are checked before use. */
#include <stdlib.h>
#include <string.h>
#include <optinc/core.h>
#include "kselftest_harness.h"

static __u8 *make_table(__u16 members, __u64 *len)
{
	__u32 radix = 3u * members + 1, entries = radix * radix * radix * radix;
	struct optinc_table_file_hdr *h;
	__u8 *buf;

	*len = OPTINC_TABLE_HDR_LEN + entries;
	buf = calloc(1, *len);
	h = (struct optinc_table_file_hdr *)buf;
	memcpy(h->magic, OPTINC_TABLE_MAGIC, 8);
	h->version = OPTINC_TABLE_VERSION;
	h->members = members;
	h->bits = 8;
	h->radix = (__u16)radix;
	h->entries = entries;
	optinc_table_fill_exact(buf + OPTINC_TABLE_HDR_LEN, members, 8);
	return buf;
}

TEST(header_is_64_bytes)
{
	ASSERT_EQ(OPTINC_TABLE_HDR_LEN, sizeof(struct optinc_table_file_hdr));
}

TEST(good_table)
{
	struct optinc_table t;
	const char *why;
	__u64 len;
	__u8 *b = make_table(4, &len);

	ASSERT_EQ(0, optinc_table_parse(b, len, &t, &why));
	EXPECT_EQ(4, t.members);
	EXPECT_EQ(13, t.radix);
	EXPECT_EQ(28561, t.entries);
	EXPECT_EQ(b + 64, t.out);
	free(b);
}

TEST(bad_tables_say_why)
{
	struct optinc_table t;
	const char *why;
	__u64 len;
	__u8 *b = make_table(4, &len);
	struct optinc_table_file_hdr *h = (void *)b;

	EXPECT_EQ(-EINVAL, optinc_table_parse(b, 63, &t, &why));
	EXPECT_NE(NULL, strstr(why, "shorter"));
	EXPECT_EQ(-EINVAL, optinc_table_parse(b, len - 1, &t, &why));
	EXPECT_NE(NULL, strstr(why, "truncated"));
	EXPECT_EQ(-EINVAL, optinc_table_parse(b, len + 1, &t, &why));
	EXPECT_NE(NULL, strstr(why, "trailing"));
	h->version = 2;
	EXPECT_EQ(-EINVAL, optinc_table_parse(b, len, &t, &why));
	EXPECT_NE(NULL, strstr(why, "version"));
	h->version = 1;
	h->bits = 16;
	EXPECT_EQ(-EINVAL, optinc_table_parse(b, len, &t, &why));
	EXPECT_NE(NULL, strstr(why, "bits"));
	h->bits = 8;
	h->members = 5;	/* radix no longer 3N + 1 */
	EXPECT_EQ(-EINVAL, optinc_table_parse(b, len, &t, &why));
	EXPECT_NE(NULL, strstr(why, "radix"));
	h->members = 4;
	h->entries++;
	EXPECT_EQ(-EINVAL, optinc_table_parse(b, len, &t, &why));
	EXPECT_NE(NULL, strstr(why, "entry count"));
	h->entries--;
	h->magic[0] = 'X';
	EXPECT_EQ(-EINVAL, optinc_table_parse(b, len, &t, &why));
	EXPECT_NE(NULL, strstr(why, "magic"));
	free(b);
}

TEST_HARNESS_MAIN
