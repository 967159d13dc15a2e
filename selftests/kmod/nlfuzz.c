// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz: a bounded, deterministic fuzzer of optinc.ko's generic netlink
 * family, run inside the test VM. It sends -n messages (seed -s) of every
 * command: well-formed ones with random values, then mutated (attributes
 * dropped, repeated, of random type or length, nested, truncated, with
 * huge values), raw random payloads, batches, and truth-table uploads in
 * and out of order. Every -k messages a valid dump must still answer;
 * at the end, every switch left is deleted with valid requests. Prints
 * the counts; exit status 0 when the family stayed alive.
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <optinc/core.h>
#include <uapi/linux/optinc.h>

#define FZ_BUF		40000
#define FZ_ERRNOS	134	/* past the largest errno (EHWPOISON) */

struct fz {
	int fd;
	uint16_t family;
	uint32_t seq;
	uint64_t rng;
	uint8_t tx[FZ_BUF], rx[65536];
	uint32_t len;		/* bytes of the message being built */
	uint8_t table[64 + 28561];	/* a valid table file, N = 4 */
	uint32_t table_len, table_next;
	unsigned long sent, datagrams, acks, dumps, errs[FZ_ERRNOS], enobufs;
	uint8_t cmd_of[1024];	/* command of a request, by seq */
	unsigned long ok_by_cmd[OPTINC_CMD_MAX + 1];
};

