// SPDX-License-Identifier: BSD-3-Clause
/* Command-line specs: layer widths "4-64-128-4", approximated layers "2-7". */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "onn.h"

/* Widths W0-W1-..-WL into size[0..L]; *nlayers = L. */
int optinc_onn_parse_arch(const char *s, unsigned int *size,
			  unsigned int *nlayers)
{
	unsigned int n = 0;
	unsigned long v;
	char *end;

	for (;;) {
		v = strtoul(s, &end, 10);
		if (end == s || !v || v > OPTINC_ONN_MAX_WIDTH ||
		    n > OPTINC_ONN_MAX_LAYERS)
			return -EINVAL;
		size[n] = v;
		if (!*end)
			break;
		if (*end != '-')
			return -EINVAL;
		n++;
		s = end + 1;
	}
	*nlayers = n;
	return n ? 0 : -EINVAL;
}

/* "all", "none", or 1-based layers and ranges: "2-7", "1,3,5-6". */
int optinc_onn_parse_approx(const char *s, unsigned int nlayers, int *approx)
{
	unsigned long a, b, l;
	char *end;

	memset(approx, 0, sizeof(*approx) * nlayers);
	if (!strcmp(s, "none"))
		return 0;
	if (!strcmp(s, "all")) {
		for (l = 0; l < nlayers; l++)
			approx[l] = 1;
		return 0;
	}
	while (*s) {
		a = b = strtoul(s, &end, 10);
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		if (!a || b < a || b > nlayers || (*end && *end != ','))
			return -EINVAL;
		for (l = a; l <= b; l++)
			approx[l - 1] = 1;
		s = *end ? end + 1 : end;
	}
	return 0;
}

/* The same list as a mask, bit l for layer l + 1 (--noise-layers). */
int optinc_onn_parse_layers(const char *s, unsigned int nlayers,
			    uint32_t *mask)
{
	int on[OPTINC_ONN_MAX_LAYERS];
	unsigned int l;

	if (nlayers > 32 || optinc_onn_parse_approx(s, nlayers, on))
		return -EINVAL;
	for (*mask = 0, l = 0; l < nlayers; l++)
		*mask |= (uint32_t)(on[l] != 0) << l;
	return 0;
}
