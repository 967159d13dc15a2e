#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Cascading (Documentation/scale.md section 3): 16 ranks behind four
# first-level optincd switches (4 servers each, subnets 10.77.1-4), whose
# uplinks are the four members of a job of a second-level optincd. Float
# AVG at 8 and 16 bits (exponent phase MAX, data CAVG), float SUM and
# int32 SUM (and every datatype and op of collective_check): every rank correct against the 16-rank reference, all 16
# bit-identical and equal to a one-level 16-member job on the same data,
# every slot through both levels (counters), the same frames and bytes per
# server as one level (port counters); then float AVG again with loss and
# duplicates on one server's link, the same result; and float AVG 8 bits
# with the second level in onn mode (the cascade truth table of the
# closed-form ONN from optinc-onn construct --fanin), the same result. TAP.
. "$(dirname "$0")/lib.sh"

require_root
RANK=$O/selftests/scale/scale_rank
COLL=$O/selftests/net/collective_check
ONN=$O/bin/optinc-onn
# the paper's second level: N = 4 widths, two more 64 x 64 layers
ONN_ARCH=5-64-64-64-128-256-128-64-4
COUNT=${OPTINC_CASCADE_COUNT:-100000}
ITERS=3
UPJOB=100
LIMIT=60
LOSS=3
# both levels and the one-level job hold the same elements per frame (an
# upstream frame carries up to 4 bytes per value), so frames compare 1:1
MAXE=2048
TOP_NET=10.77.100
T_TMP=$(mktemp -d)
declare -A H D B
trap 'ranks_kill; tb_cleanup' EXIT
# type op bits
CASES=("float avg 8" "float sum 8" "int sum 8" "float avg 16")

case_args() {
	local type op bits

	read -r type op bits <<<"$1"
	echo "-c $COUNT -t $type -o $op -b $bits -n $ITERS -T 30"
}

# Counters of one job (telemetry /optinc/job), the values of the keys given.
job_keys() {
	local tb=$1 job=$2

	shift 2
	"$TESTBED" tel --tb "$tb" "/optinc/job,$job" | python3 -c '
import json, sys
j = json.loads(sys.stdin.readline())["/optinc/job"]
print(" ".join(str(j[k]) for k in sys.argv[1:]))' "$@"
}

# Bytes the switch of testbed $1 received from and sent to its first $2
# ports (its servers): "rx tx", from its port counters.
port_bytes() {
	"$TESTBED" tel --tb "$1" /optinc/ports | python3 -c '
import json, sys
d = json.loads(sys.stdin.readline())["/optinc/ports"]
n = int(sys.argv[1])
rx = tx = 0
for p in d.values():
    i = int(p["name"].replace("net_af_packet", ""))
    if i < n:
        rx += p["rx_bytes"]; tx += p["tx_bytes"]
print(rx, tx)' "$2"
}

# Sum of "rx tx" over the four group switches.
groups_bytes() {
	local k rx=0 tx=0 a b

	for k in 0 1 2 3; do
		read -r a b <<<"$(port_bytes "${G[$k]}" 4)"
		rx=$((rx + a)) tx=$((tx + b))
	done
	echo "$rx $tx"
}

run_cascade() {
	local dir=$1 args=$2 job=${3:-1} prog=${4:-$RANK} k i

	for k in 0 1 2 3; do
		for ((i = 0; i < 4; i++)); do
			# shellcheck disable=SC2086
			RANK_SW=10.77.$((k + 1)).254 rank_start "${G[$k]}" "$i" "$i" "$job" 4 0 \
				"$dir/rank$((4 * k + i)).log" \
				"$prog" -g $((4 * k + i)):16 $args
		done
	done
	ranks_wait $LIMIT
}

run_flat() {
	local dir=$1 args=$2 i

	for ((i = 0; i < 16; i++)); do
		# shellcheck disable=SC2086
		rank_start "$FLAT" "$i" "$i" 1 16 0 "$dir/rank$i.log" \
			"$RANK" -g "$i:16" $args
	done
	ranks_wait $LIMIT
}

# rank 0's distinct frames (sent less retransmitted and probes)
distinct() {
	awk '/^frames sent/ { print $3 - $7 - $NF }' "$1/rank0.log"
}

