// SPDX-License-Identifier: BSD-3-Clause
/*
 * The shim's MPI_Iallreduce. A call the switch takes is posted with
 * optinc_iallreduce() and handed to the program as a generalized request
 * (MPI_Grequest_start): a real MPI request, which every MPI call accepts,
 * mixed with the program's other requests. MPI cannot see when optinc
 * finishes, so the shim's MPI_Wait and MPI_Test families first drive the
 * optinc requests among those they are given (optinc_test, then
 * PMPI_Grequest_complete on the caller's own thread: no helper thread
 * calls MPI, so MPI_THREAD_SINGLE programs stay legal), and while one
 * still runs they let MPI progress through the PMPI test of the same
 * requests (so an MPI_Isend the other ranks wait for before they post
 * their MPI_Iallreduce still moves). Once done, MPI finishes the request
 * as any other: status, MPI_REQUEST_NULL, freeing.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "shim.h"

/*
 * A liboptinc without the non-blocking calls (before 0.3) still loads the
 * shim: these stay NULL and MPI_Iallreduce goes to MPI.
 */
#pragma weak optinc_iallreduce
#pragma weak optinc_test
#pragma weak optinc_wait

struct shim_req {
	struct optinc_request *oreq;
	MPI_Request mreq;	/* the generalized request the program holds */
	int count;
	int err;		/* optinc's result, once done */
	struct shim_req *next;
};

/* Requests whose optinc call may still run, under req_lock. */
static struct shim_req *req_list;
static pthread_mutex_t req_lock = PTHREAD_MUTEX_INITIALIZER;

/* An all-reduce's status: empty, its error from optinc's result. */
static int req_query(void *extra, MPI_Status *st)
{
	const struct shim_req *r = extra;

	PMPI_Status_set_elements(st, MPI_BYTE, 0);
	PMPI_Status_set_cancelled(st, 0);
	st->MPI_SOURCE = MPI_ANY_SOURCE;
	st->MPI_TAG = MPI_ANY_TAG;
	st->MPI_ERROR = r->err ? MPI_ERR_OTHER : MPI_SUCCESS;
	return st->MPI_ERROR;
}

static int req_free(void *extra)
{
	free(extra);
	return MPI_SUCCESS;
}

/* A collective cannot be cancelled: the request completes as it would. */
static int req_cancel(void *extra, int complete)
{
	(void)extra;
	(void)complete;
	return MPI_SUCCESS;
}

/* Under req_lock: if *link's call is done (@wait: once it is), unlink it
 * and complete its MPI request. Return: 1 when done. */
static int req_drive(struct shim_req **link, int wait)
{
	struct shim_req *r = *link;
	int done = 1;

	r->err = wait ? optinc_wait(&r->oreq) : optinc_test(&r->oreq, &done);
	if (!done)
		return 0;
	if (r->err)
		shim_failed("MPI_Iallreduce", r->count, r->err);
	__atomic_store_n(link, r->next, __ATOMIC_RELEASE);
	PMPI_Grequest_complete(r->mreq);
	return 1;
}

