// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Cascading, a first-level job's side towards its upper switch
 * (Documentation/scale.md section 3), the same for every datapath: this
 * switch is a member (up-rank) of a job (up-job) of the upper switch. Once
 * its own members have all joined it JOINs upstream and holds their JOIN
 * barrier until every switch below the upper one has joined; a complete
 * slot goes up (optinc_build_up()) instead of down, and the upper result
 * fills the slot and goes to the members (uplink.c has the arithmetic).
 * Nothing here runs on a timer: members' retransmissions of JOINs and DATA
 * drive the upstream JOINs, ARP requests and upstream re-sends, and so do
 * the upper switch's results: their retransmission hints name the upstream
 * DATA (or its result) that was lost, which goes up again at once. The
 * datapath finds the upper switch's port, sends the ARP requests, and
 * hands this the ARP replies and the upper switch's answers.
 */
#include <optinc/switch.h>
#include "compat.h"

/* ARP requests for the upper switch, at most this often */
#define UP_ARP_EVERY_MS		100

static void up_count(const struct optinc_sw *sw, struct optinc_job *job,
		     const struct optinc_sw_msg *in, enum optinc_sw_event ev,
		     __u32 arg)
{
	sw->ops->count(sw->dp, job, in, ev, arg);
}

/**
 * optinc_up_init() - a first-level job's uplink, not joined yet
 * @up:       the uplink
 * @self:     this switch's address (its MAC, IPv4 address and UDP port)
 * @ip:       the upper switch's IPv4 address, network order
 * @udp_port: its OptINC UDP port, network order
 * @job:      the upper job
 * @rank:     this switch's rank in it
 * @token:    the upper job's token
 */
void optinc_up_init(struct optinc_uplink *up, const struct optinc_endpoint *self,
		    __be32 ip, __be16 udp_port, __u16 job, __u16 rank,
		    __u32 token)
{
	memset(up, 0, sizeof(*up));
	up->sw.ip = ip;
	up->sw.port = udp_port;
	up->self = *self;
	up->job = job;
	up->rank = rank;
	up->token = token;
}

/* Elements per slot such that an upstream frame (4 bytes each) fits @mtu. */
__u16 optinc_up_max_elems(__u32 mtu)
{
	__u32 hdrs = 20 + 8 + OPTINC_HDR_LEN + OPTINC_MAX_SCALES;

	return mtu > hdrs ? (__u16)((mtu - hdrs) / 4) : 0;
}

/* Is the upper switch's MAC known? If not, ask for it (paced). */
static int up_resolved(const struct optinc_sw *sw, struct optinc_job *job)
{
	struct optinc_uplink *up = job->up;
	__u64 now;

	if (up->resolved)
		return 1;
	now = sw->ops->clock_ms(sw->dp);
	if (!up->arp_ms || now - up->arp_ms >= UP_ARP_EVERY_MS) {
		up->arp_ms = now ? now : 1;
		sw->ops->up_arp(sw->dp, job);
	}
	return 0;
}

/* At least the bytes of the JOIN (@s NULL) or of slot @s's upstream DATA. */
static __u32 up_len(const struct optinc_slot *s)
{
	if (!s)
		return OPTINC_FRAME_OVERHEAD;
	return OPTINC_FRAME_OVERHEAD + OPTINC_SCALES_LEN(s->nscale) +
	       optinc_cascade_elem_bytes(s->kind) * s->count;
}

static __u32 up_build(struct optinc_job *job, const struct optinc_slot *s,
		      void *buf, __u32 room)
{
	struct optinc_uplink *up = job->up;
	struct optinc_msg join;

	if (s)
		return optinc_build_up(buf, room, job, s);
	optinc_up_join(up, up->nonce, &join);
	return optinc_build_ctrl(buf, room, &join, &up->self, &up->sw);
}

