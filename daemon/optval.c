// SPDX-License-Identifier: BSD-3-Clause
/*
 * What optincd's options take, for options.c and job_spec.c: numbers in a
 * range, and errors that name the option, its value and, while a config
 * file is read, the file and line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "optincd.h"

/* "FILE:LINE: " while a config file is read, so errors say where. */
char optinc_opts_where[512];
/* The last error, for a caller that answers with it (optinc_opts_job_spec()). */
char optinc_opts_last[1024];

int optinc_opts_err(const char *name, const char *val, const char *why)
{
	snprintf(optinc_opts_last, sizeof(optinc_opts_last), "%.300s--%.40s '%.300s': %.300s",
		 optinc_opts_where, name, val, why);
	OPTINC_LOG(ERR, "%s", optinc_opts_last);
	return -EINVAL;
}

/* A decimal (or, with base 0, also 0x hex) number in [min, max]. */
int optinc_opts_num(const char *s, int base, unsigned long long min,
		    unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}
