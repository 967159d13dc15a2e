// SPDX-License-Identifier: BSD-3-Clause
/*
 * optinc-io-bench: the I/O part of an optinc all-reduce without the
 * all-reduce. Each rank sends the frames optinc would send for a float32
 * buffer (same count, same UDP payload size, same window) to the switch
 * address and waits for as many frames back, which a reflecting forwarder
 * (dpdk-testpmd in 5tswap mode, port topology loop) gives it. Every rank
 * prints its time per call and goodput (bytes received per second).
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
#include <sys/socket.h>

#include <optinc/wire.h>
#include "refdata.h"

#define IO_BATCH	64
#define IO_SOCKBUF	(4 << 20)
#define IO_MAX_PAYLOAD	65507

struct io_cfg {
	size_t bytes;		/* float32 buffer the frames stand for */
	unsigned int mtu, block, max_elems, window, iters, warmup;
	unsigned int timeout_ms;
	unsigned int payload, frames;
};

struct io_stats {
	unsigned long rx, lost;
};

static void io_usage(void)
{
	fprintf(stderr,
		"usage: optinc-io-bench [-b BYTES] [-m MTU] [-W WINDOW] [-n ITERS] [-w WARMUP]\n"
		"                       [--block N] [--max-elems N] [-t TIMEOUT_MS]\n"
		"  Sends the frames of an optinc all-reduce of BYTES of float32 (8-bit values,\n"
		"  one scale per block) to $OPTINC_SWITCH and counts the frames that come back.\n");
}

/* Elements and UDP payload of a full data frame, as liboptinc sizes them. */
static int io_frame_shape(struct io_cfg *cfg)
{
	unsigned int room = cfg->mtu - 28 - OPTINC_HDR_LEN, k;

	k = cfg->max_elems / cfg->block;
	if (k > OPTINC_MAX_SCALES)
		k = OPTINC_MAX_SCALES;
	while (k && OPTINC_SCALES_LEN(k) + k * cfg->block > room)
		k--;
	if (!k)
		return -EINVAL;
	cfg->payload = OPTINC_HDR_LEN + OPTINC_SCALES_LEN(k) + k * cfg->block;
	cfg->frames = (cfg->bytes / 4 + k * cfg->block - 1) / (k * cfg->block);
	return 0;
}

