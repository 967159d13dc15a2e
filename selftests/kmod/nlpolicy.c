// SPDX-License-Identifier: GPL-2.0
/*
 * nlpolicy: optinc.ko's generic netlink family against its spec, in the
 * test VM. "nlpolicy SPEC DEV", SPEC being `scripts/nlspec policy` (what
 * each command takes, with types and ranges, and the message that refuses
 * each attribute it does not take), DEV a free Ethernet device:
 *  - the module's policy dump (CTRL_CMD_GETPOLICY) shows, per command,
 *    exactly the attributes of the spec with the spec's types and ranges;
 *  - every command, do and dump, works with all its own attributes (a
 *    switch, a port, a truth table, an onn job with an uplink, and one
 *    with job-fanin; the dumps' filters);
 *  - every command refuses each attribute it does not take, valid value
 *    and all, with EINVAL, the spec's extack message and that attribute's
 *    offset.
 * Prints "ok DESCRIPTION" or "fail DESCRIPTION" lines (vm-tests.sh makes
 * them TAP) and exits 0 when all passed.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <optinc/core.h>
#include <uapi/linux/optinc.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

#define NP_SWITCH	"npol0"
#define NP_OTHER	"npol1"	/* a second switch, for the dumps' filters */
#define NP_JOB		7
#define NP_JOB2		8
#define NP_N		2
#define NP_TABLE_LEN	(OPTINC_TABLE_HDR_LEN + 7 * 7 * 7 * 7)	/* N = 2 */
#define NP_FORM		64

/* What the spec says about one command. */
struct np_op {
	char name[32];
	int modes;			/* 1 do, 2 dump */
	int takes[OPTINC_A_MAX + 1];	/* in the spec's order, 0-terminated */
	char form[OPTINC_A_MAX + 1][NP_FORM];	/* by attribute */
	char reject[OPTINC_A_MAX + 1][80];	/* by attribute: the message */
	int seen;			/* modes the scenario ran */
};

struct np {
	int fd;
	uint16_t family;
	uint32_t seq;
	struct np_op op[OPTINC_CMD_MAX + 1];
	uint8_t tx[65536], rx[65536];
	uint32_t len;
	uint32_t ifindex;
	const char *dev;
	uint8_t table[NP_TABLE_LEN];
	int fails;
	/* the answer to the last request */
	int err, replies;
	char msg[256];
	uint32_t offs;
};

static void np_say(struct np *p, int good, const char *fmt, ...)
{
	va_list ap;

	printf("%s ", good ? "ok" : "fail");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	p->fails += !good;
}

/* ---- the spec, from `scripts/nlspec policy` */

static int np_load(struct np *p, const char *path)
{
	char line[256], name[32], what[32];
	FILE *f = fopen(path, "r");
	int cmd, attr, k, n = 0;

	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "op %d %31s %n", &cmd, name, &k) == 2 &&
		    cmd > 0 && cmd <= OPTINC_CMD_MAX) {
			snprintf(p->op[cmd].name, sizeof(p->op[cmd].name), "%s", name);
			p->op[cmd].modes = (strstr(line + k, "do") ? 1 : 0) |
					   (strstr(line + k, "dump") ? 2 : 0);
			n++;
		} else if (sscanf(line, "reject %d %d %n", &cmd, &attr, &k) == 2 &&
			   cmd > 0 && cmd <= OPTINC_CMD_MAX && attr > 0 && attr <= OPTINC_A_MAX) {
			snprintf(p->op[cmd].reject[attr], sizeof(p->op[cmd].reject[attr]),
				 "%s", line + k);
		} else if (sscanf(line, "attr %d %d %31s %31s %n", &cmd, &attr, name, what, &k) == 4 &&
			   cmd > 0 && cmd <= OPTINC_CMD_MAX && attr > 0 && attr <= OPTINC_A_MAX) {
			int *t = p->op[cmd].takes;

			while (*t)
				t++;
			*t = attr;
			snprintf(p->op[cmd].form[attr], NP_FORM, "%s", line + k);
		}
	}
	fclose(f);
	return n ? 0 : -1;
}

