// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * What the switch's rules count. The rules report events (switch.h) to
 * their datapath's count op; which of a job's counters an event adds to is
 * decided here, once, in the spec's names (the stats attribute set of
 * Documentation/netlink/specs/optinc.yaml, uapi OPTINC_STATS_A_*), so that
 * optincd and optinc.ko report the same job counters with the same
 * meaning. Where a datapath keeps a port's and the switch's own counters
 * is its business: those are counted by its op beside these.
 */
#include <optinc/switch.h>
#include <uapi/linux/optinc.h>
#include "compat.h"

/* Report @ev (with @arg) of @job, for @in (NULL: none), to the datapath. */
void optinc_sw_count(const struct optinc_sw *sw, struct optinc_job *job,
		     const struct optinc_sw_msg *in, enum optinc_sw_event ev,
		     __u32 arg)
{
	sw->ops->count(sw->dp, job, in, ev, arg);
}

/* Events whose job counter does not depend on @arg; 0: none. */
static const __u8 sw_job_counter[OPTINC_SW_NR_EVENTS] = {
	[OPTINC_SW_DROPPED]		= OPTINC_STATS_A_DROPPED,
	[OPTINC_SW_SPOOFED]		= OPTINC_STATS_A_SPOOFED,
	[OPTINC_SW_WRONG_PORT]		= OPTINC_STATS_A_WRONG_PORT,
	[OPTINC_SW_ABSORBED]		= OPTINC_STATS_A_ABSORBED,
	[OPTINC_SW_COMPLETED]		= OPTINC_STATS_A_COMPLETED,
	[OPTINC_SW_RESENT]		= OPTINC_STATS_A_RESENT,
	[OPTINC_SW_REBOUND]		= OPTINC_STATS_A_REBINDS,
	[OPTINC_SW_TX_ERROR]		= OPTINC_STATS_A_TX_ERRORS,
	[OPTINC_SW_RESULTS_SHARED]	= OPTINC_STATS_A_RESULTS_SHARED,
	[OPTINC_SW_UP_SENT]		= OPTINC_STATS_A_UP_FRAMES_OUT,
	[OPTINC_SW_UP_RESENT]		= OPTINC_STATS_A_UP_RESENDS,
	[OPTINC_SW_UP_HINTED]		= OPTINC_STATS_A_UP_HINTED,
	[OPTINC_SW_UP_RESULT]		= OPTINC_STATS_A_UP_RESULTS_IN,
	[OPTINC_SW_UP_RESULT_AGAIN]	= OPTINC_STATS_A_UP_RESULTS_DUP,
};

/*
 * optinc_sw_job_counter() - the job counter an event adds to
 * @ev:  the event, as the rules reported it
 * @arg: its argument
 * @n:   set to how much it adds
 *
 * A frame that reaches its job is `data` or `joins` by its type; a frame
 * sent is `results`, `join-acks` or `nacks`; a drop with a reason is
 * `dropped` (the datapath adds drops[@arg] beside it); a hinted uplink
 * re-send adds the frames it sent, and results sent on one shared copy
 * (`results-shared`) the frames that shared it. An accepted JOIN
 * (JOINED), the rate limit (a port's counter) and the uplink's refusals
 * (logged) add to none.
 *
 * Return: an OPTINC_STATS_A_* of the job-stats set, or 0 for none.
 */
unsigned int optinc_sw_job_counter(enum optinc_sw_event ev, __u32 arg,
				   __u32 *n)
{
	*n = ev == OPTINC_SW_UP_HINTED || ev == OPTINC_SW_RESULTS_SHARED ?
	     arg : 1;
	if (ev == OPTINC_SW_RECEIVED)
		return arg == OPTINC_T_JOIN ? OPTINC_STATS_A_JOINS :
		       arg == OPTINC_T_DATA ? OPTINC_STATS_A_DATA : 0;
	if (ev == OPTINC_SW_SENT)
		return arg == OPTINC_T_RESULT ? OPTINC_STATS_A_RESULTS :
		       arg == OPTINC_T_JOIN_ACK ? OPTINC_STATS_A_JOIN_ACKS :
		       arg == OPTINC_T_NACK ? OPTINC_STATS_A_NACKS : 0;
	return ev < OPTINC_SW_NR_EVENTS ? sw_job_counter[ev] : 0;
}
