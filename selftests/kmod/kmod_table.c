// SPDX-License-Identifier: GPL-2.0
/*
 * kmod_table: write a truth-table file (the format optincd and optinc.ko
 * load) of a perfect ONN for N members, made by the core's
 * optinc_table_fill_exact(), with chosen entries made wrong (+1):
 *   kmod_table FILE N [IDX]...     the table
 *   kmod_table -i N S0 S1 S2 S3    the index of P's symbol sums S0..S3
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>
#include <stdint.h>
#include <optinc/core.h>

static int table_write(const char *path, unsigned int n, int nwrong,
		       char **wrong)
{
	struct optinc_table_file_hdr h = { .version = htole16(OPTINC_TABLE_VERSION) };
	uint32_t radix = 3 * n + 1, entries = radix * radix * radix * radix;
	uint8_t *out = malloc(entries);
	FILE *f;
	int i;

	if (!out)
		return 1;
	optinc_table_fill_exact(out, (uint16_t)n, 8);
	for (i = 0; i < nwrong; i++) {
		unsigned long idx = strtoul(wrong[i], NULL, 0);

		if (idx >= entries) {
			fprintf(stderr, "kmod_table: index %lu >= %u\n", idx, entries);
			return 1;
		}
		out[idx]++;
	}
	memcpy(h.magic, OPTINC_TABLE_MAGIC, 8);
	h.members = htole16(n);
	h.bits = htole16(8);
	h.radix = htole16(radix);
	h.entries = htole32(entries);
	h.wrong = htole32(nwrong);
	f = fopen(path, "wb");
	if (!f || fwrite(&h, sizeof(h), 1, f) != 1 ||
	    fwrite(out, entries, 1, f) != 1 || fclose(f)) {
		perror(path);
		return 1;
	}
	free(out);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int n, k, sums[4];

	if (argc == 7 && !strcmp(argv[1], "-i")) {
		n = atoi(argv[2]);
		for (k = 0; k < 4; k++)
			sums[k] = atoi(argv[3 + k]);
		printf("%u\n", optinc_pam4_index(sums[0] | sums[1] << 8 |
						 sums[2] << 16 | sums[3] << 24,
						 3 * n + 1, 4));
		return 0;
	}
	if (argc < 3 || atoi(argv[2]) < 1 || atoi(argv[2]) > 64) {
		fprintf(stderr, "usage: kmod_table FILE N [IDX]... | kmod_table -i N S0 S1 S2 S3\n");
		return 2;
	}
	return table_write(argv[1], atoi(argv[2]), argc - 3, argv + 3);
}
