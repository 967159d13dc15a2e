#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# line-bench.sh: optincd measured as a whole without veth. For each N, -R
# rounds of: optinc-line-bench (N members, one net_memif port each) against
# dpdk-testpmd io forwarding (the I/O limit of the same ports), against
# optincd in exact mode, in onn mode (models/onn-nN.tbl, or an exactly
# filled table where no model is shipped) and, mode chain, in exact mode
# with results chained to one copy of the elements (OPTINCD_TX_CHAIN=1),
# each switch on
# CPU 0 (optincd with -L 'L...' lcores: CPUs 0..L-1, -J jobs spread over
# them) and the generator on CPU 1. Prints frames/s into the switch,
# elements/s, Gbit/s in, the switch's CPU cycles per input frame, and the
# ratios optincd/testpmd and onn/exact of the same round; with several
# lcore counts also each run's capacity (the generator's lcores= line:
# frames/s the switch's lcores reach with a CPU each, from their CPU and
# busy time) and the ratios to the first lcore count of the same round, by
# capacity and by frames/s; medians (and ranges) over rounds. Writes
# Markdown to a file as well (-o).
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
FRAMES=40000 WARMUP=4000 ROUNDS=3 WINDOW=64 LCORES=1 JOBS=1
SW_CPU=0 GEN_CPU=1
TABLE=model
OUT=$ROOT/Documentation/bench-results.md
SWARGS=

usage() {
	cat <<EOF
usage: line-bench.sh [-N 'SIZES'] [-m 'MODES'] [-f FRAMES] [-w WARMUP]
                     [-R ROUNDS] [-W WINDOW] [-L 'LCORES'] [-J JOBS]
                     [-t TABLE] [-a 'OPTINCD ARGS'] [-o FILE]
  -N   members (default "$SIZES"); one memif port per member
  -m   any of: testpmd exact onn chain (default "$MODES")
  -f   timed data frames per member (default $FRAMES), after -w (default $WARMUP)
  -R   rounds; each runs every mode once (default $ROUNDS)
  -W   frames in flight per member (default $WINDOW)
  -L   optincd's lcore counts, each run in every round (default "$LCORES";
       CPUs 0.. of this machine); testpmd runs with the first only
  -J   jobs of N members each (default $JOBS), placed by optincd over its
       lcores; the generator sends job k on queue k % lcores
  -t   onn mode's table: model (the shipped one, else the exact one;
       default), sums:K (the exact one with K sums off: a by-sum form,
       by the average with K <= 8 patches, else looked up by the sum),
       entries:K (K entries off: no by-sum form, through the planes)
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
	-J) JOBS=$2; shift ;;
	-a) SWARGS=$2; shift ;;
	-t) TABLE=$2; shift ;;
	-o) OUT=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done

[ -x "$GEN" ] && [ -x "$OPTINCD" ] || die "build first (make): $GEN, $OPTINCD"
[[ $TABLE =~ ^(model|sums:[0-9]+|entries:[0-9]+)$ ]] ||
	die "-t '$TABLE': not model, sums:K or entries:K"
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

# The switch's lcores: $1 of them from CPU SW_CPU on (testpmd adds a main
# lcore on the same CPU).
sw_lcores() {
	local i l=

	for ((i = 0; i < $1; i++)); do
		l+=${l:+,}$((SW_CPU + i))
	done
	echo "$l"
}

