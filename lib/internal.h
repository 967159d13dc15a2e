/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause) */
/*
 * liboptinc internals shared by the library's files; never installed.
 * Non-static names start with optinc_ but only the functions listed in
 * liboptinc.map leave the shared object.
 */
#ifndef OPTINC_LIB_INTERNAL_H
#define OPTINC_LIB_INTERNAL_H

#include <netinet/in.h>
#include <stdarg.h>
#include <time.h>
#include <linux/types.h>

#include <optinc/optinc.h>
#include <optinc/wire.h>
#include <optinc/core.h>

#define OPTINC_ERRMSG_LEN	512
#define OPTINC_JOIN_EVERY_MS	100	/* JOIN retransmission period */
#define OPTINC_RETX_CAP_MS	500	/* retransmission back-off cap */
#define OPTINC_FAST_RETX	3	/* later results that mean "lost" */
#define OPTINC_TLP_DIV		4	/* tail probe after retx_ms / 4 of quiet */
#define OPTINC_RX_BATCH		32	/* frames read per receive call */
#define OPTINC_IP_UDP_LEN	(20 + 8)
#define OPTINC_RING_PORT	47100	/* ring: default first TCP port */
#define OPTINC_FAILOVER_MS	1000	/* switch silent this long: it is gone */
#define OPTINC_FAILBACK_CALLS	100	/* ring calls between tries of the switch */
/*
 * probes (JOINs) per silence of failover_ms: with 20 % loss each way a
 * probe's round trip fails with p = 0.36, and 19 unanswered in a row
 * (p^19 = 4e-9) is not what loss does; with 5 it was 1.7 % per silence.
 */
#define OPTINC_PROBES		20
/* internal: the switch answered nothing for failover_ms, even to probes */
#define OPTINC_ERR_SWITCH_GONE	(-EHOSTDOWN)

#define OPTINC_MIN(a, b)	((a) < (b) ? (a) : (b))
#define OPTINC_MAX(a, b)	((a) > (b) ? (a) : (b))
#define OPTINC_DIV_UP(a, b)	(((a) + (b) - 1) / (b))

struct optinc_xport_ops;
struct optinc_ring;
struct optinc_queue;

/*
 * Failing over to the ring when the switch is gone (allreduce.c): what a
 * rank keeps to finish a call without the switch. Enabled when the ranks'
 * addresses are known (opts.peers or OPTINC_PEERS) and failover_ms != 0.
 */
struct optinc_failover {
	unsigned int ms;		/* silence that means "gone"; 0: off */
	unsigned int retry_calls;	/* ring calls between tries; 0: never */
	unsigned int ring_port;
	char *peers;
	/*
	 * Of our last JOIN that completed the job (optinc_join() sets it):
	 * re-sent as a probe. Another nonce would make the switch start a
	 * new generation and forget every slot (agg_join()).
	 */
	__u32 nonce;
	/*
	 * Of every JOIN back to the switch after this fall-back: one nonce
	 * for all tries, so that a try's JOIN does not start yet another
	 * generation where a try before it left this rank registered (the
	 * others complete the job with that, then the last rank's new nonce
	 * reset it, try after try).
	 */
	__u32 back_nonce;
	int on_ring;		/* calls go through the ring now */
	__u64 calls;		/* calls that went over the network */
	__u64 base;		/* the call that fell back, the same on all */
	void *in;		/* copy of an in-place call's input */
	size_t in_cap;
	/*
	 * The last call's result, for a rank that is still in it when the
	 * switch dies: a float call through the switch keeps it as the
	 * frames brought it (block codes, then the result elements: a
	 * quarter of float32's bytes at 8 bits), which the rank behind
	 * decodes as they would have been (optinc_ar_unkeep()); any other
	 * call keeps recvbuf's bytes. next: where a float call keeps its
	 * result while it runs, swapped with last when it succeeds (last
	 * must hold the call before until then). kept: this call's result
	 * is in last already.
	 */
	void *last, *next;
	size_t last_bytes, last_cap, next_cap;
	int keep, kept;
	__u64 fallbacks, failbacks;
};

/* A communicator's settings, resolved from options, environment, defaults. */
struct optinc_cfg {
	int rank;
	int size;
	struct sockaddr_in sw;		/* switch address */
	struct sockaddr_in bind;	/* local address (INADDR_ANY, port 0) */
	char sw_str[32];		/* "a.b.c.d:port", for messages */
	__u16 job;
	__u32 token;
	unsigned int bits;
	unsigned int timeout_ms;
	unsigned int retx_ms;
	unsigned int window;
	unsigned int mtu;
	unsigned int block;
	int algo;			/* enum optinc_algo */
	int nonfinite;			/* enum optinc_nonfinite */
	const char *peers;		/* ring, failover: create only */
	unsigned int ring_port;		/* ring: rank r listens on this + r */
	unsigned int failover_ms;	/* OPTINC_FAILOVER_MS; 0: off */
	unsigned int failback_calls;	/* OPTINC_FAILBACK_CALLS */
	unsigned int xdp_queue;		/* afxdp: OPTINC_XDP_QUEUE */
	const char *afxdp_plugin;	/* OPTINC_AFXDP_PLUGIN or NULL */
	const struct optinc_xport_ops *xops;
};

/* One frame to send or a receive buffer: @len is the bytes in @buf. */
struct optinc_pkt {
	void *buf;
	__u32 len;
};

