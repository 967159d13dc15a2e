// SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
/* Creating and destroying a communicator; its rank, size and counters. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport.h"
#include "ring.h"

static void comm_free(struct optinc_comm *c)
{
	optinc_queue_fini(c);	/* first: its thread may be in a call */
	if (c->xp)
		c->xp->ops->close(c->xp);
	optinc_ring_close(c->ring);
	free(c->fo.peers);
	free(c->fo.in);
	free(c->fo.last);
	free(c->fo.next);
	free(c->tx);
	free(c->pend);
	free(c->txp);
	free(c->rx);
	free(c->scratch);
	free(c);
}

static int comm_open(struct optinc_comm *c)
{
	int err;

	c->rx_room = c->cfg.mtu - OPTINC_IP_UDP_LEN;
	c->rx = malloc((size_t)OPTINC_RX_BATCH * c->rx_room);
	if (!c->rx)
		return optinc_seterr(c, OPTINC_ERR_NOMEM,
				     "comm_create: no memory for receive buffers");
	err = c->cfg.xops->open(c, &c->xp);
	if (err == OPTINC_ERR_UNSUPPORTED && c->cfg.xops != &optinc_udp_ops) {
		/* say why, then carry on over UDP (Documentation/xdp.md) */
		optinc_log(OPTINC_LOG_WARN, "%s; using the udp transport",
			   c->errmsg);
		c->cfg.xops = &optinc_udp_ops;
		err = c->cfg.xops->open(c, &c->xp);
	}
	if (err)
		c->xp = NULL;
	return err;
}

/* After the join: the switch told us its window and frame size. */
static int comm_setup(struct optinc_comm *c)
{
	if (c->cfg.block > c->sw_max_elems)
		return optinc_seterr(c, OPTINC_ERR_INVALID,
				     "block %u is larger than the %u elements the switch %s holds per frame (opts.block, OPTINC_BLOCK)",
				     c->cfg.block, c->sw_max_elems,
				     c->cfg.sw_str);
	c->window = OPTINC_MIN(c->cfg.window, c->sw_window);
	c->tx_room = c->cfg.mtu - OPTINC_IP_UDP_LEN;
	c->tx = malloc((size_t)c->window * c->tx_room);
	c->pend = calloc(c->window, sizeof(*c->pend));
	c->txp = calloc(c->window, sizeof(*c->txp));
	if (!c->tx || !c->pend || !c->txp)
		return optinc_seterr(c, OPTINC_ERR_NOMEM,
				     "comm_create: no memory for %u frames",
				     c->window);
	return 0;
}

/*
 * Failover to the ring (env.c resolved OPTINC_FAILOVER_MS, 0 turns it off,
 * OPTINC_FAILBACK_CALLS, the peers and the ring port). Without peers
 * there is nothing to fall back to: calls fail as before.
 */
static int comm_failover_cfg(struct optinc_comm *c)
{
	struct optinc_failover *fo = &c->fo;

	fo->ms = c->cfg.failover_ms;
	fo->retry_calls = c->cfg.failback_calls;
	fo->ring_port = c->cfg.ring_port;
	if (!c->cfg.peers || !fo->ms) {
		fo->ms = 0;
		return 0;
	}
	fo->peers = strdup(c->cfg.peers);
	if (!fo->peers)
		return optinc_seterr(c, OPTINC_ERR_NOMEM,
				     "comm_create: no memory for the peers");
	return 0;
}

/*
 * Join the switch again (after a fallback): same shape as before, or the
 * communicator's buffers would not fit. Return: 0 or a result code.
 */
int optinc_failover_join(struct optinc_comm *c)
{
	__u16 window = c->sw_window, max_elems = c->sw_max_elems;
	unsigned int timeout = c->cfg.timeout_ms;
	int err;

	c->cfg.timeout_ms = c->fo.ms;
	err = optinc_join(c, c->fo.back_nonce);
	c->cfg.timeout_ms = timeout;
	if (!err && (c->sw_window != window || c->sw_max_elems != max_elems))
		err = optinc_seterr(c, OPTINC_ERR_PROTO,
				     "join: switch %s came back with window %u, %u elements (was %u, %u)",
				     c->cfg.sw_str, c->sw_window,
				     c->sw_max_elems, window, max_elems);
	c->sw_window = window;
	c->sw_max_elems = max_elems;
	return err;
}

int optinc_comm_create(const struct optinc_opts *opts,
		       struct optinc_comm **comm)
{
	struct optinc_comm *c;
	int err;

	if (!comm) {
		optinc_keep_create_err("comm_create: comm is NULL");
		return OPTINC_ERR_INVALID;
	}
	*comm = NULL;
	c = calloc(1, sizeof(*c));
	if (!c) {
		optinc_keep_create_err("comm_create: out of memory");
		return OPTINC_ERR_NOMEM;
	}
	err = optinc_cfg_resolve(c, opts);
	if (!err && c->cfg.algo == OPTINC_ALGO_RING)
		err = optinc_ring_open(&c->ring, c->cfg.rank, c->cfg.size,
				       c->cfg.peers, c->cfg.ring_port,
				       c->cfg.timeout_ms, c->errmsg,
				       sizeof(c->errmsg));
	else if (!err)
		err = comm_open(c) ?: optinc_join(c, optinc_join_nonce()) ?:
		      comm_failover_cfg(c) ?: comm_setup(c);
	c->cfg.peers = NULL;
	err = err ?: optinc_queue_init(c);
	if (err) {
		optinc_keep_create_err(c->errmsg);
		comm_free(c);
		return err;
	}
	if (c->ring)
		optinc_log(OPTINC_LOG_INFO,
			   "rank %d of %d: ring connected (TCP ports from %u)",
			   c->cfg.rank, c->cfg.size, c->cfg.ring_port);
	else
		optinc_log(OPTINC_LOG_INFO,
			   "rank %d of %d: joined switch %s job %u over %s (window %u, %u elements a frame, failover %s)",
			   c->cfg.rank, c->cfg.size, c->cfg.sw_str, c->cfg.job,
			   c->xp->ops->name, c->window, c->sw_max_elems,
			   c->fo.ms ? "on" : "off");
	*comm = c;
	return 0;
}

void optinc_comm_destroy(struct optinc_comm *comm)
{
	if (comm)
		comm_free(comm);
}

int optinc_comm_rank(const struct optinc_comm *comm)
{
	return comm ? comm->cfg.rank : OPTINC_ERR_INVALID;
}

int optinc_comm_size(const struct optinc_comm *comm)
{
	return comm ? comm->cfg.size : OPTINC_ERR_INVALID;
}

/* On the thread that runs calls (request.c keeps the last snapshot). */
void optinc_comm_stats_now(const struct optinc_comm *c,
			   struct optinc_comm_stats *st)
{
	*st = c->st;
	if (c->ring) {
		struct optinc_ring_stats rs;

		optinc_ring_get_stats(c->ring, &rs);
		st->bytes_sent = rs.bytes_sent;
		st->bytes_rcvd = rs.bytes_rcvd;
	}
}

/* Counters as of the last completed call (a running one is not torn). */
int optinc_comm_get_stats(const struct optinc_comm *comm,
			  struct optinc_comm_stats *st)
{
	struct optinc_comm_stats s;

	if (!comm || !st || st->sz < sizeof(st->sz))
		return OPTINC_ERR_INVALID;
	optinc_queue_stats(comm, &s);
	s.sz = OPTINC_MIN(st->sz, sizeof(s));
	memcpy(st, &s, s.sz);
	return 0;
}
