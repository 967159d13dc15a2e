// SPDX-License-Identifier: BSD-3-Clause
/* optincctl xdp: attach, detach and show the OptINC XDP/TC programs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <linux/if_link.h>

#include <optinc/wire.h>
#include "../../bpf/loader.h"
#include "xdp.h"

#define XO_DEPTH	8

/* One writer for text and JSON: the text format is printed when !json. */
struct xdp_out {
	int json;
	int depth;
	int n[XO_DEPTH];	/* members written at each depth */
};

static void xo_key(struct xdp_out *o, const char *key)
{
	if (o->n[o->depth]++)
		putchar(',');
	if (key)
		printf("\"%s\":", key);
}

/* Open an object or array ('{' or '['); text: print @tfmt with @key. */
static void xo_open(struct xdp_out *o, const char *key, char brace,
		    const char *tfmt)
{
	if (!o->json) {
		if (tfmt)
			printf(tfmt, key);
		return;
	}
	xo_key(o, key);
	putchar(brace);
	if (o->depth + 1 < XO_DEPTH)
		o->n[++o->depth] = 0;
}

static void xo_close(struct xdp_out *o, char brace, const char *text)
{
	if (!o->json) {
		if (text)
			fputs(text, stdout);
		return;
	}
	putchar(brace);
	if (o->depth)
		o->depth--;
}

static void xo_u64(struct xdp_out *o, const char *key, const char *tfmt,
		   unsigned long long v)
{
	if (!o->json) {
		printf(tfmt, v);
		return;
	}
	xo_key(o, key);
	printf("%llu", v);
}

/* Strings here are interface and mode names: nothing JSON must escape. */
static void xo_str(struct xdp_out *o, const char *key, const char *tfmt,
		   const char *s)
{
	if (!o->json) {
		printf(tfmt, s ? s : "-");
		return;
	}
	xo_key(o, key);
	printf(s ? "\"%s\"" : "null", s);
}

/* dscp/pcp: a number, or "keep" (null in JSON). */
static void xo_keep(struct xdp_out *o, const char *key, const char *tfmt,
		    __u8 v)
{
	if (v != OPTINC_BPF_KEEP)
		xo_u64(o, key, tfmt, v);
	else if (o->json)
		xo_str(o, key, NULL, NULL);
	else
		printf(" %s keep", key);
}

static void xdp_usage(FILE *f)
{
	fprintf(f,
		"Usage: optincctl [-j] xdp attach DEV [ mode { native | generic } ] [ port PORT ]\n"
		"                     [ dscp { DSCP | keep } ] [ pcp { PCP | keep } ] [ priority PRIO ]\n"
		"       optincctl [-j] xdp detach DEV\n"
		"       optincctl [-j] xdp show [ DEV ]\n"
		"       optincctl xdp help\n"
		"DSCP := 0..63 (default %u)  PCP := 0..7 (default keep)  PORT := 1..65535 (default %u)\n"
		"PRIO := skb priority, 0..4294967295 (default 0: leave)\n",
		OPTINC_BPF_DSCP_DEF, OPTINC_UDP_PORT);
}

static int xdp_num(const char *word, const char *s, unsigned long min,
		   unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	if (!*s || *end || errno || *s == '-' || *v < min || *v > max) {
		fprintf(stderr, "xdp: %s \"%s\": not a number in %lu..%lu\n",
			word, s, min, max);
		return -EINVAL;
	}
	return 0;
}

static int xdp_keep_num(const char *word, const char *s, unsigned long max,
			__u8 *v)
{
	unsigned long n;
	int err;

	if (!strcmp(s, "keep")) {
		*v = OPTINC_BPF_KEEP;
		return 0;
	}
	err = xdp_num(word, s, 0, max, &n);
	*v = n;
	return err;
}

/* One "WORD VALUE" pair of attach. */
static int xdp_attach_arg(const char *word, const char *val,
			  struct optinc_xdp_opts *o)
{
	unsigned long n;
	int err;

	if (!strcmp(word, "mode")) {
		o->generic = !strcmp(val, "generic");
		if (o->generic || !strcmp(val, "native"))
			return 0;
		fprintf(stderr, "xdp: mode \"%s\": native or generic\n", val);
		return -EINVAL;
	}
	if (!strcmp(word, "dscp"))
		return xdp_keep_num(word, val, 63, &o->dscp);
	if (!strcmp(word, "pcp"))
		return xdp_keep_num(word, val, 7, &o->pcp);
	if (!strcmp(word, "port")) {
		err = xdp_num(word, val, 1, 65535, &n);
		o->port = n;
		return err;
	}
	if (!strcmp(word, "priority")) {
		err = xdp_num(word, val, 0, 0xffffffffUL, &n);
		o->priority = n;
		return err;
	}
	fprintf(stderr, "xdp: attach: \"%s\" is unknown, try \"optincctl xdp help\".\n",
		word);
	return -EINVAL;
}

static int xdp_attach(int argc, char **argv)
{
	struct optinc_xdp_opts o = { .dscp = OPTINC_BPF_DSCP_DEF,
				     .pcp = OPTINC_BPF_KEEP };
	int i, err;

	if (argc < 1) {
		fprintf(stderr, "xdp: attach: which device? try \"optincctl xdp help\".\n");
		return -EINVAL;
	}
	for (i = 1; i < argc; i += 2) {
		if (i + 1 >= argc) {
			fprintf(stderr, "xdp: attach: \"%s\" needs a value\n",
				argv[i]);
			return -EINVAL;
		}
		err = xdp_attach_arg(argv[i], argv[i + 1], &o);
		if (err)
			return err;
	}
	return optinc_xdp_attach(argv[0], &o);
}

