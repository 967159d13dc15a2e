// SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
/*
 * The afxdp transport: frames to the switch are built here (Ethernet, IPv4,
 * UDP by the core) and sent through an AF_XDP socket in copy mode; the
 * switch's answers come back through the same socket, steered to it by the
 * XDP program of bpf/ (`optincctl xdp attach DEV`). A UDP socket holds the
 * local port, so that no other socket on this host gets it. Built as its
 * own shared object, liboptinc-afxdp.so (afxdp_plugin.c), which liboptinc
 * loads only for a communicator that asks for afxdp: libxdp and libbpf are
 * needed by this file alone.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <bpf/bpf.h>
#include <xdp/xsk.h>

#include "transport.h"
#include "../bpf/loader.h"

/* Linux 6.6 uapi; the Debian 12 headers predate it. */
#ifndef XDP_USE_SG
#define XDP_USE_SG		(1 << 4)
#endif
#ifndef XDP_PKT_CONTD
#define XDP_PKT_CONTD		(1 << 0)
#endif

#define AFX_CHUNK	4096	/* UMEM chunk: one descriptor */
#define AFX_RX_ROOM	(AFX_CHUNK - XDP_PACKET_HEADROOM)	/* copy mode */
#define AFX_FRAMES	4096	/* chunks: half to receive, half to send */
#define AFX_HALF	(AFX_FRAMES / 2)
#define AFX_RING	AFX_HALF
#define AFX_MAX_DESC	(65536 / AFX_RX_ROOM + 1)	/* chunks of one frame */
#define AFX_HDR_ROOM	(18 + 60 + 8)	/* Ethernet, VLAN, IPv4, UDP at most */
#define AFX_NEIGH_MS	3000	/* ARP: the kernel's three tries */
#define AFX_BUSY_MS	1000	/* wait for a closed socket's queue */
#define AFX_NUD_VALID	(NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE | \
			 NUD_PERMANENT | NUD_NOARP)

struct afx_xport {
	struct optinc_xport xp;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fill, tx;
	struct xsk_ring_cons comp, rx;
	void *area;			/* AFX_FRAMES chunks */
	__u64 free[AFX_HALF];		/* send chunks not in the rings */
	unsigned int nfree;
	struct optinc_bpf_maps maps;
	struct optinc_endpoint me, sw;	/* sw.mac: the next hop's */
	char ifname[IF_NAMESIZE];
	int ifindex;
	__u32 queue;
	__u16 job;
	__u8 tos;
	int sg;				/* frames may span chunks */
	int registered;			/* our entry is in optinc_jobs */
	int udp_fd;
};

extern const struct optinc_xport_ops optinc_afxdp_ops;

static struct afx_xport *afx_of(struct optinc_xport *xp)
{
	return (struct afx_xport *)((char *)xp - offsetof(struct afx_xport, xp));
}

/* ---- the way to the switch: interface, addresses, next hop's MAC ---- */

struct afx_nlreq {
	struct nlmsghdr nh;
	union {
		struct rtmsg rt;
		struct ndmsg nd;
	};
	char attrs[32];
};

static void afx_nl_attr(struct nlmsghdr *nh, int type, const void *d, int len)
{
	struct rtattr *rta = (void *)((char *)nh + NLMSG_ALIGN(nh->nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), d, len);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

/* Send @req, read the answer into @buf. Return: its length, or -errno. */
static int afx_nl_call(struct nlmsghdr *req, void *buf, size_t len)
{
	struct timeval tv = { .tv_sec = 1 };
	struct nlmsghdr *nh = buf;
	int fd, r;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	r = send(fd, req, req->nlmsg_len, 0) < 0 ? -errno : 0;
	if (!r)
		r = recv(fd, buf, len, 0);
	if (r < 0)
		r = -errno;
	else if (!NLMSG_OK(nh, (unsigned int)r))
		r = -EPROTO;
	else if (nh->nlmsg_type == NLMSG_ERROR)
		r = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
	close(fd);
	return r;
}

/* Attributes after a @hdr-byte family header, indexed by type up to @max. */
static void afx_nl_parse(struct nlmsghdr *nh, size_t hdr, struct rtattr **tb,
			 int max)
{
	struct rtattr *a = (void *)((char *)NLMSG_DATA(nh) + NLMSG_ALIGN(hdr));
	int len = nh->nlmsg_len - NLMSG_LENGTH(hdr);

	memset(tb, 0, (max + 1) * sizeof(*tb));
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type <= max)
			tb[a->rta_type] = a;
}

