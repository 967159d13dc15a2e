// SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
/* Ring all-reduce over TCP: pipelined reduce-scatter, then all-gather. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/sockios.h>
#include <linux/tcp.h>	/* its tcp_info has the peer's window */

#include <optinc/optinc.h>
#include "internal.h"
#include "ring.h"

#define RING_MAGIC	0x4f524e47u	/* "ORNG" */
#define RING_VERSION	1
#define RING_CHUNK	(256 * 1024)	/* most bytes one send()/recv() moves */
#define RING_RETRY_MS	20		/* between connect attempts */

/* First bytes on every connection, from the connecting rank. */
struct ring_hello {
	uint32_t magic, version, rank, size;
};

struct optinc_ring {
	int rank, size;
	int left, right;	/* receive from rank - 1, send to rank + 1 */
	unsigned int port_base;
	unsigned int timeout_ms;
	float *stage;		/* reduce-scatter input, RING_CHUNK bytes */
	struct optinc_ring_stats st;
	struct in_addr addr[];
};

/*
 * How elements combine: sums, NaN-propagating maxima and minima (a NaN
 * must reach the result, as on the switch), of 4-byte ints and floats and
 * 8-byte doubles. AVG sums inputs scaled by 2^-k (2^k >= N, exact) so
 * that no partial sum overflows where the true average is finite, and
 * divides by N 2^-k once at the end: the same quotient as sum / N.
 */
enum ring_kind {
	RING_ISUM, RING_IMAX, RING_IMIN,
	RING_FSUM, RING_FMAX, RING_FMIN,
	RING_DSUM, RING_DMAX, RING_DMIN,
};

/* One all-reduce in flight: a send and a receive cursor over 2(N-1) steps. */
struct ring_op {
	struct optinc_ring *r;
	char *buf;
	size_t count;
	enum ring_kind kind;
	unsigned int es;	/* bytes per element: 4, or 8 for doubles */
	double div;		/* AVG: N 2^-k, the last step divides; else 0 */
	unsigned int steps;
	unsigned int s_step, r_step;
	size_t s_off;		/* bytes of the step sent */
	size_t r_off;		/* bytes of the step received */
	size_t r_ready;		/* bytes of the step final in buf */
	size_t staged;		/* bytes in r->stage */
	uint64_t last_ms;	/* when the call last moved data */
	unsigned int wait_ms;	/* its longest time without, and in which */
	unsigned int wait_step;	/* step (1-based) it ended */
};

static int ring_fail(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

static uint64_t ring_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int ring_left_of(const struct optinc_ring *r)
{
	return (r->rank + r->size - 1) % r->size;
}

static int ring_right_of(const struct optinc_ring *r)
{
	return (r->rank + 1) % r->size;
}

static const char *ring_ip(const struct optinc_ring *r, int rank, char *buf)
{
	return inet_ntop(AF_INET, &r->addr[rank], buf, INET_ADDRSTRLEN);
}

/**
 * optinc_ring_peers() - check a peer list, and read it
 * @peers:  "ip0,ip1,...": one IPv4 address per rank, rank 0 first
 * @from:   where it came from, for messages: "OPTINC_PEERS", "opts.peers"
 * @size:   ranks
 * @addr:   @size addresses, filled in; NULL to check only
 * Return: 0, or OPTINC_ERR_INVALID with @err naming @from.
 */
int optinc_ring_peers(const char *peers, const char *from, int size,
		      struct in_addr *addr, char *err, size_t errlen)
{
	char ip[INET_ADDRSTRLEN];
	const char *p = peers;
	struct in_addr a;
	int n = 0;
	size_t len;

	if (!peers || !*peers)
		return ring_fail(err, errlen, OPTINC_ERR_INVALID,
				 "%s: no peer addresses (ip0,ip1,... one per rank)",
				 from);
	for (;; p += len + 1) {
		len = strcspn(p, ",");
		if (!len || len >= sizeof(ip))
			return ring_fail(err, errlen, OPTINC_ERR_INVALID,
					 "%s=%.64s: address %d is empty or too long (ip0,ip1,... one per rank)",
					 from, peers, n);
		memcpy(ip, p, len);
		ip[len] = '\0';
		if (inet_pton(AF_INET, ip, &a) != 1)
			return ring_fail(err, errlen, OPTINC_ERR_INVALID,
					 "%s: address %d, \"%s\", is not an IPv4 address",
					 from, n, ip);
		if (addr && n < size)
			addr[n] = a;
		n++;
		if (!p[len])
			break;
	}
	if (n != size)
		return ring_fail(err, errlen, OPTINC_ERR_INVALID,
				 "%s=%.64s: %d peer addresses for %d ranks: one per rank, rank 0 first",
				 from, peers, n, size);
	return 0;
}

static int ring_listen(const struct optinc_ring *r, char *err, size_t errlen)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(r->port_base + r->rank),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	int one = 1, fd, e;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return ring_fail(err, errlen, OPTINC_ERR_SYSTEM,
				 "ring: rank %d: socket: %s", r->rank,
				 strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 16) < 0) {
		e = errno;
		close(fd);
		return ring_fail(err, errlen, OPTINC_ERR_SYSTEM,
				 "ring: rank %d: listen on TCP port %u (ring_port + rank; opts.ring_port, OPTINC_RING_PORT): %s",
				 r->rank, r->port_base + r->rank, strerror(e));
	}
	return fd;
}

