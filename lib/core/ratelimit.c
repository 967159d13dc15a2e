// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Bounded abuse, shared by optincd and optinc.ko: JOINs and frames that
 * fail the token or membership check are charged to a per-port token
 * bucket; past it they are dropped without an answer. A member's frames
 * with the job's token are never charged.
 */
#include <optinc/ratelimit.h>
#include "compat.h"

/**
 * optinc_rl_conf_set() - a limit of @pps frames a second, bursts of @burst
 * @c:     set to the limit in the datapath's clock
 * @pps:   charged frames per second and port; 0: no limit
 * @burst: frames that may come at once after a quiet time, 1..65535
 * @hz:    ticks per second of the datapath's clock (1e9 for nanoseconds)
 *
 * The interval is rounded up, so the rate let through never exceeds @pps.
 *
 * Return: 0, or -EINVAL for a burst out of range or a clock of 0 Hz.
 */
int optinc_rl_conf_set(struct optinc_rl_conf *c, __u32 pps, __u32 burst,
		       __u64 hz)
{
	c->interval = 0;
	c->tau = 0;
	if (!pps)
		return 0;
	if (!hz || !burst || burst > OPTINC_RL_BURST_MAX)
		return -EINVAL;
	c->interval = (hz + pps - 1) / pps;
	c->tau = (__u64)(burst - 1) * c->interval;
	return 0;
}

void optinc_rl_init(struct optinc_rl *b)
{
	b->tat = 0;
	b->primed = 0;
}

/**
 * optinc_rl_take() - take one frame's token from a port's bucket
 * @b:   the port's bucket
 * @c:   the limit
 * @now: the datapath's clock; may wrap (compared as a signed difference)
 *
 * A bucket idle for longer than burst intervals is full again, never
 * fuller: @tat never falls behind @now.
 *
 * Return: 1 when the frame may pass, 0 when the bucket is empty.
 */
int optinc_rl_take(struct optinc_rl *b, const struct optinc_rl_conf *c,
		   __u64 now)
{
	if (!c->interval)
		return 1;
	if (!b->primed || (__s64)(now - b->tat) > 0) {
		b->tat = now;
		b->primed = 1;
	}
	if ((__s64)(b->tat - now) > (__s64)c->tau)
		return 0;
	b->tat += c->interval;
	return 1;
}

/**
 * optinc_rl_charged() - is a frame one of those the limit counts?
 * @job: the job it names (NULL: no such job)
 * @m:   the frame, parsed by optinc_msg_parse()
 * @src: its source address and UDP port
 *
 * JOINs (every one: they are answered, and they are how a token is
 * guessed), and frames of a job that fail its token or membership check.
 * A member's DATA with the token is not: a flood of guesses never costs a
 * member its contributions.
 *
 * Return: 1 when charged.
 */
int optinc_rl_charged(const struct optinc_job *job, const struct optinc_msg *m,
		      const struct optinc_endpoint *src)
{
	if (m->type == OPTINC_T_JOIN)
		return 1;
	if (!job)
		return 0;
	return m->token != job->token || !optinc_job_is_member(job, m, src);
}

/**
 * optinc_rl_rx() - charge a frame to its port's bucket, before the token check
 * @b:   the port's bucket
 * @c:   the limit (interval 0: off, everything is OPTINC_RL_FREE)
 * @job: the job the frame names, or NULL
 * @m:   the frame
 * @src: its source address and UDP port
 * @now: the datapath's clock, in the ticks @c was set for
 *
 * The caller serialises calls for one bucket (one lcore, or a lock).
 *
 * Return: OPTINC_RL_FREE (not charged), OPTINC_RL_PASS (charged, go on as
 * without a limit: a bad token is still dropped as bad_token), or
 * OPTINC_RL_LIMITED (drop, count rate_limited, send nothing, not even a
 * NACK).
 */
enum optinc_rl_verdict optinc_rl_rx(struct optinc_rl *b,
				    const struct optinc_rl_conf *c,
				    const struct optinc_job *job,
				    const struct optinc_msg *m,
				    const struct optinc_endpoint *src,
				    __u64 now)
{
	if (!c->interval || !optinc_rl_charged(job, m, src))
		return OPTINC_RL_FREE;
	return optinc_rl_take(b, c, now) ? OPTINC_RL_PASS : OPTINC_RL_LIMITED;
}
