#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The line-rate benchmark in short, for correctness only (no timing):
# optinc-line-bench plays N members on net_memif ports of a real optincd
# (no veth, no namespaces) and checks every RESULT (seq, slot, shadow
# bit, shape, length, exponents, values); optincd's counters must agree
# with what it sent (every slot completed once, results to every member,
# nothing dropped or failed). Exact mode for N = 2, 3 and 16, and N = 4
# with results chained to one copy of the elements (OPTINCD_TX_CHAIN=1),
# onn mode with the shipped N = 4 table and with one 8 sums off the exact
# average; a table with wrong entries must make the check fail; reflect
# mode against dpdk-testpmd io forwarding. Two lcores: two jobs, one on
# each, results right and counters summed, whether the generator steers
# each job to its lcore's queue or sends all on queue 0 (handed over);
# a job added at run time goes to the lcore with fewer jobs; a port with
# fewer queues than lcores is refused by name. Prints TAP.
. "$(dirname "$0")/../net/lib.sh"

GEN=$O/bin/optinc-line-bench
OPTINCD=$O/bin/optincd
CTL=$O/bin/optincctl
INJECT=$O/tools/demo/optinc-table-inject
TESTPMD=${TESTPMD:-dpdk-testpmd}
F=3000 W=300
T_TMP=$(mktemp -d)
PFX=oline$$
SW_PID=

[ "$(id -u)" = 0 ] || skip_all "needs root for DPDK (--no-huge, /var/run/dpdk)"
[ -x "$GEN" ] && [ -x "$OPTINCD" ] || { echo "Bail out! $GEN or $OPTINCD not built"; exit 1; }

sw_down() {
	[ -n "$SW_PID" ] || return 0
	kill -INT "$SW_PID" 2>/dev/null
	wait "$SW_PID" 2>/dev/null
	SW_PID=
}

cleanup() {
	sw_down
	rm -rf "/var/run/dpdk/${PFX}sw" "/var/run/dpdk/${PFX}gen"
	tb_cleanup
}
trap cleanup EXIT

vdevs() {
	local n=$1 role=$2 i extra=

	[ "$role" = client ] && extra=,bsize=9216,rsize=9
	for ((i = 0; i < n; i++)); do
		printf -- '--vdev=net_memif%d,role=%s,socket=%s/m%d.sock,socket-abstract=no%s ' \
			"$i" "$role" "$T_TMP" "$i" "$extra"
	done
}

# optincd with $1 memif ports and job specs $2..., answering telemetry
# (on the lcores $LCORES, default 0).
optincd_up() {
	local i

	rm -f "$T_TMP"/m*.sock	# a switch that died leaves its sockets
	local n=$1

	shift
	OPTINCD_TX_CHAIN=${TX_CHAIN:-0} "$OPTINCD" -l "${LCORES:-0}" --no-huge \
		-m $((256 + 64 * n)) --no-pci \
		--file-prefix "${PFX}sw" $(vdevs "$n" server) -- \
		--addr 10.77.0.254 $(printf -- '--job %s ' "$@") >"$T_TMP/sw.log" 2>&1 &
	SW_PID=$!
	for ((i = 0; i < 200; i++)); do
		# telemetry comes up after the ports have started
		"$CTL" --prefix "${PFX}sw" daemon show >/dev/null 2>&1 && return 0
		kill -0 "$SW_PID" 2>/dev/null || break
		sleep 0.1
	done
	grep -v '^EAL' "$T_TMP/sw.log" | sed 's/^/# /' | tail -n 5
	return 1
}

testpmd_up() {
	local i

	rm -f "$T_TMP"/m*.sock
	# its stdout is a file: line-buffered, or the line waited for below
	# stays in its buffer (3 KiB in all) until it exits
	stdbuf -oL "$TESTPMD" --lcores 0@0,1@0 --no-huge -m 512 --no-pci \
		--file-prefix "${PFX}sw" $(vdevs "$1" server) -- \
		--forward-mode=io --port-topology=loop --auto-start \
		--stats-period=3600 --mbuf-size=9344 --total-num-mbufs=3072 \
		</dev/null >"$T_TMP/sw.log" 2>&1 &
	SW_PID=$!
	for ((i = 0; i < 200; i++)); do
		grep -q "packet forwarding - ports=" "$T_TMP/sw.log" && return 0
		kill -0 "$SW_PID" 2>/dev/null || break
		sleep 0.1
	done
	grep -v '^EAL' "$T_TMP/sw.log" | sed 's/^/# /' | tail -n 5
	sw_down		# one that never said so must not hold the prefix
	return 1
}

