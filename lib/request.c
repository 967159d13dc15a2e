// SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
/*
 * Non-blocking calls: a FIFO of posted requests per communicator, run one
 * after another by the communicator's progress thread; test, wait, and
 * optinc_allreduce() as post + wait.
 *
 * LOCKING: q->lock guards the queue, every request's done/err/errmsg, the
 * stats snapshot, q->view, q->msg and q->busy. It is never held while a
 * call runs. The communicator's working state (seq, windows, transport,
 * c->errmsg, c->failed, c->st) belongs to the one thread that set q->busy
 * under the lock: the progress thread, or a blocking caller that found the
 * communicator idle. Taking and dropping the lock around a call orders
 * one runner's writes before the next runner's reads.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct optinc_request {
	struct optinc_request *prev, *next;	/* q->head..tail, posting order */
	struct optinc_queue *q;
	struct optinc_call call;
	int done;
	int err;
	char errmsg[OPTINC_ERRMSG_LEN];
};

struct optinc_queue {
	pthread_mutex_t lock;
	pthread_cond_t work;	/* to the progress thread: posted, or stop */
	pthread_cond_t done;	/* to waiters: a request completed */
	struct optinc_request *head, *tail;	/* every request not yet freed */
	struct optinc_request *next;	/* the first one not yet run */
	struct optinc_comm *c;
	/*
	 * What every call is checked against when it is posted (or made
	 * blocking): a copy of the communicator made at create (its settings
	 * do not change after), with the last known c->failed and an errmsg
	 * of its own, so that checks never touch what a running call writes.
	 * Its calls_posted numbers the calls, in posting order, under q->lock
	 * (the communicator's own one is not used).
	 */
	struct optinc_comm view;
	struct optinc_comm_stats st;	/* counters after the last call */
	char msg[OPTINC_ERRMSG_LEN];	/* last failure completed, any thread */
	__u64 id;			/* tells apart comms at one address */
	pthread_t thr;
	int started;
	int busy;		/* a call is running (on whichever thread) */
	int stop;
};

/*
 * The message of this thread's last failed call, as errno is this
 * thread's: with several threads on one comm, each sees its own failures.
 */
static __thread struct {
	__u64 id;
	char msg[OPTINC_ERRMSG_LEN];
} req_last;

static __u64 req_ids;

/* Under q->lock: the request failed; its message becomes the comm's. */
static void req_keep_msg(struct optinc_queue *q, const char *msg)
{
	snprintf(q->msg, sizeof(q->msg), "%s", msg);
	snprintf(req_last.msg, sizeof(req_last.msg), "%s", msg);
	req_last.id = q->id;
}

/*
 * This thread's last failure on @comm if it had one there, else the last
 * failure any thread saw complete on @comm; NULL: the last failed create.
 */
const char *optinc_comm_errmsg(const struct optinc_comm *comm)
{
	const struct optinc_queue *q = comm ? comm->q : NULL;

	if (!comm)
		return optinc_create_errmsg();
	if (!q)
		return comm->errmsg;
	return req_last.id == q->id ? req_last.msg : q->msg;
}

static void req_unlink(struct optinc_queue *q, struct optinc_request *r)
{
	if (r->prev)
		r->prev->next = r->next;
	else
		q->head = r->next;
	if (r->next)
		r->next->prev = r->prev;
	else
		q->tail = r->prev;
}

static void req_append(struct optinc_queue *q, struct optinc_request *r)
{
	r->prev = q->tail;
	r->next = NULL;
	if (q->tail)
		q->tail->next = r;
	else
		q->head = r;
	q->tail = r;
	if (!q->next)
		q->next = r;
}

/* Under q->lock, after a call: what others may read of its effects. */
static void req_ran(struct optinc_queue *q)
{
	q->busy = 0;
	q->view.failed = q->c->failed;
	optinc_comm_stats_now(q->c, &q->st);
	if (q->next)
		pthread_cond_signal(&q->work);
}

/*
 * A call that failed after this one was posted (and checked) fails it
 * with its code, as optinc_call_check() would have: checked again here,
 * on the thread that owns c->failed, not with optinc_call_check(), which
 * would number the call a second time.
 */
static int req_failed(struct optinc_comm *c)
{
	if (!c->failed)
		return 0;
	return optinc_seterr(c, c->failed,
			     "allreduce: an earlier call on this communicator failed (%s) and left the ranks out of step; destroy it",
			     optinc_strerror(c->failed));
}

