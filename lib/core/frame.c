// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/* Parsing and building OptINC frames: Ethernet/IPv4/UDP and the header. */
#include <optinc/core.h>
#include "compat.h"

#define ETH_P_IPV4	0x0800
#define ETH_P_VLAN	0x8100
#define IP_PROTO_UDP	17
#define IP_MF_OFFSET	0x3fff	/* more-fragments flag and offset */

const char *const optinc_drop_names[OPTINC_DROP_NR] = {
	[OPTINC_DROP_NONE]	 = "none",
	[OPTINC_DROP_SHORT]	 = "short",
	[OPTINC_DROP_MAGIC]	 = "bad_magic",
	[OPTINC_DROP_VERSION]	 = "bad_version",
	[OPTINC_DROP_TYPE]	 = "bad_type",
	[OPTINC_DROP_SHAPE]	 = "bad_shape",
	[OPTINC_DROP_NO_JOB]	 = "unknown_job",
	[OPTINC_DROP_TOKEN]	 = "bad_token",
	[OPTINC_DROP_NOT_MEMBER] = "not_member",
	[OPTINC_DROP_DUPLICATE]	 = "duplicate",
	[OPTINC_DROP_STALE]	 = "stale",
	[OPTINC_DROP_MISMATCH]	 = "mismatch",
	[OPTINC_DROP_TOO_BIG]	 = "too_big",
};

/**
 * optinc_parse_l2l4() - find the UDP payload of a frame to an OptINC port
 * @frame: the Ethernet frame
 * @len:   its length in bytes
 * @port:  the OptINC UDP port (host order)
 * @out:   addresses and payload position, valid when 1 is returned
 *
 * Return: 1 for an IPv4/UDP frame to @port, 0 for any other frame (a switch
 * forwards it untouched), -EBADMSG for a frame to @port whose IP or UDP
 * lengths do not fit in @len (count it as short and drop it).
 */
int optinc_parse_l2l4(const void *frame, __u32 len, __u16 port,
		      struct optinc_l2l4 *out)
{
	const __u8 *p = frame;
	__u32 l3 = 14, ihl, tot, ulen;
	__u16 proto;

	if (len < 14)
		return 0;
	proto = oi_get16(p + 12);
	out->vlan_tci = 0;
	if (proto == ETH_P_VLAN) {
		if (len < 18)
			return 0;
		out->vlan_tci = oi_get16(p + 14);
		proto = oi_get16(p + 16);
		l3 = 18;
	}
	if (proto != ETH_P_IPV4 || len < l3 + 20 || (p[l3] >> 4) != 4)
		return 0;
	ihl = (p[l3] & 0xf) * 4u;
	if (ihl < 20 || p[l3 + 9] != IP_PROTO_UDP ||
	    (oi_get16(p + l3 + 6) & IP_MF_OFFSET) || len < l3 + ihl + 8)
		return 0;
	if (oi_get16(p + l3 + ihl + 2) != port)
		return 0;
	tot = oi_get16(p + l3 + 2);
	ulen = oi_get16(p + l3 + ihl + 4);
	if (tot < ihl + 8 || l3 + tot > len || ulen < 8 || ulen > tot - ihl)
		return -EBADMSG;

	memcpy(out->dst.mac, p, 6);
	memcpy(out->src.mac, p + 6, 6);
	memcpy(&out->src.ip, p + l3 + 12, 4);
	memcpy(&out->dst.ip, p + l3 + 16, 4);
	memcpy(&out->src.port, p + l3 + ihl, 2);
	memcpy(&out->dst.port, p + l3 + ihl + 2, 2);
	out->l4_off = l3 + ihl + 8;
	out->l4_len = ulen - 8;
	return 1;
}

/* Bytes of payload after the header: scales (padded) and elements. */
__u32 optinc_msg_payload_len(__u8 bits, __u16 count, __u8 nscale)
{
	return OPTINC_SCALES_LEN(nscale) + (__u32)count * (bits / 8u);
}

static int frame_bits_ok(__u8 type, __u8 op, __u8 bits)
{
	switch (op) {
	case OPTINC_OP_AVG:
		return bits == 8 || bits == 16;
	case OPTINC_OP_SUM:
		return bits == 8 || bits == 16 ||
		       (type == OPTINC_T_RESULT && bits == 32);
	case OPTINC_OP_ISUM:
		return bits == 32;
	case OPTINC_OP_MAX:
		return bits == 8 || bits == 16 || bits == 32;
	case OPTINC_OP_CAVG:
		return type == OPTINC_T_RESULT ? bits == 8 || bits == 16 :
		       bits == 16 || bits == 32;
	}
	return 0;
}

/* The shape of a DATA or RESULT message: op, bits, count, scales. */
static enum optinc_drop frame_shape(const struct optinc_msg *m, __u32 room)
{
	__u32 want_scales = 0;

	if (!frame_bits_ok(m->type, m->op, m->bits) || m->count == 0 ||
	    (m->flags & ~OPTINC_F_ALL))
		return OPTINC_DROP_SHAPE;
	if (m->op == OPTINC_OP_AVG || m->op == OPTINC_OP_SUM ||
	    m->op == OPTINC_OP_CAVG) {
		if (m->block == 0)
			return OPTINC_DROP_SHAPE;
		want_scales = (m->count + m->block - 1u) / m->block;
	}
	if (m->nscale != want_scales || m->nscale > OPTINC_MAX_SCALES)
		return OPTINC_DROP_SHAPE;
	if (optinc_msg_payload_len(m->bits, m->count, m->nscale) > room)
		return OPTINC_DROP_SHORT;
	return OPTINC_DROP_NONE;
}