# gen NAME N ARGS...: the generator with N memif ports; its lines in $T_TMP/NAME
gen() {
	local name=$1 n=$2 rc

	shift 2
	"$GEN" -l 1 --no-huge -m 512 --no-pci --file-prefix "${PFX}gen" \
		$(vdevs "$n" client) -- -N "$n" -f "$F" -w "$W" "$@" \
		>"$T_TMP/$name" 2>&1
	rc=$?
	grep -E '^frames_in|checked|failed|wrong|differ|refused' "$T_TMP/$name" | sed 's/^#* */# /'
	return $rc
}

# Every frame of $2 members (of all jobs) came back checked ($1 the generator's lines).
all_checked() {
	grep -q "^# $(($2 * (F + W))) frames back, all checked" "$T_TMP/$1"
}

# optincd's job and port counters agree with a clean run of $1 members.
counters_agree() {
	"$CTL" --prefix "${PFX}sw" -j daemon job 1 >"$T_TMP/job" &&
	"$CTL" --prefix "${PFX}sw" -j daemon ports >"$T_TMP/ports" || return 1
	/usr/bin/python3 - "$T_TMP/job" "$T_TMP/ports" "$1" $((F + W)) "${TX_CHAIN:-0}" <<'PYEOF'
import json, sys
j, ports = (json.load(open(f)) for f in sys.argv[1:3])
n, total, chain = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
bad = []
if j["slots_completed"] != total:
    bad.append("slots_completed %d, not %d" % (j["slots_completed"], total))
# unit T on one copy of the elements: every member's result of every slot
# when the ports chain (a result sent again to one rank is a whole frame)
shared = total * n if chain else 0
if j["results_shared"] != shared or j["results"] < shared:
    bad.append("results %d, results_shared %d, not %d" % (j["results"], j["results_shared"], shared))
for m in j["members"]:
    if m["frames_out"] < total or m["frames_in"] < total:
        bad.append("member %d: in %d out %d" % (m["rank"], m["frames_in"], m["frames_out"]))
if j["tx_errors"]:
    bad.append("tx_errors %d" % j["tx_errors"])
drops = {k: v for k, v in j["drops"].items() if v and k != "duplicate"}
if drops:
    bad.append("drops %s" % drops)
for p in ports:
    if p["rx_dropped"] > j["drops"]["duplicate"]:
        bad.append("port %d: rx_dropped %d" % (p["port"], p["rx_dropped"]))
# A loaded generator may leave a memif ring full: the port refuses the frame
# (tx_dropped) and the generator sends its own again. Every frame the job
# counted must still be a port's, sent or refused.
tx = sum(p["tx_pkts"] + p["tx_dropped"] for p in ports)
if tx != j["frames_out"]:
    bad.append("ports tx + refused %d, the job's frames out %d" % (tx, j["frames_out"]))
for b in bad:
    print("# " + b)
sys.exit(1 if bad else 0)
PYEOF
}

# exact_run N: optincd exact with N members, the generator, the counters.
exact_run() {
	local n=$1

	optincd_up "$n" "id=1,size=$n,bits=8,token=77" || return 1
	gen "exact$n" "$n" --token 77 --peer "$SW_PID" &&
		all_checked "exact$n" "$n" && counters_agree "$n"
	local rc=$?
	sw_down
	return $rc
}

tap_plan 13

ok_if "N = 2, exact: every result checked, optincd's counters agree" exact_run 2
ok_if "N = 3, exact (average by multiply and shift)" exact_run 3
ok_if "N = 16, exact" exact_run 16
chain_run() {
	local TX_CHAIN=1

	exact_run 4
}
ok_if "N = 4, exact, results chained to one copy of the elements" chain_run

onn_run() {
	optincd_up 4 "id=1,size=4,bits=8,mode=onn,table=$SRC_ROOT/models/onn-n4.tbl" ||
		return 1
	gen onn4 4 --table "$SRC_ROOT/models/onn-n4.tbl" && all_checked onn4 4 &&
		counters_agree 4
	local rc=$?
	sw_down
	return $rc
}
ok_if "N = 4, onn (models/onn-n4.tbl): results are the table's" onn_run

