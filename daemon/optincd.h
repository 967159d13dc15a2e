/* SPDX-License-Identifier: BSD-3-Clause */
/* optincd: configuration, ports, jobs and the calls between its files. */
#ifndef OPTINCD_H
#define OPTINCD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <rte_arp.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_per_lcore.h>
#include <rte_ring.h>
#include <rte_telemetry.h>
#include <optinc/core.h>
#include <optinc/bind.h>
#include <optinc/switch.h>
#include <optinc/ratelimit.h>
#include "stats.h"

#define OPTINCD_VERSION		"0.1"
#define OPTINC_BURST		32
/* Largest frame (Ethernet header to end of payload) a port carries. */
#define OPTINC_MAX_FRAME	9216
#define OPTINC_DEF_MTU		9000
#define OPTINC_DEF_IDLE_US	100
/* where `make install` puts the truth tables (daemon/build.mk sets it) */
#ifndef OPTINC_TABLE_DIR
#define OPTINC_TABLE_DIR	"/usr/local/share/optinc"
#endif

/* A --job spec: the core's job configuration, and optincd's own keys. */
struct optinc_job_conf {
	struct optinc_job_cfg job;	/* checked by optinc_job_cfg_check() */
	bool mode_set;		/* mode= given: exact stays exact */
	char *table;		/* truth-table file (onn mode), or NULL */
	uint32_t up_ip;		/* cascade: upper switch (net order); 0: none */
	uint16_t up_port;	/* its UDP port, host order */
	uint16_t up_job, up_rank;
	uint32_t up_token;
};

struct optinc_conf {
	struct optinc_endpoint sw;	/* our MAC, IPv4, UDP port (net order) */
	bool mac_set;
	bool help;			/* --help: print the usage, do nothing */
	uint16_t udp_port;		/* host order */
	uint16_t mtu;
	uint32_t idle_us;
	uint32_t rl_pps;		/* --rate-limit: charged frames/s/port, 0: off */
	uint32_t rl_burst;
	char *table_dir;		/* --table-dir, or NULL: OPTINC_TABLE_DIR */
	unsigned int nb_jobs;
	struct optinc_job_conf jobs[OPTINC_MAX_JOBS];
};

/*
 * optincd logs through DPDK's log (EAL's --log-level, syslog, the console
 * stream), with three log types, each INFO by default:
 *   optinc         start-up, options, ports, telemetry, truth tables
 *   optinc.agg     jobs' members: JOINs, rebinds
 *   optinc.uplink  cascading: the upper switch's answers
 * e.g. --log-level=optinc:debug, --log-level='optinc.*:debug' (the two
 * others), --log-level='optinc*:debug' (all three). Every line starts
 * with "optincd: "; the macros add the newline.
 */
extern int optinc_logtype;
extern int optinc_logtype_agg;
extern int optinc_logtype_uplink;

#define OPTINC_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, optinc_logtype, \
		"optincd: " fmt "\n", ##__VA_ARGS__)
#define OPTINC_LOG_AGG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, optinc_logtype_agg, \
		"optincd: " fmt "\n", ##__VA_ARGS__)
#define OPTINC_LOG_UPLINK(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, optinc_logtype_uplink, \
		"optincd: " fmt "\n", ##__VA_ARGS__)

/* Ethernet address as Linux tools print it: lowercase, colons. */
static inline void optinc_mac_fmt(char *buf, size_t len, const uint8_t *mac)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x",
		 mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
}

/* optval.c: option values and errors naming them */
extern char optinc_opts_where[512];	/* "FILE:LINE: " in a config file */
extern char optinc_opts_last[1024];	/* the last error */
int optinc_opts_err(const char *name, const char *val, const char *why);
int optinc_opts_num(const char *s, int base, unsigned long long min,
		    unsigned long long max, unsigned long long *out);

/* job_spec.c: a job spec, at start and at run time */
int optinc_opts_job_parse(struct optinc_job_conf *j, const char *name,
			  const char *val);
int optinc_opts_job_spec(const char *spec, struct optinc_job_conf *j,
			 char *why, size_t why_len);

