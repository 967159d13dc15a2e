// SPDX-License-Identifier: BSD-3-Clause
/*
 * optincctl -b FILE: many commands from one process, one per line, as
 * "ip -batch" runs them. Each line is "OBJECT COMMAND ..." with the words
 * separated by blanks (no quoting); blank lines and lines whose first
 * word starts with '#' are skipped; the global options given before -b
 * hold for every line. The first line that fails stops the batch, named
 * by file and line number. A script that sets up or tears down hundreds
 * of jobs then pays for one start of the program, not one per command
 * (in the module's VM test under TCG, about 20 ms each).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "optincctl.h"

#define BATCH_MAX_WORDS	64
#define BATCH_MAX_LINE	4096

/* Split @line in place into @argv; -E2BIG past BATCH_MAX_WORDS - 1. */
static int batch_words(char *line, char **argv)
{
	char *save = NULL, *w;
	int argc = 0;

	for (w = strtok_r(line, " \t\r\n", &save); w;
	     w = strtok_r(NULL, " \t\r\n", &save)) {
		if (argc == BATCH_MAX_WORDS - 1)
			return -E2BIG;
		argv[argc++] = w;
	}
	argv[argc] = NULL;
	return argc;
}

/* One line: 0 when run (or skipped) and it succeeded. */
static int batch_line(const char *name, unsigned long n, char *line,
		      int (*run)(int argc, char **argv))
{
	char *argv[BATCH_MAX_WORDS];
	size_t len = strlen(line);
	int argc;

	if (len && line[len - 1] != '\n' && len == BATCH_MAX_LINE - 1) {
		fprintf(stderr, "optincctl: %s:%lu: line longer than %d bytes\n",
			name, n, BATCH_MAX_LINE - 2);
		return -E2BIG;
	}
	argc = batch_words(line, argv);
	if (argc == -E2BIG) {
		fprintf(stderr, "optincctl: %s:%lu: more than %d words\n", name,
			n, BATCH_MAX_WORDS - 1);
		return argc;
	}
	if (!argc || argv[0][0] == '#')
		return 0;
	if (argv[0][0] == '-') {
		fprintf(stderr, "optincctl: %s:%lu: '%s': options go before -b, not in its lines\n",
			name, n, argv[0]);
		return -EINVAL;
	}
	if (run(argc, argv)) {
		fprintf(stderr, "optincctl: %s:%lu: failed: %s\n", name, n,
			argv[0]);
		return -EINVAL;
	}
	return 0;
}

/**
 * optincctl_batch() - run the commands of a file, one per line
 * @path: the file, or "-" for standard input
 * @run:  runs one command (its words, OBJECT first)
 *
 * Return: 0 when every line succeeded, else negative (the failing line,
 * or the file that cannot be read, reported on stderr).
 */
int optincctl_batch(const char *path, int (*run)(int argc, char **argv))
{
	int stdin_ = !strcmp(path, "-"), ret = 0;
	const char *name = stdin_ ? "<stdin>" : path;
	char line[BATCH_MAX_LINE];
	unsigned long n = 0;
	FILE *f;

	f = stdin_ ? stdin : fopen(path, "r");
	if (!f) {
		ret = -errno;
		fprintf(stderr, "optincctl: -b %s: %s\n", path, strerror(-ret));
		return ret;
	}
	while (!ret && fgets(line, sizeof(line), f)) {
		ret = batch_line(name, ++n, line, run);
		fflush(stdout);
	}
	if (!ret && ferror(f)) {
		ret = -EIO;
		fprintf(stderr, "optincctl: %s: read error after line %lu\n",
			name, n);
	}
	if (!stdin_)
		fclose(f);
	return ret;
}
