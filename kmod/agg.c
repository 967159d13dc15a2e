// SPDX-License-Identifier: GPL-2.0
/*
 * optinc.ko's side of the switch's rules (lib/core/switch.c): an OptINC
 * message to the switch is run through them under its job's lock, with
 * these ops to count on the port's and job's per-CPU counters, to pin a
 * bound member's MAC in the FDB, to apply the port's rate limit and to
 * queue the frames they decide on; the queue is sent once the lock is
 * dropped (tx.c). Port security (lib/core/bind.c) keys ports by ifindex.
 * A first-level job's uplink runs the same way (lib/core/upstate.c): its
 * frames to the upper switch go where the FDB learnt it (flooded until
 * then), and the upper switch's answers are taken before the job lookup.
 */
#include <linux/etherdevice.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/timekeeping.h>
#include <optinc/switch.h>
#include "optinc_kmod.h"

/* One message's run through the rules: where it came from, what it sends. */
struct agg_ctx {
	struct optinc_kswitch *sw;
	struct optinc_kport *in;
	struct sk_buff_head q;
};

static struct optinc_kjob *agg_job(struct optinc_job *core)
{
	return core ? container_of(core, struct optinc_kjob, core) : NULL;
}

/*
 * Where @rank's results and acks go: its bound port (*@out), NULL for a
 * rank never bound (the FDB then), or -ENODEV when the bound port was
 * removed: never flooded, the member rebinds with its next JOIN.
 */
static int agg_member_out(struct optinc_kswitch *sw, struct optinc_kjob *job,
			  u16 rank, struct optinc_kport **out)
{
	u32 ifindex;

	*out = NULL;
	if (optinc_bind_port(&job->bind, rank, &ifindex))
		return 0;
	*out = optinc_port_by_ifindex(sw, ifindex);
	return *out ? 0 : -ENODEV;
}

static int agg_alloc(void *dp, struct optinc_job *core,
		     const struct optinc_sw_msg *in, int rank, u32 len,
		     struct optinc_sw_frame *f)
{
	struct agg_ctx *ctx = dp;
	struct optinc_kport *out = ctx->in;
	struct sk_buff *skb;

	if (rank == OPTINC_SW_TO_UP)
		out = NULL;	/* where the FDB learnt the upper switch */
	else if (rank >= 0 && agg_member_out(ctx->sw, agg_job(core), rank, &out))
		return -ENODEV;
	skb = optinc_tx_alloc(len, out);
	if (!skb)
		return -ENOMEM;
	f->buf = skb->data;
	f->room = len;
	f->priv = skb;
	return 0;
}

/* Queued, to be sent once the job's lock is dropped. */
static int agg_send(void *dp, struct optinc_job *core,
		    const struct optinc_sw_msg *in, int rank,
		    struct optinc_sw_frame *f, u32 len)
{
	struct agg_ctx *ctx = dp;
	struct sk_buff *skb = f->priv;

	if (!len) {
		kfree_skb(skb);
		return -EINVAL;
	}
	skb_trim(skb, len);
	__skb_queue_tail(&ctx->q, skb);
	return 0;
}

/*
 * Unit T: slot @s's result to every member on one payload (tx.c). A member
 * whose bound port is gone gets no frame either way: the rules' one frame
 * each counts its error.
 */
static int agg_results(void *dp, struct optinc_job *core,
		       const struct optinc_slot *s)
{
	struct optinc_kport *out[OPTINC_MAX_MEMBERS];
	struct agg_ctx *ctx = dp;
	u16 r;

	for (r = 0; r < core->size; r++)
		if (agg_member_out(ctx->sw, agg_job(core), r, &out[r]))
			return -ENODEV;
	return optinc_tx_results(&ctx->q, out, core, s, &ctx->sw->ep);
}

/* A port-security drop of a frame from @in (naming @job, if known). */
void optinc_agg_count_bind(struct optinc_kport *in, struct optinc_kjob *job,
			   int idx)
{
	optinc_count(in->stats, idx, 1);
	optinc_count_drop(in->stats, OPTINC_DROP_NONE);
	if (job)
		optinc_count(job->stats, idx, 1);
}

