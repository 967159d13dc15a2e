// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the code every switch datapath runs on a received
 * frame: optinc_parse_l2l4(), optinc_msg_parse(), then the switch's rules
 * as optincd and optinc.ko run them, optinc_sw_input() (port security,
 * the rate limit, the slot state machine, the reply plan and the builders
 * of the answers), plus optinc_table_parse() for table files.
 *
 * Input: byte 0 selects the mode. Bit 7 set: the rest is a truth-table
 * file. Otherwise the rest is a list of frames, each a big-endian 16-bit
 * length and that many bytes, run in order through three jobs (id 1 exact,
 * id 2 onn with token FUZZ_TOKEN, id 3 a cascade's first level with that
 * token, whose upper switch's answers come from fuzz_upper_ep() and whose
 * ARP request is answered at once); bit 0 joins every member first, bit 1
 * builds answers into a short buffer, bit 2 has the frames come in on
 * FUZZ_PORTS ports in turn (else all on port 0). Each frame is copied into
 * its own allocation so that AddressSanitizer sees any read past its end.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>
#include <optinc/switch.h>
#include <optinc/ratelimit.h>
#include <uapi/linux/optinc.h>
#include "fuzz.h"

#define FUZZ_JOBS	3

static struct optinc_job fuzz_jobs[FUZZ_JOBS];
static struct optinc_uplink fuzz_up;
static struct optinc_table fuzz_tbl;
static __u8 fuzz_lut[OPTINC_TABLE_BY_SUM_LEN(FUZZ_SIZE)];
static struct optinc_endpoint fuzz_sw;
static __u8 fuzz_out[FUZZ_ROOM];
static struct optinc_bind fuzz_binds[FUZZ_JOBS];
static struct optinc_rl fuzz_rl[FUZZ_PORTS];
static struct optinc_rl_conf fuzz_rl_conf;

static void fuzz_check(int ok)
{
	if (!ok)
		__builtin_trap();
}

