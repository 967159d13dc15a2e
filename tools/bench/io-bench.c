// SPDX-License-Identifier: BSD-3-Clause
/*
 * optinc-io-bench: the frames of an optinc all-reduce without its float
 * work. Each rank sends real OptINC DATA frames, built by the core, as
 * liboptinc would for BYTES of float32: an exponent phase (op MAX, one
 * byte per block; --no-exp leaves it out) and a data phase (op AVG, 8-bit
 * values, the agreed exponents as scales), with seq, slot and shadow bit
 * per the protocol and at most WINDOW frames in flight. Mode reflect: a
 * forwarder sends every frame back (dpdk-testpmd, 5tswap, port topology
 * loop); mode optinc: the rank JOINs the job of a running optincd and gets
 * RESULT frames. Every frame back is checked (type, seq among those in
 * flight, slot, shadow bit, shape, payload length, scales and values);
 * any difference is an error exit. The values are made so that the exact
 * average is known: rank r sends v + 2r - (N - 1), which averages to v.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>

#include <optinc/core.h>
#include "refdata.h"

#define IO_BATCH	64
#define IO_SOCKBUF	(4 << 20)
#define IO_PAT		61	/* values repeat with this period */
#define IO_JOIN_EVERY_MS 100
#define IO_JOIN_MS	20000
#define IO_GIVEUP_MS	10000	/* no frame back for this long: error */
#define IO_MAX_BACKOFF	4

enum io_mode { IO_REFLECT, IO_OPTINC };

struct io_cfg {
	size_t bytes;		/* float32 buffer the frames stand for */
	unsigned int mtu, block, max_elems, window, iters, warmup;
	unsigned int timeout_ms;
	int mode, exp_phase;
	double start_at;	/* CLOCK_REALTIME to start at, 0: now */
	unsigned int rank, size, job;
	__u32 token;
};

struct io_phase {
	__u8 op;
	__u32 count;		/* elements in the phase */
	__u32 per_frame;	/* elements of a full frame */
	__u32 nframes;
};

struct io_stats {
	unsigned long rx, rx_bytes, retx, dup, other;
};

/* One phase's frames in flight: frame i has seq seq0 + i. */
struct io_win {
	__u32 seq0, low, next, hi;
};

struct io_ctx {
	const struct io_cfg *cfg;
	int fd;
	__u16 sw_window, max_elems;
	unsigned int window, room;
	__u32 seq, nblocks;
	struct io_phase exp, data;
	__s8 *prop;		/* this rank's exponent proposals */
	__s8 *agreed;		/* what the MAX phase must return */
	__u8 *pat;		/* this rank's values */
	__u8 *want;		/* the values the data phase must return */
	__u8 *tx, *done, *rx;
	__u32 *tx_len;
	struct mmsghdr msg[IO_BATCH];
	struct iovec iov[IO_BATCH];
	struct io_stats st;
};

static void io_usage(void)
{
	fprintf(stderr,
		"usage: optinc-io-bench [-M reflect|optinc] [-b BYTES] [-m MTU] [-W WINDOW]\n"
		"                       [-n ITERS] [-w WARMUP] [--block N] [--max-elems N]\n"
		"                       [--no-exp] [-t TIMEOUT_MS] [--start-at UNIXTIME]\n"
		"  Sends the frames of an optinc all-reduce of BYTES of float32 (8-bit values,\n"
		"  one exponent per block) to $OPTINC_SWITCH and checks every frame back:\n"
		"  reflect: its own frames (a forwarder); optinc: RESULT frames (optincd job\n"
		"  $OPTINC_JOB, token $OPTINC_TOKEN, rank $OPTINC_RANK of $OPTINC_SIZE).\n");
}

static double io_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int io_env(const char *name, unsigned long def, unsigned long max,
		  unsigned long *v)
{
	const char *s = getenv(name);
	char *end;

	*v = def;
	if (!s)
		return 0;
	errno = 0;
	*v = strtoul(s, &end, 0);
	if (errno || !*s || *end || *v > max) {
		fprintf(stderr, "optinc-io-bench: %s=%s: not a number up to %lu\n",
			name, s, max);
		return -EINVAL;
	}
	return 0;
}