/* The JOIN (@s NULL) or slot @s's DATA to the upper switch: 1 if it went. */
static int up_send(const struct optinc_sw *sw, struct optinc_job *job,
		   const struct optinc_sw_msg *in, const struct optinc_slot *s)
{
	__u8 type = s ? OPTINC_T_DATA : OPTINC_T_JOIN;
	struct optinc_sw_frame f;
	__u32 len;
	int ret;

	if (!up_resolved(sw, job))
		return 0;
	if (sw->ops->alloc(sw->dp, job, in, OPTINC_SW_TO_UP, up_len(s), &f)) {
		up_count(sw, job, in, OPTINC_SW_TX_ERROR, type);
		return 0;
	}
	len = up_build(job, s, f.buf, f.room);
	ret = sw->ops->send(sw->dp, job, in, OPTINC_SW_TO_UP, &f, len);
	if (!len || ret) {
		up_count(sw, job, in, OPTINC_SW_TX_ERROR, type);
		return 0;
	}
	up_count(sw, job, in, OPTINC_SW_UP_SENT, type);
	return 1;
}

/* A waiting slot's partial result goes up (again, if it went before). */
static void up_data(const struct optinc_sw *sw, struct optinc_job *job,
		    const struct optinc_sw_msg *in, struct optinc_slot *s)
{
	if (up_send(sw, job, in, s) && optinc_up_sent(job, s))
		up_count(sw, job, in, OPTINC_SW_UP_RESENT, 0);
}

/* The members' nonces: a new set is a new generation of the job. */
static __u64 up_gen(const struct optinc_job *job)
{
	__u64 h = 0xcbf29ce484222325ull;
	__u16 r;

	for (r = 0; r < job->size; r++)
		h = (h ^ job->members[r].nonce) * 0x100000001b3ull;
	return h;
}

/**
 * optinc_up_joined() - a member of a first-level job joined (or repeated)
 * @sw:  the switch
 * @job: the job (job->up set)
 * @in:  the member's JOIN
 *
 * Once all members joined, a new set of them is a new generation upstream
 * too: a new JOIN nonce, which makes the upper switch start over once all
 * its members are new. Until the upper job is complete the members hear
 * "not everyone yet", and each of their JOINs repeats ours.
 *
 * Return: 1 when the answer was given here, 0 to answer as usual.
 */
int optinc_up_joined(const struct optinc_sw *sw, struct optinc_job *job,
		     const struct optinc_sw_msg *in)
{
	struct optinc_uplink *up = job->up;
	__u64 gen;

	if (!optinc_job_complete(job))
		return 0;
	gen = up_gen(job);
	if (!up->nonce || gen != up->gen) {
		up->gen = gen;
		up->nonce = sw->ops->random(sw->dp) | 1;
		up->complete = 0;
		up->refused = 0;
		up->window = 0;
	}
	if (up->complete)
		return 0;
	up_send(sw, job, in, NULL);
	/* "not everyone yet": not everyone below the upper switch */
	optinc_sw_ack(sw, job, in->m->rank, 1);
	return 1;
}

/**
 * optinc_up_forward() - a slot is complete, or a member sent again while
 *                       it waits: it goes up
 * @sw:  the switch
 * @job: its first-level job
 * @in:  the member's frame
 * @s:   the slot (up set)
 */
void optinc_up_forward(const struct optinc_sw *sw, struct optinc_job *job,
		       const struct optinc_sw_msg *in, struct optinc_slot *s)
{
	if (!job->up || !job->up->complete) {
		up_count(sw, job, in, OPTINC_SW_TX_ERROR, OPTINC_T_DATA);
		return;
	}
	up_data(sw, job, in, s);
}

/**
 * optinc_up_match() - is @m the upper switch's answer to @job's uplink?
 * @job: a job of this switch (with or without an uplink)
 * @m:   a parsed message to this switch's address
 * @src: where it came from
 *
 * Return: 1 for a RESULT, JOIN_ACK or NACK of @job's upper job from its
 * switch with its token (then optinc_up_input() takes it), else 0.
 */
int optinc_up_match(const struct optinc_job *job, const struct optinc_msg *m,
		    const struct optinc_endpoint *src)
{
	const struct optinc_uplink *up = job->up;

	if (!up || (m->type != OPTINC_T_RESULT &&
		    m->type != OPTINC_T_JOIN_ACK && m->type != OPTINC_T_NACK))
		return 0;
	return up->job == m->job && up->sw.ip == src->ip &&
	       up->token == m->token;
}

