/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause) */
/*
 * Ring all-reduce over TCP between the ranks: the baseline OptINC is
 * measured against, and the fallback when no switch is there. Internal to
 * liboptinc (not exported); optinc_allreduce() calls it for algo = ring.
 */
#ifndef OPTINC_LIB_RING_H
#define OPTINC_LIB_RING_H

#include <stddef.h>
#include <stdint.h>

struct optinc_ring;

/* What a ring sent and received over its lifetime (TCP payload bytes). */
struct optinc_ring_stats {
	uint64_t calls;
	uint64_t bytes_sent;
	uint64_t bytes_rcvd;
	uint64_t longest_wait_ms;	/* a call's longest time without
					 * progress, over all calls */
};

/**
 * optinc_ring_open() - connect the ranks into a ring
 * @ring: set to the new ring on success
 * @rank: this rank, 0..size-1
 * @size: number of ranks, 1..OPTINC_RING_MAX_RANKS
 * @peers: comma-separated IPv4 addresses, one per rank (OPTINC_PEERS)
 * @port_base: rank r listens on TCP port port_base + r
 * @timeout_ms: how long to wait for the neighbours, and later for any
 *	progress in an all-reduce, before failing with OPTINC_ERR_TIMEOUT
 * @err: receives a message naming the peer and what failed
 *
 * Rank r listens, connects to its right neighbour (r + 1) % size and
 * accepts its left neighbour (r - 1) % size; it returns once both
 * connections stand. With size 1 there are no sockets.
 *
 * Return: 0 or a negative OPTINC_ERR_* code.
 */
int optinc_ring_open(struct optinc_ring **ring, int rank, int size,
		     const char *peers, unsigned int port_base,
		     unsigned int timeout_ms, char *err, size_t errlen);

struct in_addr;
int optinc_ring_peers(const char *peers, const char *from, int size,
		      struct in_addr *addr, char *err, size_t errlen);

/**
 * optinc_ring_allreduce() - reduce-scatter then all-gather around the ring
 * @send: @count elements of @datatype; may equal @recv (in place)
 * @recv: receives the result, bit-identical on all ranks
 * @datatype: OPTINC_FLOAT32 (op SUM or AVG) or OPTINC_INT32 (op SUM, wraps)
 *
 * Every rank must call it with the same count, datatype and op. Each rank
 * sends and receives 2 (size - 1) / size x count elements; every element's
 * final value is computed by one rank (AVG: its sum divided by size) and
 * passed on unchanged.
 *
 * Return: 0 or a negative OPTINC_ERR_* code; after an error the ring is
 * broken and only optinc_ring_close() may be called.
 */
int optinc_ring_allreduce(struct optinc_ring *ring, const void *send,
			  void *recv, size_t count, int datatype, int op,
			  char *err, size_t errlen);

void optinc_ring_get_stats(const struct optinc_ring *ring,
			   struct optinc_ring_stats *st);

void optinc_ring_close(struct optinc_ring *ring);

#define OPTINC_RING_MAX_RANKS	1024

#endif /* OPTINC_LIB_RING_H */
