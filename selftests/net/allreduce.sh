#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# All-reduce through optincd on the testbed, N = 2, 4, 8, without and with
# 5 % loss each way plus 5 % duplicated frames to the switch: float32
# AVG/SUM within the protocol's bound of a double-precision reference, int32
# SUM exact, every rank's result bit-identical, the switch's counters agree
# with what the ranks sent; and the ring baseline through the same switch.
. "$(dirname "$0")/lib.sh"

require_root
CHECK=$O/selftests/net/allreduce_check
SIZES=${OPTINC_NET_SIZES:-2 4 8}
# type op count [algo]; ring: liboptinc's ring over TCP, forwarded by optincd
CASES=("float avg 1" "float avg 1000" "float avg 1048583" "float sum 1000"
       "int sum 1000" "int sum 1048583" "float avg 1048583 ring"
       "int sum 1000 ring")
LOSS_CASES=("float avg 1000" "float avg 1048583" "int sum 1048583"
	    "float avg 1048583 ring")
LOSS=5
DUP=5
# The ring over TCP on the lossy testbed: TCP's retransmission timeout
# doubles with each loss of a segment in a row (200 ms, 400 ms, ..), and a
# rank waits for its left neighbour's. Most N = 8 calls here had a rank
# wait about 1 s, some 2 to 4 s; the default 10 s timeout failed once in
# some hundreds of runs of this suite. 30 s takes two more lost
# retransmissions in a row (reliability.md, "The ring on a lossy network").
RING_LOSS_TIMEOUT_MS=30000
T_TMP=$(mktemp -d)

# The switch's counts of job 1: slots completed, then frames in per rank.
switch_counts() {
	"$TESTBED" tel --tb "$1" /optinc/job,1 /optinc/members,1 | python3 -c '
import json, sys
job = json.loads(sys.stdin.readline())["/optinc/job"]
mem = json.loads(sys.stdin.readline())["/optinc/members"]
print(job["slots_completed"], *(mem[k]["frames_in"] for k in sorted(mem, key=int)))'
}

l2_count() {
	"$TESTBED" tel --tb "$1" /optinc/info |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["/optinc/info"]["l2_forwarded"])'
}

# A ring rank sends 2(n-1)/n of the data in TCP segments of at most MTU - 52
# bytes, all of them forwarded by the switch (more with loss).
ring_counters_ok() {
	local tb=$1 dir=$2 n=$3 count=$4 fwd min

	fwd=$(( $(l2_count "$tb") - $(cat "$dir/l2.0") ))
	min=$(( n * ((2 * (n - 1) * count * 4 / n + 8947) / 8948) ))
	echo "# switch: $fwd frames forwarded between servers, at least $min expected"
	[ "$fwd" -ge "$min" ]
}

# The ranks' own counts, from their logs: frames sent by all ranks (JOINs
# included), retransmissions, and rank 0's distinct frames of the calls.
rank_counts() {
	awk '/^join frames/ { s += $3 }
	     /^frames sent/ { s += $3; r += $7; if (FILENAME ~ /rank0.log$/) u = $3 - $7 - $NF }
	     END { print s + 0, r + 0, u + 0 }' "$1"/rank*.log
}

# Each distinct frame completes one slot; every member's frame of it got
# to the switch at least once, and the switch saw no more frames (JOINs
# included) than the ranks sent (twice that with duplication).
counters_ok() {
	local tb=$1 dir=$2 n=$3 dup=$4 sent retx uniq fin slots r c0 c1

	read -ra c0 <"$dir/counts0"
	read -ra c1 < <(switch_counts "$tb")
	read -r sent retx uniq < <(rank_counts "$dir")
	fin=0
	for ((r = 1; r <= n; r++)); do
		fin=$((fin + c1[r] - c0[r]))
	done
	slots=$((c1[0] - c0[0]))
	echo "# switch: $slots slots completed, $fin frames in; ranks: $sent sent ($retx retransmitted), $uniq distinct per rank"
	[ "$dup" = 0 ] || sent=$((2 * sent))
	[ "$slots" -eq "$uniq" ] && [ "$uniq" -gt 0 ] &&
		[ "$fin" -ge $((uniq * n)) ] && [ "$fin" -le "$sent" ]
}


# One case: every rank runs allreduce_check; three test lines.
run_case() {
	local tb=$1 n=$2 what=$3 seed=$4 dup=$5 type op count algo dir t0 env=()

	read -r type op count algo <<<"$what"
	algo=${algo:-optinc}
	what="$algo $type $op of $count"
	dir=$T_TMP/$tb-$algo-$type-$op-$count
	mkdir -p "$dir"
	switch_counts "$tb" >"$dir/counts0"
	l2_count "$tb" >"$dir/l2.0"
	[ "$algo" = ring ] && [ "$dup" != 0 ] &&
		env=(env OPTINC_TIMEOUT_MS=$RING_LOSS_TIMEOUT_MS)
	t0=$SECONDS
	"$TESTBED" run --tb "$tb" -t 120 -o "$dir" "${env[@]}" "$CHECK" -a "$algo" \
		-c "$count" -t "$type" -o "$op" -s "$seed" >/dev/null 2>&1
	echo "# $((SECONDS - t0)) s; rank 0: $(grep -h '^rank .* time' "$dir/rank0.log")"
	grep -h -E "over the bound|wrong|FAIL|allreduce|comm_create|a call waited" "$dir"/rank0.log | sed 's/^/# rank 0: /'
	# a failure shows on every rank; the first to fail says why
	all_pass "$dir" "$n" || grep -E "FAIL|allreduce|comm_create" "$dir"/rank[1-9]*.log |
		sed 's|^.*/rank\([0-9]*\)\.log:|# rank \1: |'
	ok_if "$tb: $what: every rank within the bound (seed $seed)" all_pass "$dir" "$n"
	ok_if "$tb: $what: all ranks bit-identical" all_same "$dir" "$n"
	if [ "$algo" = ring ]; then
		ok_if "$tb: $what: the switch forwarded the ring's traffic" \
			ring_counters_ok "$tb" "$dir" "$n" "$count"
	else
		ok_if "$tb: $what: switch counters match the ranks' frames" \
			counters_ok "$tb" "$dir" "$n" "$dup"
	fi
}

[ -x "$CHECK" ] || { tap_plan 1; ok_if "$CHECK is built" false; exit 1; }
nsizes=$(echo "$SIZES" | wc -w)
tap_plan $((nsizes * (2 + 3 * (${#CASES[@]} + ${#LOSS_CASES[@]})) + 1))
for n in $SIZES; do
	tb=$(tb_name "ar$n")
	ok_if "N=$n: testbed with optincd up" tb_up "$tb" -n "$n"
	for ((c = 0; c < ${#CASES[@]}; c++)); do
		run_case "$tb" "$n" "${CASES[$c]}" $((n * 100 + c)) 0
	done
	tb_down "$tb"
	tb=$(tb_name "al$n")
	ok_if "N=$n: testbed with optincd, ${LOSS}% loss each way, ${DUP}% duplicates up" \
		tb_up "$tb" -n "$n" --loss $LOSS --dup $DUP
	for ((c = 0; c < ${#LOSS_CASES[@]}; c++)); do
		run_case "$tb" "$n" "${LOSS_CASES[$c]}" $((n * 100 + 50 + c)) $DUP
	done
	tb_down "$tb"
done
ok_if "no namespace or daemon left behind" nothing_left
tap_end
