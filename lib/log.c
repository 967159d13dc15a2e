// SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
/*
 * The library's diagnostics: one function, one level for the process.
 * OPTINC_LOG (lib/env.c) sets the level at each optinc_comm_create(); until
 * then it is warn, which prints what the library printed before it had
 * levels. Messages go to stderr, "optinc: " first, one write(2) per line so
 * that the lines of several threads or ranks do not mix.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "internal.h"

static int log_level = OPTINC_LOG_WARN;

static const char *const log_names[] = {
	[OPTINC_LOG_NONE] = "none",	[OPTINC_LOG_ERROR] = "error",
	[OPTINC_LOG_WARN] = "warn",	[OPTINC_LOG_INFO] = "info",
	[OPTINC_LOG_DEBUG] = "debug",
};

/* Return: the level called @name, or -1. */
int optinc_log_parse(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(log_names) / sizeof(log_names[0]); i++)
		if (!strcasecmp(name, log_names[i]))
			return i;
	return -1;
}

void optinc_log_set(int level)
{
	__atomic_store_n(&log_level, level, __ATOMIC_RELAXED);
}

int optinc_log_on(int level)
{
	return level <= __atomic_load_n(&log_level, __ATOMIC_RELAXED);
}

void optinc_vlog(int level, const char *fmt, va_list ap)
{
	char buf[512];
	int n;

	if (!optinc_log_on(level))
		return;
	n = snprintf(buf, sizeof(buf), "optinc: ");
	n += vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, n) < 0)
		return;		/* nowhere else to say it */
}

void optinc_log(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	optinc_vlog(level, fmt, ap);
	va_end(ap);
}
