// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Cascading (two levels of switches, Documentation/scale.md section 3),
 * the first level's side: a first-level switch passes a complete slot up
 * as its partial result, so exact that the second level's result equals
 * one switch reducing all the values: AVG as CAVG (the offset-binary sum
 * S_j = N1 Q_j + R_j, the average with its fraction), SUM as ISUM of the
 * signed partial sum, ISUM and MAX as themselves. The upstream result then
 * fills the slot. The second level's side is cascade.c.
 */
#include <optinc/core.h>
#include "compat.h"

/* What a complete slot of @kind goes up as. */
static __u8 cascade_up_op(__u8 kind)
{
	switch (kind) {
	case OPTINC_K_AVG8:
	case OPTINC_K_ONN8:
	case OPTINC_K_ONNS8:
	case OPTINC_K_AVG16:
		return OPTINC_OP_CAVG;
	case OPTINC_K_SUM8:
	case OPTINC_K_SUM16:
	case OPTINC_K_ISUM:
		return OPTINC_OP_ISUM;
	case OPTINC_K_MAX8:
	case OPTINC_K_MAX16:
	case OPTINC_K_MAX32:
		return OPTINC_OP_MAX;
	default:
		return 0;
	}
}

/* Bytes per element of the upstream frame of a slot of @kind (0: none). */
__u32 optinc_cascade_elem_bytes(__u8 kind)
{
	switch (kind) {
	case OPTINC_K_AVG8:
	case OPTINC_K_ONN8:
	case OPTINC_K_ONNS8:
		return 2;
	case OPTINC_K_MAX8:
		return 1;
	case OPTINC_K_MAX16:
		return 2;
	case OPTINC_K_MAX32:
		return 4;
	case OPTINC_K_AVG16:
	case OPTINC_K_SUM8:
	case OPTINC_K_SUM16:
	case OPTINC_K_ISUM:
		return 4;
	default:
		return 0;
	}
}

/*
 * Unit P's sums of element @i back to the plain sum: symbol k weighs 4^k
 * (the slot keeps them as four byte planes of @n, see pam4.c).
 */
static __u32 cascade_planes_sum(const __u8 *planes, __u32 n, __u32 i)
{
	return planes[i] + 4 * planes[n + i] + 16 * planes[2 * n + i] +
	       64 * planes[3 * n + i];
}

/* The partial result of a complete slot, in its upstream encoding. */
static void cascade_partial(const struct optinc_job *job,
			    const struct optinc_slot *s, __u8 *dst)
{
	__u32 i, n = s->count, off;

	switch (s->kind) {
	case OPTINC_K_AVG8:
	case OPTINC_K_ONNS8:
		for (i = 0; i < n; i++)
			oi_put16(dst + 2 * i, optinc_acc_u16(s->acc)[i]);
		break;
	case OPTINC_K_ONN8:
		for (i = 0; i < n; i++)
			oi_put16(dst + 2 * i, (__u16)cascade_planes_sum(
					(const __u8 *)s->acc, n, i));
		break;
	case OPTINC_K_SUM8:
		off = (__u32)job->size << 7;
		for (i = 0; i < n; i++)
			oi_put32(dst + 4 * i, optinc_acc_u16(s->acc)[i] - off);
		break;
	case OPTINC_K_SUM16:
		off = (__u32)job->size << 15;
		for (i = 0; i < n; i++)
			oi_put32(dst + 4 * i, s->acc[i] - off);
		break;
	case OPTINC_K_AVG16:
	case OPTINC_K_ISUM:
		for (i = 0; i < n; i++)
			oi_put32(dst + 4 * i, s->acc[i]);
		break;
	case OPTINC_K_MAX8:
	case OPTINC_K_MAX16:
	case OPTINC_K_MAX32:
		optinc_acc_finish((enum optinc_kind)s->kind, s->acc, n, 0,
				  NULL, dst);
		break;
	default:
		break;
	}
}

/**
 * optinc_build_up() - the upstream DATA frame of a complete slot
 * @frame: buffer of @room bytes
 * @room:  its size
 * @job:   a job with an uplink whose window is known
 * @s:     a slot with up set (its accumulators hold the exact partial)
 *
 * Same seq as the members' frames; rank, slot and shadow bit are those of
 * the upper job. Scales go along for CAVG (the upper switch checks that
 * every first-level switch used the same).
 *
 * Return: the frame length, or 0 when it does not fit in @room.
 */
__u32 optinc_build_up(void *frame, __u32 room, const struct optinc_job *job,
		      const struct optinc_slot *s)
{
	const struct optinc_uplink *up = job->up;
	__u8 op = cascade_up_op(s->kind), *p = frame, *pay;
	__u32 eb = optinc_cascade_elem_bytes(s->kind);
	__u8 nscale = op == OPTINC_OP_CAVG ? s->nscale : 0;
	__u32 scl = OPTINC_SCALES_LEN(nscale);
	__u32 l4 = OPTINC_HDR_LEN + scl + eb * s->count;
	struct optinc_msg m = {
		.type = OPTINC_T_DATA, .op = op, .bits = (__u8)(8 * eb),
		.job = up->job, .rank = up->rank, .token = up->token,
		.seq = s->seq, .count = s->count, .nscale = nscale,
		.block = nscale ? s->block : 0,
		.size = op == OPTINC_OP_CAVG ? job->size : 0, .tag = s->tag,
	};

	if (!op || !up->window || OPTINC_L2L4_LEN + l4 > room)
		return 0;
	m.slot = (__u16)(s->seq % up->window);
	m.flags = (__u8)(((s->seq / up->window) & 1) |
			 (s->mixed ? OPTINC_F_MIXED : 0));
	optinc_build_l2l4(p, &up->self, &up->sw, l4);
	optinc_hdr_fill((struct optinc_hdr *)(p + OPTINC_L2L4_LEN), &m);
	pay = p + OPTINC_FRAME_OVERHEAD;
	memset(pay, 0, scl);
	memcpy(pay, s->scales, nscale);
	cascade_partial(job, s, pay + scl);
	return OPTINC_L2L4_LEN + l4;
}

