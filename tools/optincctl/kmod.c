// SPDX-License-Identifier: BSD-3-Clause
/*
 * optincctl kmod: optinc.ko, the kernel datapath, through its generic
 * netlink family (include/uapi/linux/optinc.h) with libnl-genl. Printing
 * goes through print.c like the daemon object, with the same keys where a
 * counter means the same thing. The kernel checks every value (and says
 * what is wrong in its extack message); this file only parses words.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <optinc/core.h>
#include <uapi/linux/optinc.h>
#include "optincctl.h"
#include "kmod.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

#define KM_CHUNK	16384	/* table bytes per request */

struct km {
	struct nl_sock *sk;
	int family;
	const char *what;	/* the command, for messages */
	int err;		/* the kernel's answer, a negative errno */
	char msg[256];		/* its extack message */
	int miss;		/* type of a missing attribute, or 0 */
	int list;		/* the command being listed */
};

/* Counters of a port or job, indexed by OPTINC_STATS_A_* / enum optinc_drop. */
struct km_stats {
	uint64_t c[OPTINC_STATS_A_MAX + 1];
	uint64_t drops[OPTINC_DROP_NR];
};

static const char *const km_attr_names[OPTINC_A_MAX + 1] = {
	[OPTINC_A_SWITCH_NAME] = "switch-name",
	[OPTINC_A_SWITCH_ADDR] = "switch-addr",
	[OPTINC_A_IFINDEX] = "ifindex",
	[OPTINC_A_IFNAME] = "ifname",
	[OPTINC_A_JOB_ID] = "job-id",
	[OPTINC_A_JOB_SIZE] = "job-size",
	[OPTINC_A_TABLE_OFFSET] = "table-offset",
	[OPTINC_A_TABLE_DATA] = "table-data",
};

/* ---- talking to the kernel ---- */

/* The extack TLVs after an NLMSG_ERROR: the message, a missing attribute. */
static int km_err_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	struct km *km = arg;
	size_t off = sizeof(*e);

	km->err = e->error;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	if (nlh->nlmsg_len < NLMSG_HDRLEN + off ||
	    nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)e + off),
		      nlh->nlmsg_len - NLMSG_HDRLEN - off, NULL))
		return NL_STOP;
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(km->msg, sizeof(km->msg), "%s",
			 nla_get_string(tb[NLMSGERR_ATTR_MSG]));
	if (tb[NLMSGERR_ATTR_MISS_TYPE])
		km->miss = nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
	return NL_STOP;
}

static int km_open(struct km *km)
{
	int one = 1, ret;

	km->sk = nl_socket_alloc();
	if (!km->sk)
		return -ENOMEM;
	ret = genl_connect(km->sk);
	if (ret) {
		fprintf(stderr, "optincctl: kmod: generic netlink: %s\n",
			nl_geterror(ret));
		return -EIO;
	}
	setsockopt(nl_socket_get_fd(km->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(km->sk), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));
	nl_socket_enable_msg_peek(km->sk);
	nl_socket_modify_err_cb(km->sk, NL_CB_CUSTOM, km_err_cb, km);
	km->family = genl_ctrl_resolve(km->sk, OPTINC_GENL_NAME);
	if (km->family < 0) {
		fprintf(stderr, "optincctl: kmod: optinc.ko is not loaded "
			"(no generic netlink family \"%s\")\n", OPTINC_GENL_NAME);
		return -ENOENT;
	}
	return 0;
}

static void km_close(struct km *km)
{
	nl_socket_free(km->sk);
}

static struct nl_msg *km_msg(struct km *km, int cmd, int flags, size_t room)
{
	struct nl_msg *msg = nlmsg_alloc_size(room);

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, km->family, 0,
				flags, cmd, OPTINC_GENL_VERSION)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return msg;
}

static int km_report(struct km *km)
{
	fprintf(stderr, "optincctl: kmod %s: %s", km->what, strerror(-km->err));
	if (km->msg[0])
		fprintf(stderr, ": %s", km->msg);
	if (km->miss > 0 && km->miss <= OPTINC_A_MAX && km_attr_names[km->miss])
		fprintf(stderr, " (missing %s)", km_attr_names[km->miss]);
	fprintf(stderr, "\n");
	return km->err;
}

/* Send @msg (freed here), hand each reply to @fn; wait for the ACK. */
static int km_talk(struct km *km, struct nl_msg *msg, nl_recvmsg_msg_cb_t fn,
		   void *arg)
{
	int ret;

	if (!msg) {
		fprintf(stderr, "optincctl: kmod %s: message too large\n",
			km->what);
		return -EMSGSIZE;
	}
	km->err = 0;
	km->msg[0] = 0;
	km->miss = 0;
	nl_socket_modify_cb(km->sk, NL_CB_VALID, fn ? NL_CB_CUSTOM :
			    NL_CB_DEFAULT, fn, arg);
	ret = nl_send_auto(km->sk, msg);
	nlmsg_free(msg);
	if (ret >= 0)
		ret = nl_recvmsgs_default(km->sk);
	if (km->err)
		return km_report(km);
	if (ret < 0) {
		fprintf(stderr, "optincctl: kmod %s: %s\n", km->what,
			nl_geterror(ret));
		return -EIO;
	}
	return 0;
}