/**
 * optinc_msg_parse() - check and decode an OptINC header and its payload
 * @buf: the UDP payload
 * @len: its length
 * @m:   decoded message; its pointers point into @buf
 *
 * Return: OPTINC_DROP_NONE, or why the message must be dropped.
 */
enum optinc_drop optinc_msg_parse(const void *buf, __u32 len,
				  struct optinc_msg *m)
{
	const __u8 *p = buf;

	if (len < OPTINC_HDR_LEN)
		return OPTINC_DROP_SHORT;
	if (oi_get16(p) != OPTINC_MAGIC)
		return OPTINC_DROP_MAGIC;
	if (p[2] != OPTINC_VERSION)
		return OPTINC_DROP_VERSION;
	m->type = p[3];
	if (m->type == 0 || m->type > OPTINC_T_MAX)
		return OPTINC_DROP_TYPE;
	m->job = oi_get16(p + 4);
	m->rank = oi_get16(p + 6);
	m->token = oi_get32(p + 8);
	m->seq = oi_get32(p + 12);
	m->slot = oi_get16(p + 16);
	m->flags = p[18];
	m->op = p[19];
	m->count = oi_get16(p + 20);
	m->bits = p[22];
	m->nscale = p[23];
	m->block = oi_get16(p + 24);
	m->aux = oi_get16(p + 26);
	m->size = oi_get16(p + 28);
	m->held = m->type == OPTINC_T_RESULT ? oi_get32(p + 28) : 0;
	m->tag = m->type == OPTINC_T_DATA ? oi_get16(p + 30) : 0;
	m->scales = (const __s8 *)(p + OPTINC_HDR_LEN);
	m->elems = p + OPTINC_HDR_LEN + OPTINC_SCALES_LEN(m->nscale);
	m->elems_len = 0;
	if (m->type != OPTINC_T_DATA && m->type != OPTINC_T_RESULT)
		return OPTINC_DROP_NONE;
	m->elems_len = (__u32)m->count * (m->bits / 8u);
	return frame_shape(m, len - OPTINC_HDR_LEN);
}

/*
 * Write @m's header fields (not the payload) in network order; a RESULT's
 * size and rsvd carry @m->held instead, a DATA's rsvd @m->tag.
 */
void optinc_hdr_fill(struct optinc_hdr *h, const struct optinc_msg *m)
{
	__u8 *p = (__u8 *)h;

	oi_put16(p, OPTINC_MAGIC);
	p[2] = OPTINC_VERSION;
	p[3] = m->type;
	oi_put16(p + 4, m->job);
	oi_put16(p + 6, m->rank);
	oi_put32(p + 8, m->token);
	oi_put32(p + 12, m->seq);
	oi_put16(p + 16, m->slot);
	p[18] = m->flags;
	p[19] = m->op;
	oi_put16(p + 20, m->count);
	p[22] = m->bits;
	p[23] = m->nscale;
	oi_put16(p + 24, m->block);
	oi_put16(p + 26, m->aux);
	if (m->type == OPTINC_T_RESULT) {
		oi_put32(p + 28, m->held);
	} else {
		oi_put16(p + 28, m->size);
		oi_put16(p + 30, m->type == OPTINC_T_DATA ? m->tag : 0);
	}
}

/* RFC 1071 checksum of an IPv4 header (its checksum field zero or not). */
__u16 optinc_ip_csum(const void *iph, __u32 len)
{
	const __u8 *p = iph;
	__u32 sum = 0, i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (__u32)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (__u32)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/**
 * optinc_build_l2l4() - write Ethernet, IPv4 and UDP headers
 * @frame:  at least OPTINC_L2L4_LEN bytes
 * @src:    sender (the switch)
 * @dst:    receiver
 * @l4_len: UDP payload length that will follow
 *
 * The IPv4 checksum is computed; the UDP checksum is left 0 (allowed for
 * IPv4), so a switch never has to touch the payload twice.
 *
 * Return: OPTINC_L2L4_LEN, the offset of the UDP payload.
 */
__u32 optinc_build_l2l4(void *frame, const struct optinc_endpoint *src,
			const struct optinc_endpoint *dst, __u32 l4_len)
{
	__u8 *p = frame, *ip = p + 14, *udp = ip + 20;

	memcpy(p, dst->mac, 6);
	memcpy(p + 6, src->mac, 6);
	oi_put16(p + 12, ETH_P_IPV4);
	ip[0] = 0x45;
	ip[1] = 0;
	oi_put16(ip + 2, (__u16)(20 + 8 + l4_len));
	oi_put16(ip + 4, 0);
	oi_put16(ip + 6, 0x4000);	/* DF: never fragmented */
	ip[8] = 64;
	ip[9] = IP_PROTO_UDP;
	oi_put16(ip + 10, 0);
	memcpy(ip + 12, &src->ip, 4);
	memcpy(ip + 16, &dst->ip, 4);
	oi_put16(ip + 10, optinc_ip_csum(ip, 20));
	memcpy(udp, &src->port, 2);
	memcpy(udp + 2, &dst->port, 2);
	oi_put16(udp + 4, (__u16)(8 + l4_len));
	oi_put16(udp + 6, 0);
	return OPTINC_L2L4_LEN;
}
