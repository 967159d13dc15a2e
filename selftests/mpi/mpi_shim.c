// SPDX-License-Identifier: GPL-2.0
/*
 * A plain MPI program (no optinc in it) for the shim's loopback test
 * (shim.sh): all-reduces of the kinds the shim must take or leave, each
 * result checked against a reference every rank computes from all ranks'
 * inputs: exact for integers and for what MPI does, within a tolerance per
 * rank for quantized floats. Modes (-m):
 *   blocking  float SUM, int SUM, float SUM in place, int SUM on a dup
 *             (the shim takes them), double SUM and float MAX (left to MPI
 *             by default: exact), float SUM on a split communicator;
 *   minmax    int MAX and MIN (exact either way);
 *   nonblock  MPI_Iallreduce of float and int SUM completed by MPI_Wait,
 *             an MPI_Test loop, MPI_Waitall beside a ring of Isend/Irecv,
 *             MPI_Waitany, MPI_Waitsome, MPI_Request_get_status; a double
 *             SUM Iallreduce (MPI's) in the same Waitall;
 *   types     double SUM, MAX, MIN and float MAX, MIN, blocking and not
 *             (what OPTINC_MPI_TYPES=float,double,int takes; quantized).
 * Prints "check NAME: N wrong" per check and a PASS/FAIL line per rank.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

struct ms {
	int rank, size, count, it;
	double ftol;		/* quantized float tolerance per rank */
	long bad;
};

static double ms_val(int rank, int i, int it)
{
	return sin(0.001 * i + 0.7 * rank + 0.3 * it);
}

static int ms_int(int rank, int i, int it)
{
	return (i * 7 + rank * 1013 + it * 31) % 200003 - 100001;
}

