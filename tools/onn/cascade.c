// SPDX-License-Identifier: BSD-3-Clause
/*
 * The second level of a cascade (Documentation/scale.md 3.4): an ONN over
 * the five digit sums s_0..s_4 of the first levels' partial sums, run as
 * realised over its whole domain ((3N + 1)^5 points), checked against the
 * exact average over N1 x N and written as a version-2 truth table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <optinc/core.h>

#include "onn.h"

/* Outputs of @rows points from @first, left in n->a (4 per row). */
static void casc_forward(const struct optinc_onn *m,
			 struct optinc_onn_rnet *n, uint32_t first,
			 unsigned int rows)
{
	unsigned int r, k, radix = 3 * m->members + 1;
	__u32 s[OPTINC_CASCADE_DIGITS];

	for (r = 0; r < rows; r++) {
		optinc_pam4_sums(first + r, radix, OPTINC_CASCADE_DIGITS, s);
		for (k = 0; k < OPTINC_CASCADE_DIGITS; k++)
			n->a[r * OPTINC_CASCADE_DIGITS + k] = s[k] * (double)m->in_scale;
	}
	optinc_onn_rnet_forward(m, n, rows);
}

static void casc_put(uint8_t *p, uint32_t v, unsigned int bytes)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		p[i] = v >> (8 * i) & 0xff;
}

/* Header (version 2: digits and fan-in in the reserved words) and entries. */
static int casc_write(const char *path, unsigned int members,
		      unsigned int fanin, const struct optinc_onn_eval *ev)
{
	uint8_t h[OPTINC_TABLE_HDR_LEN] = { 0 };
	FILE *f = fopen(path, "wb");
	int err;

	memcpy(h, OPTINC_TABLE_MAGIC, 8);
	casc_put(h + 8, OPTINC_TABLE_VERSION_CASCADE, 2);
	casc_put(h + 10, members, 2);
	casc_put(h + 12, 8, 2);
	casc_put(h + 14, 3 * members + 1, 2);
	casc_put(h + 16, ev->entries, 4);
	casc_put(h + 20, ev->wrong, 4);
	casc_put(h + 56, OPTINC_CASCADE_DIGITS, 4);
	casc_put(h + 60, fanin, 4);
	if (!f)
		return -errno;
	err = fwrite(h, 1, sizeof(h), f) == sizeof(h) &&
	      fwrite(ev->out, 1, ev->entries, f) == ev->entries ? 0 : -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

static void casc_decide(const struct optinc_onn_rnet *n, uint32_t first,
			unsigned int rows, struct optinc_onn_eval *ev)
{
	unsigned int r, k, v;

	for (r = 0; r < rows; r++) {
		for (v = 0, k = 0; k < 4; k++)
			v |= optinc_onn_decide(n->a[r * 4 + k]) << (2 * k);
		ev->out[first + r] = (uint8_t)v;
		if (v != ev->exact[first + r])
			ev->wrong++;
	}
}

/**
 * optinc_onn_cascade_table() - evaluate a 5-input model, write its table
 * @path:  the truth table to write
 * @m:     the model: 5 inputs (digit sums s_k, scaled by in_scale), 4 outputs
 * @fanin: N1, the servers below each of the model's N members
 *
 * Reports on stdout (points right) and stderr (errors).
 *
 * Return: 0, or a negative errno.
 */
int optinc_onn_cascade_table(const char *path, const struct optinc_onn *m,
			     unsigned int fanin)
{
	struct optinc_onn_eval ev = { 0 };
	struct optinc_onn_rnet n;
	uint32_t i, rows, radix = 3 * m->members + 1;
	int err;

	ev.entries = radix * radix * radix * radix * radix;
	ev.out = malloc(ev.entries);
	ev.exact = malloc(ev.entries);
	err = ev.out && ev.exact ? optinc_onn_rnet_init(m, 0, 1, 0, &n) : -ENOMEM;
	if (!err) {
		optinc_cascade_table_fill_exact(ev.exact, (__u16)m->members,
						(__u16)fanin);
		for (i = 0; i < ev.entries; i += rows) {
			rows = ev.entries - i < OPTINC_ONN_CHUNK ? ev.entries - i :
							    OPTINC_ONN_CHUNK;
			casc_forward(m, &n, i, rows);
			casc_decide(&n, i, rows, &ev);
		}
		err = casc_write(path, m->members, fanin, &ev);
		optinc_onn_rnet_free(&n);
	}
	if (err)
		fprintf(stderr, "optinc-onn construct: cascade table %s: %s\n",
			path, strerror(-err));
	else
		printf("%s: cascade N = %u, N1 = %u: %u of %u points right (%.4f %%)\n",
		       path, m->members, fanin, ev.entries - ev.wrong, ev.entries,
		       100.0 * (ev.entries - ev.wrong) / ev.entries);
	optinc_onn_eval_free(&ev);
	return err;
}
