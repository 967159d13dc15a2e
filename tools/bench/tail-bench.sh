#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tail-bench.sh: call time under loss, p50 and p99 over every rank's calls
# (optinc-bench -P), float32 AVG through optincd on the testbed, with
# nftables dropping a share of the frames each way on every server's eth0
# (optinc-testbed impair). With -B DIR, every case runs twice in a row:
# with the liboptinc of build directory DIR (an older tree, e.g. a
# build of main, through LD_LIBRARY_PATH; the same optinc-bench and
# optincd) and with this tree's, DIR's first in the 1st, 3rd, ... case,
# this tree's first in the others. Prints a Markdown table; its last
# column, what optincd refused as a duplicate or answered again per 100
# slots of the run (the exchange of the times included), is the price of
# the retransmissions.
set -u

ROOT=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
TESTBED=$ROOT/tools/testbed/optinc-testbed
O=${O:-build}
case $O in
/*) ;;
*) O=$ROOT/$O ;;
esac
export O
BENCH=$O/bin/optinc-bench

SIZES="4 8"
BYTES="1M 16M"
LOSSES="0 1 5"
ITERS="200 40"
WARMUP=3
TLIMIT=60
BASE=
OUT=-
TB=tlb$$
LIMIT=900

usage() {
	cat <<EOF
usage: tail-bench.sh [-N 'SIZES'] [-s 'BYTES'] [-l 'LOSSES'] [-n ITERS]
                     [-w WARMUP] [-T SECS] [-B DIR] [-o FILE] [--tb NAME]
  -N  numbers of ranks (default "$SIZES")
  -s  call sizes in bytes, K/M suffixes (default "$BYTES")
  -l  loss in percent, each way, on every server's link (default "$LOSSES")
  -n  timed calls per case, one number per size of -s (the last one
      for the sizes after; default "$ITERS"); -w warm-up calls ($WARMUP)
  -T  stop a case's timed calls after SECS (default $TLIMIT)
  -B  build directory of the tree to compare with ("before"): its
      lib/liboptinc.so.0 runs the same cases beside this tree's (order alternating)
  -o  also write the table to FILE
EOF
}

die() {
	echo "tail-bench.sh: $*" >&2
	exit 1
}

while [ $# -gt 0 ]; do
	case $1 in
	-N) SIZES=$2; shift 2 ;;
	-s) BYTES=$2; shift 2 ;;
	-l) LOSSES=$2; shift 2 ;;
	-n) ITERS=$2; shift 2 ;;
	-w) WARMUP=$2; shift 2 ;;
	-T) TLIMIT=$2; shift 2 ;;
	-B) BASE=$(cd "$2" 2>/dev/null && pwd) || die "-B $2: no such directory"
	    shift 2 ;;
	-o) OUT=$2; shift 2 ;;
	--tb) TB=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
read -ra ITERA <<<"$ITERS"
[ ${#ITERA[@]} -gt 0 ] || die "-n: no number"
[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
[ -x "$BENCH" ] || die "$BENCH is not built (make)"
command -v nft >/dev/null || die "needs nft (Debian's nftables)"
[ -z "$BASE" ] || [ -e "$BASE/lib/liboptinc.so.0" ] ||
	die "-B $BASE: no lib/liboptinc.so.0 there"

cleanup() {
	"$TESTBED" down --tb "$TB" >/dev/null 2>&1
	[ -n "${TMP:-}" ] && rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
TMP=$(mktemp -d /tmp/optinc-tail.XXXXXX)

# loss N PCT: PCT % each way on every server's eth0 (0: none).
loss() {
	local i

	for ((i = 0; i < $1; i++)); do
		"$TESTBED" exec --tb "$TB" "$i" nft delete table netdev optinc_impair \
			>/dev/null 2>&1
		[ "$2" = 0 ] && continue
		"$TESTBED" impair --tb "$TB" "$i" --loss "$2" || return 1
	done
}

# optincd's counters of job 1: "duplicate resends slots_completed".
sw_counts() {
	"$TESTBED" tel --tb "$TB" /optinc/job,1 | python3 -c 'import json, sys
j = json.loads(sys.stdin.readline())["/optinc/job"]
print(j["drops"]["duplicate"], j["resends"], j["slots_completed"])'
}

# run LIBDIR BYTES ITERS: "mean p50 p99 max" in ms and the frames the switch
# refused as duplicates or answered again per 100 slots, or "fail";
# LIBDIR empty: this tree.
run() {
	local lib=$1 b=$2 iters=$3 line
	local -a c0 c1

	read -ra c0 < <(sw_counts)
	line=$(LD_LIBRARY_PATH=$lib "$TESTBED" run --tb "$TB" -q -t "$LIMIT" \
		"$BENCH" -P -b "$b" -e "$b" -n "$iters" -w "$WARMUP" -T "$TLIMIT" \
		2>>"$TMP/err" | grep -v '^#' | tail -n 1)
	read -ra c1 < <(sw_counts)
	echo "$line" >>"$TMP/rows"
	# size count time algbw busbw sent sent/S max|err| err/bound same p50 p99 max
	echo "$line" | awk -v d=$((c1[0] + c1[1] - c0[0] - c0[1])) \
		-v s=$((c1[2] - c0[2])) 'NF >= 13 && $13 + 0 > 0 {
		printf "%.1f %.1f %.1f %.1f %.1f\n", $3 / 1e3, $11 / 1e3, $12 / 1e3,
			$13 / 1e3, 100 * d / (s ? s : 1); ok = 1 }
		END { if (!ok) print "fail" }'
}

cell() {	# before after column: "b -> a"
	local b=$1 a=$2

	[ -n "$b" ] && echo "$b -> $a" || echo "$a"
}

{
	echo "tail-bench.sh on $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) CPUs, load average at the start $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "optinc-bench -P: float32 avg, bits 8; timed calls per case (at most ${TLIMIT} s) for sizes $BYTES: $ITERS, after $WARMUP warm-up; times over every rank's calls"
	[ -n "$BASE" ] && echo "before: liboptinc of $BASE; after: $O (same optinc-bench, same optincd)"
	echo
	if [ -n "$BASE" ]; then
		echo "| N | size | loss each way | p50 (ms) before -> after | p99 (ms) before -> after | max (ms) before -> after | mean (ms) before -> after | switch: duplicates + re-sent results per 100 slots |"
	else
		echo "| N | size | loss each way | p50 (ms) | p99 (ms) | max (ms) | mean (ms) | switch: duplicates + re-sent results per 100 slots |"
	fi
	echo "|---|---|---|---|---|---|---|---|"
} | tee "$TMP/table"
ncase=0
for n in $SIZES; do
	"$TESTBED" down --tb "$TB" >/dev/null 2>&1
	"$TESTBED" up --tb "$TB" -n "$n" --job "id=1,size=$n,bits=8" >"$TMP/up" 2>&1 ||
		{ cat "$TMP/up" >&2; die "testbed of $n servers did not come up"; }
	for l in $LOSSES; do
		loss "$n" "$l" || die "cannot set $l % loss"
		k=0
		for b in $BYTES; do
			it=${ITERA[k]:-${ITERA[${#ITERA[@]} - 1]}}
			k=$((k + 1))
			bf=()
			# every other case runs "after" first: the load of shared
			# cores drifts within a minute, and a fixed order counts
			# that drift against one side (reliability.md, "No loss")
			if [ -n "$BASE" ] && [ $((ncase % 2)) = 0 ]; then
				read -ra bf < <(run "$BASE/lib" "$b" "$it")
				read -ra af < <(run "" "$b" "$it")
			else
				read -ra af < <(run "" "$b" "$it")
				[ -n "$BASE" ] && read -ra bf < <(run "$BASE/lib" "$b" "$it")
			fi
			ncase=$((ncase + 1))
			[ "${af[0]}" = fail ] || { [ -n "$BASE" ] && [ "${bf[0]}" = fail ]; } &&
				{ cat "$TMP/err" >&2; die "N $n, $b, $l %: a run failed"; }
			echo "| $n | $b | $l % | $(cell "${bf[1]:-}" "${af[1]}") | $(cell "${bf[2]:-}" "${af[2]}") | $(cell "${bf[3]:-}" "${af[3]}") | $(cell "${bf[0]:-}" "${af[0]}") | $(cell "${bf[4]:-}" "${af[4]}") |" |
				tee -a "$TMP/table"
		done
	done
	loss "$n" 0
done
echo
echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$TMP/table"
[ "$OUT" = - ] || cp "$TMP/table" "$OUT"