/* Poll one fd until @events or @deadline; 1 ready, 0 timed out, -errno. */
static int ring_wait(int fd, short events, uint64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	uint64_t now;
	int ret;

	for (;;) {
		now = ring_now_ms();
		if (now >= deadline)
			return 0;
		ret = poll(&pfd, 1, (int)(deadline - now));
		if (ret >= 0)
			return ret;
		if (errno != EINTR)
			return -errno;
	}
}

/* One connect attempt; 0 connected, else the errno that stopped it. */
static int ring_try_connect(int fd, const struct sockaddr_in *sa,
			    uint64_t deadline)
{
	socklen_t len = sizeof(int);
	int soerr = 0, ret;

	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return errno;
	ret = ring_wait(fd, POLLOUT, deadline);
	if (ret == 0)
		return ETIMEDOUT;
	if (ret < 0)
		return -ret;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
		return errno;
	return soerr;
}

/* Move exactly @len bytes on a non-blocking socket before @deadline. */
static int ring_xfer_all(int fd, void *buf, size_t len, int out,
			 uint64_t deadline)
{
	char *p = buf;
	ssize_t n;
	int ret;

	while (len) {
		ret = ring_wait(fd, out ? POLLOUT : POLLIN, deadline);
		if (ret <= 0)
			return ret ? ret : -ETIMEDOUT;
		if (out)
			n = send(fd, p, len, MSG_NOSIGNAL);
		else
			n = recv(fd, p, len, 0);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

static int ring_connect(struct optinc_ring *r, uint64_t deadline,
			char *err, size_t errlen)
{
	int right = ring_right_of(r), one = 1, fd, e = ETIMEDOUT;
	struct ring_hello h = {
		htonl(RING_MAGIC), htonl(RING_VERSION),
		htonl(r->rank), htonl(r->size)
	};
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(r->port_base + right),
		.sin_addr = r->addr[right],
	};
	char ip[INET_ADDRSTRLEN];

	while (ring_now_ms() < deadline) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    0);
		if (fd < 0)
			return ring_fail(err, errlen, OPTINC_ERR_SYSTEM,
					 "ring: rank %d: socket: %s", r->rank,
					 strerror(errno));
		e = ring_try_connect(fd, &sa, deadline);
		if (!e) {
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
				   sizeof(one));
			e = -ring_xfer_all(fd, &h, sizeof(h), 1, deadline);
			if (!e) {
				r->right = fd;
				return 0;
			}
		}
		close(fd);
		if (e != ECONNREFUSED && e != ETIMEDOUT && e != EHOSTUNREACH &&
		    e != ENETUNREACH && e != ECONNRESET)
			break;
		usleep(RING_RETRY_MS * 1000);
	}
	return ring_fail(err, errlen, e == ETIMEDOUT || e == ECONNREFUSED ?
			 OPTINC_ERR_TIMEOUT : OPTINC_ERR_SYSTEM,
			 "ring: rank %d: connect to right neighbour rank %d (%s:%u) gave up after %u ms: %s",
			 r->rank, right, ring_ip(r, right, ip),
			 r->port_base + right, r->timeout_ms, strerror(e));
}

