#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The collectives a training framework needs, through optincd on the
# testbed (exact mode, N = 2, 4, 8; onn mode with the shipped tables,
# N = 4 and 8) and through the ring: float16, bfloat16, float32, float64
# SUM/AVG/MAX/MIN and int32 SUM/MAX/MIN within the documented bounds of a
# double-precision reference; NaN, +Inf, -Inf on one rank or on all, in
# the first, a middle and the last block: that block NaN on every rank,
# every rank OK in under 2x the clean call, the next call right; a rank
# calling with another count: every rank fails with OPTINC_ERR_PROTO
# within 2 s. Every rank's results bit-identical. TAP.
. "$(dirname "$0")/lib.sh"

require_root
CHECK=$O/selftests/net/collective_check
SIZES=${OPTINC_NET_SIZES:-2 4 8}
T_TMP=$(mktemp -d)
# the ranks' own verdicts per case (18 non-finite cases, 19 types, 1 mix)
CASE_LINES=38

# Every rank printed PASS and the same number of ok cases, none failed.
ranks_ok() {
	local dir=$1 n=$2 r bad=0

	for ((r = 0; r < n; r++)); do
		grep -h "^case FAIL" "$dir/rank$r.log" | head -3 | sed "s/^/# rank $r: /"
		grep -qx PASS "$dir/rank$r.log" &&
			[ "$(grep -c '^case ok' "$dir/rank$r.log")" -eq $CASE_LINES ] ||
			bad=1
	done
	return $bad
}


# One run of collective_check on every rank of testbed $1: two test lines.
run_check() {
	local tb=$1 n=$2 what=$3 dir=$T_TMP/$1-$4 t0

	shift 4
	mkdir -p "$dir"
	t0=$SECONDS
	"$TESTBED" run --tb "$tb" -t 240 -o "$dir" "$CHECK" "$@" >/dev/null 2>&1
	echo "# $what: $((SECONDS - t0)) s"
	grep -h -E "^case ok: (float16 AVG|float64 SUM|NaN at element 2049 on rank 1|count)" \
		"$dir/rank0.log" | sed 's/^/# rank 0: /'
	ok_if "$tb: $what: every case right on every rank" ranks_ok "$dir" "$n"
	ok_if "$tb: $what: all ranks bit-identical" all_same "$dir" "$n"
}

[ -x "$CHECK" ] || { tap_plan 1; ok_if "$CHECK is built" false; exit 1; }
nsizes=$(echo "$SIZES" | wc -w)
tap_plan $((nsizes * 5 + 2 * 3))
for n in $SIZES; do
	tb=$(tb_name "co$n")
	q=-q
	[ "$n" = 4 ] && q=
	ok_if "N=$n: testbed with optincd up" tb_up "$tb" -n "$n"
	run_check "$tb" "$n" "switch, exact mode" exact $q
	run_check "$tb" "$n" "ring through the switch" ring -r $q
	tb_down "$tb"
done
for n in 4 8; do
	tb=$(tb_name "cn$n")
	ok_if "N=$n: testbed with optincd, job in onn mode (models/onn-n$n.tbl)" \
		tb_up "$tb" -n "$n" --job "id=1,size=$n,table=$SRC_ROOT/models/onn-n$n.tbl"
	run_check "$tb" "$n" "switch, onn mode" onn -q
	tb_down "$tb"
done
tap_end