/* One request on the progress thread. */
static void req_run(struct optinc_queue *q, struct optinc_request *r)
{
	struct optinc_comm *c = q->c;
	int err;

	err = req_failed(c) ?: optinc_call_run(c, &r->call);
	if (err)
		snprintf(r->errmsg, sizeof(r->errmsg), "%s", c->errmsg);
	pthread_mutex_lock(&q->lock);
	r->err = err;
	r->done = 1;
	req_ran(q);
	pthread_cond_broadcast(&q->done);
	pthread_mutex_unlock(&q->lock);
}

/*
 * The progress thread: sleeps on q->work while the queue is empty (no
 * timer, no polling: an idle communicator costs no CPU), runs requests
 * in posting order.
 */
static void *req_thread(void *arg)
{
	struct optinc_queue *q = arg;
	struct optinc_request *r;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		while ((!q->next || q->busy) && !q->stop)
			pthread_cond_wait(&q->work, &q->lock);
		if (q->stop)
			break;
		r = q->next;
		q->next = r->next;
		q->busy = 1;
		pthread_mutex_unlock(&q->lock);
		req_run(q, r);
		pthread_mutex_lock(&q->lock);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

/*
 * Under q->lock, at the first post: signals stay with the application's
 * threads (the progress thread blocks them all), so a SIGINT handler
 * never runs in the middle of a call.
 */
static int req_start(struct optinc_queue *q)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&q->thr, NULL, req_thread, q);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		snprintf(q->view.errmsg, sizeof(q->view.errmsg),
			 "iallreduce: cannot start the progress thread: %s",
			 strerror(err));
		return err == EAGAIN ? OPTINC_ERR_NOMEM : OPTINC_ERR_SYSTEM;
	}
	pthread_setname_np(q->thr, "optinc-progress");
	q->started = 1;
	return 0;
}

/* Under q->lock: check the call, start the thread if needed, queue it. */
static int req_post(struct optinc_queue *q, struct optinc_request *r)
{
	int err;

	err = optinc_call_check(&q->view, &r->call);
	if (!err && !q->started)
		err = req_start(q);
	if (err) {
		req_keep_msg(q, q->view.errmsg);
		return err;
	}
	req_append(q, r);
	pthread_cond_signal(&q->work);
	return 0;
}

int optinc_iallreduce(struct optinc_comm *comm, const void *sendbuf,
		      void *recvbuf, size_t count, int datatype, int op,
		      struct optinc_request **req)
{
	struct optinc_queue *q = comm ? comm->q : NULL;
	struct optinc_request *r;
	int err;

	if (req)
		*req = NULL;
	if (!q)
		return OPTINC_ERR_INVALID;
	r = calloc(1, sizeof(*r));
	pthread_mutex_lock(&q->lock);
	if (!req || !r) {
		err = req ? OPTINC_ERR_NOMEM : OPTINC_ERR_INVALID;
		req_keep_msg(q, req ? "iallreduce: no memory for a request" :
			     "iallreduce: req is NULL");
	} else {
		r->q = q;
		r->call = (struct optinc_call){
			.sendbuf = sendbuf, .recvbuf = recvbuf, .count = count,
			.datatype = datatype, .op = op,
		};
		err = req_post(q, r);
	}
	pthread_mutex_unlock(&q->lock);
	if (err)
		free(r);
	else
		*req = r;
	return err;
}

/* Under q->lock: a completed request's code, and the request freed. */
static int req_finish(struct optinc_queue *q, struct optinc_request *r,
		      int keep_msg)
{
	int err = r->err;

	if (err && keep_msg)
		req_keep_msg(q, r->errmsg);
	req_unlink(q, r);
	free(r);
	return err;
}

int optinc_test(struct optinc_request **req, int *done)
{
	struct optinc_request *r = req ? *req : NULL;
	struct optinc_queue *q;
	int err = 0;

	if (!r || !done)
		return OPTINC_ERR_INVALID;
	q = r->q;
	pthread_mutex_lock(&q->lock);
	*done = r->done;
	if (r->done) {
		err = req_finish(q, r, 1);
		*req = NULL;
	}
	pthread_mutex_unlock(&q->lock);
	return err;
}