static uint64_t fz_rand(struct fz *f)
{
	uint64_t x = (f->rng += 0x9e3779b97f4a7c15ull);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint32_t fz_below(struct fz *f, uint32_t n)
{
	return n ? (uint32_t)(fz_rand(f) % n) : 0;
}

static int fz_chance(struct fz *f, unsigned int percent)
{
	return fz_below(f, 100) < percent;
}

/* A value of @bytes bytes: edges of the ranges the policy checks, or random. */
static uint64_t fz_value(struct fz *f, unsigned int bytes)
{
	static const uint64_t edge[] = {
		0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 63, 64, 65, 255, 256,
		4095, 4096, 4097, 8704, 16384, 65535, 65536, 0x7fffffff,
		0x80000000ull, 0xffffffffull, ~0ull,
	};
	uint64_t v = fz_chance(f, 60) ? edge[fz_below(f, sizeof(edge) / 8)] :
		     fz_rand(f);

	return bytes >= 8 ? v : v & ((1ull << (8 * bytes)) - 1);
}

static void fz_put(struct fz *f, uint16_t type, const void *data, uint32_t len)
{
	struct nlattr *a = (struct nlattr *)(f->tx + f->len);
	uint32_t room = FZ_BUF - f->len;

	if (NLA_HDRLEN + NLA_ALIGN(len) > room)
		return;
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	if (data)
		memcpy(a + 1, data, len);
	else
		memset(a + 1, 0, len);
	memset((uint8_t *)(a + 1) + len, 0, NLA_ALIGN(len) - len);
	f->len += NLA_HDRLEN + NLA_ALIGN(len);
}

static void fz_put_int(struct fz *f, uint16_t type, unsigned int bytes,
		       uint64_t v)
{
	uint8_t b[8];

	memcpy(b, &v, sizeof(b));	/* host order, little end first */
	if (fz_chance(f, 5))
		bytes = fz_below(f, 9);	/* a wrong length */
	fz_put(f, type, b, bytes);
}

/* switch-new's and switch-set's rate limit, each with chance @pct */
static void fz_rate(struct fz *f, unsigned int pct)
{
	if (fz_chance(f, pct))
		fz_put_int(f, OPTINC_A_SWITCH_RATE_LIMIT, 4, fz_value(f, 4));
	if (fz_chance(f, pct))
		fz_put_int(f, OPTINC_A_SWITCH_RATE_BURST, 4, fz_value(f, 4));
}

static void fz_put_str(struct fz *f, uint16_t type, const char *const *pool,
		       unsigned int n)
{
	char s[64];
	uint32_t len;

	if (fz_chance(f, 8)) {	/* random bytes, NUL or not */
		len = fz_below(f, sizeof(s));
		for (uint32_t i = 0; i < len; i++)
			s[i] = (char)fz_rand(f);
		fz_put(f, type, s, len);
		return;
	}
	snprintf(s, sizeof(s), "%s", pool[fz_below(f, n)]);
	fz_put(f, type, s, (uint32_t)strlen(s) + !fz_chance(f, 5));
}

static const char *const fz_switches[] = {
	"fz0", "fz1", "fz2", "sw0", "", "abcdefghijklmno", "abcdefghijklmnop",
};
static const char *const fz_ifnames[] = {
	"p0", "p1", "p2", "p3", "lo", "nosuch", "", "abcdefghijklmnopqrstu",
};

/* The attributes of command @cmd, with plausible and edge values. */
static void fz_attrs(struct fz *f, uint8_t cmd)
{
	uint32_t off, n;
	uint16_t window, elems;

	if (!fz_chance(f, 10))
		fz_put_str(f, OPTINC_A_SWITCH_NAME, fz_switches, 4 + 3 * fz_chance(f, 10));
	switch (cmd) {
	case OPTINC_CMD_SWITCH_NEW:
		fz_put_int(f, OPTINC_A_SWITCH_ADDR, 4, fz_chance(f, 70) ?
			   htonl(0x0a4d00f0u + fz_below(f, 8)) : fz_value(f, 4));
		if (fz_chance(f, 50)) {
			uint8_t mac[6] = { 2, 0, 0, 0, 0, (uint8_t)fz_rand(f) };

			if (fz_chance(f, 20))
				mac[0] = (uint8_t)fz_rand(f);
			fz_put(f, OPTINC_A_SWITCH_MAC, mac,
			       fz_chance(f, 90) ? 6 : fz_below(f, 9));
		}
		if (fz_chance(f, 40))
			fz_put_int(f, OPTINC_A_SWITCH_UDP_PORT, 2, fz_value(f, 2));
		fz_rate(f, 30);
		break;
	case OPTINC_CMD_SWITCH_SET:
		fz_rate(f, 70);
		break;
	case OPTINC_CMD_PORT_ADD:
	case OPTINC_CMD_PORT_DEL:
		if (fz_chance(f, 60))
			fz_put_str(f, OPTINC_A_IFNAME, fz_ifnames, 8);
		if (fz_chance(f, 40))
			fz_put_int(f, OPTINC_A_IFINDEX, 4, fz_chance(f, 70) ?
				   fz_below(f, 12) : fz_value(f, 4));
		break;
	case OPTINC_CMD_JOB_SET:
		/* mostly jobs of at most 16 MiB of slots: the VM has 768 MiB */
		window = (uint16_t)(fz_chance(f, 90) ? 1u << fz_below(f, 7) :
				    fz_value(f, 2));
		elems = (uint16_t)(fz_chance(f, 90) ? 1 + fz_below(f, 2048) :
				   fz_value(f, 2));
		if (fz_chance(f, 95) && 2ull * window * (128 + 8ull * elems) > (16u << 20))
			elems = 1;
		if (fz_chance(f, 90))
			fz_put_int(f, OPTINC_A_JOB_SIZE, 2, fz_chance(f, 80) ?
				   1 + fz_below(f, 8) : fz_value(f, 2));
		if (fz_chance(f, 50))
			fz_put_int(f, OPTINC_A_JOB_BITS, 1, fz_chance(f, 70) ?
				   8u << fz_below(f, 2) : fz_value(f, 1));
		if (fz_chance(f, 40))
			fz_put_int(f, OPTINC_A_JOB_MODE, 1, fz_value(f, 1) & 3);
		if (fz_chance(f, 30))
			fz_put_int(f, OPTINC_A_JOB_TOKEN, 4, fz_value(f, 4));
		if (fz_chance(f, 60))
			fz_put_int(f, OPTINC_A_JOB_WINDOW, 2, window);
		if (fz_chance(f, 60))
			fz_put_int(f, OPTINC_A_JOB_MAX_ELEMS, 2, elems);
		__attribute__((fallthrough));	/* and a job id */
	case OPTINC_CMD_JOB_DEL:
	case OPTINC_CMD_JOB_GET:
		if (fz_chance(f, 90))
			fz_put_int(f, OPTINC_A_JOB_ID, 2, fz_chance(f, 85) ?
				   fz_below(f, 6) : fz_value(f, 2));
		break;
	case OPTINC_CMD_TABLE_LOAD:
		/* in order most of the time, so that uploads complete */
		off = fz_chance(f, 70) ? f->table_next :
		      fz_chance(f, 50) ? 0 : fz_below(f, f->table_len + 64);
		n = fz_chance(f, 90) ? 1 + fz_below(f, 8192) : fz_value(f, 2) % 20000;
		if (!fz_chance(f, 5))
			fz_put_int(f, OPTINC_A_JOB_ID, 2, 1 + fz_below(f, 4));
		fz_put_int(f, OPTINC_A_TABLE_OFFSET, 4, off);
		if (!off || fz_chance(f, 10))
			fz_put_int(f, OPTINC_A_TABLE_TOTAL, 4, fz_chance(f, 80) ?
				   f->table_len : fz_chance(f, 97) ?
				   fz_value(f, 4) % (1u << 20) : fz_value(f, 4));
		if (off < f->table_len && n > f->table_len - off && fz_chance(f, 80))
			n = f->table_len - off;
		if (off < f->table_len && off + n <= f->table_len && fz_chance(f, 90))
			fz_put(f, OPTINC_A_TABLE_DATA, f->table + off, n);
		else
			fz_put(f, OPTINC_A_TABLE_DATA, NULL, n);
		f->table_next = off + n >= f->table_len ? 0 : off + n;
		break;
	default:
		break;
	}
}

/* Mutations of the attributes built so far, from byte @start. */
static void fz_mutate(struct fz *f, uint32_t start)
{
	uint32_t i, k, n = f->len - start;
	struct nlattr *a;

	if (fz_chance(f, 15)) {	/* random attributes */
		for (k = fz_below(f, 4); k; k--) {
			uint8_t junk[64];

			for (i = 0; i < sizeof(junk); i++)
				junk[i] = (uint8_t)fz_rand(f);
			fz_put(f, (uint16_t)fz_below(f, OPTINC_A_MAX + 4) |
			       (fz_chance(f, 10) ? NLA_F_NESTED : 0) |
			       (fz_chance(f, 5) ? NLA_F_NET_BYTEORDER : 0),
			       junk, fz_below(f, sizeof(junk)));
		}
	}
	if (fz_chance(f, 10)) {	/* all so far inside a nest, maybe nested again */
		for (k = 1 + fz_below(f, 3); k && f->len + NLA_HDRLEN * k < FZ_BUF; k--) {
			memmove(f->tx + start + NLA_HDRLEN, f->tx + start, f->len - start);
			a = (struct nlattr *)(f->tx + start);
			a->nla_type = (uint16_t)(fz_chance(f, 50) ? OPTINC_A_JOB :
				      fz_chance(f, 50) ? OPTINC_A_PORT :
				      fz_below(f, OPTINC_A_MAX + 2)) | NLA_F_NESTED;
			f->len += NLA_HDRLEN;
			a->nla_len = (uint16_t)(f->len - start);
		}
	}
	n = f->len - start;
	if (n && fz_chance(f, 12))	/* flip bytes: types, lengths, values */
		for (k = 1 + fz_below(f, 6); k; k--)
			f->tx[start + fz_below(f, n)] ^= (uint8_t)(1 + fz_below(f, 255));
	if (n >= NLA_HDRLEN && fz_chance(f, 8)) {	/* a length that lies */
		a = (struct nlattr *)(f->tx + start + (fz_below(f, n / 4) * 4 &
						       ~3u));
		if ((uint8_t *)(a + 1) <= f->tx + f->len)
			a->nla_len = (uint16_t)fz_value(f, 2);
	}
	if (n && fz_chance(f, 8))	/* truncated */
		f->len = start + fz_below(f, n);
}

/* Build one request of a random command at the end of f->tx. */
static void fz_build(struct fz *f)
{
	uint32_t start = f->len, i;
	struct nlmsghdr *nh = (struct nlmsghdr *)(f->tx + start);
	struct genlmsghdr *gh = NLMSG_DATA(nh);
	uint8_t cmd = (uint8_t)(fz_chance(f, 92) ? 1 + fz_below(f, OPTINC_CMD_MAX) :
				fz_value(f, 1));

	nh->nlmsg_type = fz_chance(f, 98) ? f->family : (uint16_t)fz_value(f, 2);
	nh->nlmsg_flags = NLM_F_REQUEST | (fz_chance(f, 50) ? NLM_F_ACK : 0) |
			  (fz_chance(f, 25) ? NLM_F_DUMP : 0);
	if (fz_chance(f, 3))
		nh->nlmsg_flags = (uint16_t)fz_rand(f);
	nh->nlmsg_seq = ++f->seq;
	nh->nlmsg_pid = 0;
	f->cmd_of[f->seq % 1024] = cmd;
	gh->cmd = cmd;
	gh->version = fz_chance(f, 95) ? OPTINC_GENL_VERSION : (uint8_t)fz_rand(f);
	gh->reserved = fz_chance(f, 95) ? 0 : (uint16_t)fz_rand(f);
	f->len = start + NLMSG_HDRLEN + GENL_HDRLEN;
	if (fz_chance(f, 5)) {	/* raw random payload */
		for (i = fz_below(f, 200); i && f->len < FZ_BUF; i--)
			f->tx[f->len++] = (uint8_t)fz_rand(f);
	} else {
		fz_attrs(f, cmd);
		fz_mutate(f, start + NLMSG_HDRLEN + GENL_HDRLEN);
	}
	nh->nlmsg_len = f->len - start;
	if (fz_chance(f, 3))	/* the header's length lies */
		nh->nlmsg_len = fz_chance(f, 50) ? fz_below(f, nh->nlmsg_len + 1) :
				nh->nlmsg_len + fz_below(f, 4096);
	f->len = start + NLMSG_ALIGN(f->len - start);
}

/* Read whatever the kernel answered (dumps go on while we read). */
static int fz_drain(struct fz *f, int wait_done)
{
	int done = 0;

	for (;;) {
		ssize_t r = recv(f->fd, f->rx, sizeof(f->rx),
				 wait_done && !done ? 0 : MSG_DONTWAIT);
		struct nlmsghdr *nh = (struct nlmsghdr *)f->rx;
		int left = (int)r;

		if (r < 0 && errno == ENOBUFS) {
			f->enobufs++;
			continue;
		}
		if (r < 0)
			return done;
		for (; NLMSG_OK(nh, left); nh = NLMSG_NEXT(nh, left)) {
			if (nh->nlmsg_type == NLMSG_DONE) {
				f->dumps++;
				done = 1;
			} else if (nh->nlmsg_type == NLMSG_ERROR) {
				int e = -((struct nlmsgerr *)NLMSG_DATA(nh))->error;

				if (!e && f->cmd_of[nh->nlmsg_seq % 1024] <= OPTINC_CMD_MAX)
					f->ok_by_cmd[f->cmd_of[nh->nlmsg_seq % 1024]]++;
				if (!e)
					f->acks++;
				else
					f->errs[e > 0 && e < FZ_ERRNOS ? e : 0]++;
				if (wait_done)
					return 0;
			}
		}
	}
}

static int fz_send(struct fz *f)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	if (sendto(f->fd, f->tx, f->len, 0, (struct sockaddr *)&to,
		   sizeof(to)) < 0 && errno != EINVAL && errno != ENOBUFS &&
	    errno != EMSGSIZE) {
		perror("nlfuzz: sendto");
		return -1;
	}
	f->datagrams++;
	return 0;
}