static int ring_check_hello(const struct optinc_ring *r,
			    const struct ring_hello *h, char *err,
			    size_t errlen)
{
	if (ntohl(h->magic) != RING_MAGIC || ntohl(h->version) != RING_VERSION)
		return ring_fail(err, errlen, OPTINC_ERR_PROTO,
				 "ring: rank %d: a connection to TCP port %u is not from an optinc ring rank",
				 r->rank, r->port_base + r->rank);
	if ((int)ntohl(h->rank) != ring_left_of(r) ||
	    (int)ntohl(h->size) != r->size)
		return ring_fail(err, errlen, OPTINC_ERR_PROTO,
				 "ring: rank %d of %d: connection from rank %u of %u, expected rank %d (mismatched OPTINC_RANK/OPTINC_SIZE?)",
				 r->rank, r->size, ntohl(h->rank),
				 ntohl(h->size), ring_left_of(r));
	return 0;
}

static int ring_accept(struct optinc_ring *r, int lfd, uint64_t deadline,
		       char *err, size_t errlen)
{
	int left = ring_left_of(r), fd, ret, one = 1;
	char ip[INET_ADDRSTRLEN];
	struct ring_hello h;

	for (;;) {
		ret = ring_wait(lfd, POLLIN, deadline);
		if (ret == 0)
			return ring_fail(err, errlen, OPTINC_ERR_TIMEOUT,
					 "ring: rank %d: no connection from left neighbour rank %d (%s) within %u ms",
					 r->rank, left, ring_ip(r, left, ip),
					 r->timeout_ms);
		if (ret < 0)
			return ring_fail(err, errlen, OPTINC_ERR_SYSTEM,
					 "ring: rank %d: poll: %s", r->rank,
					 strerror(-ret));
		fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0)
			break;
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			return ring_fail(err, errlen, OPTINC_ERR_SYSTEM,
					 "ring: rank %d: accept: %s", r->rank,
					 strerror(errno));
	}
	ret = ring_xfer_all(fd, &h, sizeof(h), 0, deadline);
	if (ret < 0) {
		close(fd);
		return ring_fail(err, errlen, ret == -ETIMEDOUT ?
				 OPTINC_ERR_TIMEOUT : OPTINC_ERR_SYSTEM,
				 "ring: rank %d: reading hello from left neighbour rank %d (%s): %s",
				 r->rank, left, ring_ip(r, left, ip),
				 strerror(-ret));
	}
	ret = ring_check_hello(r, &h, err, errlen);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	r->left = fd;
	return 0;
}

static int ring_alloc(struct optinc_ring **ring, int rank, int size,
		      unsigned int port_base, unsigned int timeout_ms,
		      char *err, size_t errlen)
{
	struct optinc_ring *r;

	if (size < 1 || size > OPTINC_RING_MAX_RANKS || rank < 0 ||
	    rank >= size)
		return ring_fail(err, errlen, OPTINC_ERR_INVALID,
				 "ring: rank %d of size %d is out of range",
				 rank, size);
	if (port_base == 0 || port_base + size - 1 > 65535)
		return ring_fail(err, errlen, OPTINC_ERR_INVALID,
				 "ring: TCP ports %u..%u (OPTINC_RING_PORT or opts.ring_port, + rank) are out of range",
				 port_base, port_base + size - 1);
	r = calloc(1, sizeof(*r) + size * sizeof(r->addr[0]));
	if (r)
		r->stage = malloc(RING_CHUNK);
	if (!r || !r->stage) {
		free(r);
		return ring_fail(err, errlen, OPTINC_ERR_NOMEM,
				 "ring: out of memory for %d ranks", size);
	}
	r->rank = rank;
	r->size = size;
	r->left = r->right = -1;
	r->port_base = port_base;
	r->timeout_ms = timeout_ms ? timeout_ms : 1;
	*ring = r;
	return 0;
}