static int req_wait(struct optinc_request **req, int keep_msg)
{
	struct optinc_request *r = req ? *req : NULL;
	struct optinc_queue *q;
	int err;

	if (!r)
		return OPTINC_ERR_INVALID;
	q = r->q;
	pthread_mutex_lock(&q->lock);
	while (!r->done)
		pthread_cond_wait(&q->done, &q->lock);
	err = req_finish(q, r, keep_msg);
	pthread_mutex_unlock(&q->lock);
	*req = NULL;
	return err;
}

int optinc_wait(struct optinc_request **req)
{
	return req_wait(req, 1);
}

/*
 * In order: requests complete in posting order, so waiting for each in
 * turn sleeps no longer than waiting for the last. optinc_comm_errmsg()
 * then tells the first failure, the one returned.
 */
int optinc_waitall(struct optinc_request **reqs, size_t n, int *codes)
{
	int first = 0, err;
	size_t i;

	if (!reqs && n)
		return OPTINC_ERR_INVALID;
	for (i = 0; i < n; i++) {
		err = req_wait(&reqs[i], !first);
		if (codes)
			codes[i] = err;
		if (!first)
			first = err;
	}
	return first;
}

/* A checked call run on the caller's thread, which set q->busy. */
static int req_inline(struct optinc_queue *q, const struct optinc_call *k)
{
	struct optinc_comm *c = q->c;
	int err;

	err = optinc_call_run(c, k);
	pthread_mutex_lock(&q->lock);
	req_ran(q);
	if (err)
		req_keep_msg(q, c->errmsg);
	pthread_mutex_unlock(&q->lock);
	return err;
}

/*
 * A blocking call on an idle communicator (nothing queued, nothing
 * running) runs on the caller's thread: the same order, number and result
 * as post + wait, without the hand-off to the progress thread and back,
 * and a program that only makes blocking calls never starts that thread.
 */
int optinc_allreduce(struct optinc_comm *comm, const void *sendbuf,
		     void *recvbuf, size_t count, int datatype, int op)
{
	struct optinc_queue *q = comm ? comm->q : NULL;
	struct optinc_call k = {
		.sendbuf = sendbuf, .recvbuf = recvbuf, .count = count,
		.datatype = datatype, .op = op,
	};
	struct optinc_request *r;
	int idle, err = 0;

	if (!q)
		return OPTINC_ERR_INVALID;
	pthread_mutex_lock(&q->lock);
	idle = !q->next && !q->busy;
	if (idle)
		err = optinc_call_check(&q->view, &k);
	if (idle && err)
		req_keep_msg(q, q->view.errmsg);
	q->busy |= idle && !err;
	pthread_mutex_unlock(&q->lock);
	if (idle)
		return err ?: req_inline(q, &k);
	return optinc_iallreduce(comm, sendbuf, recvbuf, count, datatype, op,
				 &r) ?: optinc_wait(&r);
}

/* After create: the queue exists, its thread does not (yet). */
int optinc_queue_init(struct optinc_comm *c)
{
	struct optinc_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return optinc_seterr(c, OPTINC_ERR_NOMEM,
				     "comm_create: no memory for the request queue");
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->work, NULL);
	pthread_cond_init(&q->done, NULL);
	q->c = c;
	q->view = *c;
	q->view.errmsg[0] = '\0';
	q->id = __atomic_add_fetch(&req_ids, 1, __ATOMIC_RELAXED);
	optinc_comm_stats_now(c, &q->st);
	c->q = q;
	return 0;
}

/*
 * At destroy: the call running finishes (at most timeout_ms), those not
 * started are dropped (no frame of theirs was sent), the thread joined,
 * and every request not yet waited for is freed with the queue.
 */
void optinc_queue_fini(struct optinc_comm *c)
{
	struct optinc_queue *q = c->q;
	struct optinc_request *r;

	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	q->stop = 1;
	pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->lock);
	if (q->started)
		pthread_join(q->thr, NULL);
	while ((r = q->head)) {
		req_unlink(q, r);
		free(r);
	}
	pthread_cond_destroy(&q->done);
	pthread_cond_destroy(&q->work);
	pthread_mutex_destroy(&q->lock);
	free(q);
	c->q = NULL;
}

/* The counters as they were after the last call: never torn by a run. */
void optinc_queue_stats(const struct optinc_comm *c,
			struct optinc_comm_stats *st)
{
	struct optinc_queue *q = c->q;

	pthread_mutex_lock(&q->lock);
	*st = q->st;
	pthread_mutex_unlock(&q->lock);
}
