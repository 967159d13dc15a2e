// SPDX-License-Identifier: GPL-2.0
/*
 * optinc.ko: frames leaving the switch. Frames it forwards go out of one
 * port or are flooded (clones); frames it builds (results, acks) go out
 * of the port the switch's rules chose, or where the FDB says. A message's
 * answers are built under its job's lock into a queue and sent after the
 * lock is dropped (agg.c), so no device is entered with a job locked.
 * A slot's results (unit T) share one payload page among the members'
 * frames (optinc_tx_results()).
 */
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include "optinc_kmod.h"

/*
 * Off by default; set, every member's result frame is built whole (one
 * copy of the elements each), as before the shared page: for comparing
 * the two (vm-tests.sh's BENCH lines) and as a way out.
 */
static bool results_copy;
module_param(results_copy, bool, 0644);
MODULE_PARM_DESC(results_copy,
		 "build every member's result frame whole instead of sharing one payload page (default off)");

/* Send @skb (data at the Ethernet header) out of @port; consumes it. */
void optinc_dp_xmit(struct optinc_kport *port, struct sk_buff *skb)
{
	unsigned int len = skb->len;
	int rc;

	skb->dev = port->dev;
	if (unlikely(!is_skb_forwardable(port->dev, skb))) {
		optinc_count(port->stats, OPTINC_STATS_A_TX_ERRORS, 1);
		kfree_skb(skb);
		return;
	}
	/* net_xmit_eval() evaluates its argument twice */
	rc = dev_queue_xmit(skb);
	if (net_xmit_eval(rc)) {
		optinc_count(port->stats, OPTINC_STATS_A_TX_ERRORS, 1);
		return;
	}
	optinc_count(port->stats, OPTINC_STATS_A_TX_FRAMES, 1);
	optinc_count(port->stats, OPTINC_STATS_A_TX_BYTES, len);
}

/* Send a copy of @skb to every port but @in (NULL: all); consumes @skb. */
void optinc_dp_flood(struct optinc_kswitch *sw, struct optinc_kport *in,
		     struct sk_buff *skb)
{
	struct optinc_kport *port;
	struct sk_buff *c;

	list_for_each_entry_rcu(port, &sw->ports, node) {
		if (port == in)
			continue;
		c = skb_clone(skb, GFP_ATOMIC);
		if (!c) {
			optinc_count(port->stats, OPTINC_STATS_A_TX_ERRORS, 1);
			continue;
		}
		optinc_dp_xmit(port, c);
	}
	consume_skb(skb);
}

/* A frame the switch built: to its destination's port, or everywhere. */
static void tx_send_built(struct optinc_kswitch *sw, struct sk_buff *skb)
{
	struct optinc_kport *out = optinc_fdb_lookup(sw, eth_hdr(skb)->h_dest);

	if (out)
		optinc_dp_xmit(out, skb);
	else
		optinc_dp_flood(sw, NULL, skb);
}

/* Send what a message's answers queued on @q, each to its port. */
void optinc_tx_queue(struct optinc_kswitch *sw, struct sk_buff_head *q)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q))) {
		if (OPTINC_TX_OUT(skb))
			optinc_dp_xmit(OPTINC_TX_OUT(skb), skb);
		else
			tx_send_built(sw, skb);
	}
}

/* An empty frame of @len bytes for the switch to build, going out of @out. */
struct sk_buff *optinc_tx_alloc(u32 len, struct optinc_kport *out)
{
	struct sk_buff *skb = alloc_skb(NET_SKB_PAD + len, GFP_ATOMIC);

	if (!skb)
		return NULL;
	skb_reserve(skb, NET_SKB_PAD);
	skb_put(skb, len);
	skb_reset_mac_header(skb);
	skb_set_network_header(skb, ETH_HLEN);
	skb->protocol = htons(ETH_P_IP);
	OPTINC_TX_OUT(skb) = out;
	return skb;
}

/* Member @rank's result frame: its headers, then the shared @pg. */
static struct sk_buff *tx_result_frag(const struct optinc_job *job,
				      const struct optinc_slot *s,
				      const struct optinc_endpoint *sw,
				      u16 rank, struct optinc_kport *out,
				      u32 hdr, struct page *pg)
{
	struct sk_buff *skb = optinc_tx_alloc(hdr, out);

	if (!skb)
		return NULL;
	if (optinc_build_result_hdr(skb->data, hdr, job, s, sw, rank) != hdr) {
		kfree_skb(skb);
		return NULL;
	}
	get_page(pg);
	skb_fill_page_desc(skb, 0, pg, 0, s->res_len);
	skb->len += s->res_len;
	skb->data_len += s->res_len;
	skb->truesize += page_size(pg);
	return skb;
}

/**
 * optinc_tx_results() - unit T on one payload: slot @s to every member
 * @q:   the queue the frames go to (sent once the job's lock is dropped)
 * @out: every member's port (NULL: where the FDB says)
 * @job: the job
 * @s:   a complete slot
 * @sw:  the switch's address, the frames' source
 *
 * The elements are copied once, into a page of their own; each member's
 * frame is its headers in the linear part and that page as its one
 * fragment (a reference each; the page is freed with the last frame).
 * Ports and sockets read fragments as they read a linear frame.
 *
 * Return: the frames queued, or -errno before any was queued (the rules
 * then build every frame whole): results_copy set, no elements, or no
 * page.
 */
int optinc_tx_results(struct sk_buff_head *q, struct optinc_kport **out,
		      const struct optinc_job *job, const struct optinc_slot *s,
		      const struct optinc_endpoint *sw)
{
	u32 hdr = OPTINC_FRAME_OVERHEAD + OPTINC_SCALES_LEN(s->nscale);
	struct sk_buff *skb;
	struct page *pg;
	int sent = 0;
	u16 r;

	if (READ_ONCE(results_copy) || !s->res_len)
		return -EOPNOTSUPP;
	/* a 9000-byte MTU's payload takes order 2; none free: copies */
	pg = alloc_pages(GFP_ATOMIC | __GFP_COMP | __GFP_NOWARN,
			 get_order(s->res_len));
	if (!pg)
		return -ENOMEM;
	memcpy(page_address(pg), s->res, s->res_len);
	for (r = 0; r < job->size; r++) {
		skb = tx_result_frag(job, s, sw, r, out[r], hdr, pg);
		if (!skb)
			break;	/* the ranks from r on count as not sent */
		__skb_queue_tail(q, skb);
		sent++;
	}
	put_page(pg);	/* the frames hold it now */
	return sent;
}
