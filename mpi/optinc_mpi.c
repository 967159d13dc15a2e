// SPDX-License-Identifier: BSD-3-Clause
/*
 * liboptinc_mpi: a PMPI shim that sends MPI_Allreduce (and, in requests.c,
 * MPI_Iallreduce) through an OptINC switch. Preloaded into an unmodified
 * MPI program (LD_PRELOAD) or linked before the MPI library, it takes the
 * calls whose datatype and op OPTINC_MPI_TYPES lists (by default MPI_FLOAT
 * SUM, quantized, and MPI_INT / MPI_INT32_T SUM, MAX and MIN, exact) on
 * MPI_COMM_WORLD or a communicator congruent to it (OPTINC_MPI_COMMS), in
 * place or not; every other call goes to MPI. The optinc communicator is
 * made in MPI_Init (rank and size from MPI, the switch and job from
 * OPTINC_SWITCH, OPTINC_JOB, ...) and destroyed in MPI_Finalize. Without
 * OPTINC_SWITCH, with OPTINC_MPI=0, or when any rank cannot join, every
 * rank leaves all calls to MPI. See Documentation/scale.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>	/* MPIX_C_FLOAT16 where Open MPI has it (shortfloat) */
#endif

_Static_assert(sizeof(int) == 4, "MPI_INT is taken for int32");
_Static_assert(sizeof(double) == 8, "MPI_DOUBLE is taken for float64");
/* agreed on with the pairs: all ranks' liboptinc have optinc_iallreduce() */
#define SHIM_NB		(1u << 31)
_Static_assert(SHIM_TYPES * SHIM_OPS <= 31, "pairs and SHIM_NB fit an unsigned int");

struct shim_state shim;

static const struct shim_type_info {
	const char *name;	/* in OPTINC_MPI_TYPES */
	int optinc;
	int have;		/* this MPI has the datatype */
} shim_types[SHIM_TYPES] = {
	[SHIM_FLOAT] = { "float", OPTINC_FLOAT32, 1 },
	[SHIM_DOUBLE] = { "double", OPTINC_FLOAT64, 1 },
#ifdef MPIX_C_FLOAT16
	[SHIM_FLOAT16] = { "float16", OPTINC_FLOAT16, 1 },
#else
	[SHIM_FLOAT16] = { "float16", OPTINC_FLOAT16, 0 },
#endif
#ifdef MPIX_BFLOAT16
	[SHIM_BFLOAT16] = { "bfloat16", OPTINC_BFLOAT16, 1 },
#else
	[SHIM_BFLOAT16] = { "bfloat16", OPTINC_BFLOAT16, 0 },
#endif
	[SHIM_INT] = { "int", OPTINC_INT32, 1 },
};

static const struct shim_op_info {
	const char *name;
	int optinc;
} shim_ops[SHIM_OPS] = {
	[SHIM_SUM] = { "sum", OPTINC_SUM },
	[SHIM_MAX] = { "max", OPTINC_MAX },
	[SHIM_MIN] = { "min", OPTINC_MIN },
};

/* Safe for any program: float32 SUM (quantized: the shim's purpose) and int32 exact. */
#define SHIM_DEFAULT_PAIRS						\
	(SHIM_PAIR(SHIM_FLOAT, SHIM_SUM) | SHIM_PAIR(SHIM_INT, SHIM_SUM) |	\
	 SHIM_PAIR(SHIM_INT, SHIM_MAX) | SHIM_PAIR(SHIM_INT, SHIM_MIN))

static int shim_type_of(MPI_Datatype dt)
{
	if (dt == MPI_FLOAT)
		return SHIM_FLOAT;
	if (dt == MPI_DOUBLE)
		return SHIM_DOUBLE;
	if (dt == MPI_INT || dt == MPI_INT32_T)
		return SHIM_INT;
#ifdef MPIX_C_FLOAT16
	if (dt == MPIX_C_FLOAT16)
		return SHIM_FLOAT16;
#endif
#ifdef MPIX_BFLOAT16
	if (dt == MPIX_BFLOAT16)
		return SHIM_BFLOAT16;
#endif
	return -1;
}

static int shim_op_of(MPI_Op op)
{
	return op == MPI_SUM ? SHIM_SUM : op == MPI_MAX ? SHIM_MAX :
	       op == MPI_MIN ? SHIM_MIN : -1;
}

static int shim_env_flag(const char *name, int def)
{
	const char *s = getenv(name);

	return s && *s ? strcmp(s, "0") != 0 : def;
}

static int shim_lookup(const char *s, size_t len, const char *name)
{
	return strlen(name) == len && !strncmp(s, name, len);
}

