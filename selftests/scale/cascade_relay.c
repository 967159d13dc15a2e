// SPDX-License-Identifier: GPL-2.0
/*
 * cascade_relay: a first-level switch of a two-level cascade, in user
 * space over UDP, for the cascade prototype test. Its members' frames go
 * through the core's slot state machine as exact partial sums (AVG is
 * taken as SUM); a complete slot goes upstream, as this relay's
 * contribution to a job of the second-level optincd (int32 partial sums
 * as ISUM, block exponents as MAX); the upstream result comes back as the
 * sum (or maximum) over all N1 x N2 servers, from which the relay makes
 * the members' result: for AVG optinc_avg_rhe() of the whole sum over
 * N1 x N2, i.e. the one-level quantized average of all of them.
 * See Documentation/scale.md.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <optinc/core.h>

#define RELAY_WINDOW	64
#define RELAY_MAX_ELEMS	8704
#define RELAY_BUF	65536

struct relay {
	struct optinc_job job;		/* the first level: this relay's members */
	void *mem;
	int down_fd, up_fd;
	struct sockaddr_in up_sw;
	__u16 up_job, up_rank, up_size;
	__u32 up_token, nonce;
	unsigned int up_mtu;
	__u8 orig_op[2 * RELAY_WINDOW];	/* op the members asked for */
	__u8 final[2 * RELAY_WINDOW];	/* res holds the members' result */
	unsigned long up_sent, up_results, down_results, drops;
};

static volatile sig_atomic_t relay_quit;

static void relay_sig(int sig)
{
	relay_quit = 1;
}

static int relay_addr(const char *s, struct sockaddr_in *sa)
{
	char host[INET_ADDRSTRLEN] = "";
	unsigned int port = OPTINC_UDP_PORT;

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	if (sscanf(s, "%15[0-9.]:%u", host, &port) < 1 || port > 65535 ||
	    inet_pton(AF_INET, host, &sa->sin_addr) != 1) {
		fprintf(stderr, "cascade_relay: '%s': not an IPv4 address[:port]\n", s);
		return -EINVAL;
	}
	sa->sin_port = htons(port);
	return 0;
}

/* A UDP socket bound to @bind, in network namespace @netns if given. */
static int relay_socket(const char *netns, const struct sockaddr_in *bind_to)
{
	int fd, ns, err, rcvbuf = 8 << 20;
	char path[256];

	if (netns) {
		snprintf(path, sizeof(path), "/run/netns/%s", netns);
		ns = open(path, O_RDONLY | O_CLOEXEC);
		if (ns < 0 || setns(ns, CLONE_NEWNET)) {
			err = -errno;
			fprintf(stderr, "cascade_relay: netns %s: %s\n", netns,
				strerror(-err));
			if (ns >= 0)
				close(ns);
			return err;
		}
		close(ns);
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	/* a window of frames from every member arrives at once */
	if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
				  sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (fd < 0 || bind(fd, (const struct sockaddr *)bind_to, sizeof(*bind_to))) {
		err = -errno;
		fprintf(stderr, "cascade_relay: socket %s:%u: %s\n",
			inet_ntoa(bind_to->sin_addr), ntohs(bind_to->sin_port),
			strerror(-err));
		if (fd >= 0)
			close(fd);
		return err;
	}
	return fd;
}

static void relay_send(int fd, const void *buf, size_t len, __be32 ip, __be16 port)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = port };

	to.sin_addr.s_addr = ip;
	sendto(fd, buf, len, 0, (struct sockaddr *)&to, sizeof(to));
}

/* A header-only message to @ep (JOIN_ACK, NACK) over the members' socket. */
static void relay_ctrl(struct relay *r, const struct optinc_msg *m,
		       const struct optinc_endpoint *ep)
{
	struct optinc_hdr h;

	optinc_hdr_fill(&h, m);
	relay_send(r->down_fd, &h, sizeof(h), ep->ip, ep->port);
}

