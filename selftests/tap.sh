# SPDX-License-Identifier: GPL-2.0
# TAP output for every shell suite (sourced; bash, and busybox sh in the
# kmod VM): a plan, one line per test, the end that checks the two.
#
#   tap_plan N             "TAP version 13" and "1..N"
#   tap_plan               the plan "1..<tests run>" comes from tap_end: only
#                          where the count is known late (the runner cannot
#                          see such a suite shrink)
#   ok_if DESC CMD...      one test: ok when CMD succeeds
#   ok_run DESC CMD...     the same; CMD's output is kept, and shown as
#                          diagnostics when it fails
#   tap_result STATUS DESC one test from a status already taken: ok when 0
#   tap_pass DESC          "ok N - DESC"
#   tap_fail DESC [LINE...] "not ok N - DESC", then each LINE as a diagnostic
#   tap_skip DESC REASON   "ok N - DESC # SKIP REASON": one test not run
#   tap_diag [TEXT...]     "# TEXT" for each line of TEXT (none: of stdin)
#   skip_all REASON        "1..0 # SKIP REASON" and exit 4 (kselftest's
#                          KSFT_SKIP): the whole suite cannot run here; after
#                          the plan, the tests left are skipped one by one
#   tap_bail REASON        "Bail out! REASON" and exit 1
#   tap_end                "# P passed, F failed, S skipped"; exits 0 only
#                          when as many tests ran as planned and none failed
#
# A description is one line (newlines become spaces) and carries no '#'
# unless it means one: "ok 3 - x # SKIP y" is a skipped test.
# T_NUM, T_FAIL, T_SKIP count tests, failures and skips: read them only.
# POSIX sh and `local` (bash, dash and busybox sh all have it).
# shellcheck disable=SC3043

KSFT_SKIP=4
T_NUM=0
T_FAIL=0
T_SKIP=0
T_PLAN=
T_LATE=
T_HEAD=
T_NL='
'

tap_head() {
	[ -n "$T_HEAD" ] && return
	T_HEAD=1
	echo "TAP version 13"
}

tap_plan() {
	tap_head
	if [ $# -eq 0 ]; then
		T_LATE=1
		return
	fi
	T_PLAN=$1
	echo "1..$1"
}

# tap_line WORDS DESC [DIRECTIVE]: the next test's line
tap_line() {
	local tap_d="$2"

	case $tap_d in
	*"$T_NL"*) tap_d=$(printf '%s' "$tap_d" | tr '\n' ' ') ;;
	esac
	T_NUM=$((T_NUM + 1))
	printf '%s\n' "$1 $T_NUM - $tap_d${3:+ # $3}"
}

tap_pass() {
	tap_line ok "$1"
}

tap_fail() {
	tap_line "not ok" "$1"
	T_FAIL=$((T_FAIL + 1))
	shift
	[ $# -gt 0 ] && tap_diag "$@"
	return 0
}

tap_skip() {
	tap_line ok "$1" "SKIP $2"
	T_SKIP=$((T_SKIP + 1))
}

tap_result() {
	if [ "$1" -eq 0 ]; then
		tap_pass "$2"
	else
		tap_fail "$2"
	fi
}

tap_diag() {
	if [ $# -eq 0 ]; then
		sed 's/^/# /'
	else
		printf '%s\n' "$@" | sed 's/^/# /'
	fi
}

ok_if() {
	local tap_d="$1"

	shift
	if "$@"; then
		tap_pass "$tap_d"
	else
		tap_fail "$tap_d"
	fi
}

ok_run() {
	local tap_d="$1" tap_out="${TMPDIR:-/tmp}/tap.$$.$T_NUM.out"

	shift
	if "$@" >"$tap_out" 2>&1; then
		tap_pass "$tap_d"
	else
		tap_fail "$tap_d"
		tap_diag <"$tap_out"
	fi
	rm -f "$tap_out"
}

skip_all() {
	if [ -z "$T_PLAN" ] && [ "$T_NUM" -eq 0 ]; then
		tap_head
		printf '%s\n' "1..0 # SKIP $1"
		exit $KSFT_SKIP
	fi
	while [ -n "$T_PLAN" ] && [ "$T_NUM" -lt "$T_PLAN" ]; do
		tap_skip "not run" "$1"
	done
	tap_end
}

tap_bail() {
	printf '%s\n' "Bail out! $1"
	exit 1
}

tap_end() {
	if [ -n "$T_LATE" ]; then
		T_PLAN=$T_NUM
		echo "1..$T_NUM"
	fi
	echo "# $((T_NUM - T_FAIL - T_SKIP)) passed, $T_FAIL failed, $T_SKIP skipped"
	if [ -z "$T_PLAN" ]; then
		echo "# no plan: tap_plan was not called"
		exit 1
	fi
	if [ "$T_NUM" -ne "$T_PLAN" ]; then
		echo "# planned $T_PLAN tests, ran $T_NUM"
		exit 1
	fi
	[ "$T_FAIL" -eq 0 ] || exit 1
	exit 0
}