/* Refused upstream: reported once per generation. */
static void up_refused(const struct optinc_sw *sw, struct optinc_job *job,
		       const struct optinc_sw_msg *in, enum optinc_sw_event ev,
		       __u32 arg)
{
	if (!job->up->refused)
		up_count(sw, job, in, ev, arg);
	job->up->refused = 1;
}

static void up_ack(const struct optinc_sw *sw, struct optinc_job *job,
		   const struct optinc_sw_msg *in)
{
	const struct optinc_msg *m = in->m;
	struct optinc_uplink *up = job->up;

	if (m->rank != up->rank || m->seq != up->nonce || up->complete)
		return;
	if (m->slot < job->window) {
		up_refused(sw, job, in, OPTINC_SW_UP_WINDOW, m->slot);
		return;
	}
	up->window = m->slot;
	if (m->aux < m->size)
		return;
	up->complete = 1;
	up_count(sw, job, in, OPTINC_SW_UP_COMPLETE, up->window);
	if (optinc_job_complete(job))
		optinc_sw_acks(sw, job);
}

/* What the upper result's hint says we lost goes up again at once. */
static void up_hinted(const struct optinc_sw *sw, struct optinc_job *job,
		      const struct optinc_sw_msg *in)
{
	struct optinc_slot *lost[OPTINC_HINT_SPAN];
	__u32 i, n;

	n = optinc_up_lost(job, in->m, lost, OPTINC_HINT_SPAN);
	for (i = 0; i < n; i++)
		up_data(sw, job, in, lost[i]);
	if (n)
		up_count(sw, job, in, OPTINC_SW_UP_HINTED, n);
}

static void up_result(const struct optinc_sw *sw, struct optinc_job *job,
		      const struct optinc_sw_msg *in)
{
	struct optinc_slot *s;
	enum optinc_drop why;

	switch (optinc_job_rx_up(job, in->m, &why, &s)) {
	case OPTINC_V_COMPLETE:
		up_count(sw, job, in, OPTINC_SW_UP_RESULT, 0);
		up_count(sw, job, in, OPTINC_SW_COMPLETED, 0);
		optinc_sw_results(sw, job, s);
		up_hinted(sw, job, in);
		break;
	case OPTINC_V_DROP:
		up_count(sw, job, in, OPTINC_SW_DROPPED, why);
		break;
	case OPTINC_V_RESEND:	/* the slot had it: a duplicate, or the answer to a re-send */
		up_count(sw, job, in, OPTINC_SW_UP_RESULT_AGAIN, 0);
		up_hinted(sw, job, in);
		break;
	default:
		break;
	}
}

/**
 * optinc_up_input() - the upper switch's answer to a job's uplink
 * @sw:  the switch
 * @job: the first-level job, serialised as for optinc_sw_input()
 * @in:  the answer; optinc_up_match() said it is @job's
 *
 * A RESULT fills its slot and goes to the members, a JOIN_ACK with every
 * member of the upper job releases the members' JOIN barrier, a NACK of
 * our JOIN is reported once.
 */
void optinc_up_input(const struct optinc_sw *sw, struct optinc_job *job,
		     const struct optinc_sw_msg *in)
{
	const struct optinc_msg *m = in->m;

	if (m->type == OPTINC_T_RESULT)
		up_result(sw, job, in);
	else if (m->type == OPTINC_T_JOIN_ACK)
		up_ack(sw, job, in);
	else if (m->rank == job->up->rank && m->seq == job->up->nonce)
		up_refused(sw, job, in, OPTINC_SW_UP_NACKED, m->aux);
}

/**
 * optinc_up_arp_reply() - an ARP reply to this switch: the upper switch's?
 * @up:  an uplink
 * @sip: the reply's sender IPv4 address, network order
 * @tip: its target address
 * @sha: its sender MAC
 *
 * Return: 1 when it was @up's upper switch answering us (@up knows its MAC
 * now), else 0.
 */
int optinc_up_arp_reply(struct optinc_uplink *up, __be32 sip, __be32 tip,
			const __u8 *sha)
{
	if (sip != up->sw.ip || tip != up->self.ip)
		return 0;
	memcpy(up->sw.mac, sha, sizeof(up->sw.mac));
	up->resolved = 1;
	return 1;
}
