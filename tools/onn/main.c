// SPDX-License-Identifier: BSD-3-Clause
/* optinc-onn: train, verify and compile the switch's optical neural network. */
#include <stdio.h>
#include <string.h>

#include "onn.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} onn_cmds[] = {
	{ "train", optinc_onn_cmd_train, "hardware-aware training -> model file" },
	{ "construct", optinc_onn_cmd_construct, "closed-form model in the optics' form (no training)" },
	{ "verify", optinc_onn_cmd_verify, "exhaustive accuracy of a model as realised" },
	{ "compile", optinc_onn_cmd_compile, "model -> truth-table file" },
	{ "check-table", optinc_onn_cmd_check_table, "exhaustive check of a table file" },
	{ "area", optinc_onn_cmd_area, "area model: MZIs and attenuators per layer" },
	{ "info", optinc_onn_cmd_info, "layers of a model file" },
	{ "finish", optinc_onn_cmd_finish, "nearly exact model -> exact: dead units as windows, readout by LP" },
};

static void onn_usage(FILE *f)
{
	unsigned int i;

	fprintf(f, "usage: optinc-onn COMMAND [ARGS]   (COMMAND --help for its options)\n");
	for (i = 0; i < sizeof(onn_cmds) / sizeof(onn_cmds[0]); i++)
		fprintf(f, "  %-12s %s\n", onn_cmds[i].name, onn_cmds[i].help);
}

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help")) {
		onn_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (i = 0; i < sizeof(onn_cmds) / sizeof(onn_cmds[0]); i++)
		if (!strcmp(argv[1], onn_cmds[i].name))
			return onn_cmds[i].fn(argc - 1, argv + 1) ? 1 : 0;
	fprintf(stderr, "Command \"%s\" is unknown, try \"optinc-onn help\".\n",
		argv[1]);
	return 2;
}
