#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Port security of optincd (issue 16): the L2 hijack replayed during a live
# job (frames with rank 0's source MAC from server 3's port) must leave
# rank 0's binding, results and call times alone and be counted as spoofs,
# one per frame; ARP for the switch's address from a server, frames of a
# bound member from another port with the right token, and a JOIN without
# the token are refused; a JOIN with the token from a new port rebinds. A
# second job on the same switch is unaffected by a flood from the first
# job's member. Every rank runs rel_rank (checked int32 SUM + float32 AVG).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/inject_lib.sh"

require_root
RANK=$O/selftests/reliability/rel_rank
INJ=$O/selftests/net/ps_inject
FRAMES=${PS_FRAMES:-577}	# the issue's hijack: 577 frames in 2 s
SECS=${PS_SECS:-2}
RUN_S=${PS_RUN_S:-4}		# each run of the ranks
FLOOR_MS=${PS_FLOOR_MS:-25}	# clean slowest calls below this count as this
WRONG=${PS_WRONG:-200}
SW=10.77.0.254
T_TMP=$(mktemp -d)

job_ctr() { tel "$1" "/optinc/job,$2" "d['$3']"; }
member() { tel "$1" "/optinc/members,$2" "d['$3']['$4']"; }

# Count, in server namespace $1, results and acks from the switch to $2
# that arrive on this server's port (netdev ingress, before any socket).
leak_watch() {
	ip netns exec "$1" nft -f - <<EOF
table netdev ps_leak {
	chain in {
		type filter hook ingress device "eth0" priority 0;
		ip saddr $SW ip daddr $2 udp sport 47000 counter
	}
}
EOF
}

leak_count() {
	ip netns exec "$1" nft list table netdev ps_leak |
		sed -n 's/.*counter packets \([0-9]*\).*/\1/p'
}

# inject TB SERVER KIND COUNT SECS ARGS...: ps_inject from a server's eth0;
# prints how many frames it sent (its report goes to $T_TMP/inject.log).
inject() {
	local tb=$1 h=$2 kind=$3 n=$4 secs=$5

	shift 5
	ip netns exec "$tb-h$h" "$INJ" -i eth0 -D "$(sw_mac "$tb-h$h")" \
		-d "$SW" -k "$kind" -n "$n" -t "$secs" "$@" 2>&1 |
		tee -a "$T_TMP/inject.log" | sed -n 's/^sent \([0-9]*\) .*/\1/p'
}

# ---- the hijack of issue 16, on one job of 4 ranks

