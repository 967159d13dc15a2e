/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause) */
/*
 * How liboptinc moves OptINC messages (UDP payloads: header + payload) to
 * and from the switch. A transport only carries bytes; windows, timeouts
 * and retransmission live above it, in pipe.c.
 */
#ifndef OPTINC_LIB_TRANSPORT_H
#define OPTINC_LIB_TRANSPORT_H

#include "internal.h"

/**
 * struct optinc_xport_ops - one transport
 * @name:  as in opts.transport / OPTINC_TRANSPORT
 * @open:  reach cfg.sw from cfg.bind; on success *xp is the handle.
 *         Return: 0 or a result code, with the comm's errmsg set.
 * @close: release everything @open took.
 * @send:  send @n messages; frames the network refused count as lost
 *         (retransmission recovers them). Return: 0 or a result code.
 * @recv:  wait up to @timeout_ms for messages, fill up to @n buffers
 *         (len = bytes received). Return: buffers filled (0 on timeout)
 *         or a result code.
 */
struct optinc_xport_ops {
	const char *name;
	int (*open)(struct optinc_comm *c, struct optinc_xport **xp);
	void (*close)(struct optinc_xport *xp);
	int (*send)(struct optinc_comm *c, struct optinc_xport *xp,
		    const struct optinc_pkt *p, unsigned int n);
	int (*recv)(struct optinc_comm *c, struct optinc_xport *xp,
		    struct optinc_pkt *p, unsigned int n, int timeout_ms);
};

extern const struct optinc_xport_ops optinc_udp_ops;

/* transport.c: udp, or afxdp from its plugin (xport_plugin.h) */
int optinc_xport_get(struct optinc_comm *c, const char *name,
		     const char *from, const struct optinc_xport_ops **ops);

#endif /* OPTINC_LIB_TRANSPORT_H */
