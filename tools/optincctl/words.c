// SPDX-License-Identifier: BSD-3-Clause
/* How optincctl matches and refuses words, shared by every object. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "optincctl.h"

/* iproute2's rule: @arg is a non-empty prefix of @word. */
bool optincctl_matches(const char *arg, const char *word)
{
	size_t n = strlen(arg);

	return n && n <= strlen(word) && !strncmp(arg, word, n);
}

int optincctl_unknown(const char *word, const char *object)
{
	fprintf(stderr, "Command \"%s\" is unknown, try \"optincctl %s%shelp\".\n",
		word, object ? object : "", object ? " " : "");
	return -EINVAL;
}
