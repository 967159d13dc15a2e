#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# line-ab.sh: two optincd builds against each other in alternating pairs.
# Each round runs tools/bench/line-bench.sh once (-R 1) with OPTINCD=OLD
# and once with OPTINCD=NEW, the order swapped every round so that a drift
# in the machine's load falls on both; every run has its own testpmd and
# exact runs, so that onn/exact and exact/testpmd are ratios of one run.
# Prints, per N and mode, the medians (min-max) over rounds of frames/s
# and cycles per frame of each build, the per-round ratio new/old, and
# both builds' onn/exact and exact/testpmd.
set -u

ROOT=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
SIZES="2 4 8 16" MODES="testpmd exact onn" ROUNDS=3 ARGS=
OLD=${OLD:-} NEW=${NEW:-$ROOT/${O:-build}/bin/optincd}

usage() {
	cat <<EOF
usage: OLD=optincd NEW=optincd line-ab.sh [-N 'SIZES'] [-m 'MODES'] [-R ROUNDS]
                                          [-a 'LINE-BENCH ARGS']
  -N, -m as line-bench.sh's (default "$SIZES", "$MODES"); -R pairs of runs
  (default $ROUNDS); -a more line-bench.sh options. NEW defaults to this
  tree's build.
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	-N) SIZES=$2; shift ;;
	-m) MODES=$2; shift ;;
	-R) ROUNDS=$2; shift ;;
	-a) ARGS=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done
[ -x "$OLD" ] && [ -x "$NEW" ] || { usage >&2; echo "line-ab.sh: OLD and NEW must be optincd binaries" >&2; exit 2; }

TMP=$(mktemp -d /tmp/line-ab.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
echo "# line-ab.sh: OLD=$OLD NEW=$NEW, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
fail=0
for ((r = 1; r <= ROUNDS; r++)); do
	order="old new"
	[ $((r % 2)) = 0 ] && order="new old"
	for b in $order; do
		bin=$OLD
		[ $b = new ] && bin=$NEW
		# line-bench.sh's per-run lines go to stderr: keep those
		OPTINCD=$bin "$ROOT/tools/bench/line-bench.sh" -N "$SIZES" \
			-m "$MODES" -R 1 -o - $ARGS >/dev/null 2>"$TMP/$b.$r" || fail=1
		echo "# round $r $b done, load $(cut -d' ' -f1-3 /proc/loadavg)"
	done
done
/usr/bin/python3 - "$TMP" "$ROUNDS" "$SIZES" "$MODES" <<'EOF'
import re, statistics, sys
tmp, rounds, sizes, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
line = re.compile(r"^N=(\d+) round \d+ (\w+)@\d+: (.*)$")
runs = {}
for b in ("old", "new"):
    for r in range(1, rounds + 1):
        for l in open("%s/%s.%d" % (tmp, b, r)):
            m = line.match(l)
            if m and "frames_per_s=" in m.group(3):
                kv = dict((k, float(v)) for k, v in re.findall(r"(\w+)=([-0-9.e+]+)", m.group(3)))
                runs[(b, r, m.group(1), m.group(2))] = kv

def med(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    m = statistics.median(xs)
    f = "%.3g" if m < 1000 else "%.0f"
    return (f + " (" + f + "-" + f + ")") % (m, min(xs), max(xs))

def get(b, r, n, mode, key):
    return runs.get((b, r, n, mode), {}).get(key)

def ratio(x, y):
    return x / y if x is not None and y else None

R = range(1, rounds + 1)
print("| N | mode | frames/s old | frames/s new | new/old frames/s | cycles/frame old | cycles/frame new | new/old cycles | vs exact old | vs exact new | vs testpmd old | vs testpmd new |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for n in sizes:
    for mode in modes:
        col = []
        for key in ("frames_per_s", "cycles_per_frame"):
            o = [get("old", r, n, mode, key) for r in R]
            w = [get("new", r, n, mode, key) for r in R]
            col += [med(o), med(w), med([ratio(a, b) for a, b in zip(w, o)])]
        for base in ("exact", "testpmd"):
            for b in ("old", "new"):
                if mode in (base, "testpmd"):
                    col.append("-")
                else:
                    col.append(med([ratio(get(b, r, n, mode, "frames_per_s"),
                                          get(b, r, n, base, "frames_per_s")) for r in R]))
        print("| %s | %s | %s |" % (n, mode, " | ".join(col)))
EOF
exit $fail