hijack_case() {
	local tb=$1 d=$T_TMP/$1 vmac amac clean ctl att sent s0 m0 rpid i

	mkdir -p "$d/clean" "$d/ctl" "$d/att"
	"$TESTBED" run --tb "$tb" -t 60 -o "$d/clean" "$RANK" -t "$RUN_S" >/dev/null 2>&1
	clean=$(p99_ms "$d/clean/rank0.log")
	ok_if "hijack: clean run, every rank's calls checked" passed "$d"/clean/rank*.log
	vmac=$(mac_of "$tb-h0")
	amac=$(mac_of "$tb-h3")
	leak_watch "$tb-h3" 10.77.0.1
	s0=$(port_ctr "$tb" 3 spoofed)
	"$TESTBED" run --tb "$tb" -t 60 -o "$d/ctl" "$RANK" -t "$RUN_S" >/dev/null 2>&1 &
	rpid=$!
	sleep 1
	inject "$tb" 3 magic "$FRAMES" "$SECS" -S "$amac" -s 10.77.0.4 -p 40000 -W 1 >/dev/null
	wait $rpid
	ctl=$(p99_ms "$d/ctl/rank0.log")
	ok_if "hijack: control run (the same frames from server 3's own MAC and IP): checked, no spoof" \
		eq "$(passed "$d"/ctl/rank*.log && echo pass) $(($(port_ctr "$tb" 3 spoofed) - s0))" "pass 0" "ranks, spoofed on port 3"
	s0=$(port_ctr "$tb" 3 spoofed)
	m0=$(tel "$tb" /optinc/info "d['fdb_moved']")
	"$TESTBED" run --tb "$tb" -t 60 -o "$d/att" "$RANK" -t "$RUN_S" >/dev/null 2>&1 &
	rpid=$!
	sleep 1
	sent=$(inject "$tb" 3 magic "$FRAMES" "$SECS" -S "$vmac" -s 10.77.0.1 -p 40000 -W 1)
	wait $rpid
	att=$(p99_ms "$d/att/rank0.log")
	echo "# injector: $(tail -n 2 "$T_TMP/inject.log" | tr '\n' ' ')"
	echo "# victim (rank 0) calls: p99 clean $clean ms, control $ctl ms, attacked $att ms; slowest $(max_ms "$d/clean/rank0.log"), $(max_ms "$d/ctl/rank0.log"), $(max_ms "$d/att/rank0.log") ms; retransmits $(retx "$d/clean/rank0.log"), $(retx "$d/ctl/rank0.log"), $(retx "$d/att/rank0.log"); JOIN probes $(probes "$d/clean/rank0.log"), $(probes "$d/ctl/rank0.log"), $(probes "$d/att/rank0.log")"
	ok_if "hijack: every rank's calls checked during the attack" passed "$d"/att/rank*.log
	ok_if "hijack: victim's p99 call time within 2x the control run's" within_2x "$att" "$ctl"
	ok_if "hijack: port 3's spoof counter equals the frames sent" \
		eq "$(($(port_ctr "$tb" 3 spoofed) - s0))" "${sent:-none}" "spoofed on port 3 (sent $FRAMES)"
	ok_if "hijack: no result for rank 0 left by port 3" \
		eq "$(leak_count "$tb-h3")" 0 "results to 10.77.0.1 received by server 3"
	ok_if "hijack: rank 0 still bound to port 0, no FDB move" \
		eq "$(member "$tb" 1 0 port) $(($(tel "$tb" /optinc/info "d['fdb_moved']") - m0))" "0 0" "rank 0's port, FDB moves"

	# ARP replies for the switch's address from server 3
	s0=$(port_ctr "$tb" 3 spoofed)
	sent=$(inject "$tb" 3 arp 50 0.1 -S "$amac" -s "$SW")
	sleep 0.2
	ok_if "ARP for the switch's address from a server: dropped, counted" \
		eq "$(($(port_ctr "$tb" 3 spoofed) - s0)) $(sw_mac "$tb-h0")" \
		"${sent:-none} $(tel "$tb" /optinc/info "d['mac']")" "spoofed on port 3, rank 0's switch MAC"

	# rank 0's IP and UDP port with the job's token, from server 3's MAC and port
	local vport w0 j0
	vport=$(member "$tb" 1 0 addr | cut -d: -f2)
	w0=$(port_ctr "$tb" 3 wrong_port)
	j0=$(job_ctr "$tb" 1 wrong_port)
	sent=$(inject "$tb" 3 data "$WRONG" 0.5 -S "$amac" -s 10.77.0.1 -p "$vport" -j 1 -r 0 -T 0x5ca1e)
	sleep 0.2
	ok_if "DATA of a bound member from another port with the token: wrong_port" \
		eq "$(($(port_ctr "$tb" 3 wrong_port) - w0)) $(($(job_ctr "$tb" 1 wrong_port) - j0))" \
		"${sent:-none} $sent" "wrong_port on port 3 and job 1"

	# server 0 in a second job (of 1), bound to port 0 too
	job2_on_h0 "$tb" "$d/job2a.log"

	# a move: rank 0's JOIN from port 3, first without the token, then with it
	s0=$(port_ctr "$tb" 3 spoofed)
	inject "$tb" 3 join 1 0 -S "$vmac" -s 10.77.0.1 -p "$vport" -j 1 -r 0 -T 0x1 >/dev/null
	sleep 0.2
	ok_if "spoofed JOIN without the token: spoof, no rebind" \
		eq "$(($(port_ctr "$tb" 3 spoofed) - s0)) $(job_ctr "$tb" 1 rebinds) $(member "$tb" 1 0 port)" \
		"1 0 0" "spoofed, rebinds, rank 0's port"
	inject "$tb" 3 join 1 0 -S "$vmac" -s 10.77.0.1 -p "$vport" -j 1 -r 0 -T 0x5ca1e >/dev/null
	for ((i = 0; i < 20; i++)); do
		[ "$(member "$tb" 1 0 port)" = 3 ] && break
		sleep 0.1
	done
	ok_if "JOIN with the token from a new port: rebound, counted, logged" \
		eq "$(job_ctr "$tb" 1 rebinds) $(member "$tb" 1 0 port) $(grep -c 'rank 0 moved from port 0' "/run/optinc-testbed/$tb/daemon.log")" \
		"1 3 1" "rebinds, rank 0's port, log lines"
	ok_if "after job 1's rank 0 moved, server 0 still works in job 2 from port 0" \
		job2_on_h0 "$tb" "$d/job2b.log"
}

