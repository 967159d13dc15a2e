// SPDX-License-Identifier: BSD-3-Clause
/*
 * Jobs: their table (set up once at start), truth tables of onn jobs
 * (loaded at start or installed while running), and
 * the aggregation datapath: an OptINC frame to the switch goes through the
 * core's slot state machine, and what it decides is sent (results to every
 * member, JOIN_ACKs, NACKs).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <rte_byteorder.h>
#include <rte_malloc.h>
#include "optincd.h"

static struct optinc_agg_job *agg_jobs;
static unsigned int agg_nb_jobs;
static const struct optinc_conf *agg_conf;
/* --rate-limit in TSC ticks, set once at init */
static struct optinc_rl_conf agg_rl;
/* Some job has a pending table: the lcore's cheap test each round. */
static bool agg_pending_any;

static int agg_read_file(const char *path, void **buf, size_t *len)
{
	struct stat st;
	FILE *f = fopen(path, "rb");
	int ret = 0;

	if (!f)
		return -errno;
	if (fstat(fileno(f), &st)) {
		ret = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		goto out;
	}
	*len = (size_t)st.st_size;
	*buf = malloc(*len ? *len : 1);
	if (!*buf)
		ret = -ENOMEM;
	else if (fread(*buf, 1, *len, f) != *len)
		ret = -EIO;
	if (ret) {
		free(*buf);
		*buf = NULL;
	}
out:
	fclose(f);
	return ret;
}

static void agg_table_free(struct optinc_agg_table *t)
{
	if (!t)
		return;
	free(t->buf);
	free(t->path);
	free(t);
}

static int agg_table_check(const struct optinc_agg_job *j,
			   struct optinc_agg_table *t, size_t len,
			   char *why, size_t why_len)
{
	const struct optinc_table_file_hdr *h = t->buf;
	const char *msg = NULL;

	if (optinc_table_parse(t->buf, len, &t->t, &msg)) {
		snprintf(why, why_len, "%s", msg);
		return -EINVAL;
	}
	if (t->t.members != j->conf.size || t->t.bits != j->conf.bits) {
		snprintf(why, why_len, "made for N=%u B=%u, the job has "
			 "size=%u bits=%u", t->t.members, t->t.bits,
			 j->conf.size, j->conf.bits);
		return -EINVAL;
	}
	/* a second level (fanin=N1) looks up cascade tables, and only it */
	if (t->t.fanin != j->conf.fanin) {
		if (t->t.fanin)
			snprintf(why, why_len, "a cascade table (fan-in %u): "
				 "the job needs fanin=%u", t->t.fanin,
				 t->t.fanin);
		else
			snprintf(why, why_len, "a one-level table: the job "
				 "(fanin=%u) needs a cascade table (version 2) "
				 "of fan-in %u", j->conf.fanin, j->conf.fanin);
		return -EINVAL;
	}
	t->wrong = rte_le_to_cpu_32(h->wrong);
	return 0;
}

/*
 * Load and check a truth table for @j: the core's checks of the file, then
 * N and B against the job. @why gets the problem.
 */
static int agg_table_load(const struct optinc_agg_job *j, const char *path,
			  struct optinc_agg_table **out, char *why,
			  size_t why_len)
{
	struct optinc_agg_table *t = calloc(1, sizeof(*t));
	size_t len = 0;
	int ret;

	if (!t || !(t->path = strdup(path))) {
		snprintf(why, why_len, "out of memory");
		ret = -ENOMEM;
	} else {
		ret = agg_read_file(path, &t->buf, &len);
		snprintf(why, why_len, "%s", ret == -EINVAL ?
			 "not a regular file" : strerror(-ret));
	}
	if (!ret)
		ret = agg_table_check(j, t, len, why, why_len);
	if (ret) {
		agg_table_free(t);
		return ret;
	}
	*out = t;
	return 0;
}

