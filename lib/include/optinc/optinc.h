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
#define OPTINC_LIB_MINOR	3
#define OPTINC_LIB_PATCH	0
#define OPTINC_LIB_VERSION_CODE \
	(OPTINC_LIB_MAJOR * 10000 + OPTINC_LIB_MINOR * 100 + OPTINC_LIB_PATCH)

/* Result codes */
#define OPTINC_OK		0
#define OPTINC_ERR_INVALID	(-EINVAL)	/* bad argument or option */
#define OPTINC_ERR_NOMEM	(-ENOMEM)
#define OPTINC_ERR_TIMEOUT	(-ETIMEDOUT)	/* switch or a rank did not answer */
#define OPTINC_ERR_REFUSED	(-ECONNREFUSED)	/* switch refused the join */
#define OPTINC_ERR_RANGE	(-ERANGE)	/* non-finite (OPTINC_NONFINITE_ERROR) */
#define OPTINC_ERR_UNSUPPORTED	(-EOPNOTSUPP)	/* datatype/op/transport */
#define OPTINC_ERR_PROTO	(-EPROTO)	/* switch answered nonsense, or
						 * ranks met in different calls */
#define OPTINC_ERR_SYSTEM	(-EIO)		/* a system call failed */

/*
 * Datatypes and ops. An unknown value, or a combination that is not
 * served (AVG of INT32), is OPTINC_ERR_UNSUPPORTED.
 */
enum optinc_datatype {
	OPTINC_FLOAT32 = 1,
	OPTINC_INT32 = 2,
	OPTINC_FLOAT16 = 3,	/* IEEE 754 binary16 */
	OPTINC_BFLOAT16 = 4,	/* the high half of a float32 */
	OPTINC_FLOAT64 = 5,
};

enum optinc_reduce_op {
	OPTINC_SUM = 1,
	OPTINC_AVG = 2,		/* float types only */
	OPTINC_MAX = 3,
	OPTINC_MIN = 4,
};

/* What a non-finite input does (opts.nonfinite, OPTINC_NONFINITE) */
enum optinc_nonfinite {
	OPTINC_NONFINITE_NAN = 0,	/* its block is NaN on every rank (default) */
	OPTINC_NONFINITE_ERROR = 1,	/* every rank returns OPTINC_ERR_RANGE */
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
 * OPTINC_BIND, OPTINC_PEERS, OPTINC_RING_PORT, OPTINC_NONFINITE; rank
 * and size also from OMPI_COMM_WORLD_RANK/SIZE, PMI_RANK/SIZE,
 * SLURM_PROCID/NTASKS, torchrun's RANK/WORLD_SIZE: last, but first in a
 * torchrun worker, TORCHELASTIC_RUN_ID set) or defaults. Variables without
 * an option: OPTINC_FAILOVER_MS, OPTINC_FAILBACK_CALLS (failover to the
 * ring), OPTINC_XDP_QUEUE, OPTINC_AFXDP_PLUGIN (transport afxdp),
 * OPTINC_QUANT_ISA (the codec's path), OPTINC_LOG (error, warn, info,
 * debug or none: what the library prints on stderr; warn by default).
 * optinc_comm_create() reads them all and fails with OPTINC_ERR_INVALID
 * naming a bad one; see Documentation/library.md. @sz lets the struct
 * grow: set it to sizeof(struct optinc_opts).
 */
#ifdef __cplusplus
#define OPTINC_DEF(v)	= v
#else
#define OPTINC_DEF(v)
#endif
struct optinc_opts {
	size_t sz OPTINC_DEF(sizeof(struct optinc_opts));
	int rank OPTINC_DEF(-1);	/* -1: environment */
	int size OPTINC_DEF(-1);	/* -1: environment */
	const char *switch_addr OPTINC_DEF(NULL);	/* "ipv4[:port]", port 47000 default */
	unsigned int job OPTINC_DEF(0);	/* job id on the switch, 1..65535 (1) */
	uint32_t token OPTINC_DEF(0);		/* job's token (0) */
	unsigned int bits OPTINC_DEF(0);	/* 8 or 16 bits per value on the wire (8) */
	unsigned int timeout_ms OPTINC_DEF(0);	/* a call fails after this long (10000) */
	unsigned int retx_ms OPTINC_DEF(0);	/* first retransmission timeout (20) */
	unsigned int window OPTINC_DEF(0);	/* frames in flight, <= switch's slots (64) */
	unsigned int mtu OPTINC_DEF(0);	/* IP MTU of the path to the switch (9000) */
	unsigned int block OPTINC_DEF(0);	/* values per scale block (256) */
	int algo OPTINC_DEF(-1);	/* enum optinc_algo, -1: environment */
	const char *transport OPTINC_DEF(NULL);	/* "udp" (default) or "afxdp" (a plugin) */
	const char *bind_addr OPTINC_DEF(NULL);	/* local "ipv4[:port]" to send from, NULL: any */
	const char *peers OPTINC_DEF(NULL);	/* ring: "ip0,ip1,..." one per rank */
	unsigned int ring_port OPTINC_DEF(0);	/* ring: rank r listens on ring_port + r (47100) */
	/*
	 * 0.3 on. On LP64, 0.2's struct ended in 4 bytes of padding here, so
	 * an int in them would leave sizeof (and a 0.2 program's sz) as it
	 * was and the library would read a 0.2 program's padding as an
	 * option: new fields start after it, where opts.sz tells.
	 */
	unsigned int reserved0 OPTINC_DEF(0);	/* never read */
	int nonfinite OPTINC_DEF(-1);	/* enum optinc_nonfinite, -1: environment */
};

