/* SPDX-License-Identifier: GPL-2.0 */
/* Shapes shared by the frame fuzzer and its seed generator. */
#ifndef OPTINC_FUZZ_H
#define OPTINC_FUZZ_H

#include <arpa/inet.h>
#include <string.h>
#include <optinc/core.h>

#define FUZZ_PORT	OPTINC_UDP_PORT
#define FUZZ_SIZE	4	/* members of both jobs */
#define FUZZ_WINDOW	4
#define FUZZ_MAX_ELEMS	64
#define FUZZ_JOB_EXACT	1
#define FUZZ_JOB_ONN	2	/* onn mode, token FUZZ_TOKEN */
#define FUZZ_JOB_UP	3	/* a cascade's first level, token FUZZ_TOKEN */
#define FUZZ_UP_JOB	9	/* ... of this job of the upper switch */
#define FUZZ_UP_NONCE	0x5eed0001u	/* its JOIN's nonce upstream, always */
#define FUZZ_TOKEN	0x5eed1234u
#define FUZZ_PORTS	3
#define FUZZ_ROOM	(OPTINC_FRAME_OVERHEAD + 64 + 4 * FUZZ_MAX_ELEMS)

/* byte 0 of an input */
#define FUZZ_CTL_JOINED	0x01	/* every member joined before the frames */
#define FUZZ_CTL_SHORT	0x02	/* answers built into a short buffer */
#define FUZZ_CTL_PORTS	0x04	/* frames come in on FUZZ_PORTS ports in turn */
#define FUZZ_CTL_BY_SUM	0x08	/* the onn job's table in its by-sum form */
#define FUZZ_CTL_LOOKUP	0x10	/* ... looked up, not by the average */
#define FUZZ_CTL_TABLE	0x80	/* the input is a truth-table file */

/* The switch: 10.77.0.254, port FUZZ_PORT. */
static inline void fuzz_switch_ep(struct optinc_endpoint *ep)
{
	static const __u8 mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0xfe };

	memcpy(ep->mac, mac, 6);
	ep->ip = htonl(0x0a4d00feu);
	ep->port = htons(FUZZ_PORT);
}

/* The upper switch of FUZZ_JOB_UP: 10.77.0.253, port FUZZ_PORT. */
static inline void fuzz_upper_ep(struct optinc_endpoint *ep)
{
	static const __u8 mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0xfd };

	memcpy(ep->mac, mac, 6);
	ep->ip = htonl(0x0a4d00fdu);
	ep->port = htons(FUZZ_PORT);
}

/* Member @r sends from 10.77.0.(r + 1), UDP port 40000 + r. */
static inline void fuzz_member_ep(__u16 r, struct optinc_endpoint *ep)
{
	static const __u8 mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };

	memcpy(ep->mac, mac, 6);
	ep->mac[5] = (__u8)(r + 1);
	ep->ip = htonl(0x0a4d0001u + r);
	ep->port = htons(40000 + r);
}

#endif /* OPTINC_FUZZ_H */
