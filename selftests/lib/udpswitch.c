// SPDX-License-Identifier: GPL-2.0
/*
 * Test harness: a loopback UDP switch on the switch's rules
 * (lib/core/switch.c), as optincd and optinc.ko run them, without ports.
 * It is no datapath (optincd is): one job, one thread, sendto() per
 * member. The core builds whole Ethernet frames; the UDP payload after
 * OPTINC_L2L4_LEN is what goes out.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <optinc/switch.h>
#include "udpswitch.h"

#define UDPSW_RX_LEN	65536
#define UDPSW_SOCKBUF	(8 << 20)

struct udpsw_drop {
	int on;
	enum udpsw_dir dir;
	uint16_t rank;
	uint32_t seq;
};

struct udpsw {
	struct optinc_job job;
	void *mem;
	int fd;
	struct optinc_endpoint ep;
	double loss;
	int bad_scales;
	uint64_t rng;
	atomic_int stop;
	pthread_t thr;
	pthread_mutex_t lock;	/* job state and stats */
	struct udpsw_stats st;
	struct udpsw_drop drop[UDPSW_DROPS];	/* one-shot drops */
	int blind;		/* rank + 1 that gets no 8-bit result; 0: none */
	uint8_t *rx, *tx;
	uint32_t tx_len;
};

static int udpsw_lose(struct udpsw *sw)
{
	uint64_t x = sw->rng;

	if (sw->loss <= 0)
		return 0;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	sw->rng = x;
	if ((double)(x >> 11) / (double)(1ULL << 53) >= sw->loss)
		return 0;
	sw->st.lost++;
	return 1;
}

/* Is this the frame a one-shot drop waits for? Then it is lost (once). */
static int udpsw_drop_hit(struct udpsw *sw, enum udpsw_dir dir, uint16_t rank,
			  uint32_t seq)
{
	struct udpsw_drop *d;

	for (d = sw->drop; d < sw->drop + UDPSW_DROPS; d++) {
		if (!d->on || d->dir != dir || d->rank != rank || d->seq != seq)
			continue;
		d->on = 0;
		sw->st.lost++;
		return 1;
	}
	return 0;
}

/* Room for a frame in sw->tx: one at a time, under sw->lock. */
static int udpsw_alloc(void *dp, struct optinc_job *job,
		       const struct optinc_sw_msg *in, int rank, uint32_t len,
		       struct optinc_sw_frame *f)
{
	struct udpsw *sw = dp;

	f->buf = sw->tx;
	f->room = sw->tx_len;
	return 0;
}

/*
 * Send the UDP payload of the Ethernet frame in sw->tx (@len bytes) to
 * @rank (-1: back to the sender), unless a loss or one-shot drop takes
 * it; with bad_scales, a result's first exponent is changed on the way.
 */
static int udpsw_send(void *dp, struct optinc_job *job,
		      const struct optinc_sw_msg *in, int rank,
		      struct optinc_sw_frame *f, uint32_t len)
{
	const struct optinc_endpoint *dst = rank < 0 ? in->src :
					    &job->members[rank].ep;
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = dst->ip,
		.sin_port = dst->port,
	};
	struct udpsw *sw = dp;
	struct optinc_msg m;

	if (len <= OPTINC_L2L4_LEN)
		return -EINVAL;
	if (optinc_msg_parse(sw->tx + OPTINC_L2L4_LEN, len - OPTINC_L2L4_LEN,
			     &m) == OPTINC_DROP_NONE && m.type == OPTINC_T_RESULT) {
		if (sw->bad_scales && m.nscale)
			sw->tx[OPTINC_FRAME_OVERHEAD] ^= 1;
		if (udpsw_drop_hit(sw, UDPSW_RESULT, (uint16_t)rank, m.seq))
			return 0;
		if (sw->blind == rank + 1 && m.bits != 16)
			return 0;
	}
	if (udpsw_lose(sw))
		return 0;
	if (sendto(sw->fd, sw->tx + OPTINC_L2L4_LEN, len - OPTINC_L2L4_LEN, 0,
		   (struct sockaddr *)&sa, sizeof(sa)) > 0)
		sw->st.tx++;
	return 0;
}

