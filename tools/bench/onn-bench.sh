#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# onn-bench.sh: switch throughput in onn mode against exact mode on the same
# testbed run. One optincd serves job 1 (exact) and job 2 (onn, a truth
# table for N); every size is all-reduced through both jobs, alternating
# in rounds so that a change in the machine's load hits both alike, and
# the best time of each is compared. Prints a table with onn/exact.
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

N=4
TABLE=$ROOT/models/onn-n4.tbl
MINB=64K MAXB=16M FACTOR=4 ITERS=10 ROUNDS=3 TLIMIT=2
TB=onnb$(($$ % 10000))
LIMIT=600
tmp=

usage() {
	cat <<EOF
usage: onn-bench.sh [-N N] [-t TABLE] [-b MIN] [-e MAX] [-f FACTOR]
                    [-n ITERS] [-r ROUNDS] [-T SECS] [--tb NAME]
  -N      ranks (default $N); -t a truth table for N (default models/onn-n4.tbl)
  -b -e -f sizes from MIN to MAX bytes by FACTOR (default $MINB $MAXB $FACTOR)
  -n      timed iterations per size and round (default $ITERS)
  -r      rounds of exact then onn (default $ROUNDS); the best time counts
  -T      stop a size's iterations after SECS (default $TLIMIT)
EOF
}

die() {
	echo "onn-bench.sh: $*" >&2
	exit 1
}

# bench_job JOB: rank 0's rows "bytes time(us)" of one pass over the sizes.
bench_job() {
	"$TESTBED" run --tb "$TB" -q -t "$LIMIT" env OPTINC_JOB="$1" \
		"$BENCH" -a optinc -b "$MINB" -e "$MAXB" -f "$FACTOR" \
		-n "$ITERS" -w 1 -T "$TLIMIT" | awk '!/^#/ && NF >= 3 { print $1, $3 }'
	[ "${PIPESTATUS[0]}" -eq 0 ]
}

# best FILE: per size, the smallest time over the rounds.
best() {
	awk '{ if (!($1 in t) || $2 < t[$1]) t[$1] = $2 }
	     END { for (s in t) print s, t[s] }' "$1" | sort -n
}

report() {
	local ex=$1 onn=$2

	echo "# onn-bench: N=$N, table $(basename "$TABLE"), float32 avg, bits 8, best of $ROUNDS rounds x $ITERS iterations"
	printf '# %12s %12s %12s %10s %10s %9s\n' "size(B)" "exact(us)" "onn(us)" \
		"exact GB/s" "onn GB/s" "onn/exact"
	join <(best "$ex") <(best "$onn") | awk '{
		printf "  %12d %12.1f %12.1f %10.4f %10.4f %9.3f\n", $1, $2, $3,
		       $1 / $2 / 1e3, $1 / $3 / 1e3, $2 / $3 }'
}

main() {
	local r

	while [ $# -gt 0 ]; do
		case $1 in
		-N) N=$2; shift 2 ;;
		-t) TABLE=$2; shift 2 ;;
		-b) MINB=$2; shift 2 ;;
		-e) MAXB=$2; shift 2 ;;
		-f) FACTOR=$2; shift 2 ;;
		-n) ITERS=$2; shift 2 ;;
		-r) ROUNDS=$2; shift 2 ;;
		-T) TLIMIT=$2; shift 2 ;;
		--tb) TB=$2; shift 2 ;;
		-h | --help) usage; exit 0 ;;
		*) usage >&2; exit 2 ;;
		esac
	done
	[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
	[ -x "$BENCH" ] || die "$BENCH not built (make)"
	[ -r "$TABLE" ] || die "no table $TABLE"
	tmp=$(mktemp -d)
	trap '"$TESTBED" down --tb "$TB" >/dev/null 2>&1; rm -rf "${tmp:-}"' EXIT
	"$TESTBED" up --tb "$TB" -n "$N" --job "id=1,size=$N" \
		--job "id=2,size=$N,table=$TABLE" >/dev/null || die "testbed up failed"
	for ((r = 1; r <= ROUNDS; r++)); do
		bench_job 1 >>"$tmp/exact" || die "exact job: optinc-bench failed"
		bench_job 2 >>"$tmp/onn" || die "onn job: optinc-bench failed"
	done
	report "$tmp/exact" "$tmp/onn"
}

main "$@"
