/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * The OptINC core: frame parsing and building, the per-element reduction
 * arithmetic (exact average, PAM4 unit P, truth-table look-up) and the
 * aggregation-slot state machine. Freestanding C (no libc, no floats) so
 * that optincd, optinc.ko, liboptinc and the fuzzers run the same code.
 * Quantization of floats lives in quant.h, for user space only.
 */
#ifndef OPTINC_CORE_H
#define OPTINC_CORE_H

#include <linux/types.h>
#include "wire.h"

/* Why a frame was dropped; indexes the datapaths' drop counters. */
enum optinc_drop {
	OPTINC_DROP_NONE = 0,
	OPTINC_DROP_SHORT,	/* truncated: shorter than its headers say */
	OPTINC_DROP_MAGIC,	/* to the OptINC port, but no OptINC magic */
	OPTINC_DROP_VERSION,	/* unsupported protocol version */
	OPTINC_DROP_TYPE,	/* unknown or unexpected frame type */
	OPTINC_DROP_SHAPE,	/* bad op/bits/count/nscale/block combination */
	OPTINC_DROP_NO_JOB,	/* no such job on this switch */
	OPTINC_DROP_TOKEN,	/* token differs from the job's */
	OPTINC_DROP_NOT_MEMBER,	/* rank out of range or not from its address */
	OPTINC_DROP_DUPLICATE,	/* rank already counted in this slot */
	OPTINC_DROP_STALE,	/* seq older than the slot's current use */
	OPTINC_DROP_MISMATCH,	/* shape or scales differ from the slot's */
	OPTINC_DROP_TOO_BIG,	/* more elements than the job's slots hold */
	OPTINC_DROP_NR
};

/* Short names of enum optinc_drop, for counters and logs. */
extern const char *const optinc_drop_names[OPTINC_DROP_NR];

/* A host: Ethernet address, IPv4 address and UDP port (network order). */
struct optinc_endpoint {
	__u8	mac[6];
	__be32	ip;
	__be16	port;
};

/* A parsed OptINC message: header fields in host order, payload pointers. */
struct optinc_msg {
	__u8	type, op, flags, bits, nscale;
	__u16	job, rank, slot, count, block, aux, size;
	__u32	token, seq;
	__u32	held;		/* RESULT: hint bitmap (size:rsvd on the wire) */
	__u16	tag;		/* DATA: call tag (rsvd on the wire) */
	const __s8 *scales;	/* nscale exponents */
	const __u8 *elems;	/* count elements of bits each */
	__u32	elems_len;	/* count * bits / 8 */
};

/* Ethernet/IPv4/UDP of a frame, as found by optinc_parse_l2l4(). */
struct optinc_l2l4 {
	struct optinc_endpoint src, dst;
	__u16	vlan_tci;	/* 0 when untagged */
	__u16	l4_off;		/* offset of the UDP payload */
	__u16	l4_len;		/* UDP payload length */
};

int optinc_parse_l2l4(const void *frame, __u32 len, __u16 port,
		      struct optinc_l2l4 *out);
enum optinc_drop optinc_msg_parse(const void *buf, __u32 len,
				  struct optinc_msg *m);
__u32 optinc_msg_payload_len(__u8 bits, __u16 count, __u8 nscale);
void optinc_hdr_fill(struct optinc_hdr *h, const struct optinc_msg *m);
__u32 optinc_build_l2l4(void *frame, const struct optinc_endpoint *src,
			const struct optinc_endpoint *dst, __u32 l4_len);
__u16 optinc_ip_csum(const void *iph, __u32 len);

/* ---- per-element arithmetic (all integer) ---- */

/* A by-sum table's most patches on the exact average (optinc_table). */
#define OPTINC_TABLE_PATCH_MAX		8

