#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# optinc-bench.sh: on one testbed per N, side by side: optinc through optincd
# (UDP, and AF_XDP where optincctl has the xdp object), liboptinc's ring over
# TCP through the same switch, Open MPI's
# MPI_Allreduce with every rank in its server namespace (TCP through the
# switch) and Open MPI on one box; then bytes sent per rank as counted by the
# switch; the I/O limit: optinc-io-bench's OptINC frames (no float work)
# through optincd and, reflected, through dpdk-testpmd on the same ports.
# Prints Markdown and writes it to a file.
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
MPIBENCH=$O/bin/optinc-mpi-bench
IOBENCH=$O/bin/optinc-io-bench
CTL=${OPTINCCTL:-$O/bin/optincctl}
TESTPMD=${TESTPMD:-dpdk-testpmd}
STATE=${OPTINC_TB_STATE:-/run/optinc-testbed}
SW_ADDR=10.77.0.254

SIZES="2 4 8"
MINB=4K MAXB=256M FACTOR=4 ITERS=10 WARMUP=1 TLIMIT=2 CHECK=""
ALGOS="optinc ring mpi mpi-box afxdp testpmd"
CSIZE=16M
REF=64M
IOROUNDS=1
IDLE_US=
OUT=$ROOT/Documentation/bench-results.md
TB=obench
LIMIT=900

usage() {
	cat <<EOF
usage: optinc-bench.sh [-N 'SIZES'] [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS]
                       [-w WARMUP] [-T SECS] [-c] [-a 'ALGOS'] [-C SIZE]
                       [-r SIZE] [-R ROUNDS] [-I US] [-o FILE] [--tb NAME]
  -N      numbers of ranks (default "$SIZES")
  -b -e -f sizes from MIN to MAX bytes by FACTOR (default $MINB $MAXB $FACTOR)
  -n -w   timed iterations and warm-up calls per size (default $ITERS $WARMUP)
  -T      stop a size's timed iterations after SECS (default $TLIMIT)
  -c      check every result against the double-precision reference
  -a      any of: optinc ring mpi mpi-box afxdp testpmd (default "$ALGOS")
  -C      size of the counted run for bytes per rank (default $CSIZE)
  -r      size the ratios are reported at (default $REF)
  -R      rounds of the I/O limit (optincd, then testpmd; default $IOROUNDS)
  -I      optincd's --idle-us (its default sleeps up to 100 us when idle;
          0 busy-polls, as testpmd does)
  -o      Markdown output (default Documentation/bench-results.md; - for none)
EOF
}

die() {
	echo "optinc-bench.sh: $*" >&2
	exit 1
}

bytes() {
	local v=${1%[KMGkmg]} m=1

	case $1 in
	*[Kk]) m=1024 ;;
	*[Mm]) m=1048576 ;;
	*[Gg]) m=1073741824 ;;
	esac
	echo $((v * m))
}

cleanup() {
	testpmd_down
	"$TESTBED" down --tb "$TB" >/dev/null 2>&1
	[ -n "${TMP:-}" ] && rm -rf "$TMP"
}

# The MPMD command line that starts rank i of mpirun in <tb>-h<i>.
mpi_apps() {
	local n=$1 i apps=()

	shift
	for ((i = 0; i < n; i++)); do
		[ $i -gt 0 ] && apps+=(:)
		apps+=(-np 1 ip netns exec "$TB-h$i" "$MPIBENCH" "$@")
	done
	echo "${apps[@]}"
}

# mpirun runs in h0; PMIx and the BTL use the testbed subnet, so that every
# byte between ranks crosses the switch.
mpi_testbed() {
	local n=$1

	shift
	# shellcheck disable=SC2046
	PMIX_MCA_ptl_tcp_remote_connections=1 \
	PMIX_MCA_ptl_tcp_if_include=10.77.0.0/24 \
	timeout -k 5 "$LIMIT" ip netns exec "$TB-h0" mpirun --allow-run-as-root \
		--oversubscribe --bind-to none --mca btl tcp,self \
		--mca btl_tcp_if_include 10.77.0.0/24 \
		--mca oob_tcp_if_include 10.77.0.0/24 $(mpi_apps "$n" "$@")
}