int optinc_ring_open(struct optinc_ring **ring, int rank, int size,
		     const char *peers, unsigned int port_base,
		     unsigned int timeout_ms, char *err, size_t errlen)
{
	struct optinc_ring *r = NULL;
	uint64_t deadline;
	int ret, lfd;

	ret = ring_alloc(&r, rank, size, port_base, timeout_ms, err, errlen);
	if (ret < 0)
		return ret;
	ret = optinc_ring_peers(peers, "OPTINC_PEERS (or opts.peers)", r->size,
				r->addr, err, errlen);
	if (ret < 0 || size == 1)
		goto out;
	deadline = ring_now_ms() + r->timeout_ms;
	lfd = ring_listen(r, err, errlen);
	if (lfd < 0) {
		ret = lfd;
		goto out;
	}
	/* The right neighbour's kernel completes our connect from its
	 * backlog, so connecting before accepting cannot deadlock. */
	ret = ring_connect(r, deadline, err, errlen);
	if (!ret)
		ret = ring_accept(r, lfd, deadline, err, errlen);
	close(lfd);
out:
	if (ret < 0)
		optinc_ring_close(r);
	else
		*ring = r;
	return ret;
}

void optinc_ring_close(struct optinc_ring *ring)
{
	if (!ring)
		return;
	if (ring->left >= 0)
		close(ring->left);
	if (ring->right >= 0)
		close(ring->right);
	free(ring->stage);
	free(ring);
}

void optinc_ring_get_stats(const struct optinc_ring *ring,
			   struct optinc_ring_stats *st)
{
	*st = ring->st;
}

static size_t ring_seg_start(const struct ring_op *ro, int seg)
{
	size_t q = ro->count / ro->r->size, m = ro->count % ro->r->size;

	return seg * q + ((size_t)seg < m ? (size_t)seg : m);
}

/* Segment sent in step k; the one received in step k is the next lower. */
static int ring_seg(const struct ring_op *ro, unsigned int k, int rx)
{
	int n = ro->r->size;

	return (ro->r->rank - (int)(k % n) - rx + 2 * n) % n;
}

static size_t ring_step_bytes(const struct ring_op *ro, unsigned int k,
			      int rx)
{
	int seg = ring_seg(ro, k, rx);

	return (ring_seg_start(ro, seg + 1) - ring_seg_start(ro, seg)) * ro->es;
}

static char *ring_step_ptr(const struct ring_op *ro, unsigned int k, int rx)
{
	return ro->buf + ring_seg_start(ro, ring_seg(ro, k, rx)) * ro->es;
}

/*
 * What step k sends is what step k - 1 received (reduced, or final in the
 * all-gather), so it may go out as soon as that part is in buf.
 */
static size_t ring_send_avail(const struct ring_op *ro)
{
	unsigned int k = ro->s_step;

	if (k == 0 || ro->r_step >= k)
		return ring_step_bytes(ro, k, 0);
	if (ro->r_step == k - 1)
		return ro->r_ready;
	return 0;
}

static void ring_advance(struct ring_op *ro)
{
	while (ro->s_step < ro->steps &&
	       ro->s_off == ring_step_bytes(ro, ro->s_step, 0)) {
		ro->s_step++;
		ro->s_off = 0;
	}
	while (ro->r_step < ro->steps &&
	       ro->r_off == ring_step_bytes(ro, ro->r_step, 1)) {
		ro->r_step++;
		ro->r_off = ro->r_ready = 0;
	}
}

#define RING_FOLD(T, dst, src, n, expr)					\
	do {								\
		T *d_ = (T *)(dst);					\
		const T *s_ = (const T *)(src);				\
		size_t i_;						\
									\
		for (i_ = 0; i_ < (n); i_++) {				\
			T a = s_[i_], b = d_[i_];			\
									\
			d_[i_] = (expr);				\
		}							\
	} while (0)

/* Fold @n staged elements into buf. */
static void ring_reduce(struct ring_op *ro, size_t n)
{
	char *dst = ring_step_ptr(ro, ro->r_step, 1) + ro->r_ready;
	const void *src = ro->r->stage;
	int last = ro->r_step == (unsigned int)ro->r->size - 2;
	float fdiv = (float)ro->div;

	if (ro->div && last && ro->kind == RING_FSUM) {
		RING_FOLD(float, dst, src, n, (a + b) / fdiv);
		return;
	}
	if (ro->div && last && ro->kind == RING_DSUM) {
		RING_FOLD(double, dst, src, n, (a + b) / ro->div);
		return;
	}
	switch (ro->kind) {
	case RING_ISUM:
		RING_FOLD(uint32_t, dst, src, n, a + b);
		break;
	case RING_IMAX:
		RING_FOLD(int32_t, dst, src, n, a > b ? a : b);
		break;
	case RING_IMIN:
		RING_FOLD(int32_t, dst, src, n, a < b ? a : b);
		break;
	case RING_FSUM:
		RING_FOLD(float, dst, src, n, a + b);
		break;
	case RING_FMAX:
		RING_FOLD(float, dst, src, n, a != a || a > b ? a : b);
		break;
	case RING_FMIN:
		RING_FOLD(float, dst, src, n, a != a || a < b ? a : b);
		break;
	case RING_DSUM:
		RING_FOLD(double, dst, src, n, a + b);
		break;
	case RING_DMAX:
		RING_FOLD(double, dst, src, n, a != a || a > b ? a : b);
		break;
	case RING_DMIN:
		RING_FOLD(double, dst, src, n, a != a || a < b ? a : b);
		break;
	}
}