/* The route to the switch: interface and next hop (the switch or a gateway). */
static int afx_route(struct optinc_comm *c, struct afx_xport *a, __be32 *hop)
{
	struct afx_nlreq req = {
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg)),
		.nh.nlmsg_type = RTM_GETROUTE,
		.nh.nlmsg_flags = NLM_F_REQUEST,
		.rt.rtm_family = AF_INET,
		.rt.rtm_dst_len = 32,
	};
	struct rtattr *tb[RTA_MAX + 1];
	char buf[1024];
	int r;

	afx_nl_attr(&req.nh, RTA_DST, &c->cfg.sw.sin_addr.s_addr, 4);
	r = afx_nl_call(&req.nh, buf, sizeof(buf));
	if (r < 0)
		return optinc_seterr(c, OPTINC_ERR_SYSTEM,
				     "afxdp: route to switch %s: %s",
				     c->cfg.sw_str, strerror(-r));
	afx_nl_parse((struct nlmsghdr *)buf, sizeof(struct rtmsg), tb, RTA_MAX);
	if (!tb[RTA_OIF])
		return optinc_seterr(c, OPTINC_ERR_SYSTEM,
				     "afxdp: route to switch %s has no interface",
				     c->cfg.sw_str);
	a->ifindex = *(int *)RTA_DATA(tb[RTA_OIF]);
	*hop = tb[RTA_GATEWAY] ? *(__be32 *)RTA_DATA(tb[RTA_GATEWAY]) :
				 c->cfg.sw.sin_addr.s_addr;
	if (!if_indextoname(a->ifindex, a->ifname))
		return optinc_seterr(c, OPTINC_ERR_SYSTEM,
				     "afxdp: interface %d: %s", a->ifindex,
				     strerror(errno));
	return 0;
}

/*
 * Ask the kernel for @hop's MAC. With @use (NTF_USE) an unknown or stale
 * entry is created and resolved by ARP instead.
 * Return: 1 with a->sw.mac set, 0 when not resolved yet, or -errno.
 */
static int afx_neigh(struct afx_xport *a, __be32 hop, int use)
{
	struct afx_nlreq req = {
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ndmsg)),
		.nh.nlmsg_type = use ? RTM_NEWNEIGH : RTM_GETNEIGH,
		.nh.nlmsg_flags = NLM_F_REQUEST |
				  (use ? NLM_F_CREATE | NLM_F_ACK : 0),
		.nd.ndm_family = AF_INET,
		.nd.ndm_ifindex = a->ifindex,
		.nd.ndm_flags = use ? NTF_USE : 0,
	};
	struct rtattr *tb[NDA_MAX + 1];
	struct nlmsghdr *nh;
	struct ndmsg *nd;
	char buf[1024];
	int r;

	afx_nl_attr(&req.nh, NDA_DST, &hop, 4);
	r = afx_nl_call(&req.nh, buf, sizeof(buf));
	if (r <= 0 || use)
		return r == -ENOENT ? 0 : r;
	nh = (struct nlmsghdr *)buf;
	nd = NLMSG_DATA(nh);
	afx_nl_parse(nh, sizeof(*nd), tb, NDA_MAX);
	if (!(nd->ndm_state & AFX_NUD_VALID) || !tb[NDA_LLADDR] ||
	    RTA_PAYLOAD(tb[NDA_LLADDR]) != 6)
		return 0;
	memcpy(a->sw.mac, RTA_DATA(tb[NDA_LLADDR]), 6);
	return 1;
}