/* A well-formed request of @cmd, to @family; @name: the family's name. */
static int fz_request(struct fz *f, uint16_t family, uint8_t cmd,
		      const char *name)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)f->tx;
	struct genlmsghdr *gh = NLMSG_DATA(nh);

	fz_drain(f, 0);
	memset(f->tx, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	nh->nlmsg_type = family;
	nh->nlmsg_flags = NLM_F_REQUEST | (name ? 0 : NLM_F_DUMP);
	nh->nlmsg_seq = ++f->seq;
	gh->cmd = cmd;
	gh->version = 1;
	f->len = NLMSG_HDRLEN + GENL_HDRLEN;
	if (name)
		fz_put(f, CTRL_ATTR_FAMILY_NAME, name, (uint32_t)strlen(name) + 1);
	nh->nlmsg_len = f->len;
	return fz_send(f);
}

/* A well-formed dump of @cmd: the family must answer it to the end. */
static int fz_alive(struct fz *f, uint8_t cmd)
{
	return !fz_request(f, f->family, cmd, NULL) && fz_drain(f, 1);
}

/* Names of all switches (a valid dump), into @names; Return: how many. */
static int fz_switch_names(struct fz *f, char (*names)[OPTINC_NAME_LEN], int max)
{
	struct nlmsghdr *nh;
	struct nlattr *a;
	int n = 0, left, alen;
	ssize_t r;

	if (fz_request(f, f->family, OPTINC_CMD_SWITCH_GET, NULL))
		return -1;
	for (;;) {
		r = recv(f->fd, f->rx, sizeof(f->rx), 0);
		if (r < 0)
			return -1;
		left = (int)r;
		for (nh = (struct nlmsghdr *)f->rx; NLMSG_OK(nh, left);
		     nh = NLMSG_NEXT(nh, left)) {
			if (nh->nlmsg_type == NLMSG_DONE)
				return n;
			if (nh->nlmsg_type != f->family)
				return -1;
			alen = (int)nh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
			a = (struct nlattr *)((uint8_t *)NLMSG_DATA(nh) + GENL_HDRLEN);
			for (; alen >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN;
			     alen -= NLA_ALIGN(a->nla_len),
			     a = (struct nlattr *)((uint8_t *)a + NLA_ALIGN(a->nla_len)))
				if (a->nla_type == OPTINC_A_SWITCH_NAME && n < max &&
				    a->nla_len - NLA_HDRLEN <= OPTINC_NAME_LEN)
					memcpy(names[n++], a + 1, a->nla_len - NLA_HDRLEN);
		}
	}
}

