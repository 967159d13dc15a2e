// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Aggregation slots: the switch's state machine for one job, shared by
 * optincd and optinc.ko. Loss recovery follows the shadow-copy scheme:
 * frame seq uses slot seq % W, copy (seq / W) & 1. A rank sends seq + W
 * only after it has the result of seq, so when seq + W arrives in a copy,
 * every rank already has the result of seq - W that the copy held, while
 * the other copy keeps the result of seq for ranks that lost it.
 *
 * Results also tell each member which recent slots still wait and hold its
 * contribution (wire.h, "retransmission hint"), so that only the members
 * whose contribution or result was lost retransmit. job->low keeps the
 * oldest such slot: every seq in (newest complete - window, low) is done
 * or unused.
 */
#include <optinc/core.h>
#include "compat.h"

static __u64 agg_full(const struct optinc_job *job)
{
	return job->size >= 64 ? ~0ULL : (1ULL << job->size) - 1;
}

/* Memory for a job's slots: headers, accumulators and result buffers. */
__u64 optinc_job_mem(__u16 window, __u16 max_elems)
{
	__u64 nslots = 2ull * window;

	return nslots * (sizeof(struct optinc_slot) + sizeof(__u32 *) +
			 8ull * max_elems);
}

/**
 * optinc_job_init() - lay out a job's slots in caller-provided memory
 * @job:     id, size, token, window, max_elems, mode and table already set
 * @mem:     optinc_job_mem() bytes, 8-byte aligned
 * @mem_len: size of @mem
 *
 * Return: 0, or -EINVAL for an impossible job shape or too little memory.
 */
int optinc_job_init(struct optinc_job *job, void *mem, __u64 mem_len)
{
	__u32 i, n = 2u * job->window;
	__u8 *p = mem;

	if (!job->size || job->size > OPTINC_MAX_MEMBERS || !job->window ||
	    !job->max_elems || mem_len < optinc_job_mem(job->window, job->max_elems))
		return -EINVAL;
	if (job->mode == OPTINC_MODE_ONN &&
	    (!job->table || job->table->members != job->size))
		return -EINVAL;
	job->slots = mem;
	p += (__u64)n * sizeof(struct optinc_slot);
	job->acc_free = (__u32 **)p;
	job->nb_acc_free = 0;
	p += (__u64)n * sizeof(__u32 *);
	for (i = 0; i < n; i++) {
		job->slots[i].acc = (__u32 *)p;
		p += 4ull * job->max_elems;
		job->slots[i].res = p;
		p += 4ull * job->max_elems;
	}
	optinc_job_reset(job);
	return 0;
}

/* Forget members and slots: a new generation of the job starts. */
void optinc_job_reset(struct optinc_job *job)
{
	__u32 i;

	job->joined = 0;
	job->low = 0;
	for (i = 0; i < 2u * job->window; i++) {
		job->slots[i].valid = 0;
		job->slots[i].done = 0;
		job->slots[i].bitmap = 0;
	}
}

int optinc_job_complete(const struct optinc_job *job)
{
	return job->joined == agg_full(job);
}

/*
 * The reduction kind of an (op, bits) pair in this job, or OPTINC_K_NR.
 * An onn job whose table has a by-sum form adds values, not symbols: the
 * same bits for less work (optinc_table_by_sum()).
 */
__u8 optinc_job_kind(const struct optinc_job *job, __u8 op, __u8 bits)
{
	if (op == OPTINC_OP_AVG && bits == 8) {
		if (job->mode != OPTINC_MODE_ONN || !job->table ||
		    job->table->fanin)
			return OPTINC_K_AVG8;
		return job->table->by_sum ? OPTINC_K_ONNS8 : OPTINC_K_ONN8;
	}
	if (op == OPTINC_OP_AVG && bits == 16)
		return OPTINC_K_AVG16;
	if (op == OPTINC_OP_SUM && bits == 8)
		return OPTINC_K_SUM8;
	if (op == OPTINC_OP_SUM && bits == 16)
		return OPTINC_K_SUM16;
	if (op == OPTINC_OP_ISUM && bits == 32)
		return OPTINC_K_ISUM;
	if (op == OPTINC_OP_MAX && bits == 8)
		return OPTINC_K_MAX8;
	if (op == OPTINC_OP_MAX && bits == 16)
		return OPTINC_K_MAX16;
	if (op == OPTINC_OP_MAX && bits == 32)
		return OPTINC_K_MAX32;
	return optinc_cascade_kind(job, op, bits);
}

/*
 * A JOIN from a known rank with a new nonce is a restarted process: once
 * the job was complete, that starts a new generation, since the old
 * processes' slots and sequence numbers mean nothing to the new ones.
 */
static enum optinc_verdict agg_join(struct optinc_job *job,
				    const struct optinc_msg *m,
				    const struct optinc_endpoint *src,
				    enum optinc_drop *why)
{
	struct optinc_member *mb;
	__u64 bit;

