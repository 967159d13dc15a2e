// SPDX-License-Identifier: GPL-2.0
/*
 * kmod_rank: one rank speaking raw OptINC frames to a switch over UDP, for
 * the VM tests of optinc.ko. It joins, reduces FRAMES chunks of pseudo-
 * random offset-binary values with op AVG and checks every RESULT against
 * a reference computed here from all ranks' values: the exact average
 * (rounded half to even), or with -T the truth table's entry for the
 * P unit's symbol sums. With -J it sends malformed frames instead and
 * prints how many of each drop reason the switch should count.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <optinc/core.h>
#include "kmod_test.h"

struct rank_cfg {
	struct sockaddr_in sw;
	unsigned int rank, size, job, count, frames, bits, window;
	uint32_t token;
	uint64_t seed;
	double limit;		/* seconds */
	const char *table;	/* -T */
	int junk;		/* -J */
};

struct rank_state {
	int fd;
	unsigned int window;	/* the job's: slot = seq % window */
	unsigned int inflight;	/* frames in flight, <= window */
	unsigned int max_elems;
	struct optinc_table t;
	void *tbuf;
	uint8_t *done;
	double *sent_at;
	double *first_at;	/* first send of each chunk */
	float *rtt_ms;		/* first send to result, per result */
	unsigned long results, mismatches, differ, retransmits, frames_out;
};

/* ---- the values and their reference ---- */

static uint32_t rank_value(const struct rank_cfg *c, unsigned int r,
			   uint32_t seq, unsigned int i)
{
	uint64_t x = kt_mix(c->seed ^ ((uint64_t)r << 40) ^
			    ((uint64_t)seq << 20) ^ i);

	return (uint32_t)x & ((1u << c->bits) - 1);
}

/* Per-block exponents: the same for all ranks, as an allreduce agrees. */
static int8_t rank_scale(uint32_t seq, unsigned int b)
{
	return (int8_t)((seq * 7 + b) % 11) - 5;
}

/* Exact average of offset-binary values, rounded half to even. */
static uint32_t rank_avg(uint32_t sum, uint32_t n)
{
	uint32_t q = sum / n, r = sum % n;

	if (2 * r > n || (2 * r == n && (q & 1)))
		q++;
	return q;
}

/* The truth-table index of element @i: P's symbol sums, mixed radix. */
static uint32_t rank_index(const struct rank_cfg *c, uint32_t seq,
			   unsigned int i)
{
	uint32_t radix = 3 * c->size + 1, idx = 0, s;
	unsigned int r;
	int k;

	for (k = 3; k >= 0; k--) {
		s = 0;
		for (r = 0; r < c->size; r++)
			s += rank_value(c, r, seq, i) >> (2 * k) & 3;
		idx = idx * radix + s;
	}
	return idx;
}

/* ---- frames ---- */

static double rank_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static unsigned int rank_nscale(const struct rank_cfg *c)
{
	unsigned int block = (c->count + 1) / 2;

	return (c->count + block - 1) / block;
}

static size_t rank_build_data(const struct rank_cfg *c, struct rank_state *st,
			      uint32_t seq, uint8_t *buf)
{
	unsigned int block = (c->count + 1) / 2, ns = rank_nscale(c), i;
	struct optinc_msg m = {
		.type = OPTINC_T_DATA, .op = OPTINC_OP_AVG, .bits = c->bits,
		.job = c->job, .rank = c->rank, .token = c->token, .seq = seq,
		.slot = seq % st->window, .count = c->count, .block = block,
		.nscale = ns, .flags = (seq / st->window) & 1,
	};
	uint8_t *p = buf + OPTINC_HDR_LEN;

	optinc_hdr_fill((struct optinc_hdr *)buf, &m);
	memset(p, 0, OPTINC_SCALES_LEN(ns));
	for (i = 0; i < ns; i++)
		p[i] = (uint8_t)rank_scale(seq, i);
	p += OPTINC_SCALES_LEN(ns);
	for (i = 0; i < c->count; i++) {
		uint32_t v = rank_value(c, c->rank, seq, i);

		if (c->bits == 16)
			kt_put16(p + 2 * i, (uint16_t)v);
		else
			p[i] = (uint8_t)v;
	}
	return p + c->count * (c->bits / 8) - buf;
}

