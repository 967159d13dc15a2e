// SPDX-License-Identifier: GPL-2.0
/* Unit tests: parsing and building OptINC frames, good and malformed. */
#include <arpa/inet.h>
#include <string.h>
#include <optinc/core.h>
#include "kselftest_harness.h"

static const struct optinc_endpoint sw_ep = {
	.mac = { 0x02, 0, 0, 0, 0, 0xfe }, .port = 0,
};

/* A valid DATA frame of @count 8-bit AVG elements, built with the core. */
static __u32 make_data(__u8 *buf, __u16 count, __u16 block)
{
	struct optinc_endpoint src = { .mac = { 0x02, 0, 0, 0, 0, 1 } };
	struct optinc_endpoint dst = sw_ep;
	struct optinc_msg m = {
		.type = OPTINC_T_DATA, .op = OPTINC_OP_AVG, .bits = 8,
		.job = 7, .rank = 1, .token = 0xabcd, .seq = 5, .slot = 5,
		.count = count, .block = block,
		.nscale = (__u8)((count + block - 1) / block),
	};
	__u32 pay = optinc_msg_payload_len(8, count, m.nscale), i;
	__u8 *p;

	src.ip = htonl(0x0a4d0001);
	src.port = htons(40000);
	dst.ip = htonl(0x0a4d00fe);
	dst.port = htons(OPTINC_UDP_PORT);
	optinc_build_l2l4(buf, &src, &dst, OPTINC_HDR_LEN + pay);
	optinc_hdr_fill((struct optinc_hdr *)(buf + OPTINC_L2L4_LEN), &m);
	p = buf + OPTINC_FRAME_OVERHEAD;
	memset(p, 0, pay);
	for (i = 0; i < m.nscale; i++)
		p[i] = (__u8)(-3 + (int)i);
	for (i = 0; i < count; i++)
		p[OPTINC_SCALES_LEN(m.nscale) + i] = (__u8)i;
	return OPTINC_FRAME_OVERHEAD + pay;
}

TEST(header_is_32_bytes)
{
	ASSERT_EQ(OPTINC_HDR_LEN, sizeof(struct optinc_hdr));
	ASSERT_EQ(12, __builtin_offsetof(struct optinc_hdr, seq));
	ASSERT_EQ(28, __builtin_offsetof(struct optinc_hdr, size));
}

TEST(parse_good_frame)
{
	__u8 buf[2048];
	__u32 len = make_data(buf, 600, 256);
	struct optinc_l2l4 l;
	struct optinc_msg m;

	ASSERT_EQ(1, optinc_parse_l2l4(buf, len, OPTINC_UDP_PORT, &l));
	ASSERT_EQ(OPTINC_FRAME_OVERHEAD - OPTINC_HDR_LEN, l.l4_off);
	ASSERT_EQ(len - OPTINC_L2L4_LEN, l.l4_len);
	ASSERT_EQ(htons(40000), l.src.port);
	ASSERT_EQ(OPTINC_DROP_NONE,
		  optinc_msg_parse(buf + l.l4_off, l.l4_len, &m));
	EXPECT_EQ(OPTINC_T_DATA, m.type);
	EXPECT_EQ(7, m.job);
	EXPECT_EQ(1, m.rank);
	EXPECT_EQ(0xabcd, m.token);
	EXPECT_EQ(5, m.seq);
	EXPECT_EQ(600, m.count);
	EXPECT_EQ(3, m.nscale);
	EXPECT_EQ(-3, m.scales[0]);
	EXPECT_EQ(-1, m.scales[2]);
	EXPECT_EQ(599 & 0xff, m.elems[599]);
	/* the IPv4 header checksum verifies to zero */
	EXPECT_EQ(0, optinc_ip_csum(buf + 14, 20));
}

TEST(other_traffic_is_not_ours)
{
	__u8 buf[2048];
	__u32 len = make_data(buf, 16, 256);
	struct optinc_l2l4 l;

	ASSERT_EQ(0, optinc_parse_l2l4(buf, len, OPTINC_UDP_PORT + 1, &l));
	buf[12] = 0x08; buf[13] = 0x06;	/* ARP */
	ASSERT_EQ(0, optinc_parse_l2l4(buf, len, OPTINC_UDP_PORT, &l));
	len = make_data(buf, 16, 256);
	buf[14 + 9] = 6;	/* TCP */
	ASSERT_EQ(0, optinc_parse_l2l4(buf, len, OPTINC_UDP_PORT, &l));
	len = make_data(buf, 16, 256);
	buf[14 + 6] |= 0x20;	/* a fragment */
	ASSERT_EQ(0, optinc_parse_l2l4(buf, len, OPTINC_UDP_PORT, &l));
	ASSERT_EQ(0, optinc_parse_l2l4(buf, 13, OPTINC_UDP_PORT, &l));
}

TEST(vlan_tagged_frame)
{
	__u8 buf[2048], tagged[2048];
	__u32 len = make_data(buf, 16, 256);
	struct optinc_l2l4 l;

	memcpy(tagged, buf, 12);
	tagged[12] = 0x81; tagged[13] = 0x00;
	tagged[14] = 0x20; tagged[15] = 0x05;	/* PCP 1, VID 5 */
	memcpy(tagged + 16, buf + 12, len - 12);
	ASSERT_EQ(1, optinc_parse_l2l4(tagged, len + 4, OPTINC_UDP_PORT, &l));
	EXPECT_EQ(0x2005, l.vlan_tci);
	EXPECT_EQ(OPTINC_FRAME_OVERHEAD - OPTINC_HDR_LEN + 4, l.l4_off);
}

