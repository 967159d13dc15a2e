// SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
/* Creating and destroying a communicator; its rank, size and counters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport.h"
#include "ring.h"

static void comm_free(struct optinc_comm *c)
{
	if (c->xp)
		c->xp->ops->close(c->xp);
	optinc_ring_close(c->ring);
	free(c->tx);
	free(c->pend);
	free(c->txp);
	free(c->rx);
	free(c->exps);
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
		/* the contract: say why, then carry on over UDP */
		fprintf(stderr, "optinc: %s; using the udp transport\n",
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
				     "block %u is larger than the %u elements the switch %s holds per frame",
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
		err = comm_open(c) ?: optinc_join(c) ?: comm_setup(c);
	c->cfg.peers = NULL;
	if (err) {
		optinc_keep_create_err(c->errmsg);
		comm_free(c);
		return err;
	}
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

int optinc_comm_get_stats(const struct optinc_comm *comm,
			  struct optinc_comm_stats *st)
{
	struct optinc_comm_stats s;

	if (!comm || !st || st->sz < sizeof(st->sz))
		return OPTINC_ERR_INVALID;
	s = comm->st;
	if (comm->ring) {
		struct optinc_ring_stats rs;

		optinc_ring_get_stats(comm->ring, &rs);
		s.bytes_sent = rs.bytes_sent;
		s.bytes_rcvd = rs.bytes_rcvd;
	}
	s.sz = OPTINC_MIN(st->sz, sizeof(s));
	memcpy(st, &s, s.sz);
	return 0;
}
