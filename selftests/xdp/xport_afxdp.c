// SPDX-License-Identifier: GPL-2.0
/*
 * xport_afxdp: drive liboptinc's afxdp transport alone, without a switch.
 *   xport_afxdp SWITCH[:PORT] JOB MTU send COUNT BYTES
 *       sends COUNT DATA messages of BYTES elements (int8 MAX)
 *   xport_afxdp SWITCH[:PORT] JOB MTU recv COUNT SECONDS
 *       prints "ready" once open (the port is in optincctl xdp show),
 *       then receives until COUNT messages
 *       came or SECONDS passed; prints "received N bytes B bad K"
 * The transport is the plugin liboptinc loads (liboptinc-afxdp.so, through
 * lib/transport.c's loader): OPTINC_AFXDP_PLUGIN, else the build tree's,
 * $(O)/lib/optinc/ seen from this program in $(O)/selftests/xdp/.
 * Exit status 0 when the transport opened and every step worked.
 */
#include <arpa/inet.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/transport.h"

static const struct optinc_xport_ops *xt_ops;
static char xt_plugin[PATH_MAX];

/* The plugin: OPTINC_AFXDP_PLUGIN, else the one of this build tree. */
static const char *xt_plugin_path(void)
{
	const char *s = getenv("OPTINC_AFXDP_PLUGIN");
	char exe[PATH_MAX - 64];
	ssize_t n;

	if (s)
		return s;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(xt_plugin, sizeof(xt_plugin),
		 "%s/../../lib/optinc/liboptinc-afxdp.so", exe);
	return xt_plugin;
}

static int xt_cfg(struct optinc_comm *c, char **argv)
{
	char host[32], *colon;

	snprintf(host, sizeof(host), "%s", argv[1]);
	colon = strchr(host, ':');
	if (colon)
		*colon = '\0';
	c->cfg.sw.sin_family = AF_INET;
	c->cfg.sw.sin_port = htons(colon ? atoi(colon + 1) : OPTINC_UDP_PORT);
	if (inet_pton(AF_INET, host, &c->cfg.sw.sin_addr) != 1)
		return -1;
	snprintf(c->cfg.sw_str, sizeof(c->cfg.sw_str), "%s", argv[1]);
	c->cfg.bind.sin_family = AF_INET;
	c->cfg.job = atoi(argv[2]);
	c->cfg.mtu = atoi(argv[3]);
	c->cfg.timeout_ms = 3000;
	return 0;
}

static int xt_send(struct optinc_comm *c, int count, int elems)
{
	struct optinc_msg m = { .type = OPTINC_T_DATA, .job = c->cfg.job,
				.op = OPTINC_OP_MAX, .bits = 8, .count = elems };
	struct optinc_pkt p;
	__u8 *buf = malloc(OPTINC_HDR_LEN + elems);
	int i, err = 0;

	for (i = 0; buf && i < count && !err; i++) {
		m.seq = i;
		optinc_hdr_fill((struct optinc_hdr *)buf, &m);
		memset(buf + OPTINC_HDR_LEN, i, elems);
		p.buf = buf;
		p.len = OPTINC_HDR_LEN + elems;
		err = xt_ops->send(c, c->xp, &p, 1);
	}
	free(buf);
	return buf ? err : -1;
}

static int xt_recv(struct optinc_comm *c, int count, int secs)
{
	struct optinc_pkt p[OPTINC_RX_BATCH];
	__u64 end = optinc_now_ms() + secs * 1000ull, bytes = 0;
	int got = 0, bad = 0, r = 0, i;
	struct optinc_msg m;
	__u32 room = c->cfg.mtu;

	for (i = 0; i < OPTINC_RX_BATCH; i++)
		p[i].buf = malloc(room);
	while (got < count && optinc_now_ms() < end && r >= 0) {
		for (i = 0; i < OPTINC_RX_BATCH; i++)
			p[i].len = room;
		r = xt_ops->recv(c, c->xp, p, OPTINC_RX_BATCH, 100);
		for (i = 0; i < r; i++) {
			got++;
			bytes += p[i].len;
			bad += optinc_msg_parse(p[i].buf, p[i].len, &m) !=
			       OPTINC_DROP_NONE || m.type != OPTINC_T_RESULT;
		}
	}
	printf("received %d bytes %llu bad %d\n", got, (unsigned long long)bytes,
	       bad);
	for (i = 0; i < OPTINC_RX_BATCH; i++)
		free(p[i].buf);
	return r < 0 ? r : 0;
}

int main(int argc, char **argv)
{
	static struct optinc_comm c;
	int err;

	if (argc != 7 || xt_cfg(&c, argv)) {
		fprintf(stderr, "usage: xport_afxdp SWITCH[:PORT] JOB MTU send|recv COUNT BYTES|SECONDS\n");
		return 2;
	}
	c.cfg.afxdp_plugin = xt_plugin_path();
	err = optinc_xport_get(&c, "afxdp", "xport_afxdp", &xt_ops) ?:
	      xt_ops->open(&c, &c.xp);
	if (err) {
		fprintf(stderr, "xport_afxdp: open: %s\n", c.errmsg);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	if (!strcmp(argv[4], "send"))
		err = xt_send(&c, atoi(argv[5]), atoi(argv[6]));
	else
		err = xt_recv(&c, atoi(argv[5]), atoi(argv[6]));
	if (err)
		fprintf(stderr, "xport_afxdp: %s: %s\n", argv[4], c.errmsg);
	xt_ops->close(c.xp);
	return err ? 1 : 0;
}
