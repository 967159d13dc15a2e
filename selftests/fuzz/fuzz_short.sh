#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A bounded run of the frame fuzzer (FUZZ_SECS, default 30) from the seed
# corpus, in TAP: fails on any crash, sanitizer report or leak.
set -u
O=${O:-build}
secs=${FUZZ_SECS:-30}
bin=$O/selftests/fuzz/fuzz_frame
seeds=$O/selftests/fuzz/seeds

echo "TAP version 13"
echo "1..2"
if [ ! -x "$bin" ]; then
	echo "not ok 1 fuzz_frame built # clang's libFuzzer runtime missing? install clang and libclang-rt-14-dev, then make"
	echo "not ok 2 fuzz_frame ${secs}s run # not built"
	exit 1
fi
n=$(find "$seeds" -type f ! -name .stamp 2>/dev/null | wc -l)
if [ "$n" -lt 5 ]; then
	echo "not ok 1 seed corpus in $seeds # $n seeds"
	echo "not ok 2 fuzz_frame ${secs}s run # no corpus"
	exit 1
fi
echo "ok 1 fuzz_frame built, $n seeds"
work=$(mktemp -d /tmp/optinc-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$bin" -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$work/" \
	"$work" "$seeds" >"$work/log" 2>&1
rc=$?
grep -E 'stat::number_of_executed_units|stat::average_exec_per_sec|stat::new_units_added' "$work/log" | sed 's/^/# /'
if [ $rc -eq 0 ] && ! grep -qE 'ERROR: |runtime error' "$work/log"; then
	echo "ok 2 fuzz_frame ${secs}s run without a crash"
	exit 0
fi
grep -E -A30 'ERROR: |runtime error' "$work/log" | head -60 | sed 's/^/# /'
for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-*; do
	[ -e "$f" ] && echo "# reproducer: $(od -An -tx1 "$f" | tr -d '\n' | head -c 600)"
done
echo "not ok 2 fuzz_frame ${secs}s run # exit $rc"
exit 1
