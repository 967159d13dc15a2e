// SPDX-License-Identifier: GPL-2.0
/*
 * optincctl-kmod: optincctl with only its kmod object, linked statically
 * for the test VM's initramfs. "optincctl-kmod [-j] [-s] COMMAND ..." runs
 * what "optincctl [-j] [-s] kmod COMMAND ..." runs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "optincctl.h"
#include "kmod.h"

struct optincctl_opts optincctl_opts = { .prefix = "rte" };

int main(int argc, char **argv)
{
	argc--;
	argv++;
	for (; argc && argv[0][0] == '-'; argc--, argv++) {
		if (!strcmp(argv[0], "-j"))
			optincctl_opts.json = true;
		else if (!strcmp(argv[0], "-s"))
			optincctl_opts.stats++;
		else
			return optincctl_unknown(argv[0], "kmod") ? 1 : 0;
	}
	return optincctl_kmod(argc, argv, optincctl_opts.json) ? 1 : 0;
}
