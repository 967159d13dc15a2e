// SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
/*
 * Sending a phase's frames through the switch: a sliding window of frames
 * in flight, results matched to frames by seq, retransmission (at once when
 * a later result's hint says a frame or its result was lost, else on an
 * adaptive timeout with exponential back-off; the newest frame without
 * a result probes once after a quiet spell; Documentation/library.md,
 * "Reliability"). Frame seq0 + i may go out
 * once frame i - window is done, which is what lets the switch reuse a
 * slot's other copy (Documentation/contract.md, W3 and S8).
 */
#include <string.h>

#include "pipe.h"

struct pipe_state {
	__u32 seq0;
	__u32 low;	/* first frame without its result */
	__u32 next;	/* first frame not sent yet */
	__u64 sync_us;	/* first result came: every rank was in the call */
	__u64 rx_us;	/* last result (or the start) */
	__u32 hi;	/* one past the latest frame with its result */
	__u64 heard_us;	/* last frame from the switch (or the start) */
	__u64 probe_us;	/* last probe sent */
	int tlp;	/* a tail probe may go: none since the last result */
};

/**
 * optinc_frame_elems() - elements per frame for a phase
 * @bytes: the larger of the bytes per element sent and received
 * @block: elements per scale, 0 for frames without scales
 * Return: the largest count (a multiple of @block) whose frame fits the
 * MTU, the switch's slot size and OPTINC_MAX_SCALES; 0 if none does.
 */
__u32 optinc_frame_elems(const struct optinc_comm *c, unsigned int bytes,
			 unsigned int block)
{
	__u32 room = c->cfg.mtu - OPTINC_IP_UDP_LEN - OPTINC_HDR_LEN;
	__u32 k;

	if (!block)
		return OPTINC_MIN(room / bytes, c->sw_max_elems);
	k = OPTINC_MIN(c->sw_max_elems / block, OPTINC_MAX_SCALES);
	while (k && OPTINC_SCALES_LEN(k) + k * block * bytes > room)
		k--;
	return k * block;
}

static __u32 pipe_frame_n(const struct optinc_phase *p, __u32 i)
{
	return OPTINC_MIN(p->per_frame, p->count - i * p->per_frame);
}

static __u8 pipe_nscale(const struct optinc_phase *p, __u32 n)
{
	return p->block ? OPTINC_DIV_UP(n, p->block) : 0;
}

static __u8 *pipe_buf(const struct optinc_comm *c, __u32 i)
{
	return c->tx + (size_t)(i % c->window) * c->tx_room;
}

static void pipe_build(struct optinc_comm *c, const struct optinc_phase *p,
		       const struct pipe_state *ps, __u32 i)
{
	__u8 *buf = pipe_buf(c, i);
	__u32 n = pipe_frame_n(p, i), seq = ps->seq0 + i;
	struct optinc_msg m = {
		.type = OPTINC_T_DATA, .job = c->cfg.job, .rank = c->cfg.rank,
		.token = c->cfg.token, .seq = seq,
		.slot = seq % c->sw_window,
		.flags = (seq / c->sw_window) & 1 ? OPTINC_F_SHADOW : 0,
		.op = p->op, .count = n, .bits = p->bits,
		.nscale = pipe_nscale(p, n), .block = p->block, .tag = p->tag,
	};
	__s8 *scales = (__s8 *)(buf + OPTINC_HDR_LEN);
	struct optinc_pending *pd = &c->pend[i % c->window];

	optinc_hdr_fill((struct optinc_hdr *)buf, &m);
	memset(scales, 0, OPTINC_SCALES_LEN(m.nscale));
	p->fill(p, i, n, scales,
		(__u8 *)scales + OPTINC_SCALES_LEN(m.nscale));
	pd->len = OPTINC_HDR_LEN + optinc_msg_payload_len(m.bits, n, m.nscale);
	pd->done = 0;
}

static __u32 pipe_cap_us(const struct optinc_comm *c)
{
	return 1000 * OPTINC_MAX(OPTINC_RETX_CAP_MS, c->cfg.retx_ms);
}

