// SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
/* The JOIN barrier: register with the switch and wait for every member. */
#include <string.h>
#include <unistd.h>
#include <sys/random.h>

#include "internal.h"

struct join_state {
	__u32 nonce;
	int answered;		/* any JOIN_ACK seen */
	unsigned int joined;	/* members joined, as last reported */
};

/* A new nonce: a JOIN with one the switch does not hold starts a new generation. */
__u32 optinc_join_nonce(void)
{
	__u32 n;

	if (getrandom(&n, sizeof(n), GRND_NONBLOCK) == sizeof(n))
		return n;
	return (__u32)optinc_now_ms() * 2654435761u ^ (__u32)getpid();
}

static int join_send(struct optinc_comm *c, const struct join_state *js)
{
	struct optinc_hdr h;
	struct optinc_msg m = {
		.type = OPTINC_T_JOIN,
		.job = c->cfg.job,
		.rank = c->cfg.rank,
		.token = c->cfg.token,
		.seq = js->nonce,
		.bits = c->cfg.bits,
	};
	struct optinc_pkt p = { .buf = &h, .len = sizeof(h) };

	optinc_hdr_fill(&h, &m);
	return optinc_xmit(c, &p, 1);
}

static const char *join_reason(__u16 aux)
{
	switch (aux) {
	case OPTINC_NACK_NO_JOB:
		return "no such job on the switch (opts.job, OPTINC_JOB)";
	case OPTINC_NACK_BAD_RANK:
		return "rank not below the job's size (opts.rank, OPTINC_RANK or the launcher's)";
	case OPTINC_NACK_BAD_SHAPE:
		return "the job does not serve these bits per value (opts.bits, OPTINC_BITS)";
	default:
		return "unknown reason";
	}
}

static int join_ack(struct optinc_comm *c, const struct optinc_msg *m,
		    struct join_state *js)
{
	if (m->size != c->cfg.size)
		return optinc_seterr(c, OPTINC_ERR_REFUSED,
				     "join: job %u on switch %s has %u members, this rank was started with size %d (opts.size, OPTINC_SIZE or the launcher's)",
				     c->cfg.job, c->cfg.sw_str, m->size,
				     c->cfg.size);
	if (!m->slot || !m->count)
		return optinc_seterr(c, OPTINC_ERR_PROTO,
				     "join: switch %s answered window %u, %u elements per frame",
				     c->cfg.sw_str, m->slot, m->count);
	js->answered = 1;
	js->joined = m->aux;
	c->sw_window = m->slot;
	c->sw_max_elems = m->count;
	return m->aux >= m->size;
}

/* Return: 1 when every member has joined, 0 to go on waiting, or an error. */
static int join_rx(struct optinc_comm *c, const struct optinc_pkt *p,
		   struct join_state *js)
{
	struct optinc_msg m;

	if (optinc_msg_parse(p->buf, p->len, &m) != OPTINC_DROP_NONE ||
	    m.job != c->cfg.job)
		return 0;
	if (m.type == OPTINC_T_NACK)
		return optinc_seterr(c, OPTINC_ERR_REFUSED,
				     "join: switch %s refused job %u rank %d: %s (reason %u)",
				     c->cfg.sw_str, c->cfg.job, c->cfg.rank,
				     join_reason(m.aux), m.aux);
	if (m.type == OPTINC_T_JOIN_ACK && m.rank == c->cfg.rank &&
	    m.seq == js->nonce)
		return join_ack(c, &m, js);
	return 0;
}

static int join_timeout(struct optinc_comm *c, const struct join_state *js)
{
	if (js->answered)
		return optinc_seterr(c, OPTINC_ERR_TIMEOUT,
				     "join: only %u of %d ranks joined job %u on switch %s after %u ms",
				     js->joined, c->cfg.size, c->cfg.job,
				     c->cfg.sw_str, c->cfg.timeout_ms);
	return optinc_seterr(c, OPTINC_ERR_TIMEOUT,
			     "join: no answer from switch %s (job %u) after %u ms%s",
			     c->cfg.sw_str, c->cfg.job, c->cfg.timeout_ms,
			     c->xp->icmp_refused ?
			     "; its host answers port unreachable" :
			     "; is the switch up, and is the token right? (opts.switch_addr or OPTINC_SWITCH, opts.token or OPTINC_TOKEN)");
}

/**
 * optinc_join() - send JOIN every 100 ms until all members have joined
 * @nonce: of the JOINs (optinc_join_nonce())
 * On success c->fo.nonce is the nonce the switch now holds for this rank,
 * which the failover probes re-send.
 * Return: 0, OPTINC_ERR_REFUSED (NACK), OPTINC_ERR_TIMEOUT or another code.
 */
int optinc_join(struct optinc_comm *c, __u32 nonce)
{
	struct join_state js = { .nonce = nonce };
	__u64 now = optinc_now_ms(), end = now + c->cfg.timeout_ms;
	__u64 next = now;
	int i, n, r;

	while (now < end) {
		if (now >= next) {
			r = join_send(c, &js);
			if (r)
				return r;
			next = now + OPTINC_JOIN_EVERY_MS;
		}
		n = optinc_recv(c, OPTINC_MIN(next, end) - now);
		if (n < 0)
			return n;
		for (i = 0; i < n; i++) {
			r = join_rx(c, &c->rxp[i], &js);
			if (r < 0)
				return r;
			if (r) {
				c->fo.nonce = js.nonce;
				return 0;
			}
		}
		now = optinc_now_ms();
	}
	return join_timeout(c, &js);
}
