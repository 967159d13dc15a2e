/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * Bounded abuse (lib/core/ratelimit.c): a per-port token bucket for the
 * frames a brute-forcer sends, JOINs and frames that fail the token or
 * membership check. The rule and the bucket are here once; the datapaths
 * (optincd, optinc.ko) keep one bucket per port, supply the clock and count
 * `rate_limited`. Documentation/reliability.md, "Bounded abuse".
 */
#ifndef OPTINC_RATELIMIT_H
#define OPTINC_RATELIMIT_H

#include "core.h"

/* Defaults: 1000 charged frames per second per port, bursts of 64. */
#define OPTINC_RL_PPS_DEFAULT	1000
#define OPTINC_RL_BURST_DEFAULT	64
#define OPTINC_RL_BURST_MAX	65535

/*
 * A limit in the datapath's clock: one frame per @interval ticks, @tau
 * ticks of tolerance ((burst - 1) * interval). @interval 0: no limit.
 */
struct optinc_rl_conf {
	__u64	interval;
	__u64	tau;
};

/*
 * One port's bucket, as a theoretical arrival time (GCRA: the token bucket
 * in one number, no division per frame): a charged frame may pass when
 * now >= @tat - tau, and then moves @tat one interval on. @primed: 0 until
 * the first charged frame, a full bucket (the clock may start anywhere).
 */
struct optinc_rl {
	__u64	tat;
	__u32	primed;
};

/* What a datapath does with a frame after optinc_rl_rx(). */
enum optinc_rl_verdict {
	OPTINC_RL_FREE = 0,	/* not charged: a member's frame with the token */
	OPTINC_RL_PASS,		/* charged, within the limit: go on as before */
	OPTINC_RL_LIMITED,	/* over the limit: drop, no answer, rate_limited */
};

int optinc_rl_conf_set(struct optinc_rl_conf *c, __u32 pps, __u32 burst,
		       __u64 hz);
void optinc_rl_init(struct optinc_rl *b);
int optinc_rl_take(struct optinc_rl *b, const struct optinc_rl_conf *c,
		   __u64 now);
int optinc_rl_charged(const struct optinc_job *job, const struct optinc_msg *m,
		      const struct optinc_endpoint *src);
enum optinc_rl_verdict optinc_rl_rx(struct optinc_rl *b,
				    const struct optinc_rl_conf *c,
				    const struct optinc_job *job,
				    const struct optinc_msg *m,
				    const struct optinc_endpoint *src,
				    __u64 now);

#endif /* OPTINC_RATELIMIT_H */
