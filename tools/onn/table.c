// SPDX-License-Identifier: BSD-3-Clause
/* Truth-table files: written from an evaluated model, read back checked. */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <optinc/core.h>

#include "onn.h"

static void table_put16(uint8_t *p, unsigned int v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8 & 0xff;
}

static void table_put32(uint8_t *p, uint32_t v)
{
	table_put16(p, v & 0xffff);
	table_put16(p + 2, v >> 16);
}

/**
 * optinc_onn_table_write() - the truth table of an evaluated model
 * @sha256: hash of the model file the table comes from
 * @ev:     the model's outputs over its domain
 *
 * Reports its own errors on stderr.
 *
 * Return: 0 or a negative errno.
 */
int optinc_onn_table_write(const char *path, const struct optinc_onn *m,
			   const uint8_t sha256[32],
			   const struct optinc_onn_eval *ev)
{
	uint8_t h[OPTINC_TABLE_HDR_LEN];
	char tmp[4096];
	FILE *f;
	int err;

	memset(h, 0, sizeof(h));
	memcpy(h, OPTINC_TABLE_MAGIC, 8);
	table_put16(h + 8, OPTINC_TABLE_VERSION);
	table_put16(h + 10, m->members);
	table_put16(h + 12, m->bits);
	table_put16(h + 14, 3 * m->members + 1);
	table_put32(h + 16, ev->entries);
	table_put32(h + 20, ev->wrong);
	memcpy(h + 24, sha256, 32);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "wb");
	err = -errno;
	if (f) {
		err = fwrite(h, 1, sizeof(h), f) == sizeof(h) &&
		      fwrite(ev->out, 1, ev->entries, f) == ev->entries ? 0 : -EIO;
		if (fclose(f) && !err)
			err = -errno;
		if (!err && rename(tmp, path))
			err = -errno;
	}
	if (err)
		fprintf(stderr, "optinc-onn: %s: cannot write: %s\n", path,
			strerror(-err));
	return err;
}

/**
 * optinc_onn_table_load() - read a table file and check it is for N and B
 * @buf:   receives the whole file (free() it); entries at OPTINC_TABLE_HDR_LEN
 * @wrong: receives the header's count of wrong entries
 *
 * Prints "optinc-onn: PATH: problem" on stderr when the file is refused.
 *
 * Return: 0 or a negative errno.
 */
int optinc_onn_table_load(const char *path, unsigned int members,
			  unsigned int bits, uint8_t **buf, uint32_t *wrong)
{
	const struct optinc_table_file_hdr *h;
	struct optinc_table t;
	const char *why;
	size_t len;
	int err;

	err = optinc_onn_read_file(path, buf, &len);
	if (err) {
		fprintf(stderr, "optinc-onn: %s: cannot read: %s\n", path,
			strerror(-err));
		return err;
	}
	err = optinc_table_parse(*buf, len, &t, &why);
	if (err) {
		fprintf(stderr, "optinc-onn: %s: %s\n", path, why);
		free(*buf);
		return err;
	}
	if (t.members != members || t.bits != bits) {
		fprintf(stderr, "optinc-onn: %s: table is for N = %u, B = %u, not N = %u, B = %u\n",
			path, t.members, t.bits, members, bits);
		free(*buf);
		return -EINVAL;
	}
	h = (const void *)*buf;
	*wrong = le32toh(h->wrong);
	return 0;
}
