// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the code every switch datapath runs on a received
 * frame: optinc_parse_l2l4(), optinc_msg_parse(), optinc_job_rx() and the
 * builders of the answers, plus optinc_table_parse() for table files.
 *
 * Input: byte 0 selects the mode. Bit 7 set: the rest is a truth-table
 * file. Otherwise the rest is a list of frames, each a big-endian 16-bit
 * length and that many bytes, run in order through two jobs (id 1 exact,
 * id 2 onn with token FUZZ_TOKEN); bit 0 joins every member first, bit 1
 * builds answers into a short buffer. Each frame is copied into its own
 * allocation so that AddressSanitizer sees any read past its end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <optinc/core.h>
#include "fuzz.h"

static struct optinc_job fuzz_jobs[2];
static struct optinc_table fuzz_tbl;
static struct optinc_endpoint fuzz_sw;
static __u8 fuzz_out[FUZZ_ROOM];

static void fuzz_check(int ok)
{
	if (!ok)
		__builtin_trap();
}

static void fuzz_job_init(struct optinc_job *j, __u16 id, __u32 token,
			  __u8 mode)
{
	__u64 len = optinc_job_mem(FUZZ_WINDOW, FUZZ_MAX_ELEMS);

	j->id = id;
	j->size = FUZZ_SIZE;
	j->token = token;
	j->window = FUZZ_WINDOW;
	j->max_elems = FUZZ_MAX_ELEMS;
	j->mode = mode;
	j->table = mode == OPTINC_MODE_ONN ? &fuzz_tbl : NULL;
	fuzz_check(!optinc_job_init(j, aligned_alloc(8, (len + 7) & ~7ull),
				    len));
}

static void fuzz_setup(void)
{
	__u32 entries = 1;
	__u8 *out;
	int k;

	fuzz_switch_ep(&fuzz_sw);
	for (k = 0; k < 4; k++)
		entries *= 3 * FUZZ_SIZE + 1;
	out = malloc(entries);
	optinc_table_fill_exact(out, FUZZ_SIZE, 8);
	fuzz_tbl = (struct optinc_table){ .members = FUZZ_SIZE, .bits = 8,
		.radix = 3 * FUZZ_SIZE + 1, .entries = entries, .out = out };
	fuzz_job_init(&fuzz_jobs[0], FUZZ_JOB_EXACT, 0, OPTINC_MODE_EXACT);
	fuzz_job_init(&fuzz_jobs[1], FUZZ_JOB_ONN, FUZZ_TOKEN, OPTINC_MODE_ONN);
}

static struct optinc_job *fuzz_find(__u16 id)
{
	return id == FUZZ_JOB_EXACT ? &fuzz_jobs[0] :
	       id == FUZZ_JOB_ONN ? &fuzz_jobs[1] : NULL;
}

/* What a built frame must be: parseable, to @dst's port, of @type. */
static void fuzz_reparse(__u32 len, __u8 type,
			 const struct optinc_endpoint *dst)
{
	struct optinc_l2l4 l;
	struct optinc_msg m;

	fuzz_check(len <= sizeof(fuzz_out));
	fuzz_check(optinc_parse_l2l4(fuzz_out, len, ntohs(dst->port), &l) == 1);
	fuzz_check(optinc_msg_parse(fuzz_out + l.l4_off, l.l4_len, &m) ==
		   OPTINC_DROP_NONE);
	fuzz_check(m.type == type);
}

static void fuzz_result(const struct optinc_job *j,
			const struct optinc_slot *s, __u16 rank, __u32 room)
{
	__u32 len = optinc_build_result(fuzz_out, room, j, s, &fuzz_sw, rank);

	fuzz_check(s->done && s->res_len <= 4u * j->max_elems);
	if (len)
		fuzz_reparse(len, OPTINC_T_RESULT, &j->members[rank].ep);
}

static void fuzz_ctrl(const struct optinc_msg *a,
		      const struct optinc_endpoint *dst, __u32 room)
{
	__u32 len = optinc_build_ctrl(fuzz_out, room, a, &fuzz_sw, dst);

	if (len)
		fuzz_reparse(len, a->type, dst);
}

