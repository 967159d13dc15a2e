// SPDX-License-Identifier: BSD-3-Clause
/*
 * optincctl: look at the OptINC datapaths. "optincctl [OPTIONS] OBJECT
 * COMMAND", dispatched from a table of objects; each object is one file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "optincctl.h"
#include "kmod.h"
#include "xdp.h"

#define OPTINCCTL_VERSION	"0.1"

struct optincctl_opts optincctl_opts = { .prefix = "rte" };

static const char *batch_file;	/* -b FILE: the commands, one per line */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: optincctl [ OPTIONS ] OBJECT { COMMAND | help }\n"
		"       optincctl help\n"
		"       optincctl [ OPTIONS ] -b[atch] FILE   (commands, one per line; - : stdin)\n"
		"       OPTIONS := { -d DATAPATH | -n NETNS | -j[son] | -p[retty] |\n"
		"                    -s[tatistics] | --prefix PREFIX | -V[ersion] | -h[elp] }\n"
		"       OBJECT := { switch | port | job | table | xdp | daemon | kmod }\n\n");
	optincctl_dp_usage(f);
	fprintf(f,
		"       optincctl xdp { attach | detach | show } ...\n"
		"-s: more counters; --prefix: optincd's DPDK --file-prefix (default rte).\n"
		"\n"
		"The datapaths' own spellings, kept as aliases:\n"
		"       optincctl daemon { show | ports | jobs | job ID }\n"
		"       optincctl daemon table ID FILE\n");
	optincctl_kmod_usage(f);
}

static int do_help(int argc, char **argv)
{
	usage(stdout);
	return 0;
}

static int do_kmod(int argc, char **argv)
{
	return optincctl_kmod(argc, argv, optincctl_opts.json);
}

static int do_xdp(int argc, char **argv)
{
	return optincctl_xdp(argc, argv, optincctl_opts.json);
}

/* The datapaths and files optincctl looks at; more objects go here. */
static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} objects[] = {
	{ "daemon", optincctl_daemon },
	{ "table", optincctl_table },
	{ "kmod", do_kmod },
	{ "xdp", do_xdp },
	{ "help", do_help },
};

static int do_object(int argc, char **argv)
{
	unsigned int i;
	int ret;

	ret = optincctl_dp_object(argc, argv);
	if (ret <= 0)
		return ret;

	for (i = 0; i < sizeof(objects) / sizeof(objects[0]); i++)
		if (optincctl_matches(argv[0], objects[i].name))
			return objects[i].run(argc - 1, argv + 1);
	return optincctl_unknown(argv[0], NULL);
}

/*
 * A global option at argv[0]. *used: the words it took; 0 when it printed
 * what was asked for (help, version) and nothing else is to be done.
 */
static int parse_opt(int argc, char **argv, int *used)
{
	const char *o = argv[0];

	*used = 1;
	if (o[1] == '-')
		o++;
	if (optincctl_matches(o, "-json")) {
		optincctl_opts.json = true;
	} else if (optincctl_matches(o, "-pretty")) {
		optincctl_opts.pretty = true;
	} else if (optincctl_matches(o, "-statistics") || !strcmp(o, "-s")) {
		optincctl_opts.stats++;
	} else if (!strcmp(argv[0], "-d") || !strcmp(o, "-datapath")) {
		if (argc < 2) {
			fprintf(stderr, "optincctl: %s needs daemon[:PREFIX] or "
				"kmod[:SWITCH]\n", argv[0]);
			return -EINVAL;
		}
		*used = 2;
		return optincctl_select(argv[1]);
	} else if (!strcmp(argv[0], "-n") || !strcmp(o, "-netns")) {
		if (argc < 2) {
			fprintf(stderr, "optincctl: %s needs a network namespace\n",
				argv[0]);
			return -EINVAL;
		}
		*used = 2;
		return optincctl_netns(argv[1]);
	} else if (!strcmp(o, "-prefix") || !strcmp(o, "-file-prefix") ||
		   !strcmp(argv[0], "-P")) {
		if (argc < 2) {
			fprintf(stderr, "optincctl: %s needs a value\n", argv[0]);
			return -EINVAL;
		}
		optincctl_opts.prefix = argv[1];
		*used = 2;
	} else if (!strcmp(argv[0], "-b") || optincctl_matches(o, "-batch")) {
		if (argc < 2) {
			fprintf(stderr, "optincctl: %s needs a file (- for standard input)\n",
				argv[0]);
			return -EINVAL;
		}
		batch_file = argv[1];
		*used = 2;
	} else if (optincctl_matches(o, "-Version")) {
		printf("optincctl %s\n", OPTINCCTL_VERSION);
		*used = 0;
	} else if (optincctl_matches(o, "-help")) {
		usage(stdout);
		*used = 0;
	} else {
		fprintf(stderr, "Option \"%s\" is unknown, try \"optincctl help\".\n",
			argv[0]);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int used;

	argc--;
	argv++;
	while (argc > 0 && argv[0][0] == '-') {
		if (parse_opt(argc, argv, &used))
			return 1;
		if (!used)
			return 0;
		argc -= used;
		argv += used;
	}
	if (optincctl_opts.pretty)
		optincctl_opts.json = true;
	if (batch_file && argc > 0) {
		fprintf(stderr, "optincctl: -b %s takes its commands from the file, not '%s'\n",
			batch_file, argv[0]);
		return 1;
	}
	if (batch_file)
		return optincctl_batch(batch_file, do_object) ? 1 : 0;
	if (argc < 1) {
		usage(stderr);
		return 1;
	}
	return do_object(argc, argv) ? 1 : 0;
}
