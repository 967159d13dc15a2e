#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Forced fall-backs: optincd stopped (SIGSTOP) for 3 s, FB_CYCLES times
# (default 6), while 3 ranks run checked all-reduces (failover_ms 2000 ms)
# with 1 % loss each
# way. Each time every rank must fall back to the ring (over a second
# network) and go back to the switch, and then ride out 0.4 s in which
# one rank gets nothing from the switch (shorter than failover_ms: the
# ranks only probe it, after failover_ms / 20 = 100 ms, more than the
# ranks are apart when they start on the switch again). Every call's
# result is checked. Memory, from rel_rank -r: a rank's
# VmRSS from its first return to the switch to the end must not grow by
# more than FB_RSS_KB (default 256), nor its malloc'd bytes in use from
# its first fall-back by more than FB_HEAP_KB (default 16 KiB). The ring's
# buffer (~190 kB) comes once, at the first fall-back; after it, pages of
# memory allocated before are still touched for the first time (the 32
# receive buffers, 287 kB, that the switch's answers to the probes it
# held fill when it resumes: 50-130 kB seen over 6 and 15 cycles), which
# is why VmRSS has the looser bound and the heap the sharp one.
# FB_KEEP=DIR keeps the ranks' logs there.
# shellcheck source=../net/lib.sh
. "$(dirname "$0")/../net/lib.sh"

require_root
N=3
CYCLES=${FB_CYCLES:-6}
TOL=${FB_RSS_KB:-256}
HEAP_TOL=${FB_HEAP_KB:-16}
SECS=$((CYCLES * 7 + 6))
FO_MS=2000
RANK=$O/selftests/reliability/rel_rank
TB=$(tb_name rfb)
SD=/run/optinc-testbed/$TB

# How many of rank $1's log lines hold PATTERN $2.
log_count() {
	grep -c -- "$2" "$T_TMP/run/rank$1.log" 2>/dev/null
}

# Wait (at most $2 s) until every rank's log holds PATTERN $1 $3 times.
wait_logs() {
	local i t

	for ((t = 0; t < $2 * 10; t++)); do
		for ((i = 0; i < N; i++)); do
			[ "$(log_count $i "$1")" -ge "$3" ] || break
		done
		[ $i = $N ] && return 0
		sleep 0.1
	done
	return 1
}

# Drop what the switch sends to rank $1 for $2 s: it and then the others
# (waiting for its next frames) hear nothing and probe the switch, while
# it lacks results the others have. A probe with another nonce than the
# switch holds would start a new generation, forget those results and
# leave the ranks stuck.
blind_rank() {
	echo "table netdev rel_blind {
	chain in {
		type filter hook ingress device \"eth0\" priority 0
		ip saddr 10.77.0.254 drop
	}
}" | ip netns exec "$TB-h$1" nft -f -
	sleep "$2"
	ip netns exec "$TB-h$1" nft delete table netdev rel_blind
}

pause_switch() {
	kill -STOP "$dpid"
	sleep "$1"
	kill -CONT "$dpid"
}

# Rank $1's memory from its "-r" samples: VmRSS (kB) at the first sample
# after its first return to the switch and at the end; malloc's bytes in
# use at the first sample after its first fall-back and at the last one.
rank_mem() {
	awk '/goes through the ring/ { fell = 1 }
	     /is back; calls go through it again/ { back = 1 }
	     /^# rss call/ && back && r0 == "" { r0 = $6 }
	     /^# rss call/ && fell && h0 == "" { h0 = $12 }
	     /^# rss call/ { h1 = $12 }
	     /^# rss_end_kb/ { r1 = $3 }
	     END { print r0, r1, h0, h1 }' "$T_TMP/run/rank$1.log"
}

[ -x "$RANK" ] || { tap_plan 1; ok_if "$RANK is built" false; exit 1; }
tap_plan 7
T_TMP=$(mktemp -d /tmp/optinc-rel.XXXXXX)
if ! tb_up "$TB" -n $N --job "id=1,size=$N,bits=8" --loss 1 ||
   ! ring_net_up "$TB" $N 10.77.1; then
	ok_if "testbed with 1 % loss and ring network up" false
	tap_end
	exit 1
fi
ok_if "testbed with 1 % loss and ring network up" true
dpid=$(cat "$SD/daemon.pid")
OPTINC_TB_RUN_GRACE=30 "$TESTBED" run --tb "$TB" -t $((SECS + 60)) \
	-o "$T_TMP/run" env OPTINC_PEERS="$(ring_net_peers $N 10.77.1)" \
	OPTINC_FAILOVER_MS=$FO_MS OPTINC_FAILBACK_CALLS=20 \
	OPTINC_TIMEOUT_MS=5000 "$RANK" -t $SECS -c 20000 -s 2 -r 20 \
	>"$T_TMP/run.out" 2>&1 &
run=$!
sleep 3
done=0
for ((k = 1; k <= CYCLES; k++)); do
	pause_switch 3
	wait_logs "is back; calls go through it again" 10 $k || break
	sleep 0.5
	blind_rank $((k % N)) 0.4
	sleep 1
	done=$k
done
wait $run
rc=$?
grep -h "FAIL\|optinc:" "$T_TMP"/run/rank*.log | sort | uniq -c | sed 's/^/# /'
echo "# $done of $CYCLES cycles of a 3 s pause of optincd and a rank 0.4 s without its results"
ok_if "every result checked on every rank through $CYCLES forced fall-backs" \
	test $rc = 0
h=$(sed -n 's/^PASS .* hash \([0-9a-f]*\)$/\1/p' "$T_TMP"/run/rank*.log | sort -u)
ok_if "all ranks' results bit-identical" test "$(echo "$h" | wc -w)" = 1
cnt=1
for ((i = 0; i < N; i++)); do
	f=$(log_count $i "goes through the ring")
	b=$(log_count $i "is back; calls go through it again")
	echo "# rank $i: $f fall-backs to the ring, $b returns to the switch"
	[ "$f" = "$CYCLES" ] && [ "$b" = "$CYCLES" ] || cnt=0
done
ok_if "every rank fell back and returned $CYCLES times (the 0.4 s of lost results: none)" \
	test $cnt = 1 -a "$CYCLES" -ge 5
ok_if "all $CYCLES cycles done: every rank back on the switch within 10 s of each stop" \
	test $done = "$CYCLES"
grow=0
heap=0
for ((i = 0; i < N; i++)); do
	read -r r0 r1 h0 h1 < <(rank_mem $i)
	echo "# rank $i VmRSS: ${r0:-?} kB after its first return, ${r1:-?} kB at the end; malloc'd: ${h0:-?} bytes after its first fall-back, ${h1:-?} at the end"
	{ [ -n "$r0" ] && [ -n "$r1" ] && [ $((r1 - r0)) -le "$TOL" ]; } || grow=1
	{ [ -n "$h0" ] && [ -n "$h1" ] &&
	  [ $((h1 - h0)) -le $((HEAP_TOL * 1024)) ]; } || heap=1
done
ok_if "no rank's VmRSS grew by more than $TOL kB after its first fall-back and return" \
	test $grow = 0
ok_if "no rank's malloc'd memory grew by more than $HEAP_TOL KiB after its first fall-back" \
	test $heap = 0
[ -n "${FB_KEEP:-}" ] && cp -r "$T_TMP/run" "$FB_KEEP" && cp "$SD/daemon.log" "$FB_KEEP"
tap_end
