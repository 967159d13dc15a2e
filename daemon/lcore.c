// SPDX-License-Identifier: BSD-3-Clause
/*
 * The datapath lcores ("workers", optincd.h): their poll loop, and how a
 * frame reaches the worker of its job.
 *
 * Why a software hand-off and not NIC steering: a job's members send from
 * many hosts (5-tuples), so RSS spreads one job over every queue, and
 * what names the job is a field of the OptINC header, which RSS does not
 * hash and rte_flow matches only with raw patterns that most PMDs lack
 * (memif, af_packet, af_xdp, null, ring: none). So every worker polls its
 * own rx queue of every port; a frame whose job another worker serves
 * (a byte of optinc_job_owner[]) goes to that worker through the
 * single-producer single-consumer ring of the pair: no lock, no atomic
 * read-modify-write. Where the sender picks the queue by job (memif: the
 * client's tx queue q arrives on rx queue q; a NIC with an rte_flow rule
 * on the job field), no frame is handed over at all.
 */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include "optincd.h"

/* Empty rounds over all queues before the loop starts to sleep. */
#define IDLE_POLLS	1000

struct optinc_worker *optinc_workers;
unsigned int optinc_nb_workers;
uint8_t optinc_job_owner[UINT16_MAX + 1];
RTE_DEFINE_PER_LCORE(struct optinc_worker *, optinc_wk);

static volatile bool lcore_quit;

/**
 * optinc_lcores_init() - one worker per EAL lcore, before the ports
 *
 * Worker 0 is the main lcore, and the main thread is worker 0 until the
 * loop starts (set-up sends nothing, but counts into worker 0).
 *
 * Return: 0, or a negative errno (reported).
 */
int optinc_lcores_init(void)
{
	unsigned int n = rte_lcore_count(), id, i = 1;

	if (n > OPTINC_MAX_WORKERS) {
		OPTINC_LOG(ERR, "%u lcores: optincd polls on at most %u (EAL -l)",
			   n, OPTINC_MAX_WORKERS);
		return -EINVAL;
	}
	optinc_workers = rte_zmalloc("optinc_workers", n * sizeof(*optinc_workers),
				     RTE_CACHE_LINE_SIZE);
	if (!optinc_workers) {
		OPTINC_LOG(ERR, "cannot allocate %u workers", n);
		return -ENOMEM;
	}
	optinc_nb_workers = n;
	optinc_workers[0].lcore = (uint16_t)rte_get_main_lcore();
	RTE_LCORE_FOREACH_WORKER(id) {
		optinc_workers[i].idx = (uint16_t)i;
		optinc_workers[i++].lcore = (uint16_t)id;
	}
	RTE_PER_LCORE(optinc_wk) = &optinc_workers[0];
	return 0;
}