/* A complete first-level slot's partial result, as this relay's DATA upstream. */
static void relay_up(struct relay *r, const struct optinc_slot *s)
{
	static __u8 buf[RELAY_BUF];
	int max = s->kind == OPTINC_K_MAX8;
	struct optinc_msg m = {
		.type = OPTINC_T_DATA, .op = max ? OPTINC_OP_MAX : OPTINC_OP_ISUM,
		.bits = max ? 8 : 32, .job = r->up_job, .rank = r->up_rank,
		.token = r->up_token, .seq = s->seq, .count = s->count,
		.slot = (__u16)(s->seq % RELAY_WINDOW),
		.flags = (__u8)((s->seq / RELAY_WINDOW) & 1),
	};
	size_t len = OPTINC_HDR_LEN + s->res_len;

	if (len + 28 > r->up_mtu) {
		fprintf(stderr, "cascade_relay: %zu bytes upstream exceed MTU %u: "
			"give the ranks a smaller OPTINC_MTU\n", len, r->up_mtu);
		r->drops++;
		return;
	}
	optinc_hdr_fill((struct optinc_hdr *)buf, &m);
	memcpy(buf + OPTINC_HDR_LEN, s->res, s->res_len);
	sendto(r->up_fd, buf, len, 0, (struct sockaddr *)&r->up_sw, sizeof(r->up_sw));
	r->up_sent++;
}

/*
 * The members' result of a final slot. The slot keeps op SUM, which the
 * members' retransmissions (AVG taken as SUM) are compared with; the
 * frame says the op they asked for.
 */
static void relay_result(struct relay *r, const struct optinc_slot *s, int rank)
{
	static __u8 frame[RELAY_BUF];
	const struct optinc_endpoint *ep = &r->job.members[rank].ep;
	struct optinc_endpoint sw = { 0 };
	struct optinc_slot t = *s;
	__u32 len;

	t.op = r->orig_op[s - r->job.slots];
	len = optinc_build_result(frame, sizeof(frame), &r->job, &t, &sw, rank);

	if (len > OPTINC_L2L4_LEN) {
		relay_send(r->down_fd, frame + OPTINC_L2L4_LEN,
			   len - OPTINC_L2L4_LEN, ep->ip, ep->port);
		r->down_results++;
	}
}

static void relay_down_msg(struct relay *r, struct optinc_msg *m,
			   const struct optinc_endpoint *src)
{
	struct optinc_slot *s;
	struct optinc_msg ctl;
	enum optinc_drop why;
	__u8 op = m->op;
	unsigned int i;
	long idx;

	if (m->type == OPTINC_T_DATA && m->op == OPTINC_OP_AVG)
		m->op = OPTINC_OP_SUM;
	switch (optinc_job_rx(&r->job, m, src, &why, &s)) {
	case OPTINC_V_COMPLETE:
		idx = s - r->job.slots;
		r->orig_op[idx] = op;
		r->final[idx] = 0;
		relay_up(r, s);
		break;
	case OPTINC_V_RESEND:
		idx = s - r->job.slots;
		if (r->final[idx])
			relay_result(r, s, m->rank);
		else
			relay_up(r, s);
		break;
	case OPTINC_V_JOIN_ACK:
		optinc_job_ack(&r->job, m->rank, &ctl);
		if (!optinc_job_complete(&r->job)) {
			relay_ctrl(r, &ctl, src);
			break;
		}
		for (i = 0; i < r->job.size; i++) {
			optinc_job_ack(&r->job, i, &ctl);
			relay_ctrl(r, &ctl, &r->job.members[i].ep);
		}
		break;
	case OPTINC_V_NACK:
		optinc_nack(m, why, &ctl);
		relay_ctrl(r, &ctl, src);
		break;
	case OPTINC_V_ABSORBED:
		break;
	default:
		r->drops++;
	}
}

