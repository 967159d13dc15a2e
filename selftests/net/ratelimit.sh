#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bounded abuse on optincd (issue 16): while 4 ranks run checked allreduces
# (rel_rank), server 3 floods bad-token DATA frames and JOINs from its port.
# At most rate * time + burst of them reach the token check, the rest are
# counted as rate_limited on port 3 and get no answer; the job's p99 call
# time stays within 2x of a control run and every result is checked. JOINs
# for a job that does not exist are NACKed only within the limit. With
# --rate-limit 0 every frame reaches the token check.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/inject_lib.sh"

require_root
RANK=$O/selftests/reliability/rel_rank
INJ=$O/selftests/net/ps_inject
PPS=${RL_PPS:-1000}		# optincd's defaults, given explicitly
BURST=${RL_BURST:-64}
FLOOD=${RL_FLOOD:-10000}	# frames of each kind (DATA, JOIN)
SECS=${RL_SECS:-2}
RUN_S=${RL_RUN_S:-4}
FLOOR_MS=${RL_FLOOR_MS:-25}	# p99 below this counts as this (portsec.sh)
TOKEN=0x5ca1e
SW=10.77.0.254
T_TMP=$(mktemp -d)

bad_token() { tel "$1" "/optinc/job,$2" "d['drops']['bad_token']"; }
sw_ctr() { tel "$1" /optinc/info "d['$2']"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# inject TB SERVER KIND COUNT SECS ARGS...: ps_inject from a server's eth0
# with its own MAC and IP; prints the frames sent (report in inject.log).
inject() {
	local tb=$1 h=$2 kind=$3 n=$4 secs=$5

	shift 5
	ip netns exec "$tb-h$h" "$INJ" -i eth0 -D "$(sw_mac "$tb-h$h")" \
		-S "$(mac_of "$tb-h$h")" -s "10.77.0.$((h + 1))" -d "$SW" \
		-k "$kind" -n "$n" -t "$secs" "$@" 2>&1 |
		tee -a "$T_TMP/inject.log" | sed -n 's/^sent \([0-9]*\) .*/\1/p'
}

# flood TB DIR KIND1 KIND2: two injectors from server 3 at once, FLOOD
# frames each in SECS; DIR/sent gets the total, DIR/ms the time taken.
flood() {
	local tb=$1 dir=$2 t0 a b ipid

	t0=$(now_ms)
	inject "$tb" 3 "$3" "$FLOOD" "$SECS" -p 40000 -j 1 -r 3 -T 0x1 >"$dir/sent1" &
	ipid=$!
	inject "$tb" 3 "$4" "$FLOOD" "$SECS" -p 40001 -j 1 -r 3 -T 0x2 >"$dir/sent2"
	wait $ipid
	echo $(($(now_ms) - t0)) >"$dir/ms"
	a=$(cat "$dir/sent1") b=$(cat "$dir/sent2")
	echo $((${a:-0} + ${b:-0})) >"$dir/sent"
}

# run_flood TB DIR KIND1 KIND2: the ranks for RUN_S, the flood from 1 s in.
run_flood() {
	local rpid

	mkdir -p "$2"
	"$TESTBED" run --tb "$1" -t 60 -o "$2" "$RANK" -t "$RUN_S" >/dev/null 2>&1 &
	rpid=$!
	sleep 1
	flood "$1" "$2" "$3" "$4"
	wait $rpid
}

# allowed_ok N MS: N frames reached the token check in MS ms of flood:
# at most rate * (time + 100 ms for the switch's queue) + burst, and at
# least half the rate over SECS (the flood offers 10x the rate).
allowed_ok() {
	local n=$1 ms=$2 hi lo

	hi=$((PPS * (ms + 100) / 1000 + BURST))
	lo=$((PPS * SECS / 2))
	echo "# reached the token check: $n in $ms ms (bounds $lo..$hi)"
	[ "$n" -le "$hi" ] && [ "$n" -ge "$lo" ]
}

# sum_ok SENT ALLOWED LIMITED: each frame counted once, as bad_token or as
# rate_limited; up to 1 % may be lost before the switch (af_packet ring).
sum_ok() {
	local s=$1 a=$2 l=$3

	echo "# sent $s = bad_token $a + rate_limited $l (+ $((s - a - l)) lost)"
	[ $((a + l)) -le "$s" ] && [ $((100 * (s - a - l))) -le "$s" ]
}

flood_case() {
	local tb=$1 d=$T_TMP/$1 clean ctl att b0 l0 o0 sent allowed limited

	mkdir -p "$d/clean"
	"$TESTBED" run --tb "$tb" -t 60 -o "$d/clean" "$RANK" -t "$RUN_S" >/dev/null 2>&1
	clean=$(p99_ms "$d/clean/rank0.log")
	ok_if "clean run, every rank's calls checked" passed "$d"/clean/rank*.log
	l0=$(port_ctr "$tb" 3 rate_limited)
	run_flood "$tb" "$d/ctl" magic magic
	ctl=$(p99_ms "$d/ctl/rank0.log")
	ok_if "control run ($((2 * FLOOD)) frames without OptINC magic from server 3): checked, none charged" \
		eq "$(passed "$d"/ctl/rank*.log && echo pass) $(($(port_ctr "$tb" 3 rate_limited) - l0))" \
		"pass 0" "ranks, rate_limited on port 3"
	b0=$(bad_token "$tb" 1)
	l0=$(port_ctr "$tb" 3 rate_limited)
	o0=$(for p in 0 1 2; do port_ctr "$tb" $p rate_limited; done | paste -sd+ | bc)
	run_flood "$tb" "$d/att" data join
	att=$(p99_ms "$d/att/rank0.log")
	sent=$(cat "$d/att/sent")
	allowed=$(($(bad_token "$tb" 1) - b0))
	limited=$(($(port_ctr "$tb" 3 rate_limited) - l0))
	echo "# injector (its 'leaked' are rank 3's own results): $(tail -n 4 "$T_TMP/inject.log" | tr '\n' ' ')"
	echo "# rank 0 calls: p99 clean $clean ms, control $ctl ms, flooded $att ms; slowest $(max_ms "$d/clean/rank0.log"), $(max_ms "$d/ctl/rank0.log"), $(max_ms "$d/att/rank0.log") ms; retransmits $(retx "$d/clean/rank0.log"), $(retx "$d/ctl/rank0.log"), $(retx "$d/att/rank0.log")"
	echo "# rank 3 (the flooding server's own rank): p99 flooded $(p99_ms "$d/att/rank3.log") ms"
	ok_if "flood: every rank's calls checked (rank 3 too, on the flooding port)" \
		passed "$d"/att/rank*.log
	ok_if "flood: rank 0's p99 call time within 2x the control run's" within_2x "$att" "$ctl"
	ok_if "flood: at most rate * time + burst frames reached the token check" \
		allowed_ok "$allowed" "$(cat "$d/att/ms")"
	ok_if "flood: the rest counted as rate_limited on port 3" \
		sum_ok "${sent:-0}" "$allowed" "$limited"
	ok_if "flood: no other port charged (members' DATA never is)" \
		eq "$(($(for p in 0 1 2; do port_ctr "$tb" $p rate_limited; done | paste -sd+ | bc) - o0))" \
		0 "rate_limited on ports 0-2"
	nack_case "$tb"
}

# JOINs for a job the switch does not have are NACKed, but only within the
# limit: the NACKs that reach server 3 are the JOINs let through.
nack_case() {
	local tb=$1 n0 l0 sent leaked nacks limited ms

	sleep 0.5	# the bucket refills to its burst
	n0=$(sw_ctr "$tb" nacks)
	l0=$(port_ctr "$tb" 3 rate_limited)
	sent=$(inject "$tb" 3 join 2000 0.2 -p 40002 -j 99 -r 0 -T 0x1 -W 0.5)
	ms=$(tail -n 2 "$T_TMP/inject.log" | sed -n 's/^sent .* in \([0-9]*\)\.\([0-9]*\) s$/\1\2/p')
	ms=$((10#$ms))
	leaked=$(tail -n 1 "$T_TMP/inject.log" | sed -n 's/^leaked \([0-9]*\)$/\1/p')
	nacks=$(($(sw_ctr "$tb" nacks) - n0))
	limited=$(($(port_ctr "$tb" 3 rate_limited) - l0))
	echo "# JOINs for job 99: sent $sent in $ms ms, NACKs sent $nacks, received $leaked, rate_limited $limited"
	ok_if "JOINs past the limit get no answer: NACKs received = NACKs sent <= rate * time + burst" \
		eq "$leaked $([ "$nacks" -le $((PPS * (ms + 100) / 1000 + BURST)) ] && echo ok)" \
		"$nacks ok" "NACKs received, bound"
	ok_if "JOINs past the limit counted as rate_limited" sum_ok "${sent:-0}" "$nacks" "$limited"
}

# --rate-limit 0: every bad-token frame reaches the token check.
off_case() {
	local tb=$1 b0 sent

	b0=$(bad_token "$tb" 1)
	sent=$(inject "$tb" 3 data 3000 0.3 -p 40000 -j 1 -r 3 -T 0x1)
	sleep 0.3
	ok_if "--rate-limit 0: every bad-token frame dropped as bad_token, none rate_limited" \
		eq "$(($(bad_token "$tb" 1) - b0)) $(port_ctr "$tb" 3 rate_limited)" \
		"${sent:-none} 0" "bad_token, rate_limited on port 3"
}

for f in "$RANK" "$INJ"; do
	[ -x "$f" ] || { tap_plan 1; ok_if "$f is built" false; exit 1; }
done
command -v bc >/dev/null || skip_all "needs bc"
tap_plan 13
TBA=$(tb_name rla)
TBB=$(tb_name rlb)
if ok_if "testbed rla up: 4 servers, job 1 of 4 with a token, --rate-limit $PPS,$BURST" \
	tb_up "$TBA" -n 4 --job id=1,size=4,bits=8,token=$TOKEN \
	--daemon-args "--rate-limit $PPS,$BURST"; then
	flood_case "$TBA"
else
	for ((i = 0; i < 9; i++)); do ok_if "flood case (no testbed)" false; done
fi
tb_down "$TBA"
if ok_if "testbed rlb up: --rate-limit 0" \
	tb_up "$TBB" -n 4 --job id=1,size=4,bits=8,token=$TOKEN \
	--daemon-args "--rate-limit 0"; then
	off_case "$TBB"
else
	ok_if "off case (no testbed)" false
fi
tb_down "$TBB"
ok_if "no namespace left behind" nothing_left
tap_end