/* One OPTINC_MPI_TYPES item: "default", "TYPE" (sum, max, min) or "TYPE:OP". */
static int shim_parse_item(const char *s, size_t len, unsigned int *pairs)
{
	const char *colon = memchr(s, ':', len);
	size_t tl = colon ? (size_t)(colon - s) : len;
	unsigned int add = 0;
	int t, o;

	if (shim_lookup(s, len, "default")) {
		*pairs |= SHIM_DEFAULT_PAIRS;
		return 0;
	}
	for (t = 0; t < SHIM_TYPES; t++)
		if (shim_lookup(s, tl, shim_types[t].name))
			break;
	if (t == SHIM_TYPES)
		return -1;
	for (o = 0; o < SHIM_OPS; o++)
		if (!colon || shim_lookup(colon + 1, len - tl - 1,
					  shim_ops[o].name))
			add |= SHIM_PAIR(t, o);
	*pairs |= add;
	return add ? 0 : -1;
}

/* The pairs OPTINC_MPI_TYPES asks for; -1 (reported) when it is not valid. */
static int shim_parse_types(unsigned int *pairs)
{
	const char *s = getenv("OPTINC_MPI_TYPES"), *p, *end;
	size_t len;

	*pairs = 0;
	if (!s || !*s) {
		*pairs = SHIM_DEFAULT_PAIRS;
		return 0;
	}
	for (p = s; *p; p = *end ? end + 1 : end) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		len = end - p;
		if (len && !shim_parse_item(p, len, pairs))
			continue;
		fprintf(stderr, "optinc_mpi: rank %d: OPTINC_MPI_TYPES=%s: \"%.*s\" is not default, TYPE or TYPE:OP (types float, double, float16, bfloat16, int; ops sum, max, min)\n",
			shim.rank, s, (int)len, p);
		return -1;
	}
	return 0;
}

/*
 * Drop pairs this MPI has no datatype for, or liboptinc does not serve: a
 * call of 0 elements sends nothing but checks datatype and op (in place on
 * a real buffer, should a library refuse NULL even then).
 */
static unsigned int shim_probe(unsigned int pairs)
{
	static double probe_buf[2];
	int t, o, err;

	for (t = 0; t < SHIM_TYPES; t++) {
		for (o = 0; o < SHIM_OPS; o++) {
			if (!(pairs & SHIM_PAIR(t, o)))
				continue;
			err = !shim_types[t].have ? 1 :
			      optinc_allreduce(shim.comm, probe_buf, probe_buf, 0,
					       shim_types[t].optinc,
					       shim_ops[o].optinc);
			if (!err)
				continue;
			pairs &= ~SHIM_PAIR(t, o);
			if (shim.rank == 0)
				fprintf(stderr, "optinc_mpi: %s:%s left to MPI: %s\n",
					shim_types[t].name, shim_ops[o].name,
					!shim_types[t].have ?
					"this MPI has no such datatype" :
					optinc_comm_errmsg(shim.comm));
		}
	}
	return pairs;
}

/* Join the switch on this rank; 0 or an optinc result code (reported). */
static int shim_join(int rank, int size)
{
	OPTINC_OPTS(opts, .rank = rank, .size = size);
	int err;

	err = optinc_comm_create(&opts, &shim.comm);
	if (err)
		fprintf(stderr, "optinc_mpi: rank %d: cannot join the switch: %s: %s\n",
			rank, optinc_strerror(err), optinc_comm_errmsg(NULL));
	return err;
}

/* OPTINC_MPI_COMMS: "congruent" (default), or "world" (MPI_THREAD_MULTIPLE's default). */
static int shim_parse_comms(int thread_level)
{
	const char *s = getenv("OPTINC_MPI_COMMS");

	if (!s || !*s)
		return thread_level == MPI_THREAD_MULTIPLE;
	if (!strcmp(s, "world") || !strcmp(s, "congruent"))
		return !strcmp(s, "world");
	fprintf(stderr, "optinc_mpi: rank %d: OPTINC_MPI_COMMS=%s: must be world or congruent\n",
		shim.rank, s);
	return -1;
}

static void shim_say_setup(int want, int all)
{
	int t, o;

	if (shim.rank != 0 || !(shim.verbose || (want && !all)))
		return;
	if (!all) {
		fprintf(stderr, "optinc_mpi: MPI_Allreduce left to MPI (%s)\n",
			!want ? "no OPTINC_SWITCH, or OPTINC_MPI=0" :
			"a rank could not join the switch or has other settings");
		return;
	}
	fprintf(stderr, "optinc_mpi: through the optinc switch on %s:",
		shim.world_only ? "MPI_COMM_WORLD" : "MPI_COMM_WORLD and congruent communicators");
	for (t = 0; t < SHIM_TYPES; t++)
		for (o = 0; o < SHIM_OPS; o++)
			if (shim.pairs & SHIM_PAIR(t, o))
				fprintf(stderr, " %s:%s", shim_types[t].name,
					shim_ops[o].name);
	fprintf(stderr, "; MPI_Iallreduce %s\n", shim.nonblocking ?
		"too" : "left to MPI (liboptinc has no optinc_iallreduce)");
}

/*
 * After MPI is up: join where asked; all ranks agree on the outcome and on
 * the pairs, so that every rank sends a call through the switch or none.
 */