/* ---- words ---- */

static int km_num(const char *key, const char *s, unsigned long max,
		  unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	if (!*s || *end || errno || *v > max || *s == '-') {
		fprintf(stderr, "optincctl: kmod: %s \"%s\" is not a number in 0..%lu\n",
			key, s, max);
		return -EINVAL;
	}
	return 0;
}

static int km_mac(const char *s, uint8_t *mac)
{
	unsigned int b[6], i;
	char c;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &c) != 6) {
		fprintf(stderr, "optincctl: kmod: mac \"%s\" is not xx:xx:xx:xx:xx:xx\n", s);
		return -EINVAL;
	}
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

enum km_kind { KM_U8, KM_U16, KM_U32, KM_STR, KM_IPV4, KM_MAC, KM_MODE, KM_FILE,
	       KM_UPLINK };

/* A "key value" word pair of a command and the attribute it becomes. */
struct km_key {
	const char *name;
	int attr;
	enum km_kind kind;
};

static int km_put_num(struct nl_msg *msg, const struct km_key *k,
		      const char *val)
{
	static const unsigned long max[] = { 0xff, 0xffff, 0xffffffff };
	unsigned long v;
	int ret;

	ret = km_num(k->name, val, max[k->kind], &v);
	if (ret)
		return ret;
	if (k->kind == KM_U8)
		ret = nla_put_u8(msg, k->attr, (uint8_t)v);
	else if (k->kind == KM_U16)
		ret = nla_put_u16(msg, k->attr, (uint16_t)v);
	else
		ret = nla_put_u32(msg, k->attr, (uint32_t)v);
	return ret ? -EMSGSIZE : 0;
}

/* "IPV4[:UDP]", as optincd's up= key: job-up-addr and job-up-udp-port. */
static int km_put_uplink(struct nl_msg *msg, const char *val)
{
	const char *colon = strchr(val, ':');
	char host[INET_ADDRSTRLEN];
	size_t n = colon ? (size_t)(colon - val) : strlen(val);
	struct in_addr a;
	unsigned long port;

	if (n == 0 || n >= sizeof(host))
		goto bad;
	memcpy(host, val, n);
	host[n] = '\0';
	if (inet_pton(AF_INET, host, &a) != 1 || !a.s_addr)
		goto bad;
	if (colon && (km_num("up port", colon + 1, 0xffff, &port) || !port))
		goto bad;
	if (nla_put(msg, OPTINC_A_JOB_UP_ADDR, 4, &a) ||
	    (colon && nla_put_u16(msg, OPTINC_A_JOB_UP_UDP_PORT, (uint16_t)port)))
		return -EMSGSIZE;
	return 0;
bad:
	fprintf(stderr, "optincctl: kmod: up \"%s\" is not IPV4[:UDP]\n", val);
	return -EINVAL;
}

static int km_put_value(struct nl_msg *msg, const struct km_key *k,
			const char *val)
{
	struct in_addr a;
	uint8_t mac[6];

	switch (k->kind) {
	case KM_STR:
		return nla_put_string(msg, k->attr, val) ? -EMSGSIZE : 0;
	case KM_IPV4:
		if (inet_pton(AF_INET, val, &a) != 1) {
			fprintf(stderr, "optincctl: kmod: addr \"%s\" is not an IPv4 address\n",
				val);
			return -EINVAL;
		}
		return nla_put(msg, k->attr, 4, &a) ? -EMSGSIZE : 0;
	case KM_UPLINK:
		return km_put_uplink(msg, val);
	case KM_MAC:
		if (km_mac(val, mac))
			return -EINVAL;
		return nla_put(msg, k->attr, 6, mac) ? -EMSGSIZE : 0;
	case KM_MODE:
		if (strcmp(val, "exact") && strcmp(val, "onn")) {
			fprintf(stderr, "optincctl: kmod: mode \"%s\" is not exact or onn\n",
				val);
			return -EINVAL;
		}
		return nla_put_u8(msg, k->attr, strcmp(val, "onn") ?
				  OPTINC_NL_MODE_EXACT : OPTINC_NL_MODE_ONN) ?
		       -EMSGSIZE : 0;
	default:
		return km_put_num(msg, k, val);
	}
}

/*
 * Put the pairs of @argv as attributes; a KM_FILE key's value goes to
 * *@file. Return: 0 or a negative errno (printed).
 */
