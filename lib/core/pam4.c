// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * PAM4 encoding and the paper's unit P. A B-bit value travels as B/2 PAM4
 * symbols, symbol k = (v >> 2k) & 3. P sums each symbol position over the
 * N members: s_k in [0, 3N] <= 192, so a sum fits a byte.
 *
 * A slot keeps the sums of its n elements as four byte planes in its
 * accumulator memory: plane k (bytes k*n .. k*n + n - 1) holds s_k of
 * every element. Adding a contribution is then, eight elements at a time,
 * plane_k += (v >> 2k) & 0x03..03 on 64-bit words: the byte lanes cannot
 * carry into each other, no element is widened, and the compiler turns it
 * into vector code where it may. (One 32-bit word per element with s_k in
 * byte k, the earlier layout, needed each byte spread into a word first and
 * ran at a third of the exact mode's speed.) optinc_pam4_spread8() and
 * optinc_pam4_index() remain as the per-element definition.
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

/*
 * The plain sum S = s_0 + 4 s_1 + 16 s_2 + .. of an index's symbol sums
 * (@symbols at most 8): the sum of the members' values behind it.
 */
__u32 optinc_pam4_plain_sum(__u32 index, __u32 radix, unsigned int symbols)
{
	__u32 sums[8], s = 0;
	unsigned int k;

	optinc_pam4_sums(index, radix, symbols, sums);
	for (k = symbols; k-- > 0;)
		s = s * 4 + sums[k];
	return s;
}

#define PAM4_LANES	0x0303030303030303ull

static inline __u64 pam4_get64(const __u8 *p)
{
	__u64 v;

	memcpy(&v, p, 8);
	return v;
}

static inline void pam4_put64(__u8 *p, __u64 v)
{
	memcpy(p, &v, 8);
}

/*
 * Add (@add) or set the four planes from @n values. Byte order does not
 * matter: every byte lane is its own element.
 */
static inline void pam4_planes(__u8 *planes, const __u8 *src, __u32 n, int add)
{
	__u8 *p0 = planes, *p1 = p0 + n, *p2 = p1 + n, *p3 = p2 + n;
	__u32 i;

	for (i = 0; i + 8 <= n; i += 8) {
		__u64 v = pam4_get64(src + i);
		__u64 a0 = add ? pam4_get64(p0 + i) : 0;
		__u64 a1 = add ? pam4_get64(p1 + i) : 0;
		__u64 a2 = add ? pam4_get64(p2 + i) : 0;
		__u64 a3 = add ? pam4_get64(p3 + i) : 0;

		pam4_put64(p0 + i, a0 + (v & PAM4_LANES));
		pam4_put64(p1 + i, a1 + ((v >> 2) & PAM4_LANES));
		pam4_put64(p2 + i, a2 + ((v >> 4) & PAM4_LANES));
		pam4_put64(p3 + i, a3 + ((v >> 6) & PAM4_LANES));
	}
	for (; i < n; i++) {
		__u8 v = src[i];

		p0[i] = (__u8)((add ? p0[i] : 0) + (v & 3));
		p1[i] = (__u8)((add ? p1[i] : 0) + ((v >> 2) & 3));
		p2[i] = (__u8)((add ? p2[i] : 0) + ((v >> 4) & 3));
		p3[i] = (__u8)((add ? p3[i] : 0) + (v >> 6));
	}
}

/**
 * optinc_pam4_planes_load() - unit P's sums of one contribution
 * @planes: 4 * @n bytes, plane k at @planes + k * @n
 * @src:    @n 8-bit values (offset binary)
 * @n:      elements
 */
OI_SIMD_CLONES
void optinc_pam4_planes_load(__u8 *planes, const __u8 *src, __u32 n)
{
	pam4_planes(planes, src, n, 0);
}

/* Add one more contribution to the planes (at most 64 in all). */
OI_SIMD_CLONES
void optinc_pam4_planes_fold(__u8 *planes, const __u8 *src, __u32 n)
{
	pam4_planes(planes, src, n, 1);
}
