/* SPDX-License-Identifier: GPL-2.0 */
/* Non-blocking tests' calls: a schedule of mixed shapes, checks, polling in order. */
#ifndef OPTINC_SELFTEST_NBCALLS_H
#define OPTINC_SELFTEST_NBCALLS_H

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
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
	int left = 0, bad = 0, i, newer, done;

	for (i = 0; i < k; i++)
		left += r[i] != NULL;	/* NULL: done before */
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

#define MAX_REQS	64

struct nb_bufs {
	void *in[MAX_REQS], *out[MAX_REQS];
	struct nb_call k[MAX_REQS];
	struct optinc_request *req[MAX_REQS];
	int code[MAX_REQS];
};

static inline void nb_bufs_free(struct nb_bufs *b)
{
	int j;

	for (j = 0; j < MAX_REQS; j++) {
		free(b->in[j]);
		free(b->out[j]);
	}
}

static inline int nb_bufs_alloc(struct nb_bufs *b, int k, size_t big, int rank)
{
	int j;

	memset(b, 0, sizeof(*b));
	for (j = 0; j < k; j++) {
		nb_shape(j, big, &b->k[j]);
		b->in[j] = malloc(b->k[j].count * 4);
		b->out[j] = malloc(b->k[j].count * 4);
		if (!b->in[j] || !b->out[j])
			return -ENOMEM;
		nb_fill(&b->k[j], b->in[j], rank);
		memset(b->out[j], 0xff, b->k[j].count * 4);
	}
	return 0;
}

static inline int nb_post(struct optinc_comm *c, struct nb_bufs *b, int j)
{
	return optinc_iallreduce(c, b->in[j], b->out[j], b->k[j].count,
				 b->k[j].dt, b->k[j].op, &b->req[j]);
}

struct nb_turn {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	int next;		/* the call whose turn it is to be posted */
	struct optinc_comm *c;
	struct nb_bufs *b;
	int k, err;
};

/* Thread @side posts calls j = side, side + 2, ... in turn, waits for them. */
static inline void nb_turn_posts(struct nb_turn *t, int side)
{
	int j, err;

	for (j = side; j < t->k; j += 2) {
		pthread_mutex_lock(&t->lock);
		while (t->next != j)
			pthread_cond_wait(&t->cv, &t->lock);
		err = nb_post(t->c, t->b, j);
		t->err = t->err ?: err;
		t->next++;
		pthread_cond_broadcast(&t->cv);
		pthread_mutex_unlock(&t->lock);
	}
	for (j = side; j < t->k; j += 2) {
		err = optinc_wait(&t->b->req[j]);
		pthread_mutex_lock(&t->lock);
		t->err = t->err ?: err;
		pthread_mutex_unlock(&t->lock);
	}
}

static inline void *nb_turn_thread(void *arg)
{
	nb_turn_posts(arg, 1);
	return NULL;
}

static inline int nb_two_threads(struct optinc_comm *c, struct nb_bufs *b,
				 int k)
{
	struct nb_turn t = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.cv = PTHREAD_COND_INITIALIZER, .c = c, .b = b, .k = k,
	};
	pthread_t thr;

	if (pthread_create(&thr, NULL, nb_turn_thread, &t))
		return -EAGAIN;
	nb_turn_posts(&t, 0);
	pthread_join(thr, NULL);
	return t.err;
}

#endif /* OPTINC_SELFTEST_NBCALLS_H */