mpi_box() {
	local n=$1

	shift
	timeout -k 5 "$LIMIT" mpirun --allow-run-as-root --oversubscribe \
		--bind-to none -np "$n" "$MPIBENCH" "$@"
}

# optinc over AF_XDP: the XDP program on every server's eth0 for this run.
afxdp_run() {
	local n=$1 i rc

	shift
	for ((i = 0; i < n; i++)); do
		"$TESTBED" exec --tb "$TB" "$i" "$CTL" xdp attach eth0 >/dev/null || return 1
	done
	OPTINC_TRANSPORT=afxdp "$TESTBED" run --tb "$TB" -q -t "$LIMIT" \
		"$BENCH" -a optinc "$@"
	rc=$?
	for ((i = 0; i < n; i++)); do
		"$TESTBED" exec --tb "$TB" "$i" "$CTL" xdp detach eth0 >/dev/null
	done
	return $rc
}

# dpdk-testpmd in the switch namespace on optincd's ports (the same vdevs,
# from its command line; pinned to CPU 0 like optincd), reflecting every
# frame: 5tswap swaps MAC, IP and UDP addresses, port topology loop sends
# it out where it came in. It answers no ARP: the servers get a static
# entry for the switch address.
testpmd_up() {
	local n=$1 i mac mem
	local -a vdevs

	read -ra vdevs <"$TMP/$n.vdevs"
	[ ${#vdevs[@]} -gt 0 ] || { echo "optinc-bench.sh: no vdevs of optincd" >&2; return 1; }
	"$TESTBED" up --tb "$TB" -n "$n" --no-switch >&2 || return 1
	for ((i = 0; i < n; i++)); do
		mac=$(ip -n "$TB-sw" -br link show "p$i" | awk '{ print $3 }')
		ip -n "$TB-h$i" neigh replace "$SW_ADDR" lladdr "$mac" dev eth0 ||
			return 1
	done
	mem=$((64 + 24 * n))
	[ $mem -lt 256 ] && mem=256
	setsid ip netns exec "$TB-sw" "$TESTPMD" --lcores 0@0,1@0 --no-huge \
		-m "$mem" --no-pci --file-prefix "$TB" "${vdevs[@]}" -- \
		--forward-mode=5tswap --port-topology=loop --auto-start \
		--stats-period=3600 --mbuf-size=9344 \
		--total-num-mbufs=$((1024 + 512 * n)) \
		</dev/null >"$TMP/testpmd.log" 2>&1 &
	TPMD_PID=$!
	for ((i = 0; i < 100; i++)); do
		grep -q "packet forwarding - ports=" "$TMP/testpmd.log" 2>/dev/null && return 0
		kill -0 "$TPMD_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "optinc-bench.sh: dpdk-testpmd did not start:" >&2
	tail -n 5 "$TMP/testpmd.log" >&2
	return 1
}

testpmd_down() {
	local i

	[ -n "${TPMD_PID:-}" ] || return 0
	kill -TERM "$TPMD_PID" 2>/dev/null
	for ((i = 0; i < 50; i++)); do
		kill -0 "$TPMD_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$TPMD_PID" 2>/dev/null
	TPMD_PID=
}

# CPU time (ns, user + system) of all threads of process $1 so far.
cpu_ns() {
	cat "/proc/$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# optinc-io-bench at REF in mode $1 while switch process $2 runs: one line
# per rank, then the switch's CPU time and the wall time from when the
# ranks start sending (together, 1 s after the first was started) to the end.
io_measure() {
	local mode=$1 pid=$2 c0 c1 t0 t1 rc

	t0=$(awk -v t="$(date +%s.%N)" 'BEGIN { printf "%.3f", t + 1 }')
	(sleep 1; cpu_ns "$pid" >"$TMP/cpu0") &
	"$TESTBED" run --tb "$TB" -t "$LIMIT" "$IOBENCH" -M "$mode" -b "$REF" \
		-n "$ITERS" -w "$WARMUP" --start-at "$t0" | sed 's/^\[[0-9]*\] //'
	rc=${PIPESTATUS[0]}
	c1=$(cpu_ns "$pid")
	t1=$(date +%s.%N)
	wait $!
	c0=$(cat "$TMP/cpu0")
	echo "# cpu $mode: pid $pid ns $((c1 - c0)) wall $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
	return "$rc"
}

# Round $2 of the I/O limit for N = $1: the same senders against optincd
# (mode optinc; the testbed with optincd is up when this starts) and then
# against testpmd on the same ports (mode reflect). Outputs in
# $TMP/<n>.io<r>.optincd and .testpmd.
io_round() {
	local n=$1 r=$2 f=$TMP/$1.io$2

	io_measure optinc "$(cat "$STATE/$TB/daemon.pid")" >"$f.optincd" 2>&1 ||
		echo "# optinc-io-bench -M optinc failed" >>"$f.optincd"
	"$TESTBED" down --tb "$TB" >&2
	if testpmd_up "$n"; then
		io_measure reflect "$TPMD_PID" >"$f.testpmd" 2>&1 ||
			echo "# optinc-io-bench -M reflect failed" >>"$f.testpmd"
	else
		echo "# dpdk-testpmd did not start" >"$f.testpmd"
	fi
	testpmd_down
	"$TESTBED" down --tb "$TB" >&2
}

# The testbed of $1 servers with optincd (its --idle-us from -I).
tb_up_switch() {
	"$TESTBED" up --tb "$TB" -n "$1" \
		${IDLE_US:+--daemon-args "--idle-us $IDLE_US"} >&2
}

# All rounds for N = $1, printed; the testbed with optincd is up.
io_limit() {
	local n=$1 r a

	for ((r = 1; r <= IOROUNDS; r++)); do
		if [ "$r" -gt 1 ] && ! tb_up_switch "$n"; then
			echo "# testbed with $n servers did not come up"
			return 1
		fi
		io_round "$n" "$r"
		for a in optincd testpmd; do
			echo "### I/O limit, round $r: $a"
			echo
			echo '```'
			cat "$TMP/$n.io$r.$a"
			echo '```'
			echo
		done
	done
}

# One algorithm's table; rank 0's output (others' only on failure).
run_algo() {
	local algo=$1 n=$2

	shift 2
	case $algo in
	optinc | ring)
		"$TESTBED" run --tb "$TB" -q -t "$LIMIT" "$BENCH" -a "$algo" "$@" ;;
	afxdp) afxdp_run "$n" "$@" ;;
	mpi) mpi_testbed "$n" "$@" ;;
	mpi-box) mpi_box "$n" "$@" ;;
	esac
}