/* The next hop's MAC from the neighbour table, resolved by ARP if needed. */
static int afx_resolve(struct optinc_comm *c, struct afx_xport *a, __be32 hop)
{
	__u64 end = optinc_now_ms() +
		    OPTINC_MIN(c->cfg.timeout_ms, AFX_NEIGH_MS);
	int r;

	r = afx_neigh(a, hop, 0);
	if (!r)
		r = afx_neigh(a, hop, 1);
	while (!r && optinc_now_ms() < end) {
		usleep(5000);
		r = afx_neigh(a, hop, 0);
	}
	if (r == 1)
		return 0;
	return optinc_seterr(c, OPTINC_ERR_TIMEOUT,
			     "afxdp: no ARP answer for the next hop to switch %s on %s%s%s",
			     c->cfg.sw_str, a->ifname, r ? ": " : "",
			     r ? strerror(-r) : "");
}

static int afx_local_mac(struct optinc_comm *c, struct afx_xport *a)
{
	struct ifreq ifr;
	int err;

	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, a->ifname, IF_NAMESIZE);
	err = ioctl(a->udp_fd, SIOCGIFHWADDR, &ifr);
	if (err)
		return optinc_seterr(c, OPTINC_ERR_SYSTEM,
				     "afxdp: MAC address of %s: %s", a->ifname,
				     strerror(errno));
	memcpy(a->me.mac, ifr.ifr_hwaddr.sa_data, 6);
	return 0;
}

/* Our IPv4 address and UDP port: those the kernel picks for the switch. */
static int afx_port(struct optinc_comm *c, struct afx_xport *a)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	const char *what = "socket";

	a->udp_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (a->udp_fd < 0)
		goto out_err;
	what = "bind (opts.bind_addr, OPTINC_BIND)";
	if (bind(a->udp_fd, (struct sockaddr *)&c->cfg.bind, sizeof(c->cfg.bind)))
		goto out_err;
	what = "connect";
	if (connect(a->udp_fd, (struct sockaddr *)&c->cfg.sw, sizeof(c->cfg.sw)))
		goto out_err;
	what = "getsockname";
	if (getsockname(a->udp_fd, (struct sockaddr *)&sa, &len))
		goto out_err;
	a->me.ip = sa.sin_addr.s_addr;
	a->me.port = sa.sin_port;
	a->sw.ip = c->cfg.sw.sin_addr.s_addr;
	a->sw.port = c->cfg.sw.sin_port;
	return 0;
out_err:
	return optinc_seterr(c, OPTINC_ERR_SYSTEM, "afxdp: UDP %s (switch %s): %s",
			     what, c->cfg.sw_str, strerror(errno));
}

/* ---- the XDP program's maps, the UMEM and the AF_XDP socket ---- */

/* The program attach left on the interface: its maps and settings. */
static int afx_maps(struct optinc_comm *c, struct afx_xport *a)
{
	struct optinc_bpf_cfg cfg;
	__u32 zero = 0;
	int err;

	err = optinc_bpf_maps_get(a->ifindex, &a->maps);
	if (err == -ENOENT && a->maps.other_id)
		return optinc_seterr(c, OPTINC_ERR_UNSUPPORTED,
				     "afxdp: %s runs XDP program '%s' (id %u), not OptINC's: detach it, then 'optincctl xdp attach %s'",
				     a->ifname, a->maps.other, a->maps.other_id,
				     a->ifname);
	if (err == -ENOENT)
		return optinc_seterr(c, OPTINC_ERR_UNSUPPORTED,
				     "afxdp: no OptINC XDP program on %s (the way to switch %s): run 'optincctl xdp attach %s'",
				     a->ifname, c->cfg.sw_str, a->ifname);
	if (err)
		return optinc_seterr(c, OPTINC_ERR_UNSUPPORTED,
				     "afxdp: reading the XDP program of %s: %s%s",
				     a->ifname, strerror(-err),
				     err == -EPERM ? " (needs CAP_BPF and CAP_NET_ADMIN, or root)" : "");
	if (a->maps.cfg < 0 || a->maps.jobs < 0 || a->maps.xsks < 0 ||
	    bpf_map_lookup_elem(a->maps.cfg, &zero, &cfg))
		return optinc_seterr(c, OPTINC_ERR_UNSUPPORTED,
				     "afxdp: the XDP program on %s lacks its maps (built from another version?)",
				     a->ifname);
	if (cfg.port != ntohs(a->sw.port))
		return optinc_seterr(c, OPTINC_ERR_UNSUPPORTED,
				     "afxdp: the XDP program on %s watches UDP port %u, switch %s (opts.switch_addr, OPTINC_SWITCH) is on another port",
				     a->ifname, cfg.port, c->cfg.sw_str);
	a->tos = cfg.dscp == OPTINC_BPF_KEEP ? 0 : cfg.dscp << 2;
	return 0;
}

