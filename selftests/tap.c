// SPDX-License-Identifier: GPL-2.0
/* TAP output of the C tests not on kselftest_harness.h (tap.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "tap.h"

static int tap_planned = -1, tap_count, tap_failed, tap_skipped;

/* One test's line: "ok N - " or "not ok N - ", the description, @directive. */
static void tap_line(int ok, const char *directive, const char *fmt,
		     va_list ap)
{
	tap_count++;
	printf("%sok %d - ", ok ? "" : "not ", tap_count);
	vprintf(fmt, ap);
	if (directive)
		printf(" # %s", directive);
	printf("\n");
	fflush(stdout);
}

void tap_plan(int n)
{
	tap_planned = n;
	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
}

int tap_ok(int ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_line(ok, NULL, fmt, ap);
	va_end(ap);
	if (!ok)
		tap_failed++;
	return ok;
}

void tap_skip(const char *reason, const char *fmt, ...)
{
	char directive[256];
	va_list ap;

	snprintf(directive, sizeof(directive), "SKIP %s", reason);
	va_start(ap, fmt);
	tap_line(1, directive, fmt, ap);
	va_end(ap);
	tap_skipped++;
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

void tap_skip_all(const char *fmt, ...)
{
	char reason[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (tap_planned < 0 && !tap_count) {
		printf("TAP version 13\n1..0 # SKIP %s\n", reason);
		fflush(stdout);
		exit(TAP_SKIP_EXIT);
	}
	while (tap_count < tap_planned)
		tap_skip(reason, "not run");
	exit(tap_done());
}

void tap_bail(const char *fmt, ...)
{
	va_list ap;

	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

int tap_done(void)
{
	tap_diag("%d passed, %d failed, %d skipped",
		 tap_count - tap_failed - tap_skipped, tap_failed, tap_skipped);
	if (tap_planned < 0) {
		tap_diag("no plan: tap_plan() was not called");
		return 1;
	}
	if (tap_count != tap_planned) {
		tap_diag("planned %d tests, ran %d", tap_planned, tap_count);
		return 1;
	}
	return tap_failed != 0;
}
