// SPDX-License-Identifier: GPL-2.0
/*
 * A test stand-in for liboptinc's non-blocking calls, preloaded before the
 * shim by shim.sh: optinc_iallreduce() queues the call for one worker
 * thread that runs each with optinc_allreduce() in the order posted, after
 * a pause, so that the shim's MPI_Wait/MPI_Test paths find requests still
 * running. It tests the shim's request handling whether or not liboptinc
 * has the real calls; it is no model of them (one thread, all comms).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include <optinc/optinc.h>

#define STUB_PAUSE_NS	3000000	/* before each call: requests stay pending */

struct optinc_request {
	struct optinc_comm *comm;
	const void *sendbuf;
	void *recvbuf;
	size_t count;
	int datatype, op;
	int err, done;
	struct optinc_request *next;
};

static pthread_mutex_t stub_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stub_cond = PTHREAD_COND_INITIALIZER;
static struct optinc_request *stub_head, **stub_tail = &stub_head;
static int stub_started;
static pthread_t stub_thr;

static void *stub_worker(void *arg)
{
	const struct timespec pause = { 0, STUB_PAUSE_NS };
	struct optinc_request *r;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&stub_lock);
		while (!stub_head)
			pthread_cond_wait(&stub_cond, &stub_lock);
		r = stub_head;
		pthread_mutex_unlock(&stub_lock);
		nanosleep(&pause, NULL);
		r->err = optinc_allreduce(r->comm, r->sendbuf, r->recvbuf,
					  r->count, r->datatype, r->op);
		pthread_mutex_lock(&stub_lock);
		stub_head = r->next;
		if (!stub_head)
			stub_tail = &stub_head;
		r->done = 1;
		pthread_cond_broadcast(&stub_cond);
		pthread_mutex_unlock(&stub_lock);
	}
	return NULL;
}

int optinc_iallreduce(struct optinc_comm *comm, const void *sendbuf,
		      void *recvbuf, size_t count, int datatype, int op,
		      struct optinc_request **req)
{
	struct optinc_request *r = calloc(1, sizeof(*r));

	*req = NULL;
	if (!r)
		return OPTINC_ERR_NOMEM;
	*r = (struct optinc_request){ .comm = comm, .sendbuf = sendbuf,
				      .recvbuf = recvbuf, .count = count,
				      .datatype = datatype, .op = op };
	pthread_mutex_lock(&stub_lock);
	if (!stub_started && pthread_create(&stub_thr, NULL, stub_worker, NULL)) {
		pthread_mutex_unlock(&stub_lock);
		free(r);
		return OPTINC_ERR_SYSTEM;
	}
	stub_started = 1;
	*stub_tail = r;
	stub_tail = &r->next;
	pthread_cond_broadcast(&stub_cond);
	pthread_mutex_unlock(&stub_lock);
	*req = r;
	return 0;
}

static int stub_finish(struct optinc_request **req)
{
	int err = (*req)->err;

	free(*req);
	*req = NULL;
	return err;
}

int optinc_test(struct optinc_request **req, int *done)
{
	pthread_mutex_lock(&stub_lock);
	*done = (*req)->done;
	pthread_mutex_unlock(&stub_lock);
	return *done ? stub_finish(req) : 0;
}

int optinc_wait(struct optinc_request **req)
{
	pthread_mutex_lock(&stub_lock);
	while (!(*req)->done)
		pthread_cond_wait(&stub_cond, &stub_lock);
	pthread_mutex_unlock(&stub_lock);
	return stub_finish(req);
}
