/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * optincd counters.
 *
 * Every counter has one writer, a datapath lcore: port and switch-wide
 * counters are per lcore (struct optinc_worker, summed by telemetry), a
 * job's are written by the one lcore that serves the job. The telemetry
 * thread reads them while the lcores run. Each counter is a naturally
 * aligned uint64_t that the writer updates with a relaxed atomic store of
 * (old + n) and readers load with a relaxed atomic load: a reader never
 * sees a torn value and the writer needs no locked instruction (both are
 * plain moves on x86-64). Counters only grow; a reader may see one counter
 * of a group a few frames ahead of another.
 */
#ifndef OPTINCD_STATS_H
#define OPTINCD_STATS_H

#include <stdint.h>
#include <rte_common.h>
#include <optinc/core.h>
#include <uapi/linux/optinc.h>

#define OPTINC_STAT_ADD(c, n) \
	__atomic_store_n(&(c), (c) + (uint64_t)(n), __ATOMIC_RELAXED)
#define OPTINC_STAT_INC(c)	OPTINC_STAT_ADD(c, 1)
#define OPTINC_STAT_GET(c)	__atomic_load_n(&(c), __ATOMIC_RELAXED)

/* Per port: what the switch received, sent and dropped there. */
struct optinc_port_stats {
	uint64_t rx_pkts;
	uint64_t rx_bytes;
	uint64_t rx_dropped;	/* received, then dropped by the switch */
	uint64_t tx_pkts;
	uint64_t tx_bytes;
	uint64_t tx_dropped;	/* queued for sending, refused by the port */
	uint64_t spoofed;	/* a bound MAC, or the switch's IP in ARP, from here */
	uint64_t wrong_port;	/* a bound member's OptINC frame from here */
	uint64_t rate_limited;	/* JOINs and bad frames past --rate-limit */
} __rte_cache_aligned;

/* Per member of a job (by rank); bytes are whole Ethernet frames. */
struct optinc_member_stats {
	uint64_t frames_in;
	uint64_t bytes_in;
	uint64_t frames_out;
	uint64_t bytes_out;
};

/*
 * Per job; bytes are whole Ethernet frames (no FCS). ctr[] holds the
 * spec's job counters (job-stats in Documentation/netlink/specs/optinc.yaml),
 * indexed by their uapi OPTINC_STATS_A_*: what the switch's rules count
 * (lib/core/sw_count.c), the same as optinc.ko's, reported under the keys
 * of tlm_ctrs.h.
 */
struct optinc_job_stats {
	uint64_t ctr[OPTINC_STATS_A_MAX + 1];
	uint64_t frames_in;	/* every frame naming this job */
	uint64_t bytes_in;
	uint64_t frames_out;	/* results, JOIN_ACKs and NACKs sent */
	uint64_t bytes_out;
	uint64_t drops[OPTINC_DROP_NR];
	struct optinc_member_stats member[OPTINC_MAX_MEMBERS];
} __rte_cache_aligned;

/* Switch-wide: L2 forwarding, ARP, ping, idle back-off, drops of no job. */
struct optinc_sw_stats {
	uint64_t polls;		/* loop rounds over the lcore's queues */
	uint64_t idle_sleeps;
	uint64_t idle_us;	/* time asked to sleep in total */
	uint64_t l2_forwarded;	/* unicast to a learned port */
	uint64_t l2_flooded;	/* unknown, broadcast or multicast */
	uint64_t l2_filtered;	/* destination on the port it came from */
	uint64_t fdb_learned;
	uint64_t fdb_moved;
	uint64_t fdb_pin_full;	/* a binding found no L2 slot to pin its MAC */
	uint64_t arp_replies;
	uint64_t icmp_replies;	/* echo replies (ping) */
	uint64_t to_switch_other; /* to our MAC, not ARP, ping or OptINC */
	uint64_t runts;		/* shorter than an Ethernet header */
	uint64_t nacks;		/* NACKs for jobs that do not exist */
	uint64_t tx_errors;
	uint64_t drops[OPTINC_DROP_NR];	/* OptINC frames of no known job */
} __rte_cache_aligned;

#endif /* OPTINCD_STATS_H */
