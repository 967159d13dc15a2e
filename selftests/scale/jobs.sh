#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Many jobs on one optincd: two jobs (N = 5 and 3) on an 8-server testbed,
# then four (N = 3, 3, 2, 2; 8 and 16 bits, exact and onn, float and int)
# on 10 servers. Each job alone, then all at once: every rank correct (the
# first result against a double-precision reference, every later one bit
# for bit the same), all ranks of a job bit-identical and the same as when
# the job ran alone, each job's switch counters (optincctl -j daemon job ID)
# grown by exactly what its ranks sent and the idle jobs' not at all. Then
# one job stalled with its slots held (a member stopped) while another runs
# at full speed. Prints per-job throughput alone and shared. TAP.
. "$(dirname "$0")/lib.sh"

require_root
RANK=$O/selftests/scale/scale_rank
INJECT=$O/tools/demo/optinc-table-inject
SECS=${OPTINC_SCALE_SECS:-3}
COUNT=${OPTINC_SCALE_COUNT:-262144}
T_TMP=$(mktemp -d)
trap 'ranks_kill; tb_cleanup' EXIT

# A job: id size bits mode type op token. Job k uses the servers after
# those of jobs 0..k-1.
JOBS2=("1 5 8 exact float avg 0" "2 3 16 exact float sum 77")
JOBS4=("1 3 8 exact float avg 0" "2 3 16 exact float sum 77"
       "3 2 8 onn float avg 0" "4 2 8 exact int sum 5")
JOBS=()
THRU=()

job_opt() {
	local id size bits mode type op token opt

	read -r id size bits mode type op token <<<"$1"
	opt="id=$id,size=$size,bits=$bits,mode=$mode,token=$token"
	[ "$mode" = onn ] && opt="$opt,table=$T_TMP/n$size.tbl"
	echo "$opt"
}

job_first() {
	local k=$1 i first=0 size

	for ((i = 0; i < k; i++)); do
		read -r _ size _ <<<"${JOBS[$i]}"
		first=$((first + size))
	done
	echo $first
}

# Start every rank of job k: logs in DIR/j<id>/, loop SECS from START.
job_start() {
	local tb=$1 k=$2 dir=$3 secs=$4 start=$5 id size bits mode type op token
	local first r

	shift 5
	read -r id size bits mode type op token <<<"${JOBS[$k]}"
	first=$(job_first "$k")
	mkdir -p "$dir/j$id"
	for ((r = 0; r < size; r++)); do
		rank_start "$tb" $((first + r)) "$r" "$id" "$size" "$token" \
			"$dir/j$id/rank$r.log" "$@" "$RANK" -c "$COUNT" \
			-t "$type" -o "$op" -b "$bits" -s $((id * 10 + 1)) \
			-T "$secs" -S "$start"
	done
}

now_plus() {
	python3 -c "import time, sys; print('%.3f' % (time.time() + float(sys.argv[1])))" "$1"
}