/* RFC 6298 with retx_ms as the floor: the timeout follows queueing delay. */
static void pipe_rtt_sample(struct optinc_comm *c, __u32 us)
{
	struct optinc_rtt *r = &c->rtt;
	__u32 dev;

	if (!r->srtt_us) {
		r->srtt_us = us ? us : 1;
		r->rttvar_us = us / 2;
	} else {
		dev = r->srtt_us > us ? r->srtt_us - us : us - r->srtt_us;
		r->rttvar_us = (3 * r->rttvar_us + dev) / 4;
		r->srtt_us = (7 * r->srtt_us + us) / 8;
	}
	r->rto_us = OPTINC_MIN(OPTINC_MAX(r->srtt_us + 4 * r->rttvar_us,
					  1000 * c->cfg.retx_ms),
			       pipe_cap_us(c));
}

/*
 * Sample only frames sent once every rank was in the call (Karn's rule
 * too): how late the last rank arrives is no round trip.
 */
static void pipe_rtt_update(struct optinc_comm *c, struct pipe_state *ps,
			    const struct optinc_pending *pd)
{
	__u64 now = optinc_now_us();

	ps->rx_us = now;
	ps->tlp = 1;
	if (!ps->sync_us)
		ps->sync_us = now;
	else if (!pd->resent && pd->first_us >= ps->sync_us)
		pipe_rtt_sample(c, now - pd->first_us);
}

static void pipe_arm(struct optinc_comm *c, struct optinc_pending *pd,
		     __u64 now)
{
	pd->first_us = pd->sent_us = now;
	pd->resent = 0;
	pd->later = 0;
	pd->kick = 0;
	pd->held = 0;
	pd->backoff_us = c->rtt.rto_us ? c->rtt.rto_us : 1000 * c->cfg.retx_ms;
}

/*
 * A frame is overdue once its timeout has passed since it was sent and
 * since the last result came: while results flow, the frames behind are
 * queued, not lost (a window sent in one burst drains one by one). A frame
 * the switch holds waits twice as long: the rank whose contribution is
 * missing goes first, and its completing the slot answers us too.
 */
static __u64 pipe_due(const struct pipe_state *ps,
		      const struct optinc_pending *pd)
{
	return OPTINC_MAX(pd->sent_us, ps->rx_us) +
	       ((__u64)pd->backoff_us << pd->held);
}

/* Send every frame the window allows. */
static int pipe_fill(struct optinc_comm *c, const struct optinc_phase *p,
		     struct pipe_state *ps)
{
	__u64 now = optinc_now_us();
	unsigned int n = 0;

	while (ps->next < p->nframes && ps->next < ps->low + c->window) {
		pipe_build(c, p, ps, ps->next);
		pipe_arm(c, &c->pend[ps->next % c->window], now);
		c->txp[n].buf = pipe_buf(c, ps->next);
		c->txp[n].len = c->pend[ps->next % c->window].len;
		n++;
		ps->next++;
	}
	return n ? optinc_xmit(c, c->txp, n) : 0;
}

static int pipe_timeout(struct optinc_comm *c, __u32 seq)
{
	return optinc_seterr(c, OPTINC_ERR_TIMEOUT,
			     "allreduce: no result for seq %u after %u ms (switch %s); a rank may be missing",
			     seq, c->cfg.timeout_ms, c->cfg.sw_str);
}

/*
 * When frame @i goes again: at once when later results say it was lost;
 * when overdue if it is a hole (a later frame has its result) or the first
 * frame without a result after all that have one. Frames behind that one
 * wait: with nothing coming back, one frame probes whether the switch or
 * a slow rank holds things up, instead of the whole window going again.
 * A hole the switch holds (its hint) waits too, unless it is the oldest:
 * another rank's frame is missing there. Any frame fails when it is
 * timeout_ms old.
 */
static __u64 pipe_when(const struct optinc_comm *c,
		       const struct pipe_state *ps, __u32 i)
{
	const struct optinc_pending *pd = &c->pend[i % c->window];
	__u64 give_up = pd->first_us + 1000ULL * c->cfg.timeout_ms;

	if (pd->kick)
		return 0;
	if (i > OPTINC_MAX(ps->hi, ps->low) || (pd->held && i != ps->low))
		return give_up;
	return OPTINC_MIN(pipe_due(ps, pd), give_up);
}