# job2_on_h0 TB LOG: a short checked run of job 2 (size 1) on server 0
job2_on_h0() {
	timeout 30 "$TESTBED" exec --tb "$1" 0 env OPTINC_JOB=2 OPTINC_RANK=0 \
		OPTINC_SIZE=1 OPTINC_TOKEN=0x2 OPTINC_PEERS=10.77.0.1 \
		"$RANK" -t 0.5 >"$2" 2>&1
	passed "$2"
}

# ---- two jobs: job 1 on servers 0-1, job 2 on servers 2-3; server 1 floods

# run_jobs TB DIR: both jobs' ranks, rel_rank each, in the background.
run_jobs() {
	local tb=$1 dir=$2 h job rank tok

	mkdir -p "$dir"
	for h in 0 1 2 3; do
		job=$((h / 2 + 1)) rank=$((h % 2))
		tok=0x111
		[ $job = 2 ] && tok=0x222
		timeout 60 "$TESTBED" exec --tb "$tb" "$h" env OPTINC_JOB=$job \
			OPTINC_RANK=$rank OPTINC_SIZE=2 OPTINC_TOKEN=$tok \
			OPTINC_PEERS=10.77.0.$((2 * job - 1)),10.77.0.$((2 * job)) \
			"$RANK" -t "$RUN_S" \
			>"$dir/job$job-rank$rank.log" 2>&1 &
	done
}

# vport_of TB: job 2's rank 0 UDP port, once it joined (a new one per run)
vport_of() {
	local i

	for ((i = 0; i < 30; i++)); do
		sleep 0.1
		[ "$(member "$1" 2 0 joined)" = 1 ] || continue
		member "$1" 2 0 addr | cut -d: -f2
		return
	done
}