static void shim_setup(int thread_level)
{
	unsigned int pairs = 0, common = 0;
	int size, want, ok, all = 0;

	shim.verbose = shim_env_flag("OPTINC_MPI_VERBOSE", 0);
	PMPI_Comm_rank(MPI_COMM_WORLD, &shim.rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &size);
	want = shim_env_flag("OPTINC_MPI", 1) && getenv("OPTINC_SWITCH");
	shim.world_only = shim_parse_comms(thread_level);
	ok = want && shim.world_only >= 0 && !shim_parse_types(&pairs) &&
	     !shim_requests_init() && !shim_join(shim.rank, size);
	if (ok)
		pairs = shim_probe(pairs) | (shim.nonblocking ? SHIM_NB : 0);
	PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	PMPI_Allreduce(&pairs, &common, 1, MPI_UNSIGNED, MPI_BAND,
		       MPI_COMM_WORLD);
	if (all && common != pairs)
		fprintf(stderr, "optinc_mpi: rank %d: other ranks take fewer calls (OPTINC_MPI_TYPES or liboptinc differ): only what all take goes through the switch\n",
			shim.rank);
	shim.nonblocking = !!(common & SHIM_NB);
	shim.pairs = common & ~SHIM_NB;
	if (!all && shim.comm) {
		optinc_comm_destroy(shim.comm);
		shim.comm = NULL;
	}
	if (shim.comm) {
		shim.join.sz = sizeof(shim.join);
		optinc_comm_get_stats(shim.comm, &shim.join);
	}
	shim_say_setup(want, all);
}

int MPI_Init(int *argc, char ***argv)
{
	int ret = PMPI_Init(argc, argv), level = MPI_THREAD_SINGLE;

	if (ret == MPI_SUCCESS) {
		PMPI_Query_thread(&level);
		shim_setup(level);
	}
	return ret;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int ret = PMPI_Init_thread(argc, argv, required, provided);

	if (ret == MPI_SUCCESS)
		shim_setup(*provided);
	return ret;
}

static void shim_report(void)
{
	struct optinc_comm_stats st = { .sz = sizeof(st) };

	if (optinc_comm_get_stats(shim.comm, &st))
		return;
	fprintf(stderr, "optinc_mpi: rank %d: calls %lu optinc %lu mpi; join frames %llu bytes %llu; "
		"frames sent %llu retransmits %llu bytes sent %llu; icalls %lu optinc %lu mpi\n",
		shim.rank, shim.calls_optinc, shim.calls_mpi,
		(unsigned long long)shim.join.frames_sent,
		(unsigned long long)shim.join.bytes_sent,
		(unsigned long long)(st.frames_sent - shim.join.frames_sent),
		(unsigned long long)(st.retransmits - shim.join.retransmits),
		(unsigned long long)(st.bytes_sent - shim.join.bytes_sent),
		shim.icalls_optinc, shim.icalls_mpi);
}

int MPI_Finalize(void)
{
	if (shim.comm) {
		shim_requests_drain();
		if (shim.verbose)
			shim_report();
		optinc_comm_destroy(shim.comm);
		shim.comm = NULL;
	}
	return PMPI_Finalize();
}

static int shim_comm_ok(MPI_Comm comm)
{
	int res;

	if (comm == MPI_COMM_WORLD)
		return 1;
	if (shim.world_only || comm == MPI_COMM_NULL ||
	    PMPI_Comm_compare(comm, MPI_COMM_WORLD, &res) != MPI_SUCCESS)
		return 0;
	return res == MPI_IDENT || res == MPI_CONGRUENT;
}

/**
 * shim_route() - does a call go through the switch?
 * Return: 1 with optinc's datatype and op in *odt, *oop; 0: MPI does it.
 */
int shim_route(MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int count,
	       int *odt, int *oop)
{
	int t = shim_type_of(dt), o = shim_op_of(op);

	if (!shim.comm || t < 0 || o < 0 || count < 0 ||
	    !(shim.pairs & SHIM_PAIR(t, o)) || !shim_comm_ok(comm))
		return 0;
	*odt = shim_types[t].optinc;
	*oop = shim_ops[o].optinc;
	return 1;
}

void shim_failed(const char *call, int count, int err)
{
	fprintf(stderr, "optinc_mpi: rank %d: %s of %d through the switch: %s: %s\n",
		shim.rank, call, count, optinc_strerror(err),
		optinc_comm_errmsg(shim.comm));
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
		  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	const void *src = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
	int odt, oop, err;

	if (!shim_route(datatype, op, comm, count, &odt, &oop)) {
		__atomic_add_fetch(&shim.calls_mpi, 1, __ATOMIC_RELAXED);
		return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
	}
	err = optinc_allreduce(shim.comm, src, recvbuf, (size_t)count, odt,
			       oop);
	__atomic_add_fetch(&shim.calls_optinc, 1, __ATOMIC_RELAXED);
	if (!err)
		return MPI_SUCCESS;
	shim_failed("MPI_Allreduce", count, err);
	PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
	return MPI_ERR_OTHER;
}
