/* SPDX-License-Identifier: GPL-2.0 */
/* Non-blocking tests' calls: a schedule of every datatype and op, checks, polling in order. */
#ifndef OPTINC_SELFTEST_NBCALLS_H
#define OPTINC_SELFTEST_NBCALLS_H

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <optinc/optinc.h>
#include "dtref.h"
#include "refdata.h"

struct nb_call {
	int dt, op;
	size_t count;
	size_t off;		/* of the call's inputs in dt_gen()'s sequence */
};

/* Datatype and op of call j: every datatype, every op. */
static const struct { int dt, op; } nb_kinds[8] = {
	{ OPTINC_FLOAT32, OPTINC_AVG }, { OPTINC_INT32, OPTINC_SUM },
	{ OPTINC_FLOAT32, OPTINC_SUM }, { OPTINC_FLOAT16, OPTINC_AVG },
	{ OPTINC_BFLOAT16, OPTINC_SUM }, { OPTINC_FLOAT64, OPTINC_AVG },
	{ OPTINC_FLOAT32, OPTINC_MAX }, { OPTINC_INT32, OPTINC_MIN },
};

/* Call j: its kind in turn, sizes mixed (every kind meets every size). */
static inline void nb_shape(unsigned int j, size_t big, struct nb_call *k)
{
	static const size_t counts[] = { 1, 1000, 4099, 25000, 70001, 256,
					 9000, 131072 };

	k->dt = nb_kinds[j % 8].dt;
	k->op = nb_kinds[j % 8].op;
	k->count = j % 16 == 5 ? big : counts[(j * 3 + j / 8) % 8];
	k->off = (size_t)j * 7919;
}

static inline size_t nb_bytes(const struct nb_call *k)
{
	return k->count * dt_size(k->dt);
}

static inline void nb_fill(const struct nb_call *k, void *in, int rank)
{
	size_t i;

	for (i = 0; i < k->count; i++)
		dt_put(k->dt, in, i, dt_gen(k->dt, rank, i + k->off));
}

/*
 * Is @res within the reference's bounds (dtref.c) for @size ranks, through
 * the switch or (@ring) the ring? Return: 0, or 1 when it is not.
 */
static inline int nb_check(const struct nb_call *k, const void *res,
			   int size, int ring)
{
	struct dt_call c = { .dt = k->dt, .op = k->op, .bits = 8,
			     .ring = ring, .count = k->count, .block = 256 };
	double *in[64] = { 0 }, worst = INFINITY;
	unsigned char one[8];
	size_t i;
	int r;

	for (r = 0; r < size && r < 64; r++) {
		in[r] = malloc(k->count * sizeof(double));
		for (i = 0; in[r] && i < k->count; i++) {
			dt_put(k->dt, one, 0, dt_gen(k->dt, r, i + k->off));
			in[r][i] = dt_get(k->dt, one, 0);
		}
		if (!in[r])
			break;
	}
	if (r == size)
		worst = dt_worst(&c, in, size, res);
	while (r-- > 0)
		free(in[r]);
	return !(worst <= 1.0);
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
		b->in[j] = malloc(nb_bytes(&b->k[j]));
		b->out[j] = malloc(nb_bytes(&b->k[j]));
		if (!b->in[j] || !b->out[j])
			return -ENOMEM;
		nb_fill(&b->k[j], b->in[j], rank);
		memset(b->out[j], 0xff, nb_bytes(&b->k[j]));
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