/**
 * optinc_up_sent() - the upstream DATA of slot @s went out
 * @job: its first-level job
 * @s:   the slot (up set)
 *
 * Stamps the send with the job's upstream clock, which orders the sends
 * for optinc_up_lost().
 *
 * Return: 1 if the slot's DATA had gone up before (a re-send), else 0.
 */
int optinc_up_sent(struct optinc_job *job, struct optinc_slot *s)
{
	int again = s->up_first != 0;

	if (!++job->up_clock)
		job->up_clock = 1;
	s->up_last = job->up_clock;
	if (!again)
		s->up_first = s->up_last;
	return again;
}

/* The JOIN of this switch to its upper job, with a new @nonce per generation. */
void optinc_up_join(const struct optinc_uplink *up, __u32 nonce,
		    struct optinc_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->type = OPTINC_T_JOIN;
	m->job = up->job;
	m->rank = up->rank;
	m->token = up->token;
	m->seq = nonce;
}

/* Does upstream result @m answer slot @s: the op, width and shape it must have. */
static int cascade_result_fits(const struct optinc_slot *s,
			       const struct optinc_msg *m)
{
	__u8 op = cascade_up_op(s->kind);

	if (m->op != op || m->count != s->count ||
	    m->bits != optinc_result_bits((enum optinc_kind)s->kind))
		return 0;
	if (op != OPTINC_OP_CAVG)
		return 1;
	return m->nscale == s->nscale && m->block == s->block &&
	       !memcmp(m->scales, s->scales, s->nscale);
}

/**
 * optinc_job_rx_up() - a RESULT of the upper job, for this job's slot
 * @job:  the first-level job whose uplink names the result's job
 * @m:    the result, checked by optinc_msg_parse() (token already matched)
 * @why:  set to the drop reason for OPTINC_V_DROP
 * @slot: set to the slot for OPTINC_V_COMPLETE and OPTINC_V_RESEND
 *
 * The result becomes the slot's, exactly as if this switch had reduced
 * every value itself.
 *
 * Return: OPTINC_V_COMPLETE (send it to every member), OPTINC_V_RESEND
 * (the slot had it already: nothing new) or OPTINC_V_DROP.
 */
enum optinc_verdict optinc_job_rx_up(struct optinc_job *job,
				     const struct optinc_msg *m,
				     enum optinc_drop *why,
				     struct optinc_slot **slot)
{
	struct optinc_slot *s = optinc_job_copy(job, m->seq);

	*slot = NULL;
	*why = OPTINC_DROP_STALE;
	if (!s->valid || s->seq != m->seq)
		return OPTINC_V_DROP;
	*slot = s;
	if (s->done)
		return OPTINC_V_RESEND;
	*why = OPTINC_DROP_MISMATCH;
	if (!s->up || !cascade_result_fits(s, m) ||
	    m->elems_len > 4u * job->max_elems) {
		*slot = NULL;
		return OPTINC_V_DROP;
	}
	memcpy(s->res, m->elems, m->elems_len);
	s->res_len = m->elems_len;
	s->mixed |= !!(m->flags & OPTINC_F_MIXED);
	s->up = 0;
	s->done = 1;
	optinc_job_advance(job, m->seq);	/* the hints' oldest waiting slot */
	*why = OPTINC_DROP_NONE;
	return OPTINC_V_COMPLETE;
}

/**
 * optinc_up_lost() - waiting slots that an upper result says to send again
 * @job:  a first-level job
 * @m:    a RESULT of the upper job for @job's slot of m->seq (just taken,
 *        or repeated), with the upper switch's retransmission hint
 * @lost: set to at most @max slots whose DATA should go up again now
 * @max:  room in @lost
 *
 * The upper switch answers m->seq after it has our DATA for it, and its
 * hint says which older seqs it still holds from us. An older slot that
 * still waits for its upper result, whose DATA last went up before m->seq's
 * DATA first did, and that the hint does not hold, lost its DATA on the
 * way up or its result on the way down: it goes again at once, instead of
 * when the members time out and retransmit. The send restamps the slot
 * (optinc_up_sent()), so it goes again only for a result of DATA first
 * sent after that: one re-send per round trip, not one per later result.
 *
 * Return: how many slots were put in @lost.
 */
__u32 optinc_up_lost(const struct optinc_job *job, const struct optinc_msg *m,
		     struct optinc_slot **lost, __u32 max)
{
	const struct optinc_slot *got = optinc_job_copy(job, m->seq);
	struct optinc_slot *s;
	__u32 seq = job->low, n = 0;

	if (!job->up || !(m->aux & OPTINC_HINT_ON) || !got->valid ||
	    got->seq != m->seq || !got->up_first ||
	    !optinc_seq_after(m->seq, seq))
		return 0;
	if (m->seq - seq >= job->window)
		seq = m->seq - job->window + 1;
	for (; seq != m->seq && n < max; seq++) {
		s = optinc_job_copy(job, seq);
		if (!s->valid || s->seq != seq || !s->up ||
		    (__s32)(s->up_last - got->up_first) >= 0)
			continue;
		if (optinc_hint_lost(m, seq) == 1)
			lost[n++] = s;
	}
	return n;
}