/* ---- netlink */

static void np_put(struct np *p, uint16_t type, const void *data, uint32_t len)
{
	struct nlattr *a = (struct nlattr *)(p->tx + p->len);

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memset(a + 1, 0, NLA_ALIGN(len));
	if (len)
		memcpy(a + 1, data, len);
	p->len += NLA_HDRLEN + NLA_ALIGN(len);
}

static void np_start(struct np *p, uint16_t family, uint8_t cmd, int dump)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)p->tx;
	struct genlmsghdr *gh = NLMSG_DATA(nh);

	memset(p->tx, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	nh->nlmsg_type = family;
	nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0);
	nh->nlmsg_seq = ++p->seq;
	gh->cmd = cmd;
	gh->version = OPTINC_GENL_VERSION;
	p->len = NLMSG_HDRLEN + GENL_HDRLEN;
}

static int np_attr_of(struct nlattr *head, int len, int type, struct nlattr **out)
{
	struct nlattr *a;

	for (a = head; len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len), a = (struct nlattr *)((uint8_t *)a + NLA_ALIGN(a->nla_len)))
		if ((a->nla_type & NLA_TYPE_MASK) == type) {
			*out = a;
			return 1;
		}
	return 0;
}

/* The extack message and offset of an NLMSG_ERROR or NLMSG_DONE. */
static void np_extack(struct np *p, struct nlmsghdr *nh, int hdr)
{
	int len = (int)nh->nlmsg_len - NLMSG_HDRLEN - hdr;
	struct nlattr *head = (struct nlattr *)((uint8_t *)NLMSG_DATA(nh) + hdr), *a;

	if (!(nh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (np_attr_of(head, len, NLMSGERR_ATTR_MSG, &a))
		snprintf(p->msg, sizeof(p->msg), "%.*s", a->nla_len - NLA_HDRLEN,
			 (char *)(a + 1));
	if (np_attr_of(head, len, NLMSGERR_ATTR_OFFS, &a))
		memcpy(&p->offs, a + 1, 4);
}

/*
 * Send the request built in p->tx and read to its end: its ACK or error
 * (p->err, p->msg, p->offs), the DONE of a dump; p->replies counts the
 * family's messages. @fn sees each of them. Return: 0 or -1 (no answer).
 */
static int np_talk(struct np *p, void (*fn)(struct np *, struct nlmsghdr *))
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	struct nlmsghdr *req = (struct nlmsghdr *)p->tx;
	uint32_t seq = req->nlmsg_seq;

	req->nlmsg_len = p->len;
	p->err = 0;
	p->replies = 0;
	p->msg[0] = 0;
	p->offs = 0;
	if (sendto(p->fd, p->tx, p->len, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		return -1;
	for (;;) {
		ssize_t r = recv(p->fd, p->rx, sizeof(p->rx), 0);
		struct nlmsghdr *nh = (struct nlmsghdr *)p->rx;
		int left = (int)r;

		if (r < 0)
			return -1;
		for (; NLMSG_OK(nh, left); nh = NLMSG_NEXT(nh, left)) {
			if (nh->nlmsg_seq != seq)
				continue;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				p->err = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
				np_extack(p, nh, sizeof(struct nlmsgerr));
				return 0;
			}
			if (nh->nlmsg_type == NLMSG_DONE) {	/* a dump: no ACK follows */
				memcpy(&p->err, NLMSG_DATA(nh), 4);
				np_extack(p, nh, 4);
				return 0;
			}
			p->replies++;
			if (fn)
				fn(p, nh);
		}
	}
}

static int np_family(struct np *p)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)p->rx;
	struct nlattr *a;
	ssize_t r;

	np_start(p, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	((struct nlmsghdr *)p->tx)->nlmsg_flags = NLM_F_REQUEST;
	np_put(p, CTRL_ATTR_FAMILY_NAME, OPTINC_GENL_NAME, sizeof(OPTINC_GENL_NAME));
	((struct nlmsghdr *)p->tx)->nlmsg_len = p->len;
	if (send(p->fd, p->tx, p->len, 0) < 0)
		return -1;
	r = recv(p->fd, p->rx, sizeof(p->rx), 0);
	if (r < (ssize_t)NLMSG_HDRLEN || nh->nlmsg_type != GENL_ID_CTRL ||
	    !np_attr_of((struct nlattr *)((uint8_t *)NLMSG_DATA(nh) + GENL_HDRLEN),
			(int)nh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, CTRL_ATTR_FAMILY_ID, &a))
		return -1;
	memcpy(&p->family, a + 1, 2);
	return 0;
}

/* ---- the policy dump */

static struct {
	int do_idx[OPTINC_CMD_MAX + 1], dump_idx[OPTINC_CMD_MAX + 1];
	char form[16][OPTINC_A_MAX + 1][NP_FORM];	/* by policy index, attribute */
	int more;	/* a policy index or attribute out of range */
} np_dump;

static uint64_t np_u64(struct nlattr *a)
{
	uint64_t v = 0;

	memcpy(&v, a + 1, a->nla_len - NLA_HDRLEN > 8 ? 8 : a->nla_len - NLA_HDRLEN);
	return v;
}

/* One attribute's policy, as the lines of `scripts/nlspec policy` write it. */
static void np_form(struct nlattr *pol, char *out)
{
	static const char *const types[] = {
		[NL_ATTR_TYPE_U8] = "u8", [NL_ATTR_TYPE_U16] = "u16",
		[NL_ATTR_TYPE_U32] = "u32", [NL_ATTR_TYPE_U64] = "u64",
		[NL_ATTR_TYPE_BINARY] = "binary", [NL_ATTR_TYPE_NUL_STRING] = "nul-string",
		[NL_ATTR_TYPE_STRING] = "string", [NL_ATTR_TYPE_NESTED] = "nest",
		[NL_ATTR_TYPE_FLAG] = "flag",
	};
	struct nlattr *head = (struct nlattr *)(pol + 1), *a;
	int len = pol->nla_len - NLA_HDRLEN;
	uint64_t type = 0, lo = 0, hi = 0;
	const char *t;

	if (np_attr_of(head, len, NL_POLICY_TYPE_ATTR_TYPE, &a))
		type = np_u64(a);
	t = type < sizeof(types) / sizeof(types[0]) && types[type] ? types[type] : "?";
	if (type >= NL_ATTR_TYPE_U8 && type <= NL_ATTR_TYPE_U64) {
		if (np_attr_of(head, len, NL_POLICY_TYPE_ATTR_MIN_VALUE_U, &a))
			lo = np_u64(a);
		if (np_attr_of(head, len, NL_POLICY_TYPE_ATTR_MAX_VALUE_U, &a))
			hi = np_u64(a);
		snprintf(out, NP_FORM, "%s %llu..%llu", t, (unsigned long long)lo,
			 (unsigned long long)hi);
		return;
	}
	if (np_attr_of(head, len, NL_POLICY_TYPE_ATTR_MIN_LENGTH, &a))
		lo = np_u64(a);
	if (np_attr_of(head, len, NL_POLICY_TYPE_ATTR_MAX_LENGTH, &a))
		snprintf(out, NP_FORM, "%s len %llu..%llu", t, (unsigned long long)lo,
			 (unsigned long long)np_u64(a));
	else
		snprintf(out, NP_FORM, "%s len %llu..-", t, (unsigned long long)lo);
}

static void np_dump_msg(struct np *p, struct nlmsghdr *nh)
{
	struct nlattr *head = (struct nlattr *)((uint8_t *)NLMSG_DATA(nh) + GENL_HDRLEN);
	int len = (int)nh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	struct nlattr *top, *a, *b;

	if (np_attr_of(head, len, CTRL_ATTR_OP_POLICY, &top)) {
		a = (struct nlattr *)(top + 1);	/* [cmd] { do, dump } */
		if ((a->nla_type & NLA_TYPE_MASK) > OPTINC_CMD_MAX) {
			np_dump.more++;
			return;
		}
		if (np_attr_of(a + 1, a->nla_len - NLA_HDRLEN, CTRL_ATTR_POLICY_DO, &b))
			np_dump.do_idx[a->nla_type & NLA_TYPE_MASK] = (int)np_u64(b) + 1;
		if (np_attr_of(a + 1, a->nla_len - NLA_HDRLEN, CTRL_ATTR_POLICY_DUMP, &b))
			np_dump.dump_idx[a->nla_type & NLA_TYPE_MASK] = (int)np_u64(b) + 1;
	} else if (np_attr_of(head, len, CTRL_ATTR_POLICY, &top)) {
		a = (struct nlattr *)(top + 1);		/* [policy idx] */
		b = (struct nlattr *)(a + 1);		/* [attr] { type, ... } */
		int idx = a->nla_type & NLA_TYPE_MASK, attr = b->nla_type & NLA_TYPE_MASK;

		if (idx >= 16 || attr > OPTINC_A_MAX) {
			np_dump.more++;
			return;
		}
		np_form(b, np_dump.form[idx][attr]);
	}
}

/* The module's policy of each command, against the spec's. */
static void np_policies(struct np *p)
{
	int cmd, attr, i;

	np_start(p, GENL_ID_CTRL, CTRL_CMD_GETPOLICY, 1);
	np_put(p, CTRL_ATTR_FAMILY_NAME, OPTINC_GENL_NAME, sizeof(OPTINC_GENL_NAME));
	if (np_talk(p, np_dump_msg) || p->err) {
		np_say(p, 0, "policy dump of the family: %s", strerror(-p->err));
		return;
	}
	for (cmd = 1; cmd <= OPTINC_CMD_MAX; cmd++) {
		struct np_op *o = &p->op[cmd];
		int idx = np_dump.do_idx[cmd] ? np_dump.do_idx[cmd] : np_dump.dump_idx[cmd];
		char why[256] = "";
		int n = 0, bad = 0;

		if (!o->modes) {
			np_say(p, 0, "policy of command %d: not in the spec", cmd);
			continue;
		}
		if (!!np_dump.do_idx[cmd] != !!(o->modes & 1) ||
		    !!np_dump.dump_idx[cmd] != !!(o->modes & 2) ||
		    (np_dump.do_idx[cmd] && np_dump.dump_idx[cmd] &&
		     np_dump.do_idx[cmd] != np_dump.dump_idx[cmd])) {
			bad++;
			snprintf(why, sizeof(why), ": do/dump policies %d/%d",
				 np_dump.do_idx[cmd], np_dump.dump_idx[cmd]);
		}
		for (attr = 1; idx && attr <= OPTINC_A_MAX; attr++) {
			const char *have = np_dump.form[idx - 1][attr];

			n += !!have[0];
			if (strcmp(have, o->form[attr])) {
				bad++;
				snprintf(why, sizeof(why), ": attribute %d is \"%s\", the spec says \"%s\"",
					 attr, have[0] ? have : "not taken",
					 o->form[attr][0] ? o->form[attr] : "not taken");
			}
		}
		for (i = 0; o->takes[i]; i++)
			;
		np_say(p, !bad && idx, "policy dump: %s's policy is the spec's (%d attribute%s, types, ranges)%s%s",
		       o->name, i, i == 1 ? "" : "s", idx ? "" : ": no policy", why);
	}
	if (np_dump.more)
		np_say(p, 0, "policy dump: %d entries out of the family's range", np_dump.more);
}

/* ---- requests */

static void np_table(struct np *p)
{
	struct optinc_table_file_hdr *h = (struct optinc_table_file_hdr *)p->table;

	memset(h, 0, sizeof(*h));
	memcpy(h->magic, OPTINC_TABLE_MAGIC, 8);
	h->version = htole16(OPTINC_TABLE_VERSION);
	h->members = htole16(NP_N);
	h->bits = htole16(8);
	h->radix = htole16(3 * NP_N + 1);
	h->entries = htole32(NP_TABLE_LEN - OPTINC_TABLE_HDR_LEN);
	optinc_table_fill_exact(p->table + OPTINC_TABLE_HDR_LEN, NP_N, 8);
}

/*
 * The test's value of attribute @attr, valid for the command that takes
 * it; nests without NLA_F_NESTED (no request takes one: strict parsing
 * would refuse the flag before the policy refuses the attribute).
 * Return: -1 for an attribute the test does not know.
 */
static int np_value(struct np *p, int attr)
{
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0x99, 1 };
	uint32_t len = 4;
	uint64_t v;

	switch (attr) {
	case OPTINC_A_SWITCH_NAME:
		np_put(p, attr, NP_SWITCH, sizeof(NP_SWITCH));
		return 0;
	case OPTINC_A_SWITCH_MAC:
		np_put(p, attr, mac, sizeof(mac));
		return 0;
	case OPTINC_A_IFNAME:
		np_put(p, attr, p->dev, (uint32_t)strlen(p->dev) + 1);
		return 0;
	case OPTINC_A_TABLE_DATA:
		np_put(p, attr, p->table, sizeof(p->table));
		return 0;
	case OPTINC_A_PAD:
	case OPTINC_A_PORT:
	case OPTINC_A_JOB:
		np_put(p, attr, NULL, 0);
		return 0;
	case OPTINC_A_SWITCH_ADDR: v = htonl(0x0a630afe); break;	/* 10.99.10.254 */
	case OPTINC_A_SWITCH_UDP_PORT: v = 47099; len = 2; break;
	case OPTINC_A_JOB_ID: v = NP_JOB; len = 2; break;
	case OPTINC_A_JOB_SIZE: v = NP_N; len = 2; break;
	case OPTINC_A_JOB_WINDOW: v = 4; len = 2; break;
	case OPTINC_A_JOB_MAX_ELEMS: v = 64; len = 2; break;
	case OPTINC_A_JOB_BITS: v = 8; len = 1; break;
	case OPTINC_A_JOB_MODE: v = OPTINC_NL_MODE_ONN; len = 1; break;
	case OPTINC_A_IFINDEX: v = p->ifindex; break;
	case OPTINC_A_JOB_TOKEN: v = 0x77; break;
	case OPTINC_A_TABLE_OFFSET: v = 0; break;
	case OPTINC_A_TABLE_TOTAL: v = sizeof(p->table); break;
	case OPTINC_A_SWITCH_RATE_LIMIT: v = 500; break;
	case OPTINC_A_SWITCH_RATE_BURST: v = 20; break;
	case OPTINC_A_JOB_UP_ADDR: v = htonl(0x0a630afd); break;	/* 10.99.10.253 */
	case OPTINC_A_JOB_UP_UDP_PORT: v = 47000; len = 2; break;
	case OPTINC_A_JOB_UP_JOB: v = 100; len = 2; break;
	case OPTINC_A_JOB_UP_RANK: v = 1; len = 2; break;
	case OPTINC_A_JOB_UP_TOKEN: v = 5; break;
	case OPTINC_A_JOB_FANIN: v = 2; len = 2; break;
	default:
		return -1;	/* a new attribute: give it a value here */
	}
	np_put(p, attr, &v, len);	/* host order: the low bytes first */
	return 0;
}

