// SPDX-License-Identifier: GPL-2.0
/*
 * Seed corpus of the frame fuzzer, built with the core's own builders:
 * JOINs, complete slots of every op, retransmissions, shadow copies,
 * foreign and malformed frames, a cascade's uplink, and a truth-table file.
 * Usage: gen_seeds DIR
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

struct seed {
	__u8 buf[16384];
	size_t len;
};

static void seed_start(struct seed *s, __u8 ctl)
{
	s->buf[0] = ctl;
	s->len = 1;
}

/* Append one frame from @src: its 16-bit length, then Ethernet/IPv4/UDP/OptINC. */
static void seed_frame_from(struct seed *s, const struct optinc_msg *m,
			    const struct optinc_endpoint *src)
{
	struct optinc_endpoint sw;
	__u32 pay = 0, l4, n, i;
	__u8 *f = s->buf + s->len + 2;

	if (m->type == OPTINC_T_DATA || m->type == OPTINC_T_RESULT)
		pay = optinc_msg_payload_len(m->bits, m->count, m->nscale);
	l4 = OPTINC_HDR_LEN + pay;
	fuzz_switch_ep(&sw);
	n = optinc_build_l2l4(f, src, &sw, l4);
	optinc_hdr_fill((struct optinc_hdr *)(f + n), m);
	for (i = 0; i < pay; i++)
		f[n + OPTINC_HDR_LEN + i] = (__u8)(i * 37 + m->rank * 11 + 3);
	if (m->nscale)
		memset(f + n + OPTINC_HDR_LEN, 2, m->nscale);
	n += l4;
	s->buf[s->len] = (__u8)(n >> 8);
	s->buf[s->len + 1] = (__u8)n;
	s->len += 2 + n;
}

/* A frame from member @from_rank. */
static void seed_frame(struct seed *s, const struct optinc_msg *m,
		       __u16 from_rank)
{
	struct optinc_endpoint src;

	fuzz_member_ep(from_rank, &src);
	seed_frame_from(s, m, &src);
}

static int seed_write(const char *dir, const char *name, const struct seed *s)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(s->buf, 1, s->len, f) != s->len || fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

static struct optinc_msg seed_data(__u16 job, __u32 token, __u8 op, __u8 bits,
				   __u32 seq, __u16 rank)
{
	struct optinc_msg m = {
		.type = OPTINC_T_DATA, .job = job, .rank = rank, .token = token,
		.seq = seq, .slot = seq % FUZZ_WINDOW,
		.flags = (seq / FUZZ_WINDOW) & 1 ? OPTINC_F_SHADOW : 0,
		.op = op, .bits = bits, .count = 16,
	};

	if (op == OPTINC_OP_AVG || op == OPTINC_OP_SUM) {
		m.block = 8;
		m.nscale = 2;
	}
	return m;
}

/* Every member's frame of @seq, then a retransmission from rank 0. */
static void seed_slot(struct seed *s, __u16 job, __u32 token, __u8 op,
		      __u8 bits, __u32 seq)
{
	struct optinc_msg m;
	__u16 r;

	for (r = 0; r < FUZZ_SIZE; r++) {
		m = seed_data(job, token, op, bits, seq, r);
		seed_frame(s, &m, r);
	}
	m = seed_data(job, token, op, bits, seq, 0);
	seed_frame(s, &m, 0);
}

static int seed_ops(const char *dir)
{
	static const __u8 ops[][2] = {
		{ OPTINC_OP_AVG, 8 }, { OPTINC_OP_AVG, 16 },
		{ OPTINC_OP_SUM, 8 }, { OPTINC_OP_SUM, 16 },
		{ OPTINC_OP_ISUM, 32 }, { OPTINC_OP_MAX, 8 },
	};
	struct seed s;
	char name[64];
	unsigned int i;
	int err = 0;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		seed_start(&s, FUZZ_CTL_JOINED);
		seed_slot(&s, FUZZ_JOB_EXACT, 0, ops[i][0], ops[i][1], 0);
		seed_slot(&s, FUZZ_JOB_EXACT, 0, ops[i][0], ops[i][1], 5);
		seed_slot(&s, FUZZ_JOB_EXACT, 0, ops[i][0], ops[i][1], 9);
		snprintf(name, sizeof(name), "exact-op%u-bits%u", ops[i][0],
			 ops[i][1]);
		err |= seed_write(dir, name, &s);
		seed_start(&s, FUZZ_CTL_JOINED | FUZZ_CTL_SHORT);
		seed_slot(&s, FUZZ_JOB_ONN, FUZZ_TOKEN, ops[i][0], ops[i][1], 2);
		snprintf(name, sizeof(name), "onn-op%u-bits%u", ops[i][0],
			 ops[i][1]);
		err |= seed_write(dir, name, &s);
		s.buf[0] |= FUZZ_CTL_BY_SUM;
		snprintf(name, sizeof(name), "onn-by-sum-op%u-bits%u",
			 ops[i][0], ops[i][1]);
		err |= seed_write(dir, name, &s);
		s.buf[0] |= FUZZ_CTL_LOOKUP;
		snprintf(name, sizeof(name), "onn-lookup-op%u-bits%u",
			 ops[i][0], ops[i][1]);
		err |= seed_write(dir, name, &s);
	}
	return err;
}