/* Drive the shim's requests among @reqs; how many of them still run. */
static int req_poll(int n, const MPI_Request *reqs)
{
	struct shim_req **link;
	int i, running = 0;

	if (!__atomic_load_n(&req_list, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&req_lock);
	for (i = 0; i < n; i++) {
		if (reqs[i] == MPI_REQUEST_NULL)
			continue;
		for (link = &req_list; *link; link = &(*link)->next) {
			if ((*link)->mreq == reqs[i]) {
				running += !req_drive(link, 0);
				break;
			}
		}
	}
	pthread_mutex_unlock(&req_lock);
	return running;
}

int shim_requests_init(void)
{
	shim.nonblocking = optinc_iallreduce && optinc_test && optinc_wait;
	return 0;
}

/* MPI_Finalize: no optinc call may outlive the communicator. */
void shim_requests_drain(void)
{
	pthread_mutex_lock(&req_lock);
	while (req_list)
		req_drive(&req_list, 1);
	pthread_mutex_unlock(&req_lock);
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
		   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		   MPI_Request *request)
{
	const void *src = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
	struct shim_req *r;
	int odt, oop, err;

	if (!shim.nonblocking ||
	    !shim_route(datatype, op, comm, count, &odt, &oop)) {
		__atomic_add_fetch(&shim.icalls_mpi, 1, __ATOMIC_RELAXED);
		return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op,
				       comm, request);
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		PMPI_Comm_call_errhandler(comm, MPI_ERR_NO_MEM);
		return MPI_ERR_NO_MEM;
	}
	r->count = count;
	err = PMPI_Grequest_start(req_query, req_free, req_cancel, r, &r->mreq);
	if (err != MPI_SUCCESS) {
		free(r);
		return err;
	}
	err = optinc_iallreduce(shim.comm, src, recvbuf, (size_t)count, odt,
				oop, &r->oreq);
	__atomic_add_fetch(&shim.icalls_optinc, 1, __ATOMIC_RELAXED);
	if (err) {
		shim_failed("MPI_Iallreduce", count, err);
		r->err = err;
		PMPI_Grequest_complete(r->mreq);
		PMPI_Request_free(&r->mreq);
		PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
		return MPI_ERR_OTHER;
	}
	pthread_mutex_lock(&req_lock);
	r->next = req_list;
	__atomic_store_n(&req_list, r, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&req_lock);
	*request = r->mreq;
	return MPI_SUCCESS;
}

/*
 * The wait calls: while one of the shim's requests among theirs runs, the
 * PMPI test of the same requests lets MPI progress and may finish MPI's
 * own (Waitany, Waitsome); then MPI's wait does the rest.
 */
int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
	int flag, ret;

	while (req_poll(1, request)) {
		ret = PMPI_Test(request, &flag, status);
		if (ret != MPI_SUCCESS || flag)
			return ret;
		sched_yield();
	}
	return PMPI_Wait(request, status);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
	int flag, ret;

	while (req_poll(count, requests)) {
		ret = PMPI_Testall(count, requests, &flag, statuses);
		if (ret != MPI_SUCCESS || flag)
			return ret;
		sched_yield();
	}
	return PMPI_Waitall(count, requests, statuses);
}

int MPI_Waitany(int count, MPI_Request requests[], int *index,
		MPI_Status *status)
{
	int flag, ret;

	while (req_poll(count, requests)) {
		ret = PMPI_Testany(count, requests, index, &flag, status);
		if (ret != MPI_SUCCESS || flag)
			return ret;
		sched_yield();
	}
	return PMPI_Waitany(count, requests, index, status);
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount,
		 int indices[], MPI_Status statuses[])
{
	int ret;

	while (req_poll(incount, requests)) {
		ret = PMPI_Testsome(incount, requests, outcount, indices,
				    statuses);
		if (ret != MPI_SUCCESS || *outcount != 0)
			return ret;
		sched_yield();
	}
	return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
	req_poll(1, request);
	return PMPI_Test(request, flag, status);
}

int MPI_Testall(int count, MPI_Request requests[], int *flag,
		MPI_Status statuses[])
{
	req_poll(count, requests);
	return PMPI_Testall(count, requests, flag, statuses);
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag,
		MPI_Status *status)
{
	req_poll(count, requests);
	return PMPI_Testany(count, requests, index, flag, status);
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount,
		 int indices[], MPI_Status statuses[])
{
	req_poll(incount, requests);
	return PMPI_Testsome(incount, requests, outcount, indices, statuses);
}

int MPI_Request_get_status(MPI_Request request, int *flag,
			   MPI_Status *status)
{
	req_poll(1, &request);
	return PMPI_Request_get_status(request, flag, status);
}

/* Freeing a collective's request is erroneous in MPI; the shim finishes it. */
int MPI_Request_free(MPI_Request *request)
{
	struct shim_req **link;

	if (__atomic_load_n(&req_list, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&req_lock);
		for (link = &req_list; *link; link = &(*link)->next) {
			if ((*link)->mreq == *request) {
				req_drive(link, 1);
				break;
			}
		}
		pthread_mutex_unlock(&req_lock);
	}
	return PMPI_Request_free(request);
}
