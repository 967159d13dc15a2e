/* SPDX-License-Identifier: BSD-3-Clause */
/* optincctl: what its objects share (options, telemetry client, printing). */
#ifndef OPTINCCTL_H
#define OPTINCCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

/* The datapath the objects switch, port, job and table load go to (-d). */
enum optincctl_dp {
	OPTINCCTL_DP_DAEMON,	/* optincd, through its DPDK telemetry socket */
	OPTINCCTL_DP_KMOD,	/* optinc.ko, through generic netlink */
};

struct optincctl_opts {
	bool json;
	bool pretty;
	int stats;		/* how many times -s was given */
	const char *prefix;	/* optincd's DPDK --file-prefix */
	enum optincctl_dp dp;	/* -d daemon|kmod */
	const char *sw;		/* -d kmod:SWITCH, or NULL */
};

extern struct optincctl_opts optincctl_opts;

bool optincctl_matches(const char *arg, const char *word);
int optincctl_unknown(const char *word, const char *object);

/* tel.c: a DPDK telemetry socket client */
struct optincctl_tel {
	int fd;
	size_t max_len;
	char path[108];
};

int optincctl_tel_open(struct optincctl_tel *t, const char *prefix);
int optincctl_tel_query(struct optincctl_tel *t, const char *cmd,
			json_object **out);
void optincctl_tel_close(struct optincctl_tel *t);

/* print.c: one call prints text (fmt) or adds to the JSON output (key) */
void optincctl_print_start(bool array);
void optincctl_print_end(void);
void optincctl_print_open(const char *key, bool array);
void optincctl_print_close(void);
void optincctl_print_u64(const char *key, const char *fmt, uint64_t v);
void optincctl_print_str(const char *key, const char *fmt, const char *s);
void optincctl_print_double(const char *key, const char *fmt, double v);
void optincctl_print_text(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* batch.c: -b FILE, one command per line */
int optincctl_batch(const char *path, int (*run)(int argc, char **argv));

/* the objects */
int optincctl_daemon(int argc, char **argv);
int optincctl_table(int argc, char **argv);

/* select.c: one grammar for both datapaths (-d, -n) */
int optincctl_select(const char *spec);
int optincctl_netns(const char *name);
int optincctl_dp_object(int argc, char **argv);
void optincctl_dp_usage(FILE *f);

#endif /* OPTINCCTL_H */
