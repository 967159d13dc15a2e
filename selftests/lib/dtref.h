/* SPDX-License-Identifier: GPL-2.0 */
/* Test data and references for every datatype and op (dtref.c). */
#ifndef OPTINC_SELFTEST_DTREF_H
#define OPTINC_SELFTEST_DTREF_H

#include <stddef.h>
#include <optinc/optinc.h>

/* One call's shape, as the reference needs it. */
struct dt_call {
	int dt, op, bits, ring;
	size_t count;
	unsigned int block;
};

size_t dt_size(int dt);
double dt_get(int dt, const void *p, size_t i);
void dt_put(int dt, void *p, size_t i, double v);
double dt_gen(int dt, int rank, size_t i);
double dt_ref(const struct dt_call *c, double *const *in, int n, size_t i,
	      double *bound);
double dt_worst(const struct dt_call *c, double *const *in, int n,
		const void *y);
const char *dt_name(int dt);
const char *dt_op_name(int op);

#endif /* OPTINC_SELFTEST_DTREF_H */
