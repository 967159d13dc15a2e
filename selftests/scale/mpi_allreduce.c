// SPDX-License-Identifier: GPL-2.0
/*
 * A plain MPI program, knowing nothing of optinc: MPI_Allreduce in a loop,
 * each result checked (int32 exactly, float within a tolerance) against a
 * reference every rank computes from all ranks' inputs. Mode "world": the
 * float and int SUMs the optinc shim takes (separate buffers, MPI_IN_PLACE,
 * a duplicate of MPI_COMM_WORLD); mode "other": calls the shim must leave to
 * MPI by default (double SUM, float MAX, float SUM on half the ranks; int
 * MAX is exact, so the shim takes it from liboptinc 0.3 on).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

struct mar_cfg {
	int iters, count, other;
	double ftol;		/* float tolerance per rank in the sum */
};

static float mar_float(int rank, int i, int it)
{
	return (float)sin(0.001 * i + 0.7 * rank + 0.3 * it);
}

static int mar_int(int rank, int i, int it)
{
	return (i * 7 + rank * 1013 + it * 31) % 200003 - 100001;
}

static double mar_busy;	/* seconds inside MPI_Allreduce */

static void mar_allreduce(const void *in, void *out, int n, MPI_Datatype dt,
			  MPI_Op op, MPI_Comm comm)
{
	double t0 = MPI_Wtime();

	MPI_Allreduce(in, out, n, dt, op, comm);
	mar_busy += MPI_Wtime() - t0;
}

static long mar_check_int(const int *res, int n, const int *ranks, int nr,
			  int it, int max)
{
	long bad = 0, ref;
	int i, r, v;

	for (i = 0; i < n; i++) {
		ref = max ? -2147483647L - 1 : 0;
		for (r = 0; r < nr; r++) {
			v = mar_int(ranks[r], i, it);
			ref = max ? (v > ref ? v : ref) : ref + v;
		}
		bad += res[i] != ref;
	}
	return bad;
}

/* Elements further than tol from the double-precision sum; *maxerr grows. */
static long mar_check_float(const float *res, int n, const int *ranks, int nr,
			    int it, double tol, double *maxerr)
{
	long bad = 0;
	double ref, d;
	int i, r;

	for (i = 0; i < n; i++) {
		ref = 0;
		for (r = 0; r < nr; r++)
			ref += mar_float(ranks[r], i, it);
		d = fabs(res[i] - ref);
		if (d > *maxerr)
			*maxerr = d;
		bad += !(d <= tol);
	}
	return bad;
}

static long mar_check_double(const double *res, int n, int size, int it)
{
	long bad = 0;
	double ref;
	int i, r;

	for (i = 0; i < n; i++) {
		ref = 0;
		for (r = 0; r < size; r++)
			ref += (double)mar_float(r, i, it);
		bad += fabs(res[i] - ref) > 1e-9;
	}
	return bad;
}

/* Elements that differ from the maximum over all ranks (MPI's: exact). */
static long mar_check_fmax(const float *res, int n, int size, int it)
{
	long bad = 0;
	float ref, v;
	int i, r;

	for (i = 0; i < n; i++) {
		ref = mar_float(0, i, it);
		for (r = 1; r < size; r++) {
			v = mar_float(r, i, it);
			ref = v > ref ? v : ref;
		}
		bad += res[i] != ref;
	}
	return bad;
}

