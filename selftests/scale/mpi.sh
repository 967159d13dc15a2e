#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# An unmodified MPI program under Open MPI's mpirun, one rank per server
# namespace, with liboptinc_mpi.so preloaded: its float and int SUMs on
# MPI_COMM_WORLD (and a duplicate of it, and in place) come out right and
# went through the switch (the job's slots, frames and bytes grew by what
# the shim sent and by at least what the program's calls carry); calls the
# shim must not take still work and leave the switch alone; without the
# shim, or without OPTINC_SWITCH, the same program runs on plain MPI and
# the switch sees nothing of it. N = 4 at 8 bits, N = 3 at 16 bits. TAP.
. "$(dirname "$0")/lib.sh"

require_root
PROG=$O/selftests/scale/mpi_allreduce
SHIM=$O/lib/liboptinc_mpi.so
ITERS=${OPTINC_MPI_ITERS:-10}
COUNT=${OPTINC_MPI_COUNT:-100000}
LIMIT=120
T_TMP=$(mktemp -d)

# mpirun in h0 with rank i in <tb>-h<i> (MPMD form); PMIx and the BTL on
# the testbed subnet, as tools/bench/optinc-bench.sh does. $3: variables
# for every rank (env(1) words), the rest: the program's arguments.
mpi_run() {
	local tb=$1 n=$2 vars=$3 i apps=()

	shift 3
	for ((i = 0; i < n; i++)); do
		[ $i -gt 0 ] && apps+=(:)
		# shellcheck disable=SC2206
		apps+=(-np 1 ip netns exec "$tb-h$i" env $vars "$PROG" "$@")
	done
	PMIX_MCA_ptl_tcp_remote_connections=1 \
	PMIX_MCA_ptl_tcp_if_include=10.77.0.0/24 \
	timeout -k 5 "$LIMIT" ip netns exec "$tb-h0" mpirun --allow-run-as-root \
		--oversubscribe --bind-to none --mca btl tcp,self \
		--mca btl_tcp_if_include 10.77.0.0/24 \
		--mca oob_tcp_if_include 10.77.0.0/24 "${apps[@]}"
}

ranks_pass() {
	grep -h "^rank .* PASS$" "$1" | sed 's/^/# /'
	grep -h -E "FAIL|optinc_mpi: rank [0-9]+: (cannot|MPI_Allreduce)|left to MPI" "$1" | sed 's/^/# /'
	[ "$(grep -c "^rank [0-9]* of $2: .*: PASS$" "$1")" -eq "$2" ]
}

# The shim's own accounts, summed over ranks: "optinc_calls mpi_calls
# frames bytes retransmits distinct" (frames and bytes with the JOINs,
# distinct = rank 0's frames less its retransmissions).
shim_sums() {
	awk '/^optinc_mpi: rank [0-9]+: calls/ {
		n++; o += $5; m += $7; f += $11 + $16; b += $13 + $21; r += $18
		if ($3 == "0:") u = $16 - $18 }
	     END { printf "%.0f %.0f %.0f %.0f %.0f %.0f %.0f\n", n, o, m, f, b, r, u }' "$1"
}

# Every rank took COUNT's calls itself (optinc) or left them (mpi).
shim_calls_ok() {
	local log=$1 n=$2 want_o=$3 want_m=$4 nr o m

	read -r nr o m _ <<<"$(shim_sums "$log")"
	echo "# shim: $nr ranks reported, $o calls through the switch, $m left to MPI"
	[ "$nr" -eq "$n" ] && [ "$o" -eq $((n * want_o)) ] && [ "$m" -eq $((n * want_m)) ]
}

# The job's counters against the shim's accounts, and the bytes in against
# what the program's calls carry at least: per rank and iteration two
# float SUMs (bits per value) and two int SUMs (4 bytes per value).
switch_ok() {
	local delta=$1 log=$2 n=$3 bits=$4 slots fin bin f b r u min

	read -r slots fin bin _ <<<"$delta"
	read -r _ _ _ f b r u <<<"$(shim_sums "$log")"
	min=$((n * ITERS * COUNT * (2 * bits / 8 + 8)))
	echo "# switch: $slots slots, $fin frames in, $bin bytes in; shim: $u distinct frames," \
	     "$f frames, $((b + FRAME_HDR * f)) bytes with headers, $r retransmitted;" \
	     "program: at least $min bytes"
	[ "$slots" -eq "$u" ] && [ "$u" -gt 0 ] && [ "$fin" -le "$f" ] &&
		[ "$fin" -ge $((u * n)) ] && [ "$bin" -ge "$min" ] &&
		[ "$bin" -le $((min + min / 10)) ] || return 1
	[ "$r" -gt 0 ] || { [ "$fin" -eq "$f" ] && [ "$bin" -eq $((b + FRAME_HDR * f)) ]; }
}