static int afx_umem(struct optinc_comm *c, struct afx_xport *a)
{
	struct xsk_umem_config ucfg = {
		.fill_size = AFX_RING,
		.comp_size = AFX_RING,
		.frame_size = AFX_CHUNK,
	};
	unsigned int i;
	int err;

	a->area = mmap(NULL, (size_t)AFX_FRAMES * AFX_CHUNK,
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a->area == MAP_FAILED) {
		a->area = NULL;
		return optinc_seterr(c, OPTINC_ERR_NOMEM, "afxdp: UMEM of %u KiB: %s",
				     AFX_FRAMES * AFX_CHUNK / 1024, strerror(errno));
	}
	err = xsk_umem__create(&a->umem, a->area, (__u64)AFX_FRAMES * AFX_CHUNK,
			       &a->fill, &a->comp, &ucfg);
	if (err)
		return optinc_seterr(c, OPTINC_ERR_UNSUPPORTED,
				     "afxdp: register UMEM: %s", strerror(-err));
	for (i = 0; i < AFX_HALF; i++)
		a->free[i] = (__u64)(AFX_HALF + i) * AFX_CHUNK;
	a->nfree = AFX_HALF;
	return 0;
}

/* Hand every receive chunk to the kernel. */
static void afx_fill_all(struct afx_xport *a)
{
	__u32 idx, i;

	if (xsk_ring_prod__reserve(&a->fill, AFX_HALF, &idx) != AFX_HALF)
		return;		/* cannot happen: the ring is empty and as large */
	for (i = 0; i < AFX_HALF; i++)
		*xsk_ring_prod__fill_addr(&a->fill, idx + i) = (__u64)i * AFX_CHUNK;
	xsk_ring_prod__submit(&a->fill, AFX_HALF);
}

/*
 * The kernel lets go of a closed socket's queue a little later (deferred
 * work): a process that comes right after another one may find it busy.
 */
static int afx_bind(struct afx_xport *a, const struct xsk_socket_config *scfg)
{
	unsigned int tries = AFX_BUSY_MS / 10;
	int err;

	while (1) {
		err = xsk_socket__create(&a->xsk, a->ifname, a->queue, a->umem,
					 &a->rx, &a->tx, scfg);
		if (err != -EBUSY || !tries--)
			return err;
		usleep(10000);
	}
}

/* Bind in copy mode; frames larger than a chunk need XDP_USE_SG (6.6). */
static int afx_socket(struct optinc_comm *c, struct afx_xport *a)
{
	struct xsk_socket_config scfg = {
		.rx_size = AFX_RING,
		.tx_size = AFX_RING,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_COPY | XDP_USE_SG,
	};
	int err;

	err = afx_bind(a, &scfg);
	a->sg = !err;
	if (err == -EINVAL) {
		scfg.bind_flags = XDP_COPY;
		err = afx_bind(a, &scfg);
	}
	if (err)
		return optinc_seterr(c, OPTINC_ERR_UNSUPPORTED,
				     "afxdp: AF_XDP socket on %s queue %u (OPTINC_XDP_QUEUE): %s%s",
				     a->ifname, a->queue, strerror(-err),
				     err == -EBUSY ? " (another AF_XDP socket holds the queue)" : "");
	if (!a->sg && c->cfg.mtu + 14 > AFX_RX_ROOM)
		return optinc_seterr(c, OPTINC_ERR_UNSUPPORTED,
				     "afxdp: this kernel has no AF_XDP multi-buffer frames (XDP_USE_SG, Linux 6.6): set OPTINC_MTU <= %u",
				     AFX_RX_ROOM - 14);
	afx_fill_all(a);
	err = xsk_socket__update_xskmap(a->xsk, a->maps.xsks);
	if (err)
		return optinc_seterr(c, OPTINC_ERR_UNSUPPORTED,
				     "afxdp: put the socket into the XSKMAP of %s: %s",
				     a->ifname, strerror(-err));
	return 0;
}