/* Re-send frames whose result is overdue; fail the ones overdue for good. */
static int pipe_retx(struct optinc_comm *c, const struct pipe_state *ps)
{
	__u64 now = optinc_now_us(), limit = 1000ULL * c->cfg.timeout_ms;
	struct optinc_pending *pd;
	unsigned int n = 0;
	__u32 i;

	for (i = ps->low; i < ps->next; i++) {
		pd = &c->pend[i % c->window];
		if (pd->done)
			continue;
		if (now - pd->first_us >= limit)
			return pipe_timeout(c, ps->seq0 + i);
		if (pipe_when(c, ps, i) > now)
			continue;
		if (!pd->kick)	/* a timeout; a hint's loss report is none */
			pd->backoff_us = OPTINC_MIN(2 * pd->backoff_us,
						    pipe_cap_us(c));
		pd->resent = 1;
		pd->kick = 0;
		pd->later = 0;
		pd->sent_us = now;
		c->txp[n].buf = pipe_buf(c, i);
		c->txp[n].len = pd->len;
		n++;
	}
	c->st.retransmits += n;
	return n ? optinc_xmit(c, c->txp, n) : 0;
}

/*
 * The tail probe (after TCP's, RFC 8985). A rank waits only when nothing
 * more may be sent: every frame of the phase is out, or the window is
 * full. Then no later frame is to come whose result could carry a hint
 * about the last ones (the tail of a phase, or the frame a full window
 * waits for), so if no result has come for PTO since the last result (or
 * the newest frame's sending), the newest frame without a result goes
 * again, once until the next result. If its contribution was lost, the
 * copy completes the slot; if its result was lost, the switch re-sends
 * it; either result carries the hint for the frames before it. If the
 * switch holds it and waits for another rank, the copy is dropped as a
 * duplicate, and that rank's own probe is what ends the wait.
 *
 * PTO is retx_ms / 4: the timeout's floor is what the jitter of this
 * network and these hosts needs, and a spurious probe costs one frame,
 * not a backed-off timeout. (A smoothed gap between results was tried:
 * the wait for another rank's recovery is a gap too, and it pushed PTO
 * towards the timeout after every loss.) A frame the hint says is held
 * probes at twice PTO, so the rank whose contribution is missing goes
 * first. No probe is sent when the frame's own timeout comes as early;
 * the probe does not back that timeout off, and its round trip is no
 * sample (Karn).
 */
static __u32 pipe_pto_us(const struct optinc_comm *c)
{
	return 1000 * c->cfg.retx_ms / OPTINC_TLP_DIV;
}

/* The frame to probe: the newest without a result, or -1. */
static int pipe_tlp_frame(const struct optinc_comm *c,
			  const struct pipe_state *ps)
{
	__u32 i;

	if (!ps->tlp)
		return -1;
	for (i = ps->next; i-- > ps->low;)
		if (!c->pend[i % c->window].done)
			return (int)i;
	return -1;
}

static __u64 pipe_tlp_when(const struct optinc_comm *c,
			   const struct pipe_state *ps)
{
	int i = pipe_tlp_frame(c, ps);
	const struct optinc_pending *pd;
	__u64 pto;

	if (i < 0)
		return ~0ULL;
	pd = &c->pend[i % c->window];
	pto = pipe_pto_us(c);
	if (pto >= pd->backoff_us)
		return ~0ULL;
	return OPTINC_MAX(ps->rx_us, pd->sent_us) + (pto << pd->held);
}

static int pipe_tlp(struct optinc_comm *c, struct pipe_state *ps)
{
	struct optinc_pending *pd;
	int i;

	if (pipe_tlp_when(c, ps) > optinc_now_us())
		return 0;
	i = pipe_tlp_frame(c, ps);
	pd = &c->pend[i % c->window];
	pd->resent = 1;
	ps->tlp = 0;
	c->st.tail_probes++;
	c->st.retransmits++;
	c->txp[0].buf = pipe_buf(c, i);
	c->txp[0].len = pd->len;
	return optinc_xmit(c, c->txp, 1);
}

