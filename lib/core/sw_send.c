// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * The frames the switch's rules send to members (switch.h): results, one
 * frame each or unit T on one payload, JOIN_ACKs (held for a cascade's
 * first level), NACKs, each counted as sent or failed. switch.c's input
 * path and upstate.c's uplink both answer members through these, and
 * nothing here calls either, so the two stay out of each other's way.
 */
#include <optinc/switch.h>
#include "compat.h"

/* Hand a frame of @len bytes (0: not built) of @type to the datapath. */
static void sw_tx(const struct optinc_sw *sw, struct optinc_job *job,
		  const struct optinc_sw_msg *in, int rank, __u8 type,
		  struct optinc_sw_frame *f, __u32 len)
{
	int ret = sw->ops->send(sw->dp, job, in, rank, f, len);

	optinc_sw_count(sw, job, in, !len || ret ? OPTINC_SW_TX_ERROR : OPTINC_SW_SENT,
		 type);
}

/* Slot @s's result to @rank, built whole in a frame of its own. */
void optinc_sw_result(const struct optinc_sw *sw, struct optinc_job *job,
		      const struct optinc_sw_msg *in,
		      const struct optinc_slot *s, __u16 rank)
{
	__u32 len = OPTINC_FRAME_OVERHEAD + OPTINC_SCALES_LEN(s->nscale) +
		    s->res_len;
	struct optinc_sw_frame f;

	if (sw->ops->alloc(sw->dp, job, in, rank, len, &f)) {
		optinc_sw_count(sw, job, in, OPTINC_SW_TX_ERROR, OPTINC_T_RESULT);
		return;
	}
	sw_tx(sw, job, in, rank, OPTINC_T_RESULT, &f,
	      optinc_build_result(f.buf, f.room, job, s, sw->ep, rank));
}

/* A header-only frame @a to @rank (-1: back to in->src). */
static void sw_ctrl(const struct optinc_sw *sw, struct optinc_job *job,
		    const struct optinc_sw_msg *in, int rank,
		    const struct optinc_msg *a)
{
	const struct optinc_endpoint *dst =
		rank < 0 ? in->src : &job->members[rank].ep;
	struct optinc_sw_frame f;

	if (sw->ops->alloc(sw->dp, job, in, rank, OPTINC_FRAME_OVERHEAD, &f)) {
		optinc_sw_count(sw, job, in, OPTINC_SW_TX_ERROR, a->type);
		return;
	}
	sw_tx(sw, job, in, rank, a->type, &f,
	      optinc_build_ctrl(f.buf, f.room, a, sw->ep, dst));
}

/**
 * optinc_sw_results() - unit T: complete slot @s's result to every member
 * @sw:  the switch
 * @job: its job
 * @s:   a slot with done set
 *
 * Through the datapath's results op where it has one (one payload for
 * all), else one whole frame per member.
 */
void optinc_sw_results(const struct optinc_sw *sw, struct optinc_job *job,
		       const struct optinc_slot *s)
{
	int sent = -EOPNOTSUPP;
	__u16 r;

	if (sw->ops->results && job->size > 1)
		sent = sw->ops->results(sw->dp, job, s);
	if (sent < 0) {
		for (r = 0; r < job->size; r++)
			optinc_sw_result(sw, job, NULL, s, r);
		return;
	}
	for (r = 0; r < job->size; r++)
		optinc_sw_count(sw, job, NULL, r < sent ? OPTINC_SW_SENT :
			 OPTINC_SW_TX_ERROR, OPTINC_T_RESULT);
	if (sent)	/* which way unit T went is otherwise invisible */
		optinc_sw_count(sw, job, NULL, OPTINC_SW_RESULTS_SHARED,
				(__u32)sent);
}

/**
 * optinc_sw_ack() - a JOIN_ACK to member @rank
 * @sw:   the switch
 * @job:  its job
 * @rank: the member
 * @hold: say "not everyone yet" although all of @job joined (a cascade's
 *        first level, while its upper job is not complete)
 */
void optinc_sw_ack(const struct optinc_sw *sw, struct optinc_job *job,
		   __u16 rank, int hold)
{
	struct optinc_msg a;

	optinc_job_ack(job, rank, &a);
	if (hold)
		a.aux = (__u16)(job->size - 1);
	sw_ctrl(sw, job, NULL, rank, &a);
}

/* A JOIN_ACK to every member: the job is complete. */
void optinc_sw_acks(const struct optinc_sw *sw, struct optinc_job *job)
{
	__u16 r;

	for (r = 0; r < job->size; r++)
		optinc_sw_ack(sw, job, r, 0);
}

/* Refuse JOIN in->m for @why: the NACK goes back where it came from. */
void optinc_sw_nack(const struct optinc_sw *sw, struct optinc_job *job,
		    const struct optinc_sw_msg *in, enum optinc_drop why)
{
	struct optinc_msg a;

	optinc_nack(in->m, why, &a);
	sw_ctrl(sw, job, in, -1, &a);
}