/* A job's configured table at start; a bad one leaves the job unserved. */
static void agg_job_table(struct optinc_agg_job *j)
{
	struct optinc_agg_table *t;
	char why[160];
	int ret;

	ret = agg_table_load(j, j->conf.table, &t, why, sizeof(why));
	if (ret) {
		fprintf(stderr, "optincd: job %u: table '%s': %s; the job is not "
			"served until a good table is installed\n", j->conf.id,
			j->conf.table, why);
		j->served = false;
		return;
	}
	j->table = t;
	j->core.table = &t->t;
	j->core.mode = OPTINC_MODE_ONN;
}

static int agg_job_init(struct optinc_agg_job *j, const struct optinc_job_conf *jc)
{
	uint64_t len = optinc_job_mem(jc->window, jc->max_elems);
	int ret;

	j->conf = *jc;
	j->core.id = jc->id;
	j->core.size = jc->size;
	j->core.token = jc->token;
	j->core.window = jc->window;
	j->core.max_elems = jc->max_elems;
	j->core.mode = OPTINC_MODE_EXACT;
	j->served = true;
	optinc_bind_init(&j->bind);
	if (jc->table)
		agg_job_table(j);
	j->mem = rte_zmalloc("optinc_job", len, RTE_CACHE_LINE_SIZE);
	if (!j->mem) {
		fprintf(stderr, "optincd: job %u: cannot allocate %" PRIu64
			" bytes for %u slots of %u elements (raise EAL -m?)\n",
			jc->id, len, 2u * jc->window, jc->max_elems);
		return -ENOMEM;
	}
	ret = optinc_job_init(&j->core, j->mem, len);
	if (ret)
		fprintf(stderr, "optincd: job %u: core refused the job shape\n",
			jc->id);
	return ret;
}

/**
 * optinc_agg_init() - set up every configured job
 * @c: configuration; kept for the switch's own address
 *
 * A job whose truth table is bad (unreadable, truncated, wrong version,
 * another N or B) is reported and left unserved: its frames are treated
 * as those of an unknown job until a good table is installed, and every
 * other job runs. No memory for a job's slots stops the start.
 *
 * Return: 0, or a negative errno (reported).
 */
int optinc_agg_init(const struct optinc_conf *c)
{
	unsigned int i;
	int ret;

	agg_conf = c;
	ret = optinc_rl_conf_set(&agg_rl, c->rl_pps, c->rl_burst,
				 rte_get_tsc_hz());
	if (ret) {
		fprintf(stderr, "optincd: --rate-limit %u,%u: %s\n", c->rl_pps,
			c->rl_burst, strerror(-ret));
		return ret;
	}
	if (!c->nb_jobs)
		return 0;
	agg_jobs = rte_zmalloc("optinc_jobs", c->nb_jobs * sizeof(*agg_jobs),
			       RTE_CACHE_LINE_SIZE);
	if (!agg_jobs) {
		fprintf(stderr, "optincd: cannot allocate the job table\n");
		return -ENOMEM;
	}
	for (i = 0; i < c->nb_jobs; i++) {
		agg_nb_jobs = i + 1;
		ret = agg_job_init(&agg_jobs[i], &c->jobs[i]);
		if (ret)
			return ret;
	}
	return 0;
}

void optinc_agg_free(void)
{
	unsigned int i;

	for (i = 0; i < agg_nb_jobs; i++) {
		rte_free(agg_jobs[i].mem);
		agg_table_free(agg_jobs[i].table);
		agg_table_free(agg_jobs[i].pending);
		agg_table_free(agg_jobs[i].retired);
	}
	rte_free(agg_jobs);
	agg_jobs = NULL;
	agg_nb_jobs = 0;
}

unsigned int optinc_agg_count(void)
{
	return agg_nb_jobs;
}

struct optinc_agg_job *optinc_agg_at(unsigned int i)
{
	return i < agg_nb_jobs ? &agg_jobs[i] : NULL;
}

struct optinc_agg_job *optinc_agg_find(uint16_t id)
{
	unsigned int i;

	for (i = 0; i < agg_nb_jobs; i++)
		if (agg_jobs[i].core.id == id)
			return &agg_jobs[i];
	return NULL;
}

/*
 * Where a member's frames go: its bound port (every member that joined is
 * bound, lib/core/bind.c), never where its MAC was seen last.
 */