static int km_put_pairs(struct nl_msg *msg, const struct km_key *keys,
			int argc, char **argv, const char **file)
{
	const struct km_key *k;
	int i, ret;

	for (i = 0; i < argc; i += 2) {
		for (k = keys; k->name && strcmp(argv[i], k->name); k++)
			;
		if (!k->name)
			return optincctl_unknown(argv[i], "kmod");
		if (i + 1 >= argc) {
			fprintf(stderr, "optincctl: kmod: %s needs a value\n", argv[i]);
			return -EINVAL;
		}
		if (k->kind == KM_FILE) {
			*file = argv[i + 1];
			continue;
		}
		ret = km_put_value(msg, k, argv[i + 1]);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- printing ---- */

static void km_parse_stats(struct nlattr *nest, struct km_stats *st)
{
	struct nlattr *tb[OPTINC_STATS_A_MAX + 1], *d[OPTINC_DROP_NR];
	int i;

	memset(st, 0, sizeof(*st));
	if (!nest || nla_parse_nested(tb, OPTINC_STATS_A_MAX, nest, NULL))
		return;
	for (i = 0; i <= OPTINC_STATS_A_MAX; i++)
		if (tb[i] && i != OPTINC_STATS_A_DROPS && nla_len(tb[i]) == 8)
			st->c[i] = nla_get_u64(tb[i]);
	if (!tb[OPTINC_STATS_A_DROPS] ||
	    nla_parse_nested(d, OPTINC_DROP_NR - 1, tb[OPTINC_STATS_A_DROPS],
			     NULL))
		return;
	for (i = 1; i < OPTINC_DROP_NR; i++)
		if (d[i] && nla_len(d[i]) == 8)
			st->drops[i] = nla_get_u64(d[i]);
}

/* "drops": {reason: n}; text shows the nonzero ones, all with -s. */
static void km_print_drops(const struct km_stats *st)
{
	bool any = false;
	int i;

	optincctl_print_text("    drops:");
	optincctl_print_open("drops", false);
	for (i = 1; i < OPTINC_DROP_NR; i++) {
		optincctl_print_u64(optinc_drop_names[i], NULL, st->drops[i]);
		if (st->drops[i] || optincctl_opts.stats) {
			optincctl_print_text(" %s %" PRIu64, optinc_drop_names[i],
					     st->drops[i]);
			any = true;
		}
	}
	optincctl_print_close();
	optincctl_print_text("%s\n", any ? "" : " none");
}

static void km_print_port(const char *sw, struct nlattr *nest)
{
	struct nlattr *tb[OPTINC_PORT_A_MAX + 1];
	struct km_stats st;
	const uint64_t *c = st.c;

	if (nla_parse_nested(tb, OPTINC_PORT_A_MAX, nest, NULL) ||
	    !tb[OPTINC_PORT_A_IFINDEX] || !tb[OPTINC_PORT_A_IFNAME])
		return;
	km_parse_stats(tb[OPTINC_PORT_A_STATS], &st);
	optincctl_print_open(NULL, false);
	optincctl_print_str("switch", "%s", sw);
	optincctl_print_u64("ifindex", " port %" PRIu64,
			    nla_get_u32(tb[OPTINC_PORT_A_IFINDEX]));
	optincctl_print_str("name", ": %s\n", nla_get_string(tb[OPTINC_PORT_A_IFNAME]));
	optincctl_print_u64("rx_pkts", "    RX: packets %" PRIu64, c[OPTINC_STATS_A_RX_FRAMES]);
	optincctl_print_u64("rx_bytes", " bytes %" PRIu64, c[OPTINC_STATS_A_RX_BYTES]);
	optincctl_print_u64("rx_dropped", " dropped %" PRIu64 "\n", c[OPTINC_STATS_A_DROPPED]);
	optincctl_print_u64("tx_pkts", "    TX: packets %" PRIu64, c[OPTINC_STATS_A_TX_FRAMES]);
	optincctl_print_u64("tx_bytes", " bytes %" PRIu64, c[OPTINC_STATS_A_TX_BYTES]);
	optincctl_print_u64("tx_errors", " errors %" PRIu64 "\n", c[OPTINC_STATS_A_TX_ERRORS]);
	optincctl_print_u64("l2_forwarded", "    l2: forwarded %" PRIu64, c[OPTINC_STATS_A_FORWARDED]);
	optincctl_print_u64("l2_flooded", " flooded %" PRIu64, c[OPTINC_STATS_A_FLOODED]);
	optincctl_print_u64("arp_replies", " arp-replies %" PRIu64, c[OPTINC_STATS_A_ARP_REPLIES]);
	optincctl_print_u64("icmp_replies", " icmp-replies %" PRIu64, c[OPTINC_STATS_A_ICMP_REPLIES]);
	optincctl_print_u64("optinc_frames", " optinc %" PRIu64 "\n", c[OPTINC_STATS_A_OPTINC]);
	optincctl_print_u64("spoofed", "    port-security: spoofed %" PRIu64, c[OPTINC_STATS_A_SPOOFED]);
	optincctl_print_u64("wrong_port", " wrong-port %" PRIu64, c[OPTINC_STATS_A_WRONG_PORT]);
	optincctl_print_u64("rate_limited", " rate-limited %" PRIu64 "\n", c[OPTINC_STATS_A_RATE_LIMITED]);
	km_print_drops(&st);
	optincctl_print_close();
}

static void km_print_job_counters(const struct km_stats *st)
{
	const uint64_t *c = st->c;
	bool up = c[OPTINC_STATS_A_UP_FRAMES_OUT] != 0;	/* a first level */

	optincctl_print_u64("slots_completed", "    slots %" PRIu64, c[OPTINC_STATS_A_COMPLETED]);
	optincctl_print_u64("frames_in", " in %" PRIu64 " frames",
			    c[OPTINC_STATS_A_DATA] + c[OPTINC_STATS_A_JOINS]);
	optincctl_print_u64("frames_out", " out %" PRIu64 " frames\n",
			    c[OPTINC_STATS_A_RESULTS] + c[OPTINC_STATS_A_JOIN_ACKS] +
			    c[OPTINC_STATS_A_NACKS]);
	optincctl_print_u64("data", "    data %" PRIu64, c[OPTINC_STATS_A_DATA]);
	optincctl_print_u64("absorbed", " absorbed %" PRIu64, c[OPTINC_STATS_A_ABSORBED]);
	optincctl_print_u64("results", " results %" PRIu64, c[OPTINC_STATS_A_RESULTS]);
	optincctl_print_u64("results_shared", " shared %" PRIu64,
			    c[OPTINC_STATS_A_RESULTS_SHARED]);
	optincctl_print_u64("resends", " resends %" PRIu64 "\n", c[OPTINC_STATS_A_RESENT]);
	optincctl_print_u64("joins", "    joins %" PRIu64, c[OPTINC_STATS_A_JOINS]);
	optincctl_print_u64("join_acks", " join-acks %" PRIu64, c[OPTINC_STATS_A_JOIN_ACKS]);
	optincctl_print_u64("nacks", " nacks %" PRIu64, c[OPTINC_STATS_A_NACKS]);
	optincctl_print_u64("tx_errors", " tx-errors %" PRIu64, c[OPTINC_STATS_A_TX_ERRORS]);
	optincctl_print_u64("dropped", " dropped %" PRIu64 "\n", c[OPTINC_STATS_A_DROPPED]);
	optincctl_print_u64("wrong_port", "    port-security: wrong-port %" PRIu64, c[OPTINC_STATS_A_WRONG_PORT]);
	optincctl_print_u64("spoofed", " spoofed %" PRIu64, c[OPTINC_STATS_A_SPOOFED]);
	optincctl_print_u64("rebinds", " rebinds %" PRIu64 "\n", c[OPTINC_STATS_A_REBINDS]);
	/* the uplink's, on a line of their own once it sent up */
	optincctl_print_u64("up_frames_out", up ? "    uplink: frames-out %" PRIu64 : NULL,
			    c[OPTINC_STATS_A_UP_FRAMES_OUT]);
	optincctl_print_u64("up_results_in", up ? " results-in %" PRIu64 : NULL,
			    c[OPTINC_STATS_A_UP_RESULTS_IN]);
	optincctl_print_u64("up_resends", up ? " resends %" PRIu64 : NULL,
			    c[OPTINC_STATS_A_UP_RESENDS]);
	optincctl_print_u64("up_hinted", up ? " (hinted %" PRIu64 ")" : NULL,
			    c[OPTINC_STATS_A_UP_HINTED]);
	optincctl_print_u64("up_results_dup", up ? " results-again %" PRIu64 "\n" : NULL,
			    c[OPTINC_STATS_A_UP_RESULTS_DUP]);
	km_print_drops(st);
}

static uint64_t km_nla_u(struct nlattr *a)
{
	if (!a)
		return 0;
	switch (nla_len(a)) {
	case 1: return nla_get_u8(a);
	case 2: return nla_get_u16(a);
	case 4: return nla_get_u32(a);
	default: return nla_get_u64(a);
	}
}

/* A first level's uplink, or a second level's fan-in: a line when either. */
static void km_print_job_cascade(struct nlattr **tb)
{
	char ip[INET_ADDRSTRLEN] = "";
	struct in_addr a;

	if (tb[OPTINC_JOB_A_FANIN])
		optincctl_print_u64("fanin", "    second level: fanin %" PRIu64 "\n",
				    km_nla_u(tb[OPTINC_JOB_A_FANIN]));
	if (!tb[OPTINC_JOB_A_UP_ADDR])
		return;
	a.s_addr = nla_get_u32(tb[OPTINC_JOB_A_UP_ADDR]);
	inet_ntop(AF_INET, &a, ip, sizeof(ip));
	optincctl_print_str("up_addr", "    up %s", ip);
	optincctl_print_u64("up_udp_port", ":%" PRIu64, km_nla_u(tb[OPTINC_JOB_A_UP_UDP_PORT]));
	optincctl_print_u64("up_job", " up-job %" PRIu64, km_nla_u(tb[OPTINC_JOB_A_UP_JOB]));
	optincctl_print_u64("up_rank", " up-rank %" PRIu64 "\n", km_nla_u(tb[OPTINC_JOB_A_UP_RANK]));
}

static void km_print_job(const char *sw, struct nlattr *nest)
{
	struct nlattr *tb[OPTINC_JOB_A_MAX + 1];
	uint64_t joined, mode;
	struct km_stats st;

	if (nla_parse_nested(tb, OPTINC_JOB_A_MAX, nest, NULL) ||
	    !tb[OPTINC_JOB_A_ID])
		return;
	km_parse_stats(tb[OPTINC_JOB_A_STATS], &st);
	joined = km_nla_u(tb[OPTINC_JOB_A_JOINED]);
	mode = km_nla_u(tb[OPTINC_JOB_A_MODE]);
	optincctl_print_open(NULL, false);
	optincctl_print_str("switch", "%s", sw);
	optincctl_print_u64("id", " job %" PRIu64, km_nla_u(tb[OPTINC_JOB_A_ID]));
	optincctl_print_u64("size", " size %" PRIu64, km_nla_u(tb[OPTINC_JOB_A_SIZE]));
	optincctl_print_u64("bits", " bits %" PRIu64, km_nla_u(tb[OPTINC_JOB_A_BITS]));
	optincctl_print_str("mode", " mode %s", mode == OPTINC_NL_MODE_ONN ? "onn" : "exact");
	optincctl_print_u64("joined", " joined %" PRIu64, __builtin_popcountll(joined));
	optincctl_print_text("/%" PRIu64, km_nla_u(tb[OPTINC_JOB_A_SIZE]));
	optincctl_print_u64("joined_mask", NULL, joined);
	optincctl_print_u64("token_set", NULL, km_nla_u(tb[OPTINC_JOB_A_TOKEN_SET]));
	optincctl_print_u64("window", " window %" PRIu64, km_nla_u(tb[OPTINC_JOB_A_WINDOW]));
	optincctl_print_u64("max_elems", " max-elems %" PRIu64 "\n",
			    km_nla_u(tb[OPTINC_JOB_A_MAX_ELEMS]));
	if (tb[OPTINC_JOB_A_TABLE_MEMBERS]) {
		optincctl_print_u64("table_members", "    table N %" PRIu64,
				    km_nla_u(tb[OPTINC_JOB_A_TABLE_MEMBERS]));
		optincctl_print_u64("table_wrong", " wrong-entries %" PRIu64 "\n",
				    km_nla_u(tb[OPTINC_JOB_A_TABLE_WRONG]));
	}
	km_print_job_cascade(tb);
	km_print_job_counters(&st);
	optincctl_print_close();
}

static void km_print_switch(struct nlattr **tb, struct nlmsghdr *nlh)
{
	struct nlattr *ptb[OPTINC_PORT_A_MAX + 1], *a;
	const uint8_t *m = nla_data(tb[OPTINC_A_SWITCH_MAC]);
	char ip[INET_ADDRSTRLEN], mac[18];
	uint32_t addr = nla_get_u32(tb[OPTINC_A_SWITCH_ADDR]);
	int rem;

	inet_ntop(AF_INET, &addr, ip, sizeof(ip));
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x",
		 m[0], m[1], m[2], m[3], m[4], m[5]);
	optincctl_print_open(NULL, false);
	optincctl_print_str("name", "switch %s", nla_get_string(tb[OPTINC_A_SWITCH_NAME]));
	optincctl_print_str("addr", " addr %s", ip);
	optincctl_print_str("mac", " mac %s", mac);
	optincctl_print_u64("udp_port", " udp %" PRIu64,
			    nla_get_u16(tb[OPTINC_A_SWITCH_UDP_PORT]));
	if (tb[OPTINC_A_SWITCH_RATE_LIMIT] && tb[OPTINC_A_SWITCH_RATE_BURST]) {
		optincctl_print_u64("rate_limit_pps", " rate-limit %" PRIu64 "/s",
				    nla_get_u32(tb[OPTINC_A_SWITCH_RATE_LIMIT]));
		optincctl_print_u64("rate_limit_burst", " burst %" PRIu64,
				    nla_get_u32(tb[OPTINC_A_SWITCH_RATE_BURST]));
	}
	optincctl_print_text("\n");
	optincctl_print_text("    ports:");
	optincctl_print_open("ports", true);
	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		if (nla_type(a) != OPTINC_A_PORT ||
		    nla_parse_nested(ptb, OPTINC_PORT_A_MAX, a, NULL) ||
		    !ptb[OPTINC_PORT_A_IFNAME] || !ptb[OPTINC_PORT_A_IFINDEX])
			continue;
		optincctl_print_open(NULL, false);
		optincctl_print_str("name", " %s", nla_get_string(ptb[OPTINC_PORT_A_IFNAME]));
		optincctl_print_u64("ifindex", NULL, nla_get_u32(ptb[OPTINC_PORT_A_IFINDEX]));
		optincctl_print_close();
	}
	optincctl_print_close();
	optincctl_print_text("\n");
	optincctl_print_close();
}