/* Truth table of an ONN: maps the P-unit sums to the output value. */
struct optinc_table {
	__u16	members;	/* N */
	__u8	bits;		/* B (8) */
	__u16	radix;		/* 3N + 1 */
	__u32	entries;	/* radix^(B/2) */
	const __u8 *out;	/* entries output values (offset binary) */
	__u8	digits;		/* cascade table: input digits (B/2 + 1), else 0 */
	__u16	fanin;		/* cascade table: N1 below each of the N members */
	/*
	 * The output by the plain sum S = s_0 + 4 s_1 + 16 s_2 + 64 s_3 of
	 * the members' values (255 N + 1 entries), where every index of the
	 * same S has the same output: optinc_table_by_sum(). Else NULL.
	 */
	const __u8 *by_sum;
	/*
	 * by_avg: by_sum differs from the exact average of S (a perfect
	 * ONN's, the shipped tables') at no more than OPTINC_TABLE_PATCH_MAX
	 * sums, the patches (sums ascending), so a slot computes that average
	 * and puts these outputs in: no look-up per element (a trained ONN's
	 * errors follow S). Set by optinc_table_by_sum() only: 0 (a table
	 * filled in by hand) looks up.
	 */
	__u8	by_avg;
	__u8	patches;
	__u8	patch_out[OPTINC_TABLE_PATCH_MAX];
	__u16	patch_sum[OPTINC_TABLE_PATCH_MAX];
};

/* Entries of a by-sum table of N members: S = 0 .. 255 N. */
#define OPTINC_TABLE_BY_SUM_LEN(n)	(255u * (n) + 1)

/* Reduction kinds: how a slot accumulates and finishes. */
enum optinc_kind {
	OPTINC_K_AVG8 = 0,	/* offset binary 8, exact average */
	OPTINC_K_AVG16,		/* offset binary 16, exact average */
	OPTINC_K_ONN8,		/* offset binary 8, P unit + truth table */
	OPTINC_K_SUM8,		/* offset binary 8 -> int32 sum */
	OPTINC_K_SUM16,		/* offset binary 16 -> int32 sum */
	OPTINC_K_ISUM,		/* int32 wrapping sum */
	OPTINC_K_MAX8,		/* int8 max */
	OPTINC_K_CAVG16,	/* cascade partial sums 16 -> 8-bit average */
	OPTINC_K_CAVG32,	/* cascade partial sums 32 -> 16-bit average */
	OPTINC_K_CONN8,		/* cascade partial sums 16 -> P unit + table */
	OPTINC_K_MAX16,		/* int16 max */
	OPTINC_K_MAX32,		/* int32 max */
	OPTINC_K_ONNS8,		/* ONN8 by its table's by-sum form: AVG8's sums */
	OPTINC_K_NR
};

/*
 * The 8-bit kinds (AVG8, SUM8) sum in 16-bit accumulators in the same
 * memory (255 x 64 < 2^16): half the memory a slot touches, and 16-bit
 * lanes for the average. The memory is allocated, so its type is that of
 * the last store, and those kinds only ever access it through this.
 */
static inline __u16 *optinc_acc_u16(__u32 *acc)
{
	return (__u16 *)acc;
}

void optinc_acc_load(enum optinc_kind k, __u32 *acc, const __u8 *src, __u32 n);
void optinc_acc_fold(enum optinc_kind k, __u32 *acc, const __u8 *src, __u32 n);
__u32 optinc_acc_finish(enum optinc_kind k, __u32 *acc, __u32 n,
			__u16 members, const struct optinc_table *t, __u8 *dst);
__u32 optinc_acc_fold_finish(enum optinc_kind k, __u32 *acc, const __u8 *src,
			     __u32 n, __u16 members,
			     const struct optinc_table *t, __u8 *dst);
__u8 optinc_result_bits(enum optinc_kind k);

__u32 optinc_avg_rhe(__u32 sum, __u32 members);
__u32 optinc_pam4_index(__u32 lanes, __u32 radix, unsigned int symbols);
__u32 optinc_pam4_plain_sum(__u32 index, __u32 radix, unsigned int symbols);
void optinc_pam4_sums(__u32 index, __u32 radix, unsigned int symbols,
		      __u32 *sums);
void optinc_pam4_planes_load(__u8 *planes, const __u8 *src, __u32 n);
void optinc_pam4_planes_fold(__u8 *planes, const __u8 *src, __u32 n);

/* ---- truth-table files (format in Documentation/onn.md) ---- */

