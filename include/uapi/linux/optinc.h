/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * Generic netlink family "optinc": control of optinc.ko, the kernel datapath
 * of the OptINC switch. Kept in step with
 * Documentation/netlink/specs/optinc.yaml, which describes it first.
 */
#ifndef _UAPI_LINUX_OPTINC_H
#define _UAPI_LINUX_OPTINC_H

#define OPTINC_GENL_NAME	"optinc"
#define OPTINC_GENL_VERSION	1

#define OPTINC_NAME_LEN		16	/* switch names, with the NUL */
#define OPTINC_NL_MAX_PORTS	64	/* member ports of one switch */
#define OPTINC_NL_MAX_JOBS	256	/* jobs of one switch */
#define OPTINC_NL_TABLE_MAX	(64u << 20)	/* largest truth-table file */
#define OPTINC_NL_CHUNK_MAX	16384	/* largest table-data chunk */
#define OPTINC_NL_WINDOW_MAX	4096	/* slots of one job */

/* enum optinc_nl_mode: how a job averages 8-bit values */
enum optinc_nl_mode {
	OPTINC_NL_MODE_EXACT,	/* exact average, rounded half to even */
	OPTINC_NL_MODE_ONN,	/* P unit + the loaded truth table */
};

enum optinc_nl_cmd {
	OPTINC_CMD_UNSPEC,
	OPTINC_CMD_SWITCH_NEW,
	OPTINC_CMD_SWITCH_DEL,
	OPTINC_CMD_SWITCH_GET,
	OPTINC_CMD_PORT_ADD,
	OPTINC_CMD_PORT_DEL,
	OPTINC_CMD_JOB_SET,
	OPTINC_CMD_JOB_DEL,
	OPTINC_CMD_JOB_GET,
	OPTINC_CMD_TABLE_LOAD,
	OPTINC_CMD_STATS_GET,
	OPTINC_CMD_SWITCH_SET,

	__OPTINC_CMD_MAX
};
#define OPTINC_CMD_MAX (__OPTINC_CMD_MAX - 1)

/* Attributes of requests and of the top level of replies. */
enum optinc_nl_attr {
	OPTINC_A_UNSPEC,
	OPTINC_A_PAD,
	OPTINC_A_SWITCH_NAME,		/* string */
	OPTINC_A_SWITCH_ADDR,		/* be32: the switch's IPv4 address */
	OPTINC_A_SWITCH_MAC,		/* binary, 6 bytes */
	OPTINC_A_SWITCH_UDP_PORT,	/* u16: OptINC UDP port */
	OPTINC_A_IFINDEX,		/* u32 */
	OPTINC_A_IFNAME,		/* string */
	OPTINC_A_JOB_ID,		/* u16 */
	OPTINC_A_JOB_SIZE,		/* u16: members */
	OPTINC_A_JOB_BITS,		/* u8: 8 or 16 */
	OPTINC_A_JOB_MODE,		/* u8: enum optinc_nl_mode */
	OPTINC_A_JOB_TOKEN,		/* u32 */
	OPTINC_A_JOB_WINDOW,		/* u16: slots */
	OPTINC_A_JOB_MAX_ELEMS,		/* u16: elements one slot holds */
	OPTINC_A_TABLE_OFFSET,		/* u32: where this chunk goes */
	OPTINC_A_TABLE_TOTAL,		/* u32: file size, with offset 0 */
	OPTINC_A_TABLE_DATA,		/* binary: a chunk of the file */
	OPTINC_A_PORT,			/* nest of OPTINC_PORT_A_*, repeated */
	OPTINC_A_JOB,			/* nest of OPTINC_JOB_A_* */
	OPTINC_A_SWITCH_RATE_LIMIT,	/* u32: JOINs and bad frames/s per port, 0: off */
	OPTINC_A_SWITCH_RATE_BURST,	/* u32: their burst, 1..65535 */

	__OPTINC_A_MAX
};
#define OPTINC_A_MAX (__OPTINC_A_MAX - 1)

/* One member port, nested in OPTINC_A_PORT. */
enum optinc_nl_port_attr {
	OPTINC_PORT_A_UNSPEC,
	OPTINC_PORT_A_IFINDEX,		/* u32 */
	OPTINC_PORT_A_IFNAME,		/* string */
	OPTINC_PORT_A_STATS,		/* nest of OPTINC_STATS_A_* */

	__OPTINC_PORT_A_MAX
};
#define OPTINC_PORT_A_MAX (__OPTINC_PORT_A_MAX - 1)

