// SPDX-License-Identifier: GPL-2.0
/*
 * oi_frames: inject OptINC frames (well-formed or broken on purpose) from a
 * raw socket, send them through the kernel's UDP stack, or capture them and
 * check their DSCP and IPv4 checksum. Frames are built with the core.
 *
 *   oi_frames inject IFACE KIND COUNT [opts]   KIND: result data other
 *                         short-ip short-udp magic version type
 *   oi_frames udp KIND COUNT [opts]            KIND: data join result
 *   oi_frames capture IFACE SECONDS COUNT [opts]
 *     prints "frames N dscp_ok N csum_ok N" for frames to --port, after
 *     COUNT frames, SECONDS, or --idle SECS without one
 * opts: --src IP --dst IP --dst-mac MAC --sport P --dport P --job J
 *       --elems N (payload elements, default 16) --vlan TCI (insert a tag)
 *       --port P (capture) --dscp D (capture: expected)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include <optinc/core.h>

#define FR_MAX		9216
#define FR_RCVBUF	(64 << 20)

struct fr_opts {
	struct optinc_endpoint src, dst;
	__u16 job;
	__u16 port;
	int dscp;
	int elems;
	int vlan;	/* TCI of an 802.1Q tag to insert, -1: none */
	double idle;	/* capture: stop this long after the last frame */
};

static int fr_parse_mac(const char *s, __u8 *mac)
{
	unsigned int b[6], i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5]) != 6)
		return -EINVAL;
	for (i = 0; i < 6; i++)
		mac[i] = b[i];
	return 0;
}

static int fr_opt(struct fr_opts *o, const char *k, const char *v)
{
	if (!strcmp(k, "--src"))
		return inet_pton(AF_INET, v, &o->src.ip) == 1 ? 0 : -EINVAL;
	if (!strcmp(k, "--dst"))
		return inet_pton(AF_INET, v, &o->dst.ip) == 1 ? 0 : -EINVAL;
	if (!strcmp(k, "--dst-mac"))
		return fr_parse_mac(v, o->dst.mac);
	if (!strcmp(k, "--sport"))
		o->src.port = htons(atoi(v));
	else if (!strcmp(k, "--dport"))
		o->dst.port = htons(atoi(v));
	else if (!strcmp(k, "--job"))
		o->job = atoi(v);
	else if (!strcmp(k, "--port"))
		o->port = atoi(v);
	else if (!strcmp(k, "--dscp"))
		o->dscp = atoi(v);
	else if (!strcmp(k, "--elems"))
		o->elems = atoi(v);
	else if (!strcmp(k, "--vlan"))
		o->vlan = atoi(v);
	else if (!strcmp(k, "--idle"))
		o->idle = atof(v);
	else
		return -EINVAL;
	return 0;
}

static int fr_opts(struct fr_opts *o, int argc, char **argv)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->src.port = o->dst.port = htons(OPTINC_UDP_PORT);
	o->job = 1;
	o->port = OPTINC_UDP_PORT;
	o->dscp = -1;
	o->elems = 16;
	o->vlan = -1;
	for (i = 0; i + 1 < argc; i += 2)
		if (fr_opt(o, argv[i], argv[i + 1])) {
			fprintf(stderr, "oi_frames: bad option %s %s\n", argv[i],
				argv[i + 1]);
			return -EINVAL;
		}
	if (o->elems < 1 || o->elems > FR_MAX - OPTINC_FRAME_OVERHEAD)
		return -EINVAL;
	return i == argc ? 0 : -EINVAL;
}

/* A UDP payload: OptINC header of @type and @elems int8 MAX elements. */
static __u32 fr_msg(__u8 *buf, __u8 type, __u16 job, __u32 seq, int elems)
{
	struct optinc_msg m;

	memset(&m, 0, sizeof(m));
	m.type = type;
	m.job = job;
	m.rank = type == OPTINC_T_RESULT ? OPTINC_RANK_SWITCH : 0;
	m.seq = seq;
	m.op = OPTINC_OP_MAX;
	m.bits = 8;
	m.count = elems;
	optinc_hdr_fill((struct optinc_hdr *)buf, &m);
	memset(buf + OPTINC_HDR_LEN, (int)seq, elems);
	return OPTINC_HDR_LEN + elems;
}

/* Build frame @seq of @kind; Return: its length, 0 for an unknown kind. */
static __u32 fr_build(__u8 *f, const char *kind, const struct fr_opts *o,
		      __u32 seq)
{
	struct optinc_endpoint src = o->src, dst = o->dst;
	__u8 *pl = f + OPTINC_L2L4_LEN;
	__u32 l4 = fr_msg(pl, !strcmp(kind, "data") ? OPTINC_T_DATA :
			  OPTINC_T_RESULT, o->job, seq, o->elems);

	if (!strcmp(kind, "other"))
		src.port = dst.port = htons(9);
	else if (!strcmp(kind, "magic"))
		pl[0] ^= 0xff;
	else if (!strcmp(kind, "version"))
		pl[2] = OPTINC_VERSION + 1;
	else if (!strcmp(kind, "type"))
		pl[3] = OPTINC_T_MAX + 1;
	else if (!strcmp(kind, "short-udp"))
		l4 = OPTINC_HDR_LEN / 2;
	else if (strcmp(kind, "result") && strcmp(kind, "data") &&
		 strcmp(kind, "short-ip"))
		return 0;
	optinc_build_l2l4(f, &src, &dst, l4);
	l4 += OPTINC_L2L4_LEN;
	if (o->vlan >= 0) {
		memmove(f + 16, f + 12, l4 - 12);
		f[12] = 0x81;
		f[13] = 0x00;
		f[14] = o->vlan >> 8;
		f[15] = o->vlan;
		l4 += 4;
	}
	if (!strcmp(kind, "short-ip"))	/* the last 8 bytes went missing */
		return l4 - 8;
	return l4;
}

