#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared by the net selftests: TAP output, the testbed tool, cleanup.

NET_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC_ROOT=$(cd "$NET_DIR/../.." && pwd)
TESTBED=$SRC_ROOT/tools/testbed/optinc-testbed
O=${O:-build}
case $O in
/*) ;;
*) O=$SRC_ROOT/$O ;;
esac
export O
KSFT_SKIP=4

T_NUM=0
T_FAIL=0
T_TBS=()

tap_plan() {
	echo "TAP version 13"
	echo "1..$1"
}

# ok_if DESCRIPTION COMMAND...: one test line from a command's status.
ok_if() {
	local desc=$1

	shift
	T_NUM=$((T_NUM + 1))
	if "$@"; then
		echo "ok $T_NUM - $desc"
	else
		echo "not ok $T_NUM - $desc"
		T_FAIL=$((T_FAIL + 1))
	fi
}

# Skip the whole file (a precondition is missing), with the reason.
skip_all() {
	echo "TAP version 13"
	echo "1..0 # SKIP $1"
	exit $KSFT_SKIP
}

require_root() {
	[ "$(id -u)" = 0 ] || skip_all "needs root for network namespaces"
}

# Testbeds this file made; removed on exit, whatever happens.
tb_up() {
	local tb=$1 out rc

	shift
	T_TBS+=("$tb")
	out=$("$TESTBED" up --tb "$tb" "$@" 2>&1)
	rc=$?
	[ -n "$out" ] && echo "$out" | sed 's/^/# /'
	return $rc
}

tb_down() {
	"$TESTBED" down --tb "$1"
}

tb_cleanup() {
	local tb

	for tb in "${T_TBS[@]}"; do
		"$TESTBED" down --tb "$tb" >/dev/null 2>&1
	done
	[ -n "${T_TMP:-}" ] && rm -rf "$T_TMP"
}

# A testbed name unique to this process, so runs can overlap.
tb_name() {
	echo "$1$(($$ % 100000))"
}

# The ranks' verdicts and hashes, from their logs $1/rank*.log: $2 ranks
# printed PASS; all $2 printed the same "rank R hash H".
all_pass() {
	[ "$(grep -lx PASS "$1"/rank*.log 2>/dev/null | wc -l)" -eq "$2" ]
}

all_same() {
	local h

	h=$(sed -n 's/^rank .* hash \([0-9a-f]*\)$/\1/p' "$1"/rank*.log | sort | uniq -c)
	echo "# hashes: $(echo "$h" | tr '\n' ' ')"
	[ "$(echo "$h" | wc -l)" -eq 1 ] && [ "$(echo "$h" | awk '{print $1}')" -eq "$2" ]
}

tap_end() {
	echo "# $((T_NUM - T_FAIL)) passed, $T_FAIL failed"
	[ "$T_FAIL" -eq 0 ]
}

trap tb_cleanup EXIT
trap 'exit 1' INT TERM
