// SPDX-License-Identifier: GPL-2.0
/*
 * xdpctl: "optincctl xdp" alone, for the tests when optincctl is built
 * without its xdp object. Usage: xdpctl [-j] xdp COMMAND [ARGS...]
 */
#include <stdio.h>
#include <string.h>

#include "../../tools/optincctl/xdp.h"

int main(int argc, char **argv)
{
	int json = argc > 1 && !strcmp(argv[1], "-j");

	argc -= 1 + json;
	argv += 1 + json;
	if (argc < 1 || strcmp(argv[0], "xdp")) {
		fprintf(stderr, "usage: xdpctl [-j] xdp COMMAND [ARGS...]\n");
		return 2;
	}
	return optincctl_xdp(argc - 1, argv + 1, json) ? 1 : 0;
}