/* options.c */
void optinc_opts_defaults(struct optinc_conf *c);
int optinc_opts_parse(struct optinc_conf *c, int argc, char **argv);
void optinc_opts_usage(const char *prog);
void optinc_opts_free(struct optinc_conf *c);
int optinc_table_find(const struct optinc_conf *c, const char *name,
		      char **path, char *why, size_t why_len);

/* eal_args.c */
int optinc_eal_args(int argc, char **argv, char ***out);
void optinc_eal_args_free(void);

/* port.c */
struct optinc_port {
	uint16_t id;
	char name[RTE_ETH_NAME_MAX_LEN];
	char driver[32];
	struct rte_ether_addr mac;
	uint16_t mtu;
	uint16_t max_frame;	/* largest frame its mbufs hold */
	uint16_t nb_txd;
	uint16_t nb_rxq;	/* rx queues: lcore i polls queue i if i < nb_rxq */
	bool tx_chain;		/* sends chained mbufs (MULTI_SEGS) */
	struct rte_mempool *pool;
} __rte_cache_aligned;

extern struct optinc_port optinc_ports[RTE_MAX_ETHPORTS];
extern uint16_t optinc_port_ids[RTE_MAX_ETHPORTS];
extern uint16_t optinc_nb_ports;

int optinc_ports_init(const struct optinc_conf *c);
void optinc_ports_close(void);
void optinc_port_tx(uint16_t port, struct rte_mbuf *m);
void optinc_ports_flush(void);
struct rte_mbuf *optinc_port_alloc(uint16_t port);
int optinc_port_alloc_hdrs(struct rte_mbuf **m, unsigned int n);

/*
 * lcore.c: the datapath lcores ("workers"). Every lcore of EAL's -l polls:
 * worker 0 is the main lcore, the others follow in EAL's order. A job is
 * served by one worker (job.c places it when it is added); worker i polls
 * rx queue i of every port that has one, sends on its own tx queue i of
 * every port, and hands a frame that belongs to another worker to it
 * through a single-producer single-consumer ring of that pair. Everything
 * a worker writes on its hot path is its own: its tx buffers, counters
 * and rate limiters below, its jobs. L2 learning, ARP, ping and cascade
 * uplinks are worker 0's (Documentation/optincd.md, "Several lcores").
 */
#define OPTINC_MAX_WORKERS	16
/* frames a ring between two workers holds: a few ms of a preempted one */
#define OPTINC_HANDOFF_RING	1024

/* What one worker counts of its own work (telemetry /optinc/lcores). */
struct optinc_lcore_stats {
	uint64_t rx_frames;	/* taken from its rx queues */
	uint64_t handed_out;	/* of those, handed to the worker of their job */
	uint64_t handed_in;	/* handed to it by other workers */
	uint64_t handoff_full;	/* not handed over: the ring was full (dropped) */
	uint64_t busy_tsc;	/* TSC cycles of rounds that had frames */
	uint64_t busy_rounds;
};

/* A worker's share of one port: its tx buffer, counters, rate limiter. */
struct optinc_port_q {
	uint16_t tx_len;
	struct rte_mbuf *tx[OPTINC_BURST];
	struct optinc_rl rl;	/* bounded abuse, per port and worker */
	struct optinc_port_stats stats;
} __rte_cache_aligned;

struct optinc_worker {
	uint16_t idx;		/* 0: the main lcore */
	uint16_t lcore;		/* EAL lcore id */
	uint16_t nb_rx;		/* ports it polls (queue idx of each) */
	uint16_t rx_ports[RTE_MAX_ETHPORTS];
	struct rte_ring *in[OPTINC_MAX_WORKERS];	/* from worker i to us */
	struct rte_ring *l2_req;	/* to worker 0: pins of our jobs' members */
	struct optinc_lcore_stats ls;
	struct optinc_sw_stats sw;
	struct optinc_port_q q[RTE_MAX_ETHPORTS];
} __rte_cache_aligned;

extern struct optinc_worker *optinc_workers;
extern unsigned int optinc_nb_workers;
RTE_DECLARE_PER_LCORE(struct optinc_worker *, optinc_wk);

/* The worker this thread is (the main thread before the loop: worker 0). */
static inline struct optinc_worker *optinc_self(void)
{
	return RTE_PER_LCORE(optinc_wk);
}

static inline struct optinc_sw_stats *optinc_sw(void)
{
	return &optinc_self()->sw;
}

