// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Cascading (two levels of switches, Documentation/scale.md section 3),
 * the second level's side: which CAVG frames a job with a fan-in takes
 * (its reduction kinds) and its truth table in onn mode. The first level's
 * side, the uplink, is uplink.c.
 */
#include <optinc/core.h>
#include "compat.h"

/*
 * The CAVG kinds of a second-level job (fan-in set), else OPTINC_K_NR. In
 * onn mode 8-bit averages go through the job's cascade table (B = 16 is
 * exact, as in one level).
 */
__u8 optinc_cascade_kind(const struct optinc_job *job, __u8 op, __u8 bits)
{
	if (op != OPTINC_OP_CAVG || !job->fanin)
		return OPTINC_K_NR;
	if (bits == 16 && job->mode == OPTINC_MODE_ONN)
		return job->table && job->table->digits == OPTINC_CASCADE_DIGITS &&
		       job->table->fanin == job->fanin ? OPTINC_K_CONN8 : OPTINC_K_NR;
	if (bits == 16)
		return OPTINC_K_CAVG16;
	if (bits == 32)
		return OPTINC_K_CAVG32;
	return OPTINC_K_NR;
}

/* How many values a complete slot of @kind holds: N, or N2 x N1 for CAVG. */
__u16 optinc_cascade_members(const struct optinc_job *job, __u8 kind)
{
	if (kind == OPTINC_K_CAVG16 || kind == OPTINC_K_CAVG32 ||
	    kind == OPTINC_K_CONN8)
		return (__u16)(job->size * job->fanin);
	return job->size;
}

/* A CAVG frame must come from a switch of the configured fan-in. */
int optinc_cascade_shape_ok(const struct optinc_job *job,
			    const struct optinc_msg *m, __u8 kind)
{
	if (kind != OPTINC_K_CAVG16 && kind != OPTINC_K_CAVG32 &&
	    kind != OPTINC_K_CONN8)
		return 1;
	return m->size == job->fanin;
}

/* ---- the second level's unit P and truth table (onn mode) ---- */

static __u32 cascade_entries(__u32 radix)
{
	__u32 e = 1, k;

	for (k = 0; k < OPTINC_CASCADE_DIGITS; k++)
		e *= radix;
	return e;
}

/*
 * The cascade table of a perfect ONN: the digit sums s_0..s_4 to
 * round_half_even((s_0 + 4 s_1 + ... + 256 s_4) / (N1 N)); sums no
 * first level can produce (beyond 255 N1 N) give 255.
 */
void optinc_cascade_table_fill_exact(__u8 *out, __u16 members, __u16 fanin)
{
	__u32 radix = 3u * members + 1, n = cascade_entries(radix), i, k;
	__u32 sums[OPTINC_CASCADE_DIGITS], total, q;

	for (i = 0; i < n; i++) {
		optinc_pam4_sums(i, radix, OPTINC_CASCADE_DIGITS, sums);
		total = 0;
		for (k = OPTINC_CASCADE_DIGITS; k-- > 0;)
			total = total * 4 + sums[k];
		q = optinc_avg_rhe(total, (__u32)members * fanin);
		out[i] = (__u8)(q > 255 ? 255 : q);
	}
}

/* Lane sums (6 bits each) to table indices in place, then the look-ups. */
void optinc_cascade_finish_table(__u32 *acc, __u32 n,
				 const struct optinc_table *t, __u8 *dst)
{
	__u32 i, r = t->radix;

	for (i = 0; i < n; i++) {
		__u32 a = acc[i];

		acc[i] = (a & 0x3f) + r * (((a >> 6) & 0x3f) +
			 r * (((a >> 12) & 0x3f) + r * (((a >> 18) & 0x3f) +
			 r * (a >> 24))));
	}
	for (i = 0; i < n; i++)
		dst[i] = t->out[acc[i]];
}