TEST(truncated_ip_or_udp_is_bad)
{
	__u8 buf[2048];
	__u32 len = make_data(buf, 100, 256);
	struct optinc_l2l4 l;

	/* cut the frame below the lengths its IP and UDP headers claim */
	ASSERT_EQ(-EBADMSG, optinc_parse_l2l4(buf, len - 1, OPTINC_UDP_PORT, &l));
	len = make_data(buf, 100, 256);
	buf[14 + 20 + 4] = 0; buf[14 + 20 + 5] = 4;	/* UDP length 4 < 8 */
	ASSERT_EQ(-EBADMSG, optinc_parse_l2l4(buf, len, OPTINC_UDP_PORT, &l));
	len = make_data(buf, 100, 256);
	buf[14] = 0x44;	/* IHL 4 */
	ASSERT_EQ(0, optinc_parse_l2l4(buf, len, OPTINC_UDP_PORT, &l));
}

TEST(malformed_headers_are_named)
{
	__u8 buf[2048], *h = buf + OPTINC_L2L4_LEN;
	__u32 len = make_data(buf, 100, 32), l4 = len - OPTINC_L2L4_LEN;
	struct optinc_msg m;

	EXPECT_EQ(OPTINC_DROP_NONE, optinc_msg_parse(h, l4, &m));
	EXPECT_EQ(OPTINC_DROP_SHORT, optinc_msg_parse(h, 31, &m));
	EXPECT_EQ(OPTINC_DROP_SHORT, optinc_msg_parse(h, l4 - 1, &m));
	h[0] ^= 1;
	EXPECT_EQ(OPTINC_DROP_MAGIC, optinc_msg_parse(h, l4, &m));
	h[0] ^= 1;
	h[2] = 2;
	EXPECT_EQ(OPTINC_DROP_VERSION, optinc_msg_parse(h, l4, &m));
	h[2] = OPTINC_VERSION;
	h[3] = 0;
	EXPECT_EQ(OPTINC_DROP_TYPE, optinc_msg_parse(h, l4, &m));
	h[3] = 99;
	EXPECT_EQ(OPTINC_DROP_TYPE, optinc_msg_parse(h, l4, &m));
	h[3] = OPTINC_T_DATA;
	h[22] = 12;	/* bits */
	EXPECT_EQ(OPTINC_DROP_SHAPE, optinc_msg_parse(h, l4, &m));
	h[22] = 32;	/* AVG with 32 bits */
	EXPECT_EQ(OPTINC_DROP_SHAPE, optinc_msg_parse(h, l4, &m));
	h[22] = 8;
	h[23] = 3;	/* nscale != ceil(100 / 32) = 4 */
	EXPECT_EQ(OPTINC_DROP_SHAPE, optinc_msg_parse(h, l4, &m));
	h[23] = 4;
	h[19] = 77;	/* op */
	EXPECT_EQ(OPTINC_DROP_SHAPE, optinc_msg_parse(h, l4, &m));
	h[19] = OPTINC_OP_AVG;
	h[20] = 0; h[21] = 0;	/* count 0 */
	EXPECT_EQ(OPTINC_DROP_SHAPE, optinc_msg_parse(h, l4, &m));
	h[20] = 0xff; h[21] = 0xff;	/* count beyond the payload */
	EXPECT_EQ(OPTINC_DROP_SHAPE, optinc_msg_parse(h, l4, &m));
	h[20] = 0; h[21] = 100;
	h[24] = 0; h[25] = 0;	/* block 0 */
	EXPECT_EQ(OPTINC_DROP_SHAPE, optinc_msg_parse(h, l4, &m));
	h[25] = 32;
	h[18] = 0x80;	/* unknown flag */
	EXPECT_EQ(OPTINC_DROP_SHAPE, optinc_msg_parse(h, l4, &m));
	h[18] = 0;
	EXPECT_EQ(OPTINC_DROP_NONE, optinc_msg_parse(h, l4, &m));
}

TEST(control_frames_have_no_payload)
{
	__u8 buf[128];
	struct optinc_msg req = { .type = OPTINC_T_JOIN, .job = 3, .rank = 2,
				  .seq = 0x12345678 }, ack, got;
	__u32 len;

	optinc_nack(&req, OPTINC_DROP_NO_JOB, &ack);
	len = optinc_build_ctrl(buf, sizeof(buf), &ack, &sw_ep, &sw_ep);
	ASSERT_EQ(OPTINC_FRAME_OVERHEAD, len);
	ASSERT_EQ(OPTINC_DROP_NONE,
		  optinc_msg_parse(buf + OPTINC_L2L4_LEN, OPTINC_HDR_LEN, &got));
	EXPECT_EQ(OPTINC_T_NACK, got.type);
	EXPECT_EQ(OPTINC_NACK_NO_JOB, got.aux);
	EXPECT_EQ(0x12345678, got.seq);
	EXPECT_EQ(0, optinc_build_ctrl(buf, OPTINC_FRAME_OVERHEAD - 1, &ack,
				       &sw_ep, &sw_ep));
}

TEST(every_truncation_is_refused)
{
	__u8 buf[2048];
	__u32 len = make_data(buf, 300, 64), l4 = len - OPTINC_L2L4_LEN, cut;
	struct optinc_msg m;

	for (cut = 0; cut < l4; cut++)
		ASSERT_NE(OPTINC_DROP_NONE,
			  optinc_msg_parse(buf + OPTINC_L2L4_LEN, cut, &m));
}

TEST_HARNESS_MAIN
