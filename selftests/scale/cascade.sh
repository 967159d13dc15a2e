#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Cascade prototype (Documentation/scale.md): 16 ranks in four groups of 4,
# each group behind a first-level switch (cascade_relay: the core's state
# machine over UDP, on a bridge testbed), the four relays members of one
# job of a second-level optincd. Float AVG/SUM at 8 and 16 bits and int32
# SUM: every rank correct against the 16-rank reference, all 16 results
# bit-identical and equal to a one-level 16-member optincd job on the same
# data, the same frames per server as one level, and the second-level
# switch's counters show every slot went through it; float AVG again with
# loss and duplicates between the servers and the first level. TAP.
. "$(dirname "$0")/lib.sh"

require_root
RANK=$O/selftests/scale/scale_rank
RELAY=$O/selftests/scale/cascade_relay
COUNT=${OPTINC_CASCADE_COUNT:-100000}
ITERS=3
UPJOB=100
LIMIT=60
LOSS=2
T_TMP=$(mktemp -d)
RELAY_PIDS=()
declare -A H D B
trap 'ranks_kill; relays_stop; tb_cleanup' EXIT
# type op bits
CASES=("float avg 8" "float sum 8" "int sum 8" "float avg 16")

relays_stop() {
	[ ${#RELAY_PIDS[@]} -gt 0 ] && kill -TERM "${RELAY_PIDS[@]}" 2>/dev/null
	[ ${#RELAY_PIDS[@]} -gt 0 ] && wait "${RELAY_PIDS[@]}" 2>/dev/null
	RELAY_PIDS=()
}

# One relay per group, rank k of the second-level job; new ones per case,
# so that the second level starts a new generation with the new ranks.
relays_start() {
	local dir=$1 k

	for k in 0 1 2 3; do
		ip netns exec "$L2-h$k" "$RELAY" -n 4 -j 1 -d "${G[$k]}-sw" \
			-u "10.77.0.254:$SW_PORT" -J $UPJOB -r "$k" -t $LIMIT \
			>"$dir/relay$k.log" 2>&1 &
		RELAY_PIDS+=($!)
	done
}

# The ranks' arguments for a case; OPTINC_MTU keeps a first-level frame's
# int32 partial sums within one 9000-byte frame upstream.
case_args() {
	local type op bits

	read -r type op bits <<<"$1"
	echo "-c $COUNT -t $type -o $op -b $bits -n $ITERS -T 30"
}

run_cascade() {
	local dir=$1 args=$2 k i

	relays_start "$dir"
	sleep 0.5
	for k in 0 1 2 3; do
		for ((i = 0; i < 4; i++)); do
			# shellcheck disable=SC2086
			rank_start "${G[$k]}" "$i" "$i" 1 4 0 "$dir/rank$((4 * k + i)).log" \
				env OPTINC_MTU=2300 "$RANK" -g $((4 * k + i)):16 $args
		done
	done
	ranks_wait $LIMIT
	relays_stop
}

run_flat() {
	local dir=$1 args=$2 job=$3 i

	for ((i = 0; i < 16; i++)); do
		# shellcheck disable=SC2086
		rank_start "$FLAT" "$i" "$i" "$job" 16 0 "$dir/rank$i.log" \
			env OPTINC_MTU=2300 "$RANK" -g "$i:16" $args
	done
	ranks_wait $LIMIT
}

# rank 0's distinct frames (sent less retransmitted)
distinct() {
	awk '/^frames sent/ { print $3 - $7 }' "$1/rank0.log"
}

l2_ok() {
	local slots=$1 want=$2

	echo "# second level: $slots slots completed, $want distinct frames per rank"
	[ "$slots" -eq "$want" ] && [ "$want" -gt 0 ]
}

same_frames() {
	echo "# frames per rank: cascade $1, one level $2 (distinct)"
	[ "$1" -eq "$2" ] && [ "$1" -gt 0 ]
}

echo "TAP version 13"
if [ ! -x "$RANK" ] || [ ! -x "$RELAY" ]; then
	echo "1..1"
	ok_if "$RANK and $RELAY are built" false
	exit 1
fi
G=()
for k in 0 1 2 3; do
	G+=("$(tb_name "cg$k")")
	ok_if "group $k: bridge testbed of 4 servers up" tb_up "${G[$k]}" -n 4 --bridge
done
L2=$(tb_name cl)
ok_if "second level: optincd with job $UPJOB of the 4 relays up" \
	tb_up "$L2" -n 4 --job "id=$UPJOB,size=4,bits=8"
for c in "${CASES[@]}"; do
	read -r type op bits <<<"$c"
	args=$(case_args "$c")
	dir=$T_TMP/cascade-$type-$op-$bits
	mkdir -p "$dir"
	s0=$(job_counters "$L2" $UPJOB)
	run_cascade "$dir" "$args"
	s1=$(job_counters "$L2" $UPJOB)
	grep -h -E "over the bound|differing|FAIL|allreduce:|comm_create" "$dir/rank0.log" |
		sed "s/^/# cascade rank 0: /"
	ok_if "cascade $type $op $bits bits: all 16 ranks correct" logs_pass "$dir" 16
	h=$(logs_hash "$dir")
	ok_if "cascade $type $op $bits bits: all 16 bit-identical" test -n "$h"
	ok_if "cascade $type $op $bits bits: every slot went through the second level" \
		l2_ok "$(counters_delta "$s1" "$s0" | cut -d' ' -f1)" "$(distinct "$dir")"
	H[$c]=$h
	D[$c]=$(distinct "$dir")
	B[$c]=$(awk '/^frames sent/ { print $10 }' "$dir/rank0.log")
	grep -h "^cascade_relay: rank" "$dir"/relay*.log | sed 's/^/# /'
done
relays_stop

# Loss between servers and first level: retransmissions re-send upstream
# (slot waiting) or the final result (slot done).
c="float avg 8"
for k in 0 1 2 3; do
	tb_down "${G[$k]}"
	G[k]=$(tb_name "cl$k")
	ok_if "group $k: bridge testbed, ${LOSS}% loss each way, ${LOSS}% duplicates, up" \
		tb_up "${G[$k]}" -n 4 --bridge --loss $LOSS --dup $LOSS
done
dir=$T_TMP/cascade-loss
mkdir -p "$dir"
run_cascade "$dir" "$(case_args "$c")"
grep -h -E "over the bound|differing|FAIL|allreduce:|comm_create|^frames sent" \
	"$dir/rank0.log" | sed "s/^/# cascade rank 0: /"
ok_if "cascade with loss: all 16 ranks correct" logs_pass "$dir" 16
ok_if "cascade with loss: the same result as without" \
	same_hash "${H[$c]}" "$(logs_hash "$dir")"
grep -h "^cascade_relay: rank" "$dir"/relay*.log | sed 's/^/# /'
for k in 0 1 2 3; do
	tb_down "${G[$k]}"
done
tb_down "$L2"

FLAT=$(tb_name cf)
ok_if "one level: optincd with 16 servers, jobs of 8 and 16 bits up" \
	tb_up "$FLAT" -n 16 --job id=1,size=16,bits=8 --job id=2,size=16,bits=16
for c in "${CASES[@]}"; do
	read -r type op bits <<<"$c"
	dir=$T_TMP/flat-$type-$op-$bits
	mkdir -p "$dir"
	run_flat "$dir" "$(case_args "$c")" $((bits / 8))
	ok_if "one level $type $op $bits bits: all 16 ranks correct" logs_pass "$dir" 16
	ok_if "cascade = one level, bit for bit ($type $op $bits bits)" \
		same_hash "${H[$c]}" "$(logs_hash "$dir")"
	ok_if "cascade: the same frames per server as one level ($type $op $bits bits)" \
		same_frames "${D[$c]}" "$(distinct "$dir")"
	echo "# bytes sent by rank 0 (UDP payload, $ITERS calls of $COUNT values and votes): cascade ${B[$c]}," \
	     "one level $(awk '/^frames sent/ { print $10 }' "$dir/rank0.log")"
done
tb_down "$FLAT"
echo "1..$T_NUM"
tap_end