/* Delete every switch with valid requests: each must be acked. */
static int fz_cleanup(struct fz *f)
{
	static char names[1024][OPTINC_NAME_LEN];
	struct nlmsghdr *nh = (struct nlmsghdr *)f->tx;
	int n = fz_switch_names(f, names, 1024), i, bad = 0;

	for (i = 0; i < n; i++) {
		memset(f->tx, 0, NLMSG_HDRLEN + GENL_HDRLEN);
		nh->nlmsg_type = f->family;
		nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
		nh->nlmsg_seq = ++f->seq;
		((struct genlmsghdr *)NLMSG_DATA(nh))->cmd = OPTINC_CMD_SWITCH_DEL;
		f->len = NLMSG_HDRLEN + GENL_HDRLEN;
		fz_put(f, OPTINC_A_SWITCH_NAME, names[i], (uint32_t)strlen(names[i]) + 1);
		nh->nlmsg_len = f->len;
		if (fz_send(f) || recv(f->fd, f->rx, sizeof(f->rx), 0) < 0 ||
		    ((struct nlmsghdr *)f->rx)->nlmsg_type != NLMSG_ERROR ||
		    ((struct nlmsgerr *)NLMSG_DATA((struct nlmsghdr *)f->rx))->error)
			bad++;
	}
	printf("nlfuzz: %d switches left, deleted with %d errors\n", n, bad);
	return n < 0 || bad ? -1 : 0;
}

