/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * What the OptINC XDP/TC programs (optinc_xdp.bpf.c) share with user space:
 * map and program names, map value layouts and the counter indexes.
 */
#ifndef OPTINC_BPF_H
#define OPTINC_BPF_H

#include <linux/types.h>

/* Object names in the kernel (at most 15 characters each). */
#define OPTINC_BPF_PROG_XDP	"optinc_xdp"
#define OPTINC_BPF_PROG_TC	"optinc_tc"
#define OPTINC_BPF_DISPATCHER	"xdp_dispatcher"	/* libxdp's */
#define OPTINC_BPF_MAP_CFG	"optinc_cfg"
#define OPTINC_BPF_MAP_JOBS	"optinc_jobs"
#define OPTINC_BPF_MAP_XSKS	"optinc_xsks"
#define OPTINC_BPF_MAP_CTRS	"optinc_ctrs"

/* Maps and programs are pinned in OPTINC_BPF_PIN_DIR/<ifname>/. */
#define OPTINC_BPF_FS		"/sys/fs/bpf"
#define OPTINC_BPF_PIN_DIR	OPTINC_BPF_FS "/optinc"

#define OPTINC_BPF_MAX_JOBS	256
#define OPTINC_BPF_MAX_QUEUES	64	/* XSKMAP entries: one per rx queue */
#define OPTINC_BPF_KEEP		0xff	/* dscp/pcp: leave the field alone */
#define OPTINC_BPF_DSCP_DEF	26	/* AF31, the class RoCE fabrics use */

/* Run priority in libxdp's dispatcher (lower runs first; its default: 50). */
#define OPTINC_BPF_XDP_PRIO	20

/* The TC filter: clsact egress, this handle and priority. */
#define OPTINC_BPF_TC_HANDLE	0x4f49
#define OPTINC_BPF_TC_PRIO	0x4f49

/* flags of struct optinc_bpf_cfg */
#define OPTINC_BPF_F_CLSACT	0x1	/* attach created the clsact qdisc */

/**
 * struct optinc_bpf_cfg - the one entry of the optinc_cfg array
 * @port:     OptINC UDP port (host order): a UDP datagram from or to it
 *            is an OptINC frame
 * @dscp:     DSCP written into outgoing DATA/JOIN frames, or OPTINC_BPF_KEEP
 * @pcp:      VLAN PCP of outgoing DATA/JOIN frames that carry a VLAN tag,
 *            or OPTINC_BPF_KEEP
 * @priority: skb->priority of outgoing DATA/JOIN frames, 0: leave
 * @flags:    OPTINC_BPF_F_*, bookkeeping of attach for detach
 */
struct optinc_bpf_cfg {
	__u16	port;
	__u8	dscp;
	__u8	pcp;
	__u32	priority;
	__u32	flags;
};

/**
 * struct optinc_bpf_job - value of optinc_jobs, keyed by job id (__u16,
 * host order): where the job's process receives its answers
 * @queue: rx queue its AF_XDP socket is bound to (optinc_xsks index)
 * @port:  its UDP port (host order); answers to other ports are passed
 */
struct optinc_bpf_job {
	__u32	queue;
	__u16	port;
	__u16	rsvd;
};

/* Indexes of the per-CPU optinc_ctrs array: hook, outcome, reason. */
enum optinc_bpf_ctr {
	OPTINC_CTR_XDP_REDIRECT = 0,	/* answer steered to the job's socket */
	OPTINC_CTR_XDP_PASS,		/* not an OptINC frame */
	OPTINC_CTR_XDP_PASS_OPTINC,	/* OptINC, but no registered job's answer */
	OPTINC_CTR_XDP_PASS_QUEUE,	/* job's socket is on another rx queue */
	OPTINC_CTR_XDP_PASS_NO_XSK,	/* job registered, its socket is gone */
	OPTINC_CTR_XDP_DROP_SHORT,	/* truncated: shorter than its headers say */
	OPTINC_CTR_XDP_DROP_MAGIC,	/* no OptINC magic */
	OPTINC_CTR_XDP_DROP_VERSION,	/* unsupported protocol version */
	OPTINC_CTR_XDP_DROP_TYPE,	/* unknown frame type */
	OPTINC_CTR_TC_TAGGED,		/* DATA/JOIN: DSCP, priority, PCP set */
	OPTINC_CTR_TC_OPTINC,		/* other frame to the OptINC port */
	OPTINC_CTR_TC_PASS,		/* not an OptINC frame */
	OPTINC_CTR_NR
};

struct optinc_bpf_count {
	__u64	packets;
	__u64	bytes;
};

#ifndef __bpf__
/* Counter names as "hook_outcome[_reason]", for optincctl and logs. */
static const char *const optinc_bpf_ctr_names[OPTINC_CTR_NR] = {
	[OPTINC_CTR_XDP_REDIRECT]	= "xdp_redirect",
	[OPTINC_CTR_XDP_PASS]		= "xdp_pass",
	[OPTINC_CTR_XDP_PASS_OPTINC]	= "xdp_pass_optinc",
	[OPTINC_CTR_XDP_PASS_QUEUE]	= "xdp_pass_queue",
	[OPTINC_CTR_XDP_PASS_NO_XSK]	= "xdp_pass_no_xsk",
	[OPTINC_CTR_XDP_DROP_SHORT]	= "xdp_drop_short",
	[OPTINC_CTR_XDP_DROP_MAGIC]	= "xdp_drop_magic",
	[OPTINC_CTR_XDP_DROP_VERSION]	= "xdp_drop_version",
	[OPTINC_CTR_XDP_DROP_TYPE]	= "xdp_drop_type",
	[OPTINC_CTR_TC_TAGGED]		= "tc_tagged",
	[OPTINC_CTR_TC_OPTINC]		= "tc_optinc",
	[OPTINC_CTR_TC_PASS]		= "tc_pass",
};
#endif

#endif /* OPTINC_BPF_H */
