/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/*
 * OptINC wire protocol: the one definition of the frames exchanged between
 * ranks and a switch. Included by the library, optincd, optinc.ko and the
 * BPF programs; Documentation/protocol.md is its prose twin.
 *
 * Frames are Ethernet / IPv4 / UDP / struct optinc_hdr / payload. All
 * multi-byte fields are in network byte order.
 */
#ifndef OPTINC_WIRE_H
#define OPTINC_WIRE_H

#include <linux/types.h>

#define OPTINC_MAGIC		0x4f49	/* "OI" */
#define OPTINC_VERSION		1
#define OPTINC_UDP_PORT		47000	/* default UDP port of a switch */

/* enum optinc_type: what a frame is */
#define OPTINC_T_DATA		1	/* rank -> switch: a contribution */
#define OPTINC_T_RESULT		2	/* switch -> ranks: the reduced chunk */
#define OPTINC_T_JOIN		3	/* rank -> switch: register as a member */
#define OPTINC_T_JOIN_ACK	4	/* switch -> rank: registered, job shape */
#define OPTINC_T_NACK		5	/* switch -> rank: JOIN refused, aux = reason */
#define OPTINC_T_MAX		5

/*
 * enum optinc_op: what a DATA frame asks for. Element encodings:
 *  AVG  bits 8/16, offset binary; result: offset-binary average of the
 *       signed values, rounded half to even (exact mode) or the truth
 *       table's output (onn mode); per-block scales must agree.
 *  SUM  bits 8/16, offset binary; result: 32-bit two's complement sum of
 *       the signed values (exact; the result frame has bits = 32).
 *  ISUM bits 32, two's complement; result: wrapping 32-bit sum.
 *  MAX  bits 8, 16 or 32, two's complement; result: the maximum, same
 *       bits (agrees on per-block exponents before the data of a float
 *       allreduce; and MAX/MIN themselves: MIN(x) = ~MAX(~x)).
 *  CAVG cascade, first-level switch -> second-level switch: bits 16 (for
 *       B = 8) or 32 (B = 16), each element the exact sum S_j of the
 *       switch's N1 members' offset-binary AVG values (offset N1 2^(B-1),
 *       i.e. N1 Q_j + R_j: the rounded average and its fraction), with the
 *       members' scales; the header's @size is N1. Result: bits B, the
 *       offset-binary average over all members below, rounded half to
 *       even, as one switch averaging all of them would give.
 */
#define OPTINC_OP_AVG		1
#define OPTINC_OP_SUM		2
#define OPTINC_OP_ISUM		3
#define OPTINC_OP_MAX		4
#define OPTINC_OP_CAVG		5
#define OPTINC_OP_NR		6

/* flags */
#define OPTINC_F_SHADOW		0x01	/* which of the slot's two copies */
/*
 * RESULT (and a first-level switch's upstream DATA): contributions with
 * different call tags or shapes met in this slot, so its elements are no
 * reduction of one call; a rank fails its call (ranks out of step).
 */
#define OPTINC_F_MIXED		0x02
#define OPTINC_F_ALL		(OPTINC_F_SHADOW | OPTINC_F_MIXED)

/* NACK reasons (aux of a NACK frame) */
#define OPTINC_NACK_NO_JOB	1	/* no such job on this switch */
#define OPTINC_NACK_BAD_RANK	2	/* rank >= job size */
#define OPTINC_NACK_BAD_SHAPE	3	/* bits/op not served by the job */

/*
 * Retransmission hint of a RESULT frame, for the member it is sent to, in
 * fields that version 1 left 0 and every receiver ignores (so no version
 * change: an old rank ignores the hint, a new rank sees that an old switch
 * sent none). O is the oldest seq in (seq - window, seq) whose slot still
 * waits for a contribution, or seq + 1 if there is none:
 *   aux       OPTINC_HINT_ON | ((seq - O) & OPTINC_HINT_DIST); the distance
 *             is 1 .. window - 1, or OPTINC_HINT_DIST for O = seq + 1;
 *   size:rsvd held bitmap (size the high half): bit k set when slot O + k
 *             waits and holds this member's contribution.
 * A member's frame X < seq, sent before seq, without its result: if held,
 * another member's contribution is missing; else X or its result was lost
 * (retransmit now). A frame X > seq that is held is at the switch.
 */
#define OPTINC_HINT_ON		0x8000
#define OPTINC_HINT_DIST	0x7fff	/* seq - O, 15 bits; window <= 4096 */
#define OPTINC_HINT_SPAN	32	/* seqs O .. O + 31 in the bitmap */

#define OPTINC_RANK_SWITCH	0xffff	/* rank field of frames from a switch */
#define OPTINC_MAX_MEMBERS	64	/* member bitmap is one 64-bit word */
#define OPTINC_MAX_SCALES	64	/* per-block scales in one frame */

/**
 * struct optinc_hdr - the OptINC header, after the UDP header
 * @magic:   OPTINC_MAGIC
 * @version: OPTINC_VERSION
 * @type:    OPTINC_T_*
 * @job:     job (communicator) id, configured on the switch
 * @rank:    sender's rank; OPTINC_RANK_SWITCH from a switch
 * @token:   per-job secret; a frame with another token is not a member's
 * @seq:     chunk sequence number, counts up per job (serial arithmetic);
 *           JOIN: the sender's random nonce, new for every process
 * @slot:    aggregation slot, seq % window; JOIN_ACK: the window
 * @flags:   OPTINC_F_*; the shadow bit is (seq / window) & 1
 * @op:      OPTINC_OP_*
 * @count:   elements in the payload; JOIN_ACK: most elements per frame
 * @bits:    bits per element: 8, 16 or 32
 * @nscale:  per-block scales before the elements (AVG/SUM only)
 * @block:   elements per scale block (the last block may be shorter)
 * @aux:     JOIN_ACK: members joined so far; NACK: reason;
 *           RESULT: retransmission hint (OPTINC_HINT_ON | distance)
 * @size:    JOIN_ACK: job size (members); RESULT: held bitmap, high half;
 *           CAVG DATA: fan-in N1; otherwise 0
 * @rsvd:    RESULT: held bitmap, low half; DATA: call tag, the same in
 *           every contribution to one slot (0 from a version-1 rank; a
 *           switch compares tags like the shape); otherwise 0
 *
 * Payload: @nscale signed 8-bit exponents, padded with zeros to a multiple
 * of 4 bytes, then @count elements of @bits each. A block's values are
 * q * 2^(e - (bits - 1)) with q the signed value and e its exponent.
 */
struct optinc_hdr {
	__be16	magic;
	__u8	version;
	__u8	type;
	__be16	job;
	__be16	rank;
	__be32	token;
	__be32	seq;
	__be16	slot;
	__u8	flags;
	__u8	op;
	__be16	count;
	__u8	bits;
	__u8	nscale;
	__be16	block;
	__be16	aux;
	__be16	size;
	__be16	rsvd;
} __attribute__((packed));

#define OPTINC_HDR_LEN		32
#define OPTINC_SCALES_LEN(n)	(((n) + 3u) & ~3u)

/* Ethernet + IPv4 (no options) + UDP + OptINC header, as built by switches */
#define OPTINC_L2L4_LEN		(14 + 20 + 8)
#define OPTINC_FRAME_OVERHEAD	(OPTINC_L2L4_LEN + OPTINC_HDR_LEN)

#endif /* OPTINC_WIRE_H */
