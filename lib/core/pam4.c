// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * PAM4 encoding and the paper's unit P. A B-bit value travels as B/2 PAM4
 * symbols, symbol k = (v >> 2k) & 3. P sums each symbol position over the
 * N members: s_k in [0, 3N]. In software the sums live in the byte lanes
 * of one 32-bit word (lane k = s_k), so P is a plain addition of "spread"
 * values; lanes cannot carry into each other while 3N <= 255.
 */
#include <optinc/core.h>
#include "compat.h"

/**
 * optinc_pam4_index() - truth-table index of P's output
 * @lanes:   s_k in byte lane k
 * @radix:   3N + 1
 * @symbols: B / 2 (at most 4)
 *
 * Return: s_0 + R * (s_1 + R * (s_2 + R * s_3)), the mixed-radix index.
 */
__u32 optinc_pam4_index(__u32 lanes, __u32 radix, unsigned int symbols)
{
	__u32 idx = 0;
	int k;

	for (k = (int)symbols - 1; k >= 0; k--)
		idx = idx * radix + ((lanes >> (8 * k)) & 0xff);
	return idx;
}

/* The inverse of optinc_pam4_index(): the symbol sums of an index. */
void optinc_pam4_sums(__u32 index, __u32 radix, unsigned int symbols,
		      __u32 *sums)
{
	unsigned int k;

	for (k = 0; k < symbols; k++) {
		sums[k] = index % radix;
		index /= radix;
	}
}