static int seed_joins(const char *dir)
{
	struct optinc_msg m = { .type = OPTINC_T_JOIN, .job = FUZZ_JOB_EXACT };
	struct seed s;
	__u16 r;

	seed_start(&s, 0);
	for (r = 0; r < FUZZ_SIZE + 1; r++) {
		m.rank = r;
		m.seq = 77 + r;
		seed_frame(&s, &m, r);
	}
	m.job = FUZZ_JOB_ONN;
	m.token = FUZZ_TOKEN;
	for (r = 0; r < FUZZ_SIZE; r++) {
		m.rank = r;
		seed_frame(&s, &m, r);
	}
	m.job = 9;
	seed_frame(&s, &m, 0);
	m = seed_data(FUZZ_JOB_EXACT, 0, OPTINC_OP_ISUM, 32, 0, 1);
	seed_frame(&s, &m, 1);
	if (seed_write(dir, "joins", &s))
		return -1;
	/* the same on rotating ports: bindings, moves and wrong ports */
	s.buf[0] = FUZZ_CTL_PORTS;
	seed_slot(&s, FUZZ_JOB_EXACT, 0, OPTINC_OP_AVG, 8, 0);
	return seed_write(dir, "joins-ports", &s);
}

/*
 * FUZZ_JOB_UP as a cascade's first level: a member's JOIN again (the JOIN
 * goes up), the upper switch's JOIN_ACK with all its members, a slot that
 * goes up (and up again, for the retransmission), its upper result twice,
 * then a NACK of the JOIN upstream.
 */
static int seed_uplink(const char *dir)
{
	struct optinc_msg m = { .type = OPTINC_T_JOIN, .job = FUZZ_JOB_UP,
				.token = FUZZ_TOKEN, .seq = 1000 };
	struct optinc_endpoint upper;
	struct seed s;

	fuzz_upper_ep(&upper);
	seed_start(&s, FUZZ_CTL_JOINED);
	seed_frame(&s, &m, 0);
	m = (struct optinc_msg){ .type = OPTINC_T_JOIN_ACK, .job = FUZZ_UP_JOB,
		.rank = 1, .token = FUZZ_TOKEN, .seq = FUZZ_UP_NONCE,
		.slot = FUZZ_WINDOW, .count = FUZZ_MAX_ELEMS, .size = 2,
		.aux = 2 };
	seed_frame_from(&s, &m, &upper);
	seed_slot(&s, FUZZ_JOB_UP, FUZZ_TOKEN, OPTINC_OP_AVG, 8, 0);
	m = seed_data(FUZZ_UP_JOB, FUZZ_TOKEN, OPTINC_OP_CAVG, 8, 0, 1);
	m.type = OPTINC_T_RESULT;
	m.block = 8;		/* the slot's shape, scales and all */
	m.nscale = 2;
	seed_frame_from(&s, &m, &upper);
	seed_frame_from(&s, &m, &upper);
	m = (struct optinc_msg){ .type = OPTINC_T_NACK, .job = FUZZ_UP_JOB,
		.rank = 1, .token = FUZZ_TOKEN, .seq = FUZZ_UP_NONCE, .aux = 1 };
	seed_frame_from(&s, &m, &upper);
	return seed_write(dir, "uplink", &s);
}

/*
 * FUZZ_JOB_UP's slots 0 and 1 go up; the upper result of 1 comes with a
 * hint that the upper switch holds nothing from us since 0: slot 0's DATA
 * (or its result) was lost, and goes up again at once (up_hinted).
 */
static int seed_uplink_hinted(const char *dir)
{
	struct optinc_msg m = (struct optinc_msg){
		.type = OPTINC_T_JOIN_ACK, .job = FUZZ_UP_JOB, .rank = 1,
		.token = FUZZ_TOKEN, .seq = FUZZ_UP_NONCE, .slot = FUZZ_WINDOW,
		.count = FUZZ_MAX_ELEMS, .size = 2, .aux = 2 };
	struct optinc_endpoint upper;
	struct seed s;

	fuzz_upper_ep(&upper);
	seed_start(&s, FUZZ_CTL_JOINED);
	seed_frame_from(&s, &m, &upper);
	seed_slot(&s, FUZZ_JOB_UP, FUZZ_TOKEN, OPTINC_OP_AVG, 8, 0);
	seed_slot(&s, FUZZ_JOB_UP, FUZZ_TOKEN, OPTINC_OP_AVG, 8, 1);
	m = seed_data(FUZZ_UP_JOB, FUZZ_TOKEN, OPTINC_OP_CAVG, 8, 1, 1);
	m.type = OPTINC_T_RESULT;
	m.block = 8;
	m.nscale = 2;
	m.aux = OPTINC_HINT_ON | 1;	/* the oldest waiting is seq 0 ... */
	m.held = 0;			/* ... and it holds none of ours */
	seed_frame_from(&s, &m, &upper);
	return seed_write(dir, "uplink-hinted", &s);
}

/* A table file of one member: radix 4, 4^4 entries. */
static int seed_table(const char *dir)
{
	struct optinc_table_file_hdr h = { .magic = OPTINC_TABLE_MAGIC };
	struct seed s;

	h.version = htole16(OPTINC_TABLE_VERSION);
	h.members = htole16(1);
	h.bits = htole16(8);
	h.radix = htole16(4);
	h.entries = htole32(256);
	seed_start(&s, FUZZ_CTL_TABLE);
	memcpy(s.buf + 1, &h, sizeof(h));
	optinc_table_fill_exact(s.buf + 1 + sizeof(h), 1, 8);
	s.len = 1 + sizeof(h) + 256;
	return seed_write(dir, "table-1", &s);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_seeds DIR\n");
		return 2;
	}
	if (seed_ops(argv[1]) || seed_joins(argv[1]) || seed_uplink(argv[1]) ||
	    seed_uplink_hinted(argv[1]) ||
	    seed_table(argv[1]))
		return 1;
	return 0;
}