/*
 * job-set takes a cascade's first-level attributes (job-up-*) and the
 * second level's job-fanin, which no job has both of: job-fanin goes in a
 * request of its own (np_fanin()).
 */
static int np_exclusive(int cmd, int attr)
{
	return cmd == OPTINC_CMD_JOB_SET && attr == OPTINC_A_JOB_FANIN;
}

/* Job NP_JOB of NP_OTHER again, as a second level (job-fanin). */
static int np_fanin(struct np *p)
{
	uint16_t id = NP_JOB, n = NP_N, fanin = 2;

	np_start(p, p->family, OPTINC_CMD_JOB_SET, 0);
	np_put(p, OPTINC_A_SWITCH_NAME, NP_OTHER, sizeof(NP_OTHER));
	np_put(p, OPTINC_A_JOB_ID, &id, 2);
	np_put(p, OPTINC_A_JOB_SIZE, &n, 2);
	np_put(p, OPTINC_A_JOB_FANIN, &fanin, 2);
	return np_talk(p, NULL) || p->err ? -1 : 0;
}

/* Command @cmd with all the attributes it takes; Return: -1 without a value. */
static int np_own(struct np *p, int cmd, int dump)
{
	const int *t;

	np_start(p, p->family, (uint8_t)cmd, dump);
	for (t = p->op[cmd].takes; *t; t++)
		if (np_exclusive(cmd, *t))
			continue;
		else if (np_value(p, *t)) {
			np_say(p, 0, "%s: the test has no value for attribute %d", p->op[cmd].name, *t);
			return -1;
		}
	return 0;
}

