/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers of the optinc.ko VM test programs: numbers, bytes, files, raw frames. */
#ifndef KMOD_TEST_H
#define KMOD_TEST_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

/* splitmix64's finaliser: deterministic pseudo-random values. */
static inline uint64_t kt_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static inline uint16_t kt_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void kt_put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static inline void kt_put32(uint8_t *p, uint32_t v)
{
	kt_put16(p, v >> 16);
	kt_put16(p + 2, v & 0xffff);
}

static inline int kt_read_file(const char *path, void **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		perror(path);
		if (f)
			fclose(f);
		return -EIO;
	}
	*len = (size_t)n;
	*buf = malloc(*len + 1);
	if (!*buf || fread(*buf, 1, *len, f) != *len) {
		fprintf(stderr, "%s: cannot read\n", path);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	return 0;
}

/* The Ethernet address of device @ifname. */
static inline int kt_ifmac(const char *ifname, uint8_t *mac)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ret = 0;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (fd < 0 || ioctl(fd, SIOCGIFHWADDR, &ifr)) {
		perror(ifname);
		ret = -EIO;
	} else {
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Send an Ethernet frame as it is, out of device @ifname. */
static inline int kt_send_raw(const char *ifname, const void *frame,
			      size_t len)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_ifindex = (int)if_nametoindex(ifname),
		.sll_halen = 6,
	};
	int fd = socket(AF_PACKET, SOCK_RAW, 0), ret = 0;

	if (fd < 0 || !sll.sll_ifindex ||
	    sendto(fd, frame, len, 0, (struct sockaddr *)&sll,
		   sizeof(sll)) != (ssize_t)len) {
		perror("raw frame");
		ret = -EIO;
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

#endif /* KMOD_TEST_H */
