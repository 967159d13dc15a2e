#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# line-bench.sh: optincd measured as a whole without veth. For each N, -R
# rounds of: optinc-line-bench (N members, one net_memif port each) against
# dpdk-testpmd io forwarding (the I/O limit of the same ports), against
# optincd in exact mode, in onn mode (models/onn-nN.tbl, or an exactly
# filled table where no model is shipped) and, mode chain, in exact mode
# with results chained to one copy of the elements (OPTINCD_TX_CHAIN=1),
# each switch on
# CPU 0 and the generator on CPU 1. Prints frames/s into the switch,
# elements/s, Gbit/s in, the switch's CPU cycles per input frame, and the
# ratios optincd/testpmd and onn/exact of the same round; medians (and
# ranges) over rounds. Writes Markdown to a file as well (-o).
set -u

ROOT=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
O=${O:-build}
case $O in
/*) ;;
*) O=$ROOT/$O ;;
esac
GEN=$O/bin/optinc-line-bench
OPTINCD=${OPTINCD:-$O/bin/optincd}
INJECT=$O/tools/demo/optinc-table-inject
CTL=$O/bin/optincctl
TESTPMD=${TESTPMD:-dpdk-testpmd}
PY=/usr/bin/python3

SIZES="2 4 8 16"
MODES="testpmd exact onn chain"
FRAMES=40000 WARMUP=4000 ROUNDS=3 WINDOW=64 LCORES=1
SW_CPU=0 GEN_CPU=1
OUT=$ROOT/Documentation/bench-results.md
SWARGS=

usage() {
	cat <<EOF
usage: line-bench.sh [-N 'SIZES'] [-m 'MODES'] [-f FRAMES] [-w WARMUP]
                     [-R ROUNDS] [-W WINDOW] [-L LCORES] [-a 'OPTINCD ARGS']
                     [-o FILE]
  -N   members (default "$SIZES"); one memif port per member
  -m   any of: testpmd exact onn chain (default "$MODES")
  -f   timed data frames per member (default $FRAMES), after -w (default $WARMUP)
  -R   rounds; each runs every mode once (default $ROUNDS)
  -W   frames in flight per member (default $WINDOW)
  -L   optincd's lcores (default $LCORES; CPUs 0.. of this machine)
  -a   more optincd options (after --)
  -o   Markdown output, appended (default Documentation/bench-results.md;
       - for none)
EOF
}

die() {
	echo "line-bench.sh: $*" >&2
	exit 1
}

while [ $# -gt 0 ]; do
	case $1 in
	-N) SIZES=$2; shift ;;
	-m) MODES=$2; shift ;;
	-f) FRAMES=$2; shift ;;
	-w) WARMUP=$2; shift ;;
	-R) ROUNDS=$2; shift ;;
	-W) WINDOW=$2; shift ;;
	-L) LCORES=$2; shift ;;
	-a) SWARGS=$2; shift ;;
	-o) OUT=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done

[ -x "$GEN" ] && [ -x "$OPTINCD" ] || die "build first (make): $GEN, $OPTINCD"
case " $MODES " in
*" testpmd "*) command -v "$TESTPMD" >/dev/null ||
	die "$TESTPMD not found: install dpdk (make deps)" ;;
esac

TMP=$(mktemp -d /tmp/line-bench.XXXXXX)
SW_PID=
PFX=lb$$

cleanup() {
	sw_down
	[ -n "${LB_KEEP:-}" ] || rm -rf "$TMP"; rm -rf "/var/run/dpdk/$PFX"sw "/var/run/dpdk/$PFX"gen
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The memif vdevs of $1 ports for role $2 (server: the switch; client: the
# generator, which sets the shared memory's buffer and ring sizes).
vdevs() {
	local n=$1 role=$2 i extra=

	[ "$role" = client ] && extra=,bsize=9216,rsize=10
	for ((i = 0; i < n; i++)); do
		printf -- '--vdev=net_memif%d,role=%s,socket=%s/m%d.sock,socket-abstract=no%s ' \
			"$i" "$role" "$TMP" "$i" "$extra"
	done
}

# The switch's lcores: -L of them from CPU SW_CPU on (testpmd adds a main
# lcore on the same CPU).
sw_lcores() {
	local i l=

	for ((i = 0; i < LCORES; i++)); do
		l+=${l:+,}$((SW_CPU + i))
	done
	echo "$l"
}

# The truth table of onn mode for N = $1: the shipped model's, or the exact one.
table_for() {
	local n=$1 t=$ROOT/models/onn-n$1.tbl

	if [ -f "$t" ]; then
		echo "$t"
		return
	fi
	t=$TMP/exact-n$n.tbl
	[ -f "$t" ] || "$INJECT" -n "$n" -o "$t" >/dev/null || return 1
	echo "$t"
}

# Start switch $1 (testpmd, exact, onn) with $2 memif server ports.
sw_up() {
	local mode=$1 n=$2 i mem=$((256 + 32 * $2)) job="id=1,size=$2,bits=8"

	rm -f "$TMP"/m*.sock
	case $mode in
	testpmd)
		setsid "$TESTPMD" --lcores "0@$SW_CPU,1@$SW_CPU" --no-huge -m "$mem" \
			--no-pci --file-prefix "${PFX}sw" $(vdevs "$n" server) -- \
			--forward-mode=io --port-topology=loop --auto-start \
			--stats-period=3600 --mbuf-size=9344 \
			--total-num-mbufs=$((2048 + 256 * n)) \
			</dev/null >"$TMP/sw.log" 2>&1 &
		;;
	exact|onn|chain)
		[ "$mode" = onn ] && job+=",mode=onn,table=$(table_for "$n")"
		OPTINCD_TX_CHAIN=$([ "$mode" = chain ] && echo 1 || echo 0) \
		setsid "$OPTINCD" -l "$(sw_lcores)" --no-huge -m "$mem" --no-pci \
			--file-prefix "${PFX}sw" $(vdevs "$n" server) -- \
			--addr 10.77.0.254 --job "$job" $SWARGS \
			</dev/null >"$TMP/sw.log" 2>&1 &
		;;
	esac
	SW_PID=$!
	# ready once its ports are started (optincd: its telemetry answers):
	# a memif client that connects before is refused, and testpmd 22.11
	# may panic on the retry
	for ((i = 0; i < 200; i++)); do
		if [ "$mode" = testpmd ]; then
			grep -q 'packet forwarding - ports=' "$TMP/sw.log" && return 0
		else
			"$CTL" --prefix "${PFX}sw" daemon show >/dev/null 2>&1 && return 0
		fi
		kill -0 "$SW_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "line-bench.sh: $mode did not start:" >&2
	tail -n 5 "$TMP/sw.log" >&2
	return 1
}

sw_down() {
	local i

	[ -n "$SW_PID" ] || return 0
	kill -INT "$SW_PID" 2>/dev/null
	for ((i = 0; i < 50; i++)); do
		kill -0 "$SW_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$SW_PID" 2>/dev/null
	wait "$SW_PID" 2>/dev/null
	SW_PID=
}

# One run: the generator against switch $1 with $2 members; its lines in $3.
run_one() {
	local mode=$1 n=$2 out=$3 gmode=optinc tab=

	sw_up "$mode" "$n" || { echo "# $mode did not start" >"$out"; return 1; }
	[ "$mode" = testpmd ] && gmode=reflect
	[ "$mode" = onn ] && tab="--table $(table_for "$n")"
	"$GEN" -l "$GEN_CPU" --no-huge -m 1024 --no-pci --file-prefix "${PFX}gen" \
		$(vdevs "$n" client) -- -M "$gmode" -N "$n" -f "$FRAMES" \
		-w "$WARMUP" -W "$WINDOW" --peer "$SW_PID" $tab \
		>"$out" 2>"$out.err"
	local rc=$?
	sw_down
	[ $rc = 0 ] || { tail -n 3 "$out.err" | sed 's/^/# /' >>"$out"; return 1; }
}

summary() {
	"$PY" - "$TMP" "$SIZES" "$MODES" "$ROUNDS" <<'PYEOF'
import re, statistics, sys
tmp, sizes, modes, rounds = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), int(sys.argv[4])

def parse(path):
    try:
        for line in open(path):
            if line.startswith("frames_in="):
                return {k: float(v) for k, v in re.findall(r"(\w+)=([-0-9.e+]+)", line)}
    except OSError:
        pass
    return None

def med(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    m = statistics.median(xs)
    f = "%.3g" if m < 100 else "%.0f" if m < 1e6 else "%.3g"
    if len(xs) == 1:
        return f % m
    return (f + " (" + f + "-" + f + ")") % (m, min(xs), max(xs))

print("| N | switch | frames/s | elements/s | Gbit/s in | cycles/frame | vs testpmd (frames/s) | vs exact (frames/s) | switch CPU/wall | generator CPU/wall, idle |")
print("|---|---|---|---|---|---|---|---|---|---|")
for n in sizes:
    runs = {m: [parse("%s/%s.%s.%d" % (tmp, n, m, r)) for r in range(1, rounds + 1)] for m in modes}
    for m in modes:
        rs = runs[m]
        vs = [r["frames_per_s"] / t["frames_per_s"] if r and t else None
              for r, t in zip(rs, runs.get("testpmd", [None] * rounds))] if m != "testpmd" else []
        oe = [r["frames_per_s"] / e["frames_per_s"] if r and e else None
              for r, e in zip(rs, runs.get("exact", [None] * rounds))] if m in ("onn", "chain") else []
        g = lambda k: med([r[k] if r else None for r in rs])
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s, %s |" % (
            n, {"testpmd": "testpmd", "chain": "optincd exact, results chained"}.get(m, "optincd " + m), g("frames_per_s"),
            g("elems_per_s"), g("gbit_in"), g("cycles_per_frame"),
            med(vs) if vs else "-", med(oe) if oe else "-",
            g("peer_cpu_wall"), g("gen_cpu_wall"), g("gen_idle")))
PYEOF
}

report() {
	local n m r

	echo "## optincd without veth: optinc-line-bench on net_memif ports"
	echo
	echo "\`tools/bench/line-bench.sh -N '$SIZES' -m '$MODES' -f $FRAMES -w $WARMUP -R $ROUNDS -W $WINDOW -L $LCORES${SWARGS:+ -a '$SWARGS'}\`,"
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load before/after: $LOAD0 / $(cut -d' ' -f1-3 /proc/loadavg)."
	echo "Switch on CPU $SW_CPU ($LCORES lcore(s)), generator on CPU $GEN_CPU; medians over $ROUNDS rounds (min-max);"
	echo "ratios per round, optincd against testpmd of the same round."
	echo
	summary
	echo
	echo "Per run (generator's lines):"
	echo
	echo '```'
	for n in $SIZES; do
		for ((r = 1; r <= ROUNDS; r++)); do
			for m in $MODES; do
				echo "N=$n round $r $m:"
				grep -v '^EAL\|^TELEMETRY' "$TMP/$n.$m.$r" 2>/dev/null
			done
		done
	done
	echo '```'
	echo
}

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
fail=0
for n in $SIZES; do
	for ((r = 1; r <= ROUNDS; r++)); do
		for m in $MODES; do
			if ! run_one "$m" "$n" "$TMP/$n.$m.$r"; then
				fail=1
				echo "line-bench.sh: N=$n round $r $m failed:" >&2
				cat "$TMP/$n.$m.$r" "$TMP/$n.$m.$r.err" >&2
			fi
			echo "N=$n round $r $m: $(grep '^frames_in=' "$TMP/$n.$m.$r")" >&2
		done
	done
done
if [ "$OUT" = - ]; then
	report
else
	report | tee -a "$OUT"
fi
exit $fail
