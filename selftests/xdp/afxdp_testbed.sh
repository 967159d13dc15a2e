#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The afxdp transport on the testbed with optincd, N = 4: all-reduce results
# bit-identical to the udp transport, answers really steered by XDP, the
# configured DSCP on the frames the switch namespace sees, TC counters equal
# to the frames sent, the fallback to udp, and detach leaving nothing.
. "$(dirname "$0")/lib.sh"

require_root
require_xdp_tools
N=4
TB=$(tb_name xdp)
CHECK=$O/selftests/net/allreduce_check
CASES=("float avg 1000" "float avg 1048583" "float sum 1000" "int sum 1048583")
T_TMP=$(mktemp -d)

# hctl RANK ARGS...: optincctl xdp in server RANK's namespace.
hctl() {
	local r=$1

	shift
	"$TESTBED" exec --tb "$TB" "$r" "$XDPCTL" "$@"
}

attach_all() {
	local r

	for ((r = 0; r < N; r++)); do
		hctl "$r" xdp attach eth0 || return 1
	done
}

# counters_all FILE: every server's counters, "rank name packets" lines.
counters_all() {
	local r

	for ((r = 0; r < N; r++)); do
		hctl "$r" xdp show eth0 2>/dev/null |
			awk -v r="$r" '$2 == "packets" { print r, $1, $3 }'
	done >"$1"
}

# cdelta DIR RANK NAME: growth of a counter of a server during a run.
cdelta() {
	local a b

	a=$(awk -v r="$2" -v k="$3" '$1 == r && $2 == k { print $3 }' "$1/ctr0")
	b=$(awk -v r="$2" -v k="$3" '$1 == r && $2 == k { print $3 }' "$1/ctr1")
	echo $((${b:-0} - ${a:-0}))
}

# run_ranks DIR TRANSPORT CHECK-ARGS...: every rank runs allreduce_check.
run_ranks() {
	local dir=$1 t=$2

	shift 2
	mkdir -p "$dir"
	counters_all "$dir/ctr0"
	OPTINC_TRANSPORT=$t "$TESTBED" run --tb "$TB" -t 120 -o "$dir" \
		"$CHECK" "$@" >/dev/null 2>&1
	counters_all "$dir/ctr1"
	grep -h -E "over the bound|wrong|FAIL|allreduce:|comm_create|transport" \
		"$dir"/rank0.log | sed "s/^/# $t rank 0: /"
}

all_pass() {
	[ "$(grep -lx PASS "$1"/rank*.log | wc -l)" -eq "$N" ]
}

# Every rank of both transports has the same result hash.
same_hash() {
	local h

	h=$(sed -n 's/^rank .* hash \([0-9a-f]*\)$/\1/p' "$1"/rank*.log "$2"/rank*.log |
		sort | uniq -c)
	echo "# hashes: $(echo "$h" | tr '\n' ' ')"
	[ "$(echo "$h" | wc -l)" -eq 1 ] &&
		[ "$(echo "$h" | awk '{print $1}')" -eq $((2 * N)) ]
}

# Frames a rank received, from its log (the join's answers not included).
rcvd_of() {
	sed -n 's/^frames sent .* rcvd \([0-9]*\) .*/\1/p' "$1/rank$2.log"
}

# afxdp: XDP steered at least every frame each rank received; udp: none.
steered() {
	local dir=$1 t=$2 r red got

	for ((r = 0; r < N; r++)); do
		red=$(cdelta "$dir" "$r" xdp_redirect)
		got=$(rcvd_of "$dir" "$r")
		if [ "$t" = afxdp ] && { [ -z "$got" ] || [ "$red" -lt "$got" ] || [ "$got" -eq 0 ]; }; then
			echo "# rank $r: xdp_redirect grew by $red, received $got"
			return 1
		fi
		if [ "$t" = udp ] && [ "$red" -ne 0 ]; then
			echo "# rank $r (udp): xdp_redirect grew by $red"
			return 1
		fi
	done
}