/* A plain request: switch @name (and job @id of @size when not 0). */
static int np_plain(struct np *p, int cmd, const char *name, int id)
{
	uint16_t v = (uint16_t)id, n = NP_N;
	uint32_t addr = htonl(0x0a630bfe);

	np_start(p, p->family, (uint8_t)cmd, 0);
	np_put(p, OPTINC_A_SWITCH_NAME, name, (uint32_t)strlen(name) + 1);
	if (cmd == OPTINC_CMD_SWITCH_NEW)
		np_put(p, OPTINC_A_SWITCH_ADDR, &addr, 4);
	if (id)
		np_put(p, OPTINC_A_JOB_ID, &v, 2);
	if (cmd == OPTINC_CMD_JOB_SET)
		np_put(p, OPTINC_A_JOB_SIZE, &n, 2);
	return np_talk(p, NULL) || p->err ? -1 : 0;
}

/* One step of the scenario: @cmd with its own attributes must work. */
static void np_step(struct np *p, int cmd, int dump, int want_replies)
{
	struct np_op *o = &p->op[cmd];
	const char *mode = dump ? "dump" : "do";

	if (!(o->modes & (dump ? 2 : 1))) {
		np_say(p, 0, "%s %s: not in the spec", o->name, mode);
		return;
	}
	o->seen |= dump ? 2 : 1;
	if (np_own(p, cmd, dump))
		return;
	if (np_talk(p, NULL)) {
		np_say(p, 0, "%s %s with its own attributes: no answer", o->name, mode);
		return;
	}
	np_say(p, !p->err && p->replies == want_replies,
	       "%s %s with all its own attributes: %s, %d replies (%d expected)%s%s",
	       o->name, mode, p->err ? strerror(-p->err) : "done", p->replies,
	       want_replies, p->msg[0] ? ": " : "", p->msg);
}