static int xdp_detach(int argc, char **argv)
{
	if (argc != 1) {
		fprintf(stderr, "xdp: detach: one device, try \"optincctl xdp help\".\n");
		return -EINVAL;
	}
	return optinc_xdp_detach(argv[0]);
}

static void xdp_show_progs(struct xdp_out *o, const struct optinc_xdp_info *in)
{
	const char *mode = in->xdp_mode == XDP_ATTACHED_SKB ? "generic" : "native";

	xo_str(o, "ifname", "%s:", in->ifname);
	xo_u64(o, "ifindex", "", in->ifindex);
	xo_open(o, "xdp", '{', NULL);
	xo_str(o, "mode", " xdp %s", in->xdp_id ? mode : NULL);
	xo_u64(o, "id", " id %llu", in->xdp_id);
	if (in->disp_id)
		xo_u64(o, "dispatcher", " (libxdp dispatcher id %llu)", in->disp_id);
	xo_close(o, '}', NULL);
	xo_open(o, "tc", '{', NULL);
	xo_u64(o, "id", " tc egress id %llu\n", in->tc_id);
	xo_close(o, '}', NULL);
	xo_open(o, "config", '{', NULL);
	xo_u64(o, "port", "    port %llu", in->cfg.port);
	xo_keep(o, "dscp", " dscp %llu", in->cfg.dscp);
	xo_keep(o, "pcp", " pcp %llu", in->cfg.pcp);
	xo_u64(o, "priority", " priority %llu\n", in->cfg.priority);
	xo_close(o, '}', NULL);
	xo_str(o, "pinned", "    pinned %s\n", in->pin_dir[0] ? in->pin_dir : NULL);
}

static void xdp_show_rest(struct xdp_out *o, const struct optinc_xdp_info *in)
{
	unsigned int i;

	xo_open(o, "jobs", '[', NULL);
	for (i = 0; i < in->njobs; i++) {
		xo_open(o, NULL, '{', NULL);
		xo_u64(o, "job", "    job %llu", in->jobs[i].id);
		xo_u64(o, "queue", " queue %llu", in->jobs[i].v.queue);
		xo_u64(o, "port", " port %llu\n", in->jobs[i].v.port);
		xo_close(o, '}', NULL);
	}
	xo_close(o, ']', NULL);
	xo_open(o, "counters", '{', NULL);
	for (i = 0; i < OPTINC_CTR_NR; i++) {
		xo_open(o, optinc_bpf_ctr_names[i], '{', "    %-18s");
		xo_u64(o, "packets", " packets %llu", in->ctr[i].packets);
		xo_u64(o, "bytes", " bytes %llu\n", in->ctr[i].bytes);
		xo_close(o, '}', NULL);
	}
	xo_close(o, '}', NULL);
}

/* Show @ifname; -ENOENT (nothing attached) is an error only when @named. */
static int xdp_show_one(struct xdp_out *o, const char *ifname, int named)
{
	struct optinc_xdp_info *in = malloc(sizeof(*in));
	int err;

	if (!in)
		return -ENOMEM;
	err = optinc_xdp_query(ifname, in);
	if (err == -ENOENT && named)
		fprintf(stderr, "xdp: %s: no OptINC programs attached\n", ifname);
	if (!err) {
		xo_open(o, NULL, '{', NULL);
		xdp_show_progs(o, in);
		xdp_show_rest(o, in);
		xo_close(o, '}', NULL);
	}
	free(in);
	return err == -ENOENT && !named ? 0 : err;
}

static int xdp_show(int argc, char **argv, int json)
{
	struct xdp_out o = { .json = json };
	struct if_nameindex *ifs, *i;
	int err = 0;

	if (argc > 1) {
		fprintf(stderr, "xdp: show: at most one device, try \"optincctl xdp help\".\n");
		return -EINVAL;
	}
	xo_open(&o, NULL, '[', NULL);
	if (argc == 1) {
		err = xdp_show_one(&o, argv[0], 1);
	} else {
		ifs = if_nameindex();
		for (i = ifs; i && i->if_index && !err; i++)
			err = xdp_show_one(&o, i->if_name, 0);
		if (ifs)
			if_freenameindex(ifs);
	}
	xo_close(&o, ']', NULL);
	if (json)
		putchar('\n');
	return err;
}

int optincctl_xdp(int argc, char **argv, int json)
{
	const char *cmd = argc > 0 ? argv[0] : "show";

	if (!strcmp(cmd, "attach"))
		return xdp_attach(argc - 1, argv + 1);
	if (!strcmp(cmd, "detach"))
		return xdp_detach(argc - 1, argv + 1);
	if (!strcmp(cmd, "show") || !strcmp(cmd, "list"))
		return xdp_show(argc > 0 ? argc - 1 : 0, argv + 1, json);
	if (!strcmp(cmd, "help")) {
		xdp_usage(stdout);
		return 0;
	}
	fprintf(stderr, "Command \"%s\" is unknown, try \"optincctl xdp help\".\n",
		cmd);
	return -EINVAL;
}
