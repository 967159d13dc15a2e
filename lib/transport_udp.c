// SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
/* The udp transport: one non-blocking UDP socket connected to the switch. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "transport.h"

#define UDP_TX_BATCH	64
#define UDP_SOCKBUF	(4 << 20)	/* asked for; the kernel may cap it */

struct udp_xport {
	struct optinc_xport xp;
	int fd;
};

static struct udp_xport *udp_of(struct optinc_xport *xp)
{
	return (struct udp_xport *)((char *)xp - offsetof(struct udp_xport, xp));
}

static void udp_sockbufs(int fd)
{
	int sz = UDP_SOCKBUF;

	/* best effort: a smaller buffer only costs retransmissions; past
	 * net.core.rmem_max/wmem_max only with CAP_NET_ADMIN */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
}

static int udp_open(struct optinc_comm *c, struct optinc_xport **xp)
{
	struct udp_xport *u;
	const char *what;

	u = calloc(1, sizeof(*u));
	if (!u)
		return optinc_seterr(c, OPTINC_ERR_NOMEM, "udp: no memory");
	u->xp.ops = &optinc_udp_ops;
	what = "socket";
	u->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (u->fd < 0)
		goto out_free;
	udp_sockbufs(u->fd);
	what = "bind (opts.bind_addr, OPTINC_BIND)";
	if (bind(u->fd, (struct sockaddr *)&c->cfg.bind, sizeof(c->cfg.bind)))
		goto out_close;
	what = "connect";
	if (connect(u->fd, (struct sockaddr *)&c->cfg.sw, sizeof(c->cfg.sw)))
		goto out_close;
	*xp = &u->xp;
	return 0;

out_close:
	optinc_seterr(c, OPTINC_ERR_SYSTEM, "udp: %s (switch %s): %s", what,
		      c->cfg.sw_str, strerror(errno));
	close(u->fd);
	free(u);
	return OPTINC_ERR_SYSTEM;
out_free:
	optinc_seterr(c, OPTINC_ERR_SYSTEM, "udp: socket: %s", strerror(errno));
	free(u);
	return OPTINC_ERR_SYSTEM;
}

static void udp_close(struct optinc_xport *xp)
{
	struct udp_xport *u = udp_of(xp);

	close(u->fd);
	free(u);
}

/* Errors after which the frame is lost but the socket is fine. */
static int udp_transient(struct optinc_xport *xp, int err)
{
	if (err == ECONNREFUSED)
		xp->icmp_refused = 1;
	return err == EAGAIN || err == ENOBUFS || err == ECONNREFUSED ||
	       err == EINTR || err == EHOSTUNREACH || err == ENETUNREACH;
}

static int udp_send(struct optinc_comm *c, struct optinc_xport *xp,
		    const struct optinc_pkt *p, unsigned int n)
{
	struct mmsghdr msg[UDP_TX_BATCH];
	struct iovec iov[UDP_TX_BATCH];
	unsigned int i, k, done = 0;
	int r;

	while (done < n) {
		k = OPTINC_MIN(n - done, UDP_TX_BATCH);
		memset(msg, 0, k * sizeof(msg[0]));
		for (i = 0; i < k; i++) {
			iov[i].iov_base = p[done + i].buf;
			iov[i].iov_len = p[done + i].len;
			msg[i].msg_hdr.msg_iov = &iov[i];
			msg[i].msg_hdr.msg_iovlen = 1;
		}
		r = sendmmsg(udp_of(xp)->fd, msg, k, MSG_DONTWAIT);
		if (r < 0 && !udp_transient(xp, errno))
			return optinc_seterr(c, OPTINC_ERR_SYSTEM,
					     "udp: send to switch %s: %s",
					     c->cfg.sw_str, strerror(errno));
		done += r > 0 ? (unsigned int)r : 1;
	}
	return 0;
}

static int udp_poll(struct optinc_comm *c, int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int r;

	r = poll(&pfd, 1, timeout_ms);
	if (r < 0 && errno != EINTR)
		return optinc_seterr(c, OPTINC_ERR_SYSTEM, "udp: poll: %s",
				     strerror(errno));
	return r > 0;
}

static int udp_recv(struct optinc_comm *c, struct optinc_xport *xp,
		    struct optinc_pkt *p, unsigned int n, int timeout_ms)
{
	struct mmsghdr msg[OPTINC_RX_BATCH];
	struct iovec iov[OPTINC_RX_BATCH];
	int fd = udp_of(xp)->fd;
	unsigned int i, k = OPTINC_MIN(n, OPTINC_RX_BATCH);
	int r;

	memset(msg, 0, k * sizeof(msg[0]));
	for (i = 0; i < k; i++) {
		iov[i].iov_base = p[i].buf;
		iov[i].iov_len = p[i].len;
		msg[i].msg_hdr.msg_iov = &iov[i];
		msg[i].msg_hdr.msg_iovlen = 1;
	}
	/* frames are usually queued already: poll only when none is */
	r = recvmmsg(fd, msg, k, MSG_DONTWAIT, NULL);
	if (r < 0 && errno == EAGAIN && timeout_ms) {
		r = udp_poll(c, fd, timeout_ms);
		if (r <= 0)
			return r;
		r = recvmmsg(fd, msg, k, MSG_DONTWAIT, NULL);
	}
	if (r < 0) {
		if (udp_transient(xp, errno))
			return 0;
		return optinc_seterr(c, OPTINC_ERR_SYSTEM,
				     "udp: receive from switch %s: %s",
				     c->cfg.sw_str, strerror(errno));
	}
	/* a truncated datagram is longer than any answer we expect: len 0 */
	for (i = 0; i < (unsigned int)r; i++)
		p[i].len = (msg[i].msg_hdr.msg_flags & MSG_TRUNC) ?
			   0 : msg[i].msg_len;
	return r;
}

const struct optinc_xport_ops optinc_udp_ops = {
	.name	= "udp",
	.open	= udp_open,
	.close	= udp_close,
	.send	= udp_send,
	.recv	= udp_recv,
};