#define OPTINC_TABLE_MAGIC	"OINCTBL1"
#define OPTINC_TABLE_VERSION	1
#define OPTINC_TABLE_HDR_LEN	64

/**
 * struct optinc_table_file_hdr - header of a truth-table file
 * All fields little endian; followed by @entries bytes of output values.
 */
struct optinc_table_file_hdr {
	char	magic[8];	/* OPTINC_TABLE_MAGIC */
	__le16	version;	/* OPTINC_TABLE_VERSION */
	__le16	members;	/* N */
	__le16	bits;		/* B */
	__le16	radix;		/* 3N + 1 */
	__le32	entries;	/* radix^(B/2) */
	__le32	wrong;		/* entries that differ from the exact average */
	__u8	model_sha256[32]; /* hash of the ONN model file it came from */
	__le32	rsvd[2];
} __attribute__((packed));

int optinc_table_parse(const void *buf, __u64 len, struct optinc_table *t,
		       const char **why);
void optinc_table_fill_exact(__u8 *out, __u16 members, __u8 bits);
int optinc_table_by_sum(struct optinc_table *t, __u8 *buf);
void optinc_table_sum_lookup(const struct optinc_table *t, const __u16 *acc,
			     const __u8 *src, __u32 n, __u8 *dst);
void optinc_table_lookup(const struct optinc_table *t, const __u8 *planes,
			 __u32 n, __u8 *dst);
void optinc_table_fold_lookup(const struct optinc_table *t, const __u8 *planes,
			      const __u8 *src, __u32 n, __u8 *dst);

/* ---- aggregation slots ---- */

struct optinc_slot {
	__u32	seq;
	__u64	bitmap;		/* ranks counted */
	__u8	valid;		/* holds an aggregation (seq meaningful) */
	__u8	done;		/* result is in @res */
	__u8	up;		/* complete, waiting for the upstream result */
	__u8	op, bits, nscale, kind;
	__u8	mixed;		/* contributions of different calls met here */
	__u16	count, block, tag;
	__s8	scales[OPTINC_MAX_SCALES];
	__u32	*acc;		/* job->max_elems accumulators */
	__u8	*res;		/* result elements, job->max_elems * 4 bytes */
	__u32	res_len;
	__u32	up_first, up_last;	/* cascade: job->up_clock at the first
					 * and the last send of the upstream
					 * DATA; 0: not sent */
};

struct optinc_member {
	struct optinc_endpoint ep;
	__u32	nonce;
};

/* enum optinc_mode: how a job averages */
#define OPTINC_MODE_EXACT	0
#define OPTINC_MODE_ONN		1

struct optinc_job {
	__u16	id;
	__u16	size;		/* members N */
	__u32	token;
	__u16	window;		/* slots; each has two copies (shadow bit) */
	__u16	max_elems;	/* elements one slot holds */
	__u8	mode;		/* OPTINC_MODE_* */
	const struct optinc_table *table;	/* for ONN mode, N and B = 8 */
	__u64	joined;		/* bitmap of registered members */
	__u32	low;		/* no slot in range before it aggregates (hints) */
	struct optinc_member members[OPTINC_MAX_MEMBERS];
	struct optinc_slot *slots;	/* 2 * window */
	/*
	 * Accumulators of done slots, last freed on top: a slot gives its
	 * accumulators back when it completes and takes the top ones when it
	 * starts, so the few slots under way reuse memory still in cache
	 * instead of cycling through 2 * window slots' worth (agg.c).
	 */
	__u32	**acc_free;
	__u32	nb_acc_free;
	struct optinc_uplink *up;	/* cascade: complete slots go up */
	__u16	fanin;		/* cascade: members' fan-in (CAVG), 0: none */
	__u32	up_clock;	/* cascade: upstream DATA sends so far (skips 0) */
};

/* What a datapath does with a frame after optinc_job_rx(). */
enum optinc_verdict {
	OPTINC_V_DROP = 0,	/* count *why and free */
	OPTINC_V_ABSORBED,	/* contribution added, nothing to send */
	OPTINC_V_COMPLETE,	/* slot done: send its result to every member */
	OPTINC_V_RESEND,	/* slot done before: send its result to rank */
	OPTINC_V_JOIN_ACK,	/* send a JOIN_ACK to rank; to all once complete */
	OPTINC_V_NACK,		/* refuse a JOIN: send a NACK to the sender */
	OPTINC_V_FORWARD,	/* slot complete: send it upstream (cascade) */
};