/* From now on the XDP program steers the job's answers to our socket. */
static int afx_register(struct optinc_comm *c, struct afx_xport *a)
{
	struct optinc_bpf_job v = { .queue = a->queue, .port = ntohs(a->me.port) };

	a->job = c->cfg.job;
	if (bpf_map_update_elem(a->maps.jobs, &a->job, &v, BPF_ANY))
		return optinc_seterr(c, OPTINC_ERR_UNSUPPORTED,
				     "afxdp: register job %u with the XDP program of %s: %s",
				     a->job, a->ifname, strerror(errno));
	a->registered = 1;
	return 0;
}

/* ---- sending ---- */

/* Chunks the kernel has sent back to the free list. */
static void afx_reclaim(struct afx_xport *a)
{
	__u32 idx, n, i;

	n = xsk_ring_cons__peek(&a->comp, AFX_RING, &idx);
	for (i = 0; i < n; i++)
		a->free[a->nfree++] = *xsk_ring_cons__comp_addr(&a->comp, idx + i);
	xsk_ring_cons__release(&a->comp, n);
}

/* In copy mode this sendto() sends, a batch of frames per call. */
static int afx_kick(struct optinc_comm *c, struct afx_xport *a)
{
	if (sendto(xsk_socket__fd(a->xsk), NULL, 0, MSG_DONTWAIT, NULL, 0) >= 0 ||
	    errno == EAGAIN || errno == EBUSY || errno == ENOBUFS ||
	    errno == EINTR)
		return 0;
	return optinc_seterr(c, OPTINC_ERR_SYSTEM, "afxdp: send on %s: %s",
			     a->ifname, strerror(errno));
}

/* Bytes [off, off + len) of the frame: headers @hdr, then the payload. */
static void afx_copy(__u8 *dst, const __u8 *hdr, const struct optinc_pkt *p,
		     __u32 off, __u32 len)
{
	__u32 h = off < OPTINC_L2L4_LEN ? OPTINC_L2L4_LEN - off : 0;

	if (h > len)
		h = len;
	memcpy(dst, hdr + off, h);
	memcpy(dst + h, (const __u8 *)p->buf + off + h - OPTINC_L2L4_LEN,
	       len - h);
}

/* Put one frame on the TX ring. Return: 0, or -ENOSPC when it is full. */
static int afx_put(struct afx_xport *a, const struct optinc_pkt *p)
{
	__u32 len = OPTINC_L2L4_LEN + p->len, nd = OPTINC_DIV_UP(len, AFX_CHUNK);
	__u32 idx, k, off, n;
	struct xdp_desc *d;
	__u8 hdr[OPTINC_L2L4_LEN], *ip = hdr + 14;

	if (nd > a->nfree || (nd > 1 && !a->sg) ||
	    xsk_ring_prod__reserve(&a->tx, nd, &idx) != nd)
		return -ENOSPC;
	optinc_build_l2l4(hdr, &a->me, &a->sw, p->len);
	if (a->tos) {
		ip[1] = a->tos;
		ip[10] = ip[11] = 0;
		*(__be16 *)(ip + 10) = htons(optinc_ip_csum(ip, 20));
	}
	for (k = 0, off = 0; k < nd; k++, off += n) {
		n = OPTINC_MIN(AFX_CHUNK, len - off);
		d = xsk_ring_prod__tx_desc(&a->tx, idx + k);
		d->addr = a->free[--a->nfree];
		d->len = n;
		d->options = k + 1 < nd ? XDP_PKT_CONTD : 0;
		afx_copy(xsk_umem__get_data(a->area, d->addr), hdr, p, off, n);
	}
	xsk_ring_prod__submit(&a->tx, nd);
	return 0;
}