/*
 * OPTINC_OPTS(opts, .rank = 0, .bits = 16): the defaults above, then the
 * given fields. Use inside a function. In C, later designated
 * initialisers override earlier ones on purpose, hence the pragmas; C++
 * has no such override, so there the defaults are the members' default
 * initialisers (OPTINC_DEF) and the fields must follow the order of the
 * declaration, as C++20 requires of designators.
 */
#ifdef __cplusplus
#define OPTINC_OPTS(name, ...)	struct optinc_opts name = { __VA_ARGS__ }
#else
#define OPTINC_OPTS(name, ...)						\
	struct optinc_opts name = __extension__ ({			\
		_Pragma("GCC diagnostic push")				\
		_Pragma("GCC diagnostic ignored \"-Woverride-init\"")	\
		struct optinc_opts __optinc_o = {			\
			.sz = sizeof(struct optinc_opts),		\
			.rank = -1, .size = -1, .algo = -1,		\
			.nonfinite = -1, __VA_ARGS__ };			\
		_Pragma("GCC diagnostic pop")				\
		__optinc_o; })
#endif

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
	uint64_t tail_probes;	/* a phase's newest frame sent again after a
				 * quiet tail (counted in retransmits too) */
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
/*
 * Destroy a communicator: a call that is running finishes first (at most
 * timeout_ms), posted calls not started yet are dropped (none of their
 * frames was sent), and requests not yet waited for are freed: their
 * handles become invalid. No other thread may use @comm meanwhile.
 */
OPTINC_API void optinc_comm_destroy(struct optinc_comm *comm);
OPTINC_API int optinc_comm_rank(const struct optinc_comm *comm);
OPTINC_API int optinc_comm_size(const struct optinc_comm *comm);
/*
 * What exactly went wrong in the last failed call on @comm; with NULL, in
 * the calling thread's last failed optinc_comm_create(). Empty if nothing
 * failed. A call has failed when its post, optinc_wait(), optinc_test()
 * (done) or optinc_allreduce() returned an error; like errno, each thread
 * sees its own last failure on @comm, or if it had none there, the last
 * one any thread saw. Valid until the next call on @comm (or create in
 * this thread).
 */
OPTINC_API const char *optinc_comm_errmsg(const struct optinc_comm *comm);
/*
 * Fill @st (set st->sz = sizeof(*st) first) with the counters as of the
 * last completed call (a call in progress is not seen half-way).
 */
OPTINC_API int optinc_comm_get_stats(const struct optinc_comm *comm,
				     struct optinc_comm_stats *st);

/*
 * All-reduce @count elements of @datatype with @op over all ranks; every
 * rank must call it with the same count, datatype and op, in the same
 * order (a rank whose call differs, or that skips one, makes every rank's
 * call fail with OPTINC_ERR_PROTO: the switch and the ring check a tag of
 * every call). In place when sendbuf == recvbuf; other buffers must not
 * overlap. Floats go through the switch quantized to opts.bits with
 * per-block scales and come back in the caller's type (error bounds of
 * each type in Documentation/library.md); INT32 SUM is exact (wrapping),
 * MAX and MIN are exact for INT32 and exact on the quantized grid for
 * floats. All ranks get bit-identical results. count may be 0.
 * A NaN or +-Inf in any rank's input makes its block of opts.block
 * elements NaN on every rank, or with OPTINC_NONFINITE_ERROR every rank
 * returns OPTINC_ERR_RANGE; the communicator stays usable either way.
 * OPTINC_ERR_TIMEOUT when a result does not come within timeout_ms (a
 * rank is missing); after a failure that happened once frames were sent,
 * the communicator only returns that error: destroy it.
 * Same as optinc_iallreduce() followed by optinc_wait().
 */
OPTINC_API int optinc_allreduce(struct optinc_comm *comm, const void *sendbuf,
				void *recvbuf, size_t count, int datatype,
				int op);

struct optinc_request;

/*
 * Post an all-reduce and return at once; *req is its handle, to be given
 * to optinc_test() until it reports done, or to optinc_wait() once; either
 * frees it. The buffers must stay untouched until then. Calls on a
 * communicator run one after another in the order they were posted (the
 * same order on every rank), on the communicator's progress thread, while
 * the caller goes on; any number may be outstanding. The first post starts
 * that thread; it sleeps while nothing is queued (no CPU, no wake-ups).
 * Any thread may post and any thread may test or wait for a request; two
 * threads that post concurrently are ordered by whichever posts first, so
 * ranks must agree on that order (e.g. post from one thread at a time).
 * An argument error is returned here (and *req is NULL). A call that fails
 * after frames were sent fails every call queued behind it with its code.
 */
OPTINC_API int optinc_iallreduce(struct optinc_comm *comm,
				 const void *sendbuf, void *recvbuf,
				 size_t count, int datatype, int op,
				 struct optinc_request **req);
/*
 * Has *req completed? Never blocks. If not, *done = 0 and 0 is returned.
 * If so, *done = 1, the call's result code is returned, the request is
 * freed and *req set to NULL (optinc_comm_errmsg() then tells what
 * failed). A NULL req or *req is OPTINC_ERR_INVALID.
 */
OPTINC_API int optinc_test(struct optinc_request **req, int *done);
/* Wait for *req; returns its result code, frees it, sets *req to NULL. */
OPTINC_API int optinc_wait(struct optinc_request **req);
/*
 * Wait for @n requests; codes[i] (if @codes is not NULL) gets each one's
 * result (OPTINC_ERR_INVALID for a NULL entry); returns the first non-zero
 * of them, or 0, and optinc_comm_errmsg() tells that one. All are freed
 * and set to NULL.
 */
OPTINC_API int optinc_waitall(struct optinc_request **reqs, size_t n,
			      int *codes);

#ifdef __cplusplus
}
#endif

#endif /* OPTINC_OPTINC_H */