static int rank_send(struct rank_state *st, const void *buf, size_t len)
{
	if (send(st->fd, buf, len, 0) != (ssize_t)len) {
		perror("kmod_rank: send");
		return -errno;
	}
	st->frames_out++;
	return 0;
}

/* Wait up to @ms for a message from the switch; 0: none. */
static int rank_recv(struct rank_state *st, uint8_t *buf, size_t room, int ms,
		     struct optinc_msg *m)
{
	struct pollfd pfd = { .fd = st->fd, .events = POLLIN };
	ssize_t n;

	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	n = recv(st->fd, buf, room, 0);
	if (n < 0)
		return -errno;
	if (optinc_msg_parse(buf, (uint32_t)n, m) != OPTINC_DROP_NONE)
		return 0;
	return 1;
}

/* ---- join ---- */

static int rank_join(const struct rank_cfg *c, struct rank_state *st,
		     unsigned int want)
{
	struct optinc_msg m = {
		.type = OPTINC_T_JOIN, .job = c->job, .rank = c->rank,
		.token = c->token, .seq = (uint32_t)kt_mix(rank_now() * 1e9),
	};
	double end = rank_now() + c->limit;
	uint8_t buf[2048], req[OPTINC_HDR_LEN];
	struct optinc_msg a;

	optinc_hdr_fill((struct optinc_hdr *)req, &m);
	while (rank_now() < end) {
		if (rank_send(st, req, sizeof(req)))
			return -EIO;
		while (rank_recv(st, buf, sizeof(buf), 100, &a) > 0) {
			if (a.type == OPTINC_T_NACK && a.seq == m.seq) {
				printf("rank %u: NACK reason %u\n", c->rank, a.aux);
				return -ECONNREFUSED;
			}
			if (a.type != OPTINC_T_JOIN_ACK || a.seq != m.seq)
				continue;
			st->window = a.slot;
			st->max_elems = a.count;
			if (a.aux >= want)
				return 0;
		}
	}
	printf("rank %u: no JOIN_ACK with %u members\n", c->rank, want);
	return -ETIMEDOUT;
}

/* ---- the reduction ---- */

/* What element @i of chunk @seq must be in the result. */
static uint32_t rank_expect(const struct rank_cfg *c, struct rank_state *st,
			    uint32_t seq, unsigned int i, uint32_t *exact)
{
	uint32_t sum = 0;
	unsigned int r;

	for (r = 0; r < c->size; r++)
		sum += rank_value(c, r, seq, i);
	*exact = rank_avg(sum, c->size);
	if (!c->table)
		return *exact;
	return st->t.out[rank_index(c, seq, i)];
}

static int rank_check(const struct rank_cfg *c, struct rank_state *st,
		      const struct optinc_msg *m)
{
	unsigned int i, bad = 0;
	uint32_t want, exact, got;

	if (m->op != OPTINC_OP_AVG || m->bits != c->bits ||
	    m->count != c->count || m->nscale != rank_nscale(c))
		return -EPROTO;
	for (i = 0; i < m->nscale; i++)
		if (m->scales[i] != rank_scale(m->seq, i))
			return -EPROTO;
	for (i = 0; i < c->count; i++) {
		got = c->bits == 16 ? kt_get16(m->elems + 2 * i) : m->elems[i];
		want = rank_expect(c, st, m->seq, i, &exact);
		if (got != want && !bad++)
			printf("rank %u: seq %u element %u: got %u want %u\n",
			       c->rank, m->seq, i, got, want);
		st->differ += got != exact;
	}
	st->mismatches += bad;
	return 0;
}

/* Take one RESULT; a late duplicate of a done chunk is ignored. */
static void rank_take(const struct rank_cfg *c, struct rank_state *st,
		      const struct optinc_msg *m)
{
	if (m->type != OPTINC_T_RESULT || m->job != c->job ||
	    m->seq >= c->frames || !st->sent_at[m->seq] || st->done[m->seq])
		return;
	if (rank_check(c, st, m)) {
		printf("rank %u: seq %u: result of another shape\n", c->rank, m->seq);
		st->mismatches += c->count;
	}
	st->done[m->seq] = 1;
	st->rtt_ms[st->results] = (float)((rank_now() - st->first_at[m->seq]) * 1e3);
	st->results++;
}