/* The port's side of an event (its job's is optinc_sw_job_counter()'s). */
static void agg_count_port(struct optinc_kport *in, struct optinc_kjob *job,
			   enum optinc_sw_event ev, u32 arg)
{
	switch (ev) {
	case OPTINC_SW_DROPPED:
		optinc_count_drop(in->stats, arg);
		break;
	case OPTINC_SW_SPOOFED:
	case OPTINC_SW_WRONG_PORT:
		optinc_agg_count_bind(in, NULL, ev == OPTINC_SW_SPOOFED ?
				      OPTINC_STATS_A_SPOOFED :
				      OPTINC_STATS_A_WRONG_PORT);
		break;
	case OPTINC_SW_RATE_LIMITED:
		optinc_agg_count_bind(in, NULL, OPTINC_STATS_A_RATE_LIMITED);
		break;
	case OPTINC_SW_TX_ERROR:
		if (!job)	/* an answer of no job: the port's error */
			optinc_count(in->stats, OPTINC_STATS_A_TX_ERRORS, 1);
		break;
	default:
		break;
	}
}

/* The rules' events, on the job's and the port's counters (uapi). */
static void agg_count(void *dp, struct optinc_job *core,
		      const struct optinc_sw_msg *in, enum optinc_sw_event ev,
		      u32 arg)
{
	struct optinc_kjob *job = agg_job(core);
	struct agg_ctx *ctx = dp;
	unsigned int c;
	u32 n;

	c = optinc_sw_job_counter(ev, arg, &n);
	if (job && c == OPTINC_STATS_A_DROPPED)
		optinc_count_drop(job->stats, arg);
	else if (job && c)
		optinc_count(job->stats, c, n);
	agg_count_port(ctx->in, job, ev, arg);
	if (ev == OPTINC_SW_UP_NACKED)
		net_warn_ratelimited("optinc: %s: job %u: upper switch job %u refused the JOIN, reason %u\n",
				     ctx->sw->name, job->cfg.job.id, job->up.job, arg);
	else if (ev == OPTINC_SW_UP_WINDOW)
		net_warn_ratelimited("optinc: %s: job %u: upper switch job %u has a window smaller than this job's: %u\n",
				     ctx->sw->name, job->cfg.job.id, job->up.job, arg);
}

/*
 * Bounded abuse: a JOIN, or a frame failing the job's token or membership
 * check (@core may be NULL), past the port's limit? The bucket has a lock
 * of its own, innermost: ports are shared by jobs.
 */
static int agg_limited(void *dp, struct optinc_job *core,
		       const struct optinc_sw_msg *in)
{
	struct optinc_kport *port = ((struct agg_ctx *)dp)->in;
	struct optinc_rl_conf c = {
		.interval = READ_ONCE(port->sw->rl_conf.interval),
		.tau = READ_ONCE(port->sw->rl_conf.tau),
	};
	enum optinc_rl_verdict v;

	if (!c.interval)
		return 0;
	spin_lock(&port->rl_lock);
	v = optinc_rl_rx(&port->rl, &c, core, in->m, in->src, ktime_get_ns());
	spin_unlock(&port->rl_lock);
	return v == OPTINC_RL_LIMITED;
}

/* A JOIN bound its member here: pin its MAC to this port (unpin the old). */
static void agg_pin(void *dp, struct optinc_job *core,
		    const struct optinc_sw_msg *in,
		    const struct optinc_endpoint *old, u32 old_if)
{
	struct agg_ctx *ctx = dp;
	struct optinc_kswitch *sw = ctx->sw;

	if (old) {
		optinc_fdb_unpin(sw, old->mac,
				 optinc_port_by_ifindex(sw, old_if));
		net_info_ratelimited("optinc: %s: job %u: rank %u moved from ifindex %u (%pM) to %s (%pM): rebound\n",
				     sw->name, agg_job(core)->cfg.job.id,
				     in->m->rank, old_if, old->mac,
				     ctx->in->dev->name, in->src->mac);
	}
	if (optinc_fdb_pin(sw, in->src->mac, ctx->in))
		optinc_count(ctx->in->stats, OPTINC_STATS_A_TX_ERRORS, 1);
}