static int fr_raw_socket(const char *ifname, struct sockaddr_ll *sll)
{
	int fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	int sz = FR_RCVBUF;

	if (fd < 0) {
		perror("oi_frames: AF_PACKET socket");
		return -1;
	}
	/* a capture must not lose frames of a burst: as root, take room */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz));
	memset(sll, 0, sizeof(*sll));
	sll->sll_family = AF_PACKET;
	sll->sll_protocol = htons(ETH_P_ALL);
	sll->sll_ifindex = if_nametoindex(ifname);
	if (!sll->sll_ifindex || bind(fd, (struct sockaddr *)sll, sizeof(*sll))) {
		fprintf(stderr, "oi_frames: bind to %s: %s\n", ifname,
			strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int fr_inject(int argc, char **argv)
{
	struct sockaddr_ll sll;
	struct fr_opts o;
	__u8 f[FR_MAX];
	int fd, i, n;
	__u32 len;

	if (argc < 3 || fr_opts(&o, argc - 3, argv + 3))
		return 2;
	fd = fr_raw_socket(argv[0], &sll);
	if (fd < 0)
		return 1;
	n = atoi(argv[2]);
	for (i = 0; i < n; i++) {
		len = fr_build(f, argv[1], &o, i);
		if (!len) {
			fprintf(stderr, "oi_frames: unknown kind %s\n", argv[1]);
			return 2;
		}
		if (send(fd, f, len, 0) != (ssize_t)len) {
			perror("oi_frames: send");
			return 1;
		}
	}
	close(fd);
	return 0;
}

/* Through the kernel: a UDP socket from --sport to --dst:--dport. */
static int fr_udp(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct fr_opts o;
	__u8 buf[FR_MAX];
	__u8 type;
	int fd, i, n;
	__u32 len;

	if (argc < 2 || fr_opts(&o, argc - 2, argv + 2))
		return 2;
	type = !strcmp(argv[0], "data") ? OPTINC_T_DATA :
	       !strcmp(argv[0], "join") ? OPTINC_T_JOIN : OPTINC_T_RESULT;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	sa.sin_addr.s_addr = o.dst.ip;
	sa.sin_port = o.dst.port;
	n = atoi(argv[1]);
	for (i = 0; fd >= 0 && i < n; i++) {
		len = fr_msg(buf, type, o.job, i, o.elems);
		if (sendto(fd, buf, len, 0, (struct sockaddr *)&sa,
			   sizeof(sa)) != (ssize_t)len) {
			perror("oi_frames: sendto");
			return 1;
		}
	}
	if (fd < 0)
		perror("oi_frames: UDP socket");
	return fd < 0;
}

static double fr_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Count a captured frame to o->port: Return 1 when it is one. */
static int fr_check(const __u8 *f, __u32 len, const struct fr_opts *o,
		    int *dscp_ok, int *csum_ok)
{
	struct optinc_l2l4 l;
	const __u8 *ip;

	if (optinc_parse_l2l4(f, len, o->port, &l) != 1)
		return 0;
	ip = f + (l.vlan_tci ? 18 : 14);
	*dscp_ok += o->dscp < 0 || (ip[1] >> 2) == o->dscp;
	*csum_ok += optinc_ip_csum(ip, (ip[0] & 0xf) * 4) == 0;
	return 1;
}

static int fr_capture(int argc, char **argv)
{
	struct pollfd pfd = { .events = POLLIN };
	int frames = 0, dscp_ok = 0, csum_ok = 0, want;
	struct sockaddr_ll sll;
	struct fr_opts o;
	__u8 f[FR_MAX];
	double end, now, last = 0;
	ssize_t r;

	if (argc < 3 || fr_opts(&o, argc - 3, argv + 3))
		return 2;
	pfd.fd = fr_raw_socket(argv[0], &sll);
	if (pfd.fd < 0)
		return 1;
	end = fr_now() + atof(argv[1]);
	want = atoi(argv[2]);
	printf("ready\n");
	fflush(stdout);
	while (frames < want && (now = fr_now()) < end &&
	       !(o.idle > 0 && frames && now - last > o.idle)) {
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		r = recv(pfd.fd, f, sizeof(f), 0);
		if (r > 0 && fr_check(f, r, &o, &dscp_ok, &csum_ok)) {
			frames++;
			last = fr_now();
		}
	}
	printf("frames %d dscp_ok %d csum_ok %d\n", frames, dscp_ok, csum_ok);
	close(pfd.fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "inject"))
		return fr_inject(argc - 2, argv + 2);
	if (argc > 1 && !strcmp(argv[1], "udp"))
		return fr_udp(argc - 2, argv + 2);
	if (argc > 1 && !strcmp(argv[1], "capture"))
		return fr_capture(argc - 2, argv + 2);
	fprintf(stderr, "usage: oi_frames inject|udp|capture ... (see the source)\n");
	return 2;
}
