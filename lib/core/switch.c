// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * The switch's rules for a message to it, for every datapath (switch.h):
 * which checks come in which order, and for each verdict of the slot
 * state machine which frames go to whom. Datapaths only say how a frame
 * is allocated, sent and counted, so optincd, optinc.ko, the library's
 * test switch and the fuzzer cannot answer the same frame differently.
 * The frames themselves are built and handed over in sw_send.c.
 */
#include <optinc/switch.h>
#include "compat.h"

/* An accepted JOIN binds the member to its MAC, address and port. */
static void sw_bind(const struct optinc_sw *sw, struct optinc_job *job,
		    struct optinc_bind *bind, const struct optinc_sw_msg *in)
{
	struct optinc_endpoint old;
	__u32 old_port = 0;

	switch (optinc_bind_join(bind, in->m->rank, in->src, in->port, &old,
				 &old_port)) {
	case OPTINC_BIND_SAME:
		return;
	case OPTINC_BIND_MOVED:
		optinc_sw_count(sw, job, in, OPTINC_SW_REBOUND, old_port);
		sw->ops->pin(sw->dp, job, in, &old, old_port);
		return;
	case OPTINC_BIND_NEW:
		sw->ops->pin(sw->dp, job, in, NULL, 0);
		return;
	}
}

/* JOIN in->m was accepted: bind it, then ack it (or all, once complete). */
static void sw_join(const struct optinc_sw *sw, struct optinc_job *job,
		    struct optinc_bind *bind, const struct optinc_sw_msg *in)
{
	__u16 rank = in->m->rank;

	optinc_sw_count(sw, job, in, OPTINC_SW_JOINED, rank);
	if (bind)
		sw_bind(sw, job, bind, in);
	if (job->up && optinc_up_joined(sw, job, in))
		return;
	if (optinc_job_complete(job))
		optinc_sw_acks(sw, job);
	else
		optinc_sw_ack(sw, job, rank, 0);
}

/* The reply plan: what each verdict of the slot state machine sends. */
static int sw_reply(const struct optinc_sw *sw, struct optinc_job *job,
		    struct optinc_bind *bind, const struct optinc_sw_msg *in,
		    enum optinc_verdict v, enum optinc_drop why,
		    struct optinc_slot *s)
{
	switch (v) {
	case OPTINC_V_DROP:
		optinc_sw_count(sw, job, in, OPTINC_SW_DROPPED, why);
		return -EPROTO;
	case OPTINC_V_ABSORBED:
		optinc_sw_count(sw, job, in, OPTINC_SW_ABSORBED, 0);
		return 0;
	case OPTINC_V_COMPLETE:
		optinc_sw_count(sw, job, in, OPTINC_SW_ABSORBED, 0);
		optinc_sw_count(sw, job, in, OPTINC_SW_COMPLETED, 0);
		optinc_sw_results(sw, job, s);
		return 0;
	case OPTINC_V_RESEND:
		optinc_sw_count(sw, job, in, OPTINC_SW_RESENT, in->m->rank);
		optinc_sw_result(sw, job, in, s, in->m->rank);
		return 0;
	case OPTINC_V_JOIN_ACK:
		sw_join(sw, job, bind, in);
		return 0;
	case OPTINC_V_NACK:
		optinc_sw_count(sw, job, in, OPTINC_SW_DROPPED, why);
		optinc_sw_nack(sw, job, in, why);
		return -EPROTO;
	case OPTINC_V_FORWARD:
		optinc_up_forward(sw, job, in, s);
		return 0;
	}
	return 0;
}

/* Over in->port's limit? Then counted, and dropped without an answer. */
static int sw_limited(const struct optinc_sw *sw, struct optinc_job *job,
		      const struct optinc_sw_msg *in)
{
	if (!sw->ops->limited || !sw->ops->limited(sw->dp, job, in))
		return 0;
	optinc_sw_count(sw, job, in, OPTINC_SW_RATE_LIMITED, 0);
	return 1;
}

/* A message naming no job this switch serves. */
static int sw_no_job(const struct optinc_sw *sw,
		     const struct optinc_sw_msg *in)
{
	if (sw_limited(sw, NULL, in))
		return -EPERM;
	optinc_sw_count(sw, NULL, in, OPTINC_SW_DROPPED, OPTINC_DROP_NO_JOB);
	if (in->m->type == OPTINC_T_JOIN)
		optinc_sw_nack(sw, NULL, in, OPTINC_DROP_NO_JOB);
	return -EPROTO;
}

/**
 * optinc_sw_input() - the switch's rules for one message to it
 * @sw:   the switch: its datapath's ops and address
 * @job:  the job the message names, NULL when there is none (or it is
 *        not served); serialised by the caller (a lock or one lcore)
 * @bind: @job's port security, or NULL for a switch without ports (the
 *        library's loopback test switch)
 * @in:   the message, where it came from
 * @why:  what optinc_msg_parse() said of it; in->m's job and type are
 *        only read when it parsed
 *
 * In this order: a frame with a MAC pinned to another port is dropped
 * unless it is that member's JOIN (a move); a malformed one is dropped;
 * then the frame has reached its job (RECEIVED), and port security's
 * binding, the port's rate limit, the slot state machine and the reply
 * plan follow. Everything is counted through the ops.
 *
 * Return: 0 when the message was taken, -EPERM when port security or the
 * rate limit dropped it, -EPROTO when it was dropped (or NACKed) for a
 * reason of enum optinc_drop.
 */
int optinc_sw_input(const struct optinc_sw *sw, struct optinc_job *job,
		    struct optinc_bind *bind, const struct optinc_sw_msg *in,
		    enum optinc_drop why)
{
	enum optinc_bind_verdict bv = OPTINC_BIND_PASS;
	struct optinc_slot *s = NULL;
	enum optinc_verdict v;

	if (in->spoofed && (why != OPTINC_DROP_NONE || !job ||
			    in->m->type != OPTINC_T_JOIN)) {
		optinc_sw_count(sw, why == OPTINC_DROP_NONE ? job : NULL, in,
			 OPTINC_SW_SPOOFED, 0);
		return -EPERM;
	}
	if (why != OPTINC_DROP_NONE) {
		optinc_sw_count(sw, job, in, OPTINC_SW_DROPPED, why);
		return -EPROTO;
	}
	if (!job)
		return sw_no_job(sw, in);
	optinc_sw_count(sw, job, in, OPTINC_SW_RECEIVED, in->m->type);
	if (bind)
		bv = optinc_bind_rx(bind, job, in->m, in->src, in->port,
				    in->spoofed);
	if (bv != OPTINC_BIND_PASS) {
		optinc_sw_count(sw, job, in, bv == OPTINC_BIND_SPOOF ?
			 OPTINC_SW_SPOOFED : OPTINC_SW_WRONG_PORT, 0);
		return -EPERM;
	}
	if (sw_limited(sw, job, in))
		return -EPERM;
	v = optinc_job_rx(job, in->m, in->src, &why, &s);
	return sw_reply(sw, job, bind, in, v, why, s);
}