/* Rank, size, job and token as optinc-testbed and liboptinc give them. */
static int io_env_all(struct io_cfg *cfg)
{
	unsigned long rank, size, job, token;

	if (io_env("OPTINC_RANK", 0, 65534, &rank) ||
	    io_env("OPTINC_SIZE", 1, OPTINC_MAX_MEMBERS, &size) ||
	    io_env("OPTINC_JOB", 1, 65535, &job) ||
	    io_env("OPTINC_TOKEN", 0, 0xffffffffUL, &token))
		return -EINVAL;
	if (!size || rank >= size) {
		fprintf(stderr, "optinc-io-bench: rank %lu of size %lu\n",
			rank, size);
		return -EINVAL;
	}
	cfg->rank = rank;
	cfg->size = size;
	cfg->job = job;
	cfg->token = token;
	return 0;
}

static int io_parse_mode(const char *s, int *mode)
{
	if (!strcmp(s, "reflect"))
		*mode = IO_REFLECT;
	else if (!strcmp(s, "optinc"))
		*mode = IO_OPTINC;
	else
		return -EINVAL;
	return 0;
}

static int io_parse(int argc, char **argv, struct io_cfg *cfg)
{
	static const struct option lopts[] = {
		{ "block", required_argument, NULL, 'K' },
		{ "max-elems", required_argument, NULL, 'E' },
		{ "no-exp", no_argument, NULL, 'X' },
		{ "start-at", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, err = 0;

	while ((c = getopt_long(argc, argv, "M:b:m:W:n:w:t:h", lopts,
				NULL)) != -1) {
		switch (c) {
		case 'M': err |= io_parse_mode(optarg, &cfg->mode); break;
		case 'b': err |= refdata_parse_size(optarg, &cfg->bytes); break;
		case 'm': cfg->mtu = atoi(optarg); break;
		case 'W': cfg->window = atoi(optarg); break;
		case 'n': cfg->iters = atoi(optarg); break;
		case 'w': cfg->warmup = atoi(optarg); break;
		case 't': cfg->timeout_ms = atoi(optarg); break;
		case 'K': cfg->block = atoi(optarg); break;
		case 'E': cfg->max_elems = atoi(optarg); break;
		case 'X': cfg->exp_phase = 0; break;
		case 'S': cfg->start_at = atof(optarg); break;
		default: return -EINVAL;
		}
	}
	if (err || optind != argc || !cfg->iters || !cfg->block ||
	    cfg->block > 65535 || !cfg->window || cfg->window > 4096 ||
	    !cfg->timeout_ms || cfg->mtu < 576 || cfg->mtu > 65535 ||
	    !cfg->max_elems || cfg->max_elems > 65535 || cfg->bytes < 4)
		return -EINVAL;
	return io_env_all(cfg);
}

/* A UDP socket connected to OPTINC_SWITCH (IPv4:port). */
static int io_socket(void)
{
	const char *env = getenv("OPTINC_SWITCH");
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char host[64], *colon;
	int fd, sz = IO_SOCKBUF;

	if (!env || strlen(env) >= sizeof(host)) {
		fprintf(stderr, "optinc-io-bench: set OPTINC_SWITCH=IPV4:PORT\n");
		return -EINVAL;
	}
	strcpy(host, env);
	colon = strchr(host, ':');
	if (colon)
		*colon = '\0';
	sa.sin_port = htons(colon ? atoi(colon + 1) : OPTINC_UDP_PORT);
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		fprintf(stderr, "optinc-io-bench: OPTINC_SWITCH=%s: not IPv4:port\n",
			env);
		return -EINVAL;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "optinc-io-bench: socket to %s: %s\n", env,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	return fd;
}

/*
 * Receive what is queued, waiting up to @timeout_ms for the first frame;
 * x->msg[k].msg_len is frame k's length. Return: frames, or -errno.
 */
static int io_recv(struct io_ctx *x, int timeout_ms)
{
	struct pollfd pfd = { .fd = x->fd, .events = POLLIN };
	int r;

	r = recvmmsg(x->fd, x->msg, IO_BATCH, MSG_DONTWAIT, NULL);
	if (r < 0 && errno == EAGAIN) {
		r = poll(&pfd, 1, timeout_ms);
		if (r > 0)
			r = recvmmsg(x->fd, x->msg, IO_BATCH, MSG_DONTWAIT, NULL);
		if (r < 0 && errno == EAGAIN)
			r = 0;
	}
	if (r < 0) {
		fprintf(stderr, "optinc-io-bench: receive: %s\n",
			strerror(errno));
		return -errno;
	}
	return r;
}

static int io_send(struct io_ctx *x, const void *buf, size_t len)
{
	if (send(x->fd, buf, len, 0) == (ssize_t)len)
		return 0;
	fprintf(stderr, "optinc-io-bench: send: %s\n", strerror(errno));
	return -errno;
}

/*
 * Wait until @at (seconds since the epoch), so that ranks started one
 * after the other send at the same time; at most a minute.
 */
static int io_start_at(double at)
{
	struct timespec ts;
	double now, left;

	clock_gettime(CLOCK_REALTIME, &ts);
	now = ts.tv_sec + ts.tv_nsec * 1e-9;
	left = at - now;
	if (left > 60) {
		fprintf(stderr, "optinc-io-bench: --start-at is %.0f s away\n", left);
		return -EINVAL;
	}
	if (left <= 0)
		return 0;
	ts.tv_sec = (time_t)left;
	ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	return 0;
}

/* ---- JOIN (optinc mode), as liboptinc does it (lib/join.c) ---- */

static int io_join_send(struct io_ctx *x, __u32 nonce)
{
	const struct io_cfg *cfg = x->cfg;
	struct optinc_msg m = {
		.type = OPTINC_T_JOIN, .job = cfg->job, .rank = cfg->rank,
		.token = cfg->token, .seq = nonce, .bits = 8,
	};
	struct optinc_hdr h;

	optinc_hdr_fill(&h, &m);
	return io_send(x, &h, sizeof(h));
}

/* Return: 1 when every member has joined, 0 to wait on, or -errno. */
static int io_join_rx(struct io_ctx *x, __u32 nonce, const void *buf,
		      __u32 len)
{
	const struct io_cfg *cfg = x->cfg;
	struct optinc_msg m;

	if (optinc_msg_parse(buf, len, &m) != OPTINC_DROP_NONE ||
	    m.job != cfg->job)
		return 0;
	if (m.type == OPTINC_T_NACK) {
		fprintf(stderr, "optinc-io-bench: rank %u: JOIN of job %u refused (reason %u)\n",
			cfg->rank, cfg->job, m.aux);
		return -EPERM;
	}
	if (m.type != OPTINC_T_JOIN_ACK || m.rank != cfg->rank ||
	    m.seq != nonce)
		return 0;
	if (m.size != cfg->size || !m.slot || !m.count) {
		fprintf(stderr, "optinc-io-bench: rank %u: job %u has %u members, window %u, %u elements per frame (started with size %u)\n",
			cfg->rank, cfg->job, m.size, m.slot, m.count,
			cfg->size);
		return -EPROTO;
	}
	x->sw_window = m.slot;
	x->max_elems = m.count;
	return m.aux >= m.size;
}

static int io_join(struct io_ctx *x)
{
	double end = io_now() + IO_JOIN_MS / 1e3, next = 0;
	__u32 nonce;
	int n, k, r;

	if (getrandom(&nonce, sizeof(nonce), 0) != sizeof(nonce))
		nonce = (__u32)getpid() * 2654435761u;
	while (io_now() < end) {
		if (io_now() >= next) {
			if ((r = io_join_send(x, nonce)))
				return r;
			next = io_now() + IO_JOIN_EVERY_MS / 1e3;
		}
		n = io_recv(x, IO_JOIN_EVERY_MS / 4);
		if (n < 0)
			return n;
		for (k = 0; k < n; k++) {
			r = io_join_rx(x, nonce, x->msg[k].msg_hdr.msg_iov->iov_base,
				       x->msg[k].msg_len);
			if (r)
				return r < 0 ? r : 0;
		}
	}
	fprintf(stderr, "optinc-io-bench: rank %u: not every member joined job %u in %u ms\n",
		x->cfg->rank, x->cfg->job, IO_JOIN_MS);
	return -ETIMEDOUT;
}

/* ---- frames ---- */

static __u32 io_frame_n(const struct io_phase *p, __u32 i)
{
	__u32 left = p->count - i * p->per_frame;

	return left < p->per_frame ? left : p->per_frame;
}

static __u8 io_nscale(const struct io_ctx *x, const struct io_phase *p,
		      __u32 n)
{
	return p->op == OPTINC_OP_AVG ?
	       (n + x->cfg->block - 1) / x->cfg->block : 0;
}

static __u8 *io_txbuf(const struct io_ctx *x, __u32 i)
{
	return x->tx + (size_t)(i % x->window) * x->room;
}

/* The values frame @i of @p must come back with. */
static const __u8 *io_expect(const struct io_ctx *x, const struct io_phase *p,
			     __u32 i)
{
	if (p->op == OPTINC_OP_MAX)
		return (const __u8 *)x->agreed + (size_t)i * p->per_frame;
	if (x->cfg->mode == IO_REFLECT)
		return x->pat + i % IO_PAT;
	return x->want + i % IO_PAT;
}

/* Build DATA frame @i of @p (seq w->seq0 + i) in its window buffer. */
static void io_build(struct io_ctx *x, const struct io_phase *p,
		     const struct io_win *w, __u32 i)
{
	const struct io_cfg *cfg = x->cfg;
	__u32 n = io_frame_n(p, i), seq = w->seq0 + i;
	struct optinc_msg m = {
		.type = OPTINC_T_DATA, .job = cfg->job, .rank = cfg->rank,
		.token = cfg->token, .seq = seq,
		.slot = seq % x->sw_window,
		.flags = (seq / x->sw_window) & 1 ? OPTINC_F_SHADOW : 0,
		.op = p->op, .count = n, .bits = 8,
		.nscale = io_nscale(x, p, n),
		.block = p->op == OPTINC_OP_AVG ? cfg->block : 0,
	};
	__u8 *buf = io_txbuf(x, i), *scales = buf + OPTINC_HDR_LEN;
	__u8 *elems = scales + OPTINC_SCALES_LEN(m.nscale);

	optinc_hdr_fill((struct optinc_hdr *)buf, &m);
	memset(scales, 0, OPTINC_SCALES_LEN(m.nscale));
	if (p->op == OPTINC_OP_AVG) {
		memcpy(scales, x->agreed + (size_t)i * (p->per_frame / cfg->block),
		       m.nscale);
		memcpy(elems, x->pat + i % IO_PAT, n);
	} else {
		memcpy(elems, x->prop + (size_t)i * p->per_frame, n);
	}
	x->tx_len[i % x->window] = OPTINC_HDR_LEN +
				   optinc_msg_payload_len(8, n, m.nscale);
	x->done[i % x->window] = 0;
}

static int io_bad(const struct io_ctx *x, __u32 seq, const char *what)
{
	fprintf(stderr, "optinc-io-bench: rank %u: frame back for seq %u: %s\n",
		x->cfg->rank, seq, what);
	return -EPROTO;
}

/* Frame @i of @p came back as @m (@len bytes): is it what it must be? */
static int io_check(const struct io_ctx *x, const struct io_phase *p,
		    const struct io_win *w, __u32 i,
		    const struct optinc_msg *m, __u32 len)
{
	__u32 n = io_frame_n(p, i), seq = w->seq0 + i;
	__u8 ns = io_nscale(x, p, n);
	__u8 type = x->cfg->mode == IO_REFLECT ? OPTINC_T_DATA :
						 OPTINC_T_RESULT;
	__u8 shadow = (seq / x->sw_window) & 1 ? OPTINC_F_SHADOW : 0;

	if (m->type != type)
		return io_bad(x, seq, "wrong type");
	if (m->slot != seq % x->sw_window ||
	    (m->flags & OPTINC_F_SHADOW) != shadow)
		return io_bad(x, seq, "wrong slot or shadow bit");
	if (m->op != p->op || m->bits != 8 || m->count != n ||
	    m->nscale != ns || (ns && m->block != x->cfg->block))
		return io_bad(x, seq, "wrong op, bits, count or scales");
	if (len != OPTINC_HDR_LEN + optinc_msg_payload_len(8, n, ns))
		return io_bad(x, seq, "wrong payload length");
	if (ns && memcmp(m->scales, io_txbuf(x, i) + OPTINC_HDR_LEN, ns))
		return io_bad(x, seq, "other exponents than were sent");
	if (memcmp(m->elems, io_expect(x, p, i), n))
		return io_bad(x, seq, "wrong values");
	return 0;
}

/* Take one frame back; duplicates of frames already back are counted. */
static int io_take(struct io_ctx *x, const struct io_phase *p,
		   struct io_win *w, const void *buf, __u32 len)
{
	struct optinc_msg m;
	enum optinc_drop why;
	__u32 i;
	int err;

	why = optinc_msg_parse(buf, len, &m);
	if (why != OPTINC_DROP_NONE) {
		fprintf(stderr, "optinc-io-bench: rank %u: frame back: %s\n",
			x->cfg->rank, optinc_drop_names[why]);
		return -EPROTO;
	}
	if (m.type == OPTINC_T_JOIN_ACK && x->cfg->mode == IO_OPTINC) {
		x->st.other++;	/* answers to our JOINs, late */
		return 0;
	}
	if (m.job != x->cfg->job || m.token != x->cfg->token)
		return io_bad(x, m.seq, "wrong job or token");
	i = m.seq - w->seq0;
	if (optinc_seq_after(w->seq0, m.seq) ||
	    (i < w->next && (i < w->low || x->done[i % x->window]))) {
		x->st.dup++;
		return 0;
	}
	if (i >= w->next)
		return io_bad(x, m.seq, "not in flight");
	err = io_check(x, p, w, i, &m, len);
	if (err)
		return err;
	x->done[i % x->window] = 1;
	x->st.rx++;
	x->st.rx_bytes += len;
	if (i + 1 > w->hi)
		w->hi = i + 1;
	while (w->low < w->next && x->done[w->low % x->window])
		w->low++;
	return 0;
}

/* Send what the window allows; frames the socket refuses go next time. */
static int io_fill(struct io_ctx *x, const struct io_phase *p,
		   struct io_win *w)
{
	struct mmsghdr msg[IO_BATCH] = { 0 };
	struct iovec iov[IO_BATCH];
	__u32 k = 0, i;
	int r;

	for (i = w->next; i < p->nframes && i < w->low + x->window &&
	     k < IO_BATCH; i++, k++) {
		io_build(x, p, w, i);
		iov[k].iov_base = io_txbuf(x, i);
		iov[k].iov_len = x->tx_len[i % x->window];
		msg[k].msg_hdr.msg_iov = &iov[k];
		msg[k].msg_hdr.msg_iovlen = 1;
	}
	if (!k)
		return 0;
	r = sendmmsg(x->fd, msg, k, MSG_DONTWAIT);
	if (r < 0 && errno != EAGAIN && errno != ENOBUFS) {
		fprintf(stderr, "optinc-io-bench: send: %s\n", strerror(errno));
		return -errno;
	}
	if (r > 0)
		w->next += r;
	return 0;
}

/*
 * Nothing came back for a while: send again the oldest frame without its
 * result and every hole before the latest frame back (lost there or back).
 */
static int io_retx(struct io_ctx *x, struct io_win *w)
{
	__u32 i;
	int err;

	for (i = w->low; i < w->next && (i == w->low || i < w->hi); i++) {
		if (x->done[i % x->window])
			continue;
		err = io_send(x, io_txbuf(x, i), x->tx_len[i % x->window]);
		if (err)
			return err;
		x->st.retx++;
	}
	return 0;
}

/* One phase: all its frames out and back, with seqs from x->seq on. */
static int io_phase_run(struct io_ctx *x, const struct io_phase *p)
{
	struct io_win w = { .seq0 = x->seq };
	unsigned int idle = 0, waited = 0, wait;
	int n, k, err = 0;

	while (!err && w.low < p->nframes) {
		err = io_fill(x, p, &w);
		if (err)
			break;
		wait = x->cfg->timeout_ms <<
		       (idle < IO_MAX_BACKOFF ? idle : IO_MAX_BACKOFF);
		n = io_recv(x, wait);
		if (n < 0)
			return n;
		if (!n) {
			waited += wait;
			if (waited >= IO_GIVEUP_MS)
				return io_bad(x, w.seq0 + w.low, "none after 10 s");
			idle++;
			err = io_retx(x, &w);
			continue;
		}
		idle = waited = 0;
		for (k = 0; k < n && !err; k++)
			err = io_take(x, p, &w, x->msg[k].msg_hdr.msg_iov->iov_base,
				      x->msg[k].msg_len);
	}
	x->seq = w.seq0 + p->nframes;
	return err;
}

static int io_call(struct io_ctx *x)
{
	int err = 0;

	if (x->cfg->exp_phase)
		err = io_phase_run(x, &x->exp);
	return err ? err : io_phase_run(x, &x->data);
}

/* ---- set-up and report ---- */

/* Frame sizes of both phases, as liboptinc's optinc_frame_elems(). */
static int io_shape(struct io_ctx *x)
{
	const struct io_cfg *cfg = x->cfg;
	__u32 room = x->room - OPTINC_HDR_LEN, k, elems = cfg->bytes / 4;

	k = x->max_elems / cfg->block;
	if (k > OPTINC_MAX_SCALES)
		k = OPTINC_MAX_SCALES;
	while (k && OPTINC_SCALES_LEN(k) + k * cfg->block > room)
		k--;
	if (!k) {
		fprintf(stderr, "optinc-io-bench: no frame of %u-element blocks fits MTU %u and %u elements per slot\n",
			cfg->block, cfg->mtu, x->max_elems);
		return -EINVAL;
	}
	x->nblocks = (elems + cfg->block - 1) / cfg->block;
	x->data = (struct io_phase){ .op = OPTINC_OP_AVG, .count = elems,
				     .per_frame = k * cfg->block };
	x->exp = (struct io_phase){ .op = OPTINC_OP_MAX, .count = x->nblocks,
				    .per_frame = room < x->max_elems ?
						 room : x->max_elems };
	x->data.nframes = (elems + x->data.per_frame - 1) / x->data.per_frame;
	x->exp.nframes = (x->nblocks + x->exp.per_frame - 1) / x->exp.per_frame;
	return 0;
}

static __s8 io_prop(__u32 b, unsigned int rank)
{
	return (__s8)((b * 5 + rank * 3) % 17) - 8;
}

/* Exponents and values of this rank, and what must come back. */
static void io_values(struct io_ctx *x)
{
	const struct io_cfg *cfg = x->cfg;
	int c = 2 * (int)cfg->rank - ((int)cfg->size - 1);
	__u32 b, j;
	unsigned int r;
	__s8 e;

	for (b = 0; b < x->nblocks; b++) {
		x->prop[b] = io_prop(b, cfg->rank);
		x->agreed[b] = x->prop[b];
		for (r = 0; cfg->mode == IO_OPTINC && r < cfg->size; r++) {
			e = io_prop(b, r);
			if (e > x->agreed[b])
				x->agreed[b] = e;
		}
	}
	for (j = 0; j < x->data.per_frame + IO_PAT; j++) {
		x->want[j] = 128 - 30 + j % IO_PAT;
		x->pat[j] = (__u8)(x->want[j] + c);
	}
}

static int io_alloc(struct io_ctx *x)
{
	x->prop = malloc(x->nblocks);
	x->agreed = malloc(x->nblocks);
	x->pat = malloc(x->data.per_frame + IO_PAT);
	x->want = malloc(x->data.per_frame + IO_PAT);
	x->tx = malloc((size_t)x->window * x->room);
	x->tx_len = calloc(x->window, sizeof(*x->tx_len));
	x->done = calloc(x->window, 1);
	if (!x->prop || !x->agreed || !x->pat || !x->want || !x->tx ||
	    !x->tx_len || !x->done) {
		fprintf(stderr, "optinc-io-bench: out of memory\n");
		return -ENOMEM;
	}
	io_values(x);
	return 0;
}

static void io_free(struct io_ctx *x)
{
	free(x->prop);
	free(x->agreed);
	free(x->pat);
	free(x->want);
	free(x->tx);
	free(x->tx_len);
	free(x->done);
	free(x->rx);
}

/* Receive buffers, one per frame of a batch, and the join if any. */
static int io_start(struct io_ctx *x)
{
	unsigned int k;
	int err;

	x->room = x->cfg->mtu - 28;
	x->rx = malloc((size_t)IO_BATCH * x->room);
	if (!x->rx) {
		fprintf(stderr, "optinc-io-bench: out of memory\n");
		return -ENOMEM;
	}
	for (k = 0; k < IO_BATCH; k++) {
		x->iov[k].iov_base = x->rx + (size_t)k * x->room;
		x->iov[k].iov_len = x->room;
		x->msg[k].msg_hdr.msg_iov = &x->iov[k];
		x->msg[k].msg_hdr.msg_iovlen = 1;
	}
	x->sw_window = x->cfg->window;
	x->max_elems = x->cfg->max_elems;
	if ((err = io_start_at(x->cfg->start_at)))
		return err;
	if (x->cfg->mode == IO_OPTINC && (err = io_join(x)))
		return err;
	x->window = x->cfg->window < x->sw_window ? x->cfg->window :
						     x->sw_window;
	err = io_shape(x);
	return err ? err : io_alloc(x);
}

/* UDP payload of a full data frame. */
static unsigned int io_payload(const struct io_ctx *x)
{
	const struct io_phase *p = &x->data;

	return OPTINC_HDR_LEN +
	       optinc_msg_payload_len(8, p->per_frame,
				      io_nscale(x, p, p->per_frame));
}

static void io_header(const struct io_ctx *x)
{
	const struct io_cfg *cfg = x->cfg;

	printf("# optinc-io-bench: mode %s, %u ranks, %u exponent + %u data frames per call, "
	       "data frame %u bytes (UDP payload), window %u, iters %u, warmup %u\n"
	       "# rank        bytes  frames payload  time(us)  frames/s  GB/s(rx) retx\n",
	       cfg->mode == IO_OPTINC ? "optinc" : "reflect", cfg->size,
	       cfg->exp_phase ? x->exp.nframes : 0, x->data.nframes,
	       io_payload(x), x->window, cfg->iters, cfg->warmup);
}

static int io_run(struct io_ctx *x)
{
	const struct io_cfg *cfg = x->cfg;
	struct io_stats warm;
	unsigned int i, frames;
	double t0, t;
	int err;

	for (i = 0; i < cfg->warmup; i++)
		if ((err = io_call(x)))
			return err;
	warm = x->st;
	memset(&x->st, 0, sizeof(x->st));
	t0 = io_now();
	for (i = 0; i < cfg->iters; i++)
		if ((err = io_call(x)))
			return err;
	t = io_now() - t0;
	frames = x->data.nframes + (cfg->exp_phase ? x->exp.nframes : 0);
	printf("%u %zu %u %u %.1f %.0f %.4f %lu\n", cfg->rank, cfg->bytes,
	       frames, io_payload(x), t / cfg->iters * 1e6, x->st.rx / t,
	       x->st.rx_bytes / t / 1e9, x->st.retx);
	printf("# rank %u: %lu frames back, all checked (seq, slot, shadow, shape, length, exponents, values); "
	       "%lu duplicates, %lu retransmitted, %lu late JOIN_ACKs, warm-up included\n",
	       cfg->rank, warm.rx + x->st.rx, warm.dup + x->st.dup,
	       warm.retx + x->st.retx, warm.other + x->st.other);
	return 0;
}

int main(int argc, char **argv)
{
	struct io_cfg cfg = {
		.bytes = 64 << 20, .mtu = 9000, .block = 256,
		.max_elems = 8704, .window = 64, .iters = 5, .warmup = 1,
		.timeout_ms = 10, .mode = IO_REFLECT, .exp_phase = 1,
	};
	struct io_ctx x = { .cfg = &cfg };
	int err;

	if (io_parse(argc, argv, &cfg)) {
		io_usage();
		return EXIT_FAILURE;
	}
	x.fd = io_socket();
	if (x.fd < 0)
		return EXIT_FAILURE;
	err = io_start(&x);
	if (!err) {
		if (cfg.rank == 0)
			io_header(&x);
		err = io_run(&x);
	}
	io_free(&x);
	close(x.fd);
	return err ? EXIT_FAILURE : EXIT_SUCCESS;
}
