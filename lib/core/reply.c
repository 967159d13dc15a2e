// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/* Frames a switch sends: results (unit T of the paper) and control answers. */
#include <optinc/core.h>
#include "compat.h"

/**
 * optinc_build_result_hdr() - a result frame's headers for one member
 * @frame: buffer of @room bytes
 * @room:  its size
 * @job:   the job
 * @s:     a slot with done set
 * @sw:    the switch's own address (source of the frame)
 * @rank:  the member it goes to
 *
 * Writes Ethernet, IPv4, UDP, the OptINC header and the scales, with
 * lengths that count the @s->res_len bytes of result elements that follow
 * them (@s->res): the caller copies them behind, or sends one buffer of
 * them after every member's headers (unit T without a copy per member).
 *
 * Return: the length of the headers (where the elements start), or 0 when
 * they do not fit in @room.
 */
__u32 optinc_build_result_hdr(void *frame, __u32 room,
			      const struct optinc_job *job,
			      const struct optinc_slot *s,
			      const struct optinc_endpoint *sw, __u16 rank)
{
	__u32 scl = OPTINC_SCALES_LEN(s->nscale);
	__u32 l4 = OPTINC_HDR_LEN + scl + s->res_len;
	__u8 *p = frame, *pay;
	struct optinc_msg m = {
		.type = OPTINC_T_RESULT, .op = s->op,
		.flags = (__u8)(((s->seq / job->window) & 1) |
				(s->mixed ? OPTINC_F_MIXED : 0)),
		.bits = optinc_result_bits((enum optinc_kind)s->kind),
		.nscale = s->nscale, .job = job->id, .rank = OPTINC_RANK_SWITCH,
		.slot = (__u16)(s->seq % job->window), .count = s->count,
		.block = s->block, .token = job->token, .seq = s->seq,
	};

	if (OPTINC_FRAME_OVERHEAD + scl > room)
		return 0;
	optinc_job_hint(job, s->seq, rank, &m);
	optinc_build_l2l4(p, sw, &job->members[rank].ep, l4);
	optinc_hdr_fill((struct optinc_hdr *)(p + OPTINC_L2L4_LEN), &m);
	pay = p + OPTINC_FRAME_OVERHEAD;
	memset(pay, 0, scl);
	memcpy(pay, s->scales, s->nscale);
	return OPTINC_FRAME_OVERHEAD + scl;
}

/**
 * optinc_build_result() - a complete slot's result frame for one member
 * @frame: buffer of @room bytes
 * @room:  its size
 * @job:   the job
 * @s:     a slot with done set
 * @sw:    the switch's own address (source of the frame)
 * @rank:  the member it goes to
 *
 * Return: the frame length, or 0 when it does not fit in @room.
 */
__u32 optinc_build_result(void *frame, __u32 room,
			  const struct optinc_job *job,
			  const struct optinc_slot *s,
			  const struct optinc_endpoint *sw, __u16 rank)
{
	__u32 hdr;

	if (OPTINC_FRAME_OVERHEAD + OPTINC_SCALES_LEN(s->nscale) +
	    s->res_len > room)
		return 0;
	hdr = optinc_build_result_hdr(frame, room, job, s, sw, rank);
	memcpy((__u8 *)frame + hdr, s->res, s->res_len);
	return hdr + s->res_len;
}

/* A header-only frame (JOIN_ACK, NACK) with the fields of @m. */
__u32 optinc_build_ctrl(void *frame, __u32 room, const struct optinc_msg *m,
			const struct optinc_endpoint *sw,
			const struct optinc_endpoint *dst)
{
	__u8 *p = frame;

	if (room < OPTINC_FRAME_OVERHEAD)
		return 0;
	optinc_build_l2l4(p, sw, dst, OPTINC_HDR_LEN);
	optinc_hdr_fill((struct optinc_hdr *)(p + OPTINC_L2L4_LEN), m);
	return OPTINC_FRAME_OVERHEAD;
}

/* The JOIN_ACK for @rank: the job's shape and how many have joined. */
void optinc_job_ack(const struct optinc_job *job, __u16 rank,
		    struct optinc_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->type = OPTINC_T_JOIN_ACK;
	m->job = job->id;
	m->rank = rank;
	m->token = job->token;
	m->seq = job->members[rank].nonce;
	m->slot = job->window;
	m->count = job->max_elems;
	m->size = job->size;
	m->aux = (__u16)oi_popcount64(job->joined);
}

/* The NACK answering JOIN @req, refused for @why. */
void optinc_nack(const struct optinc_msg *req, enum optinc_drop why,
		 struct optinc_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->type = OPTINC_T_NACK;
	m->job = req->job;
	m->rank = req->rank;
	m->token = req->token;
	m->seq = req->seq;
	m->aux = why == OPTINC_DROP_NO_JOB ? OPTINC_NACK_NO_JOB :
		 why == OPTINC_DROP_NOT_MEMBER ? OPTINC_NACK_BAD_RANK :
		 OPTINC_NACK_BAD_SHAPE;
}

/**
 * optinc_hint_lost() - what a RESULT's hint says of another frame
 * @res: a RESULT for this member
 * @seq: a frame of this member without its result; if before res->seq,
 *       sent before res->seq's frame
 *
 * Return: 1 if the frame or its result was lost (retransmit it now), 0 if
 * the switch holds the contribution and waits for other members, -1 if
 * the result carries no hint (a version 1 switch) or none about @seq.
 */
int optinc_hint_lost(const struct optinc_msg *res, __u32 seq)
{
	__u32 d = res->aux & OPTINC_HINT_DIST, o, k;
	int held;

	if (!(res->aux & OPTINC_HINT_ON) || !d || seq == res->seq)
		return -1;
	o = d == OPTINC_HINT_DIST ? res->seq + 1 : res->seq - d;
	k = seq - o;
	held = k < OPTINC_HINT_SPAN && (res->held >> k & 1);
	if (!optinc_seq_after(res->seq, seq))
		return held ? 0 : -1;	/* after it: not there yet, or lost */
	if (optinc_seq_after(o, seq))
		return 1;
	return k < OPTINC_HINT_SPAN ? !held : -1;
}
