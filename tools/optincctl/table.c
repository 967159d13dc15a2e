// SPDX-License-Identifier: BSD-3-Clause
/* optincctl table: check a truth-table file as optincd would load it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <optinc/core.h>
#include "optincctl.h"

static int tbl_read(const char *path, void **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;
	int ret = 0;

	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		ret = -errno;
		goto out;
	}
	*len = (size_t)n;
	*buf = malloc(*len ? *len : 1);
	if (!*buf)
		ret = -ENOMEM;
	else if (fread(*buf, 1, *len, f) != *len)
		ret = -EIO;
out:
	fclose(f);
	return ret;
}

static void tbl_print(const char *path, struct optinc_table *t,
		      const struct optinc_table_file_hdr *h)
{
	__u8 *lut = t->fanin ? NULL : malloc(OPTINC_TABLE_BY_SUM_LEN(t->members));
	uint32_t wrong = le32toh(h->wrong);
	char sha[2 * sizeof(h->model_sha256) + 1];
	unsigned int i;

	for (i = 0; i < sizeof(h->model_sha256); i++)
		snprintf(sha + 2 * i, 3, "%02x", h->model_sha256[i]);
	optincctl_print_start(false);
	optincctl_print_str("file", "%s:", path);
	optincctl_print_u64("version", " version %" PRIu64, le16toh(h->version));
	optincctl_print_u64("members", " N %" PRIu64, t->members);
	optincctl_print_u64("bits", " B %" PRIu64, t->bits);
	optincctl_print_u64("radix", " radix %" PRIu64, t->radix);
	optincctl_print_u64("entries", " entries %" PRIu64 "\n", t->entries);
	optincctl_print_u64("wrong", "    wrong %" PRIu64, wrong);
	optincctl_print_double("accuracy", " accuracy %.6f%%",
			       100.0 * (t->entries - wrong) / t->entries);
	optincctl_print_str("model_sha256", " model %s\n", sha);
	/*
	 * the datapaths' checks: whether onn jobs add values, not symbols,
	 * and whether they then compute the exact average and its patches
	 * instead of looking up (onn.md section 6)
	 */
	optincctl_print_str("by_sum", "    by-sum %s",
			    lut && !optinc_table_by_sum(t, lut) ? "yes" : "no");
	optincctl_print_str("by_avg", " by-avg %s",
			    lut && t->by_sum && t->by_avg ? "yes" : "no");
	optincctl_print_u64("patches", " patches %" PRIu64 "\n",
			    lut && t->by_sum && t->by_avg ? t->patches : 0);
	optincctl_print_end();
	free(lut);
}

static int tbl_show(const char *path)
{
	struct optinc_table t;
	const char *why;
	void *buf = NULL;
	size_t len = 0;
	int ret;

	ret = tbl_read(path, &buf, &len);
	if (ret) {
		fprintf(stderr, "optincctl: table '%s': %s\n", path, strerror(-ret));
		free(buf);
		return ret;
	}
	ret = optinc_table_parse(buf, len, &t, &why);
	if (ret)
		fprintf(stderr, "optincctl: table '%s': %s\n", path, why);
	else
		tbl_print(path, &t, buf);
	free(buf);
	return ret;
}

/**
 * optincctl_table() - run "optincctl table show FILE"
 * @argc: words after "table"
 * @argv: them
 *
 * Return: 0 or a negative errno; the error has been printed.
 */
int optincctl_table(int argc, char **argv)
{
	if (argc && optincctl_matches(argv[0], "help")) {
		printf("Usage: optincctl [ -j ] [ -p ] table show FILE\n"
		       "Checks a truth-table file as optincd loads it and prints its header.\n");
		return 0;
	}
	if (!argc || !optincctl_matches(argv[0], "show"))
		return optincctl_unknown(argc ? argv[0] : "", "table");
	if (argc != 2) {
		fprintf(stderr, "optincctl: table show: one FILE, try "
			"\"optincctl table help\".\n");
		return -EINVAL;
	}
	return tbl_show(argv[1]);
}
