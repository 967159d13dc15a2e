/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A test harness, not a datapath: a loopback UDP "switch" that runs one
 * job through the core's real state machine (optinc_job_rx) in a thread,
 * so that the library can be tested without DPDK or namespaces. It can
 * drop a share of the frames it receives and sends, or chosen frames once.
 */
#ifndef OPTINC_SELFTEST_UDPSWITCH_H
#define OPTINC_SELFTEST_UDPSWITCH_H

#include <stdint.h>
#include <optinc/core.h>

struct udpsw_opts {
	uint16_t job;		/* job id served */
	uint16_t size;		/* members */
	uint32_t token;
	uint16_t window;	/* slots, 0: 64 */
	uint16_t max_elems;	/* elements per slot, 0: OPTINC_DEF_MAX_ELEMS */
	double loss;		/* chance that a frame in or out is dropped */
	unsigned int seed;	/* of the loss draws */
	int bad_scales;		/* results carry another first exponent */
};

struct udpsw_stats {
	uint64_t rx, tx;
	uint64_t lost;			/* dropped on purpose (loss) */
	uint64_t complete, resend;	/* verdicts */
	uint64_t drops[OPTINC_DROP_NR];	/* by reason */
};

struct udpsw;

/* udpsw_drop_once(): which frame of a seq is lost */
enum udpsw_dir {
	UDPSW_DATA,	/* the member's DATA frame, on the way in */
	UDPSW_RESULT,	/* the RESULT frame to the member */
};
#define UDPSW_DROPS	8	/* one-shot drops set at once */

int udpsw_start(const struct udpsw_opts *o, struct udpsw **sw);
uint16_t udpsw_port(const struct udpsw *sw);
int udpsw_drop_once(struct udpsw *sw, enum udpsw_dir dir, uint16_t rank,
		    uint32_t seq);
void udpsw_blind(struct udpsw *sw, int rank);
void udpsw_get_stats(struct udpsw *sw, struct udpsw_stats *st);
void udpsw_stop(struct udpsw *sw);

int test_switch_start(int n, uint16_t window, double loss, struct udpsw **sw,
		      char *addr, size_t len);

#endif /* OPTINC_SELFTEST_UDPSWITCH_H */
