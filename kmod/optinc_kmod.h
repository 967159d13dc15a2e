/* SPDX-License-Identifier: GPL-2.0 */
/* optinc.ko: the objects of the kernel datapath, shared by its files. */
#ifndef OPTINC_KMOD_H
#define OPTINC_KMOD_H

#include <linux/netdevice.h>
#include <linux/netlink.h>
#include <linux/kref.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <optinc/core.h>
#include <optinc/bind.h>
#include <optinc/ratelimit.h>
#include <uapi/linux/optinc.h>

#define OPTINC_KJOB_MEM_MAX	(256ull << 20)	/* slots of one job */
#define OPTINC_FDB_BITS		8
#define OPTINC_FDB_MAX		4096		/* learned addresses per switch */
#define OPTINC_FDB_AGE		(300 * HZ)

/* Per-CPU counters: cnt[] is indexed by OPTINC_STATS_A_*. */
struct optinc_kstats {
	u64	cnt[__OPTINC_STATS_A_MAX];
	u64	drops[OPTINC_DROP_NR];
	struct u64_stats_sync syncp;
};

/* A truth table loaded for a job id; jobs in onn mode hold a reference. */
struct optinc_ktable {
	struct kref	ref;
	struct optinc_table t;	/* t.out points into buf */
	u32		wrong;	/* from the file header */
	void		*buf;
	u8		*by_sum; /* t.by_sum's, when the table has that form */
};

/* The settings of a job, as optincctl and optincd name them. */
struct optinc_kjob_cfg {
	struct optinc_job_cfg job;	/* the core's, checked there */
	__be32	up_ip;		/* a first level's upper switch; 0: none */
	u16	up_port, up_job, up_rank;	/* host order */
	u32	up_token;
};

struct optinc_kjob {
	spinlock_t	lock;	/* serialises optinc_job_rx() and slot reads */
	struct optinc_job core;
	struct optinc_kjob_cfg cfg;
	struct optinc_ktable *table;
	struct optinc_bind bind;	/* port security, under @lock; ports are ifindexes */
	void		*mem;	/* the slots, optinc_job_mem() bytes */
	struct optinc_kstats __percpu *stats;
	struct optinc_uplink up;	/* core.up with cfg.up_ip, under @lock */
};

struct optinc_kswitch;

struct optinc_kport {
	struct list_head node;	/* in sw->ports: RTNL writers, RCU readers */
	struct net_device *dev;
	netdevice_tracker tracker;
	struct optinc_kswitch *sw;
	struct optinc_kstats __percpu *stats;
	spinlock_t	rl_lock;	/* the bucket; innermost (after a job's lock) */
	struct optinc_rl rl;
};

/* A table upload in progress: chunks arrive in order. */
struct optinc_tstage {
	u16	job;
	u32	total, filled;
	void	*buf;
};

/*
 * A switch instance. RTNL guards its configuration; the datapath reads
 * ports, jobs and the FDB under RCU. Objects a reader may hold are freed
 * only after synchronize_net().
 */
struct optinc_kswitch {
	struct list_head node;	/* in the namespace's list, RTNL */
	struct net	*net;
	char		name[OPTINC_NAME_LEN];
	struct optinc_endpoint ep;	/* its MAC, IPv4 address, UDP port */
	u32		rl_pps, rl_burst;	/* bounded abuse, RTNL */
	struct optinc_rl_conf rl_conf;	/* the same in ns; RTNL writes, the
					 * datapath reads each field once */
	struct list_head ports;
	unsigned int	nports;
	struct xarray	jobs;	/* id -> struct optinc_kjob */
	unsigned int	njobs;
	unsigned int	nuplinks;	/* jobs with an uplink; RTNL writes */
	struct xarray	tables;	/* id -> struct optinc_ktable, RTNL */
	struct optinc_tstage stage;
	spinlock_t	fdb_lock;	/* FDB writers */
	unsigned int	fdb_count;
	struct hlist_head fdb[1 << OPTINC_FDB_BITS];
	struct hlist_head fdb_pins[1 << OPTINC_FDB_BITS];	/* bindings' MAC, port */
	struct delayed_work fdb_gc;
};

/* switch.c */
extern struct pernet_operations optinc_switch_net_ops;
struct list_head *optinc_net_switches(struct net *net);
struct optinc_kswitch *optinc_switch_find(struct net *net, const char *name);
int optinc_switch_new(struct net *net, const char *name,
		      const struct optinc_endpoint *ep, u32 rl_pps, u32 rl_burst,
		      struct netlink_ext_ack *extack);
int optinc_switch_set_rl(struct optinc_kswitch *sw, u32 rl_pps, u32 rl_burst,
			 struct netlink_ext_ack *extack);
