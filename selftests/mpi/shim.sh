#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# liboptinc_mpi.so preloaded into a plain MPI program (mpi_shim.c) under
# mpirun on this host, N = 3 ranks against the loopback test switch
# (selftests/lib/test_switch): every result right, and the shim's counts
# show which calls went through the switch and which were left to MPI, by
# default and under OPTINC_MPI_TYPES / OPTINC_MPI_COMMS. No root.
# MPI_Iallreduce goes through liboptinc's optinc_iallreduce (MPI_Wait,
# MPI_Test, MPI_Waitall beside Isend/Irecv, Waitany, Waitsome,
# Request_get_status). TAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
O=${O:-build}
case $O in /*) ;; *) O=$top/$O ;; esac
PROG=$O/selftests/mpi/mpi_shim
SHIM=$O/lib/liboptinc_mpi.so
SWITCH=$O/selftests/lib/test_switch
N=3 ITERS=3 COUNT=10000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$here/../tap.sh"

# ok_shown NAME COMMAND...: ok_if, with the command's output after the line
ok_shown() {
	local name=$1 st

	shift
	"$@" >"$tmp/out" 2>&1
	st=$?
	tap_result $st "$name"
	tap_diag <"$tmp/out"
}

# run NAME MODE VAR=VALUE...: one mpirun with the shim, against a fresh
# switch (stopped by closing its input); the log is $tmp/NAME.log, the
# switch's port and counters $tmp/NAME.sw.
run() {
	local name=$1 mode=$2 port= xs=() v pid fd i

	shift 2
	for v in OPTINC_MPI_VERBOSE=1 "$@"; do
		xs+=(-x "$v")
	done
	rm -f "$tmp/sw.in"
	mkfifo "$tmp/sw.in"
	"$SWITCH" -n "$N" <"$tmp/sw.in" >"$tmp/$name.sw" &
	pid=$!
	exec {fd}>"$tmp/sw.in"
	for ((i = 0; i < 100; i++)); do
		port=$(sed -n 's/^port //p' "$tmp/$name.sw")
		[ -n "$port" ] && break
		sleep 0.05
	done
	timeout -k 5 120 mpirun --allow-run-as-root --oversubscribe --bind-to none \
		-np "$N" --mca btl self,vader --mca btl_vader_single_copy_mechanism none \
		-x OPTINC_SWITCH="127.0.0.1:${port:-9}" "${xs[@]}" \
		"$PROG" -m "$mode" -n "$ITERS" -c "$COUNT" >"$tmp/$name.log" 2>&1
	echo "mpirun exit $?" >>"$tmp/$name.log"
	exec {fd}>&-
	wait "$pid"
}

# Every rank printed PASS; the shim's and the program's complaints shown.
ranks_pass() {
	grep -h -E "FAIL|[1-9][0-9]* wrong|optinc_mpi: rank [0-9]+: (cannot|MPI_I?allreduce|OPTINC)|left to MPI|mpirun exit" "$tmp/$1.log"
	[ "$(grep -c "^rank [0-9]* of $N: .*: PASS$" "$tmp/$1.log")" -eq "$N" ]
}

# Every rank's shim counted @2 and @3 blocking calls through optinc and
# left to MPI, @4 and @5 MPI_Iallreduce calls; with optinc calls, the
# switch completed slots, else none.
counts_are() {
	local name=$1 want="calls $2 optinc $3 mpi" iwant="icalls $4 optinc $5 mpi" got c

	got=$(grep -c "^optinc_mpi: rank [0-9]*: $want;.*; $iwant$" "$tmp/$name.log")
	grep -h "^optinc_mpi: rank 0: calls" "$tmp/$name.log"
	grep -h "^optinc_mpi: through" "$tmp/$name.log"
	c=$(sw_count "$name" complete)
	echo "want on every rank: $want; $iwant; switch: $(sed -n 2p "$tmp/$name.sw")"
	[ "$got" -eq "$N" ] || return 1
	if [ $(($2 + $4)) -gt 0 ]; then [ "${c:-0}" -gt 0 ]; else [ "${c:-1}" -eq 0 ]; fi
}

sw_count() {	# sw_count NAME COUNTER: the switch's counter after the run
	sed -n "s/.* $2 \([0-9]*\).*/\1/p; s/^$2 \([0-9]*\).*/\1/p" "$tmp/$1.sw" | head -1
}

setup_says() {	# the shim's setup line (rank 0) contains @2
	grep -h "^optinc_mpi: " "$tmp/$1.log" | grep -v "rank [0-9]*: calls"
	grep -q "^optinc_mpi: $2" "$tmp/$1.log"
}

if [ ! -x "$PROG" ] || [ ! -f "$SHIM" ] || [ ! -x "$SWITCH" ] || ! command -v mpirun >/dev/null; then
	tap_plan 1
	tap_fail "$PROG, $SHIM, $SWITCH and mpirun (openmpi-bin) are there"
	tap_end
fi
tap_plan 16
I=$((ITERS))