/* Whether TCP_INFO filled in @field (older kernels fill in less). */
#define RING_TI_HAS(len, field)						\
	((len) >= offsetof(struct tcp_info, field) +			\
		  sizeof(((struct tcp_info *)0)->field))

/*
 * What the kernel knows of a stalled connection, for the message. Sending,
 * a stall is lost segments (RTO retransmissions in a row, the RTO doubling
 * each time) or a peer that reads nothing (its window 0, data queued);
 * receiving, a peer that sends nothing (no data for a long time).
 */
static void ring_tcp_state(int fd, int tx, char *buf, size_t len)
{
	struct tcp_info ti;
	socklen_t tl = sizeof(ti);
	char wnd[24] = "unknown";
	int q = 0;

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &tl) < 0) {
		snprintf(buf, len, "TCP_INFO: %s", strerror(errno));
		return;
	}
	if (!tx) {
		ioctl(fd, SIOCINQ, &q);
		snprintf(buf, len, "data last in %u ms ago, %d B unread",
			 ti.tcpi_last_data_recv, q);
		return;
	}
	ioctl(fd, SIOCOUTQ, &q);
	if (RING_TI_HAS(tl, tcpi_snd_wnd))
		snprintf(wnd, sizeof(wnd), "%u B", ti.tcpi_snd_wnd);
	snprintf(buf, len,
		 "%d B queued, %u segments unacknowledged, peer's window %s, %u RTO retransmissions in a row (RTO now %u ms), %u segments retransmitted in all",
		 q, ti.tcpi_unacked, wnd, ti.tcpi_retransmits,
		 ti.tcpi_rto / 1000, ti.tcpi_total_retrans);
}

/*
 * The left neighbour closed, or recv() failed. A neighbour that gave up
 * first closes; where it was stuck, this rank's own sending may tell.
 */
static int ring_recv_failed(const struct optinc_ring *r, ssize_t n, int e,
			    char *err, size_t errlen)
{
	char ip[INET_ADDRSTRLEN], out[192];

	ring_tcp_state(r->right, 1, out, sizeof(out));
	return ring_fail(err, errlen, OPTINC_ERR_SYSTEM,
			 "ring: rank %d: receiving from left neighbour rank %d (%s): %s (TCP to rank %d: %s)",
			 r->rank, ring_left_of(r),
			 ring_ip(r, ring_left_of(r), ip),
			 n ? strerror(e) :
			 "connection closed: it gave up or exited, its own message says why",
			 ring_right_of(r), out);
}

static int ring_recv_some(struct ring_op *ro, char *err, size_t errlen)
{
	struct optinc_ring *r = ro->r;
	size_t want = ring_step_bytes(ro, ro->r_step, 1) - ro->r_off;
	int scatter = ro->r_step < (unsigned int)r->size - 1;
	char *dst;
	size_t room, nel;
	ssize_t n;

	if (scatter) {
		dst = (char *)r->stage + ro->staged;
		room = RING_CHUNK - ro->staged;
	} else {
		dst = ring_step_ptr(ro, ro->r_step, 1) + ro->r_off;
		room = RING_CHUNK;
	}
	n = recv(r->left, dst, want < room ? want : room, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0)
		return ring_recv_failed(r, n, errno, err, errlen);
	r->st.bytes_rcvd += n;
	ro->r_off += n;
	if (!scatter) {
		ro->r_ready = ro->r_off;
		return 0;
	}
	ro->staged += n;
	nel = ro->staged / ro->es;
	ring_reduce(ro, nel);
	ro->r_ready += nel * ro->es;
	ro->staged -= nel * ro->es;
	memmove(r->stage, (char *)r->stage + nel * ro->es, ro->staged);
	return 0;
}