# a table whose entries near the stream's averages are wrong: the
# generator, expecting the exact average, must refuse the results
wrong_table_fails() {
	"$INJECT" -n 2 -o "$T_TMP/wrong.tbl" --errors 400 --near 40 >/dev/null &&
		optincd_up 2 "id=1,size=2,bits=8,mode=onn,table=$T_TMP/wrong.tbl" ||
		return 1
	gen wrong 2 -t 200
	local rc=$?
	sw_down
	[ $rc != 0 ] && grep -q "wrong values" "$T_TMP/wrong"
}
ok_if "a table with wrong entries makes the check fail" wrong_table_fails

onn_wrong_expected() {
	optincd_up 2 "id=1,size=2,bits=8,mode=onn,table=$T_TMP/wrong.tbl" ||
		return 1
	gen onnw 2 --table "$T_TMP/wrong.tbl" && all_checked onnw 2
	local rc=$?
	sw_down
	return $rc
}
ok_if "... and passes when the generator looks the same table up" onn_wrong_expected

# a table 8 whole sums off the exact average, near the stream's averages:
# optincd computes the average and puts the 8 patches in (onn.md section
# 6), the generator looks every result up in the whole table (unit P's
# planes); the stream must hit patched sums
onn_patched() {
	"$INJECT" -n 4 -o "$T_TMP/sums.tbl" --errors 8 --by-sum --near 30 \
		>/dev/null &&
		"$CTL" -j table show "$T_TMP/sums.tbl" |
		grep -q '"by_avg":"yes","patches":8' &&
		optincd_up 4 "id=1,size=4,bits=8,mode=onn,table=$T_TMP/sums.tbl" ||
		return 1
	gen onnp 4 --table "$T_TMP/sums.tbl" && all_checked onnp 4 &&
		counters_agree 4 && grep -q "averages differ" "$T_TMP/onnp" &&
		! grep -q ": 0 of the stream" "$T_TMP/onnp"
	local rc=$?
	sw_down
	return $rc
}
ok_if "N = 4, onn, 8 sums off the exact average: the average and 8 patches" onn_patched

reflect_run() {
	testpmd_up 2 || return 1
	gen reflect 2 -M reflect && all_checked reflect 2
	local rc=$?
	sw_down
	return $rc
}
if command -v "$TESTPMD" >/dev/null; then
	ok_if "reflect mode through dpdk-testpmd io forwarding" reflect_run
else
	T_NUM=$((T_NUM + 1))
	echo "ok $T_NUM - reflect mode through dpdk-testpmd # SKIP $TESTPMD not installed"
fi
# ---- two lcores ----

# The counters of a clean run of jobs 1 and 2 (4 members each) on two
# lcores: each job on its own lcore, every slot done once, every port's
# counters the sum of the lcores' (what they took from the rx queues), and
# hand-offs: $1 = none, or all (every frame of job 2).
lcores_agree() {
	local j

	for j in 1 2; do
		"$CTL" --prefix "${PFX}sw" -j daemon job $j >"$T_TMP/job$j" || return 1
	done
	"$CTL" --prefix "${PFX}sw" -j daemon ports >"$T_TMP/ports" &&
	"$CTL" --prefix "${PFX}sw" -j daemon lcores >"$T_TMP/lcores" || return 1
	/usr/bin/python3 - "$T_TMP" $((F + W)) "$1" <<'PYEOF'
import json, sys
tmp, total, hand = sys.argv[1], int(sys.argv[2]), sys.argv[3]
jobs = [json.load(open("%s/job%d" % (tmp, j))) for j in (1, 2)]
ports = json.load(open(tmp + "/ports"))
lc = json.load(open(tmp + "/lcores"))
bad = []
if [j["lcore"] for j in jobs] != [0, 1]:
    bad.append("jobs on lcores %s, not [0, 1]" % [j["lcore"] for j in jobs])
if [w["jobs"] for w in lc] != [1, 1]:
    bad.append("lcores serve %s jobs" % [w["jobs"] for w in lc])
for j in jobs:
    if j["slots_completed"] != total or j["tx_errors"]:
        bad.append("job %d: slots %d tx_errors %d" % (j["id"], j["slots_completed"], j["tx_errors"]))
rx = sum(p["rx_pkts"] for p in ports)
if rx != sum(w["rx_frames"] for w in lc):
    bad.append("ports rx %d, lcores rx %d" % (rx, sum(w["rx_frames"] for w in lc)))
if rx < sum(j["frames_in"] for j in jobs):
    bad.append("ports rx %d < jobs' frames in" % rx)
# Two lcores feed one generator CPU: a memif ring may be full and refuse a
# frame (the generator sends it again). Every frame a job counted must
# still be a port's, sent or refused.
tx = sum(p["tx_pkts"] for p in ports)
refused = sum(p["tx_dropped"] for p in ports)
if tx + refused != sum(j["frames_out"] for j in jobs):
    bad.append("ports tx %d + refused %d, jobs' frames out %d" % (tx, refused, sum(j["frames_out"] for j in jobs)))
out = sum(w["handed_out"] for w in lc)
if out != sum(w["handed_in"] for w in lc) or any(w["handoff_full"] for w in lc):
    bad.append("handed out %d, in %d" % (out, sum(w["handed_in"] for w in lc)))
if hand == "none" and out:
    bad.append("%d frames handed over, steered by queue" % out)
if hand == "all" and (out < jobs[1]["frames_in"] or lc[1]["rx_frames"]):
    bad.append("handed over %d of job 2's %d, lcore 1 took %d itself" % (out, jobs[1]["frames_in"], lc[1]["rx_frames"]))
for b in bad:
    print("# " + b)
sys.exit(1 if bad else 0)
PYEOF
}