static int lcore_ring(struct optinc_worker *to, unsigned int from)
{
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "optinc_h%u_%u", from, to->idx);
	to->in[from] = rte_ring_create(name, OPTINC_HANDOFF_RING,
				       rte_socket_id(),
				       RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (!to->in[from]) {
		OPTINC_LOG(ERR, "cannot create ring %s: %s", name,
			   rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

/**
 * optinc_lcores_rings() - what each worker polls, and the rings between them
 *
 * After optinc_ports_init(): worker i polls rx queue i of every port that
 * has one.
 *
 * Return: 0, or a negative errno (reported).
 */
int optinc_lcores_rings(void)
{
	struct optinc_worker *w;
	unsigned int i, k;
	uint16_t p;
	int ret;

	for (i = 0; i < optinc_nb_workers; i++) {
		w = &optinc_workers[i];
		for (k = 0; k < optinc_nb_ports; k++) {
			p = optinc_port_ids[k];
			if (i < optinc_ports[p].nb_rxq)
				w->rx_ports[w->nb_rx++] = p;
		}
		for (k = 0; k < optinc_nb_workers; k++) {
			ret = k == i ? 0 : lcore_ring(w, k);
			if (ret)
				return ret;
		}
	}
	return optinc_l2_rings();
}

/* After the ports are closed: no ring holds an mbuf of theirs any more. */
void optinc_lcores_free(void)
{
	struct rte_mbuf *m;
	unsigned int i, k;

	optinc_l2_rings_free();
	for (i = 0; optinc_workers && i < optinc_nb_workers; i++)
		for (k = 0; k < optinc_nb_workers; k++) {
			while (optinc_workers[i].in[k] &&
			       !rte_ring_dequeue(optinc_workers[i].in[k],
						 (void **)&m))
				rte_pktmbuf_free(m);
			rte_ring_free(optinc_workers[i].in[k]);
		}
	rte_free(optinc_workers);
	optinc_workers = NULL;
	optinc_nb_workers = 0;
}

/* Control threads: frames naming @job go to @worker from now on. */
void optinc_lcore_set_owner(uint16_t job, uint16_t worker)
{
	__atomic_store_n(&optinc_job_owner[job], (uint8_t)worker,
			 __ATOMIC_RELAXED);
}

/*
 * Frames of this burst for other workers, sorted by worker, go out in
 * one ring burst each; what a full ring refuses is dropped and counted.
 */
static void lcore_hand_over(struct optinc_worker *w, uint16_t port,
			    struct rte_mbuf **m, const uint16_t *to,
			    uint16_t nb)
{
	struct rte_mbuf *out[OPTINC_BURST];
	unsigned int k, n, sent;
	uint16_t i;

	for (k = 0; k < optinc_nb_workers; k++) {
		if (k == w->idx)
			continue;
		for (i = 0, n = 0; i < nb; i++)
			if (to[i] == k)
				out[n++] = m[i];
		if (!n)
			continue;
		sent = rte_ring_enqueue_burst(optinc_workers[k].in[w->idx],
					      (void **)out, n, NULL);
		OPTINC_STAT_ADD(w->ls.handed_out, sent);
		if (likely(sent == n))
			continue;
		OPTINC_STAT_ADD(w->ls.handoff_full, n - sent);
		OPTINC_STAT_ADD(w->q[port].stats.rx_dropped, n - sent);
		rte_pktmbuf_free_bulk(out + sent, n - sent);
	}
}

/*
 * A burst from @port's queue of @w: counted, other workers' frames handed
 * over, this worker's kept in @mine (in order). Return: frames received.
 */
static uint16_t lcore_rx(struct optinc_worker *w, uint16_t port,
			 const struct optinc_conf *c, struct rte_mbuf **mine,
			 uint16_t *nb_mine)
{
	struct optinc_port_stats *s = &w->q[port].stats;
	struct rte_mbuf *pkts[OPTINC_BURST];
	uint16_t i, nb, to[OPTINC_BURST], away = 0;
	uint64_t bytes = 0;

	*nb_mine = 0;
	nb = rte_eth_rx_burst(port, w->idx, pkts, OPTINC_BURST);
	if (unlikely(nb == 0))
		return 0;
	for (i = 0; i < nb; i++)
		bytes += rte_pktmbuf_pkt_len(pkts[i]);
	OPTINC_STAT_ADD(s->rx_pkts, nb);
	OPTINC_STAT_ADD(s->rx_bytes, bytes);
	OPTINC_STAT_ADD(w->ls.rx_frames, nb);
	for (i = 0; i < nb; i++) {
		to[i] = optinc_nb_workers > 1 ? optinc_dp_owner(pkts[i], c) : 0;
		if (likely(to[i] == w->idx)) {
			mine[(*nb_mine)++] = pkts[i];
		} else {
			pkts[i]->port = port;	/* the owner's in-port */
			away++;
		}
	}
	if (unlikely(away))
		lcore_hand_over(w, port, pkts, to, nb);
	return nb;
}

/*
 * One burst from every port @w polls, then switched in turns: the k-th
 * frame of each port, then the k+1-th. A job's members send in step, so
 * the k-th frames of their ports are mostly contributions to one slot:
 * taken together, that slot's accumulators stay in L1 from its first
 * contribution to its last and its result is built while they are there,
 * where port by port, a whole burst of slots (32 x 17 kB at 8704 8-bit
 * elements) lay between them (Documentation/bench.md, "optincd's exact
 * mode against testpmd"). Frames of one port keep their order.
 */
static uint16_t lcore_rx_all(struct optinc_worker *w,
			     const struct optinc_conf *c, uint64_t now)
{
	struct rte_mbuf *in[RTE_MAX_ETHPORTS][OPTINC_BURST];
	uint16_t nb_in[RTE_MAX_ETHPORTS], i, k, most = 0, got = 0;

	for (i = 0; i < w->nb_rx; i++) {
		got += lcore_rx(w, w->rx_ports[i], c, in[i], &nb_in[i]);
		most = RTE_MAX(most, nb_in[i]);
	}
	for (k = 0; k < most; k++)
		for (i = 0; i < w->nb_rx; i++)
			if (k < nb_in[i])
				optinc_dp_input(in[i][k], w->rx_ports[i], c, now);
	return got;
}

/* Frames the other workers handed to @w, switched as if received here. */
static uint16_t lcore_rings_rx(struct optinc_worker *w,
			       const struct optinc_conf *c, uint64_t now)
{
	struct rte_mbuf *pkts[OPTINC_BURST];
	unsigned int k, nb, i, got = 0;

	for (k = 0; k < optinc_nb_workers; k++) {
		if (k == w->idx)
			continue;
		nb = rte_ring_dequeue_burst(w->in[k], (void **)pkts,
					    OPTINC_BURST, NULL);
		for (i = 0; i < nb; i++)
			optinc_dp_input(pkts[i], pkts[i]->port, c, now);
		got += nb;
	}
	OPTINC_STAT_ADD(w->ls.handed_in, got);
	return (uint16_t)got;
}

/*
 * Back off when idle: after IDLE_POLLS empty rounds sleep 1 us, then
 * twice as long after every further empty round, up to c->idle_us. Any
 * frame resets it. Latency cost: a frame that arrives while the loop
 * sleeps waits for the rest of that sleep (at most idle_us).
 */
static void lcore_idle(struct optinc_worker *w, const struct optinc_conf *c,
		       uint32_t *empty, uint32_t *sleep_us)
{
	if (!c->idle_us || ++*empty < IDLE_POLLS)
		return;
	*sleep_us = *sleep_us ? RTE_MIN(*sleep_us * 2, c->idle_us) : 1;
	OPTINC_STAT_INC(w->sw.idle_sleeps);
	OPTINC_STAT_ADD(w->sw.idle_us, *sleep_us);
	rte_delay_us_sleep(*sleep_us);
}

/* The worker this lcore is (--main-lcore may put it anywhere in -l). */
static struct optinc_worker *lcore_worker(void)
{
	unsigned int i;

	for (i = 1; i < optinc_nb_workers; i++)
		if (optinc_workers[i].lcore == rte_lcore_id())
			return &optinc_workers[i];
	return &optinc_workers[0];
}

static int lcore_loop(void *arg)
{
	struct optinc_worker *w = lcore_worker();
	const struct optinc_conf *c = arg;
	uint32_t empty = 0, sleep_us = 0;
	uint64_t now;
	uint16_t nb;

	RTE_PER_LCORE(optinc_wk) = w;
	/* the kernel's default 50 us timer slack would swamp short sleeps */
	prctl(PR_SET_TIMERSLACK, 1000UL);
	while (!lcore_quit) {
		now = rte_rdtsc();
		nb = lcore_rx_all(w, c, now);
		if (optinc_nb_workers > 1)
			nb += lcore_rings_rx(w, c, now);
		optinc_ports_flush();
		optinc_agg_sync();
		if (optinc_nb_workers > 1 && !w->idx)
			optinc_l2_take_requests(now);
		OPTINC_STAT_INC(w->sw.polls);
		if (likely(nb)) {
			OPTINC_STAT_ADD(w->ls.busy_tsc, rte_rdtsc() - now);
			OPTINC_STAT_INC(w->ls.busy_rounds);
			empty = 0;
			sleep_us = 0;
			continue;
		}
		lcore_idle(w, c, &empty, &sleep_us);
	}
	return 0;
}

/* Every worker polls until optinc_lcores_stop(); returns when all have. */
void optinc_lcores_run(const struct optinc_conf *c)
{
	unsigned int id;

	RTE_LCORE_FOREACH_WORKER(id)
		rte_eal_remote_launch(lcore_loop, (void *)(uintptr_t)c, id);
	lcore_loop((void *)(uintptr_t)c);
	rte_eal_mp_wait_lcore();
	RTE_PER_LCORE(optinc_wk) = &optinc_workers[0];
}

/* Async-signal-safe: the loops stop after their round. */
void optinc_lcores_stop(void)
{
	lcore_quit = true;
}

/*
 * Telemetry: the counters at byte @off of every worker, summed into @out
 * (@len bytes of uint64_t counters; a struct's padding sums zeros).
 */
void optinc_lcores_sum(void *out, size_t len, size_t off)
{
	uint64_t *o = out;
	const uint64_t *in;
	unsigned int w, k;

	memset(out, 0, len);
	for (w = 0; w < optinc_nb_workers; w++) {
		in = (const uint64_t *)((const char *)&optinc_workers[w] + off);
		for (k = 0; k < len / sizeof(uint64_t); k++)
			o[k] += __atomic_load_n(&in[k], __ATOMIC_RELAXED);
	}
}

void optinc_sw_stats_sum(struct optinc_sw_stats *out)
{
	optinc_lcores_sum(out, sizeof(*out), offsetof(struct optinc_worker, sw));
}

/* @port's counters, every worker's summed (telemetry). */
void optinc_port_stats_sum(uint16_t port, struct optinc_port_stats *out)
{
	optinc_lcores_sum(out, sizeof(*out), offsetof(struct optinc_worker, q) +
			  port * sizeof(struct optinc_port_q) +
			  offsetof(struct optinc_port_q, stats));
}