static __u64 pipe_probe_us(const struct optinc_comm *c)
{
	return 1000ULL * c->fo.ms / OPTINC_PROBES;
}

/*
 * Is the switch still there? After failover_ms / OPTINC_PROBES without a
 * frame from it, re-send our JOIN (same nonce: a live switch answers with
 * a JOIN_ACK and changes nothing) at that period; after failover_ms of
 * silence it is gone. A switch waiting for a slow or dead rank answers
 * the probes, so that case still ends in the timeout_ms error.
 */
static int pipe_probe(struct optinc_comm *c, struct pipe_state *ps)
{
	__u64 now = optinc_now_us(), every = pipe_probe_us(c);
	struct optinc_msg m = {
		.type = OPTINC_T_JOIN, .job = c->cfg.job, .rank = c->cfg.rank,
		.token = c->cfg.token, .seq = c->fo.nonce, .bits = c->cfg.bits,
	};
	struct optinc_hdr h;
	struct optinc_pkt pkt = { .buf = &h, .len = sizeof(h) };

	if (!c->fo.ms || now < ps->heard_us + every)
		return 0;
	if (now >= ps->heard_us + 1000ULL * c->fo.ms)
		return optinc_seterr(c, OPTINC_ERR_SWITCH_GONE,
				     "allreduce: switch %s silent for %u ms (no result, no answer to %u probes)",
				     c->cfg.sw_str, c->fo.ms, OPTINC_PROBES - 1);
	if (now < ps->probe_us + every)
		return 0;
	ps->probe_us = now;
	optinc_hdr_fill(&h, &m);
	c->st.probes++;
	return optinc_xmit(c, &pkt, 1);
}

/* Milliseconds (rounded up) until a frame is to be sent again or fails. */
static int pipe_wait_ms(const struct optinc_comm *c,
			const struct pipe_state *ps)
{
	__u64 now = optinc_now_us(), due = now + 1000ULL * c->cfg.timeout_ms;
	__u32 i;

	for (i = ps->low; i < ps->next; i++)
		if (!c->pend[i % c->window].done)
			due = OPTINC_MIN(due, pipe_when(c, ps, i));
	due = OPTINC_MIN(due, pipe_tlp_when(c, ps));
	if (c->fo.ms)
		due = OPTINC_MIN(due, OPTINC_MAX(ps->heard_us, ps->probe_us) +
				      pipe_probe_us(c));
	return due > now ? (int)((due - now + 999) / 1000) : 0;
}

/* A result must have the shape and scales of the frame it answers. */
static int pipe_check(struct optinc_comm *c, const struct optinc_phase *p,
		      __u32 i, const struct optinc_msg *m)
{
	__u32 n = pipe_frame_n(p, i);
	__u8 ns = pipe_nscale(p, n);
	const __u8 *sent = pipe_buf(c, i) + OPTINC_HDR_LEN;

	if (m->flags & OPTINC_F_MIXED)
		return optinc_seterr(c, OPTINC_ERR_PROTO,
				     "allreduce: switch %s: seq %u met contributions of different calls (a rank skipped a call, or called with another count, datatype or op)",
				     c->cfg.sw_str, m->seq);
	if (m->op != p->op || m->bits != p->rbits || m->count != n ||
	    m->nscale != ns || (ns && m->block != p->block))
		return optinc_seterr(c, OPTINC_ERR_PROTO,
				     "allreduce: switch %s answered seq %u with op %u, %u bits, %u elements, %u scales of %u (sent op %u, %u elements, %u scales of %u; want %u result bits)",
				     c->cfg.sw_str, m->seq, m->op, m->bits,
				     m->count, m->nscale, m->block, p->op, n,
				     ns, p->block, p->rbits);
	if (ns && memcmp(m->scales, sent, ns))
		return optinc_seterr(c, OPTINC_ERR_PROTO,
				     "allreduce: switch %s answered seq %u with other block exponents than were sent",
				     c->cfg.sw_str, m->seq);
	return 0;
}

