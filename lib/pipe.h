/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause) */
/*
 * A phase of an all-reduce: frames of one op sent through the switch with
 * a window of outstanding frames and retransmission (pipe.c); what goes
 * into a frame and what is done with its result is up to the phase.
 */
#ifndef OPTINC_LIB_PIPE_H
#define OPTINC_LIB_PIPE_H

#include "internal.h"

/**
 * struct optinc_phase - the frames of one op
 * @op:        OPTINC_OP_*
 * @bits:      bits per element sent
 * @rbits:     bits per element of the results
 * @block:     elements per scale; 0 when frames carry no scales
 * @count:     elements in all frames
 * @per_frame: elements per frame (a multiple of @block; the last holds fewer)
 * @nframes:   frames in the phase
 * @fill:      write frame @i's @n elements (and scales) to send
 * @take:      use frame @i's result @m (shape already checked)
 * @tag:       the call's tag, in every frame (wire.h: rsvd of DATA)
 * @src, @dst, @ctx: what @fill and @take work on
 */
struct optinc_phase {
	__u8 op, bits, rbits;
	__u16 block;
	__u32 count, per_frame, nframes;
	void (*fill)(const struct optinc_phase *p, __u32 i, __u32 n,
		     __s8 *scales, __u8 *elems);
	void (*take)(const struct optinc_phase *p, __u32 i, __u32 n,
		     const struct optinc_msg *m);
	__u16 tag;
	const void *src;
	void *dst;
	const void *ctx;
};

int optinc_pipe_run(struct optinc_comm *c, const struct optinc_phase *p);
__u32 optinc_frame_elems(const struct optinc_comm *c, unsigned int bytes,
			 unsigned int block);

#endif /* OPTINC_LIB_PIPE_H */
