#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Switch failure on the testbed: optincd killed while 3 ranks run
# all-reduces in a loop; every rank must detect it within a bound, finish
# the call through the ring (over a second network, as hosts have one)
# with checked results, keep going, and go back to the switch once
# optincd runs again. Then a rank killed mid-job: the others must fail
# with a clear error, with the switch up and with the switch gone.
# shellcheck source=../net/lib.sh
. "$(dirname "$0")/../net/lib.sh"

N=3
FO_MS=1000
RANK=$O/selftests/reliability/rel_rank
TB=$(tb_name rfo)
PEERS=$(ring_net_peers $N 10.77.1)
SD=/run/optinc-testbed/$TB

daemon_pid() { cat "$SD/daemon.pid"; }

# Start optincd again with the testbed's own command line (if it is dead).
daemon_restart() {
	kill -0 "$(daemon_pid)" 2>/dev/null && return 0
	# shellcheck disable=SC2046
	setsid ip netns exec "$TB-sw" $(cat "$SD/daemon.cmd") \
		</dev/null >>"$SD/daemon.log" 2>&1 &
	echo $! >"$SD/daemon.pid"
	disown
}

# Wait (at most 0.8 s, less than rank 0's own 1 s failover) until the
# switch completes no more slots: the others have finished the call that
# rank 0 is stuck in and wait for its next one. A fixed sleep was too short
# on a loaded machine, and then no rank was ahead.
switch_stalled() {
	local a b i

	b=$(slots_done)
	for ((i = 0; i < 8; i++)); do
		sleep 0.1
		a=$b
		b=$(slots_done)
		[ -n "$b" ] && [ "$a" = "$b" ] && return 0
	done
}

slots_done() {
	"$TESTBED" ctl --tb "$TB" -j daemon job 1 2>/dev/null |
		grep -o '"slots_completed":[0-9]*' | cut -d: -f2
}

# Ranks in the background: run ARGS... with the log in $T_TMP/$1.
ranks_start() {
	local name=$1

	shift
	OPTINC_TB_RUN_GRACE=30 "$TESTBED" run --tb "$TB" -t 120 -o "$T_TMP/$name" \
		env OPTINC_PEERS=$PEERS OPTINC_FAILOVER_MS=$FO_MS \
		OPTINC_TIMEOUT_MS=5000 "$@" >"$T_TMP/$name.out" 2>&1 &
	RUN_PID=$!
}

# Every rank's log holds PATTERN.
all_logs() {
	local dir=$1 pat=$2 i

	for ((i = 0; i < N; i++)); do
		grep -q -- "$pat" "$dir/rank$i.log" || return 1
	done
}

tap_plan 11
T_TMP=$(mktemp -d /tmp/optinc-rel.XXXXXX)
if ! tb_up "$TB" -n $N --job "id=1,size=$N,bits=8" || ! ring_net_up "$TB" $N 10.77.1; then
	ok_if "testbed and ring network up" false
	tap_end
	exit 1
fi

# 1. optincd killed after 3 s of a 14 s loop, restarted 4 s later.
ranks_start kill env OPTINC_FAILBACK_CALLS=20 "$RANK" -t 14 -c 20000 -s 20
sleep 3
kill -KILL "$(daemon_pid)"
echo "# optincd killed at $(date +%T.%N)"
sleep 4
daemon_restart
wait $RUN_PID
rc=$?
grep -v "rss_" "$T_TMP/kill.out" | sed 's/^/# /'
ok_if "all ranks pass with optincd killed mid-job (results checked every call)" \
	test $rc = 0
ok_if "every rank fell back to the ring" all_logs "$T_TMP/kill" "goes through the ring"
ok_if "every rank went back to the switch after its restart" \
	all_logs "$T_TMP/kill" "is back; calls go through it again"
max=$(sed -n 's/.* max_ms \([0-9]*\) .*/\1/p' "$T_TMP"/kill/rank*.log | sort -n | tail -1)
echo "# slowest call (the one that detected the failure): ${max:-?} ms, failover_ms $FO_MS"
ok_if "detection and fallback within failover_ms + 2 s" \
	test "${max:-99999}" -le $((FO_MS + 2000))

# Ranks other than 2 hold PATTERN in their logs.
others_log() {
	local dir=$1 pat=$2 i

	for ((i = 0; i < N - 1; i++)); do
		grep -q -- "$pat" "$dir/rank$i.log" || return 1
	done
}

no_log() {
	! grep -q -- "$2" "$1"/rank*.log
}

# 2. The switch up, rank 2 killed: the others fail with a clear error.
ranks_start rankdies "$RANK" -t 60 -c 20000 -s 5
sleep 3
kill -KILL "$(ip netns pids "$TB-h2" | head -1)"
t0=$SECONDS
wait $RUN_PID
secs=$((SECONDS - t0))
grep -h "FAIL" "$T_TMP"/rankdies/rank[01].log | sed 's/^/# /'
[ $secs -le 8 ] || tail -4 "$T_TMP/rankdies.out" | sed 's/^/# run: /'
ok_if "a dead rank, switch up: the others fail within timeout_ms + 3 s (${secs}s)" \
	test $secs -le 8
ok_if "... with the timeout error naming the missing result" \
	others_log "$T_TMP/rankdies" "a rank may be missing"
ok_if "... and no fallback to the ring (the switch still answers)" \
	no_log "$T_TMP/rankdies" "goes through the ring"

# 4. Rank 0 behind when optincd dies: what the switch sends it is dropped
# (nftables on its eth0) just before the kill, except the results of op MAX
# (optinc_hdr.op, UDP payload byte 19), so that rank 0 still sends the data
# of the call it is in, the others finish that call and start the next one.
# Rank 0 must take that call's result from them.
daemon_restart
sleep 3
ranks_start behind "$RANK" -t 8 -c 20000 -s 5
sleep 2
echo "table netdev rel_blind {
	chain in {
		type filter hook ingress device \"eth0\" priority 0
		ip saddr 10.77.0.254 @th,216,8 != 4 drop
	}
}" | ip netns exec "$TB-h0" nft -f -
switch_stalled
kill -KILL "$(daemon_pid)"
wait $RUN_PID
rc=$?
ip netns exec "$TB-h0" nft delete table netdev rel_blind
grep -h "optinc:\|FAIL" "$T_TMP"/behind/rank*.log | sed 's/^/# /'
ok_if "a rank one call behind when the switch dies: all ranks pass" test $rc = 0
ok_if "... it took the call's result from a rank ahead" \
	grep -q "taking its result from there" "$T_TMP/behind/rank0.log"

# 5. optincd killed, then (on the ring) rank 2 killed.
daemon_restart
sleep 3
ranks_start ringdies "$RANK" -t 60 -c 20000 -s 5
sleep 2
kill -KILL "$(daemon_pid)"
sleep 3
kill -KILL "$(ip netns pids "$TB-h2" | head -1)"
t0=$SECONDS
wait $RUN_PID
secs=$((SECONDS - t0))
grep -h "FAIL\|ring" "$T_TMP"/ringdies/rank[01].log | sed 's/^/# /'
ok_if "a dead rank on the ring: the others fail with a ring error" \
	others_log "$T_TMP/ringdies" "FAIL call .*ring: rank"
ok_if "... within timeout_ms + 3 s (${secs}s)" test $secs -le 8
tap_end
