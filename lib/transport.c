// SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
/* Sending and receiving through the communicator's transport, counted. */
#include "transport.h"

int optinc_xmit(struct optinc_comm *c, const struct optinc_pkt *p,
		unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		c->st.bytes_sent += p[i].len;
	c->st.frames_sent += n;
	return c->xp->ops->send(c, c->xp, p, n);
}

/* Receive into c->rxp[]; returns the frames received (0: timeout). */
int optinc_recv(struct optinc_comm *c, int timeout_ms)
{
	unsigned int i;
	int r;

	for (i = 0; i < OPTINC_RX_BATCH; i++) {
		c->rxp[i].buf = c->rx + (size_t)i * c->rx_room;
		c->rxp[i].len = c->rx_room;
	}
	r = c->xp->ops->recv(c, c->xp, c->rxp, OPTINC_RX_BATCH, timeout_ms);
	if (r <= 0)
		return r;
	c->st.frames_rcvd += r;
	for (i = 0; i < (unsigned int)r; i++)
		c->st.bytes_rcvd += c->rxp[i].len;
	return r;
}