static int rank_cmp_ms(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* Round trips of the chunks: first send to result (sorted in place). */
static void rank_print_rtt(struct rank_state *st)
{
	unsigned long n = st->results;

	if (!n)
		return;
	qsort(st->rtt_ms, n, sizeof(*st->rtt_ms), rank_cmp_ms);
	printf("rtt_ms median %.1f p99 %.1f max %.1f\n", st->rtt_ms[(n - 1) / 2],
	       st->rtt_ms[(unsigned long)(0.99 * (double)(n - 1))],
	       st->rtt_ms[n - 1]);
}

/* Send what the window allows, and again what waited too long. */
static int rank_pump(const struct rank_cfg *c, struct rank_state *st,
		     uint32_t *next, uint8_t *buf)
{
	double now = rank_now();
	uint32_t s;

	for (s = *next >= st->inflight ? *next - st->inflight : 0; s < *next; s++) {
		if (st->done[s] || now - st->sent_at[s] < 0.3)
			continue;
		st->sent_at[s] = now;
		st->retransmits++;
		if (rank_send(st, buf, rank_build_data(c, st, s, buf)))
			return -EIO;
	}
	while (*next < c->frames &&
	       (*next < st->inflight || st->done[*next - st->inflight])) {
		st->sent_at[*next] = now;
		st->first_at[*next] = now;
		if (rank_send(st, buf, rank_build_data(c, st, *next, buf)))
			return -EIO;
		(*next)++;
	}
	return 0;
}

static int rank_reduce(const struct rank_cfg *c, struct rank_state *st)
{
	size_t room = OPTINC_HDR_LEN + 64 + 4u * c->count;
	double end = rank_now() + c->limit;
	uint8_t *buf = malloc(room), *in = malloc(room);
	struct optinc_msg m;
	uint32_t next = 0;
	int ret = 0;

	if (!buf || !in)
		ret = -ENOMEM;
	while (!ret && st->results < c->frames && rank_now() < end) {
		ret = rank_pump(c, st, &next, buf);
		while (!ret && rank_recv(st, in, room, 20, &m) > 0)
			rank_take(c, st, &m);
	}
	free(buf);
	free(in);
	if (!ret && st->results < c->frames)
		ret = -ETIMEDOUT;
	return ret;
}

/* ---- malformed frames (-J) ---- */

/* A DATA frame of op MAX (no scales) for this rank, @count elements. */
static size_t junk_data(const struct rank_cfg *c, struct rank_state *st,
			uint8_t *buf, uint32_t seq, unsigned int count)
{
	struct optinc_msg m = {
		.type = OPTINC_T_DATA, .op = OPTINC_OP_MAX, .bits = 8,
		.job = c->job, .rank = c->rank, .token = c->token, .seq = seq,
		.slot = seq % st->window, .flags = (seq / st->window) & 1,
		.count = count,
	};

	optinc_hdr_fill((struct optinc_hdr *)buf, &m);
	memset(buf + OPTINC_HDR_LEN, 0x11, count);
	return OPTINC_HDR_LEN + count;
}

/* An IPv4 frame to the switch whose total length overstates its size. */
static int junk_l3_short(const struct rank_cfg *c, struct rank_state *st)
{
	struct optinc_endpoint src = { .port = htons(47999) }, dst = {
		.mac = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		.ip = c->sw.sin_addr.s_addr, .port = c->sw.sin_port,
	};
	uint8_t frame[OPTINC_FRAME_OVERHEAD];
	struct sockaddr_in me;
	socklen_t len = sizeof(me);

	if (getsockname(st->fd, (struct sockaddr *)&me, &len) ||
	    kt_ifmac("eth0", src.mac))
		return -EIO;
	src.ip = me.sin_addr.s_addr;
	optinc_build_l2l4(frame, &src, &dst, OPTINC_HDR_LEN + 200);
	junk_data(c, st, frame + OPTINC_L2L4_LEN, 0, 0);
	return kt_send_raw("eth0", frame, sizeof(frame));
}

static int junk_send(struct rank_state *st, const uint8_t *buf, size_t len,
		     unsigned long *expect, enum optinc_drop why)
{
	expect[why]++;
	usleep(1000);
	return rank_send(st, buf, len);
}

/* Frames the parser refuses, and frames the job's slots refuse. */
static int rank_junk_parse(const struct rank_cfg *c, struct rank_state *st,
			   uint8_t *buf, unsigned long *expect)
{
	size_t n = junk_data(c, st, buf, 0, 4);
	int ret = 0;

	ret |= junk_send(st, buf, 10, expect, OPTINC_DROP_SHORT);
	junk_data(c, st, buf, 0, 100);
	ret |= junk_send(st, buf, OPTINC_HDR_LEN + 50, expect, OPTINC_DROP_SHORT);
	buf[0] = 0x12;
	ret |= junk_send(st, buf, n, expect, OPTINC_DROP_MAGIC);
	junk_data(c, st, buf, 0, 4);
	buf[2] = OPTINC_VERSION + 1;
	ret |= junk_send(st, buf, n, expect, OPTINC_DROP_VERSION);
	buf[2] = OPTINC_VERSION;
	buf[3] = 0;
	ret |= junk_send(st, buf, n, expect, OPTINC_DROP_TYPE);
	buf[3] = OPTINC_T_MAX + 4;
	ret |= junk_send(st, buf, n, expect, OPTINC_DROP_TYPE);
	junk_data(c, st, buf, 0, 4);
	buf[22] = 7;
	ret |= junk_send(st, buf, n, expect, OPTINC_DROP_SHAPE);
	junk_data(c, st, buf, 0, 0);
	ret |= junk_send(st, buf, OPTINC_HDR_LEN, expect, OPTINC_DROP_SHAPE);
	return ret ? -EIO : 0;
}

static int rank_junk_job(const struct rank_cfg *c, struct rank_state *st,
			 uint8_t *buf, unsigned long *expect)
{
	uint32_t far = 1 + 2 * st->window;
	size_t n = junk_data(c, st, buf, 0, 4);
	int ret = 0;

	kt_put16(buf + 4, 999);
	ret |= junk_send(st, buf, n, expect, OPTINC_DROP_NO_JOB);
	junk_data(c, st, buf, 0, 4);
	kt_put32(buf + 8, c->token + 1);
	ret |= junk_send(st, buf, n, expect, OPTINC_DROP_TOKEN);
	junk_data(c, st, buf, 0, 4);
	kt_put16(buf + 6, c->size);
	ret |= junk_send(st, buf, n, expect, OPTINC_DROP_NOT_MEMBER);
	n = junk_data(c, st, buf, 0, st->max_elems + 1);
	ret |= junk_send(st, buf, n, expect, OPTINC_DROP_TOO_BIG);
	n = junk_data(c, st, buf, 1, 4);
	ret |= rank_send(st, buf, n);
	ret |= junk_send(st, buf, n, expect, OPTINC_DROP_DUPLICATE);
	n = junk_data(c, st, buf, 1, 8);
	ret |= junk_send(st, buf, n, expect, OPTINC_DROP_MISMATCH);
	n = junk_data(c, st, buf, far, 4);
	ret |= rank_send(st, buf, n);
	n = junk_data(c, st, buf, 1, 4);
	ret |= junk_send(st, buf, n, expect, OPTINC_DROP_STALE);
	return ret ? -EIO : 0;
}

/* A JOIN with a rank out of range is refused (NACK) and counted. */
static int rank_junk_join(const struct rank_cfg *c, struct rank_state *st,
			  uint8_t *buf, unsigned long *expect)
{
	struct optinc_msg m = {
		.type = OPTINC_T_JOIN, .job = c->job, .rank = c->size,
		.token = c->token, .seq = 12345,
	}, a;
	int got;

	optinc_hdr_fill((struct optinc_hdr *)buf, &m);
	if (junk_send(st, buf, OPTINC_HDR_LEN, expect, OPTINC_DROP_NOT_MEMBER))
		return -EIO;
	while ((got = rank_recv(st, buf, 2048, 500, &a)) > 0)
		if (a.type == OPTINC_T_NACK && a.seq == 12345)
			return a.aux == OPTINC_NACK_BAD_RANK ? 0 : -EPROTO;
	printf("rank %u: no NACK for a JOIN of rank %u\n", c->rank, c->size);
	return -EPROTO;
}

static int rank_junk(const struct rank_cfg *c, struct rank_state *st)
{
	unsigned long expect[OPTINC_DROP_NR] = { 0 };
	uint8_t buf[9000];
	int i, ret;

	ret = rank_junk_parse(c, st, buf, expect);
	if (!ret)
		ret = rank_junk_job(c, st, buf, expect);
	if (!ret)
		ret = rank_junk_join(c, st, buf, expect);
	if (!ret && !junk_l3_short(c, st))
		expect[OPTINC_DROP_SHORT]++;
	printf("expect");
	for (i = 1; i < OPTINC_DROP_NR; i++)
		printf(" %s %lu", optinc_drop_names[i], expect[i]);
	printf("\n");
	return ret;
}

/* ---- main ---- */

static void rank_usage(void)
{
	fprintf(stderr,
		"usage: kmod_rank -r RANK -n SIZE [-a ADDR] [-p PORT] [-j JOB] [-t TOKEN]\n"
		"                 [-c COUNT] [-f FRAMES] [-b 8|16] [-w WINDOW] [-s SEED]\n"
		"                 [-T TABLE] [-l SECONDS] [-J]\n");
}

static int rank_parse(int argc, char **argv, struct rank_cfg *c)
{
	int o;

	while ((o = getopt(argc, argv, "a:p:r:n:j:t:c:f:b:w:s:T:l:J")) != -1) {
		switch (o) {
		case 'a': inet_pton(AF_INET, optarg, &c->sw.sin_addr); break;
		case 'p': c->sw.sin_port = htons(atoi(optarg)); break;
		case 'r': c->rank = atoi(optarg); break;
		case 'n': c->size = atoi(optarg); break;
		case 'j': c->job = atoi(optarg); break;
		case 't': c->token = strtoul(optarg, NULL, 0); break;
		case 'c': c->count = atoi(optarg); break;
		case 'f': c->frames = atoi(optarg); break;
		case 'b': c->bits = atoi(optarg); break;
		case 'w': c->window = atoi(optarg); break;
		case 's': c->seed = strtoull(optarg, NULL, 0); break;
		case 'T': c->table = optarg; break;
		case 'l': c->limit = atof(optarg); break;
		case 'J': c->junk = 1; break;
		default: return -EINVAL;
		}
	}
	if (!c->size || c->size > OPTINC_MAX_MEMBERS || c->rank >= c->size ||
	    (c->bits != 8 && c->bits != 16) || !c->count || c->count > 4096 ||
	    (c->table && c->bits != 8))
		return -EINVAL;
	return 0;
}

static int rank_open(const struct rank_cfg *c, struct rank_state *st)
{
	const char *why;
	size_t len;

	st->fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (st->fd < 0 || connect(st->fd, (const struct sockaddr *)&c->sw,
				  sizeof(c->sw))) {
		perror("kmod_rank: socket");
		return -errno;
	}
	st->done = calloc(c->frames + 1, 1);
	st->sent_at = calloc(c->frames + 1, sizeof(double));
	st->first_at = calloc(c->frames + 1, sizeof(double));
	st->rtt_ms = calloc(c->frames + 1, sizeof(float));
	if (!st->done || !st->sent_at || !st->first_at || !st->rtt_ms)
		return -ENOMEM;
	if (!c->table)
		return 0;
	if (kt_read_file(c->table, &st->tbuf, &len))
		return -EIO;
	if (optinc_table_parse(st->tbuf, len, &st->t, &why) ||
	    st->t.members != c->size) {
		fprintf(stderr, "kmod_rank: %s: %s\n", c->table,
			why ? why : "table of another size");
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct rank_cfg c = {
		.sw = { .sin_family = AF_INET, .sin_port = htons(OPTINC_UDP_PORT) },
		.job = 1, .count = 256, .frames = 64, .bits = 8, .window = 64,
		.seed = 1, .limit = 30,
	};
	struct rank_state st = { .fd = -1 };
	double t0;
	int ret;

	inet_pton(AF_INET, "10.77.0.254", &c.sw.sin_addr);
	if (rank_parse(argc, argv, &c)) {
		rank_usage();
		return 2;
	}
	ret = rank_open(&c, &st);
	if (!ret)
		ret = rank_join(&c, &st, c.junk ? 1 : c.size);
	st.inflight = st.window < c.window ? st.window : c.window;
	t0 = rank_now();
	if (!ret)
		ret = c.junk ? rank_junk(&c, &st) : rank_reduce(&c, &st);
	if (!c.junk)
		printf("rank %u frames %u results %lu mismatches %lu differ_exact %lu "
		       "retransmits %lu sent %lu seconds %.3f\n", c.rank, c.frames,
		       st.results, st.mismatches, st.differ, st.retransmits,
		       st.frames_out, rank_now() - t0);
	if (!c.junk)
		rank_print_rtt(&st);
	ret = ret || st.mismatches ? 1 : 0;
	printf("%s\n", ret ? "FAIL" : "PASS");
	return ret;
}
