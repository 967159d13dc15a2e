/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * The switch's rules for an OptINC message to it (lib/core/switch.c), the
 * same for every datapath: port security, the rate limit, the slot state
 * machine, then the reply plan (which frames go to whom for each verdict).
 * A datapath parses the frame, finds the job and calls optinc_sw_input();
 * the rules call back through a small ops struct to count, to pin a
 * member's MAC and to send what they decide. optincd, optinc.ko, the
 * library's test switch and the fuzzer all run this code
 * (Documentation/design.md, "One switch, two datapaths").
 */
#ifndef OPTINC_SWITCH_H
#define OPTINC_SWITCH_H

#include "bind.h"

/* One message to the switch, as its datapath received it. */
struct optinc_sw_msg {
	const struct optinc_msg *m;		/* parsed */
	const struct optinc_endpoint *src;	/* who sent it */
	__u32	port;		/* where it came in: bind.c's port number */
	int	spoofed;	/* its source MAC is pinned to another port */
};

/* What happened, for the datapath's counters (and its logs). */
enum optinc_sw_event {
	OPTINC_SW_RECEIVED,	/* a frame reached its job; arg its type */
	OPTINC_SW_DROPPED,	/* arg: enum optinc_drop; no answer unless NACKed */
	OPTINC_SW_SPOOFED,	/* a MAC pinned to another port: dropped */
	OPTINC_SW_WRONG_PORT,	/* a bound member's frame from elsewhere: dropped */
	OPTINC_SW_RATE_LIMITED,	/* over the port's limit: dropped, no answer */
	OPTINC_SW_ABSORBED,	/* a contribution went into its slot */
	OPTINC_SW_COMPLETED,	/* ... and completed it: results to every member */
	OPTINC_SW_RESENT,	/* a done slot's result again, to one member */
	OPTINC_SW_JOINED,	/* a JOIN accepted */
	OPTINC_SW_REBOUND,	/* ... from a new MAC or port: arg the old port */
	OPTINC_SW_SENT,		/* a frame left; arg its type (OPTINC_T_*) */
	OPTINC_SW_TX_ERROR,	/* a frame could not be built or sent; arg type */
	OPTINC_SW_RESULTS_SHARED, /* arg: results sent on one copy of a slot */
	/* cascade, a first-level job's uplink (lib/core/upstate.c) */
	OPTINC_SW_UP_SENT,	/* a frame went up; arg its type (JOIN, DATA) */
	OPTINC_SW_UP_RESENT,	/* ... and was a slot's DATA that went up before */
	OPTINC_SW_UP_HINTED,	/* arg: DATA an upper result's hint sent again */
	OPTINC_SW_UP_RESULT,	/* an upper result completed a slot */
	OPTINC_SW_UP_RESULT_AGAIN, /* an upper result for a slot that had it */
	OPTINC_SW_UP_NACKED,	/* the upper switch refused the JOIN; arg reason */
	OPTINC_SW_UP_WINDOW,	/* its window, arg, is smaller than the job's */
	OPTINC_SW_UP_COMPLETE,	/* the upper job has all members; arg window */
	OPTINC_SW_NR_EVENTS
};

/* The @rank of a frame to a first-level job's upper switch (job->up->sw). */
#define OPTINC_SW_TO_UP		(-2)

/* A frame being built: the datapath's buffer and what it needs back. */
struct optinc_sw_frame {
	void	*buf;		/* where the frame starts */
	__u32	room;		/* bytes there */
	void	*priv;		/* the datapath's (mbuf, skb) */
	__u32	port;		/* the datapath's: where it goes, found once */
};

/*
 * What a datapath implements. @job is the core job of the message (NULL
 * where there is none); a datapath finds its own job around it with
 * container_of(). @rank is the member a frame goes to, or -1 for "back to
 * the sender" (in->port, in->src). Optional ops may be NULL.
 */