/* A frame in flight: when it was first and last sent, how long to wait. */
struct optinc_pending {
	__u64 first_us, sent_us;
	__u32 backoff_us;
	__u32 len;
	int done;
	int resent;	/* retransmitted: its round trip is no sample (Karn) */
	int later;	/* results of frames sent after it, since it was sent */
	int kick;	/* re-send now: later results say it was lost */
	int held;	/* a result's hint: the switch has it, others are missing */
};

/* Round-trip estimate (Jacobson/Karels) that sets the first timeout. */
struct optinc_rtt {
	__u32 srtt_us, rttvar_us;
	__u32 rto_us;	/* retransmission timeout of a fresh frame */
};

/* A transport's handle; each transport embeds it in its own state. */
struct optinc_xport {
	const struct optinc_xport_ops *ops;
	int icmp_refused;	/* the switch's host answered "port unreachable" */
};

struct optinc_comm {
	struct optinc_cfg cfg;
	struct optinc_xport *xp;
	struct optinc_ring *ring;	/* algo ring: TCP to the neighbours */
	__u16 sw_window;	/* the job's slots (JOIN_ACK) */
	__u16 sw_max_elems;	/* elements one slot holds (JOIN_ACK) */
	unsigned int window;	/* frames in flight: min(cfg.window, sw_window) */
	__u32 seq;		/* seq of the next frame */
	int failed;		/* result code of a call that left seq in doubt */
	__u64 calls_posted;	/* numbers the calls, the same on every rank */
	void *scratch;		/* the current call's codes and one block */
	size_t scratch_cap;
	__u8 *tx;		/* window frames of tx_room bytes */
	__u32 tx_room;
	struct optinc_pending *pend;	/* window entries, frame i at i % window */
	struct optinc_pkt *txp;		/* window entries, for batched sends */
	struct optinc_rtt rtt;
	__u8 *rx;		/* OPTINC_RX_BATCH buffers of rx_room bytes */
	__u32 rx_room;
	struct optinc_pkt rxp[OPTINC_RX_BATCH];
	struct optinc_comm_stats st;
	struct optinc_failover fo;
	struct optinc_queue *q;		/* requests and progress thread (request.c) */
	char errmsg[OPTINC_ERRMSG_LEN];	/* of the thread running calls */
};

/* One all-reduce call's arguments (allreduce.c). */
struct optinc_call {
	const void *sendbuf;
	void *recvbuf;
	size_t count;
	int datatype, op;
	__u64 no;	/* its number among the calls posted (check sets it) */
};

/* allreduce.c */
int optinc_call_check(struct optinc_comm *c, struct optinc_call *k);
int optinc_call_run(struct optinc_comm *c, const struct optinc_call *k);
__u16 optinc_call_tag(const struct optinc_comm *c, const struct optinc_call *k,
		      unsigned int phase);

/* ar_switch.c, ar_ring.c: a checked call through the switch, the ring */
int optinc_ar_switch(struct optinc_comm *c, const struct optinc_call *k);
int optinc_ar_ring(struct optinc_comm *c, const struct optinc_call *k,
		   int check);
size_t optinc_ar_kept_bytes(const struct optinc_comm *c,
			    const struct optinc_call *k);
int optinc_ar_unkeep(struct optinc_comm *c, const struct optinc_call *k,
		     const void *kept);

/* request.c */
int optinc_queue_init(struct optinc_comm *c);
void optinc_queue_fini(struct optinc_comm *c);
void optinc_queue_stats(const struct optinc_comm *c,
			struct optinc_comm_stats *st);

/* error.c */
int optinc_seterr(struct optinc_comm *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int optinc_vseterr(struct optinc_comm *c, int err, const char *fmt,
		   va_list ap) __attribute__((format(printf, 3, 0)));
void optinc_keep_create_err(const char *msg);
const char *optinc_create_errmsg(void);

/* log.c: diagnostics on stderr at or below the level of OPTINC_LOG */
enum optinc_log_level {
	OPTINC_LOG_NONE,
	OPTINC_LOG_ERROR,	/* the library cannot do what it was asked */
	OPTINC_LOG_WARN,	/* it does something else (the default level) */
	OPTINC_LOG_INFO,	/* a communicator's life: joined, transport */
	OPTINC_LOG_DEBUG,	/* settings and where each came from */
};
void optinc_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void optinc_vlog(int level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
int optinc_log_on(int level);
int optinc_log_parse(const char *name);
void optinc_log_set(int level);

/* env.c */
int optinc_cfg_resolve(struct optinc_comm *c, const struct optinc_opts *o);

/* join.c */
__u32 optinc_join_nonce(void);
int optinc_join(struct optinc_comm *c, __u32 nonce);

/* comm.c */
int optinc_failover_join(struct optinc_comm *c);
void optinc_comm_stats_now(const struct optinc_comm *c,
			   struct optinc_comm_stats *st);

/* transport.c: stats-keeping wrappers around the transport's ops */
int optinc_xmit(struct optinc_comm *c, const struct optinc_pkt *p,
		unsigned int n);
int optinc_recv(struct optinc_comm *c, int timeout_ms);

static inline __u64 optinc_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000 + (__u64)ts.tv_nsec / 1000;
}

static inline __u64 optinc_now_ms(void)
{
	return optinc_now_us() / 1000;
}

#endif /* OPTINC_LIB_INTERNAL_H */