static void fuzz_job_init(struct optinc_job *j, __u16 id, __u32 token,
			  __u8 mode)
{
	const struct optinc_job_cfg c = {
		.id = id, .size = FUZZ_SIZE, .bits = 8, .mode = mode,
		.token = token, .window = FUZZ_WINDOW,
		.max_elems = FUZZ_MAX_ELEMS,
	};
	const struct optinc_table *t = mode == OPTINC_MODE_ONN ? &fuzz_tbl : NULL;
	__u64 len = optinc_job_mem(FUZZ_WINDOW, FUZZ_MAX_ELEMS);
	struct optinc_job_err e;

	/* as a datapath does: the core's checks, then its set-up */
	fuzz_check(!optinc_job_cfg_check(&c, t, &e));
	fuzz_check(!optinc_job_setup(j, &c, t, aligned_alloc(8, (len + 7) & ~7ull),
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
	fuzz_tbl = (struct optinc_table){ .members = FUZZ_SIZE, .bits = 8,
		.radix = 3 * FUZZ_SIZE + 1, .entries = entries, .out = out };
	optinc_table_fill_exact(out, FUZZ_SIZE, 8);
	/* two sums off the exact average: its by-sum form has two patches */
	for (k = 0; k < (int)entries; k++) {
		__u32 s = optinc_pam4_plain_sum(k, fuzz_tbl.radix, 4);

		if (s == 7 || s == 510)
			out[k] ^= 1;
	}
	fuzz_check(!optinc_table_by_sum(&fuzz_tbl, fuzz_lut));
	fuzz_check(fuzz_tbl.by_avg && fuzz_tbl.patches == 2);
	/* a low limit, so that floods of bad frames reach it */
	fuzz_check(!optinc_rl_conf_set(&fuzz_rl_conf, 100, 16, 1000000000));
	fuzz_job_init(&fuzz_jobs[0], FUZZ_JOB_EXACT, 0, OPTINC_MODE_EXACT);
	fuzz_job_init(&fuzz_jobs[1], FUZZ_JOB_ONN, FUZZ_TOKEN, OPTINC_MODE_ONN);
	fuzz_job_init(&fuzz_jobs[2], FUZZ_JOB_UP, FUZZ_TOKEN, OPTINC_MODE_EXACT);
	fuzz_jobs[2].up = &fuzz_up;
}

/* FUZZ_JOB_UP's uplink as a new job has it: not joined, the MAC unknown. */
static void fuzz_up_reset(void)
{
	struct optinc_endpoint upper;

	fuzz_upper_ep(&upper);
	optinc_up_init(&fuzz_up, &fuzz_sw, upper.ip, upper.port, FUZZ_UP_JOB,
		       1, FUZZ_TOKEN);
}

static struct optinc_job *fuzz_find(__u16 id)
{
	return id >= 1 && id <= FUZZ_JOBS ? &fuzz_jobs[id - 1] : NULL;
}

/*
 * The datapath side of the switch's rules (lib/core/switch.c): frames are
 * built into fuzz_out, at most @room bytes (FUZZ_CTL_SHORT), and must
 * parse back as what they claim to be, addressed where they go.
 */
struct fuzz_dp {
	__u32	room;
	__u64	now;		/* the rate limit's clock: 1 ms per frame */
	__u8	sent_type;	/* type of the frame sent last */
	int	short_room;	/* FUZZ_CTL_SHORT */
	__u32	allocs;
};

/* how often each event of the rules fired, for fuzz_short.sh */
static unsigned long fuzz_events[OPTINC_SW_NR_EVENTS];
static unsigned long fuzz_sent[OPTINC_T_NACK + 1];

static int fuzz_alloc(void *dp, struct optinc_job *job,
		      const struct optinc_sw_msg *in, int rank, __u32 len,
		      struct optinc_sw_frame *f)
{
	struct fuzz_dp *d = dp;

	fuzz_check(rank < 0 ? in != NULL : job && rank < job->size);
	fuzz_check(rank != OPTINC_SW_TO_UP || (job && job->up && job->up->resolved));
	if (d->short_room && !(++d->allocs % 7))
		return -ENOMEM;		/* a pool runs dry now and then */
	f->buf = fuzz_out;
	f->room = d->room;
	f->priv = NULL;
	return 0;
}

static int fuzz_send(void *dp, struct optinc_job *job,
		     const struct optinc_sw_msg *in, int rank,
		     struct optinc_sw_frame *f, __u32 len)
{
	const struct optinc_endpoint *dst = rank == OPTINC_SW_TO_UP ? &job->up->sw :
					    rank < 0 ? in->src :
					    &job->members[rank].ep;
	struct fuzz_dp *d = dp;
	struct optinc_l2l4 l;
	struct optinc_msg m;

	if (!len)
		return -EINVAL;
	fuzz_check(len <= d->room);
	fuzz_check(optinc_parse_l2l4(fuzz_out, len, ntohs(dst->port), &l) == 1);
	fuzz_check(!memcmp(l.dst.mac, dst->mac, 6) && l.dst.ip == dst->ip);
	fuzz_check(optinc_msg_parse(fuzz_out + l.l4_off, l.l4_len, &m) ==
		   OPTINC_DROP_NONE);
	if (rank == OPTINC_SW_TO_UP)
		fuzz_check((m.type == OPTINC_T_JOIN || m.type == OPTINC_T_DATA) &&
			   m.job == job->up->job && m.rank == job->up->rank);
	else
		fuzz_check((m.type == OPTINC_T_RESULT ||
			    m.type == OPTINC_T_JOIN_ACK ||
			    m.type == OPTINC_T_NACK) &&
			   (m.type == OPTINC_T_NACK || (job && m.job == job->id)));
	d->sent_type = m.type;
	return 0;
}

static void fuzz_count(void *dp, struct optinc_job *job,
		       const struct optinc_sw_msg *in, enum optinc_sw_event ev,
		       __u32 arg)
{
	struct fuzz_dp *d = dp;
	__u32 n;

	fuzz_check(ev < OPTINC_SW_NR_EVENTS);
	fuzz_events[ev]++;
	/* every event counts on the spec's job counters, or on none */
	fuzz_check(optinc_sw_job_counter(ev, arg, &n) <= OPTINC_STATS_A_MAX);
	if (ev == OPTINC_SW_RECEIVED)
		fuzz_check(job != NULL);
	if (ev == OPTINC_SW_DROPPED)
		fuzz_check(arg > OPTINC_DROP_NONE && arg < OPTINC_DROP_NR);
	if (ev == OPTINC_SW_SENT || ev == OPTINC_SW_UP_SENT) {
		fuzz_check(arg == d->sent_type);
		fuzz_sent[arg]++;
	}
	if (ev == OPTINC_SW_COMPLETED || ev == OPTINC_SW_RESENT ||
	    ev == OPTINC_SW_JOINED)
		fuzz_check(job != NULL);
}

static void fuzz_pin(void *dp, struct optinc_job *job,
		     const struct optinc_sw_msg *in,
		     const struct optinc_endpoint *old, __u32 old_port)
{
	fuzz_check(job && in->port < FUZZ_PORTS && (!old || old_port < FUZZ_PORTS));
}

static int fuzz_limited(void *dp, struct optinc_job *job,
			const struct optinc_sw_msg *in)
{
	struct fuzz_dp *d = dp;

	return optinc_rl_rx(&fuzz_rl[in->port], &fuzz_rl_conf, job, in->m,
			    in->src, d->now) == OPTINC_RL_LIMITED;
}

/*
 * Unit T on one payload, as optincd's chained mbufs: each member's headers
 * (optinc_build_result_hdr()) with the elements behind them. With short
 * answers it declines, and the rules build each frame whole.
 */
static int fuzz_results(void *dp, struct optinc_job *job,
			const struct optinc_slot *s)
{
	struct optinc_sw_frame f = { .buf = fuzz_out };
	struct fuzz_dp *d = dp;
	__u32 hdr, sent = 0;
	__u16 r;

	if (d->short_room)
		return -ENOMEM;
	f.room = d->room;
	for (r = 0; r < job->size; r++) {
		hdr = optinc_build_result_hdr(fuzz_out, d->room, job, s,
					      &fuzz_sw, r);
		if (!hdr || hdr + s->res_len > d->room)
			continue;
		memcpy(fuzz_out + hdr, s->res, s->res_len);
		fuzz_check(!fuzz_send(dp, job, NULL, r, &f, hdr + s->res_len));
		fuzz_check(d->sent_type == OPTINC_T_RESULT);
		sent++;
	}
	return (int)sent;
}

/* FUZZ_JOB_UP's upper switch answers the ARP request at once. */
static int fuzz_up_arp(void *dp, struct optinc_job *job)
{
	struct optinc_endpoint upper;

	fuzz_check(job == &fuzz_jobs[2] && !job->up->resolved);
	fuzz_upper_ep(&upper);
	fuzz_check(!optinc_up_arp_reply(job->up, upper.ip, upper.ip, upper.mac));
	fuzz_check(optinc_up_arp_reply(job->up, upper.ip, fuzz_sw.ip, upper.mac));
	return 0;
}

/* One nonce, so that seeds can answer the JOIN upstream. */
static __u32 fuzz_random(void *dp)
{
	return FUZZ_UP_NONCE;
}

static __u64 fuzz_clock_ms(void *dp)
{
	return ((struct fuzz_dp *)dp)->now / 1000000;
}

static const struct optinc_sw_ops fuzz_ops = {
	.alloc = fuzz_alloc,
	.send = fuzz_send,
	.count = fuzz_count,
	.pin = fuzz_pin,
	.limited = fuzz_limited,
	.results = fuzz_results,
	.up_arp = fuzz_up_arp,
	.random = fuzz_random,
	.clock_ms = fuzz_clock_ms,
};

/* The L2 table's pins, as both datapaths keep them: bound MACs stay put. */
static int fuzz_spoofed(const struct optinc_endpoint *src, __u32 port)
{
	const struct optinc_bind *b;
	int k, r;

	for (k = 0; k < FUZZ_JOBS; k++)
		for (r = 0, b = &fuzz_binds[k]; r < OPTINC_MAX_MEMBERS; r++)
			if ((b->bound >> r & 1) && b->port[r] != port &&
			    !memcmp(b->ep[r].mac, src->mac, 6))
				return 1;
	return 0;
}

static void fuzz_input(struct fuzz_dp *d, const struct optinc_msg *m,
		       const struct optinc_endpoint *src, __u32 port,
		       enum optinc_drop why)
{
	const struct optinc_sw sw = { .ops = &fuzz_ops, .dp = d, .ep = &fuzz_sw };
	const struct optinc_sw_msg in = { .m = m, .src = src, .port = port,
					  .spoofed = fuzz_spoofed(src, port) };
	struct optinc_job *j = why == OPTINC_DROP_NONE ? fuzz_find(m->job) : NULL;

	d->now += 1000000;
	if (why == OPTINC_DROP_NONE && !in.spoofed &&
	    optinc_up_match(&fuzz_jobs[2], m, src)) {
		optinc_up_input(&sw, &fuzz_jobs[2], &in);
		return;
	}
	optinc_sw_input(&sw, j, j ? &fuzz_binds[j - fuzz_jobs] : NULL, &in, why);
}

/* A frame from port @port (FUZZ_CTL_PORTS: members may seem to move). */
static void fuzz_frame(struct fuzz_dp *d, const __u8 *data, size_t len,
		       __u32 port)
{
	__u8 *f = malloc(len ? len : 1);
	struct optinc_msg m = { .job = 0 };
	struct optinc_l2l4 l;
	enum optinc_drop why;

	memcpy(f, data, len);
	if (optinc_parse_l2l4(f, len, FUZZ_PORT, &l) == 1) {
		fuzz_check((__u32)l.l4_off + l.l4_len <= len);
		why = optinc_msg_parse(f + l.l4_off, l.l4_len, &m);
		fuzz_input(d, &m, &l.src, port, why);
	}
	free(f);
}

/* Every member joins from its usual endpoint and port 0, as a running job has. */
static void fuzz_join_all(struct fuzz_dp *d, struct optinc_job *j)
{
	struct optinc_endpoint ep;
	__u16 r;

	for (r = 0; r < j->size; r++) {
		struct optinc_msg m = { .type = OPTINC_T_JOIN, .job = j->id,
			.rank = r, .token = j->token, .seq = 1000 + r };

		fuzz_member_ep(r, &ep);
		fuzz_input(d, &m, &ep, 0, OPTINC_DROP_NONE);
	}
	fuzz_check(optinc_job_complete(j));
}

/* How often each rule fired, for fuzz_short.sh: at exit, to stderr. */
static void fuzz_report(void)
{
	static const char *const ev[OPTINC_SW_NR_EVENTS] = {
		[OPTINC_SW_RECEIVED] = "received",
		[OPTINC_SW_DROPPED] = "dropped",
		[OPTINC_SW_SPOOFED] = "spoofed",
		[OPTINC_SW_WRONG_PORT] = "wrong_port",
		[OPTINC_SW_RATE_LIMITED] = "rate_limited",
		[OPTINC_SW_ABSORBED] = "absorbed",
		[OPTINC_SW_COMPLETED] = "completed",
		[OPTINC_SW_RESENT] = "resent",
		[OPTINC_SW_JOINED] = "joined",
		[OPTINC_SW_REBOUND] = "rebound",
		[OPTINC_SW_SENT] = "sent",
		[OPTINC_SW_TX_ERROR] = "tx_error",
		[OPTINC_SW_RESULTS_SHARED] = "results_shared",
		[OPTINC_SW_UP_SENT] = "up_sent",
		[OPTINC_SW_UP_RESENT] = "up_resent",
		[OPTINC_SW_UP_HINTED] = "up_hinted",
		[OPTINC_SW_UP_RESULT] = "up_result",
		[OPTINC_SW_UP_RESULT_AGAIN] = "up_result_again",
		[OPTINC_SW_UP_NACKED] = "up_nacked",
		[OPTINC_SW_UP_WINDOW] = "up_window",
		[OPTINC_SW_UP_COMPLETE] = "up_complete",
	};
	unsigned int k;

	fprintf(stderr, "fuzz_frame rules:");
	for (k = 0; k < OPTINC_SW_NR_EVENTS; k++)
		fprintf(stderr, " %s=%lu", ev[k] ? ev[k] : "?", fuzz_events[k]);
	fprintf(stderr, " sent_result=%lu sent_join_ack=%lu sent_nack=%lu\n",
		fuzz_sent[OPTINC_T_RESULT], fuzz_sent[OPTINC_T_JOIN_ACK],
		fuzz_sent[OPTINC_T_NACK]);
}

/* A parsed table's by-sum form: found or not, and then it holds. */
static void fuzz_table_by_sum(struct optinc_table *t)
{
	__u8 *lut = malloc(OPTINC_TABLE_BY_SUM_LEN(t->members));
	__u32 i, k = 0;
	int ret;

	fuzz_check(lut != NULL);
	ret = optinc_table_by_sum(t, lut);
	fuzz_check(ret == 0 || (ret == -ENOENT && !t->by_sum));
	/* the entry of each index is the form's at its sum */
	for (i = 0; !ret && i < t->entries && i < 4096; i++) {
		__u32 s[4];

		optinc_pam4_sums(i, t->radix, 4, s);
		fuzz_check(t->out[i] ==
			   lut[s[0] + 4 * s[1] + 16 * s[2] + 64 * s[3]]);
	}
	/* by the average: it and the patches give each sum's entry */
	for (i = 0, k = 0; !ret && t->by_avg &&
	     i < OPTINC_TABLE_BY_SUM_LEN(t->members); i++) {
		if (k < t->patches && t->patch_sum[k] == i)
			fuzz_check(lut[i] == t->patch_out[k++]);
		else
			fuzz_check(lut[i] == optinc_avg_rhe(i, t->members));
	}
	fuzz_check(ret || !t->by_avg || k == t->patches);
	free(lut);
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
		fuzz_table_by_sum(&t);
	} else {
		fuzz_check(why != NULL);
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_dp d = { .now = 0 };
	static int ready;
	__u32 flen, n;
	__u8 ctl;
	int k;

	if (!ready) {
		fuzz_setup();
		atexit(fuzz_report);
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
	/*
	 * onn slots by sum (the average and its patches, or looked up) or
	 * through the planes: the same bits
	 */
	fuzz_tbl.by_sum = ctl & FUZZ_CTL_BY_SUM ? fuzz_lut : NULL;
	fuzz_tbl.by_avg = !(ctl & FUZZ_CTL_LOOKUP);
	d.room = ctl & FUZZ_CTL_SHORT ? 64 + (size & 0xff) : sizeof(fuzz_out);
	d.short_room = !!(ctl & FUZZ_CTL_SHORT);
	for (k = 0; k < FUZZ_PORTS; k++)
		optinc_rl_init(&fuzz_rl[k]);
	for (k = 0; k < FUZZ_JOBS; k++) {
		optinc_job_reset(&fuzz_jobs[k]);
		optinc_bind_init(&fuzz_binds[k]);
	}
	fuzz_up_reset();
	for (k = 0; k < FUZZ_JOBS && (ctl & FUZZ_CTL_JOINED); k++)
		fuzz_join_all(&d, &fuzz_jobs[k]);
	for (n = 0; size >= 2; n++) {
		flen = (__u32)data[0] << 8 | data[1];
		data += 2;
		size -= 2;
		if (flen > size)
			flen = size;
		fuzz_frame(&d, data, flen, ctl & FUZZ_CTL_PORTS ? n % FUZZ_PORTS : 0);
		data += flen;
		size -= flen;
	}
	return 0;
}