static uint16_t agg_member_port(const struct optinc_agg_job *j, uint16_t rank,
				uint64_t now)
{
	struct rte_ether_addr mac;
	uint32_t bound;
	uint16_t port;

	if (!optinc_bind_port(&j->bind, rank, &bound))
		return (uint16_t)bound;
	memcpy(mac.addr_bytes, j->core.members[rank].ep.mac, RTE_ETHER_ADDR_LEN);
	if (optinc_l2_lookup(&mac, now, &port))
		return 0;
	return port;
}

uint16_t optinc_agg_member_port(const struct optinc_agg_job *j, uint16_t rank,
				uint64_t now)
{
	return agg_member_port(j, rank, now);
}

static void agg_count_out(struct optinc_agg_job *j, int rank, uint32_t len)
{
	if (j) {
		OPTINC_STAT_INC(j->stats.frames_out);
		OPTINC_STAT_ADD(j->stats.bytes_out, len);
	}
	if (j && rank >= 0) {
		OPTINC_STAT_INC(j->stats.member[rank].frames_out);
		OPTINC_STAT_ADD(j->stats.member[rank].bytes_out, len);
	}
}

/* Send @m holding a built frame of @len bytes (0: it did not fit). */
static void agg_xmit(struct optinc_agg_job *j, int rank, uint16_t port,
		     struct rte_mbuf *m, uint32_t len)
{
	uint64_t *errs = j ? &j->stats.tx_errors : &optinc_sw_stats.tx_errors;

	if (unlikely(!len)) {
		rte_pktmbuf_free(m);
		OPTINC_STAT_INC(*errs);
		return;
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	agg_count_out(j, rank, len);
	optinc_port_tx(port, m);
}

/* An mbuf on @port's pool, with where to build and how much room. */
static struct rte_mbuf *agg_alloc(struct optinc_agg_job *j, uint16_t port,
				  uint8_t **buf, uint32_t *room)
{
	struct rte_mbuf *m = optinc_port_alloc(port);

	if (unlikely(!m)) {
		OPTINC_STAT_INC(*(j ? &j->stats.tx_errors : &optinc_sw_stats.tx_errors));
		return NULL;
	}
	/* a frame longer than the port's MTU would die at the receiver */
	*buf = rte_pktmbuf_mtod(m, uint8_t *);
	*room = RTE_MIN(rte_pktmbuf_tailroom(m),
			(uint32_t)optinc_ports[port].mtu + RTE_ETHER_HDR_LEN);
	return m;
}

static void agg_send_result(struct optinc_agg_job *j,
			    const struct optinc_slot *s, uint16_t rank,
			    uint16_t port)
{
	struct rte_mbuf *m;
	uint32_t room;
	uint8_t *buf;

	m = agg_alloc(j, port, &buf, &room);
	if (m)
		agg_xmit(j, rank, port, m, optinc_build_result(buf, room,
				&j->core, s, &agg_conf->sw, rank));
}

/* Member @rank's frame: its headers in @h, then @d attached to @pay. */
static void agg_send_chained(struct optinc_agg_job *j,
			     const struct optinc_slot *s, uint16_t rank,
			     uint16_t port, struct rte_mbuf *pay,
			     struct rte_mbuf *h, struct rte_mbuf *d)
{
	uint32_t hdr, max = (uint32_t)optinc_ports[port].mtu + RTE_ETHER_HDR_LEN;