# No slot completed and no data: at most JOIN frames (@3: how many).
switch_idle_ok() {
	local slots fin

	read -r slots fin _ <<<"$1"
	echo "# switch: $slots slots, $fin frames in (JOINs allowed: $2)"
	[ "$slots" -eq 0 ] && [ "$fin" -le "$2" ]
}

# One mpirun: NAME VARS MODE; sets RUN_LOG and RUN_DELTA.
run_one() {
	local tb=$1 n=$2 job=$3 name=$4 vars=$5 mode=$6 c0 t0

	RUN_LOG=$T_TMP/$tb-$name.log
	c0=$(job_counters "$tb" "$job")
	t0=$SECONDS
	mpi_run "$tb" "$n" "$vars" -n "$ITERS" -c "$COUNT" -m "$mode" -t "$FTOL" \
		>"$RUN_LOG" 2>&1
	echo "# $name: mpirun exited $? after $((SECONDS - t0)) s"
	RUN_DELTA=$(counters_delta "$(job_counters "$tb" "$job")" "$c0")
}

suite() {
	local n=$1 bits=$2 job=$3 tb sw vars

	tb=$(tb_name "mpi$n")
	# float tolerance per rank: at least twice the protocol's bound for
	# |x| < 1 (half a step per rank, step at most 2^(1 - (bits - 1)))
	FTOL=$(awk -v b="$bits" 'BEGIN { printf "%.10g", 2 ^ -(b - 2) }')
	sw="OPTINC_SWITCH=10.77.0.254:$SW_PORT OPTINC_JOB=$job OPTINC_BITS=$bits"
	vars="LD_PRELOAD=$SHIM $sw OPTINC_MPI_VERBOSE=1"
	ok_if "N=$n: testbed with job $job (bits $bits) up" \
		tb_up "$tb" -n "$n" --job "id=$job,size=$n,bits=$bits"

	run_one "$tb" "$n" "$job" shim "$vars" world
	ok_if "N=$n bits=$bits: MPI program with the shim: every rank correct" \
		ranks_pass "$RUN_LOG" "$n"
	ok_if "N=$n bits=$bits: the shim took every float/int SUM on the world" \
		shim_calls_ok "$RUN_LOG" "$n" $((4 * ITERS)) 0
	ok_if "N=$n bits=$bits: the job's switch counters grew by the calls' traffic" \
		switch_ok "$RUN_DELTA" "$RUN_LOG" "$n" "$bits"

	run_one "$tb" "$n" "$job" other "$vars" other
	ok_if "N=$n: other types, ops, communicators with the shim: correct" \
		ranks_pass "$RUN_LOG" "$n"
	ok_if "N=$n: the shim left them all to MPI" \
		shim_calls_ok "$RUN_LOG" "$n" 0 $((3 * ITERS))
	ok_if "N=$n: ... and the switch aggregated nothing" \
		switch_idle_ok "$RUN_DELTA" "$(awk '/^optinc_mpi: rank/ { s += $11 } END { print s + 0 }' "$RUN_LOG")"

	run_one "$tb" "$n" "$job" plain "$sw" world
	ok_if "N=$n: the same program without the shim: correct" \
		ranks_pass "$RUN_LOG" "$n"
	ok_if "N=$n: ... and the switch saw none of it" switch_idle_ok "$RUN_DELTA" 0

	run_one "$tb" "$n" "$job" noswitch "LD_PRELOAD=$SHIM OPTINC_MPI_VERBOSE=1" world
	ok_if "N=$n: with the shim but no OPTINC_SWITCH: correct on plain MPI" \
		ranks_pass "$RUN_LOG" "$n"
	ok_if "N=$n: ... and the switch saw none of it" switch_idle_ok "$RUN_DELTA" 0
	tb_down "$tb"
}

if [ ! -x "$PROG" ] || [ ! -f "$SHIM" ] || ! command -v mpirun >/dev/null; then
	tap_plan 1
	ok_if "$PROG, $SHIM and mpirun (openmpi-bin) are there" false
	tap_end
fi
# per suite: the testbed, then 3 + 3 + 2 + 2 checks of four runs
tap_plan 22
suite 4 8 1
suite 3 16 7
tap_end