/* Kick until the kernel has taken every descriptor, or a few times more. */
static int afx_drain(struct optinc_comm *c, struct afx_xport *a, unsigned int n)
{
	unsigned int tries = n / 16 + 4;
	int err = 0;

	while (!err && tries-- && xsk_prod_nb_free(&a->tx, AFX_RING) < AFX_RING) {
		err = afx_kick(c, a);
		afx_reclaim(a);
	}
	return err;
}

static int afx_send(struct optinc_comm *c, struct optinc_xport *xp,
		    const struct optinc_pkt *p, unsigned int n)
{
	struct afx_xport *a = afx_of(xp);
	unsigned int i;
	int err;

	afx_reclaim(a);
	for (i = 0; i < n; i++) {
		if (p[i].len > c->cfg.mtu - OPTINC_IP_UDP_LEN)
			return optinc_seterr(c, OPTINC_ERR_INVALID,
					     "afxdp: a %u-byte message does not fit MTU %u (opts.mtu, OPTINC_MTU)",
					     p[i].len, c->cfg.mtu);
		if (!afx_put(a, &p[i]))
			continue;
		err = afx_drain(c, a, i);
		if (err)
			return err;
		afx_put(a, &p[i]);	/* still full: lost, as on a wire */
	}
	return afx_drain(c, a, n);
}

/* ---- receiving ---- */

/* Chunks back to the kernel for the next frames. */
static void afx_refill(struct afx_xport *a, const __u64 *addr, __u32 n)
{
	__u32 idx, i;

	if (xsk_ring_prod__reserve(&a->fill, n, &idx) != n)
		return;		/* cannot happen: the ring holds every chunk */
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&a->fill, idx + i) =
			addr[i] & ~(__u64)(AFX_CHUNK - 1);
	xsk_ring_prod__submit(&a->fill, n);
}

/* Bytes [off, off + len) of a frame spread over @nd chunks, into @dst. */
static void afx_gather(const struct afx_xport *a, const struct xdp_desc **d,
		       __u32 nd, __u32 off, __u32 len, __u8 *dst)
{
	__u32 i, n;

	for (i = 0; i < nd && len; i++) {
		if (off >= d[i]->len) {
			off -= d[i]->len;
			continue;
		}
		n = OPTINC_MIN(d[i]->len - off, len);
		memcpy(dst, (__u8 *)xsk_umem__get_data(a->area, d[i]->addr) + off, n);
		dst += n;
		len -= n;
		off = 0;
	}
}

/*
 * The UDP payload of a frame from the switch to us into @p (len 0 when it
 * does not fit). The core reads only the headers, which are in the first
 * chunk, so it is given that chunk and the length of the whole frame.
 * Return: 1 when it was such a frame, 0 for a stray one.
 */
static int afx_deliver(struct afx_xport *a, const struct xdp_desc **d,
		       __u32 nd, struct optinc_pkt *p)
{
	struct optinc_l2l4 l;
	__u32 i, len = 0;

	for (i = 0; i < nd; i++)
		len += d[i]->len;
	if ((nd > 1 && d[0]->len < AFX_HDR_ROOM) ||
	    optinc_parse_l2l4(xsk_umem__get_data(a->area, d[0]->addr), len,
			      ntohs(a->me.port), &l) != 1 ||
	    l.src.ip != a->sw.ip || l.src.port != a->sw.port)
		return 0;
	if (l.l4_len > p->len) {
		p->len = 0;
		return 1;
	}
	afx_gather(a, d, nd, l.l4_off, l.l4_len, p->buf);
	p->len = l.l4_len;
	return 1;
}

/* The descriptors of the frame at the head of the RX ring (taken off it). */
static __u32 afx_rx_descs(struct afx_xport *a, const struct xdp_desc **d)
{
	__u32 idx, nd = 0;
	int more = 1;

	while (more && nd < AFX_MAX_DESC && xsk_ring_cons__peek(&a->rx, 1, &idx)) {
		d[nd] = xsk_ring_cons__rx_desc(&a->rx, idx);
		more = d[nd++]->options & XDP_PKT_CONTD;
	}
	if (more && nd < AFX_MAX_DESC) {	/* not all there yet */
		xsk_ring_cons__cancel(&a->rx, nd);
		return 0;
	}
	return nd;
}

