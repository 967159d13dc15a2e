/* SPDX-License-Identifier: BSD-3-Clause */
/* liboptinc_mpi's state, shared by the blocking (optinc_mpi.c) and the
 * non-blocking (requests.c) side of the shim. */
#ifndef OPTINC_MPI_SHIM_H
#define OPTINC_MPI_SHIM_H

#include <mpi.h>
#include <optinc/optinc.h>

/* Datatypes and ops the switch may take; OPTINC_MPI_TYPES picks pairs. */
enum shim_type {
	SHIM_FLOAT, SHIM_DOUBLE, SHIM_FLOAT16, SHIM_BFLOAT16, SHIM_INT,
	SHIM_TYPES
};
enum shim_op { SHIM_SUM, SHIM_MAX, SHIM_MIN, SHIM_OPS };
#define SHIM_PAIR(t, o)	(1u << ((t) * SHIM_OPS + (o)))

struct shim_state {
	struct optinc_comm *comm;	/* NULL: everything goes to MPI */
	unsigned int pairs;		/* SHIM_PAIR()s through the switch */
	int world_only;			/* not communicators congruent to it */
	int nonblocking;		/* liboptinc has optinc_iallreduce() */
	struct optinc_comm_stats join;	/* what the join (and probes) sent */
	unsigned long calls_optinc, calls_mpi;
	unsigned long icalls_optinc, icalls_mpi;	/* MPI_Iallreduce */
	int rank, verbose;
};

extern struct shim_state shim;

/* optinc_mpi.c */
int shim_route(MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int count,
	       int *odt, int *oop);
void shim_failed(const char *call, int count, int err);

/* requests.c */
int shim_requests_init(void);
void shim_requests_drain(void);

#endif /* OPTINC_MPI_SHIM_H */
