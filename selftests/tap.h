/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP output of the C test programs that do not use the kernel's
 * kselftest_harness.h (those that do print TAP through it). The shell
 * suites' twin is selftests/tap.sh.
 *
 *   tap_plan(n);                      "TAP version 13", "1..n"
 *   tap_ok(cond, "what %d", x);       "ok N - what" or "not ok N - what";
 *                                     returns cond
 *   tap_skip("why", "what");          "ok N - what # SKIP why"
 *   tap_diag("...");                  "# ..."
 *   tap_skip_all("why");              "1..0 # SKIP why", exit 4 (KSFT_SKIP);
 *                                     after the plan, the tests left are
 *                                     skipped and the program ends
 *   tap_bail("why");                  "Bail out! why", exit 1
 *   return tap_done();                from main(): 0 only when as many
 *                                     tests ran as planned and none failed
 */
#ifndef OPTINC_SELFTEST_TAP_H
#define OPTINC_SELFTEST_TAP_H

#ifdef __cplusplus
extern "C" {
#endif

#define TAP_SKIP_EXIT	4	/* kselftest's KSFT_SKIP */

void tap_plan(int n);
int tap_ok(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tap_skip(const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tap_skip_all(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
void tap_bail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
int tap_done(void);

#ifdef __cplusplus
}
#endif

#endif /* OPTINC_SELFTEST_TAP_H */