run_case() {
	local what=$1 seed=$2 type op count base

	read -r type op count <<<"$what"
	base=$T_TMP/$type-$op-$count
	run_ranks "$base-afxdp" afxdp -c "$count" -t "$type" -o "$op" -s "$seed"
	run_ranks "$base-udp" udp -c "$count" -t "$type" -o "$op" -s "$seed"
	ok_if "$type $op of $count: afxdp and udp pass on every rank" \
		eval 'all_pass "$base-afxdp" && all_pass "$base-udp"'
	ok_if "$type $op of $count: afxdp bit-identical to udp on all ranks" \
		same_hash "$base-afxdp" "$base-udp"
	ok_if "$type $op of $count: answers steered by XDP with afxdp only" \
		eval 'steered "$base-afxdp" afxdp && steered "$base-udp" udp'
}

# What the switch namespace sees of rank 0: every DATA/JOIN frame it sent
# (JOINs and retransmissions included) with the DSCP and a valid checksum.
dscp_at_switch() {
	local t=$1 dir=$T_TMP/dscp-$t sent cap

	mkdir -p "$dir"
	ip netns exec "$TB-sw" timeout 60 "$FRAMES" capture p0 50 1000000 \
		--dscp 26 --idle 2 >"$dir/cap" 2>&1 &
	sleep 1
	run_ranks "$dir" "$t" -c 1048583 -s 7
	wait $!
	sent=$(awk '/^join frames/ { s += $3 } /^frames sent/ { s += $3 } END { print s }' \
		"$dir/rank0.log")
	cap=$(sed -n 's/^frames //p' "$dir/cap")
	echo "# $t: rank 0 sent $sent frames; switch namespace saw: $cap"
	all_pass "$dir" && [ "$sent" -gt 0 ] &&
		expect_eq "captured" "$cap" "$sent dscp_ok $sent csum_ok $sent" || return 1
	# through the kernel the TC program tags; AF_XDP frames bypass TC
	if [ "$t" = udp ]; then
		expect_eq "tc_tagged (rank 0)" "$(cdelta "$dir" 0 tc_tagged)" "$sent"
	else
		expect_eq "tc_tagged (rank 0)" "$(cdelta "$dir" 0 tc_tagged)" 0
	fi
}

# A server without the program: its rank falls back to udp and says so.
fallback() {
	local dir=$T_TMP/fallback

	hctl 3 xdp detach eth0 || return 1
	run_ranks "$dir" afxdp -c 100000 -s 9
	grep -h "udp" "$dir/rank3.log" | head -2 | sed 's/^/# rank 3: /'
	all_pass "$dir" && grep -q "using the udp transport" "$dir/rank3.log" &&
		[ "$(cdelta "$dir" 0 xdp_redirect)" -gt 0 ]
}

detach_all() {
	local r

	for ((r = 0; r < N - 1; r++)); do
		hctl "$r" xdp detach eth0 || return 1
	done
	for ((r = 0; r < N; r++)); do
		ip -n "$TB-h$r" link show eth0 | grep -q prog/xdp && return 1
		tc -n "$TB-h$r" qdisc show dev eth0 | grep -q clsact && return 1
	done
	return 0
}

[ -x "$CHECK" ] || { tap_plan 1; ok_if "$CHECK is built" false; exit 1; }
tap_plan $((2 + 3 * ${#CASES[@]} + 4))
ok_if "N=$N: testbed with optincd up" tb_up "$TB" -n $N
ok_if "optincctl xdp attach eth0 on every server" attach_all
for ((c = 0; c < ${#CASES[@]}; c++)); do
	run_case "${CASES[$c]}" $((400 + c))
done
ok_if "afxdp: rank 0's frames carry DSCP 26 in the switch namespace" dscp_at_switch afxdp
ok_if "udp: rank 0's frames carry DSCP 26 (TC), tc_tagged = frames sent" dscp_at_switch udp
ok_if "afxdp on a server without the program: falls back to udp, still correct" fallback
ok_if "detach on every server: no XDP program, no clsact left" detach_all
tap_end
