/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause) */
/*
 * liboptinc: all-reduce through an OptINC switch (in-network averaging).
 *
 * Every call returns OPTINC_OK (0) or a negative result code; result codes
 * are negated errno values, optinc_strerror() names them and
 * optinc_comm_errmsg() tells what exactly went wrong on a communicator.
 */
#ifndef OPTINC_OPTINC_H
#define OPTINC_OPTINC_H

#include <stddef.h>
#include <stdint.h>
#include <errno.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef OPTINC_API
#define OPTINC_API __attribute__((visibility("default")))
#endif

#define OPTINC_LIB_MAJOR	0
#define OPTINC_LIB_MINOR	2
#define OPTINC_LIB_PATCH	0
#define OPTINC_LIB_VERSION_CODE \
	(OPTINC_LIB_MAJOR * 10000 + OPTINC_LIB_MINOR * 100 + OPTINC_LIB_PATCH)

/* Result codes */
#define OPTINC_OK		0
#define OPTINC_ERR_INVALID	(-EINVAL)	/* bad argument or option */
#define OPTINC_ERR_NOMEM	(-ENOMEM)
#define OPTINC_ERR_TIMEOUT	(-ETIMEDOUT)	/* switch or a rank did not answer */
#define OPTINC_ERR_REFUSED	(-ECONNREFUSED)	/* switch refused the join */
#define OPTINC_ERR_RANGE	(-ERANGE)	/* input not finite */
#define OPTINC_ERR_UNSUPPORTED	(-EOPNOTSUPP)	/* datatype/op/transport */
#define OPTINC_ERR_PROTO	(-EPROTO)	/* switch answered nonsense */
#define OPTINC_ERR_SYSTEM	(-EIO)		/* a system call failed */

enum optinc_datatype {
	OPTINC_FLOAT32 = 1,
	OPTINC_INT32 = 2,
};

enum optinc_reduce_op {
	OPTINC_SUM = 1,
	OPTINC_AVG = 2,		/* float32 only */
};

enum optinc_algo {
	OPTINC_ALGO_OPTINC = 0,	/* through the switch (default) */
	OPTINC_ALGO_RING = 1,	/* ring all-reduce over TCP between ranks */
};

/**
 * struct optinc_opts - how to create a communicator
 * Fill with OPTINC_OPTS(); zero / -1 / NULL fields are taken from the
 * environment (OPTINC_RANK, OPTINC_SIZE, OPTINC_SWITCH, OPTINC_JOB,
 * OPTINC_TOKEN, OPTINC_BITS, OPTINC_TIMEOUT_MS, OPTINC_RETX_MS,
 * OPTINC_WINDOW, OPTINC_MTU, OPTINC_BLOCK, OPTINC_ALGO, OPTINC_TRANSPORT,
 * OPTINC_BIND, OPTINC_PEERS, OPTINC_RING_PORT; rank and size also from OMPI_COMM_WORLD_RANK/SIZE,
 * PMI_RANK/SIZE, SLURM_PROCID/NTASKS) or defaults; see
 * Documentation/library.md. @sz lets the struct grow: set it to
 * sizeof(struct optinc_opts).
 */
struct optinc_opts {
	size_t sz;
	int rank;		/* -1: environment */
	int size;		/* -1: environment */
	const char *switch_addr;	/* "ipv4[:port]", port 47000 default */
	unsigned int job;	/* job id on the switch, 1..65535 (1) */
	uint32_t token;		/* job's token (0) */
	unsigned int bits;	/* 8 or 16 bits per value on the wire (8) */
	unsigned int timeout_ms;	/* a call fails after this long (10000) */
	unsigned int retx_ms;	/* first retransmission timeout (20) */
	unsigned int window;	/* frames in flight, <= switch's slots (64) */
	unsigned int mtu;	/* IP MTU of the path to the switch (9000) */
	unsigned int block;	/* values per scale block (256) */
	int algo;		/* enum optinc_algo, -1: environment */
	const char *transport;	/* "udp" (default) or "afxdp" */
	const char *bind_addr;	/* local "ipv4[:port]" to send from, NULL: any */
	const char *peers;	/* ring: "ip0,ip1,..." one per rank */
	unsigned int ring_port;	/* ring: rank r listens on ring_port + r (47100) */
};