/* Was @pd last sent before the frame @got whose result came? */
static int pipe_sent_before(const struct optinc_pending *pd,
			    const struct optinc_pending *got)
{
	return got->first_us > pd->sent_us ||
	       (got->first_us == pd->sent_us && !pd->resent);
}

/*
 * Fast retransmission. A switch's result @m for frame @i hints, for each
 * other frame, whether the switch holds our contribution and waits for
 * other ranks (held: wait longer), or, for a frame sent before @i, lost it
 * or already sent its result (go again now). The switch sends the result
 * after it has our frame @i, so the hint covers the frames sent before
 * @i's first transmission. Without a hint (an older switch), the switch
 * answers in the order slots complete and every rank's frames reach it in
 * the order they were sent, so after OPTINC_FAST_RETX results of frames
 * sent after frame j, j goes again without waiting for its timeout.
 */
static void pipe_fast(struct optinc_comm *c, const struct pipe_state *ps,
		      const struct optinc_pending *got, __u32 i,
		      const struct optinc_msg *m)
{
	struct optinc_pending *pd;
	__u32 j;
	int lost;

	for (j = ps->low; j < ps->next; j++) {
		pd = &c->pend[j % c->window];
		if (pd->done || (j < i && !pipe_sent_before(pd, got)))
			continue;
		lost = optinc_hint_lost(m, ps->seq0 + j);
		if (lost == 0) {
			pd->held = 1;
		} else if (lost == 1) {
			pd->kick = 1;
			pd->held = 0;
		} else if (j < i && ++pd->later >= OPTINC_FAST_RETX) {
			pd->kick = 1;
		}
	}
}

static int pipe_rx(struct optinc_comm *c, const struct optinc_phase *p,
		   struct pipe_state *ps, const struct optinc_pkt *pkt)
{
	struct optinc_pending *pd;
	struct optinc_msg m;
	__u32 i;
	int err;

	ps->heard_us = optinc_now_us();
	if (optinc_msg_parse(pkt->buf, pkt->len, &m) != OPTINC_DROP_NONE ||
	    m.type != OPTINC_T_RESULT || m.job != c->cfg.job) {
		c->st.frames_ignored++;
		return 0;
	}
	i = m.seq - ps->seq0;
	if (i >= ps->next) {
		if (optinc_seq_after(ps->seq0, m.seq))
			c->st.dup_results++;
		else
			c->st.frames_ignored++;
		return 0;
	}
	pd = &c->pend[i % c->window];
	if (i < ps->low || pd->done) {
		c->st.dup_results++;
		return 0;
	}
	err = pipe_check(c, p, i, &m);
	if (err)
		return err;
	p->take(p, i, pipe_frame_n(p, i), &m);
	pd->done = 1;
	pipe_rtt_update(c, ps, pd);
	pipe_fast(c, ps, pd, i, &m);
	ps->hi = OPTINC_MAX(ps->hi, i + 1);
	while (ps->low < ps->next && c->pend[ps->low % c->window].done)
		ps->low++;
	return 0;
}

/**
 * optinc_pipe_run() - send all of a phase's frames and take their results
 * Frames use seqs c->seq .. c->seq + nframes - 1; c->seq moves past them
 * whatever happens, so a failed call leaves the ranks' seqs in doubt.
 * Return: 0 or a result code with the comm's errmsg set.
 */
int optinc_pipe_run(struct optinc_comm *c, const struct optinc_phase *p)
{
	struct pipe_state ps = { .seq0 = c->seq, .rx_us = optinc_now_us(),
				 .tlp = 1 };
	int err = 0, n, k;

	ps.heard_us = ps.rx_us;
	while (!err && ps.low < p->nframes) {
		err = pipe_fill(c, p, &ps);
		if (err)
			break;
		n = optinc_recv(c, pipe_wait_ms(c, &ps));
		if (n < 0)
			err = n;
		for (k = 0; k < n && !err; k++)
			err = pipe_rx(c, p, &ps, &c->rxp[k]);
		if (!err)
			err = pipe_retx(c, &ps);
		if (!err)
			err = pipe_tlp(c, &ps);
		if (!err)
			err = pipe_probe(c, &ps);
	}
	c->seq = ps.seq0 + p->nframes;
	return err;
}