# Bytes each server sent into the switch: per-port rx_bytes, port i = p<i>.
port_bytes() {
	"$TESTBED" tel --tb "$TB" /optinc/ports | python3 -c '
import json, sys
d = json.load(sys.stdin)["/optinc/ports"]
print(" ".join(str(d[k]["rx_bytes"]) for k in sorted(d, key=int)))'
}

# One call of CSIZE with each algorithm; bytes per rank / CSIZE.
counted() {
	local n=$1 algo b0 b1 cs r i sum

	cs=$(bytes "$CSIZE")
	printf '| %s | %s |' "$n" "$(awk -v n="$n" 'BEGIN { printf "%.3f", 2 * (n - 1) / n }')"
	for algo in optinc ring mpi; do
		if ! [[ " $ALGOS " == *" $algo "* ]]; then
			printf ' - |'
			continue
		fi
		read -ra b0 < <(port_bytes)
		if ! run_algo "$algo" "$n" -b "$CSIZE" -e "$CSIZE" -n 1 -w 0 \
			>"$TMP/count.log" 2>&1; then
			printf ' failed |'
			continue
		fi
		read -ra b1 < <(port_bytes)
		sum=0
		r=""
		for ((i = 0; i < n; i++)); do
			sum=$((sum + b1[i] - b0[i]))
		done
		r=$(awk -v s="$sum" -v n="$n" -v c="$cs" 'BEGIN { printf "%.3f", s / n / c }')
		printf ' %s |' "$r"
	done
	echo
}