__u64 optinc_job_mem(__u16 window, __u16 max_elems);
int optinc_job_init(struct optinc_job *job, void *mem, __u64 mem_len);

/*
 * A job's configuration, the same for every datapath (optincd's --job and
 * jobs added at run time, optinc.ko's job-set, the test switch): each
 * parses its own syntax into this, and lib/core/job_cfg.c decides what
 * makes a job. Limits and defaults are these, everywhere.
 */
#define OPTINC_MAX_JOBS		256	/* jobs of one switch, any datapath */
#define OPTINC_MAX_WINDOW	4096	/* slots a job may have in flight */
#define OPTINC_DEF_WINDOW	64
#define OPTINC_DEF_MAX_ELEMS	8704	/* one 9000-byte MTU frame at 8 bits */

struct optinc_job_cfg {
	__u16	id;		/* 1..65535 */
	__u16	size;		/* members N, 1..OPTINC_MAX_MEMBERS */
	__u8	bits;		/* 8 or 16 */
	__u8	mode;		/* OPTINC_MODE_*; onn needs 8 bits and a table */
	__u32	token;		/* 0: none */
	__u16	window;		/* 1..OPTINC_MAX_WINDOW */
	__u16	max_elems;	/* elements per slot, 1..65535 */
	__u16	fanin;		/* cascade second level: N1 per member, 0: none */
};

/* What a check found wrong: the field, in the words every datapath uses. */
enum optinc_job_field {
	OPTINC_JF_ID, OPTINC_JF_SIZE, OPTINC_JF_BITS, OPTINC_JF_MODE,
	OPTINC_JF_WINDOW, OPTINC_JF_MAX_ELEMS, OPTINC_JF_FANIN, OPTINC_JF_TABLE,
	OPTINC_JF_NR
};

struct optinc_job_err {
	enum optinc_job_field field;
	const char *why;	/* "must be 8 or 16": what is wrong with it */
	const char *msg;	/* "bits must be 8 or 16": the same, whole */
};

extern const char *const optinc_job_field_names[OPTINC_JF_NR];
int optinc_job_cfg_check(const struct optinc_job_cfg *c,
			 const struct optinc_table *t, struct optinc_job_err *e);
int optinc_job_setup(struct optinc_job *job, const struct optinc_job_cfg *c,
		     const struct optinc_table *t, void *mem, __u64 mem_len);
void optinc_job_reset(struct optinc_job *job);
enum optinc_verdict optinc_job_rx(struct optinc_job *job,
				  const struct optinc_msg *m,
				  const struct optinc_endpoint *src,
				  enum optinc_drop *why,
				  struct optinc_slot **slot);
int optinc_job_is_member(const struct optinc_job *job,
			 const struct optinc_msg *m,
			 const struct optinc_endpoint *src);
__u32 optinc_build_result_hdr(void *frame, __u32 room,
			      const struct optinc_job *job,
			      const struct optinc_slot *s,
			      const struct optinc_endpoint *sw, __u16 rank);
__u32 optinc_build_result(void *frame, __u32 room,
			  const struct optinc_job *job,
			  const struct optinc_slot *s,
			  const struct optinc_endpoint *sw, __u16 rank);
__u32 optinc_build_ctrl(void *frame, __u32 room, const struct optinc_msg *m,
			const struct optinc_endpoint *sw,
			const struct optinc_endpoint *dst);
void optinc_job_ack(const struct optinc_job *job, __u16 rank,
		    struct optinc_msg *m);
void optinc_nack(const struct optinc_msg *req, enum optinc_drop why,
		 struct optinc_msg *m);
int optinc_job_complete(const struct optinc_job *job);

/* The copy of a job's slots that holds, or would hold, @seq. */
static inline struct optinc_slot *optinc_job_copy(const struct optinc_job *job,
						   __u32 seq)
{
	return &job->slots[2u * (seq % job->window) + ((seq / job->window) & 1)];
}