/* The members' result from the upstream sum over all servers. */
static void relay_finish(struct relay *r, struct optinc_slot *s,
			 const struct optinc_msg *m)
{
	__u32 n = (__u32)r->job.size * r->up_size, i, v;
	unsigned int bits = s->bits;
	const __u8 *p = m->elems;

	if (r->orig_op[s - r->job.slots] != OPTINC_OP_AVG) {
		memcpy(s->res, m->elems, m->elems_len);
		s->res_len = m->elems_len;
		return;
	}
	for (i = 0; i < s->count; i++) {
		v = (__u32)p[4 * i] << 24 | (__u32)p[4 * i + 1] << 16 |
		    (__u32)p[4 * i + 2] << 8 | p[4 * i + 3];
		v = optinc_avg_rhe(v + (n << (bits - 1)), n);
		if (bits == 8) {
			s->res[i] = (__u8)v;
		} else {
			s->res[2 * i] = (__u8)(v >> 8);
			s->res[2 * i + 1] = (__u8)v;
		}
	}
	s->kind = bits == 8 ? OPTINC_K_AVG8 : OPTINC_K_AVG16;
	s->res_len = s->count * bits / 8;
}

static void relay_up_msg(struct relay *r, const struct optinc_msg *m)
{
	long idx = 2 * (m->seq % RELAY_WINDOW) + (m->flags & OPTINC_F_SHADOW);
	struct optinc_slot *s = &r->job.slots[idx];
	unsigned int i;

	if (m->type == OPTINC_T_JOIN_ACK) {
		r->up_size = m->size;
		return;
	}
	if (m->type != OPTINC_T_RESULT || m->job != r->up_job || !s->valid ||
	    !s->done || s->seq != m->seq || r->final[idx] || m->count != s->count ||
	    m->elems_len != (s->kind == OPTINC_K_MAX8 ? 1u : 4u) * s->count) {
		r->drops++;
		return;
	}
	relay_finish(r, s, m);
	r->final[idx] = 1;
	r->up_results++;
	for (i = 0; i < r->job.size; i++)
		relay_result(r, s, i);
}

/* Join the second-level job as rank up_rank; returns once all have. */
static int relay_join_up(struct relay *r, double secs)
{
	struct optinc_msg m = { .type = OPTINC_T_JOIN, .job = r->up_job,
				.rank = r->up_rank, .token = r->up_token,
				.seq = r->nonce };
	struct pollfd pfd = { .fd = r->up_fd, .events = POLLIN };
	static __u8 buf[RELAY_BUF];
	struct optinc_msg a;
	struct optinc_hdr h;
	int i;
	ssize_t n;

	optinc_hdr_fill(&h, &m);
	for (i = 0; i < secs * 10 && !relay_quit; i++) {
		sendto(r->up_fd, &h, sizeof(h), 0, (struct sockaddr *)&r->up_sw,
		       sizeof(r->up_sw));
		while (poll(&pfd, 1, 100) > 0) {
			n = recv(r->up_fd, buf, sizeof(buf), 0);
			if (n <= 0 || optinc_msg_parse(buf, (__u32)n, &a) ||
			    a.job != r->up_job)
				continue;
			if (a.type == OPTINC_T_NACK) {
				fprintf(stderr, "cascade_relay: upstream job %u refused rank %u (reason %u)\n",
					r->up_job, r->up_rank, a.aux);
				return -ECONNREFUSED;
			}
			if (a.type == OPTINC_T_JOIN_ACK && a.aux == a.size) {
				r->up_size = a.size;
				return 0;
			}
		}
	}
	fprintf(stderr, "cascade_relay: upstream job %u: not all members joined\n",
		r->up_job);
	return -ETIMEDOUT;
}

/* Handle one datagram from @fd; false when there was none. */
static bool relay_rx(struct relay *r, int fd, int up)
{
	static __u8 buf[RELAY_BUF];
	struct sockaddr_in from;
	socklen_t fl = sizeof(from);
	struct optinc_endpoint src;
	struct optinc_msg m;
	ssize_t n;

	n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
	if (n <= 0)
		return false;
	if (optinc_msg_parse(buf, (__u32)n, &m)) {
		r->drops++;
	} else if (up) {
		relay_up_msg(r, &m);
	} else if (m.job != r->job.id) {
		r->drops++;
	} else {
		memset(&src, 0, sizeof(src));
		src.ip = from.sin_addr.s_addr;
		src.port = from.sin_port;
		relay_down_msg(r, &m, &src);
	}
	return true;
}