static void udpsw_count(void *dp, struct optinc_job *job,
			const struct optinc_sw_msg *in, enum optinc_sw_event ev,
			uint32_t arg)
{
	struct udpsw *sw = dp;

	if (ev == OPTINC_SW_DROPPED)
		sw->st.drops[arg]++;
	else if (ev == OPTINC_SW_COMPLETED)
		sw->st.complete++;
	else if (ev == OPTINC_SW_RESENT)
		sw->st.resend++;
}

/* No ports: no port security, no rate limit, no uplink. */
static const struct optinc_sw_ops udpsw_ops = {
	.alloc = udpsw_alloc,
	.send = udpsw_send,
	.count = udpsw_count,
};

static void udpsw_rx(struct udpsw *sw, uint32_t len,
		     const struct sockaddr_in *sa)
{
	const struct optinc_sw rules = { .ops = &udpsw_ops, .dp = sw, .ep = &sw->ep };
	struct optinc_endpoint src = {
		.ip = sa->sin_addr.s_addr,
		.port = sa->sin_port,
	};
	struct optinc_sw_msg in = { .src = &src };
	struct optinc_msg m = { .job = 0 };
	enum optinc_drop why;

	sw->st.rx++;
	if (udpsw_lose(sw))
		return;
	in.m = &m;
	why = optinc_msg_parse(sw->rx, len, &m);
	if (why == OPTINC_DROP_NONE && m.type == OPTINC_T_DATA &&
	    udpsw_drop_hit(sw, UDPSW_DATA, m.rank, m.seq))
		return;
	optinc_sw_input(&rules, why == OPTINC_DROP_NONE && m.job == sw->job.id ?
			&sw->job : NULL, NULL, &in, why);
}

static void *udpsw_main(void *arg)
{
	struct udpsw *sw = arg;
	struct pollfd pfd = { .fd = sw->fd, .events = POLLIN };
	struct sockaddr_in sa;
	socklen_t sl;
	ssize_t n;

	while (!atomic_load(&sw->stop)) {
		if (poll(&pfd, 1, 20) <= 0)
			continue;
		sl = sizeof(sa);
		n = recvfrom(sw->fd, sw->rx, UDPSW_RX_LEN, MSG_DONTWAIT,
			     (struct sockaddr *)&sa, &sl);
		if (n < 0)
			continue;
		pthread_mutex_lock(&sw->lock);
		udpsw_rx(sw, n, &sa);
		pthread_mutex_unlock(&sw->lock);
	}
	return NULL;
}