	if (m->rank >= job->size) {
		*why = OPTINC_DROP_NOT_MEMBER;
		return OPTINC_V_NACK;
	}
	mb = &job->members[m->rank];
	bit = 1ULL << m->rank;
	if ((job->joined & bit) && mb->nonce == m->seq)
		return OPTINC_V_JOIN_ACK;	/* a retransmitted JOIN */
	if ((job->joined & bit) && optinc_job_complete(job))
		optinc_job_reset(job);
	mb->ep = *src;
	mb->nonce = m->seq;
	job->joined |= bit;
	return OPTINC_V_JOIN_ACK;
}

/* Is a slot aggregating @seq: started and still waiting for members? */
static int agg_waiting(const struct optinc_slot *s, __u32 seq)
{
	return s->valid && !s->done && s->seq == seq;
}

/*
 * optinc_job_advance() - after @upto completed (here, or for a first
 * level when the upper result came): move job->low to the oldest seq in
 * (upto - window, upto) whose slot waits, or to upto. It moves back only
 * when a slot older than it starts, so this is O(1) amortised.
 */
void optinc_job_advance(struct optinc_job *job, __u32 upto)
{
	__u32 first = upto - job->window + 1;

	if (upto - job->low >= job->window)
		job->low = first;
	while (optinc_seq_after(upto, job->low) &&
	       !agg_waiting(optinc_job_copy(job, job->low), job->low))
		job->low++;
}

/**
 * optinc_job_hint() - a RESULT's retransmission hint for one member
 * @job:  the job
 * @seq:  the result's seq
 * @rank: the member it goes to
 * @m:    the RESULT message: aux and held are set (wire.h)
 */
void optinc_job_hint(const struct optinc_job *job, __u32 seq, __u16 rank,
		     struct optinc_msg *m)
{
	__u32 o = job->low, k, slot, copy;
	const struct optinc_slot *s;

	m->held = 0;
	if (!optinc_seq_after(seq, o))
		o = seq + 1;	/* no slot before seq waits */
	else if (seq - o >= job->window || rank >= OPTINC_MAX_MEMBERS) {
		m->aux = 0;	/* cannot happen; send no hint rather than a wrong one */
		return;
	}
	m->aux = OPTINC_HINT_ON | ((seq - o) & OPTINC_HINT_DIST);
	/* agg_copy(job, o + k), stepped: no division per k (per result frame) */
	slot = o % job->window;
	copy = (o / job->window) & 1;
	for (k = 0; k < OPTINC_HINT_SPAN; k++) {
		s = &job->slots[2u * slot + copy];
		if (agg_waiting(s, o + k) && (s->bitmap >> rank & 1))
			m->held |= 1u << k;
		if (++slot == job->window) {
			slot = 0;
			copy ^= 1;
		}
	}
}

static int agg_same_shape(const struct optinc_slot *s, const struct optinc_msg *m)
{
	return s->op == m->op && s->bits == m->bits && s->count == m->count &&
	       s->block == m->block && s->nscale == m->nscale &&
	       s->tag == m->tag && !memcmp(s->scales, m->scales, m->nscale);
}

static void agg_start(struct optinc_job *job, struct optinc_slot *s,
		      const struct optinc_msg *m, __u8 kind)
{
	s->seq = m->seq;
	s->bitmap = 0;
	s->valid = 1;
	s->done = 0;
	s->up = 0;
	s->up_first = 0;
	s->up_last = 0;
	s->op = m->op;
	s->bits = m->bits;
	s->kind = kind;
	s->count = m->count;
	s->block = m->block;
	s->nscale = m->nscale;
	s->tag = m->tag;
	s->mixed = !!(m->flags & OPTINC_F_MIXED);
	memcpy(s->scales, m->scales, m->nscale);
	if (!s->acc)	/* one is free for every slot without: agg_complete() */
		s->acc = job->acc_free[--job->nb_acc_free];
	optinc_acc_load(kind, s->acc, m->elems, m->count);
}

/*
 * A member's contribution to a waiting slot: folded in, or, when it is of
 * another call (tag or shape differ: a rank skipped a call or called with
 * other arguments), counted without folding and the slot marked mixed, so
 * that every member learns it from the result instead of waiting it out.
 */
static void agg_fold(struct optinc_slot *s, const struct optinc_msg *m)
{
	if (!agg_same_shape(s, m)) {
		s->mixed = 1;
		return;
	}
	s->mixed |= !!(m->flags & OPTINC_F_MIXED);
	optinc_acc_fold(s->kind, s->acc, m->elems, m->count);
}

/**
 * optinc_job_is_member() - did the rank's registered member send this?
 * @job: the job
 * @m:   the frame
 * @src: its source address and UDP port
 *
 * Return: 1 when @m's rank has joined from @src's IPv4 address and UDP port.
 */
int optinc_job_is_member(const struct optinc_job *job,
			 const struct optinc_msg *m,
			 const struct optinc_endpoint *src)
{
	const struct optinc_endpoint *ep;

	if (m->rank >= job->size || !(job->joined & (1ULL << m->rank)))
		return 0;
	ep = &job->members[m->rank].ep;
	return ep->ip == src->ip && ep->port == src->port;
}

