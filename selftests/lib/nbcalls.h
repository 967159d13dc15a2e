/* SPDX-License-Identifier: GPL-2.0 */
/* Non-blocking tests' calls: a schedule of mixed shapes, checks, polling in order. */
#ifndef OPTINC_SELFTEST_NBCALLS_H
#define OPTINC_SELFTEST_NBCALLS_H

#include <stdlib.h>
#include <unistd.h>
#include <optinc/optinc.h>
#include "refdata.h"

struct nb_call {
	int dt, op;
	size_t count;
	uint64_t seed;
};

/* Call j: float32 AVG, int32 SUM, float32 SUM in turn; sizes mixed. */
static inline void nb_shape(unsigned int j, size_t big, struct nb_call *k)
{
	static const size_t counts[] = { 1, 1000, 4099, 25000, 70001, 256,
					 9000, 131072 };

	k->dt = j % 3 == 1 ? OPTINC_INT32 : OPTINC_FLOAT32;
	k->op = j % 3 == 0 ? OPTINC_AVG : OPTINC_SUM;
	k->count = j % 16 == 5 ? big : counts[(j * 5) % 8];
	k->seed = 1000 + j;
}

static inline void nb_fill(const struct nb_call *k, void *in, int rank)
{
	if (k->dt == OPTINC_INT32)
		refdata_fill_int(in, k->count, k->seed, rank);
	else
		refdata_fill_float(in, k->count, k->seed, rank);
}

/* Elements off the reference (int32: wrong; float32: over the bound). */
static inline size_t nb_check(const struct nb_call *k, const void *res,
			      int size)
{
	struct refdata_err e;
	size_t first;
	float tmp[256];

	if (k->dt == OPTINC_INT32)
		return refdata_check_int(res, k->count, size, k->seed, &first);
	if (refdata_check_float(res, k->count, size, k->seed,
				k->op == OPTINC_AVG, 8, 256, tmp, &e))
		return k->count;
	return e.bad;
}

/*
 * Test every request, newest first, until all are done. Requests complete
 * in posting order, so the done ones are always a prefix: one found not
 * done after a newer one was found done is out of order. Return: how many
 * times that was seen (0 when in order); codes[i] gets each result.
 */
static inline int nb_poll(struct optinc_request **r, int *codes, int k)
{
	int left = k, bad = 0, i, newer, done;

	while (left) {
		newer = 0;
		for (i = k - 1; i >= 0; i--) {
			if (!r[i]) {
				newer = 1;
				continue;
			}
			codes[i] = optinc_test(&r[i], &done);
			if (done) {
				newer = 1;
				left--;
			} else if (newer) {
				bad++;
			}
		}
		if (left)
			usleep(100);
	}
	return bad;
}

#endif /* OPTINC_SELFTEST_NBCALLS_H */