# Time per call at REF bytes from a saved table (column 3), "" if absent.
time_at() {
	[ -f "$1" ] || return 0
	awk -v b="$(bytes "$REF")" '$1 == b { print $3; exit }' "$1"
}

ratio_row() {
	local n=$1 t a o
	local -A tm

	for a in optinc afxdp ring mpi mpi-box; do
		tm[$a]=$(time_at "$TMP/$n.$a")
	done
	o=${tm[optinc]}
	printf '| %s |' "$n"
	for a in optinc afxdp ring mpi mpi-box; do
		t=${tm[$a]}
		if [ -z "$t" ]; then
			printf ' - |'
		elif [ -n "$o" ] && [ "$a" != optinc ]; then
			printf ' %.1f (%.2fx) |' "$(awk -v t="$t" 'BEGIN { print t / 1000 }')" \
				"$(awk -v t="$t" -v o="$o" 'BEGIN { print t / o }')"
		else
			printf ' %.1f |' "$(awk -v t="$t" 'BEGIN { print t / 1000 }')"
		fi
	done
	echo
}

one_size() {
	local n=$1 a args

	echo "## N = $n"
	echo
	tb_up_switch "$n" || die "testbed with $n servers did not come up"
	grep -o -- '--vdev [^ ]*' "$STATE/$TB/daemon.cmd" | tr '\n' ' ' >"$TMP/$n.vdevs"
	for a in $ALGOS; do
		[ "$a" = testpmd ] && continue
		args=(-b "$MINB" -e "$MAXB" -f "$FACTOR" -n "$ITERS" -w "$WARMUP")
		[ -n "$CHECK" ] && args+=(-c)
		args+=(-T "$TLIMIT")
		echo "### $a"
		echo
		echo '```'
		run_algo "$a" "$n" "${args[@]}" >"$TMP/$n.$a" 2>&1 ||
			echo "# $a failed:"
		cat "$TMP/$n.$a"
		echo '```'
		echo
	done
	counted "$n" >"$TMP/$n.count"
	if [[ " $ALGOS " == *" testpmd "* ]]; then
		io_limit "$n"
	fi
	"$TESTBED" down --tb "$TB" >&2
}

# One row of the I/O-limit table for N = $1 from its rounds' outputs:
# medians over rounds, (min-max) where there is more than one.
io_row() {
	python3 - "$1" "$IOROUNDS" "$TMP" "$(time_at "$TMP/$1.optinc")" <<'EOF'
import re, statistics, sys

n, rounds, tmp, allred = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]

def parse(path):
    rows, frames, cpu = [], 0, None
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return None
    for l in lines:
        f = l.split()
        if len(f) == 8 and f[0].isdigit():
            rows.append([float(x) for x in f])
        m = re.match(r"# rank \d+: (\d+) frames back", l)
        if m:
            frames += int(m.group(1))
        m = re.match(r"# cpu \S+: pid \d+ ns (-?\d+) wall ([\d.]+)", l)
        if m:
            cpu = (int(m.group(1)) / 1e9, float(m.group(2)))
    if len(rows) != int(n) or any("failed" in l for l in lines):
        return None
    r = {"t": sum(x[4] for x in rows) / len(rows) / 1000,
         "gbit": sum(x[6] for x in rows) * 8, "retx": sum(x[7] for x in rows)}
    if cpu and frames:
        r["cpu"] = cpu[0] / frames * 1e6
        r["util"] = cpu[0] / cpu[1]
    return r