/* One reply: a switch, a port's counters or a job, printed as it comes. */
static int km_reply_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[OPTINC_A_MAX + 1];
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct km *km = arg;
	const char *sw;

	if (genlmsg_parse(nlh, 0, tb, OPTINC_A_MAX, NULL) ||
	    !tb[OPTINC_A_SWITCH_NAME])
		return NL_SKIP;
	sw = nla_get_string(tb[OPTINC_A_SWITCH_NAME]);
	if (tb[OPTINC_A_SWITCH_ADDR] && tb[OPTINC_A_SWITCH_MAC] &&
	    tb[OPTINC_A_SWITCH_UDP_PORT])
		km_print_switch(tb, nlh);
	else if (tb[OPTINC_A_PORT])
		km_print_port(sw, tb[OPTINC_A_PORT]);
	else if (tb[OPTINC_A_JOB] && km->list != OPTINC_CMD_STATS_GET)
		km_print_job(sw, tb[OPTINC_A_JOB]);
	return NL_OK;
}

/* ---- commands ---- */

/* A dump of @cmd, or a get with a job @id (>= 0), optionally of switch @sw. */
static int km_list(struct km *km, int cmd, const char *sw, long id)
{
	struct nl_msg *msg;
	int ret;

	msg = km_msg(km, cmd, id < 0 ? NLM_F_DUMP : 0, 4096);
	if (msg && ((sw && nla_put_string(msg, OPTINC_A_SWITCH_NAME, sw)) ||
		    (id >= 0 && nla_put_u16(msg, OPTINC_A_JOB_ID, (uint16_t)id)))) {
		nlmsg_free(msg);
		msg = NULL;
	}
	km->list = cmd;
	optincctl_print_start(id < 0);
	ret = km_talk(km, msg, km_reply_cb, km);
	optincctl_print_end();
	return ret;
}

