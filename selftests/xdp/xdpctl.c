// SPDX-License-Identifier: GPL-2.0
/*
 * xdpctl: "optincctl xdp" alone, for the tests when optincctl is not built
 * with its xdp object. Usage: xdpctl [-j] COMMAND [ARGS...]
 */
#include <stdio.h>
#include <string.h>

#include "../../tools/optincctl/xdp.h"

int main(int argc, char **argv)
{
	int json = argc > 1 && !strcmp(argv[1], "-j");

	return optincctl_xdp(argc - 1 - json, argv + 1 + json, json) ? 1 : 0;
}