run default blocking LD_PRELOAD="$SHIM"
ok_shown "blocking calls with the shim: every rank right" ranks_pass default
ok_shown "default: float SUM, int SUM, in place, on a dup through the switch; double SUM, float MAX, a split communicator left to MPI (exact)" \
	counts_are default $((4 * I)) $((3 * I)) 0 0
ok_shown "default pairs: float:sum int:sum, no double, no float:max or float:min" \
	eval 'setup_says default "through the optinc switch on MPI_COMM_WORLD and congruent communicators: float:sum int:sum[ ;]" &&
	      ! grep "^optinc_mpi: through" "$tmp/default.log" | grep -q "double\|float:m"'

run world blocking LD_PRELOAD="$SHIM" OPTINC_MPI_COMMS=world
ok_shown "OPTINC_MPI_COMMS=world: right, and the dup's call left to MPI" \
	eval 'ranks_pass world && counts_are world $((3 * I)) $((4 * I)) 0 0'

run badtypes blocking LD_PRELOAD="$SHIM" OPTINC_MPI_TYPES=float,float:prod
ok_shown "OPTINC_MPI_TYPES=float,float:prod: named as not valid, every rank leaves everything to MPI, right" \
	eval 'ranks_pass badtypes; grep -q "OPTINC_MPI_TYPES=float,float:prod: \"float:prod\" is not default, TYPE or TYPE:OP" "$tmp/badtypes.log" &&
	      grep -q "left to MPI (a rank could not join the switch or has other settings)" "$tmp/badtypes.log" &&
	      [ "$(grep -c "^rank .*PASS$" "$tmp/badtypes.log")" -eq $N ] && [ "$(sw_count badtypes complete)" -eq 0 ]'

run badcomms blocking LD_PRELOAD="$SHIM" OPTINC_MPI_COMMS=all
ok_shown "OPTINC_MPI_COMMS=all: named as not valid, everything left to MPI, right" \
	eval 'ranks_pass badcomms; grep -q "OPTINC_MPI_COMMS=all: must be world or congruent" "$tmp/badcomms.log" &&
	      [ "$(grep -c "^rank .*PASS$" "$tmp/badcomms.log")" -eq $N ]'

if grep -rqs "define MPIX_C_FLOAT16" $(mpicc -showme:incdirs 2>/dev/null); then
	tap_skip "OPTINC_MPI_TYPES=float16 with an MPI without a half-precision type" \
		"this MPI has MPIX_C_FLOAT16: float16 is served where liboptinc serves it"
else
	run f16 blocking LD_PRELOAD="$SHIM" OPTINC_MPI_TYPES=float16,float:sum
	ok_shown "OPTINC_MPI_TYPES=float16 with an MPI without a half-precision type (MPIX_C_FLOAT16): said so, float16 not taken" \
		eval 'ranks_pass f16; grep -q "float16:sum left to MPI: this MPI has no such datatype" "$tmp/f16.log" &&
		      setup_says f16 "through the optinc switch on .*: float:sum;"'
fi

run plain blocking
ok_shown "the same program without the shim: right" ranks_pass plain
ok_shown "... and the switch saw nothing" \
	eval 'sed -n 2p "$tmp/plain.sw"; [ "$(sw_count plain rx)" -eq 0 ]'

run noswitch_minmax minmax LD_PRELOAD="$SHIM" OPTINC_MPI=0
ok_shown "OPTINC_MPI=0: int MAX/MIN right on MPI, the switch saw no data" \
	eval 'ranks_pass noswitch_minmax && [ "$(sw_count noswitch_minmax complete)" -eq 0 ]'

# ---- MAX/MIN, FLOAT64 and optinc_iallreduce through the switch
run minmax minmax LD_PRELOAD="$SHIM"
ok_shown "int MAX and MIN with the shim: right" ranks_pass minmax
ok_shown "int MAX and MIN (exact) through the switch by default" \
	counts_are minmax $((2 * I)) 0 0 0

run nonblock nonblock LD_PRELOAD="$SHIM"
ok_shown "MPI_Iallreduce with the shim: right" ranks_pass nonblock
ok_shown "MPI_Iallreduce through optinc_iallreduce: MPI_Wait, MPI_Test, MPI_Waitall beside Isend/Irecv, Waitany, Waitsome, Request_get_status;: 7 of 8 calls per iteration through the switch" \
	eval 'setup_says nonblock "through .*; MPI_Iallreduce too" && counts_are nonblock 0 0 $((7 * I)) $((1 * I))'

run types types LD_PRELOAD="$SHIM" OPTINC_MPI_TYPES=float,double,int
ok_shown "OPTINC_MPI_TYPES=float,double,int: double SUM/MAX/MIN, float MAX/MIN, double Iallreduce right (quantized bounds)" \
	ranks_pass types
ok_shown "... all of them through the switch" \
	eval 'setup_says types "through .*: float:sum float:max float:min double:sum double:max double:min .*int:sum int:max int:min;" &&
	      counts_are types $((5 * I)) 0 $((1 * I)) 0'

tap_end
