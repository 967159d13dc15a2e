// SPDX-License-Identifier: GPL-2.0
/*
 * Port-security tests: send forged frames from a server's interface with a
 * raw packet socket (any source MAC, IP and UDP port), spread evenly over a
 * time. Kinds: "magic" (UDP to the switch, no OptINC magic: the hijack of
 * issue 16), "data" and "join" (OptINC frames of a job, rank and token),
 * "arp" (an ARP reply whose sender is the given source IP). Meanwhile, and
 * for -W seconds after, it counts the OptINC frames from the switch to the
 * forged source IP that arrive on this interface: results that leaked.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <optinc/core.h>

struct inj_cfg {
	const char *ifname, *kind;
	struct optinc_endpoint src, dst;
	unsigned int job, rank, token;
	unsigned long count;
	double secs, watch;
};

static double inj_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A socket that sees every frame arriving on @ifindex, or -1. */
static int inj_watch_open(int ifindex)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_IP),
				   .sll_ifindex = ifindex };
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_IP));

	if (fd >= 0 && bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		fprintf(stderr, "ps_inject: watch socket: %s\n", strerror(errno));
	return fd;
}

/* Frames from the switch's OptINC port to the forged source IP, so far. */
static unsigned long inj_watch(int fd, const struct inj_cfg *c)
{
	struct sockaddr_ll from;
	socklen_t flen = sizeof(from);
	unsigned long n = 0;
	__u8 f[128];
	ssize_t len;

	while ((len = recvfrom(fd, f, sizeof(f), MSG_TRUNC, (struct sockaddr *)&from,
			       &flen)) >= OPTINC_L2L4_LEN) {
		flen = sizeof(from);
		if (from.sll_pkttype == PACKET_OUTGOING || f[23] != 17)
			continue;
		if (!memcmp(f + 26, &c->dst.ip, 4) && !memcmp(f + 30, &c->src.ip, 4) &&
		    !memcmp(f + 34, &c->dst.port, 2))
			n++;
	}
	return n;
}

static int inj_mac(const char *s, __u8 *mac)
{
	unsigned int b[6], i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5]) != 6)
		return -EINVAL;
	for (i = 0; i < 6; i++)
		mac[i] = (__u8)b[i];
	return 0;
}

/* An OptINC DATA (one AVG element) or JOIN frame; returns its length. */
static size_t inj_optinc(const struct inj_cfg *c, __u8 *buf, unsigned long i)
{
	struct optinc_msg m = { .job = (__u16)c->job, .rank = (__u16)c->rank,
				.token = c->token };
	__u32 l4 = OPTINC_HDR_LEN;

	if (!strcmp(c->kind, "join")) {
		m.type = OPTINC_T_JOIN;
		m.seq = 0x5ca1ab1e;
	} else {
		m.type = OPTINC_T_DATA;
		m.op = OPTINC_OP_AVG;
		m.bits = 8;
		m.count = 1;
		m.nscale = 1;
		m.block = 256;
		/* seqs far ahead of the victim's: slot = seq % window (1) */
		m.seq = 0x40000000u + (__u32)i;
		m.slot = 0;
		l4 += 4 + 1;
	}
	optinc_build_l2l4(buf, &c->src, &c->dst, l4);
	optinc_hdr_fill((struct optinc_hdr *)(buf + OPTINC_L2L4_LEN), &m);
	memset(buf + OPTINC_FRAME_OVERHEAD, 0, l4 - OPTINC_HDR_LEN);
	return OPTINC_L2L4_LEN + l4;
}

static size_t inj_arp(const struct inj_cfg *c, __u8 *buf)
{
	static const __u8 hdr[8] = { 0, 1, 8, 0, 6, 4, 0, 2 };	/* reply */
	__u8 *a = buf + 14;

	memcpy(buf, c->dst.mac, 6);
	memcpy(buf + 6, c->src.mac, 6);
	buf[12] = 0x08;
	buf[13] = 0x06;
	memcpy(a, hdr, 8);
	memcpy(a + 8, c->src.mac, 6);
	memcpy(a + 14, &c->src.ip, 4);
	memcpy(a + 18, c->dst.mac, 6);
	memcpy(a + 24, &c->dst.ip, 4);
	memset(a + 28, 0, 60 - 14 - 28);
	return 60;
}

