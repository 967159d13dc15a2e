#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A bounded run of the frame fuzzer (FUZZ_SECS, default 30) from the seed
# corpus, in TAP: fails on any crash, sanitizer report or leak, and when
# the run did not reach every branch of the switch's rules
# (lib/core/switch.c): the fuzzer counts them and prints the counts at exit.
set -u
. "$(dirname "$0")/../tap.sh"
O=${O:-build}
secs=${FUZZ_SECS:-30}
bin=$O/selftests/fuzz/fuzz_frame
seeds=$O/selftests/fuzz/seeds

tap_plan 3
if [ ! -x "$bin" ]; then
	tap_fail "fuzz_frame built" "clang's libFuzzer runtime missing? install clang and libclang-rt-14-dev, then make"
	tap_fail "fuzz_frame ${secs}s run" "not built"
	tap_fail "the run reached every rule" "not built"
	tap_end
fi
n=$(find "$seeds" -type f ! -name .stamp 2>/dev/null | wc -l)
if [ "$n" -lt 5 ]; then
	tap_fail "seed corpus in $seeds" "$n seeds"
	tap_fail "fuzz_frame ${secs}s run" "no corpus"
	tap_fail "the run reached every rule" "no corpus"
	tap_end
fi
tap_pass "fuzz_frame built, $n seeds"
work=$(mktemp -d /tmp/optinc-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$bin" -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$work/" \
	"$work" "$seeds" >"$work/log" 2>&1
rc=$?
grep -E 'stat::number_of_executed_units|stat::average_exec_per_sec|stat::new_units_added' "$work/log" | tap_diag
# every event of the rules, and every kind of answer, at least once
reached() {
	local rules missing=
	rules=$(grep -m1 '^fuzz_frame rules:' "$work/log")
	[ -n "$rules" ] || { echo "no rules line at exit"; return 1; }
	for ev in received dropped spoofed wrong_port rate_limited absorbed completed \
		  resent joined rebound sent tx_error up_sent up_resent \
		  up_hinted up_result up_result_again up_nacked up_window \
		  up_complete sent_result \
		  sent_join_ack sent_nack; do
		echo "$rules" | grep -qE " $ev=[1-9]" || missing="$missing $ev"
	done
	echo "${rules#fuzz_frame rules: }"
	[ -z "$missing" ] || { echo "never reached:$missing"; return 1; }
}
if [ $rc -eq 0 ] && ! grep -qE 'ERROR: |runtime error' "$work/log"; then
	tap_pass "fuzz_frame ${secs}s run without a crash"
	if out=$(reached); then
		tap_pass "the run reached every rule: $out"
	else
		tap_fail "the run reached every rule" "$out"
	fi
	tap_end
fi
grep -E -A30 'ERROR: |runtime error' "$work/log" | head -60 | tap_diag
for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-*; do
	[ -e "$f" ] && tap_diag "reproducer: $(od -An -tx1 "$f" | tr -d '\n' | head -c 600)"
done
tap_fail "fuzz_frame ${secs}s run" "exit $rc"
tap_fail "the run reached every rule" "it crashed"
tap_end