void optinc_job_advance(struct optinc_job *job, __u32 upto);
void optinc_job_hint(const struct optinc_job *job, __u32 seq, __u16 rank,
		     struct optinc_msg *m);
int optinc_hint_lost(const struct optinc_msg *res, __u32 seq);
__u8 optinc_job_kind(const struct optinc_job *job, __u8 op, __u8 bits);

/* ---- cascade (lib/core/cascade.c, Documentation/scale.md) ---- */

/*
 * A first-level switch's membership in a job of the second-level switch:
 * @self is this switch as that job's member, @window the upper job's
 * (from its JOIN_ACK; at least this job's). The rest is the first level's
 * state towards the upper switch (lib/core/upstate.c), under the job's
 * serialisation (its lock, or its lcore).
 */
struct optinc_uplink {
	struct optinc_endpoint sw, self;
	__u16	job, rank, window;
	__u32	token;
	__u64	gen;		/* the members' nonces the JOIN upstream is for */
	__u64	arp_ms;		/* the last ARP request for sw.ip; 0: none yet */
	__u32	nonce;		/* JOIN nonce upstream; 0: not joined */
	__u8	complete;	/* every member of the upper job joined */
	__u8	resolved;	/* sw.mac is known, from an ARP reply */
	__u8	refused;	/* a NACK or too small a window: reported */
};

/* Cascade truth tables (version 2; onn.md section 4, scale.md 3.4). */
#define OPTINC_TABLE_VERSION_CASCADE	2
#define OPTINC_CASCADE_DIGITS		5	/* B/2 + 1 for B = 8, N1 <= 4 */
#define OPTINC_CASCADE_MAX_MEMBERS	21	/* lane sums 3 N <= 63 */

void optinc_cascade_table_fill_exact(__u8 *out, __u16 members, __u16 fanin);
void optinc_cascade_finish_table(__u32 *acc, __u32 n,
				 const struct optinc_table *t, __u8 *dst);

/*
 * The five base-4 digits of a first-level partial sum S_j < 1024, digit k
 * in the 6-bit lane k: the second level's unit P is one 32-bit addition.
 */
static inline __u32 optinc_cascade_spread(__u32 v)
{
	return (v & 0x3) | (v & 0xc) << 4 | (v & 0x30) << 8 |
	       (v & 0xc0) << 12 | (v & 0x300) << 16;
}

__u8 optinc_cascade_kind(const struct optinc_job *job, __u8 op, __u8 bits);
__u16 optinc_cascade_members(const struct optinc_job *job, __u8 kind);
int optinc_cascade_shape_ok(const struct optinc_job *job,
			    const struct optinc_msg *m, __u8 kind);
__u32 optinc_cascade_elem_bytes(__u8 kind);
__u32 optinc_build_up(void *frame, __u32 room, const struct optinc_job *job,
		      const struct optinc_slot *s);
int optinc_up_sent(struct optinc_job *job, struct optinc_slot *s);
__u32 optinc_up_lost(const struct optinc_job *job, const struct optinc_msg *m,
		     struct optinc_slot **lost, __u32 max);
void optinc_up_join(const struct optinc_uplink *up, __u32 nonce,
		    struct optinc_msg *m);
enum optinc_verdict optinc_job_rx_up(struct optinc_job *job,
				     const struct optinc_msg *m,
				     enum optinc_drop *why,
				     struct optinc_slot **slot);

/*
 * The four PAM4 symbols of an 8-bit value, symbol k in byte lane k: unit P
 * is then one 32-bit addition per value (lib/core/pam4.c). Inline, since
 * it runs once per element and contribution.
 */
static inline __u32 optinc_pam4_spread8(__u8 v)
{
	__u32 x = v;

	/* copies of v shifted by 0, 6, 12, 18 put symbol k at bit 8k */
	return (x | x << 6 | x << 12 | x << 18) & 0x03030303u;
}

static inline int optinc_seq_after(__u32 a, __u32 b)
{
	return (__s32)(a - b) > 0;
}

#endif /* OPTINC_CORE_H */