static enum optinc_verdict agg_complete(struct optinc_job *job,
					struct optinc_slot *s, __u32 seq)
{
	s->done = 1;
	/* the result is in s->res: the accumulators go to the next slot */
	job->acc_free[job->nb_acc_free++] = s->acc;
	s->acc = NULL;
	optinc_job_advance(job, seq);
	return OPTINC_V_COMPLETE;
}

/*
 * The contribution that completes a slot (same shape, no uplink): folded
 * and finished in one pass over the accumulators, the same bits as
 * agg_fold() then optinc_acc_finish().
 */
static enum optinc_verdict agg_last(struct optinc_job *job,
				    struct optinc_slot *s,
				    const struct optinc_msg *m, __u64 bit)
{
	s->mixed |= !!(m->flags & OPTINC_F_MIXED);
	s->bitmap |= bit;
	s->res_len = optinc_acc_fold_finish(s->kind, s->acc, m->elems, s->count,
					    optinc_cascade_members(job, s->kind),
					    job->table, s->res);
	return agg_complete(job, s, m->seq);
}

static enum optinc_verdict agg_data(struct optinc_job *job,
				    const struct optinc_msg *m,
				    const struct optinc_endpoint *src,
				    enum optinc_drop *why,
				    struct optinc_slot **slot)
{
	__u8 kind = optinc_job_kind(job, m->op, m->bits);
	struct optinc_slot *s;
	__u64 bit;

	if (!optinc_job_is_member(job, m, src)) {
		*why = OPTINC_DROP_NOT_MEMBER;
		return OPTINC_V_DROP;
	}
	bit = 1ULL << m->rank;	/* rank < size <= 64: checked just above */
	*why = OPTINC_DROP_SHAPE;
	if (kind == OPTINC_K_NR || m->slot >= job->window ||
	    m->slot != m->seq % job->window ||
	    (m->flags & OPTINC_F_SHADOW) != ((m->seq / job->window) & 1) ||
	    !optinc_cascade_shape_ok(job, m, kind))
		return OPTINC_V_DROP;
	*why = OPTINC_DROP_TOO_BIG;
	if (m->count > job->max_elems)
		return OPTINC_V_DROP;

	s = &job->slots[2u * m->slot + (m->flags & OPTINC_F_SHADOW)];
	*slot = s;
	if (!s->valid || optinc_seq_after(m->seq, s->seq)) {
		agg_start(job, s, m, kind);
		if (optinc_seq_after(job->low, m->seq))
			job->low = m->seq;
	} else {
		*why = OPTINC_DROP_STALE;
		if (m->seq != s->seq)
			return OPTINC_V_DROP;
		*why = OPTINC_DROP_MISMATCH;
		if ((s->done || s->up || (s->bitmap & bit)) &&
		    !agg_same_shape(s, m))
			return OPTINC_V_DROP;
		if (s->done)
			return OPTINC_V_RESEND;
		if (s->up)
			return OPTINC_V_FORWARD;
		*why = OPTINC_DROP_DUPLICATE;
		if (s->bitmap & bit)
			return OPTINC_V_DROP;
		*why = OPTINC_DROP_NONE;
		if ((s->bitmap | bit) == agg_full(job) && !job->up &&
		    agg_same_shape(s, m))
			return agg_last(job, s, m, bit);
		agg_fold(s, m);
	}
	*why = OPTINC_DROP_NONE;
	s->bitmap |= bit;
	if (s->bitmap != agg_full(job))
		return OPTINC_V_ABSORBED;
	if (job->up) {
		s->up = 1;
		return OPTINC_V_FORWARD;
	}
	/* the slot's kind: the job's mode may change while a slot fills */
	s->res_len = optinc_acc_finish(s->kind, s->acc, s->count,
				       optinc_cascade_members(job, s->kind),
				       job->table, s->res);
	return agg_complete(job, s, m->seq);
}

/**
 * optinc_job_rx() - run one parsed message through a job's state machine
 * @job:  the job named by the message
 * @m:    the message, checked by optinc_msg_parse()
 * @src:  where it came from (the registered address of a member)
 * @why:  set to the drop reason for OPTINC_V_DROP and OPTINC_V_NACK
 * @slot: set to the slot for OPTINC_V_COMPLETE, OPTINC_V_RESEND and
 *        OPTINC_V_FORWARD
 *
 * The caller serialises calls for one job (one lcore, or a lock).
 *
 * Return: what the datapath must do next.
 */
enum optinc_verdict optinc_job_rx(struct optinc_job *job,
				  const struct optinc_msg *m,
				  const struct optinc_endpoint *src,
				  enum optinc_drop *why,
				  struct optinc_slot **slot)
{
	*why = OPTINC_DROP_NONE;
	*slot = NULL;
	if (m->token != job->token) {
		*why = OPTINC_DROP_TOKEN;
		return OPTINC_V_DROP;
	}
	if (m->type == OPTINC_T_JOIN)
		return agg_join(job, m, src, why);
	if (m->type == OPTINC_T_DATA)
		return agg_data(job, m, src, why, slot);
	*why = OPTINC_DROP_TYPE;
	return OPTINC_V_DROP;
}
