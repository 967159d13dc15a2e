// SPDX-License-Identifier: GPL-2.0
/* optinc.ko: per-CPU counters of ports and jobs, and their netlink form. */
#include <net/netlink.h>
#include "optinc_kmod.h"

static const u8 stats_port_attrs[] = {
	OPTINC_STATS_A_RX_FRAMES, OPTINC_STATS_A_RX_BYTES,
	OPTINC_STATS_A_TX_FRAMES, OPTINC_STATS_A_TX_BYTES,
	OPTINC_STATS_A_TX_ERRORS, OPTINC_STATS_A_FORWARDED,
	OPTINC_STATS_A_FLOODED, OPTINC_STATS_A_OPTINC,
	OPTINC_STATS_A_ARP_REPLIES, OPTINC_STATS_A_ICMP_REPLIES,
	OPTINC_STATS_A_DROPPED, OPTINC_STATS_A_SPOOFED,
	OPTINC_STATS_A_WRONG_PORT, OPTINC_STATS_A_RATE_LIMITED,
};

static const u8 stats_job_attrs[] = {
	OPTINC_STATS_A_DATA, OPTINC_STATS_A_JOINS, OPTINC_STATS_A_ABSORBED,
	OPTINC_STATS_A_COMPLETED, OPTINC_STATS_A_RESENT,
	OPTINC_STATS_A_RESULTS, OPTINC_STATS_A_JOIN_ACKS,
	OPTINC_STATS_A_NACKS, OPTINC_STATS_A_TX_ERRORS,
	OPTINC_STATS_A_DROPPED, OPTINC_STATS_A_WRONG_PORT,
	OPTINC_STATS_A_SPOOFED, OPTINC_STATS_A_REBINDS,
	OPTINC_STATS_A_UP_FRAMES_OUT, OPTINC_STATS_A_UP_RESULTS_IN,
	OPTINC_STATS_A_UP_RESENDS, OPTINC_STATS_A_UP_HINTED,
	OPTINC_STATS_A_UP_RESULTS_DUP, OPTINC_STATS_A_RESULTS_SHARED,
};

/* Zeroed per-CPU counters. Return: them, or NULL. */
struct optinc_kstats __percpu *optinc_stats_alloc(void)
{
	return netdev_alloc_pcpu_stats(struct optinc_kstats);
}

static void stats_sum(struct optinc_kstats __percpu *st,
		      struct optinc_kstats *sum)
{
	struct optinc_kstats snap;
	unsigned int start, i;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct optinc_kstats *s = per_cpu_ptr(st, cpu);

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			memcpy(snap.cnt, s->cnt, sizeof(snap.cnt));
			memcpy(snap.drops, s->drops, sizeof(snap.drops));
		} while (u64_stats_fetch_retry(&s->syncp, start));
		for (i = 0; i < ARRAY_SIZE(snap.cnt); i++)
			sum->cnt[i] += snap.cnt[i];
		for (i = 0; i < ARRAY_SIZE(snap.drops); i++)
			sum->drops[i] += snap.drops[i];
	}
}

/* Drop counters reuse their set's unspec attribute as padding. */
static int stats_fill_drops(struct sk_buff *skb, const struct optinc_kstats *sum)
{
	struct nlattr *nest;
	int i;

	nest = nla_nest_start(skb, OPTINC_STATS_A_DROPS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 1; i < OPTINC_DROP_NR; i++)
		if (nla_put_u64_64bit(skb, i, sum->drops[i],
				      OPTINC_DROPS_A_UNSPEC))
			goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/**
 * optinc_stats_fill() - put a port's or job's counters in a nest
 * @skb:  the message
 * @attr: type of the nest
 * @st:   the per-CPU counters
 * @job:  whether they are a job's (protocol) or a port's (traffic)
 *
 * Return: 0, or -EMSGSIZE when @skb is full.
 */
int optinc_stats_fill(struct sk_buff *skb, int attr,
		      struct optinc_kstats __percpu *st, bool job)
{
	const u8 *which = job ? stats_job_attrs : stats_port_attrs;
	size_t i, n = job ? ARRAY_SIZE(stats_job_attrs) :
			    ARRAY_SIZE(stats_port_attrs);
	struct optinc_kstats sum;
	struct nlattr *nest;

	stats_sum(st, &sum);
	nest = nla_nest_start(skb, attr);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < n; i++)
		if (nla_put_u64_64bit(skb, which[i], sum.cnt[which[i]],
				      OPTINC_STATS_A_PAD))
			goto cancel;
	if (stats_fill_drops(skb, &sum))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}