/* The family's id, from the controller. */
static int fz_family(struct fz *f)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)f->rx;
	struct nlattr *a;
	int left;
	ssize_t r;

	if (fz_request(f, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, OPTINC_GENL_NAME))
		return -1;
	r = recv(f->fd, f->rx, sizeof(f->rx), 0);
	if (r < (ssize_t)NLMSG_HDRLEN || nh->nlmsg_type != GENL_ID_CTRL)
		return -1;
	left = (int)nh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	a = (struct nlattr *)((uint8_t *)NLMSG_DATA(nh) + GENL_HDRLEN);
	for (; left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN;
	     left -= NLA_ALIGN(a->nla_len),
	     a = (struct nlattr *)((uint8_t *)a + NLA_ALIGN(a->nla_len)))
		if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID) {
			memcpy(&f->family, a + 1, 2);
			fz_drain(f, 0);
			return 0;
		}
	return -1;
}

static void fz_table(struct fz *f)
{
	struct optinc_table_file_hdr *h = (struct optinc_table_file_hdr *)f->table;

	memset(h, 0, sizeof(*h));
	memcpy(h->magic, OPTINC_TABLE_MAGIC, 8);
	h->version = htole16(OPTINC_TABLE_VERSION);
	h->members = htole16(4);
	h->bits = htole16(8);
	h->radix = htole16(13);
	h->entries = htole32(28561);
	optinc_table_fill_exact(f->table + OPTINC_TABLE_HDR_LEN, 4, 8);
	f->table_len = sizeof(f->table);
}