def med(v, fmt):
    if not v:
        return "-"
    s = fmt % statistics.median(v)
    if len(v) > 1:
        s += " (" + fmt % min(v) + "-" + fmt % max(v) + ")"
    return s

good = []
for r in range(1, rounds + 1):
    o = parse("%s/%s.io%d.optincd" % (tmp, n, r))
    t = parse("%s/%s.io%d.testpmd" % (tmp, n, r))
    if o and t:
        good.append((o, t))
col = lambda side, k: [g[side][k] for g in good if k in g[side]]
cells = [n, "%d/%d" % (len(good), rounds),
         med(col(1, "t"), "%.1f"), med(col(0, "t"), "%.1f"),
         med([g[1]["t"] / g[0]["t"] for g in good], "%.2f"),
         med(col(1, "gbit"), "%.2f"), med(col(0, "gbit"), "%.2f"),
         "%d / %d" % (sum(col(1, "retx")), sum(col(0, "retx"))),
         med(col(1, "cpu"), "%.1f") + ", " + med(col(1, "util"), "%.2f"),
         med(col(0, "cpu"), "%.1f") + ", " + med(col(0, "util"), "%.2f"),
         "%.1f" % (float(allred) / 1000) if allred else "-"]
print("| " + " | ".join(cells) + " |")
EOF
}

report() {
	local n

	echo "<!-- SPDX-License-Identifier: BSD-3-Clause -->"
	echo "# Benchmark results"
	echo
	echo "Made by \`$CMDLINE\` on $(date -u +%Y-%m-%d) ($(nproc) CPUs, $(uname -r),"
	echo "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); load average"
	echo "at the start $(cut -d' ' -f1-3 /proc/loadavg): the machine is shared, small sizes are noisy)."
	echo "optinc: liboptinc through optincd (UDP, 8-bit, exact average); afxdp: the"
	echo "same over AF_XDP sockets (OPTINC_TRANSPORT=afxdp, XDP program on eth0);"
	echo "ring: liboptinc's ring all-reduce over TCP through the same switch;"
	echo "mpi: Open MPI MPI_Allreduce, each rank in its server namespace, TCP through"
	echo "the switch; mpi-box: Open MPI with all ranks on one box (no switch)."
	echo "time = mean per call; algbw = S/t, busbw = algbw * 2(n-1)/n (nccl-tests);"
	echo "sent/rank = UDP payload bytes per call as liboptinc counts them."
	echo
	for n in $SIZES; do
		one_size "$n"
	done
	echo "## Time per call at $REF, ms (ratio to optinc)"
	echo
	echo "| N | optinc | afxdp | ring | mpi (switch) | mpi-box |"
	echo "|---|---|---|---|---|---|"
	for n in $SIZES; do
		ratio_row "$n"
	done
	echo
	if [[ " $ALGOS " == *" testpmd "* ]]; then
		echo "## I/O limit at $REF: optincd vs dpdk-testpmd on the same ports"
		echo
		echo "The same senders (optinc-io-bench: optinc's frames of a $REF"
		echo "float32 call, exponent phase then data phase, 8-bit values"
		echo "precomputed, window 64, every frame back checked) against optincd"
		echo "(mode optinc: JOIN, DATA, RESULT) and against dpdk-testpmd (mode"
		echo "reflect: 5tswap, port topology loop, optincd's af_packet vdevs, lcores"
		echo "on CPU 0 like optincd). Same frames in and out per rank, so"
		echo "optincd/testpmd = goodput ratio = testpmd's time / optincd's."
		echo "Medians over $IOROUNDS round(s), (min-max); CPU: the switch process's"
		echo "utime + stime over the whole io-bench run (warm-up and JOIN included)"
		echo "per frame back to a rank, and that CPU time / wall time (testpmd"
		echo "busy-polls: ~1 whatever the load; optincd sleeps when idle)."
		echo
		echo "| N | rounds ok | testpmd ms/call | optincd ms/call | optincd / testpmd | testpmd Gbit/s | optincd Gbit/s | retx (testpmd / optincd) | testpmd CPU us/frame, CPU/wall | optincd CPU us/frame, CPU/wall | liboptinc allreduce ms/call |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|"
		for n in $SIZES; do
			io_row "$n"
		done
		echo
	fi
	echo "## Bytes sent per server / gradient bytes, counted by the switch ($CSIZE float32, one call)"
	echo
	echo "Per-port rx_bytes of optincd (whole Ethernet frames, all traffic of the"
	echo "call: for optinc the 8-bit values, block exponents and headers)."
	echo
	echo "| N | 2(N-1)/N | optinc | ring | mpi |"
	echo "|---|---|---|---|---|"
	for n in $SIZES; do
		cat "$TMP/$n.count"
	done
}

