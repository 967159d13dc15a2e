#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# afxdp_bench.sh: the same all-reduce sizes over the afxdp and the udp
# transport on one testbed with optincd (N ranks). Runs are interleaved size
# by size (afxdp udp, then udp afxdp, ...), so that each afxdp run has a udp
# run next to it under the same machine load; prints per size the median and
# spread (min..max) of both times and of the paired ratios udp / afxdp.
# A benchmark, not a test: run by hand (root), see Documentation/xdp.md.
#   afxdp_bench.sh [-n N] [-r ROUNDS] [-b MIN] [-e MAX] [-i ITERS]
. "$(dirname "$0")/lib.sh"

require_root
require_xdp_tools
N=4 ROUNDS=5 MINB=4K MAXB=64M ITERS=10
while getopts "n:r:b:e:i:" c; do
	case $c in
	n) N=$OPTARG ;;
	r) ROUNDS=$OPTARG ;;
	b) MINB=$OPTARG ;;
	e) MAXB=$OPTARG ;;
	i) ITERS=$OPTARG ;;
	*) echo "usage: afxdp_bench.sh [-n N] [-r ROUNDS] [-b MIN] [-e MAX] [-i ITERS]" >&2
	   exit 2 ;;
	esac
done
BENCH=$O/bin/optinc-bench
TB=$(tb_name xbench)
T_TMP=$(mktemp -d)
[ -x "$BENCH" ] || { echo "afxdp_bench.sh: $BENCH not built" >&2; exit 1; }

# bytes SIZE: 4K, 64M, 4096 -> bytes
bytes() {
	awk -v s="$1" 'BEGIN { m = 1; u = toupper(substr(s, length(s)))
		if (u == "K") m = 1024; else if (u == "M") m = 1048576; else if (u == "G") m = 1073741824
		if (m > 1) s = substr(s, 1, length(s) - 1); printf "%d\n", s * m }'
}

tb_up "$TB" -n "$N" >&2 || exit 1
for ((r = 0; r < N; r++)); do
	"$TESTBED" exec --tb "$TB" "$r" "$XDPCTL" xdp attach eth0 || exit 1
done

# bench_run TRANSPORT SIZE ROUND: one run of one size; "time_us" of rank 0
# appended to $T_TMP/TRANSPORT.SIZE. A failed run (a busy machine can make
# a call time out) is tried again once.
bench_run() {
	local t=$1 s=$2 dir=$T_TMP/run-$1-$2-$3 try

	for try in 1 2; do
		OPTINC_TRANSPORT=$t "$TESTBED" run --tb "$TB" -t 600 -o "$dir" \
			"$BENCH" -b "$s" -e "$s" -f 4 -n "$ITERS" -w 1 -T 5 \
			>"$dir.out" 2>&1 && break
		echo "afxdp_bench.sh: $t size $s round $3 failed (try $try):" >&2
		grep -v '^\[0\] ' "$dir.out" | tail -n 8 >&2
		[ $try = 2 ] && return 1
	done
	if grep -q "using the udp transport" "$dir"/rank*.log; then
		echo "afxdp_bench.sh: a rank fell back to udp" >&2
		return 1
	fi
	awk -v s="$s" '/^ *[0-9]/ && $1 == s { print $3 }' "$dir/rank0.log" >>"$T_TMP/$t.$s"
	rm -rf "$dir" "$dir.out"
}

SIZES=""
for ((s = $(bytes "$MINB"); s <= $(bytes "$MAXB"); s *= 4)); do
	SIZES="$SIZES $s"
done
start=$SECONDS
for ((i = 0; i < ROUNDS; i++)); do
	for s in $SIZES; do
		if ((i % 2 == 0)); then
			bench_run afxdp "$s" "$i" && bench_run udp "$s" "$i" || exit 1
		else
			bench_run udp "$s" "$i" && bench_run afxdp "$s" "$i" || exit 1
		fi
	done
done

# stats FILE: "median min max" of the numbers in FILE, one a line.
stats() {
	sort -g "$1" | awk '{ v[NR] = $1 } END {
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		print m, v[1], v[NR] }'
}

echo "| size (B) | afxdp us median (min..max) | udp us median (min..max) | udp / afxdp paired median (min..max) |"
echo "|---:|---:|---:|---:|"
for s in $SIZES; do
	paste "$T_TMP/afxdp.$s" "$T_TMP/udp.$s" | awk '{ print $2 / $1 }' >"$T_TMP/ratio.$s"
	paste "$T_TMP/afxdp.$s" "$T_TMP/udp.$s" | awk '{ print log($2 / $1) }' >>"$T_TMP/logratio"
	read -r am amin amax < <(stats "$T_TMP/afxdp.$s")
	read -r um umin umax < <(stats "$T_TMP/udp.$s")
	read -r rm rmin rmax < <(stats "$T_TMP/ratio.$s")
	printf "| %d | %.0f (%.0f..%.0f) | %.0f (%.0f..%.0f) | %.2f (%.2f..%.2f) |\n" \
		"$s" "$am" "$amin" "$amax" "$um" "$umin" "$umax" "$rm" "$rmin" "$rmax"
done
echo
awk '{ s += $1 } END { printf "Geometric mean of all paired ratios udp / afxdp: %.2f (%d pairs)\n", exp(s / NR), NR }' \
	"$T_TMP/logratio"
echo "N = $N, $ROUNDS interleaved rounds (order alternating), $ITERS timed calls per run," \
	"float32 avg, 8 bits; $((SECONDS - start)) s; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