# Second level: one slot per distinct frame of a rank; each group switch
# sent that many DATA frames up (plus its JOINs) and took as many results.
levels_ok() {
	local top=$1 ups=$2 want=$3 u r

	echo "# second level: $top slots completed; per group (up frames, up results): $ups; $want distinct frames per rank"
	[ "$want" -gt 0 ] && [ "$top" -eq "$want" ] || return 1
	for u in $ups; do
		r=${u#*/}
		[ "$r" -eq "$want" ] && [ "${u%/*}" -ge "$want" ] || return 1
	done
}

same_frames() {
	echo "# frames per rank: cascade $1, one level $2 (distinct)"
	[ "$1" -eq "$2" ] && [ "$1" -gt 0 ]
}

# Bytes per server of the cascade over one level's, both ways: 1.0 x, within
# 0.95-1.10 (JOIN repeats and retransmissions differ between runs; the
# frames themselves are equal, checked above)
bytes_ratio() {
	local c_rx=$1 c_tx=$2 f_rx=$3 f_tx=$4

	awk -v a="$c_rx" -v b="$c_tx" -v c="$f_rx" -v d="$f_tx" 'BEGIN {
		printf "# bytes per server (port counters): cascade %.0f in, %.0f out; one level %.0f in, %.0f out; ratio %.4f in, %.4f out\n",
			a / 16, b / 16, c / 16, d / 16, a / c, b / d
		exit !(c > 0 && d > 0 && a / c > 0.95 && a / c < 1.10 && b / d > 0.95 && b / d < 1.10) }'
}

# The closed-form ONN of the second level, as a cascade truth table.
onn_table() {
	local out

	out=$(env OPENBLAS_NUM_THREADS=1 OPENBLAS_CORETYPE=Haswell "$ONN" construct \
		-N 4 --fanin 4 --arch $ONN_ARCH --approx 2-7 -o "$1" 2>&1)
	echo "$out" | sed 's/^/# /'
	echo "$out" | grep -q ": 371293 of 371293 points right"
}

# the plan comes at the end: the count follows from CASES
tap_plan
if [ ! -x "$RANK" ] || [ ! -x "$ONN" ]; then
	ok_if "$RANK and $ONN are built" false
	tap_end
fi
TABLE=$T_TMP/cascade-n4x4.tbl
ok_if "second-level ONN (N = 4 switches of N1 = 4): every point of its domain right" \
	onn_table "$TABLE"
TOP=$(tb_name ct)
T_TBS+=("$TOP")
G=()
for k in 0 1 2 3; do
	G+=("$(tb_name "cg$k")")
	ok_if "group $k: optincd, 4 servers in 10.77.$((k + 1)).0/24, uplink to the second level" \
		tb_up "${G[$k]}" -n 4 --subnet 10.77.$((k + 1)) --uplink "$TOP:$k" \
		--job "id=1,size=4,max-elems=$MAXE,up=$TOP_NET.254,up-job=$UPJOB,up-rank=$k" \
		--job "id=2,size=4,max-elems=$MAXE,up=$TOP_NET.254,up-job=$((UPJOB + 1)),up-rank=$k"
done
ok_if "second level: optincd on the 4 uplinks, job $UPJOB fan-in 4, job $((UPJOB + 1)) onn" \
	tb_up "$TOP" -n 0 --ports 4 --subnet $TOP_NET \
	--job "id=$UPJOB,size=4,fanin=4,max-elems=$MAXE" \
	--job "id=$((UPJOB + 1)),size=4,fanin=4,max-elems=$MAXE,mode=onn,table=$TABLE"
for c in "${CASES[@]}"; do
	read -r type op bits <<<"$c"
	dir=$T_TMP/cascade-$type-$op-$bits
	mkdir -p "$dir"
	t0=$(job_keys "$TOP" $UPJOB slots_completed)
	u0=(); for k in 0 1 2 3; do u0+=("$(job_keys "${G[$k]}" 1 up_frames_out up_results_in)"); done
	b0=$(groups_bytes)
	run_cascade "$dir" "$(case_args "$c")"
	b1=$(groups_bytes)
	t1=$(job_keys "$TOP" $UPJOB slots_completed)
	ups=
	for k in 0 1 2 3; do
		read -r f1 r1 <<<"$(job_keys "${G[$k]}" 1 up_frames_out up_results_in)"
		read -r f0 r0 <<<"${u0[$k]}"
		ups="$ups $((f1 - f0))/$((r1 - r0))"
	done
	grep -h -E "over the bound|differing|FAIL|allreduce:|comm_create|join:" "$dir/rank0.log" |
		sed "s/^/# cascade rank 0: /"
	ok_if "cascade $type $op $bits bits: all 16 ranks correct" logs_pass "$dir" 16
	h=$(logs_hash "$dir")
	ok_if "cascade $type $op $bits bits: all 16 bit-identical" test -n "$h"
	ok_if "cascade $type $op $bits bits: every slot went through both levels" \
		levels_ok $((t1 - t0)) "${ups# }" "$(distinct "$dir")"
	H[$c]=$h
	D[$c]=$(distinct "$dir")
	B[$c]=$(counters_delta "$b1" "$b0")
	grep -h "^rank 0 " "$dir/rank0.log" | sed 's/^/# cascade: /'