static void mar_nomem(void)
{
	fprintf(stderr, "mpi_allreduce: out of memory\n");
	MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The sums the shim takes over. */
static long mar_world(const struct mar_cfg *c, int rank, int size,
		      const int *all, int it, double *maxerr)
{
	int n = c->count, i;
	float *fin = malloc(n * sizeof(*fin)), *fout = malloc(n * sizeof(*fout));
	int *iin = malloc(n * sizeof(*iin)), *iout = malloc(n * sizeof(*iout));
	double tol = c->ftol * size;
	MPI_Comm dup;
	long bad;

	if (!fin || !fout || !iin || !iout)
		mar_nomem();
	for (i = 0; i < n; i++) {
		fin[i] = mar_float(rank, i, it);
		iin[i] = mar_int(rank, i, it);
	}
	mar_allreduce(fin, fout, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
	bad = mar_check_float(fout, n, all, size, it, tol, maxerr);
	mar_allreduce(iin, iout, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	bad += mar_check_int(iout, n, all, size, it, 0);
	memcpy(fout, fin, n * sizeof(*fin));
	mar_allreduce(MPI_IN_PLACE, fout, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
	bad += mar_check_float(fout, n, all, size, it, tol, maxerr);
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	memcpy(iout, iin, n * sizeof(*iin));
	mar_allreduce(MPI_IN_PLACE, iout, n, MPI_INT, MPI_SUM, dup);
	bad += mar_check_int(iout, n, all, size, it, 0);
	MPI_Comm_free(&dup);
	free(fin);
	free(fout);
	free(iin);
	free(iout);
	return bad;
}

/* Calls the shim must hand to MPI: other types, ops and communicators. */
static long mar_other(const struct mar_cfg *c, int rank, int size, int it,
		      double *maxerr)
{
	int n = c->count, i, nh, ranks[64];
	double *din = malloc(n * sizeof(*din)), *dout = malloc(n * sizeof(*dout));
	float *fin = malloc(n * sizeof(*fin)), *fout = malloc(n * sizeof(*fout));
	MPI_Comm sub;
	long bad;

	if (!din || !dout || !fin || !fout)
		mar_nomem();
	for (i = 0; i < n; i++) {
		din[i] = mar_float(rank, i, it);
		fin[i] = mar_float(rank, i, it);
	}
	mar_allreduce(din, dout, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	bad = mar_check_double(dout, n, size, it);
	mar_allreduce(fin, fout, n, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
	bad += mar_check_fmax(fout, n, size, it);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &sub);
	for (nh = 0, i = rank % 2; i < size && nh < 64; i += 2)
		ranks[nh++] = i;
	mar_allreduce(fin, fout, n, MPI_FLOAT, MPI_SUM, sub);
	bad += mar_check_float(fout, n, ranks, nh, it, 1e-4 * nh, maxerr);
	MPI_Comm_free(&sub);
	free(din);
	free(dout);
	free(fin);
	free(fout);
	return bad;
}

int main(int argc, char **argv)
{
	struct mar_cfg c = { .iters = 10, .count = 100000, .ftol = 1.0 / 64 };
	int rank, size, it, opt, all[64];
	double maxerr = 0;
	long bad = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while ((opt = getopt(argc, argv, "n:c:m:t:")) != -1) {
		switch (opt) {
		case 'n': c.iters = atoi(optarg); break;
		case 'c': c.count = atoi(optarg); break;
		case 'm': c.other = !strcmp(optarg, "other"); break;
		case 't': c.ftol = atof(optarg); break;
		default:
			if (!rank)
				fprintf(stderr, "usage: mpi_allreduce [-n ITERS] [-c COUNT] [-m world|other] [-t FLOAT_TOL_PER_RANK]\n");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	if (size > 64 || c.count < 1)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (it = 0; it < size; it++)
		all[it] = it;
	for (it = 0; it < c.iters; it++)
		bad += c.other ? mar_other(&c, rank, size, it, &maxerr) :
				 mar_world(&c, rank, size, all, it, &maxerr);
	printf("rank %d of %d: %d iterations of %d elements (%s), %.3f s in MPI_Allreduce, "
	       "%ld wrong, max float error %.3g: %s\n",
	       rank, size, c.iters, c.count, c.other ? "other" : "world",
	       mar_busy, bad, maxerr, bad ? "FAIL" : "PASS");
	MPI_Finalize();
	return bad ? 1 : 0;
}