/* A request of switch @sw with the pairs of @argv, answered by an ACK. */
static int km_request(struct km *km, int cmd, const char *sw,
		      const struct km_key *keys, int argc, char **argv,
		      const char **file)
{
	struct nl_msg *msg = km_msg(km, cmd, 0, 4096);
	int ret;

	if (!msg)
		return km_talk(km, NULL, NULL, NULL);
	if (nla_put_string(msg, OPTINC_A_SWITCH_NAME, sw))
		ret = -EMSGSIZE;
	else
		ret = km_put_pairs(msg, keys, argc, argv, file);
	if (ret) {
		nlmsg_free(msg);
		return ret == -EMSGSIZE ? km_talk(km, NULL, NULL, NULL) : ret;
	}
	return km_talk(km, msg, NULL, NULL);
}

static int km_read_file(const char *path, uint8_t **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;
	int ret = 0;

	if (!f)
		goto out_err;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto out_err;
	*len = (size_t)n;
	*buf = malloc(*len ? *len : 1);
	if (!*buf)
		ret = -ENOMEM;
	else if (fread(*buf, 1, *len, f) != *len)
		ret = -EIO;
	fclose(f);
	if (ret)
		fprintf(stderr, "optincctl: kmod: %s: %s\n", path, strerror(-ret));
	return ret;
out_err:
	ret = -errno;
	fprintf(stderr, "optincctl: kmod: %s: %s\n", path, strerror(errno));
	if (f)
		fclose(f);
	return ret;
}