static size_t inj_build(const struct inj_cfg *c, __u8 *buf, unsigned long i)
{
	__u8 junk[32];

	if (!strcmp(c->kind, "arp"))
		return inj_arp(c, buf);
	if (strcmp(c->kind, "magic"))
		return inj_optinc(c, buf, i);
	memset(junk, 0xa5, sizeof(junk));
	optinc_build_l2l4(buf, &c->src, &c->dst, sizeof(junk));
	memcpy(buf + OPTINC_L2L4_LEN, junk, sizeof(junk));
	return OPTINC_L2L4_LEN + sizeof(junk);
}

static int inj_send(const struct inj_cfg *c)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_halen = 6 };
	double gap = c->count ? c->secs / c->count : 0, start, took, end;
	unsigned long i, sent = 0, leaked = 0;
	struct timespec ts;
	__u8 buf[256];
	size_t len;
	int fd, wfd;

	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		fprintf(stderr, "ps_inject: AF_PACKET socket: %s\n", strerror(errno));
		return -errno;
	}
	sll.sll_ifindex = (int)if_nametoindex(c->ifname);
	memcpy(sll.sll_addr, c->dst.mac, 6);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "ps_inject: no interface %s\n", c->ifname);
		close(fd);
		return -ENODEV;
	}
	wfd = inj_watch_open(sll.sll_ifindex);
	if (wfd < 0) {
		close(fd);
		return -EIO;
	}
	ts.tv_sec = (time_t)gap;
	ts.tv_nsec = (long)((gap - (double)ts.tv_sec) * 1e9);
	start = inj_now();
	for (i = 0; i < c->count; i++) {
		len = inj_build(c, buf, i);
		if (sendto(fd, buf, len, 0, (struct sockaddr *)&sll,
			   sizeof(sll)) == (ssize_t)len)
			sent++;
		else
			fprintf(stderr, "ps_inject: frame %lu: %s\n", i, strerror(errno));
		if (gap > 0)
			nanosleep(&ts, NULL);
		leaked += inj_watch(wfd, c);
	}
	took = inj_now() - start;
	end = inj_now() + c->watch;
	do {
		struct pollfd p = { .fd = wfd, .events = POLLIN };

		poll(&p, 1, 10);
		leaked += inj_watch(wfd, c);
	} while (inj_now() < end);
	close(fd);
	close(wfd);
	printf("sent %lu %s frames in %.3f s\n", sent, c->kind, took);
	printf("leaked %lu\n", leaked);
	return sent == c->count ? 0 : -EIO;
}

static void inj_usage(void)
{
	fprintf(stderr, "usage: ps_inject -i IFACE -S SRC_MAC -D DST_MAC "
		"-s SRC_IP -p SRC_PORT -d DST_IP [-P DST_PORT] "
		"-k magic|data|join|arp [-j JOB -r RANK -T TOKEN] "
		"[-n COUNT] [-t SECS] [-W WATCH_SECS]\n");
}

int main(int argc, char **argv)
{
	struct inj_cfg c = { .kind = "magic", .count = 1 };
	int opt, bad = 0;

	c.dst.port = htons(OPTINC_UDP_PORT);
	while ((opt = getopt(argc, argv, "i:S:D:s:p:d:P:k:j:r:T:n:t:W:")) != -1) {
		switch (opt) {
		case 'i': c.ifname = optarg; break;
		case 'S': bad |= inj_mac(optarg, c.src.mac); break;
		case 'D': bad |= inj_mac(optarg, c.dst.mac); break;
		case 's': bad |= inet_pton(AF_INET, optarg, &c.src.ip) != 1; break;
		case 'p': c.src.port = htons((__u16)atoi(optarg)); break;
		case 'd': bad |= inet_pton(AF_INET, optarg, &c.dst.ip) != 1; break;
		case 'P': c.dst.port = htons((__u16)atoi(optarg)); break;
		case 'k': c.kind = optarg; break;
		case 'j': c.job = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'r': c.rank = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'T': c.token = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'n': c.count = strtoul(optarg, NULL, 0); break;
		case 't': c.secs = atof(optarg); break;
		case 'W': c.watch = atof(optarg); break;
		default: bad = 1;
		}
	}
	if (bad || !c.ifname || (strcmp(c.kind, "magic") && strcmp(c.kind, "data") &&
				 strcmp(c.kind, "join") && strcmp(c.kind, "arp"))) {
		inj_usage();
		return 2;
	}
	return inj_send(&c) ? 1 : 0;
}
