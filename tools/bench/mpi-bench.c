// SPDX-License-Identifier: BSD-3-Clause
/*
 * optinc-mpi-bench: the optinc-bench table for MPI_Allreduce (float32 AVG as
 * SUM then a scale by 1/n, int32 SUM), so that Open MPI is measured on the
 * same sizes, inputs and formulas as liboptinc.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "refdata.h"

#define BENCH_SEED	0x6f7074696e63ull

struct mpib_cfg {
	size_t minb, maxb;
	unsigned int factor, iters, warmup;
	int isint, avg, check;
	double tlimit;
};

static int mpib_parse(int argc, char **argv, struct mpib_cfg *c)
{
	int o, err = 0;

	while ((o = getopt(argc, argv, "b:e:f:n:w:d:o:cT:")) != -1) {
		switch (o) {
		case 'b': err |= refdata_parse_size(optarg, &c->minb); break;
		case 'e': err |= refdata_parse_size(optarg, &c->maxb); break;
		case 'f': c->factor = atoi(optarg); break;
		case 'n': c->iters = atoi(optarg); break;
		case 'w': c->warmup = atoi(optarg); break;
		case 'd': c->isint = !strcmp(optarg, "int"); break;
		case 'o': c->avg = !strcmp(optarg, "avg"); break;
		case 'c': c->check = 1; break;
		case 'T': c->tlimit = atof(optarg); break;
		default: return -1;
		}
	}
	if (err || c->factor < 2 || !c->iters || c->maxb < c->minb ||
	    (c->isint && c->avg))
		return -1;
	return 0;
}

static void mpib_call(const struct mpib_cfg *c, const void *in, void *out,
		      size_t n, int size)
{
	float *y = out;
	float inv = 1.0f / size;
	size_t i;

	MPI_Allreduce(in, out, (int)n, c->isint ? MPI_INT32_T : MPI_FLOAT,
		      MPI_SUM, MPI_COMM_WORLD);
	if (c->avg)
		for (i = 0; i < n; i++)
			y[i] *= inv;
}

/* Rank 0 checks against the reference (bound of the 8-bit protocol). */
static void mpib_check(const struct mpib_cfg *c, const void *out, size_t n,
		       int size, double *max_abs, double *ratio, long *bad)
{
	struct refdata_err e = { 0 };
	size_t first;
	float *tmp = malloc(256 * sizeof(*tmp));

	if (c->isint) {
		*bad = refdata_check_int(out, n, size, BENCH_SEED, &first);
		*max_abs = *ratio = 0;
	} else if (!tmp || refdata_check_float(out, n, size, BENCH_SEED, c->avg,
					       8, 256, tmp, &e)) {
		*bad = -1;
	} else {
		*bad = e.bad;
		*max_abs = e.max_abs;
		*ratio = e.max_ratio;
	}
	free(tmp);
}

static void mpib_row(const struct mpib_cfg *c, const void *in, void *out,
		     size_t bytes, int rank, int size)
{
	size_t n = bytes / 4;
	double t0, t, tsum, algbw, max_abs = 0, ratio = 0;
	long bad = -1;
	unsigned int i;
	int stop;

	for (i = 0; i < c->warmup; i++)
		mpib_call(c, in, out, n, size);
	t = 0;
	stop = 0;
	for (i = 0; i < c->iters && !stop; i++) {
		t0 = MPI_Wtime();
		mpib_call(c, in, out, n, size);
		t += MPI_Wtime() - t0;
		if (c->tlimit > 0) {
			stop = t >= c->tlimit;
			MPI_Allreduce(MPI_IN_PLACE, &stop, 1, MPI_INT, MPI_LOR,
				      MPI_COMM_WORLD);
		}
	}
	t /= i;
	MPI_Allreduce(&t, &tsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	if (rank)
		return;
	if (c->check)
		mpib_check(c, out, n, size, &max_abs, &ratio, &bad);
	t = tsum / size;
	algbw = n * 4 / t / 1e9;
	printf("  %12zu %11zu %11.1f %9.4f %9.4f %12s %7s", n * 4, n, t * 1e6,
	       algbw, algbw * 2 * (size - 1) / size, "-", "-");
	if (bad < 0)
		printf(" %9s %9s %4s\n", "-", "-", "-");
	else
		printf(" %9.3g %9.3f %4s%s\n", max_abs, ratio, "-",
		       bad ? "  WRONG" : "");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct mpib_cfg c = { .minb = 4096, .maxb = 256u << 20, .factor = 2,
			      .iters = 20, .warmup = 2, .avg = 1 };
	int rank, size;
	void *in, *out;
	size_t b;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (mpib_parse(argc, argv, &c)) {
		if (!rank)
			fprintf(stderr,
				"usage: optinc-mpi-bench [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS]\n"
				"                        [-w WARMUP] [-d float|int] [-o avg|sum] [-c] [-T SECS]\n");
		MPI_Finalize();
		return 2;
	}
	in = malloc(c.maxb);
	out = malloc(c.maxb);
	if (!in || !out) {
		fprintf(stderr, "optinc-mpi-bench: no memory for 2 x %zu bytes\n", c.maxb);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (c.isint)
		refdata_fill_int(in, c.maxb / 4, BENCH_SEED, rank);
	else
		refdata_fill_float(in, c.maxb / 4, BENCH_SEED, rank);
	if (!rank)
		printf("# optinc-mpi-bench: %d ranks, MPI_Allreduce, %s %s, iters %u, warmup %u%s\n",
		       size, c.isint ? "int32" : "float32", c.avg ? "avg" : "sum",
		       c.iters, c.warmup, c.check ? ", checked" : "");
	for (b = c.minb; b <= c.maxb; b *= c.factor)
		mpib_row(&c, in, out, b, rank, size);
	free(in);
	free(out);
	MPI_Finalize();
	return 0;
}