void optinc_switch_destroy(struct optinc_kswitch *sw);
int optinc_port_add(struct optinc_kswitch *sw, struct net_device *dev,
		    struct netlink_ext_ack *extack);
void optinc_port_del(struct optinc_kport *port);
struct optinc_kport *optinc_port_of(const struct net_device *dev);

/* fdb.c */
void optinc_fdb_init(struct optinc_kswitch *sw);
int optinc_fdb_learn(struct optinc_kswitch *sw, const u8 *mac,
		     struct optinc_kport *port);
int optinc_fdb_pin(struct optinc_kswitch *sw, const u8 *mac,
		   struct optinc_kport *port);
void optinc_fdb_unpin(struct optinc_kswitch *sw, const u8 *mac,
		      struct optinc_kport *port);
struct optinc_kport *optinc_fdb_lookup(struct optinc_kswitch *sw,
				       const u8 *mac);
void optinc_fdb_flush(struct optinc_kswitch *sw, struct optinc_kport *port);
struct optinc_kport *optinc_port_by_ifindex(struct optinc_kswitch *sw,
					    u32 ifindex);

/* dp.c */
rx_handler_result_t optinc_dp_handle_frame(struct sk_buff **pskb);

/* agg.c */
void optinc_agg_msg(struct optinc_kport *port, struct sk_buff *skb,
		    const struct optinc_l2l4 *l4, bool spoofed);
void optinc_agg_count_bind(struct optinc_kport *in, struct optinc_kjob *job,
			   int idx);

/* tx.c */
/* The port a frame the switch built goes out of; NULL: where the FDB says. */
#define OPTINC_TX_OUT(skb)	(*(struct optinc_kport **)(skb)->cb)

void optinc_dp_xmit(struct optinc_kport *port, struct sk_buff *skb);
void optinc_dp_flood(struct optinc_kswitch *sw, struct optinc_kport *in,
		     struct sk_buff *skb);
void optinc_tx_queue(struct optinc_kswitch *sw, struct sk_buff_head *q);
struct sk_buff *optinc_tx_alloc(u32 len, struct optinc_kport *out);
int optinc_tx_results(struct sk_buff_head *q, struct optinc_kport **out,
		      const struct optinc_job *job, const struct optinc_slot *s,
		      const struct optinc_endpoint *sw);

/* host.c */
bool optinc_host_arp(struct optinc_kport *port, struct sk_buff *skb);
bool optinc_host_arp_reply(struct optinc_kport *port, struct sk_buff *skb);
struct sk_buff *optinc_host_arp_request(struct optinc_kport *port,
					const struct optinc_uplink *up);
bool optinc_host_arp_spoof(struct optinc_kport *port, struct sk_buff *skb);
bool optinc_host_icmp(struct optinc_kport *port, struct sk_buff *skb);

/* job.c */
int optinc_job_set(struct optinc_kswitch *sw, const struct optinc_kjob_cfg *cfg,
		   struct netlink_ext_ack *extack);
int optinc_job_del(struct optinc_kswitch *sw, u16 id);
int optinc_job_up_fits(struct optinc_kswitch *sw, u32 mtu);
void optinc_jobs_destroy(struct optinc_kswitch *sw);
int optinc_job_retable(struct optinc_kswitch *sw, u16 id,
		       struct optinc_ktable *t, struct netlink_ext_ack *extack);
u64 optinc_job_joined(struct optinc_kjob *job);

/* table.c */
int optinc_table_chunk(struct optinc_kswitch *sw, u16 id, u32 off, u32 total,
		       const void *data, u32 len,
		       struct netlink_ext_ack *extack);
void optinc_ktable_put(struct optinc_ktable *t);
void optinc_tables_destroy(struct optinc_kswitch *sw);

/* stats.c */
struct optinc_kstats __percpu *optinc_stats_alloc(void);
int optinc_stats_fill(struct sk_buff *skb, int attr,
		      struct optinc_kstats __percpu *st, bool job);

static inline void optinc_count(struct optinc_kstats __percpu *st, int idx,
				u64 n)
{
	struct optinc_kstats *s = this_cpu_ptr(st);

	u64_stats_update_begin(&s->syncp);
	s->cnt[idx] += n;
	u64_stats_update_end(&s->syncp);
}

static inline void optinc_count_drop(struct optinc_kstats __percpu *st,
				     enum optinc_drop why)
{
	struct optinc_kstats *s = this_cpu_ptr(st);

	u64_stats_update_begin(&s->syncp);
	s->cnt[OPTINC_STATS_A_DROPPED]++;
	s->drops[why]++;
	u64_stats_update_end(&s->syncp);
}

/* netlink.c */
int optinc_nl_init(void);
void optinc_nl_exit(void);

#endif /* OPTINC_KMOD_H */