# two_lcores NAME SPREAD: jobs 1 and 2 on two lcores, generator on 2
# queues, the jobs' frames on queues k % SPREAD.
two_lcores() {
	local LCORES=0,1 name=$1 spread=$2 hand=none

	[ "$spread" = 1 ] && hand=all
	optincd_up 4 id=1,size=4,bits=8 id=2,size=4,bits=8 || return 1
	gen "$name" 4 -J 2 -Q 2 --spread "$spread" --peer "$SW_PID" \
		--ctl "$CTL" --prefix "${PFX}sw" && all_checked "$name" 8 &&
		grep -q '^lcores=2 ' "$T_TMP/$name" && lcores_agree "$hand"
	local rc=$?
	sw_down
	return $rc
}
ok_if "2 lcores, a job each, steered by queue: results right, counters summed, none handed over" \
	two_lcores lc2 2
ok_if "2 lcores, every frame on queue 0: job 2's handed to lcore 1, results right" \
	two_lcores lc2h 1

# at run time: job 3 goes to the lcore with fewer jobs (1), job 4 then to
# lcore 0; removing job 3 frees lcore 1's place for job 5
runtime_place() {
	local LCORES=0,1 j ok=0

	optincd_up 2 id=1,size=2,bits=8 id=2,size=2,bits=8 id=9,size=2,bits=8 ||
		return 1
	"$CTL" --prefix "${PFX}sw" daemon job add id 3 size 2 >/dev/null &&
	"$CTL" --prefix "${PFX}sw" daemon job add id 4 size 2 >/dev/null &&
	"$CTL" --prefix "${PFX}sw" daemon job del 3 >/dev/null &&
	"$CTL" --prefix "${PFX}sw" daemon job add id 5 size 2 >/dev/null &&
	"$CTL" --prefix "${PFX}sw" -j daemon jobs >"$T_TMP/rjobs" || ok=1
	sw_down
	[ $ok = 0 ] || return 1
	/usr/bin/python3 -c '
import json, sys
got = {j["id"]: j["lcore"] for j in json.load(open(sys.argv[1]))}
want = {1: 0, 2: 1, 9: 0, 4: 0, 5: 1}
print("# jobs on lcores %s" % got)
sys.exit(got != want)' "$T_TMP/rjobs"
}
ok_if "2 lcores: jobs added at run time go to the lcore with fewer jobs" runtime_place

# net_af_packet has one queue pair unless told: two lcores need two
qpairs_refused() {
	"$OPTINCD" -l 0,1 --no-huge -m 256 --no-pci --file-prefix "${PFX}sw" \
		--vdev=net_af_packet0,iface=lo -- --addr 10.77.0.254 \
		>"$T_TMP/qp.log" 2>&1
	local rc=$?
	grep -v '^EAL' "$T_TMP/qp.log" | grep 'tx queues' | sed 's/^/# /'
	[ $rc != 0 ] && grep -q "port 0 (net_af_packet0, net_af_packet) has 1 tx queues; 2 lcores need one each.*qpairs=2" "$T_TMP/qp.log"
}
ok_if "2 lcores on a port of 1 queue pair: refused, naming the port and qpairs=" qpairs_refused

tap_end
