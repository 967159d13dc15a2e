#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# overlap-bench.sh: optinc-overlap-bench on an N-server testbed (root), R
# rounds; prints each round's lines (rank 0), then the median, smallest
# and largest overlap ratio of each mode and the machine's load.
set -u

ROOT=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
TESTBED=$ROOT/tools/testbed/optinc-testbed
O=${O:-build}
case $O in
/*) ;;
*) O=$ROOT/$O ;;
esac
export O
BENCH=$O/bin/optinc-overlap-bench
N=4 ROUNDS=3 TB=nbov$(($$ % 10000))

usage() {
	cat <<EOF
usage: overlap-bench.sh [-N SERVERS] [-R ROUNDS] [--tb NAME] [-- BENCH-ARGS...]
  -N      servers (default $N)
  -R      rounds (default $ROUNDS)
  BENCH-ARGS go to optinc-overlap-bench (default: -b 16M -k 4 -n 9)
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	-N) N=$2; shift 2 ;;
	-R) ROUNDS=$2; shift 2 ;;
	--tb) TB=$2; shift 2 ;;
	--) shift; break ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[ $# -gt 0 ] || set -- -b 16M -k 4 -n 9
[ "$(id -u)" = 0 ] || { echo "overlap-bench.sh: needs root (testbed)" >&2; exit 1; }
[ -x "$BENCH" ] || { echo "overlap-bench.sh: build $BENCH first (make)" >&2; exit 1; }

TMP=$(mktemp -d)
trap '"$TESTBED" down --tb "$TB" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
"$TESTBED" up --tb "$TB" -n "$N" >/dev/null || exit 1
echo "# load before: $(uptime)"
echo "# $BENCH $* (N = $N, $ROUNDS rounds)"
for ((r = 1; r <= ROUNDS; r++)); do
	"$TESTBED" run --tb "$TB" -q -t 300 "$BENCH" "$@" >"$TMP/$r" 2>&1 ||
		{ cat "$TMP/$r"; exit 1; }
	sed "s/^/round $r: /" "$TMP/$r"
done
echo "# load after: $(uptime)"
# median, smallest and largest ratio of each mode over the rounds
for mode in sleep spin; do
	grep -h "^$mode " "$TMP"/* | sed 's/.*overlap ratio \([0-9.]*\).*/\1/' | sort -n |
		awk -v m="$mode" '{ v[NR] = $1 }
		END { if (NR) printf "%s: overlap ratio, medians of the rounds: median %.3f, min %.3f, max %.3f over %d rounds\n",
			m, v[int((NR + 1) / 2)], v[1], v[NR], NR }'
done
