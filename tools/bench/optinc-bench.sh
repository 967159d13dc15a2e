#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# optinc-bench.sh: on one testbed per N, side by side: optinc through optincd
# (UDP, and AF_XDP where optincctl has the xdp object), liboptinc's ring over
# TCP through the same switch, Open MPI's
# MPI_Allreduce with every rank in its server namespace (TCP through the
# switch) and Open MPI on one box; then bytes sent per rank as counted by the
# switch; the I/O limit: the same frames reflected by dpdk-testpmd on the
# same ports (optinc-io-bench). Prints Markdown and writes it to a file.
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
OUT=$ROOT/Documentation/bench-results.md
TB=obench
LIMIT=900

usage() {
	cat <<EOF
usage: optinc-bench.sh [-N 'SIZES'] [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS]
                       [-w WARMUP] [-T SECS] [-c] [-a 'ALGOS'] [-C SIZE]
                       [-r SIZE] [-o FILE] [--tb NAME]
  -N      numbers of ranks (default "$SIZES")
  -b -e -f sizes from MIN to MAX bytes by FACTOR (default $MINB $MAXB $FACTOR)
  -n -w   timed iterations and warm-up calls per size (default $ITERS $WARMUP)
  -T      stop a size's timed iterations after SECS (default $TLIMIT)
  -c      check every result against the double-precision reference
  -a      any of: optinc ring mpi mpi-box afxdp testpmd (default "$ALGOS")
  -C      size of the counted run for bytes per rank (default $CSIZE)
  -r      size the ratios are reported at (default $REF)
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

# optinc-io-bench at REF through testpmd: one line per rank.
testpmd_run() {
	local n=$1

	testpmd_up "$n" || return 1
	"$TESTBED" run --tb "$TB" -t "$LIMIT" "$IOBENCH" -b "$REF" \
		-n "$ITERS" -w "$WARMUP" | sed 's/^\[[0-9]*\] //'
	testpmd_down
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
	testpmd) testpmd_run "$n" ;;
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
	"$TESTBED" up --tb "$TB" -n "$n" >&2 || die "testbed with $n servers did not come up"
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
	"$TESTBED" down --tb "$TB" >&2
	[[ " $ALGOS " == *" testpmd "* ]] || return 0
	echo "### testpmd (I/O limit: optinc's frames at $REF reflected, no all-reduce)"
	echo
	echo '```'
	run_algo testpmd "$n" >"$TMP/$n.testpmd" 2>&1 || echo "# testpmd failed:"
	cat "$TMP/$n.testpmd"
	echo '```'
	echo
	"$TESTBED" down --tb "$TB" >&2
}

# testpmd's mean time per call over ranks (us), frames/s per rank (sum
# over ranks / n), Gbit/s received by all ranks, frames lost.
io_summary() {
	awk '$1 ~ /^[0-9]+$/ && NF == 8 { n++; t += $5; f += $6; g += $7; l += $8 }
	     END { if (n) printf "%.1f %.0f %.2f %d\n", t / n, f / n, g * 8, l }' "$1"
}

io_row() {
	local n=$1 io o t f g l

	io=$(io_summary "$TMP/$n.testpmd" 2>/dev/null)
	if [ -z "$io" ]; then
		echo "| $n | - | - | - | - | - | - |"
		return
	fi
	read -r t f g l <<<"$io"
	o=$(time_at "$TMP/$n.optinc")
	printf '| %s | %.1f | %s | %s | %s |' "$n" \
		"$(awk -v t="$t" 'BEGIN { print t / 1000 }')" "$f" "$g" "$l"
	if [ -n "$o" ]; then
		printf ' %.1f | %.2f |\n' "$(awk -v o="$o" 'BEGIN { print o / 1000 }')" \
			"$(awk -v t="$t" -v o="$o" 'BEGIN { print t / o }')"
	else
		printf ' - | - |\n'
	fi
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
		echo "## I/O limit at $REF: dpdk-testpmd vs optincd on the same ports"
		echo
		echo "testpmd: 5tswap forwarding (addresses swapped, frame sent back out"
		echo "of its port), the af_packet vdevs of optincd, one forwarding lcore on"
		echo "CPU 0; every rank sends optinc's frames of a $REF float32 call"
		echo "(optinc-io-bench: same count, UDP payload and window) and waits for"
		echo "them back. optincd's goodput / testpmd's = testpmd's time per call /"
		echo "optinc's (same frames; optinc's time includes quantizing and the"
		echo "exponent round)."
		echo
		echo "| N | testpmd ms/call | frames/s per rank | Gbit/s (all ranks, rx) | lost | optinc ms/call | optincd / testpmd |"
		echo "|---|---|---|---|---|---|---|"
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