/* Every attribute @cmd does not take, added to its own: refused by name. */
static void np_foreign(struct np *p, int cmd)
{
	struct np_op *o = &p->op[cmd];
	int attr, dump, n = 0, bad = 0;
	char why[400] = "";

	for (dump = 0; dump < 2; dump++) {
		if (!(o->modes & (dump ? 2 : 1)))
			continue;
		for (attr = 1; attr <= OPTINC_A_MAX; attr++) {
			uint32_t off;

			if (!o->reject[attr][0])
				continue;
			if (np_own(p, cmd, dump))
				return;
			off = p->len;
			if (np_value(p, attr)) {
				bad++;
				snprintf(why, sizeof(why), ": the test has no value for attribute %d", attr);
				continue;
			}
			n++;
			if (np_talk(p, NULL) || p->err != -EINVAL || strcmp(p->msg, o->reject[attr]) ||
			    p->offs != off) {
				bad++;
				snprintf(why, sizeof(why), ": %s with attribute %d: %s, \"%s\" at %u (want EINVAL, \"%s\" at %u)",
					 dump ? "dump" : "do", attr, p->err ? strerror(-p->err) : "accepted",
					 p->msg, p->offs, o->reject[attr], off);
			}
		}
	}
	np_say(p, !bad && n, "%s refuses each of %d attributes it does not take (do/dump), with its extack message and offset%s",
	       o->name, n, why);
}