done

# onn mode at the second level: the same result as exact (the table is)
c="float avg 8"
dir=$T_TMP/cascade-onn
mkdir -p "$dir"
t0=$(job_keys "$TOP" $((UPJOB + 1)) slots_completed)
run_cascade "$dir" "$(case_args "$c")" 2
t1=$(job_keys "$TOP" $((UPJOB + 1)) slots_completed)
ok_if "cascade, second level onn: all 16 ranks correct" logs_pass "$dir" 16
ok_if "cascade, second level onn: the same result as exact" \
	same_hash "${H[$c]}" "$(logs_hash "$dir")"
echo "# onn job: $((t1 - t0)) slots completed, $(distinct "$dir") distinct frames per rank"
ok_if "cascade, second level onn: every slot through the onn job" \
	test $((t1 - t0)) -eq "$(distinct "$dir")"

# Every datatype and op, the non-finite rule, a rank in another call
dir=$T_TMP/cascade-collectives
mkdir -p "$dir"
run_cascade "$dir" "-q" 1 "$COLL"
grep -h "^case FAIL" "$dir"/rank*.log | head -5 | sed 's/^/# cascade: /'
grep -h -E "^case ok: (float16 MIN|NaN at element 2049 on rank 1|count)" "$dir/rank0.log" |
	sed 's/^/# cascade rank 0: /'
ok_if "cascade: float16/bfloat16/float32/float64 SUM/AVG/MAX/MIN, int32, non-finite inputs, a mismatched call: right on all 16 ranks" \
	logs_pass "$dir" 16
ok_if "cascade: those collectives bit-identical on all 16 ranks" \
	test -n "$(logs_hash "$dir")"

# Loss on one server's link: its retransmissions re-send upstream (slot
# waiting for the second level) or get the final result (slot done).
c="float avg 8"
ok_if "${LOSS}% loss and duplicates on group 0's server 1 (optinc-testbed impair)" \
	"$TESTBED" impair --tb "${G[0]}" 1 --loss "$LOSS" --dup "$LOSS"
dir=$T_TMP/cascade-loss
mkdir -p "$dir"
run_cascade "$dir" "$(case_args "$c")"
grep -h -E "over the bound|differing|FAIL|allreduce:|comm_create|^frames sent" \
	"$dir/rank1.log" | sed "s/^/# cascade with loss, rank 1: /"
ip netns exec "${G[0]}-h1" nft list ruleset 2>/dev/null | grep -o "counter packets [0-9]*" |
	sed 's/^/# nft on group 0 server 1: /'
ok_if "cascade with ${LOSS}% loss and duplicates on one link: all 16 ranks correct" \
	logs_pass "$dir" 16
ok_if "cascade with loss: the same result as without" \
	same_hash "${H[$c]}" "$(logs_hash "$dir")"
ok_if "cascade with loss: the lossy rank retransmitted" \
	awk '/^frames sent/ { exit !($7 > 0) }' "$dir/rank1.log"
for k in 0 1 2 3; do
	tb_down "${G[$k]}"
done
tb_down "$TOP"

FLAT=$(tb_name cf)
ok_if "one level: optincd with 16 servers, job of 16" \
	tb_up "$FLAT" -n 16 --job "id=1,size=16,max-elems=$MAXE"
for c in "${CASES[@]}"; do
	read -r type op bits <<<"$c"
	dir=$T_TMP/flat-$type-$op-$bits
	mkdir -p "$dir"
	b0=$(port_bytes "$FLAT" 16)
	run_flat "$dir" "$(case_args "$c")"
	b1=$(port_bytes "$FLAT" 16)
	ok_if "one level $type $op $bits bits: all 16 ranks correct" logs_pass "$dir" 16
	ok_if "cascade = one level, bit for bit ($type $op $bits bits)" \
		same_hash "${H[$c]}" "$(logs_hash "$dir")"
	ok_if "cascade: the same frames per server as one level ($type $op $bits bits)" \
		same_frames "${D[$c]}" "$(distinct "$dir")"
	# shellcheck disable=SC2086
	ok_if "cascade: bytes per server 1.0 x one level ($type $op $bits bits)" \
		bytes_ratio ${B[$c]} $(counters_delta "$b1" "$b0")
	grep -h "^rank 0 " "$dir/rank0.log" | sed 's/^/# one level: /'
done
tb_down "$FLAT"
tap_end