/* Cascade: where is the upper switch? Asked on every port (tx.c floods). */
static int agg_up_arp(void *dp, struct optinc_job *core)
{
	struct agg_ctx *ctx = dp;
	struct sk_buff *skb = optinc_host_arp_request(ctx->in, core->up);

	if (!skb)
		return -ENOMEM;
	__skb_queue_tail(&ctx->q, skb);
	return 0;
}

static u32 agg_random(void *dp)
{
	return get_random_u32();
}

static u64 agg_clock_ms(void *dp)
{
	return ktime_to_ms(ktime_get());
}

static const struct optinc_sw_ops agg_ops = {
	.alloc = agg_alloc,
	.send = agg_send,
	.count = agg_count,
	.pin = agg_pin,
	.limited = agg_limited,
	.results = agg_results,
	.up_arp = agg_up_arp,
	.random = agg_random,
	.clock_ms = agg_clock_ms,
};

/*
 * An upper switch's answer to one of the switch's first-level jobs? Then
 * it is that job's, taken under its lock. Return: true when taken.
 */
static bool agg_up_input(const struct optinc_sw *sw, struct optinc_kswitch *ksw,
			 const struct optinc_sw_msg *in)
{
	struct optinc_kjob *job;
	unsigned long id;

	if (!READ_ONCE(ksw->nuplinks))
		return false;
	xa_for_each(&ksw->jobs, id, job) {
		if (!optinc_up_match(&job->core, in->m, in->src))
			continue;
		spin_lock(&job->lock);
		optinc_up_input(sw, &job->core, in);
		spin_unlock(&job->lock);
		return true;
	}
	return false;
}

/**
 * optinc_agg_msg() - an OptINC message to the switch; consumes @skb
 * @port:    where it came in
 * @skb:     the frame
 * @l4:      its addresses and UDP payload, from optinc_parse_l2l4()
 * @spoofed: its source MAC is bound to another port; only that member's
 *           JOIN may go on (a move)
 *
 * Under RCU, bottom halves disabled.
 */
void optinc_agg_msg(struct optinc_kport *port, struct sk_buff *skb,
		    const struct optinc_l2l4 *l4, bool spoofed)
{
	struct agg_ctx ctx = { .sw = port->sw, .in = port };
	struct optinc_sw sw = { .ops = &agg_ops, .dp = &ctx, .ep = &port->sw->ep };
	struct optinc_sw_msg in = {
		.src = &l4->src, .port = port->dev->ifindex, .spoofed = spoofed,
	};
	struct optinc_kjob *job = NULL;
	enum optinc_drop why;
	struct optinc_msg m;
	int ret;

	__skb_queue_head_init(&ctx.q);
	in.m = &m;
	why = optinc_msg_parse(skb->data + l4->l4_off, l4->l4_len, &m);
	if (why == OPTINC_DROP_NONE && !spoofed &&
	    agg_up_input(&sw, port->sw, &in)) {
		optinc_tx_queue(port->sw, &ctx.q);
		consume_skb(skb);
		return;
	}
	if (why == OPTINC_DROP_NONE)
		job = xa_load(&port->sw->jobs, m.job);
	if (!job) {
		ret = optinc_sw_input(&sw, NULL, NULL, &in, why);
	} else {
		spin_lock(&job->lock);
		ret = optinc_sw_input(&sw, &job->core, &job->bind, &in, why);
		spin_unlock(&job->lock);
	}
	optinc_tx_queue(port->sw, &ctx.q);
	if (ret)
		kfree_skb(skb);
	else
		consume_skb(skb);
}
