#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Jobs added and removed while optincd runs (optincctl job add|del, the
# telemetry's /optinc/job_add and /optinc/job_del), on a 4-server
# testbed: job 1 (N = 4) runs checked all-reduces the whole time while
# job 2 is added (N = 2), used, removed, used again (its frames dropped and
# counted as of no job), added again with another size (N = 3) and used;
# then 1000 add/remove cycles of a third job. Job 1's results stay right
# and bit-identical on every rank, its counters grow at every look, and
# optincd's memory does not grow with the cycles. TAP.
. "$(dirname "$0")/lib.sh"

require_root
RANK=$O/selftests/scale/scale_rank
TB=$(tb_name jrt)
CYCLES=${OPTINC_JOB_CYCLES:-1000}
TOL=${OPTINC_JOB_RSS_KB:-512}
T_TMP=$(mktemp -d)
trap 'ranks_kill; tb_cleanup; rm -rf "$T_TMP"' EXIT

ctl() { "$TESTBED" ctl --tb "$TB" "$@"; }
qctl() { ctl "$@" >/dev/null; }
rss_kb() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$1/status"; }
unknown_job() {
	ctl -j switch show | /usr/bin/python3 -c \
		'import json, sys; print(json.load(sys.stdin)["drops"]["unknown_job"])'
}
frames_in() { job_counters "$TB" 1 | cut -d' ' -f2; }

# job2 DIR SIZE TOKEN [extra env]: job 2's ranks on servers 0..SIZE-1, 2 s
job2() {
	local dir=$1 size=$2 token=$3 r

	mkdir -p "$dir"
	for ((r = 0; r < size; r++)); do
		rank_start "$TB" "$r" "$r" 2 "$size" "$token" "$dir/rank$r.log" \
			env OPTINC_TIMEOUT_MS=1500 "$RANK" -c 4096 -T 2
	done
	ranks_wait 30
}

tap_plan 16
if ! tb_up "$TB" -n 4 --job "id=1,size=4,bits=8"; then
	ok_if "testbed with job 1 up" false
	tap_end
	exit 1
fi
ok_if "testbed with job 1 up" true
dpid=$(cat "/run/optinc-testbed/$TB/daemon.pid")

# job 1 runs through everything below
J1=()
mkdir -p "$T_TMP/j1"
for r in 0 1 2 3; do
	rank_start "$TB" "$r" "$r" 1 4 0 "$T_TMP/j1/rank$r.log" "$RANK" -c 65536 -T 25
	J1+=("${S_PIDS[-1]}")
done
S_PIDS=()
sleep 1
f0=$(frames_in)

ok_if "job add id 2 size 2 token 22 while job 1 runs" \
	qctl job add id 2 size 2 token 22 window 8 max-elems 4096
job2 "$T_TMP/a" 2 22
ok_if "job 2 (N = 2): every result right" logs_pass "$T_TMP/a" 2
f1=$(frames_in)
ok_if "job del 2" ctl job del 2
gone() { ! ctl job show 2 >/dev/null 2>&1 && ! ctl job show | grep -q "^job 2 "; }
ok_if "job 2 is gone from job show" gone
u0=$(unknown_job)
job2 "$T_TMP/b" 2 22
u1=$(unknown_job)
echo "# unknown_job drops: $u0 -> $u1"
ok_if "a removed job's ranks are refused (no such job)" \
	bash -c "! grep -qx PASS $T_TMP/b/rank*.log && grep -q 'no such job' $T_TMP/b/rank0.log"
ok_if "a removed job's frames are dropped and counted (unknown_job)" test "$u1" -gt "$u0"
f2=$(frames_in)
ok_if "job 2 added again, N = 3" qctl job add id 2 size 3 token 23 window 8 max-elems 4096
job2 "$T_TMP/c" 3 23
ok_if "job 2 (N = 3): every result right" logs_pass "$T_TMP/c" 3
ok_if "job del 2, again" ctl job del 2
f3=$(frames_in)

# CYCLES add/remove of job 3 on one telemetry connection, then memory
cyc() {
	local i cmds=()

	for ((i = 0; i < $1; i++)); do
		cmds+=("/optinc/job_add,id=3,size=2,window=4,max-elems=1024" "/optinc/job_del,3")
	done
	"$TESTBED" tel --tb "$TB" "${cmds[@]}" | /usr/bin/python3 -c '
import json, sys
ok = 0
for line in sys.stdin:
    a = json.loads(line)
    v = next(iter(a.values()))
    ok += v.get("added", 0) + v.get("removed", 0)
print(ok)'
}
warm=$(cyc 50)
m0=$(rss_kb "$dpid")
got=$(cyc "$CYCLES")
m1=$(rss_kb "$dpid")
echo "# $CYCLES add/remove cycles: $got of $((2 * CYCLES)) answers ok; optincd VmRSS $m0 -> $m1 kB"
ok_if "$CYCLES add/remove cycles, each answered ok" test "$warm" = 100 -a "$got" = $((2 * CYCLES))
ok_if "optincd's memory did not grow by more than $TOL kB over the cycles" \
	test -n "$m0" -a -n "$m1" -a $((m1 - m0)) -le "$TOL"
f4=$(frames_in)

S_PIDS=("${J1[@]}")
ranks_wait 60
echo "# job 1 frames in: $f0 $f1 $f2 $f3 $f4"
ok_if "job 1's counters grew at every look" \
	test "$f0" -lt "$f1" -a "$f1" -lt "$f2" -a "$f2" -lt "$f3" -a "$f3" -lt "$f4"
ok_if "job 1 (N = 4): every result right on every rank" logs_pass "$T_TMP/j1" 4
ok_if "job 1: all ranks bit-identical" test -n "$(logs_hash "$T_TMP/j1")"
tb_cleanup
ok_if "nothing left" nothing_left
tap_end