static void relay_loop(struct relay *r, double secs)
{
	struct pollfd pfd[2] = { { .fd = r->down_fd, .events = POLLIN },
				 { .fd = r->up_fd, .events = POLLIN } };
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!relay_quit) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > secs)
			break;
		if (poll(pfd, 2, 100) <= 0)
			continue;
		while (relay_rx(r, r->down_fd, 0) | relay_rx(r, r->up_fd, 1))
			;
	}
}

static int relay_init(struct relay *r, unsigned int id, unsigned int size)
{
	__u64 len = optinc_job_mem(RELAY_WINDOW, RELAY_MAX_ELEMS);

	r->job.id = id;
	r->job.size = size;
	r->job.window = RELAY_WINDOW;
	r->job.max_elems = RELAY_MAX_ELEMS;
	r->job.mode = OPTINC_MODE_EXACT;
	r->mem = aligned_alloc(64, len);
	if (!r->mem || optinc_job_init(&r->job, r->mem, len)) {
		fprintf(stderr, "cascade_relay: cannot set up job %u of %u members\n",
			id, size);
		return -ENOMEM;
	}
	return 0;
}

static void relay_usage(void)
{
	fprintf(stderr,
		"usage: cascade_relay -n N1 [-j JOB] [-d NETNS] [-l ADDR[:PORT]] -u ADDR[:PORT]\n"
		"                     -J UPJOB -r UPRANK [-k UPTOKEN] [-M UPMTU] [-t SECS]\n"
		"Members (job JOB, N1 of them) reach it at -l in namespace -d; it is rank\n"
		"UPRANK of job UPJOB on the second-level switch -u (from this namespace).\n");
}

int main(int argc, char **argv)
{
	static struct relay r = { .up_mtu = 9000 };
	struct sockaddr_in down = { .sin_family = AF_INET }, any = { .sin_family = AF_INET };
	const char *netns = NULL, *listen_at = "10.77.0.254:47000", *up = NULL;
	unsigned int job = 1, size = 0;
	double secs = 600;
	int c;

	while ((c = getopt(argc, argv, "n:j:d:l:u:J:r:k:M:t:h")) != -1) {
		switch (c) {
		case 'n': size = atoi(optarg); break;
		case 'j': job = atoi(optarg); break;
		case 'd': netns = optarg; break;
		case 'l': listen_at = optarg; break;
		case 'u': up = optarg; break;
		case 'J': r.up_job = atoi(optarg); break;
		case 'r': r.up_rank = atoi(optarg); break;
		case 'k': r.up_token = strtoul(optarg, NULL, 0); break;
		case 'M': r.up_mtu = atoi(optarg); break;
		case 't': secs = atof(optarg); break;
		default: relay_usage(); return 2;
		}
	}
	if (!size || size > OPTINC_MAX_MEMBERS || !up || !r.up_job || !job) {
		relay_usage();
		return 2;
	}
	signal(SIGTERM, relay_sig);
	signal(SIGINT, relay_sig);
	srand((unsigned int)time(NULL) ^ (unsigned int)getpid());
	r.nonce = (__u32)rand() << 1 | 1;
	if (relay_addr(up, &r.up_sw) || relay_addr(listen_at, &down) ||
	    relay_init(&r, job, size))
		return 1;
	r.up_fd = relay_socket(NULL, &any);
	if (r.up_fd < 0 || relay_join_up(&r, 30))
		return 1;
	r.down_fd = relay_socket(netns, &down);
	if (r.down_fd < 0)
		return 1;
	printf("cascade_relay: job %u (%u members) is rank %u of upstream job %u (%u members)\n",
	       job, size, r.up_rank, r.up_job, r.up_size);
	fflush(stdout);
	relay_loop(&r, secs);
	printf("cascade_relay: rank %u: %lu frames up, %lu results from upstream, %lu results down, %lu dropped\n",
	       r.up_rank, r.up_sent, r.up_results, r.down_results, r.drops);
	free(r.mem);
	return 0;
}