/*
 * OPTINC_OPTS(opts, .rank = 0, .bits = 16): the defaults above, then the
 * given fields; later designated initialisers override earlier ones on
 * purpose, hence the pragmas. Use inside a function.
 */
#define OPTINC_OPTS(name, ...)						\
	struct optinc_opts name = __extension__ ({			\
		_Pragma("GCC diagnostic push")				\
		_Pragma("GCC diagnostic ignored \"-Woverride-init\"")	\
		struct optinc_opts __optinc_o = {			\
			.sz = sizeof(struct optinc_opts),		\
			.rank = -1, .size = -1, .algo = -1,		\
			__VA_ARGS__ };					\
		_Pragma("GCC diagnostic pop")				\
		__optinc_o; })

struct optinc_comm;

/**
 * struct optinc_comm_stats - what a communicator sent and received
 */
struct optinc_comm_stats {
	size_t sz;
	uint64_t calls;
	uint64_t frames_sent;
	uint64_t frames_rcvd;
	uint64_t bytes_sent;	/* UDP payload bytes */
	uint64_t bytes_rcvd;
	uint64_t retransmits;
	uint64_t dup_results;	/* results received twice or late, ignored */
	uint64_t frames_ignored;	/* other frames not meant for a call */
	uint64_t probes;	/* JOINs sent (and counted in frames_sent) to
				 * ask a silent switch whether it is there */
};

/* OPTINC_LIB_VERSION_CODE of the library actually loaded */
OPTINC_API unsigned int optinc_version(void);
/* A constant text naming a result code. */
OPTINC_API const char *optinc_strerror(int err);

/*
 * Create a communicator: registers with the switch and returns once all
 * @size members have joined (a barrier), or fails after timeout_ms:
 * OPTINC_ERR_INVALID (an option or variable, named in the message),
 * OPTINC_ERR_REFUSED (the switch refused: no such job, rank too large,
 * size differs), OPTINC_ERR_TIMEOUT (no answer, or not every rank joined).
 * On failure *comm is NULL and optinc_comm_errmsg(NULL) tells why.
 */
OPTINC_API int optinc_comm_create(const struct optinc_opts *opts,
				  struct optinc_comm **comm);
OPTINC_API void optinc_comm_destroy(struct optinc_comm *comm);
OPTINC_API int optinc_comm_rank(const struct optinc_comm *comm);
OPTINC_API int optinc_comm_size(const struct optinc_comm *comm);
/*
 * What exactly went wrong in the last failed call on @comm; with NULL, in
 * the calling thread's last failed optinc_comm_create(). Empty if nothing
 * failed. Valid until the next call on @comm (or create in this thread).
 */
OPTINC_API const char *optinc_comm_errmsg(const struct optinc_comm *comm);
/* Fill @st (set st->sz = sizeof(*st) first) with the counters so far. */
OPTINC_API int optinc_comm_get_stats(const struct optinc_comm *comm,
				     struct optinc_comm_stats *st);

/*
 * All-reduce @count elements of @datatype with @op over all ranks; every
 * rank must call it with the same count, datatype and op, in the same
 * order. In place when sendbuf == recvbuf; other buffers must not overlap.
 * float32 goes through the switch quantized to opts.bits with per-block
 * scales (error bounds in Documentation/library.md); int32 SUM is exact
 * (wrapping); int32 AVG is OPTINC_ERR_UNSUPPORTED. All ranks get
 * bit-identical results. count may be 0 (returns at once). A non-finite
 * float gives OPTINC_ERR_RANGE before anything is sent (the other ranks
 * then time out). OPTINC_ERR_TIMEOUT when a result does not come within
 * timeout_ms (a rank is missing); after a failure that happened once
 * frames were sent, the communicator only returns that error: destroy it.
 * A communicator is used by one thread at a time.
 */
OPTINC_API int optinc_allreduce(struct optinc_comm *comm, const void *sendbuf,
				void *recvbuf, size_t count, int datatype,
				int op);

#ifdef __cplusplus
}
#endif

#endif /* OPTINC_OPTINC_H */