	hdr = optinc_build_result_hdr(rte_pktmbuf_mtod(h, void *),
				      rte_pktmbuf_tailroom(h), &j->core, s,
				      &agg_conf->sw, rank);
	if (unlikely(!hdr || hdr + s->res_len > max)) {
		rte_pktmbuf_free(h);
		rte_pktmbuf_free(d);
		OPTINC_STAT_INC(j->stats.tx_errors);
		return;
	}
	rte_pktmbuf_attach(d, pay);
	h->data_len = (uint16_t)hdr;
	h->next = d;
	h->nb_segs = 2;
	h->pkt_len = hdr + s->res_len;
	agg_count_out(j, rank, h->pkt_len);
	optinc_port_tx(port, h);
}

/*
 * Unit T: slot @s's result to every member. Where every member's port
 * sends chained mbufs, the elements are copied once, into @pay, and each
 * member's frame is its own headers followed by an indirect mbuf on @pay
 * (the port copies or DMAs from it; @pay goes back to its pool with the
 * last of them). Else, or without mbufs for that, every frame is built
 * whole. Return: 0 when sent chained.
 */
static int agg_send_results_chained(struct optinc_agg_job *j,
				    const struct optinc_slot *s,
				    const uint16_t *ports)
{
	struct rte_mbuf *m[2 * OPTINC_MAX_MEMBERS], *pay;
	uint16_t r, n = j->core.size;

	for (r = 0; r < n; r++)
		if (!optinc_ports[ports[r]].tx_chain)
			return -ENOTSUP;
	pay = optinc_port_alloc(ports[0]);
	if (unlikely(!pay))
		return -ENOMEM;
	if (unlikely(rte_pktmbuf_tailroom(pay) < s->res_len ||
		     optinc_port_alloc_hdrs(m, 2u * n))) {
		rte_pktmbuf_free(pay);
		return -ENOMEM;
	}
	memcpy(rte_pktmbuf_mtod(pay, void *), s->res, s->res_len);
	pay->data_len = (uint16_t)s->res_len;
	pay->pkt_len = s->res_len;
	for (r = 0; r < n; r++)
		agg_send_chained(j, s, r, ports[r], pay, m[2 * r], m[2 * r + 1]);
	rte_pktmbuf_free(pay);	/* the frames hold it now */
	return 0;
}

static void agg_send_results(struct optinc_agg_job *j,
			     const struct optinc_slot *s, uint64_t now)
{
	uint16_t ports[OPTINC_MAX_MEMBERS], r;

	for (r = 0; r < j->core.size; r++)
		ports[r] = agg_member_port(j, r, now);
	if (j->core.size > 1 && !agg_send_results_chained(j, s, ports))
		return;
	for (r = 0; r < j->core.size; r++)
		agg_send_result(j, s, r, ports[r]);
}

static void agg_send_ack(struct optinc_agg_job *j, uint16_t rank, uint64_t now)
{
	uint16_t port = agg_member_port(j, rank, now);
	struct optinc_msg ack;
	struct rte_mbuf *m;
	uint32_t room;
	uint8_t *buf;

	m = agg_alloc(j, port, &buf, &room);
	if (!m)
		return;
	optinc_job_ack(&j->core, rank, &ack);
	OPTINC_STAT_INC(j->stats.join_acks);
	agg_xmit(j, rank, port, m, optinc_build_ctrl(buf, room, &ack,
			&agg_conf->sw, &j->core.members[rank].ep));
}

/* Refuse a JOIN: the NACK goes back where the JOIN came from. */
static void agg_send_nack(struct optinc_agg_job *j, const struct optinc_msg *req,
			  enum optinc_drop why, const struct optinc_l2l4 *l,
			  uint16_t port)
{
	struct optinc_msg nack;
	struct rte_mbuf *m;
	uint32_t room;
	uint8_t *buf;

	m = agg_alloc(j, port, &buf, &room);
	if (!m)
		return;
	optinc_nack(req, why, &nack);
	OPTINC_STAT_INC(*(j ? &j->stats.nacks : &optinc_sw_stats.nacks));
	agg_xmit(j, -1, port, m, optinc_build_ctrl(buf, room, &nack,
			&agg_conf->sw, &l->src));
}

static void agg_send_all(struct optinc_agg_job *j, const struct optinc_slot *s,
			 uint64_t now)
{
	uint16_t r;

	if (s) {
		agg_send_results(j, s, now);
		return;
	}
	for (r = 0; r < j->core.size; r++)
		agg_send_ack(j, r, now);
}

static void agg_count_in(struct optinc_agg_job *j, const struct optinc_msg *msg,
			 uint32_t len)
{
	OPTINC_STAT_INC(j->stats.frames_in);
	OPTINC_STAT_ADD(j->stats.bytes_in, len);
	if (msg->rank < j->core.size) {
		OPTINC_STAT_INC(j->stats.member[msg->rank].frames_in);
		OPTINC_STAT_ADD(j->stats.member[msg->rank].bytes_in, len);
	}
}

static void agg_drop(struct optinc_agg_job *j, enum optinc_drop why,
		     uint16_t port)
{
	OPTINC_STAT_INC(*(j ? &j->stats.drops[why] : &optinc_sw_stats.drops[why]));
	OPTINC_STAT_INC(optinc_ports[port].stats.rx_dropped);
}

/* Port security's drops: a spoofed MAC, or a bound member's frame from elsewhere. */
static void agg_drop_bind(struct optinc_agg_job *j, enum optinc_bind_verdict v,
			  uint16_t port)
{
	struct optinc_port_stats *ps = &optinc_ports[port].stats;

	if (v == OPTINC_BIND_SPOOF) {
		OPTINC_STAT_INC(ps->spoofed);
		if (j)
			OPTINC_STAT_INC(j->stats.spoofed);
	} else {
		OPTINC_STAT_INC(ps->wrong_port);
		OPTINC_STAT_INC(j->stats.wrong_port);
	}
	OPTINC_STAT_INC(ps->rx_dropped);
}

/*
 * Bounded abuse: a JOIN, or a frame failing @j's token or membership
 * check, past @port's limit. Dropped without any answer, counted once.
 */
static bool agg_rate_limited(const struct optinc_agg_job *j,
			     const struct optinc_msg *msg,
			     const struct optinc_l2l4 *l, uint16_t port,
			     uint64_t now)
{
	struct optinc_port *p = &optinc_ports[port];

	if (likely(optinc_rl_rx(&p->rl, &agg_rl, j ? &j->core : NULL, msg,
				&l->src, now) != OPTINC_RL_LIMITED))
		return false;
	OPTINC_STAT_INC(p->stats.rate_limited);
	OPTINC_STAT_INC(p->stats.rx_dropped);
	return true;
}

/* @rank's JOIN from @port was accepted: bind it, and pin its MAC there. */
static void agg_bind(struct optinc_agg_job *j, uint16_t rank,
		     const struct optinc_endpoint *src, uint16_t port,
		     uint64_t now)
{
	struct optinc_endpoint old;
	struct rte_ether_addr mac;
	char was[24], is[24];
	uint32_t old_port = 0;

	switch (optinc_bind_join(&j->bind, rank, src, port, &old, &old_port)) {
	case OPTINC_BIND_SAME:
		return;
	case OPTINC_BIND_MOVED:
		memcpy(mac.addr_bytes, old.mac, RTE_ETHER_ADDR_LEN);
		optinc_l2_unpin(&mac, (uint16_t)old_port, now);
		OPTINC_STAT_INC(j->stats.rebinds);
		optinc_mac_fmt(was, sizeof(was), old.mac);
		optinc_mac_fmt(is, sizeof(is), src->mac);
		printf("optincd: job %u: rank %u moved from port %u (mac %s) "
		       "to port %u (mac %s): rebound\n", j->conf.id, rank,
		       old_port, was, port, is);
		fflush(stdout);
		break;
	case OPTINC_BIND_NEW:
		break;
	}
	memcpy(mac.addr_bytes, src->mac, RTE_ETHER_ADDR_LEN);
	optinc_l2_pin(&mac, port, now);
}

/* Act on port security's and then the core's verdict on @msg. */
static void agg_verdict(struct optinc_agg_job *j, const struct optinc_msg *msg,
			const struct optinc_l2l4 *l, uint16_t port, uint64_t now,
			bool spoofed)
{
	enum optinc_bind_verdict bv;
	struct optinc_slot *s;
	enum optinc_drop why;

	bv = optinc_bind_rx(&j->bind, &j->core, msg, &l->src, port, spoofed);
	if (unlikely(bv != OPTINC_BIND_PASS)) {
		agg_drop_bind(j, bv, port);
		return;
	}
	if (unlikely(agg_rate_limited(j, msg, l, port, now)))
		return;
	switch (optinc_job_rx(&j->core, msg, &l->src, &why, &s)) {
	case OPTINC_V_DROP:
		agg_drop(j, why, port);
		break;
	case OPTINC_V_ABSORBED:
		break;
	case OPTINC_V_COMPLETE:
		OPTINC_STAT_INC(j->stats.slots_completed);
		agg_send_all(j, s, now);
		break;
	case OPTINC_V_RESEND:
		OPTINC_STAT_INC(j->stats.resends);
		agg_send_result(j, s, msg->rank,
				agg_member_port(j, msg->rank, now));
		break;
	case OPTINC_V_JOIN_ACK:
		OPTINC_STAT_INC(j->stats.joins);
		agg_bind(j, msg->rank, &l->src, port, now);
		if (optinc_uplink_joined(j, msg->rank, now))
			break;
		if (optinc_job_complete(&j->core))
			agg_send_all(j, NULL, now);
		else
			agg_send_ack(j, msg->rank, now);
		break;
	case OPTINC_V_NACK:
		agg_drop(j, why, port);
		agg_send_nack(j, msg, why, l, port);
		break;
	case OPTINC_V_FORWARD:
		optinc_uplink_forward(j, s, now);
		break;
	}
}

/**
 * optinc_agg_input() - an OptINC frame addressed to the switch
 * @m:    the frame; always consumed
 * @port: the port it came in on
 * @l:    its addresses and UDP payload, from optinc_parse_l2l4()
 * @now:  TSC of this poll round
 * @spoofed: its source MAC is pinned to another port; only a JOIN of the
 *        member that owns it (moving) gets past optinc_bind_rx()
 */
void optinc_agg_input(struct rte_mbuf *m, uint16_t port,
		      const struct optinc_l2l4 *l, uint64_t now, bool spoofed)
{
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	struct optinc_msg msg = { .job = 0 };
	struct optinc_agg_job *j = NULL;
	enum optinc_drop why;

	why = optinc_msg_parse(frame + l->l4_off, l->l4_len, &msg);
	if (why == OPTINC_DROP_NONE && !spoofed &&
	    optinc_uplink_input(&msg, l, port, now)) {
		rte_pktmbuf_free(m);
		return;
	}
	/* the job id is known once the header parsed past its type */
	if (msg.job)
		j = optinc_agg_find(msg.job);
	if (j)
		agg_count_in(j, &msg, rte_pktmbuf_pkt_len(m));
	if (unlikely(spoofed) && (why != OPTINC_DROP_NONE || !j ||
				  msg.type != OPTINC_T_JOIN)) {
		agg_drop_bind(why == OPTINC_DROP_NONE ? j : NULL,
			      OPTINC_BIND_SPOOF, port);
	} else if (why != OPTINC_DROP_NONE) {
		agg_drop(j, why, port);
	} else if (!j || unlikely(!j->served)) {
		if (unlikely(agg_rate_limited(NULL, &msg, l, port, now)))
			goto out_free;
		agg_drop(j, OPTINC_DROP_NO_JOB, port);
		if (msg.type == OPTINC_T_JOIN)
			agg_send_nack(j, &msg, OPTINC_DROP_NO_JOB, l, port);
	} else {
		agg_verdict(j, &msg, l, port, now, spoofed);
	}
out_free:
	rte_pktmbuf_free(m);
}

/**
 * optinc_agg_sync() - let installed tables take effect; lcore only
 *
 * Called between frames, once per poll round. A job's new table and onn
 * mode apply from the next frame on. Slots keep the reduction kind they
 * started with (the core folds and finishes with the slot's kind), and
 * every onn slot of a job accumulates P's sums, which do not depend on the
 * table, so a slot in flight finishes whole with the table in use at its
 * last contribution: no slot mixes two tables or two modes.
 */
void optinc_agg_sync(void)
{
	struct optinc_agg_table *t;
	unsigned int i;

	if (likely(!__atomic_load_n(&agg_pending_any, __ATOMIC_ACQUIRE)))
		return;
	__atomic_store_n(&agg_pending_any, false, __ATOMIC_RELAXED);
	for (i = 0; i < agg_nb_jobs; i++) {
		struct optinc_agg_job *j = &agg_jobs[i];

		t = __atomic_exchange_n(&j->pending, NULL, __ATOMIC_ACQ_REL);
		if (!t)
			continue;
		j->retired = j->table;
		j->core.table = &t->t;
		j->core.mode = OPTINC_MODE_ONN;
		__atomic_store_n(&j->served, true, __ATOMIC_RELAXED);
		__atomic_store_n(&j->table, t, __ATOMIC_RELEASE);
	}
}

/* Wait up to @ms for the lcore to put @t in use. */
static bool agg_wait_applied(struct optinc_agg_job *j,
			     const struct optinc_agg_table *t, unsigned int ms)
{
	const struct timespec step = { .tv_nsec = 1000000 };

	while (ms--) {
		if (__atomic_load_n(&j->table, __ATOMIC_ACQUIRE) == t)
			return true;
		nanosleep(&step, NULL);
	}
	return __atomic_load_n(&j->table, __ATOMIC_ACQUIRE) == t;
}

/* Give @t to the lcore and wait until it is in use. */
static int agg_hand_over(struct optinc_agg_job *j, struct optinc_agg_table *t,
			 char *why, size_t why_len)
{
	__atomic_store_n(&j->pending, t, __ATOMIC_RELEASE);
	__atomic_store_n(&agg_pending_any, true, __ATOMIC_RELEASE);
	if (!agg_wait_applied(j, t, 2000) &&
	    __atomic_exchange_n(&j->pending, NULL, __ATOMIC_ACQ_REL) == t) {
		snprintf(why, why_len, "the datapath did not take it within "
			 "2 s (is optincd stopping?)");
		agg_table_free(t);
		return -ETIMEDOUT;
	}
	/* taken: the lcore stores j->table right after the exchange */
	agg_wait_applied(j, t, 1000);
	agg_table_free(__atomic_exchange_n(&j->retired, NULL, __ATOMIC_ACQUIRE));
	return 0;
}

/**
 * optinc_agg_table_install() - install or replace a job's truth table
 * @j:       the job
 * @path:    the table file, as optincd's working directory sees it
 * @why:     set to the problem when refused
 * @why_len: size of @why
 *
 * Runs on a control thread (telemetry), one call at a time. The file gets
 * the same checks as at start; a bad one leaves the job as it was. A good
 * one makes the job an onn job from the lcore's next poll round on (see
 * optinc_agg_sync()); a job refused at start for its table is served from
 * then on. A job started with mode=exact is the reference and takes none.
 *
 * Return: 0, or a negative errno with @why set (and logged with the job
 * and the file).
 */
int optinc_agg_table_install(struct optinc_agg_job *j, const char *path,
			     char *why, size_t why_len)
{
	struct optinc_agg_table *t;
	int ret;

	if (j->conf.mode_set && j->conf.mode == OPTINC_MODE_EXACT) {
		snprintf(why, why_len, "the job was started with mode=exact "
			 "and takes no table");
		ret = -EPERM;
	} else {
		ret = agg_table_load(j, path, &t, why, why_len);
		if (!ret)
			ret = agg_hand_over(j, t, why, why_len);
	}
	if (ret) {
		fprintf(stderr, "optincd: job %u: table '%s': %s; the job keeps "
			"its mode and table\n", j->conf.id, path, why);
		return ret;
	}
	printf("optincd: job %u: table '%s' installed (%u wrong entries), "
	       "mode onn\n", j->conf.id, path, t->wrong);
	fflush(stdout);
	return 0;
}

/* For uplink.c: building, sending and answering as this file does. */
struct rte_mbuf *optinc_agg_alloc(struct optinc_agg_job *j, uint16_t port,
				  uint8_t **buf, uint32_t *room)
{
	return agg_alloc(j, port, buf, room);
}

void optinc_agg_xmit(struct optinc_agg_job *j, int rank, uint16_t port,
		     struct rte_mbuf *m, uint32_t len)
{
	agg_xmit(j, rank, port, m, len);
}

void optinc_agg_send_all(struct optinc_agg_job *j, const struct optinc_slot *s,
			 uint64_t now)
{
	agg_send_all(j, s, now);
}