static int io_parse(int argc, char **argv, struct io_cfg *cfg)
{
	static const struct option lopts[] = {
		{ "block", required_argument, NULL, 'K' },
		{ "max-elems", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, err = 0;

	while ((c = getopt_long(argc, argv, "b:m:W:n:w:t:h", lopts,
				NULL)) != -1) {
		switch (c) {
		case 'b': err |= refdata_parse_size(optarg, &cfg->bytes); break;
		case 'm': cfg->mtu = atoi(optarg); break;
		case 'W': cfg->window = atoi(optarg); break;
		case 'n': cfg->iters = atoi(optarg); break;
		case 'w': cfg->warmup = atoi(optarg); break;
		case 't': cfg->timeout_ms = atoi(optarg); break;
		case 'K': cfg->block = atoi(optarg); break;
		case 'E': cfg->max_elems = atoi(optarg); break;
		default: return -EINVAL;
		}
	}
	if (err || optind != argc || !cfg->iters || !cfg->block ||
	    !cfg->window || cfg->mtu < 576 || cfg->bytes < 4)
		return -EINVAL;
	return io_frame_shape(cfg);
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

static double io_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Send up to @n frames of @buf; returns how many the socket took. */
static unsigned int io_send(int fd, void *buf, unsigned int len, unsigned int n)
{
	struct mmsghdr msg[IO_BATCH] = { 0 };
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	unsigned int i;
	int r;

	if (n > IO_BATCH)
		n = IO_BATCH;
	for (i = 0; i < n; i++) {
		msg[i].msg_hdr.msg_iov = &iov;
		msg[i].msg_hdr.msg_iovlen = 1;
	}
	r = sendmmsg(fd, msg, n, MSG_DONTWAIT);
	return r > 0 ? (unsigned int)r : 0;
}

/* Receive what is there, waiting up to @timeout_ms for the first frame. */
static int io_recv(int fd, void *buf, unsigned int len, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct mmsghdr msg[IO_BATCH] = { 0 };
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	unsigned int i;
	int r;

	for (i = 0; i < IO_BATCH; i++) {
		msg[i].msg_hdr.msg_iov = &iov;
		msg[i].msg_hdr.msg_iovlen = 1;
	}
	r = recvmmsg(fd, msg, IO_BATCH, MSG_DONTWAIT, NULL);
	if (r > 0 || (r < 0 && errno != EAGAIN))
		return r;
	r = poll(&pfd, 1, timeout_ms);
	if (r <= 0)
		return r;
	r = recvmmsg(fd, msg, IO_BATCH, MSG_DONTWAIT, NULL);
	return r < 0 && errno == EAGAIN ? 0 : r;
}

/*
 * One call: @cfg->frames out with at most @cfg->window in flight; a
 * window with nothing back for timeout_ms counts as lost.
 */
static int io_call(int fd, const struct io_cfg *cfg, void *tx, void *rx,
		   struct io_stats *st)
{
	unsigned int sent = 0, done = 0, out, k;
	int r;

	while (done < cfg->frames) {
		out = sent - done;
		if (sent < cfg->frames && out < cfg->window) {
			k = cfg->window - out;
			if (k > cfg->frames - sent)
				k = cfg->frames - sent;
			sent += io_send(fd, tx, cfg->payload, k);
		}
		r = io_recv(fd, rx, IO_MAX_PAYLOAD, (int)cfg->timeout_ms);
		if (r < 0) {
			fprintf(stderr, "optinc-io-bench: receive: %s\n",
				strerror(errno));
			return -errno;
		}
		if (r == 0 && sent > done) {
			st->lost += sent - done;
			done = sent;
			continue;
		}
		k = (unsigned int)r;
		if (k > sent - done)	/* a late echo of a frame given up on */
			k = sent - done;
		done += k;
		st->rx += k;
	}
	return 0;
}

static int io_run(int fd, const struct io_cfg *cfg, const char *rank)
{
	struct io_stats st = { 0 }, warm = { 0 };
	char *tx = calloc(1, cfg->payload), *rx = malloc(IO_MAX_PAYLOAD);
	double t0, t;
	unsigned int i;
	int err = -ENOMEM;

	if (!tx || !rx)
		goto out;
	for (i = 0; i < cfg->warmup; i++)
		if ((err = io_call(fd, cfg, tx, rx, &warm)))
			goto out;
	t0 = io_now();
	for (i = 0; i < cfg->iters; i++)
		if ((err = io_call(fd, cfg, tx, rx, &st)))
			goto out;
	t = (io_now() - t0) / cfg->iters;
	printf("%s %zu %u %u %.1f %.0f %.4f %lu\n", rank, cfg->bytes,
	       cfg->frames, cfg->payload, t * 1e6,
	       st.rx / (double)cfg->iters / t,
	       st.rx * (double)cfg->payload / cfg->iters / t / 1e9, st.lost);
out:
	free(tx);
	free(rx);
	return err;
}

int main(int argc, char **argv)
{
	struct io_cfg cfg = {
		.bytes = 64 << 20, .mtu = 9000, .block = 256,
		.max_elems = 8704, .window = 64, .iters = 5, .warmup = 1,
		.timeout_ms = 10,
	};
	const char *rank = getenv("OPTINC_RANK");
	int fd, err;

	if (io_parse(argc, argv, &cfg)) {
		io_usage();
		return EXIT_FAILURE;
	}
	fd = io_socket();
	if (fd < 0)
		return EXIT_FAILURE;
	if (!rank || !strcmp(rank, "0"))
		printf("# optinc-io-bench: %u frames of %u bytes (UDP payload) per call, "
		       "window %u, iters %u, warmup %u\n"
		       "# rank        bytes  frames payload  time(us)  frames/s  GB/s(rx) lost\n",
		       cfg.frames, cfg.payload, cfg.window, cfg.iters, cfg.warmup);
	err = io_run(fd, &cfg, rank ? rank : "0");
	close(fd);
	return err ? EXIT_FAILURE : EXIT_SUCCESS;
}