static int udpsw_socket(struct udpsw *sw)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	socklen_t sl = sizeof(sa);
	int sz = UDPSW_SOCKBUF;

	sw->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sw->fd < 0)
		return -errno;
	if (setsockopt(sw->fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(sw->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (bind(sw->fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(sw->fd, (struct sockaddr *)&sa, &sl))
		return -errno;
	sw->ep.ip = sa.sin_addr.s_addr;
	sw->ep.port = sa.sin_port;
	return 0;
}

/* The job, as a datapath makes one: the core's checks and set-up. */
static int udpsw_job(struct udpsw *sw, const struct udpsw_opts *o)
{
	struct optinc_job_cfg c = {
		.id = o->job, .size = o->size, .bits = 8,
		.mode = OPTINC_MODE_EXACT, .token = o->token,
		.window = o->window ? o->window : OPTINC_DEF_WINDOW,
		.max_elems = o->max_elems ? o->max_elems : OPTINC_DEF_MAX_ELEMS,
	};
	struct optinc_job_err e;
	uint64_t len;

	if (optinc_job_cfg_check(&c, NULL, &e)) {
		fprintf(stderr, "udpswitch: %s\n", e.msg);
		return -EINVAL;
	}
	len = optinc_job_mem(c.window, c.max_elems);
	sw->mem = aligned_alloc(64, (len + 63) & ~63ULL);
	sw->tx_len = OPTINC_FRAME_OVERHEAD + OPTINC_MAX_SCALES +
		     4u * c.max_elems;
	sw->tx = malloc(sw->tx_len);
	sw->rx = malloc(UDPSW_RX_LEN);
	if (!sw->mem || !sw->tx || !sw->rx)
		return -ENOMEM;
	return optinc_job_setup(&sw->job, &c, NULL, sw->mem, len);
}

static void udpsw_free(struct udpsw *sw)
{
	if (sw->fd >= 0)
		close(sw->fd);
	pthread_mutex_destroy(&sw->lock);
	free(sw->mem);
	free(sw->tx);
	free(sw->rx);
	free(sw);
}

/* Start a switch on 127.0.0.1 (port: udpsw_port()); 0 or -errno. */
int udpsw_start(const struct udpsw_opts *o, struct udpsw **out)
{
	struct udpsw *sw = calloc(1, sizeof(*sw));
	int err;

	if (!sw)
		return -ENOMEM;
	sw->fd = -1;
	sw->loss = o->loss;
	sw->bad_scales = o->bad_scales;
	sw->rng = 0x9e3779b97f4a7c15ULL ^ o->seed;
	pthread_mutex_init(&sw->lock, NULL);
	err = udpsw_job(sw, o);
	if (!err)
		err = udpsw_socket(sw);
	if (!err)
		err = -pthread_create(&sw->thr, NULL, udpsw_main, sw);
	if (err) {
		udpsw_free(sw);
		return err;
	}
	*out = sw;
	return 0;
}

/*
 * Lose the first @dir frame of @seq from (DATA) or to (RESULT) member
 * @rank that comes after this call. Return: 0, or -ENOSPC when
 * UDPSW_DROPS drops wait already.
 */
int udpsw_drop_once(struct udpsw *sw, enum udpsw_dir dir, uint16_t rank,
		    uint32_t seq)
{
	struct udpsw_drop *d;
	int err = -ENOSPC;

	pthread_mutex_lock(&sw->lock);
	for (d = sw->drop; d < sw->drop + UDPSW_DROPS; d++) {
		if (d->on)
			continue;
		*d = (struct udpsw_drop){ .on = 1, .dir = dir, .rank = rank,
					  .seq = seq };
		err = 0;
		break;
	}
	pthread_mutex_unlock(&sw->lock);
	return err;
}

/*
 * From now on, member @rank (-1: none) gets no result of an 8-bit phase:
 * a float call's block codes (16 bits) still reach it, so it sends its
 * data and the others complete the call, while it stays in it.
 */
void udpsw_blind(struct udpsw *sw, int rank)
{
	pthread_mutex_lock(&sw->lock);
	sw->blind = rank + 1;
	pthread_mutex_unlock(&sw->lock);
}

uint16_t udpsw_port(const struct udpsw *sw)
{
	return ntohs(sw->ep.port);
}

void udpsw_get_stats(struct udpsw *sw, struct udpsw_stats *st)
{
	pthread_mutex_lock(&sw->lock);
	*st = sw->st;
	pthread_mutex_unlock(&sw->lock);
}

void udpsw_stop(struct udpsw *sw)
{
	atomic_store(&sw->stop, 1);
	pthread_join(sw->thr, NULL);
	udpsw_free(sw);
}

/*
 * The loopback test switch for @n members (job 1) with @window slots (0:
 * its default) and @loss; @addr gets "127.0.0.1:PORT". Return: 0 or the
 * error, said as a TAP diagnostic line.
 */
int test_switch_start(int n, uint16_t window, double loss, struct udpsw **sw,
		      char *addr, size_t len)
{
	struct udpsw_opts so = {
		.job = 1, .size = n, .window = window, .loss = loss, .seed = 7,
	};
	int err = udpsw_start(&so, sw);

	if (err) {
		printf("# udpswitch: %s\n", strerror(-err));
		*sw = NULL;
		return err;
	}
	snprintf(addr, len, "127.0.0.1:%u", udpsw_port(*sw));
	return 0;
}