/* Return: 1 when a frame went to @p, 0 when none is there, -1 for a stray. */
static int afx_rx_one(struct afx_xport *a, struct optinc_pkt *p)
{
	const struct xdp_desc *d[AFX_MAX_DESC];
	__u64 addr[AFX_MAX_DESC];
	__u32 nd, i;
	int ok;

	nd = afx_rx_descs(a, d);
	if (!nd)
		return 0;
	ok = afx_deliver(a, d, nd, p);
	for (i = 0; i < nd; i++)
		addr[i] = d[i]->addr;
	xsk_ring_cons__release(&a->rx, nd);
	afx_refill(a, addr, nd);
	return ok ? 1 : -1;
}

static int afx_recv(struct optinc_comm *c, struct optinc_xport *xp,
		    struct optinc_pkt *p, unsigned int n, int timeout_ms)
{
	struct afx_xport *a = afx_of(xp);
	struct pollfd pfd = { .fd = xsk_socket__fd(a->xsk), .events = POLLIN };
	unsigned int got = 0;
	int r;

	if (!xsk_cons_nb_avail(&a->rx, 1)) {
		r = poll(&pfd, 1, timeout_ms);
		if (r < 0 && errno != EINTR)
			return optinc_seterr(c, OPTINC_ERR_SYSTEM,
					     "afxdp: poll on %s: %s", a->ifname,
					     strerror(errno));
		if (r <= 0)
			return 0;
	}
	while (got < n && (r = afx_rx_one(a, &p[got])) != 0)
		got += r > 0;
	return got;
}

/* Our entry only: a later process of the same job may have replaced it. */
static void afx_unregister(struct afx_xport *a)
{
	struct optinc_bpf_job v;

	if (a->registered && !bpf_map_lookup_elem(a->maps.jobs, &a->job, &v) &&
	    v.port == ntohs(a->me.port))
		bpf_map_delete_elem(a->maps.jobs, &a->job);
	a->registered = 0;
}

static void afx_close(struct optinc_xport *xp)
{
	struct afx_xport *a = afx_of(xp);

	afx_unregister(a);
	if (a->xsk)
		xsk_socket__delete(a->xsk);	/* leaves the XSKMAP too */
	if (a->umem)
		xsk_umem__delete(a->umem);
	if (a->area)
		munmap(a->area, (size_t)AFX_FRAMES * AFX_CHUNK);
	optinc_bpf_maps_put(&a->maps);
	if (a->udp_fd >= 0)
		close(a->udp_fd);
	free(a);
}

static int afx_open(struct optinc_comm *c, struct optinc_xport **xp)
{
	struct afx_xport *a;
	__be32 hop;
	int err;

	a = calloc(1, sizeof(*a));
	if (!a)
		return optinc_seterr(c, OPTINC_ERR_NOMEM, "afxdp: no memory");
	a->xp.ops = &optinc_afxdp_ops;
	a->udp_fd = -1;
	a->maps.cfg = a->maps.jobs = a->maps.xsks = a->maps.ctrs = -1;
	a->queue = c->cfg.xdp_queue;	/* OPTINC_XDP_QUEUE (env.c) */
	err = afx_port(c, a) ?: afx_route(c, a, &hop) ?:
	      afx_local_mac(c, a) ?: afx_maps(c, a) ?: afx_resolve(c, a, hop) ?:
	      afx_umem(c, a) ?: afx_socket(c, a) ?: afx_register(c, a);
	if (err) {
		afx_close(&a->xp);
		return err;
	}
	*xp = &a->xp;
	return 0;
}

const struct optinc_xport_ops optinc_afxdp_ops = {
	.name	= "afxdp",
	.open	= afx_open,
	.close	= afx_close,
	.send	= afx_send,
	.recv	= afx_recv,
};