/* Upload truth-table file @path for job @id in chunks; the kernel checks it. */
static int km_table_upload(struct km *km, const char *sw, uint16_t id,
			   const char *path)
{
	size_t len = 0, off = 0, n;
	uint8_t *buf = NULL;
	struct nl_msg *msg;
	int ret;

	ret = km_read_file(path, &buf, &len);
	if (ret)
		return ret;
	km->what = "table load";
	do {
		n = len - off < KM_CHUNK ? len - off : KM_CHUNK;
		msg = km_msg(km, OPTINC_CMD_TABLE_LOAD, 0, KM_CHUNK + 1024);
		if (msg && (nla_put_string(msg, OPTINC_A_SWITCH_NAME, sw) ||
			    nla_put_u16(msg, OPTINC_A_JOB_ID, id) ||
			    nla_put_u32(msg, OPTINC_A_TABLE_OFFSET, (uint32_t)off) ||
			    (!off && nla_put_u32(msg, OPTINC_A_TABLE_TOTAL, (uint32_t)len)) ||
			    nla_put(msg, OPTINC_A_TABLE_DATA, (int)n, buf + off))) {
			nlmsg_free(msg);
			msg = NULL;
		}
		ret = km_talk(km, msg, NULL, NULL);
		off += n;
	} while (!ret && off < len);
	free(buf);
	return ret;
}

static int km_switch(struct km *km, int argc, char **argv)
{
	static const struct km_key keys[] = {
		{ "addr", OPTINC_A_SWITCH_ADDR, KM_IPV4 },
		{ "mac", OPTINC_A_SWITCH_MAC, KM_MAC },
		{ "port", OPTINC_A_SWITCH_UDP_PORT, KM_U16 },
		{ "rate-limit", OPTINC_A_SWITCH_RATE_LIMIT, KM_U32 },
		{ "burst", OPTINC_A_SWITCH_RATE_BURST, KM_U32 },
		{ NULL, 0, 0 },
	};

	if (argc >= 2 && optincctl_matches(argv[0], "add")) {
		km->what = "switch add";
		return km_request(km, OPTINC_CMD_SWITCH_NEW, argv[1], keys,
				  argc - 2, argv + 2, NULL);
	}
	if (argc >= 2 && optincctl_matches(argv[0], "set")) {
		km->what = "switch set";
		return km_request(km, OPTINC_CMD_SWITCH_SET, argv[1], keys + 3,
				  argc - 2, argv + 2, NULL);
	}
	if (argc == 2 && optincctl_matches(argv[0], "delete")) {
		km->what = "switch del";
		return km_request(km, OPTINC_CMD_SWITCH_DEL, argv[1], keys, 0,
				  NULL, NULL);
	}
	return optincctl_unknown(argc ? argv[0] : "switch", "kmod");
}