main() {
	CMDLINE=tools/bench/optinc-bench.sh
	[ $# -gt 0 ] && CMDLINE="$CMDLINE$(printf " %q" "$@")"
	while [ $# -gt 0 ]; do
		case $1 in
		-N) SIZES=$2; shift 2 ;;
		-b) MINB=$2; shift 2 ;;
		-e) MAXB=$2; shift 2 ;;
		-f) FACTOR=$2; shift 2 ;;
		-n) ITERS=$2; shift 2 ;;
		-w) WARMUP=$2; shift 2 ;;
		-T) TLIMIT=$2; shift 2 ;;
		-c) CHECK=-c; shift ;;
		-a) ALGOS=$2; shift 2 ;;
		-C) CSIZE=$2; shift 2 ;;
		-r) REF=$2; shift 2 ;;
		-R) IOROUNDS=$2; shift 2 ;;
		-I) IDLE_US=$2; shift 2 ;;
		-o) OUT=$2; shift 2 ;;
		--tb) TB=$2; shift 2 ;;
		-h | --help) usage; exit 0 ;;
		*) usage >&2; exit 1 ;;
		esac
	done
	[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
	[ -x "$BENCH" ] || die "$BENCH not built (make)"
	if [[ $ALGOS == *afxdp* ]] && ! "$CTL" xdp help 2>&1 | grep -q "xdp attach"; then
		echo "optinc-bench.sh: $CTL has no xdp object (libxdp-dev); skipping afxdp" >&2
		ALGOS=$(echo "$ALGOS" | tr ' ' '\n' | grep -v '^afxdp' | tr '\n' ' ')
	fi
	if [[ $ALGOS == *testpmd* ]] && ! command -v "$TESTPMD" >/dev/null; then
		echo "optinc-bench.sh: no $TESTPMD (Debian's dpdk-dev); skipping the I/O limit" >&2
		ALGOS=$(echo "$ALGOS" | tr ' ' '\n' | grep -v '^testpmd' | tr '\n' ' ')
	fi
	if [[ $ALGOS == *testpmd* ]] && [ ! -x "$IOBENCH" ]; then
		echo "optinc-bench.sh: $IOBENCH not built (make); skipping the I/O limit" >&2
		ALGOS=$(echo "$ALGOS" | tr ' ' '\n' | grep -v '^testpmd' | tr '\n' ' ')
	fi
	if [[ $ALGOS == *mpi* ]] && [ ! -x "$MPIBENCH" ]; then
		echo "optinc-bench.sh: $MPIBENCH not built (needs mpicc: openmpi-bin libopenmpi-dev); skipping Open MPI" >&2
		ALGOS=$(echo "$ALGOS" | tr ' ' '\n' | grep -v '^mpi' | tr '\n' ' ')
	fi
	TMP=$(mktemp -d)
	trap cleanup EXIT
	trap 'exit 1' INT TERM
	if [ "$OUT" = - ]; then
		report
	else
		report | tee "$OUT.tmp" && mv "$OUT.tmp" "$OUT" &&
			echo "optinc-bench.sh: written to $OUT" >&2
	fi
}

main "$@"