/* One job, nested in OPTINC_A_JOB. */
enum optinc_nl_job_attr {
	OPTINC_JOB_A_UNSPEC,
	OPTINC_JOB_A_PAD,
	OPTINC_JOB_A_ID,		/* u16 */
	OPTINC_JOB_A_SIZE,		/* u16 */
	OPTINC_JOB_A_BITS,		/* u8 */
	OPTINC_JOB_A_MODE,		/* u8 */
	OPTINC_JOB_A_TOKEN_SET,		/* u8: 1 when the token is not 0 */
	OPTINC_JOB_A_WINDOW,		/* u16 */
	OPTINC_JOB_A_MAX_ELEMS,		/* u16 */
	OPTINC_JOB_A_JOINED,		/* u64: bitmap of joined ranks */
	OPTINC_JOB_A_TABLE_MEMBERS,	/* u16: N of the loaded table */
	OPTINC_JOB_A_TABLE_WRONG,	/* u32: its entries that differ from exact */
	OPTINC_JOB_A_STATS,		/* nest of OPTINC_STATS_A_* */

	__OPTINC_JOB_A_MAX
};
#define OPTINC_JOB_A_MAX (__OPTINC_JOB_A_MAX - 1)

/*
 * Counters, u64 each, summed over CPUs. A port reports rx/tx/forwarding
 * counters, a job the protocol counters; both report drops by reason.
 */
enum optinc_nl_stats_attr {
	OPTINC_STATS_A_UNSPEC,
	OPTINC_STATS_A_PAD,
	OPTINC_STATS_A_RX_FRAMES,	/* frames received */
	OPTINC_STATS_A_RX_BYTES,
	OPTINC_STATS_A_TX_FRAMES,	/* frames sent */
	OPTINC_STATS_A_TX_BYTES,
	OPTINC_STATS_A_TX_ERRORS,	/* frames that could not be built or sent */
	OPTINC_STATS_A_FORWARDED,	/* frames switched to one port */
	OPTINC_STATS_A_FLOODED,		/* frames flooded to all other ports */
	OPTINC_STATS_A_OPTINC,		/* frames to the switch's OptINC port */
	OPTINC_STATS_A_ARP_REPLIES,	/* ARP requests for the switch answered */
	OPTINC_STATS_A_ICMP_REPLIES,	/* pings of the switch answered */
	OPTINC_STATS_A_DATA,		/* DATA frames for the job */
	OPTINC_STATS_A_JOINS,		/* JOIN frames for the job */
	OPTINC_STATS_A_ABSORBED,	/* contributions added to a slot */
	OPTINC_STATS_A_COMPLETED,	/* slots completed */
	OPTINC_STATS_A_RESENT,		/* results sent again to one rank */
	OPTINC_STATS_A_RESULTS,		/* RESULT frames sent */
	OPTINC_STATS_A_JOIN_ACKS,	/* JOIN_ACK frames sent */
	OPTINC_STATS_A_NACKS,		/* NACK frames sent */
	OPTINC_STATS_A_DROPPED,		/* frames dropped, all reasons */
	OPTINC_STATS_A_DROPS,		/* nest of OPTINC_DROPS_A_* */
	OPTINC_STATS_A_SPOOFED,		/* port security: a bound MAC from another
					 * port, or ARP claiming the switch's address */
	OPTINC_STATS_A_WRONG_PORT,	/* a bound member's frame not from its MAC and port */
	OPTINC_STATS_A_REBINDS,		/* job: members rebound (JOIN from a new port) */
	OPTINC_STATS_A_RATE_LIMITED,	/* port: JOINs and bad frames past the rate limit */

	__OPTINC_STATS_A_MAX
};
#define OPTINC_STATS_A_MAX (__OPTINC_STATS_A_MAX - 1)

/* Drops by reason: the numbers of enum optinc_drop in optinc/core.h. */
enum optinc_nl_drops_attr {
	OPTINC_DROPS_A_UNSPEC,
	OPTINC_DROPS_A_SHORT,
	OPTINC_DROPS_A_BAD_MAGIC,
	OPTINC_DROPS_A_BAD_VERSION,
	OPTINC_DROPS_A_BAD_TYPE,
	OPTINC_DROPS_A_BAD_SHAPE,
	OPTINC_DROPS_A_UNKNOWN_JOB,
	OPTINC_DROPS_A_BAD_TOKEN,
	OPTINC_DROPS_A_NOT_MEMBER,
	OPTINC_DROPS_A_DUPLICATE,
	OPTINC_DROPS_A_STALE,
	OPTINC_DROPS_A_MISMATCH,
	OPTINC_DROPS_A_TOO_BIG,

	__OPTINC_DROPS_A_MAX
};
#define OPTINC_DROPS_A_MAX (__OPTINC_DROPS_A_MAX - 1)

#endif /* _UAPI_LINUX_OPTINC_H */