/* port { add | del } SWITCH { DEV | dev DEV | ifindex N } */
static int km_port(struct km *km, int argc, char **argv)
{
	static const struct km_key keys[] = {
		{ "dev", OPTINC_A_IFNAME, KM_STR },
		{ "ifindex", OPTINC_A_IFINDEX, KM_U32 },
		{ NULL, 0, 0 },
	};
	bool add = argc && optincctl_matches(argv[0], "add");
	int cmd = add ? OPTINC_CMD_PORT_ADD : OPTINC_CMD_PORT_DEL;
	char *pair[2] = { "dev", NULL };

	if (argc < 3 || (!add && !optincctl_matches(argv[0], "delete")))
		return optincctl_unknown(argc ? argv[0] : "port", "kmod");
	km->what = add ? "port add" : "port del";
	if (argc > 3)
		return km_request(km, cmd, argv[1], keys, argc - 2, argv + 2, NULL);
	pair[1] = argv[2];
	return km_request(km, cmd, argv[1], keys, 2, pair, NULL);
}

static const struct km_key km_job_keys[] = {
	{ "id", OPTINC_A_JOB_ID, KM_U16 },
	{ "size", OPTINC_A_JOB_SIZE, KM_U16 },
	{ "bits", OPTINC_A_JOB_BITS, KM_U8 },
	{ "mode", OPTINC_A_JOB_MODE, KM_MODE },
	{ "token", OPTINC_A_JOB_TOKEN, KM_U32 },
	{ "window", OPTINC_A_JOB_WINDOW, KM_U16 },
	{ "max-elems", OPTINC_A_JOB_MAX_ELEMS, KM_U16 },
	{ "table", 0, KM_FILE },
	{ "up", 0, KM_UPLINK },
	{ "up-job", OPTINC_A_JOB_UP_JOB, KM_U16 },
	{ "up-rank", OPTINC_A_JOB_UP_RANK, KM_U16 },
	{ "up-token", OPTINC_A_JOB_UP_TOKEN, KM_U32 },
	{ "fanin", OPTINC_A_JOB_FANIN, KM_U16 },
	{ NULL, 0, 0 },
};

/* The value of key @key in the pairs of @argv, or NULL. */
static const char *km_find(int argc, char **argv, const char *key)
{
	int i;

	for (i = 0; i + 1 < argc; i += 2)
		if (!strcmp(argv[i], key))
			return argv[i + 1];
	return NULL;
}

/* job set SWITCH id ID size N ... [table FILE]: the table goes first. */
static int km_job_set(struct km *km, const char *sw, int argc, char **argv)
{
	const char *id = km_find(argc, argv, "id"), *file = NULL;
	struct nl_msg *msg;
	unsigned long v;
	int ret;

	file = km_find(argc, argv, "table");
	if (file) {
		if (!id) {
			fprintf(stderr, "optincctl: kmod: job set: table needs an id\n");
			return -EINVAL;
		}
		ret = km_num("id", id, 0xffff, &v) ?:
		      km_table_upload(km, sw, (uint16_t)v, file);
		if (ret)
			return ret;
	}
	km->what = "job set";
	msg = km_msg(km, OPTINC_CMD_JOB_SET, 0, 4096);
	if (!msg)
		return km_talk(km, NULL, NULL, NULL);
	ret = nla_put_string(msg, OPTINC_A_SWITCH_NAME, sw) ? -EMSGSIZE :
	      km_put_pairs(msg, km_job_keys, argc, argv, &file);
	if (!ret && file && !km_find(argc, argv, "mode") &&
	    nla_put_u8(msg, OPTINC_A_JOB_MODE, OPTINC_NL_MODE_ONN))
		ret = -EMSGSIZE;
	if (ret) {
		nlmsg_free(msg);
		return ret == -EMSGSIZE ? km_talk(km, NULL, NULL, NULL) : ret;
	}
	return km_talk(km, msg, NULL, NULL);
}