/* Act on a verdict like optincd's agg_verdict(). */
static void fuzz_verdict(struct optinc_job *j, const struct optinc_msg *m,
			 const struct optinc_l2l4 *l, __u32 room)
{
	struct optinc_slot *s;
	enum optinc_drop why;
	struct optinc_msg a;
	__u16 r;

	switch (optinc_job_rx(j, m, &l->src, &why, &s)) {
	case OPTINC_V_DROP:
		fuzz_check(why > OPTINC_DROP_NONE && why < OPTINC_DROP_NR);
		break;
	case OPTINC_V_ABSORBED:
	case OPTINC_V_FORWARD:	/* never: the fuzzed job has no uplink */
		fuzz_check(why == OPTINC_DROP_NONE);
		break;
	case OPTINC_V_COMPLETE:
		for (r = 0; r < j->size; r++)
			fuzz_result(j, s, r, room);
		break;
	case OPTINC_V_RESEND:
		fuzz_result(j, s, m->rank, room);
		break;
	case OPTINC_V_JOIN_ACK:
		fuzz_check(m->rank < j->size);
		optinc_job_ack(j, m->rank, &a);
		fuzz_ctrl(&a, &j->members[m->rank].ep, room);
		break;
	case OPTINC_V_NACK:
		optinc_nack(m, why, &a);
		fuzz_ctrl(&a, &l->src, room);
		break;
	}
}

static void fuzz_frame(const __u8 *data, size_t len, __u32 room)
{
	__u8 *f = malloc(len ? len : 1);
	struct optinc_job *j;
	struct optinc_l2l4 l;
	struct optinc_msg m = { .job = 0 };
	struct optinc_msg a;

	memcpy(f, data, len);
	if (optinc_parse_l2l4(f, len, FUZZ_PORT, &l) == 1) {
		fuzz_check((__u32)l.l4_off + l.l4_len <= len);
		if (optinc_msg_parse(f + l.l4_off, l.l4_len, &m) ==
		    OPTINC_DROP_NONE) {
			j = fuzz_find(m.job);
			if (j) {
				fuzz_verdict(j, &m, &l, room);
			} else if (m.type == OPTINC_T_JOIN) {
				optinc_nack(&m, OPTINC_DROP_NO_JOB, &a);
				fuzz_ctrl(&a, &l.src, room);
			}
		}
	}
	free(f);
}

/* Every member joins from its usual endpoint, as a running job has. */
static void fuzz_join_all(struct optinc_job *j)
{
	struct optinc_endpoint ep;
	struct optinc_slot *s;
	enum optinc_drop why;
	__u16 r;

	for (r = 0; r < j->size; r++) {
		struct optinc_msg m = { .type = OPTINC_T_JOIN, .job = j->id,
			.rank = r, .token = j->token, .seq = 1000 + r };

		fuzz_member_ep(r, &ep);
		fuzz_check(optinc_job_rx(j, &m, &ep, &why, &s) ==
			   OPTINC_V_JOIN_ACK);
	}
	fuzz_check(optinc_job_complete(j));
}

static void fuzz_table(const __u8 *data, size_t len)
{
	struct optinc_table t;
	const char *why;
	__u8 *buf = malloc(len ? len : 1);
	__u32 i, sum = 0;

	memcpy(buf, data, len);
	if (!optinc_table_parse(buf, len, &t, &why)) {
		fuzz_check(t.members >= 1 && t.members <= OPTINC_MAX_MEMBERS);
		for (i = 0; i < t.entries; i++)
			sum += t.out[i];
		fuzz_check(sum <= 255u * t.entries);
	} else {
		fuzz_check(why != NULL);
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	__u32 room, flen;
	__u8 ctl;
	int k;

	if (!ready) {
		fuzz_setup();
		ready = 1;
	}
	if (!size)
		return 0;
	ctl = data[0];
	data++;
	size--;
	if (ctl & FUZZ_CTL_TABLE) {
		fuzz_table(data, size);
		return 0;
	}
	room = ctl & FUZZ_CTL_SHORT ? 64 + (size & 0xff) : sizeof(fuzz_out);
	for (k = 0; k < 2; k++) {
		optinc_job_reset(&fuzz_jobs[k]);
		if (ctl & FUZZ_CTL_JOINED)
			fuzz_join_all(&fuzz_jobs[k]);
	}
	while (size >= 2) {
		flen = (__u32)data[0] << 8 | data[1];
		data += 2;
		size -= 2;
		if (flen > size)
			flen = size;
		fuzz_frame(data, flen, room);
		data += flen;
		size -= flen;
	}
	return 0;
}