struct optinc_sw_ops {
	/* a buffer of at least @len bytes for a frame to @rank: 0 or -errno */
	int (*alloc)(void *dp, struct optinc_job *job,
		     const struct optinc_sw_msg *in, int rank, __u32 len,
		     struct optinc_sw_frame *f);
	/* send @f, holding @len bytes; @len 0: not built, free it. 0 or -errno */
	int (*send)(void *dp, struct optinc_job *job,
		    const struct optinc_sw_msg *in, int rank,
		    struct optinc_sw_frame *f, __u32 len);
	/* count @ev of @job (NULL: the switch's) and in->port (@in may be NULL) */
	void (*count)(void *dp, struct optinc_job *job,
		      const struct optinc_sw_msg *in, enum optinc_sw_event ev,
		      __u32 arg);
	/*
	 * Pin in->src->mac to in->port in the L2 table, and unpin @old->mac
	 * from @old_port when the member moved (@old NULL: a new binding).
	 */
	void (*pin)(void *dp, struct optinc_job *job,
		    const struct optinc_sw_msg *in,
		    const struct optinc_endpoint *old, __u32 old_port);
	/* optional: is in->port over its limit for this message? */
	int (*limited)(void *dp, struct optinc_job *job,
		       const struct optinc_sw_msg *in);
	/*
	 * optional: slot @s's result to every member at once (one payload,
	 * unit T without a copy each). Return: frames sent, or -errno for
	 * "not here": the rules then build one frame per member.
	 */
	int (*results)(void *dp, struct optinc_job *job,
		       const struct optinc_slot *s);
	/*
	 * Cascade: needed where a job has an uplink (job->up). An ARP
	 * request for job->up->sw.ip from job->up->self, out of every port:
	 * 0 or -errno. Its reply goes to optinc_up_arp_reply().
	 */
	int (*up_arp)(void *dp, struct optinc_job *job);
	/* cascade: a random 32-bit number (JOIN nonces upstream) */
	__u32 (*random)(void *dp);
	/* cascade: milliseconds of a monotonic clock (the ARP requests' pace) */
	__u64 (*clock_ms)(void *dp);
};

/* A switch as its rules see it: the datapath's ops and its context. */
struct optinc_sw {
	const struct optinc_sw_ops *ops;
	void	*dp;				/* passed to every op */
	const struct optinc_endpoint *ep;	/* the switch's address */
};

int optinc_sw_input(const struct optinc_sw *sw, struct optinc_job *job,
		    struct optinc_bind *bind, const struct optinc_sw_msg *in,
		    enum optinc_drop why);
/* lib/core/sw_count.c: the events, and the job counters they add to */
void optinc_sw_count(const struct optinc_sw *sw, struct optinc_job *job,
		     const struct optinc_sw_msg *in, enum optinc_sw_event ev,
		     __u32 arg);
unsigned int optinc_sw_job_counter(enum optinc_sw_event ev, __u32 arg,
				   __u32 *n);

/* lib/core/sw_send.c: the frames the rules send to members */
void optinc_sw_result(const struct optinc_sw *sw, struct optinc_job *job,
		      const struct optinc_sw_msg *in,
		      const struct optinc_slot *s, __u16 rank);
void optinc_sw_nack(const struct optinc_sw *sw, struct optinc_job *job,
		    const struct optinc_sw_msg *in, enum optinc_drop why);
void optinc_sw_results(const struct optinc_sw *sw, struct optinc_job *job,
		       const struct optinc_slot *s);
void optinc_sw_ack(const struct optinc_sw *sw, struct optinc_job *job,
		   __u16 rank, int hold);
void optinc_sw_acks(const struct optinc_sw *sw, struct optinc_job *job);

/* lib/core/upstate.c: a first-level job's side towards its upper switch */
void optinc_up_init(struct optinc_uplink *up, const struct optinc_endpoint *self,
		    __be32 ip, __be16 udp_port, __u16 job, __u16 rank,
		    __u32 token);
__u16 optinc_up_max_elems(__u32 mtu);
int optinc_up_joined(const struct optinc_sw *sw, struct optinc_job *job,
		     const struct optinc_sw_msg *in);
void optinc_up_forward(const struct optinc_sw *sw, struct optinc_job *job,
		       const struct optinc_sw_msg *in, struct optinc_slot *s);
int optinc_up_match(const struct optinc_job *job, const struct optinc_msg *m,
		    const struct optinc_endpoint *src);
void optinc_up_input(const struct optinc_sw *sw, struct optinc_job *job,
		     const struct optinc_sw_msg *in);
int optinc_up_arp_reply(struct optinc_uplink *up, __be32 sip, __be32 tip,
			const __u8 *sha);

#endif /* OPTINC_SWITCH_H */
