#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Soak: 3 ranks run checked all-reduces through optincd for SOAK_SECS
# (default 60; `make soak` runs 3600) with 2 % loss each way and 1 %
# duplicates; every result is checked, and the memory (VmRSS) of optincd
# and of every rank must not grow between the start (optincd: after a
# warm-up; a rank: call 10, or after its first fall-back to the ring if
# it had one) and the end by more than SOAK_RSS_KB (default 512).
# shellcheck source=../net/lib.sh
. "$(dirname "$0")/../net/lib.sh"

require_root
N=3
SECS=${SOAK_SECS:-60}
TOL=${SOAK_RSS_KB:-512}
WARM=5
RANK=$O/selftests/reliability/rel_rank
TB=$(tb_name rsk)

rss_kb() {
	sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$1/status" 2>/dev/null
}

# A rank's VmRSS to start from, and when: the first "-r" sample (every
# 100 calls) after its first fall-back to the ring, whose buffer comes
# once then (~190 kB); call 10 when it never fell back.
rank_start_kb() {
	awk '/goes through the ring/ && !fell { fell = 1 }
	     /^# rss call/ && fell && s == "" { s = $6; c = $4 }
	     /^# rss_start_kb/ { s10 = $3 }
	     END { if (s != "") print s, "after the fall-back (call " c ")"
		   else print s10, "at call 10" }' "$1"
}

[ -x "$RANK" ] || { tap_plan 1; ok_if "$RANK is built" false; exit 1; }
tap_plan 5
T_TMP=$(mktemp -d /tmp/optinc-rel.XXXXXX)
if ! tb_up "$TB" -n $N --job "id=1,size=$N,bits=8" --loss 2 --dup 1; then
	ok_if "testbed with 2 % loss, 1 % duplicates up" false
	tap_end
	exit 1
fi
ok_if "testbed with 2 % loss, 1 % duplicates up" true
dpid=$(cat "/run/optinc-testbed/$TB/daemon.pid")
"$TESTBED" run --tb "$TB" -t $((SECS + 120)) -o "$T_TMP/soak" "$RANK" \
	-t "$SECS" -c 20000 -r 100 >/dev/null 2>&1 &
run=$!
sleep $WARM
d0=$(rss_kb "$dpid")
wait $run
rc=$?
d1=$(rss_kb "$dpid")
grep -h "FAIL\|ring\|^PASS" "$T_TMP"/soak/rank*.log | sed 's/^/# /'
ok_if "every result of ${SECS}s of all-reduces checked on every rank" test $rc = 0
h=$(sed -n 's/^PASS .* hash \([0-9a-f]*\)$/\1/p' "$T_TMP"/soak/rank*.log | sort -u)
ok_if "all ranks' results bit-identical" test "$(echo "$h" | wc -w)" = 1
echo "# optincd VmRSS: ${d0:-?} kB after ${WARM}s, ${d1:-?} kB at the end"
ok_if "optincd's memory did not grow by more than $TOL kB" \
	test -n "$d0" -a -n "$d1" -a $((d1 - d0)) -le "$TOL"
grow=0
for ((i = 0; i < N; i++)); do
	read -r r0 from < <(rank_start_kb "$T_TMP/soak/rank$i.log")
	r1=$(sed -n 's/^# rss_end_kb //p' "$T_TMP/soak/rank$i.log")
	echo "# rank $i VmRSS: ${r0:-?} kB $from, ${r1:-?} kB at the end"
	{ [ -n "$r0" ] && [ -n "$r1" ] && [ $((r1 - r0)) -le "$TOL" ]; } || grow=1
done
ok_if "no rank's memory grew by more than $TOL kB" test $grow = 0
tap_end