/* job { set | del | show } SWITCH [ KEY VALUE ]... */
static int km_job(struct km *km, int argc, char **argv)
{
	const char *id;
	unsigned long v;

	if (argc < 2)
		return optincctl_unknown(argc ? argv[0] : "job", "kmod");
	if (optincctl_matches(argv[0], "set"))
		return km_job_set(km, argv[1], argc - 2, argv + 2);
	if (optincctl_matches(argv[0], "delete")) {
		km->what = "job del";
		return km_request(km, OPTINC_CMD_JOB_DEL, argv[1], km_job_keys,
				  argc - 2, argv + 2, NULL);
	}
	if (!optincctl_matches(argv[0], "show"))
		return optincctl_unknown(argv[0], "kmod");
	km->what = "job show";
	id = km_find(argc - 2, argv + 2, "id");
	if (!id || argc != 4) {
		fprintf(stderr, "optincctl: kmod: job show SWITCH id ID\n");
		return -EINVAL;
	}
	if (km_num("id", id, 0xffff, &v))
		return -EINVAL;
	return km_list(km, OPTINC_CMD_JOB_GET, argv[1], (long)v);
}

/* table load SWITCH id ID FILE */
static int km_table(struct km *km, int argc, char **argv)
{
	unsigned long v;

	if (argc != 5 || !optincctl_matches(argv[0], "load") ||
	    strcmp(argv[2], "id")) {
		fprintf(stderr, "optincctl: kmod: table load SWITCH id ID FILE\n");
		return -EINVAL;
	}
	if (km_num("id", argv[3], 0xffff, &v))
		return -EINVAL;
	return km_table_upload(km, argv[1], (uint16_t)v, argv[4]);
}

static int km_show(struct km *km, int argc, char **argv)
{
	km->what = "show";
	return km_list(km, OPTINC_CMD_SWITCH_GET, argc ? argv[0] : NULL, -1);
}

static int km_ports(struct km *km, int argc, char **argv)
{
	km->what = "ports";
	return km_list(km, OPTINC_CMD_STATS_GET, argc ? argv[0] : NULL, -1);
}

static int km_jobs(struct km *km, int argc, char **argv)
{
	km->what = "jobs";
	return km_list(km, OPTINC_CMD_JOB_GET, argc ? argv[0] : NULL, -1);
}

void optincctl_kmod_usage(FILE *f)
{
	fprintf(f,
		"Usage: optincctl [ OPTIONS ] kmod { show | ports | jobs } [ SWITCH ]\n"
		"       optincctl kmod switch add NAME addr IPV4 [ mac MAC ] [ port UDP ]\n"
		"                 [ rate-limit PPS ] [ burst B ]\n"
		"       optincctl kmod switch set NAME [ rate-limit PPS ] [ burst B ]\n"
		"       optincctl kmod switch del NAME\n"
		"       optincctl kmod port { add | del } SWITCH { DEV | ifindex N }\n"
		"       optincctl kmod job set SWITCH id ID size N [ bits { 8 | 16 } ]\n"
		"                 [ mode { exact | onn } ] [ table FILE ] [ token T ]\n"
		"                 [ window W ] [ max-elems M ]\n"
		"                 [ up IPV4[:UDP] up-job J [ up-rank R ] [ up-token T ] ]\n"
		"                 [ fanin N1 ]\n"
		"       optincctl kmod job { del | show } SWITCH id ID\n"
		"       optincctl kmod table load SWITCH id ID FILE\n"
		"OPTIONS := { -j[son] | -p[retty] | -s[tatistics] }\n"
		"Talks to optinc.ko over generic netlink (family \"optinc\"); changes\n"
		"need CAP_NET_ADMIN; switches live in the caller's network namespace.\n");
}

static const struct km_cmd {
	const char *name;
	int (*fn)(struct km *km, int argc, char **argv);
} km_cmds[] = {
	{ "show", km_show },
	{ "ports", km_ports },
	{ "jobs", km_jobs },
	{ "switch", km_switch },
	{ "port", km_port },
	{ "job", km_job },
	{ "table", km_table },
};

/* Exact names first, so "port" is not taken for "ports". */
static const struct km_cmd *km_lookup(const char *word)
{
	size_t i, n = sizeof(km_cmds) / sizeof(km_cmds[0]);

	for (i = 0; i < n; i++)
		if (!strcmp(word, km_cmds[i].name))
			return &km_cmds[i];
	for (i = 0; i < n; i++)
		if (optincctl_matches(word, km_cmds[i].name))
			return &km_cmds[i];
	return NULL;
}

/**
 * optincctl_kmod() - run "optincctl kmod COMMAND ..."
 * @argc: words after "kmod"
 * @argv: them; none means "show"
 * @json: JSON output (optincctl_opts.json, which print.c reads)
 *
 * Return: 0 or a negative errno; the error has been printed.
 */
int optincctl_kmod(int argc, char **argv, int json)
{
	const char *word = argc ? argv[0] : "show";
	const struct km_cmd *c;
	struct km km = { .what = word };
	int ret;

	optincctl_opts.json = optincctl_opts.json || json;
	if (optincctl_matches(word, "help")) {
		optincctl_kmod_usage(stdout);
		return 0;
	}
	c = km_lookup(word);
	if (!c)
		return optincctl_unknown(word, "kmod");
	ret = km_open(&km);
	if (!ret)
		ret = c->fn(&km, argc ? argc - 1 : 0, argv + (argc ? 1 : 0));
	if (km.sk)
		km_close(&km);
	return ret;
}