static void *ms_alloc(size_t n)
{
	void *p = calloc(n, 1);

	if (!p) {
		fprintf(stderr, "mpi_shim: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return p;
}

enum ms_op { MS_SUM, MS_MAX, MS_MIN };

/* The reduction of every rank in @ranks (NULL: all) of element i. */
static double ms_ref(const struct ms *m, int i, enum ms_op op, int integer,
		     int nr, const int *ranks)
{
	double ref = 0, v;
	int r;

	for (r = 0; r < nr; r++) {
		v = integer ? ms_int(ranks ? ranks[r] : r, i, m->it) :
			      (float)ms_val(ranks ? ranks[r] : r, i, m->it);
		ref = !r ? v : op == MS_SUM ? ref + v :
		      op == MS_MAX ? fmax(ref, v) : fmin(ref, v);
	}
	return ref;
}

/* Count and report elements further than @tol (0: exact) from the reference. */
static void ms_check(struct ms *m, const char *name, const void *res,
		     MPI_Datatype dt, enum ms_op op, double tol, int nr,
		     const int *ranks)
{
	long bad = 0;
	double got, ref;
	int i, integer = dt == MPI_INT;

	for (i = 0; i < m->count; i++) {
		got = dt == MPI_FLOAT ? ((const float *)res)[i] :
		      dt == MPI_DOUBLE ? ((const double *)res)[i] :
		      ((const int *)res)[i];
		ref = ms_ref(m, i, op, integer, nr, ranks);
		if (dt == MPI_FLOAT && !tol)
			ref = (float)ref;
		bad += !(fabs(got - ref) <= tol);
	}
	if (m->it == 0 || bad)
		printf("check %s: %ld wrong\n", name, bad);
	m->bad += bad;
}

static void ms_expect(struct ms *m, const char *name, int ok)
{
	if (m->it == 0 || !ok)
		printf("check %s: %s\n", name, ok ? "0 wrong" : "1 wrong");
	m->bad += !ok;
}

static void ms_fill(const struct ms *m, void *buf, MPI_Datatype dt)
{
	int i;

	for (i = 0; i < m->count; i++) {
		if (dt == MPI_FLOAT)
			((float *)buf)[i] = ms_val(m->rank, i, m->it);
		else if (dt == MPI_DOUBLE)
			((double *)buf)[i] = (float)ms_val(m->rank, i, m->it);
		else
			((int *)buf)[i] = ms_int(m->rank, i, m->it);
	}
}

static void ms_blocking(struct ms *m)
{
	float *fi = ms_alloc(m->count * 4), *fo = ms_alloc(m->count * 4);
	int *ii = ms_alloc(m->count * 4), *io = ms_alloc(m->count * 4);
	double *di = ms_alloc(m->count * 8), *dout = ms_alloc(m->count * 8);
	double tol = m->ftol * m->size;
	int ranks[64], nh = 0, r;
	MPI_Comm dup, half;

	ms_fill(m, fi, MPI_FLOAT);
	ms_fill(m, ii, MPI_INT);
	ms_fill(m, di, MPI_DOUBLE);
	MPI_Allreduce(fi, fo, m->count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
	ms_check(m, "float SUM", fo, MPI_FLOAT, MS_SUM, tol, m->size, NULL);
	MPI_Allreduce(ii, io, m->count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	ms_check(m, "int SUM", io, MPI_INT, MS_SUM, 0, m->size, NULL);
	memcpy(fo, fi, m->count * 4);
	MPI_Allreduce(MPI_IN_PLACE, fo, m->count, MPI_FLOAT, MPI_SUM,
		      MPI_COMM_WORLD);
	ms_check(m, "float SUM in place", fo, MPI_FLOAT, MS_SUM, tol, m->size,
		 NULL);
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Allreduce(ii, io, m->count, MPI_INT, MPI_SUM, dup);
	ms_check(m, "int SUM on a dup", io, MPI_INT, MS_SUM, 0, m->size, NULL);
	MPI_Comm_free(&dup);
	/* left to MPI by default: exact */
	MPI_Allreduce(di, dout, m->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	ms_check(m, "double SUM (MPI's: within 1e-12)", dout, MPI_DOUBLE,
		 MS_SUM, 1e-12, m->size, NULL);
	MPI_Allreduce(fi, fo, m->count, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
	ms_check(m, "float MAX (MPI's: exact)", fo, MPI_FLOAT, MS_MAX, 0,
		 m->size, NULL);
	MPI_Comm_split(MPI_COMM_WORLD, m->rank % 2, m->rank, &half);
	for (r = m->rank % 2; r < m->size && nh < 64; r += 2)
		ranks[nh++] = r;
	MPI_Allreduce(fi, fo, m->count, MPI_FLOAT, MPI_SUM, half);
	ms_check(m, "float SUM on half the ranks (MPI's)", fo, MPI_FLOAT,
		 MS_SUM, 1e-5 * nh, nh, ranks);
	MPI_Comm_free(&half);
	free(fi);
	free(fo);
	free(ii);
	free(io);
	free(di);
	free(dout);
}

static void ms_minmax(struct ms *m)
{
	int *ii = ms_alloc(m->count * 4), *io = ms_alloc(m->count * 4);

	ms_fill(m, ii, MPI_INT);
	MPI_Allreduce(ii, io, m->count, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	ms_check(m, "int MAX", io, MPI_INT, MS_MAX, 0, m->size, NULL);
	MPI_Allreduce(ii, io, m->count, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	ms_check(m, "int MIN", io, MPI_INT, MS_MIN, 0, m->size, NULL);
	free(ii);
	free(io);
}

/* A ring exchange of @n ints posted beside the all-reduces. */
static void ms_ring_post(const struct ms *m, int *out, int *in, int n,
			 MPI_Request *rq)
{
	int i;

	for (i = 0; i < n; i++)
		out[i] = m->rank * 100000 + i + m->it;
	MPI_Irecv(in, n, MPI_INT, (m->rank + m->size - 1) % m->size, 7,
		  MPI_COMM_WORLD, &rq[0]);
	MPI_Isend(out, n, MPI_INT, (m->rank + 1) % m->size, 7, MPI_COMM_WORLD,
		  &rq[1]);
}

static void ms_ring_check(struct ms *m, const int *in, int n)
{
	int i, from = (m->rank + m->size - 1) % m->size;
	long bad = 0;

	for (i = 0; i < n; i++)
		bad += in[i] != from * 100000 + i + m->it;
	if (m->it == 0 || bad)
		printf("check Isend/Irecv ring beside them: %ld wrong\n", bad);
	m->bad += bad;
}

static void ms_nonblock(struct ms *m)
{
	float *f1 = ms_alloc(m->count * 4), *f2 = ms_alloc(m->count * 4);
	int *i1 = ms_alloc(m->count * 4), *i2 = ms_alloc(m->count * 4);
	double *d1 = ms_alloc(m->count * 8);
	int n = 100000, *ro = ms_alloc(n * 4), *ri = ms_alloc(n * 4);
	double tol = m->ftol * m->size;
	MPI_Request rq[5];
	MPI_Status st[5];
	int flag = 0, idx, out, idxs[2], done;

	ms_fill(m, f1, MPI_FLOAT);
	MPI_Iallreduce(MPI_IN_PLACE, f1, m->count, MPI_FLOAT, MPI_SUM,
		       MPI_COMM_WORLD, &rq[0]);
	MPI_Wait(&rq[0], &st[0]);
	ms_check(m, "Iallreduce float SUM + MPI_Wait", f1, MPI_FLOAT, MS_SUM,
		 tol, m->size, NULL);
	ms_expect(m, "MPI_Wait set the request to MPI_REQUEST_NULL",
		  rq[0] == MPI_REQUEST_NULL);

	ms_fill(m, i1, MPI_INT);
	MPI_Iallreduce(i1, i2, m->count, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
		       &rq[0]);
	while (!flag)
		MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE);
	ms_check(m, "Iallreduce int SUM + MPI_Test loop", i2, MPI_INT, MS_SUM,
		 0, m->size, NULL);

	/* the ring's receive needs MPI progress while the shim's wait runs */
	ms_fill(m, f1, MPI_FLOAT);
	ms_fill(m, d1, MPI_DOUBLE);
	MPI_Iallreduce(f1, f2, m->count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD,
		       &rq[0]);
	ms_ring_post(m, ro, ri, n, &rq[1]);
	MPI_Iallreduce(MPI_IN_PLACE, d1, m->count, MPI_DOUBLE, MPI_SUM,
		       MPI_COMM_WORLD, &rq[3]);
	MPI_Iallreduce(MPI_IN_PLACE, i1, m->count, MPI_INT, MPI_SUM,
		       MPI_COMM_WORLD, &rq[4]);
	rq[2] = MPI_REQUEST_NULL;
	MPI_Waitall(5, rq, st);
	ms_check(m, "Iallreduce float SUM in MPI_Waitall", f2, MPI_FLOAT,
		 MS_SUM, tol, m->size, NULL);
	ms_check(m, "Iallreduce double SUM in MPI_Waitall (MPI's)", d1,
		 MPI_DOUBLE, MS_SUM, 1e-12, m->size, NULL);
	ms_check(m, "Iallreduce int SUM in place in MPI_Waitall", i1, MPI_INT,
		 MS_SUM, 0, m->size, NULL);
	ms_ring_check(m, ri, n);

	ms_fill(m, f1, MPI_FLOAT);
	ms_fill(m, i1, MPI_INT);
	MPI_Iallreduce(f1, f2, m->count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD,
		       &rq[0]);
	MPI_Iallreduce(i1, i2, m->count, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
		       &rq[1]);
	MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE);
	for (done = 1; done < 2; done += out)
		MPI_Waitsome(2, rq, &out, idxs, MPI_STATUSES_IGNORE);
	ms_check(m, "MPI_Waitany + MPI_Waitsome: float SUM", f2, MPI_FLOAT,
		 MS_SUM, tol, m->size, NULL);
	ms_check(m, "MPI_Waitany + MPI_Waitsome: int SUM", i2, MPI_INT, MS_SUM,
		 0, m->size, NULL);
	ms_expect(m, "MPI_Waitany + MPI_Waitsome: both requests MPI_REQUEST_NULL",
		  rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL);

	MPI_Iallreduce(i1, i2, m->count, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
		       &rq[0]);
	for (flag = 0; !flag;)
		MPI_Request_get_status(rq[0], &flag, MPI_STATUS_IGNORE);
	MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
	ms_check(m, "MPI_Request_get_status loop, then MPI_Wait", i2, MPI_INT,
		 MS_SUM, 0, m->size, NULL);
	free(f1);
	free(f2);
	free(i1);
	free(i2);
	free(d1);
	free(ro);
	free(ri);
}

static void ms_types(struct ms *m)
{
	float *fi = ms_alloc(m->count * 4), *fo = ms_alloc(m->count * 4);
	double *di = ms_alloc(m->count * 8), *dout = ms_alloc(m->count * 8);
	double tol = m->ftol * m->size;
	MPI_Request rq;

	ms_fill(m, fi, MPI_FLOAT);
	ms_fill(m, di, MPI_DOUBLE);
	MPI_Allreduce(di, dout, m->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	ms_check(m, "double SUM", dout, MPI_DOUBLE, MS_SUM, tol, m->size, NULL);
	MPI_Allreduce(di, dout, m->count, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	ms_check(m, "double MAX", dout, MPI_DOUBLE, MS_MAX, m->ftol, m->size,
		 NULL);
	MPI_Allreduce(di, dout, m->count, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
	ms_check(m, "double MIN", dout, MPI_DOUBLE, MS_MIN, m->ftol, m->size,
		 NULL);
	MPI_Allreduce(fi, fo, m->count, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
	ms_check(m, "float MAX", fo, MPI_FLOAT, MS_MAX, m->ftol, m->size, NULL);
	MPI_Allreduce(fi, fo, m->count, MPI_FLOAT, MPI_MIN, MPI_COMM_WORLD);
	ms_check(m, "float MIN", fo, MPI_FLOAT, MS_MIN, m->ftol, m->size, NULL);
	MPI_Iallreduce(MPI_IN_PLACE, di, m->count, MPI_DOUBLE, MPI_SUM,
		       MPI_COMM_WORLD, &rq);
	MPI_Wait(&rq, MPI_STATUS_IGNORE);
	ms_check(m, "Iallreduce double SUM", di, MPI_DOUBLE, MS_SUM, tol,
		 m->size, NULL);
	free(fi);
	free(fo);
	free(di);
	free(dout);
}

int main(int argc, char **argv)
{
	struct ms m = { .count = 10000, .ftol = 1.0 / 64 };
	const char *mode = "blocking";
	int iters = 3, opt;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &m.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &m.size);
	while ((opt = getopt(argc, argv, "m:n:c:t:")) != -1) {
		switch (opt) {
		case 'm': mode = optarg; break;
		case 'n': iters = atoi(optarg); break;
		case 'c': m.count = atoi(optarg); break;
		case 't': m.ftol = atof(optarg); break;
		default: MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	for (m.it = 0; m.it < iters; m.it++) {
		if (!strcmp(mode, "blocking"))
			ms_blocking(&m);
		else if (!strcmp(mode, "minmax"))
			ms_minmax(&m);
		else if (!strcmp(mode, "nonblock"))
			ms_nonblock(&m);
		else if (!strcmp(mode, "types"))
			ms_types(&m);
		else
			MPI_Abort(MPI_COMM_WORLD, 2);
	}
	printf("rank %d of %d: mode %s, %d iterations of %d: %ld wrong: %s\n",
	       m.rank, m.size, mode, iters, m.count, m.bad,
	       m.bad ? "FAIL" : "PASS");
	MPI_Finalize();
	return m.bad ? 1 : 0;
}