all_counters() {
	local tb=$1 k id

	for ((k = 0; k < ${#JOBS[@]}; k++)); do
		read -r id _ <<<"${JOBS[$k]}"
		job_counters "$tb" "$id"
	done
}

# slots == distinct frames; frames in between distinct x N and what was
# sent; without retransmissions exactly the frames and bytes sent.
counters_ok() {
	local delta=$1 sent=$2 n=$3 slots fin bin fout f b r u

	read -r slots fin bin fout _ <<<"$delta"
	read -r f b r u <<<"$sent"
	echo "# switch: $slots slots, $fin frames in, $bin bytes in, $fout frames out;" \
	     "ranks: $f frames, $((b + FRAME_HDR * f)) bytes with headers, $r retransmitted, $u distinct"
	[ "$slots" -eq "$u" ] && [ "$u" -gt 0 ] && [ "$fin" -ge $((u * n)) ] &&
		[ "$fin" -le "$f" ] && [ "$fout" -ge $((u * n)) ] || return 1
	[ "$r" -gt 0 ] || { [ "$fin" -eq "$f" ] && [ "$bin" -eq $((b + FRAME_HDR * f)) ]; }
}

idle_ok() {
	echo "# switch: idle job's counters grew by: $1"
	[ "$1" = "0 0 0 0 0" ]
}

# A job's throughput from its rank 0: "algbw wallbw iters".
job_thru() {
	sed -n 's/^rank 0 .* iters \([0-9]*\) .* algbw \([0-9.]*\) MB.s wallbw \([0-9.]*\) MB.s .*/\2 \3 \1/p' \
		"$1/rank0.log"
}

# Run jobs (indices) together for SECS; test lines per job.
run_jobs() {
	local tb=$1 tag=$2 secs=$3 k id size start dir h
	local -a before after ks

	shift 3
	ks=("$@")
	dir=$T_TMP/$tb-$tag
	mapfile -t before < <(all_counters "$tb")
	start=$(now_plus 2)
	for k in "${ks[@]}"; do
		job_start "$tb" "$k" "$dir" "$secs" "$start"
	done
	ranks_wait $((secs + 60))
	mapfile -t after < <(all_counters "$tb")
	for ((k = 0; k < ${#JOBS[@]}; k++)); do
		read -r id size _ <<<"${JOBS[$k]}"
		if [[ " ${ks[*]} " != *" $k "* ]]; then
			ok_if "$tb $tag: job $id idle, its counters unchanged" \
				idle_ok "$(counters_delta "${after[$k]}" "${before[$k]}")"
			continue
		fi
		grep -h -E "over the bound|differing|FAIL|allreduce:|comm_create" \
			"$dir/j$id"/rank0.log | sed "s/^/# job $id rank 0: /"
		ok_if "$tb $tag: job $id (${JOBS[$k]}): every rank correct" \
			logs_pass "$dir/j$id" "$size"
		h=$(logs_hash "$dir/j$id")
		if [ "$tag" = alone ]; then
			HASH[alone.$id]=$h
			ok_if "$tb $tag: job $id: ranks bit-identical" same_hash "$h" "$h"
		else
			ok_if "$tb $tag: job $id: ranks bit-identical, the same as alone" \
				same_hash "$h" "${HASH[alone.$id]}"
		fi
		ok_if "$tb $tag: job $id: switch counters = its ranks' frames" \
			counters_ok "$(counters_delta "${after[$k]}" "${before[$k]}")" \
			"$(logs_sent "$dir/j$id")" "$size"
		THRU+=("$tb job $id (${JOBS[$k]}) $tag: $(job_thru "$dir/j$id")")
	done
}

# Job 1 of JOBS (k = 1) stalls with its window of slots held: one member
# stopped; job 0 runs meanwhile, and job 1 finishes once it goes on.
run_stall() {
	local tb=$1 secs=$2 idA sizeA idB sizeB c0 c1 d stopped start pidsB
	local dir=$T_TMP/$tb-stall

	read -r idA sizeA _ <<<"${JOBS[0]}"
	read -r idB sizeB _ <<<"${JOBS[1]}"
	start=$(now_plus 2)
	job_start "$tb" 1 "$dir" $((secs + 4)) "$start" env OPTINC_TIMEOUT_MS=60000
	pidsB=("${S_PIDS[@]}")
	S_PIDS=()
	sleep 3
	stopped=${pidsB[1]}
	kill -STOP "$stopped"
	sleep 1
	c0=$(job_counters "$tb" "$idB")
	job_start "$tb" 0 "$dir" "$secs" "$(now_plus 1)"
	ranks_wait $((secs + 60))
	c1=$(job_counters "$tb" "$idB")
	kill -CONT "$stopped"
	S_PIDS=("${pidsB[@]}")
	ranks_wait $((secs + 60))
	d=$(counters_delta "$c1" "$c0")
	echo "# job $idB while its rank 1 was stopped: counters grew by $d"
	ok_if "$tb stall: job $idB completed no slot while a member was stopped" \
		test "${d%% *}" = 0
	ok_if "$tb stall: job $idA correct while job $idB held its slots" \
		logs_pass "$dir/j$idA" "$sizeA"
	ok_if "$tb stall: job $idA bit-identical to alone" \
		same_hash "$(logs_hash "$dir/j$idA")" "${HASH[alone.$idA]}"
	ok_if "$tb stall: job $idB correct after its member went on" \
		logs_pass "$dir/j$idB" "$sizeB"
	THRU+=("$tb job $idA (${JOBS[0]}) with job $idB stalled: $(job_thru "$dir/j$idA")")
}

# The phase's jobs each alone, then all together.
run_phase() {
	local tb=$1 n=$2 k all=()
	local -a opts=()

	for ((k = 0; k < ${#JOBS[@]}; k++)); do
		opts+=(--job "$(job_opt "${JOBS[$k]}")")
		all+=("$k")
	done
	ok_if "$tb: testbed of $n servers with ${#JOBS[@]} jobs up" \
		tb_up "$tb" -n "$n" "${opts[@]}"
	for ((k = 0; k < ${#JOBS[@]}; k++)); do
		run_jobs "$tb" alone "$SECS" "$k"
	done
	run_jobs "$tb" shared "$SECS" "${all[@]}"
}

declare -A HASH
# the plan comes at the end: how many tests a phase has follows from its jobs
tap_plan
if [ ! -x "$RANK" ] || [ ! -x "$INJECT" ]; then
	ok_if "$RANK and $INJECT are built" false
	tap_end
fi
"$INJECT" -n 2 -o "$T_TMP/n2.tbl" >/dev/null || exit 1

JOBS=("${JOBS2[@]}")
tb=$(tb_name sj2)
run_phase "$tb" 8
run_stall "$tb" "$SECS"
tb_down "$tb"

HASH=()
JOBS=("${JOBS4[@]}")
tb=$(tb_name sj4)
run_phase "$tb" 10
tb_down "$tb"

echo "# per-job throughput (rank 0): algbw MB/s (time in the data all-reduces), wall MB/s (whole loop), iterations of $((COUNT * 4)) bytes"
for k in "${THRU[@]}"; do
	echo "#   $k"
done
tap_end