static int ring_send_some(struct ring_op *ro, char *err, size_t errlen)
{
	struct optinc_ring *r = ro->r;
	size_t len = ring_send_avail(ro) - ro->s_off;
	char ip[INET_ADDRSTRLEN];
	ssize_t n;

	n = send(r->right, ring_step_ptr(ro, ro->s_step, 0) + ro->s_off,
		 len < RING_CHUNK ? len : RING_CHUNK, MSG_NOSIGNAL);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n < 0)
		return ring_fail(err, errlen, OPTINC_ERR_SYSTEM,
				 "ring: rank %d: sending to right neighbour rank %d (%s): %s",
				 r->rank, ring_right_of(r),
				 ring_ip(r, ring_right_of(r), ip),
				 strerror(errno));
	r->st.bytes_sent += n;
	ro->s_off += n;
	return 0;
}

/*
 * poll() timed out: say who we wait for. Receiving, the left neighbour
 * sends nothing; with data to send, the right takes nothing; often both,
 * and the TCP state tells which is the cause.
 */
static int ring_stalled(const struct ring_op *ro, int tx_wait, char *err,
			size_t errlen)
{
	const struct optinc_ring *r = ro->r;
	int rx = ro->r_step < ro->steps, left = ring_left_of(r);
	int right = ring_right_of(r);
	char lip[INET_ADDRSTRLEN], rip[INET_ADDRSTRLEN], who[128];
	char in[64], out[192];

	ring_ip(r, left, lip);
	ring_ip(r, right, rip);
	if (rx && tx_wait)
		snprintf(who, sizeof(who), "rank %d (%s) sends nothing, rank %d (%s) takes nothing",
			 left, lip, right, rip);
	else if (rx)
		snprintf(who, sizeof(who), "rank %d (%s) sends nothing",
			 left, lip);
	else
		snprintf(who, sizeof(who), "rank %d (%s) takes nothing",
			 right, rip);
	ring_tcp_state(r->left, 0, in, sizeof(in));
	ring_tcp_state(r->right, 1, out, sizeof(out));
	return ring_fail(err, errlen, OPTINC_ERR_TIMEOUT,
			 "ring: rank %d: no progress for %u ms in step %u of %u: %s (TCP from rank %d: %s; to rank %d: %s)",
			 r->rank, r->timeout_ms,
			 rx ? ro->r_step + 1 : ro->s_step + 1, ro->steps, who,
			 left, in, right, out);
}

/* The time since the call last moved data, if it is its longest yet. */
static void ring_waited(struct ring_op *ro)
{
	uint64_t now = ring_now_ms(), w = now - ro->last_ms;

	if (w > ro->wait_ms) {
		ro->wait_ms = w > UINT32_MAX ? UINT32_MAX : (unsigned int)w;
		ro->wait_step = (ro->r_step < ro->steps ? ro->r_step :
				 ro->s_step) + 1;
	}
	ro->last_ms = now;
}

/*
 * A call that came within half its timeout of failing says so, the first
 * time and whenever it waited longer than any call before on this ring,
 * so that a job learns of it before it fails. Two causes are usual: a
 * neighbour that entered the call late (a straggler), and TCP on a lossy
 * network, whose retransmission timeout doubles with each loss in a row
 * (5 % loss each way through the switch gave waits of 0.2 to 4 s in most
 * calls; Documentation/reliability.md, "The ring on a lossy network").
 */
static void ring_done(struct ring_op *ro)
{
	struct optinc_ring *r = ro->r;

	if (ro->wait_ms > r->timeout_ms / 2 &&
	    ro->wait_ms > r->st.longest_wait_ms)
		optinc_log(OPTINC_LOG_WARN,
			   "ring: rank %d: a call waited %u ms for its neighbours (step %u of %u), more than half of its %u ms timeout: a late rank, or TCP backing off its retransmissions on a lossy network; OPTINC_TIMEOUT_MS raises the timeout",
			   r->rank, ro->wait_ms, ro->wait_step, ro->steps,
			   r->timeout_ms);
	else
		optinc_log(OPTINC_LOG_DEBUG,
			   "ring: rank %d: call done; its longest wait %u ms, in step %u of %u",
			   r->rank, ro->wait_ms, ro->wait_step, ro->steps);
	if (ro->wait_ms > r->st.longest_wait_ms)
		r->st.longest_wait_ms = ro->wait_ms;
}

