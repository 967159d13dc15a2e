#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# afxdp_bench.sh: the same all-reduce sizes over the afxdp and the udp
# transport on one testbed with optincd (N ranks), rounds alternating
# between the two; prints a Markdown table of median times and the ratio.
# A benchmark, not a test: run by hand (root), see Documentation/xdp.md.
#   afxdp_bench.sh [-n N] [-r ROUNDS] [-b MIN] [-e MAX] [-i ITERS]
. "$(dirname "$0")/lib.sh"

require_root
require_xdp_tools
N=4 ROUNDS=3 MINB=4K MAXB=64M ITERS=10
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

tb_up "$TB" -n "$N" >&2 || exit 1
for ((r = 0; r < N; r++)); do
	"$TESTBED" exec --tb "$TB" "$r" "$XDPCTL" xdp attach eth0 || exit 1
done

# One run: "size time_us" lines of rank 0 into $T_TMP/TRANSPORT.ROUND.
# A failed run (a busy machine can make a call time out) is tried again once.
bench_run() {
	local t=$1 round=$2 dir=$T_TMP/$1-$2 try

	for try in 1 2; do
		# shellcheck disable=SC2016
		OPTINC_TRANSPORT=$t "$TESTBED" run --tb "$TB" -t 600 -o "$dir" \
			bash -c 'TIMEFORMAT="cpu %3U %3S"; time "$0" "$@"' \
			"$BENCH" -b "$MINB" -e "$MAXB" -f 4 -n "$ITERS" -w 1 -T 5 \
			>"$dir.out" 2>&1 && break
		echo "afxdp_bench.sh: $t run $round failed (try $try):" >&2
		grep -v '^\[0\] ' "$dir.out" | tail -n 8 >&2
		[ $try = 2 ] && return 1
	done
	if grep -q "using the udp transport" "$dir"/rank*.log; then
		echo "afxdp_bench.sh: a rank fell back to udp" >&2
		return 1
	fi
	awk '/^ *[0-9]/ { print $1, $3 }' "$dir/rank0.log" >"$T_TMP/$t.$round"
	awk '/^cpu / { s += $2 + $3 } END { print s }' "$dir"/rank*.log >>"$T_TMP/$t.cpu"
}

for ((i = 0; i < ROUNDS; i++)); do
	bench_run afxdp "$i" && bench_run udp "$i" || exit 1
done

# Median over the rounds of each size's time.
median() {
	cat "$T_TMP/$1".* | awk -v s="$2" '$1 == s { print $2 }' | sort -g |
		awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "| size (B) | afxdp time (us) | udp time (us) | udp / afxdp |"
echo "|---:|---:|---:|---:|"
for s in $(awk '{ print $1 }' "$T_TMP/afxdp.0"); do
	a=$(median afxdp "$s")
	u=$(median udp "$s")
	awk -v s="$s" -v a="$a" -v u="$u" \
		'BEGIN { printf "| %d | %.1f | %.1f | %.2f |\n", s, a, u, u / a }'
done
echo
echo "N = $N, $ROUNDS rounds each (medians), $ITERS timed calls per size, float32 avg, 8 bits."
echo "CPU time of the $N ranks for a whole run (all sizes, user + system, median):" \
	"afxdp $(sort -g "$T_TMP/afxdp.cpu" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }') s," \
	"udp $(sort -g "$T_TMP/udp.cpu" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }') s."