static void np_scenario(struct np *p)
{
	int cmd;

	np_step(p, OPTINC_CMD_SWITCH_NEW, 0, 0);
	np_step(p, OPTINC_CMD_SWITCH_SET, 0, 0);
	np_step(p, OPTINC_CMD_SWITCH_GET, 0, 1);
	np_say(p, !np_plain(p, OPTINC_CMD_SWITCH_NEW, NP_OTHER, 0), "a second switch " NP_OTHER);
	np_step(p, OPTINC_CMD_SWITCH_GET, 1, 1);	/* filtered: 1 of 2 */
	np_step(p, OPTINC_CMD_PORT_ADD, 0, 0);
	np_step(p, OPTINC_CMD_TABLE_LOAD, 0, 0);
	np_step(p, OPTINC_CMD_JOB_SET, 0, 0);
	np_say(p, !np_plain(p, OPTINC_CMD_JOB_SET, NP_SWITCH, NP_JOB2) &&
		  !np_plain(p, OPTINC_CMD_JOB_SET, NP_OTHER, NP_JOB),
	       "job %d on " NP_SWITCH ", job %d on " NP_OTHER, NP_JOB2, NP_JOB);
	np_say(p, !np_fanin(p), "job %d on " NP_OTHER " again, with job-fanin: %s%s",
	       NP_JOB, p->err ? strerror(-p->err) : "done", p->msg);
	np_step(p, OPTINC_CMD_JOB_GET, 0, 1);
	np_step(p, OPTINC_CMD_JOB_GET, 1, 1);	/* filtered: 1 of 3 */
	np_step(p, OPTINC_CMD_STATS_GET, 1, 3);	/* the port, jobs 7 and 8 */
	for (cmd = 1; cmd <= OPTINC_CMD_MAX; cmd++)
		if (p->op[cmd].modes)
			np_foreign(p, cmd);
	np_step(p, OPTINC_CMD_JOB_DEL, 0, 0);
	np_step(p, OPTINC_CMD_PORT_DEL, 0, 0);
	np_step(p, OPTINC_CMD_SWITCH_DEL, 0, 0);
	np_say(p, !np_plain(p, OPTINC_CMD_SWITCH_DEL, NP_OTHER, 0), "switch " NP_OTHER " deleted");
	for (cmd = 1; cmd <= OPTINC_CMD_MAX; cmd++)
		if (p->op[cmd].modes && p->op[cmd].seen != p->op[cmd].modes)
			np_say(p, 0, "%s: the scenario does not run all its modes", p->op[cmd].name);
}

int main(int argc, char **argv)
{
	static struct np p;
	struct timeval tmo = { .tv_sec = 10 };
	int one = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: nlpolicy SPEC_POLICY_FILE DEV\n");
		return 2;
	}
	p.dev = argv[2];
	p.ifindex = if_nametoindex(p.dev);
	if (np_load(&p, argv[1]) || !p.ifindex) {
		fprintf(stderr, "nlpolicy: cannot read %s or no device %s\n", argv[1], p.dev);
		return 1;
	}
	np_table(&p);
	p.fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (p.fd < 0 || setsockopt(p.fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo)) ||
	    setsockopt(p.fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    setsockopt(p.fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one)) || np_family(&p)) {
		fprintf(stderr, "nlpolicy: no generic netlink family \"%s\"\n", OPTINC_GENL_NAME);
		return 1;
	}
	np_policies(&p);
	np_scenario(&p);
	return p.fails ? 1 : 0;
}
