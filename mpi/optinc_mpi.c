// SPDX-License-Identifier: BSD-3-Clause
/*
 * liboptinc_mpi: a PMPI shim that sends MPI_Allreduce through an OptINC
 * switch. Preloaded into an unmodified MPI program (LD_PRELOAD) or linked
 * before the MPI library, it intercepts MPI_Allreduce with MPI_SUM of
 * MPI_FLOAT (quantized, see Documentation/library.md) or MPI_INT /
 * MPI_INT32_T (exact) on MPI_COMM_WORLD or a communicator congruent to
 * it, in place or not; every other call goes to PMPI_Allreduce. The
 * optinc communicator is made in MPI_Init (rank and size from MPI, the
 * switch and job from OPTINC_SWITCH, OPTINC_JOB, ...) and destroyed in
 * MPI_Finalize. Without OPTINC_SWITCH, with OPTINC_MPI=0, or when any
 * rank cannot join, every rank leaves all calls to MPI.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <optinc/optinc.h>

struct shim_state {
	struct optinc_comm *comm;	/* NULL: everything goes to MPI */
	pthread_mutex_t lock;		/* one thread at a time on comm */
	struct optinc_comm_stats join;	/* what the join sent */
	unsigned long calls_optinc, calls_mpi;
	int rank, verbose;
};

_Static_assert(sizeof(int) == 4, "MPI_INT is taken for int32");

static struct shim_state shim = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int shim_env_flag(const char *name, int def)
{
	const char *s = getenv(name);

	return s && *s ? strcmp(s, "0") != 0 : def;
}

/* Join the switch on this rank; 0 or an optinc result code (reported). */
static int shim_join(int rank, int size)
{
	OPTINC_OPTS(opts, .rank = rank, .size = size);
	int err;

	err = optinc_comm_create(&opts, &shim.comm);
	if (err) {
		fprintf(stderr, "optinc_mpi: rank %d: cannot join the switch: %s: %s\n",
			rank, optinc_strerror(err), optinc_comm_errmsg(NULL));
		return err;
	}
	shim.join.sz = sizeof(shim.join);
	optinc_comm_get_stats(shim.comm, &shim.join);
	return 0;
}

/*
 * After MPI is up: join where asked; all ranks agree on the outcome, so
 * that either every rank or none sends through the switch.
 */
static void shim_setup(void)
{
	int size, want, ok, all = 0;

	shim.verbose = shim_env_flag("OPTINC_MPI_VERBOSE", 0);
	PMPI_Comm_rank(MPI_COMM_WORLD, &shim.rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &size);
	want = shim_env_flag("OPTINC_MPI", 1) && getenv("OPTINC_SWITCH");
	ok = want && !shim_join(shim.rank, size);
	PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!all && shim.comm) {
		optinc_comm_destroy(shim.comm);
		shim.comm = NULL;
	}
	if (shim.rank == 0 && (shim.verbose || (want && !all)))
		fprintf(stderr, "optinc_mpi: MPI_Allreduce %s\n", all ?
			"through the optinc switch" : !want ?
			"left to MPI (no OPTINC_SWITCH, or OPTINC_MPI=0)" :
			"left to MPI (a rank could not join the switch)");
}

int MPI_Init(int *argc, char ***argv)
{
	int ret = PMPI_Init(argc, argv);

	if (ret == MPI_SUCCESS)
		shim_setup();
	return ret;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int ret = PMPI_Init_thread(argc, argv, required, provided);

	if (ret == MPI_SUCCESS)
		shim_setup();
	return ret;
}

static void shim_report(void)
{
	struct optinc_comm_stats st = { .sz = sizeof(st) };

	if (optinc_comm_get_stats(shim.comm, &st))
		return;
	fprintf(stderr, "optinc_mpi: rank %d: calls %lu optinc %lu mpi; join frames %llu bytes %llu; "
		"frames sent %llu retransmits %llu bytes sent %llu\n",
		shim.rank, shim.calls_optinc, shim.calls_mpi,
		(unsigned long long)shim.join.frames_sent,
		(unsigned long long)shim.join.bytes_sent,
		(unsigned long long)(st.frames_sent - shim.join.frames_sent),
		(unsigned long long)(st.retransmits - shim.join.retransmits),
		(unsigned long long)(st.bytes_sent - shim.join.bytes_sent));
}

int MPI_Finalize(void)
{
	if (shim.comm) {
		if (shim.verbose)
			shim_report();
		optinc_comm_destroy(shim.comm);
		shim.comm = NULL;
	}
	return PMPI_Finalize();
}

/* The optinc datatype of a call, or 0 when MPI must do it. */
static int shim_dtype(MPI_Datatype dt, MPI_Op op)
{
	if (op != MPI_SUM)
		return 0;
	if (dt == MPI_FLOAT)
		return OPTINC_FLOAT32;
	if (dt == MPI_INT || dt == MPI_INT32_T)
		return OPTINC_INT32;
	return 0;
}

static int shim_world(MPI_Comm comm)
{
	int res;

	if (comm == MPI_COMM_WORLD)
		return 1;
	if (comm == MPI_COMM_NULL ||
	    PMPI_Comm_compare(comm, MPI_COMM_WORLD, &res) != MPI_SUCCESS)
		return 0;
	return res == MPI_IDENT || res == MPI_CONGRUENT;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
		  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	int dt = shim.comm ? shim_dtype(datatype, op) : 0;
	const void *src = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
	int err;

	if (!dt || count < 0 || !shim_world(comm)) {
		__atomic_add_fetch(&shim.calls_mpi, 1, __ATOMIC_RELAXED);
		return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
	}
	pthread_mutex_lock(&shim.lock);
	err = optinc_allreduce(shim.comm, src, recvbuf, (size_t)count, dt,
			       OPTINC_SUM);
	shim.calls_optinc++;
	if (err)
		fprintf(stderr, "optinc_mpi: rank %d: MPI_Allreduce of %d through the switch: %s: %s\n",
			shim.rank, count, optinc_strerror(err),
			optinc_comm_errmsg(shim.comm));
	pthread_mutex_unlock(&shim.lock);
	if (!err)
		return MPI_SUCCESS;
	PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
	return MPI_ERR_OTHER;
}