static inline struct optinc_port_stats *optinc_pstats(uint16_t port)
{
	return &optinc_self()->q[port].stats;
}

int optinc_lcores_init(void);
int optinc_lcores_rings(void);
void optinc_lcores_free(void);
void optinc_lcores_run(const struct optinc_conf *c);
void optinc_lcores_stop(void);
void optinc_lcore_set_owner(uint16_t job, uint16_t worker);

/* job id -> the worker serving it (0 for no job); written by control threads */
extern uint8_t optinc_job_owner[UINT16_MAX + 1];

static inline uint16_t optinc_lcore_owner(uint16_t job)
{
	return __atomic_load_n(&optinc_job_owner[job], __ATOMIC_RELAXED);
}
void optinc_lcores_sum(void *out, size_t len, size_t off);
void optinc_sw_stats_sum(struct optinc_sw_stats *out);
void optinc_port_stats_sum(uint16_t port, struct optinc_port_stats *out);

/* l2.c */
void optinc_l2_init(void);
int optinc_l2_learn(const struct rte_ether_addr *mac, uint16_t port,
		    uint64_t now);
int optinc_l2_pin(const struct rte_ether_addr *mac, uint16_t port,
		  uint64_t now);
void optinc_l2_unpin(const struct rte_ether_addr *mac, uint16_t port,
		     uint64_t now);
int optinc_l2_lookup(const struct rte_ether_addr *mac, uint64_t now,
		     uint16_t *port);
void optinc_l2_forward(struct rte_mbuf *m, uint16_t in_port, uint64_t now);
int optinc_l2_rings(void);
void optinc_l2_rings_free(void);
void optinc_l2_take_requests(uint64_t now);
unsigned int optinc_l2_count(uint64_t now);
unsigned int optinc_l2_capacity(void);

/* arp.c */
bool optinc_arp_input(struct rte_mbuf *m, uint16_t port,
		      const struct optinc_conf *c);

/* icmp.c */
bool optinc_icmp_input(struct rte_mbuf *m, uint16_t port,
		       const struct optinc_conf *c);

/* agg.c */
/* A loaded, checked truth table. */
struct optinc_agg_table {
	struct optinc_table t;
	void *buf;		/* the whole file; t.out points into it */
	void *by_sum;		/* t.by_sum's, when the table has that form */
	char *path;
	uint32_t wrong;		/* entries that differ from the exact average */
};

/*
 * @table, @served and core.mode/core.table are written by the lcore only
 * (after start); an install hands its table over in @pending and frees
 * what the lcore leaves in @retired (table.c, optinc_agg_table_install(),
 * through job_live.c). @in_use is the control plane's (telemetry lock),
 * @op a hand-over to the lcore (job_live.c).
 */
struct optinc_agg_job {
	struct optinc_job core;
	struct optinc_job_conf conf;
	struct optinc_agg_table *table;		/* in use, or NULL */
	struct optinc_agg_table *pending;	/* waiting for the lcore */
	struct optinc_agg_table *retired;	/* replaced, to be freed */
	bool served;		/* false: frames are treated as of no job */
	void *mem;
	struct optinc_bind bind;	/* members' MAC, IP, UDP and switch port */
	struct optinc_job_stats stats;
	uint16_t worker;	/* the worker that serves it (lcore.c) */
	bool in_use;		/* the job exists (control plane) */
	/* last, and kept when an entry is freed: the lcore reads them */
	uint8_t op;		/* waiting for the lcore: OPTINC_JOB_OP_* */
	uint16_t slot;		/* index in the job table */
};

/* job.c: the job table, jobs at start and added or removed at run time */
int optinc_agg_init(const struct optinc_conf *c);
void optinc_agg_free(void);
unsigned int optinc_agg_count(void);
struct optinc_agg_job *optinc_agg_at(unsigned int i);
struct optinc_agg_job *optinc_agg_find(uint16_t id);
struct optinc_agg_job *optinc_agg_job_add(const char *spec, char *why,
					  size_t why_len);
int optinc_agg_job_del(uint16_t id, char *why, size_t why_len);

