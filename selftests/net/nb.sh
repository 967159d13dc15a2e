#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Non-blocking calls on the testbed, N = 2, 4, 8: 1, 8 and 64 requests of
# mixed sizes, datatypes and ops outstanding complete in posting order
# with the results of the same blocking calls, bit-identical on every
# rank and within the reference's bounds; 16
# posted from two threads; 8 on the ring; and optincd killed while ranks
# keep queues of 16 requests going, right after the first of a batch:
# the requests still outstanding complete through the ring (over a second
# network, as in reliability/failover.sh), checked; once optincd runs
# again, the ranks go back to it in the middle of their queues.
. "$(dirname "$0")/lib.sh"

require_root
CHECK=$O/selftests/net/nb_check
SIZES=${OPTINC_NET_SIZES:-2 4 8}
T_TMP=$(mktemp -d)

all_logs() {
	local dir=$1 n=$2 pat=$3 i

	for ((i = 0; i < n; i++)); do
		grep -q -- "$pat" "$dir/rank$i.log" || return 1
	done
}

# One case: every rank runs nb_check ARGS; two test lines.
run_case() {
	local tb=$1 n=$2 name=$3 dir t0

	shift 3
	dir=$T_TMP/$tb-${name// /_}
	mkdir -p "$dir"
	t0=$SECONDS
	"$TESTBED" run --tb "$tb" -t 300 -o "$dir" "$@" >/dev/null 2>&1
	echo "# $((SECONDS - t0)) s; rank 0: $(grep -h 'batches' "$dir/rank0.log")"
	grep -h -E "off the|differs|FAIL|rank .*: batch|comm_create" "$dir"/rank*.log | sed 's/^/# /'
	ok_if "N=$n, $name: every rank PASS (posting order, as blocking, within bounds)" \
		all_pass "$dir" "$n"
	ok_if "N=$n, $name: all ranks bit-identical" all_same "$dir" "$n"
}

# Start optincd again with the testbed's own command line.
daemon_restart() {
	local sd=/run/optinc-testbed/$1

	# shellcheck disable=SC2046
	setsid ip netns exec "$1-sw" $(cat "$sd/daemon.cmd") \
		</dev/null >>"$sd/daemon.log" 2>&1 &
	echo $! >"$sd/daemon.pid"
	disown
}

# optincd killed by rank 0 a third into 12 s of queues of 16, right after
# the first request of a batch, and started again 2 s later: four lines.
failover_case() {
	local tb=$1 n=$2 dir=$T_TMP/$1-failover call pid i

	mkdir -p "$dir"
	OPTINC_TB_RUN_GRACE=30 "$TESTBED" run --tb "$tb" -t 200 -o "$dir" \
		env OPTINC_PEERS="$(ring_net_peers "$n" 10.78.0)" OPTINC_FAILOVER_MS=1000 \
		OPTINC_TIMEOUT_MS=5000 OPTINC_FAILBACK_CALLS=20 \
		"$CHECK" -k 16 -s 12 -X "/run/optinc-testbed/$tb/daemon.pid" \
		>/dev/null 2>&1 &
	pid=$!
	for ((i = 0; i < 100; i++)); do
		grep -q "killed after" "$dir/rank0.log" 2>/dev/null && break
		sleep 0.1
	done
	sleep 2
	daemon_restart "$tb"
	wait $pid
	grep -h -E "batches|goes through|is back|killed|FAIL|rank .*: batch" "$dir"/rank*.log | sed 's/^/# /'
	# a batch is 16 requests and the 1-value call that agrees on stopping
	call=$(sed -n 's/.* call \([0-9]*\) goes through the ring.*/\1/p' "$dir/rank0.log" | head -1)
	[ -n "$call" ] && echo "# rank 0 fell back at call $call: request $((call % 17)) of its batch (0-15; 16: the stop call)"
	ok_if "N=$n, optincd killed mid-queue: every request of every batch completes, checked" \
		all_pass "$dir" "$n"
	ok_if "N=$n, optincd killed mid-queue: all ranks bit-identical" all_same "$dir" "$n"
	ok_if "N=$n, optincd killed mid-queue: requests were outstanding then, and every rank fell back to the ring" \
		fell_back_queued "$dir" "$n"
	ok_if "N=$n, optincd restarted: every rank went back to the switch with requests queued" \
		all_logs "$dir" "$n" "is back; calls go through it again"
}

fell_back_queued() {
	local left

	left=$(sed -n 's/.*killed after .*, \([0-9]*\) requests still outstanding/\1/p' "$1/rank0.log")
	all_logs "$1" "$2" "goes through the ring" && [ "${left:-0}" -gt 0 ]
}

[ -x "$CHECK" ] || { tap_plan 1; ok_if "$CHECK is built" false; exit 1; }
nsizes=$(echo "$SIZES" | wc -w)
tap_plan $((nsizes * 16 + 1))
for n in $SIZES; do
	tb=$(tb_name "nb$n")
	if ! tb_up "$tb" -n "$n"; then
		for ((i = 0; i < 16; i++)); do
			ok_if "N=$n: testbed up (test $((i + 1)) of 16)" false
		done
		continue
	fi
	ok_if "N=$n: testbed up" true
	for k in 1 8 64; do
		run_case "$tb" "$n" "$k requests" "$CHECK" -k $k
	done
	run_case "$tb" "$n" "16 requests from two threads" "$CHECK" -k 16 -T
	run_case "$tb" "$n" "8 requests on the ring" env OPTINC_ALGO=ring "$CHECK" -k 8
	ok_if "N=$n: second network for the ring up" ring_net_up "$tb" "$n" 10.78.0
	failover_case "$tb" "$n"
	tb_down "$tb"
	ip netns del "$tb-mg" 2>/dev/null
done
ok_if "no namespace left behind" nothing_left
tap_end