static void fz_report(const struct fz *f, double secs)
{
	unsigned long e = 0;
	int i;

	for (i = 0; i < FZ_ERRNOS; i++)
		e += f->errs[i];
	printf("nlfuzz: %lu messages in %lu datagrams, %.1f s (%.0f/s); answers: %lu acks, %lu errors, %lu dumps done, %lu ENOBUFS\n",
	       f->sent, f->datagrams, secs, f->sent / (secs > 0 ? secs : 1),
	       f->acks, e, f->dumps, f->enobufs);
	printf("nlfuzz: errors by errno:");
	for (i = 0; i < FZ_ERRNOS; i++)
		if (f->errs[i])
			printf(" %s %lu", i ? strerror(i) : "other", f->errs[i]);
	printf("\nnlfuzz: acks by command:");
	for (i = 1; i <= OPTINC_CMD_MAX; i++)
		printf(" %d:%lu", i, f->ok_by_cmd[i]);
	printf("\n");
}

int main(int argc, char **argv)
{
	static struct fz f;
	unsigned long n = 50000, every = 1000, alive = 0;
	double limit = 600, t0, secs;
	struct timeval tmo = { .tv_sec = 10 };
	struct timespec ts;
	int o, rcv = 1 << 20;

	f.rng = 1;
	while ((o = getopt(argc, argv, "n:s:k:t:")) != -1) {
		switch (o) {
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 's': f.rng = strtoull(optarg, NULL, 0); break;
		case 'k': every = strtoul(optarg, NULL, 0); break;
		case 't': limit = atof(optarg); break;
		default:
			fprintf(stderr, "usage: nlfuzz [-n MESSAGES] [-s SEED] [-k ALIVE_EVERY] [-t MAX_SECS]\n");
			return 2;
		}
	}
	printf("nlfuzz: seed %llu, %lu messages\n", (unsigned long long)f.rng, n);
	f.fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (f.fd < 0 || setsockopt(f.fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv)) ||
	    setsockopt(f.fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo))) {
		perror("nlfuzz: netlink socket");
		return 1;
	}
	if (fz_family(&f)) {
		fprintf(stderr, "nlfuzz: no generic netlink family \"%s\"\n",
			OPTINC_GENL_NAME);
		return 1;
	}
	fz_table(&f);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ts.tv_sec + ts.tv_nsec / 1e9;
	for (secs = 0; f.sent < n && secs < limit;) {
		f.len = 0;
		do {
			fz_build(&f);
			f.sent++;
		} while (f.sent < n && f.len < FZ_BUF / 2 && fz_chance(&f, 5));
		if (fz_send(&f))
			return 1;
		fz_drain(&f, 0);
		if (every && f.sent / every != (f.sent - 1) / every) {
			if (!fz_alive(&f, OPTINC_CMD_SWITCH_GET)) {
				printf("FAIL: no answer to a switch dump after %lu messages\n",
				       f.sent);
				return 1;
			}
			alive++;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		secs = ts.tv_sec + ts.tv_nsec / 1e9 - t0;
	}
	fz_report(&f, secs);
	if (!fz_alive(&f, OPTINC_CMD_JOB_GET)) {
		printf("FAIL: no answer to a job dump at the end\n");
		return 1;
	}
	printf("nlfuzz: %lu liveness dumps answered\n", alive + 1);
	if (fz_cleanup(&f)) {
		printf("FAIL: deleting the switches left by the fuzzing\n");
		return 1;
	}
	printf("PASS\n");
	return 0;
}