two_jobs_case() {
	local tb=$1 d=$T_TMP/$1 vmac amac clean ctl att sent wsent s0 w0 vport

	run_jobs "$tb" "$d/clean"
	wait
	clean=$(p99_ms "$d/clean/job2-rank0.log")
	ok_if "two jobs: clean run, every rank's calls checked" passed "$d"/clean/*.log
	vmac=$(mac_of "$tb-h2")
	amac=$(mac_of "$tb-h1")
	leak_watch "$tb-h1" 10.77.0.3
	s0=$(port_ctr "$tb" 1 spoofed)
	w0=$(job_ctr "$tb" 2 wrong_port)
	# control: the same frames from server 1's own MAC and IP (job 1 rank
	# 1's address with a wrong token: bad_token, no port-security drop)
	run_jobs "$tb" "$d/ctl"
	vport=$(vport_of "$tb")
	sleep 0.5
	inject "$tb" 1 magic "$FRAMES" "$SECS" -S "$amac" -s 10.77.0.2 -p 40000 -W 1 >/dev/null &
	inject "$tb" 1 data "$WRONG" "$SECS" -S "$amac" -s 10.77.0.2 -p 40001 -j 1 -r 1 -T 0x1 >/dev/null
	wait
	ctl=$(p99_ms "$d/ctl/job2-rank0.log")
	ok_if "two jobs: control run (the same frames from server 1's own MAC and IP): checked, no port-security drop" \
		eq "$(passed "$d"/ctl/*.log && echo pass) $(($(port_ctr "$tb" 1 spoofed) - s0)) $(($(job_ctr "$tb" 2 wrong_port) - w0))" \
		"pass 0 0" "ranks, spoofed on port 1, job 2 wrong_port"
	run_jobs "$tb" "$d/att"
	vport=$(vport_of "$tb")
	sleep 0.5
	inject "$tb" 1 magic "$FRAMES" "$SECS" -S "$vmac" -s 10.77.0.3 -p 40000 -W 1 >"$d/sent" &
	wsent=$(inject "$tb" 1 data "$WRONG" "$SECS" -S "$amac" -s 10.77.0.3 -p "${vport:-1}" -j 2 -r 0 -T 0x222)
	wait
	sent=$(cat "$d/sent")
	att=$(p99_ms "$d/att/job2-rank0.log")
	echo "# injector: $(tail -n 4 "$T_TMP/inject.log" | tr '\n' ' ')"
	echo "# job 2 rank 0 calls: p99 clean $clean ms, control $ctl ms, attacked $att ms; slowest $(max_ms "$d/clean/job2-rank0.log"), $(max_ms "$d/ctl/job2-rank0.log"), $(max_ms "$d/att/job2-rank0.log") ms; retransmits $(retx "$d/clean/job2-rank0.log"), $(retx "$d/ctl/job2-rank0.log"), $(retx "$d/att/job2-rank0.log"); JOIN probes $(probes "$d/clean/job2-rank0.log"), $(probes "$d/ctl/job2-rank0.log"), $(probes "$d/att/job2-rank0.log")"
	ok_if "two jobs: every rank of both jobs checked during the flood" passed "$d"/att/*.log
	ok_if "two jobs: job 2's p99 call time within 2x the control run's" within_2x "$att" "$ctl"
	ok_if "two jobs: port 1's spoof counter equals the frames sent" \
		eq "$(($(port_ctr "$tb" 1 spoofed) - s0))" "${sent:-none}" "spoofed on port 1 (sent $FRAMES)"
	ok_if "two jobs: job 2's wrong_port counter equals the frames sent with its token" \
		eq "$(($(job_ctr "$tb" 2 wrong_port) - w0))" "${wsent:-none}" "job 2 wrong_port"
	ok_if "two jobs: no result of job 2's rank 0 left by port 1" \
		eq "$(leak_count "$tb-h1")" 0 "results to 10.77.0.3 received by server 1"
}

for f in "$RANK" "$INJ"; do
	[ -x "$f" ] || { tap_plan 1; ok_if "$f is built" false; exit 1; }
done
command -v nft >/dev/null || skip_all "needs nft (Debian's nftables) to count frames"
tap_plan 22
TBA=$(tb_name psa)
TBB=$(tb_name psb)
if ok_if "testbed psa up: 4 servers, job 1 of 4 with a token, job 2 of 1" \
	tb_up "$TBA" -n 4 --job id=1,size=4,bits=8,token=0x5ca1e \
	--job id=2,size=1,bits=8,token=0x2; then
	hijack_case "$TBA"
else
	for ((i = 0; i < 12; i++)); do ok_if "hijack case (no testbed)" false; done
fi
tb_down "$TBA"
if ok_if "testbed psb up: 4 servers, jobs 1 and 2 of 2" \
	tb_up "$TBB" -n 4 --job id=1,size=2,bits=8,token=0x111 \
	--job id=2,size=2,bits=8,token=0x222; then
	two_jobs_case "$TBB"
else
	for ((i = 0; i < 7; i++)); do ok_if "two jobs case (no testbed)" false; done
fi
tb_down "$TBB"
ok_if "no namespace left behind" nothing_left
tap_end