static int ring_run(struct ring_op *ro, char *err, size_t errlen)
{
	struct optinc_ring *r = ro->r;
	struct pollfd pfd[2];
	int ret;

	ro->last_ms = ring_now_ms();
	for (;;) {
		ring_advance(ro);
		if (ro->s_step == ro->steps && ro->r_step == ro->steps) {
			ring_done(ro);
			return 0;
		}
		pfd[0].fd = ro->s_step < ro->steps &&
			    ring_send_avail(ro) > ro->s_off ? r->right : -1;
		pfd[0].events = POLLOUT;
		pfd[1].fd = ro->r_step < ro->steps ? r->left : -1;
		pfd[1].events = POLLIN;
		ret = poll(pfd, 2, r->timeout_ms);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0)
			return ring_fail(err, errlen, OPTINC_ERR_SYSTEM,
					 "ring: rank %d: poll: %s", r->rank,
					 strerror(errno));
		if (ret == 0)
			return ring_stalled(ro, pfd[0].fd >= 0, err, errlen);
		ring_waited(ro);
		if (pfd[1].revents) {
			ret = ring_recv_some(ro, err, errlen);
			if (ret < 0)
				return ret;
		}
		if (pfd[0].revents) {
			ret = ring_send_some(ro, err, errlen);
			if (ret < 0)
				return ret;
		}
	}
}

static int ring_kind_of(int datatype, int op, struct ring_op *ro)
{
	static const enum ring_kind by_op[3][3] = {
		{ RING_ISUM, RING_IMAX, RING_IMIN },
		{ RING_FSUM, RING_FMAX, RING_FMIN },
		{ RING_DSUM, RING_DMAX, RING_DMIN },
	};
	int t = datatype == OPTINC_INT32 ? 0 : datatype == OPTINC_FLOAT32 ? 1 :
		datatype == OPTINC_FLOAT64 ? 2 : -1;
	int o = op == OPTINC_SUM || op == OPTINC_AVG ? 0 : op == OPTINC_MAX ?
		1 : op == OPTINC_MIN ? 2 : -1;

	if (t < 0 || o < 0 || (t == 0 && op == OPTINC_AVG))
		return OPTINC_ERR_UNSUPPORTED;
	ro->kind = by_op[t][o];
	ro->es = t == 2 ? 8 : 4;
	return 0;
}

/* AVG: every input times 2^-k, 2^k >= N; the last step divides. */
static void ring_pre_scale(struct ring_op *ro)
{
	int k = 0;
	size_t i;

	while ((1 << k) < ro->r->size)
		k++;
	ro->div = ldexp(ro->r->size, -k);
	for (i = 0; i < ro->count; i++) {
		if (ro->es == 8)
			((double *)ro->buf)[i] = ldexp(((double *)ro->buf)[i], -k);
		else
			((float *)ro->buf)[i] = ldexpf(((float *)ro->buf)[i], -k);
	}
}

int optinc_ring_allreduce(struct optinc_ring *ring, const void *send,
			  void *recv, size_t count, int datatype, int op,
			  char *err, size_t errlen)
{
	struct ring_op ro = { .r = ring, .buf = recv, .count = count };

	if (ring_kind_of(datatype, op, &ro) < 0)
		return ring_fail(err, errlen, OPTINC_ERR_UNSUPPORTED,
				 "ring: datatype %d with op %d is not supported",
				 datatype, op);
	if (!ring || (count && (!send || !recv)) || count > SIZE_MAX / 8)
		return ring_fail(err, errlen, OPTINC_ERR_INVALID,
				 "ring: all-reduce of %zu elements: no ring or no buffer",
				 count);
	ring->st.calls++;
	if (!count)
		return 0;
	if (send != recv)
		memcpy(recv, send, count * ro.es);
	if (op == OPTINC_AVG && ring->size > 1)
		ring_pre_scale(&ro);
	if (ring->size == 1)
		return 0;
	ro.steps = 2 * (ring->size - 1);
	return ring_run(&ro, err, errlen);
}