# The truth table of onn mode for N = $1: the shipped model's, or the exact
# one; with -t sums:K or entries:K, the exact one with K sums or entries off.
table_for() {
	local n=$1 t=$ROOT/models/onn-n$1.tbl k=${TABLE#*:}

	if [ "$TABLE" != model ]; then
		t=$TMP/${TABLE%%:*}$k-n$n.tbl
		[ -f "$t" ] || "$INJECT" -n "$n" -o "$t" --errors "$k" \
			$([ "${TABLE%%:*}" = sums ] && echo --by-sum) >/dev/null ||
			return 1
		echo "$t"
		return
	fi
	if [ -f "$t" ]; then
		echo "$t"
		return
	fi
	t=$TMP/exact-n$n.tbl
	[ -f "$t" ] || "$INJECT" -n "$n" -o "$t" >/dev/null || return 1
	echo "$t"
}

# Start switch $1 (testpmd, exact, onn) with $2 memif server ports, $3 lcores.
sw_up() {
	local mode=$1 n=$2 lc=$3 i k mem=$((256 + 64 * $2)) job="size=$2,bits=8" jobs=

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
		for ((k = 1; k <= JOBS; k++)); do
			jobs+=" --job id=$k,$job"
		done
		OPTINCD_TX_CHAIN=$([ "$mode" = chain ] && echo 1 || echo 0) \
		setsid "$OPTINCD" -l "$(sw_lcores "$lc")" --no-huge \
			-m $((mem * lc)) --no-pci --file-prefix "${PFX}sw" \
			$(vdevs "$n" server) -- --addr 10.77.0.254 $jobs $SWARGS \
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

# One run: the generator against switch $1 with $2 members and $3
# lcores; its lines in $4.
run_one() {
	local mode=$1 n=$2 lc=$3 out=$4 gmode=optinc tab= ctl=

	sw_up "$mode" "$n" "$lc" || { echo "# $mode did not start" >"$out"; return 1; }
	[ "$mode" = testpmd ] && gmode=reflect
	[ "$mode" = testpmd ] || ctl="--ctl $CTL --prefix ${PFX}sw"
	[ "$mode" = onn ] && tab="--table $(table_for "$n")"
	"$GEN" -l "$GEN_CPU" --no-huge -m 1024 --no-pci --file-prefix "${PFX}gen" \
		$(vdevs "$n" client) -- -M "$gmode" -N "$n" -J "$JOBS" -Q "$lc" \
		-f "$FRAMES" -w "$WARMUP" -W "$WINDOW" --peer "$SW_PID" $tab $ctl \
		>"$out" 2>"$out.err"
	local rc=$?
	sw_down
	[ $rc = 0 ] || { tail -n 3 "$out.err" | sed 's/^/# /' >>"$out"; return 1; }
}

summary() {
	"$PY" - "$TMP" "$SIZES" "$RUNS" "$ROUNDS" <<'PYEOF'
import re, statistics, sys
tmp, sizes, runs, rounds = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), int(sys.argv[4])
first = runs[0].split("@")[1]

def parse(path):
    d = {}
    try:
        for line in open(path):
            if line.startswith("frames_in=") or line.startswith("lcores="):
                d.update({k: float(v) for k, v in re.findall(r"(\w+)=([-0-9.e+]+)", line)})
    except OSError:
        pass
    return d if "frames_in" in d else None

def med(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    m = statistics.median(xs)
    f = "%.3g" if m < 100 else "%.0f" if m < 1e6 else "%.3g"
    if len(xs) == 1:
        return f % m
    return (f + " (" + f + "-" + f + ")") % (m, min(xs), max(xs))

def ratio(rs, base, key="frames_per_s"):
    return [r[key] / b[key] if r and b and b.get(key) and key in r else None
            for r, b in zip(rs, base)]

names = {"testpmd": "testpmd", "chain": "optincd exact, results chained"}
print("| N | switch | lcores | frames/s | elements/s | Gbit/s in | cycles/frame | vs testpmd (frames/s) | vs exact (frames/s) | capacity (frames/s) | vs %s lcore(s): capacity, frames/s | switch CPU/wall | generator CPU/wall, idle |" % first)
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
none = [None] * rounds
for n in sizes:
    res = {k: [parse("%s/%s.%s.%d" % (tmp, n, k, r)) for r in range(1, rounds + 1)] for k in runs}
    for k in runs:
        m, l = k.split("@")
        rs = res[k]
        vs = ratio(rs, res.get("testpmd@" + first, none)) if m != "testpmd" else []
        oe = ratio(rs, res.get("exact@" + l, none)) if m in ("onn", "chain") else []
        vl = "-"
        if l != first:
            b = res.get(m + "@" + first, none)
            vl = "%s, %s" % (med(ratio(rs, b, "capacity")), med(ratio(rs, b)))
        g = lambda key: med([r.get(key) if r else None for r in rs])
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s, %s |" % (
            n, names.get(m, "optincd " + m), l, g("frames_per_s"),
            g("elems_per_s"), g("gbit_in"), g("cycles_per_frame"),
            med(vs) if vs else "-", med(oe) if oe else "-",
            g("capacity") if m != "testpmd" else "-", vl,
            g("peer_cpu_wall"), g("gen_cpu_wall"), g("gen_idle")))
PYEOF
}

report() {
	local n m r

	echo "## optincd without veth: optinc-line-bench on net_memif ports"
	echo
	echo "\`tools/bench/line-bench.sh -N '$SIZES' -m '$MODES' -f $FRAMES -w $WARMUP -R $ROUNDS -W $WINDOW -L '$LCORES' -J $JOBS -t $TABLE${SWARGS:+ -a '$SWARGS'}\`,"
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load before/after: $LOAD0 / $(cut -d' ' -f1-3 /proc/loadavg)."
	echo "Switch on CPUs $SW_CPU.. ($LCORES lcore(s)), generator on CPU $GEN_CPU; medians over $ROUNDS rounds (min-max);"
	echo "ratios per round, optincd against testpmd of the same round."
	echo
	summary
	echo
	echo "Per run (generator's lines):"
	echo
	echo '```'
	for n in $SIZES; do
		for ((r = 1; r <= ROUNDS; r++)); do
			for k in $RUNS; do
				echo "N=$n round $r ${k%@*} ${k#*@} lcore(s):"
				grep -v '^EAL\|^TELEMETRY' "$TMP/$n.$k.$r" 2>/dev/null
			done
		done
	done
	echo '```'
	echo
}

# the runs of a round: every mode with every lcore count (testpmd: the first)
RUNS=
for l in $LCORES; do
	for m in $MODES; do
		[ "$m" = testpmd ] && [ "$l" != "${LCORES%% *}" ] && continue
		RUNS+="${RUNS:+ }$m@$l"
	done
done
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
fail=0
for n in $SIZES; do
	for ((r = 1; r <= ROUNDS; r++)); do
		for k in $RUNS; do
			m=${k%@*} l=${k#*@}
			if ! run_one "$m" "$n" "$l" "$TMP/$n.$k.$r"; then
				fail=1
				echo "line-bench.sh: N=$n round $r $k failed:" >&2
				cat "$TMP/$n.$k.$r" "$TMP/$n.$k.$r.err" >&2
			fi
			echo "N=$n round $r $k: $(grep '^frames_in=\|^lcores=' "$TMP/$n.$k.$r" | tr '\n' ' ')" >&2
		done
	done
done
if [ "$OUT" = - ]; then
	report
else
	report | tee -a "$OUT"
fi
exit $fail