/* job_live.c: the lcores' jobs, and what control threads hand them */
#define OPTINC_JOB_OP_ADD	1
#define OPTINC_JOB_OP_DEL	2
#define OPTINC_JOB_WAIT_MS	2000	/* a control thread's wait for an op */
void optinc_live_init(struct optinc_agg_job *tab);
void optinc_live_add(struct optinc_agg_job *j);
int optinc_live_hand_over(struct optinc_agg_job *j, uint8_t op);
int optinc_live_table_hand_over(struct optinc_agg_job *j,
				struct optinc_agg_table *t,
				struct optinc_agg_table **retired);
struct optinc_agg_job *optinc_agg_live_find(uint16_t id);
void optinc_agg_sync(void);

/* table.c: truth tables */
int optinc_agg_table_load(const struct optinc_agg_job *j, const char *path,
			  struct optinc_agg_table **out, char *why,
			  size_t why_len);
void optinc_agg_table_free(struct optinc_agg_table *t);
int optinc_agg_job_table(struct optinc_agg_job *j, char *why, size_t why_len);
int optinc_agg_table_install(struct optinc_agg_job *j, const char *path,
			     char *why, size_t why_len);

/* agg.c: optincd's side of the switch's rules (lib/core/switch.c) */
struct optinc_agg_ctx {
	const struct optinc_sw *sw;	/* what the rules run on */
	uint64_t now;			/* TSC of this poll round */
	struct optinc_agg_job *seen;	/* a job not served: its counters */
};

int optinc_agg_dp_init(const struct optinc_conf *c);
const struct optinc_conf *optinc_agg_conf(void);
void optinc_agg_switch(struct optinc_sw *sw, struct optinc_agg_ctx *ctx,
		       uint64_t now);
void optinc_agg_input(struct rte_mbuf *m, uint16_t port,
		      const struct optinc_l2l4 *l, uint64_t now, bool spoofed);

/* tx.c: frames optincd builds and sends */
uint16_t optinc_tx_member_port(const struct optinc_agg_job *j, uint16_t rank,
			       uint64_t now);
struct rte_mbuf *optinc_tx_alloc(uint16_t port, uint8_t **buf, uint32_t *room);
int optinc_tx_send(struct optinc_agg_job *j, int rank, uint16_t port,
		   struct rte_mbuf *m, uint32_t len);
int optinc_tx_results(struct optinc_agg_job *j, const struct optinc_slot *s,
		      const struct optinc_endpoint *sw, uint64_t now);

/* uplink.c: cascading, a job's first-level side (Documentation/scale.md) */
int optinc_uplink_parse(struct optinc_job_conf *j, const char *val);
int optinc_uplink_init(const struct optinc_conf *c);
int optinc_uplink_setup(struct optinc_agg_job *j, char *why, size_t why_len);
void optinc_uplink_attach(struct optinc_agg_job *j);
void optinc_uplink_detach(struct optinc_agg_job *j);
bool optinc_uplink_input(const struct optinc_sw *sw,
			 const struct optinc_sw_msg *in);
void optinc_uplink_arp_request(const struct optinc_uplink *up);
uint16_t optinc_uplink_port(const struct optinc_agg_job *j, uint64_t now);
void optinc_uplink_log(const struct optinc_agg_job *j, enum optinc_sw_event ev,
		       uint32_t arg);
bool optinc_uplink_arp(const struct rte_arp_hdr *a, uint16_t port);

/* datapath.c */
uint16_t optinc_dp_owner(struct rte_mbuf *m, const struct optinc_conf *c);
void optinc_dp_input(struct rte_mbuf *m, uint16_t port,
		     const struct optinc_conf *c, uint64_t now);

/* telemetry.c */
int optinc_tlm_init(const struct optinc_conf *c);
int optinc_tlm_info(struct rte_tel_data *d, const struct optinc_conf *c,
		    uint64_t start_tsc);
int optinc_tlm_ports(struct rte_tel_data *d);
int optinc_tlm_jobs(struct rte_tel_data *d);
int optinc_tlm_job(struct rte_tel_data *d, const struct optinc_agg_job *j);
int optinc_tlm_members(struct rte_tel_data *d, const struct optinc_agg_job *j);
int optinc_tlm_lcores(struct rte_tel_data *d);
void optinc_tlm_stop(void);

#endif /* OPTINCD_H */
