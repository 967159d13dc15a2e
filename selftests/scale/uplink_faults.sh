#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Faults on the uplinks of a cascade (Documentation/scale.md section 3.8):
# two first-level optincd switches of 2 servers each, whose uplinks are the
# members of a second-level job (fan-in 2), run the same sequence of checked
# all-reduces (float AVG 8 bits: a MAX phase and a CAVG phase per call; new
# data every call, every result checked against its own reference) clean,
# then with loss, duplication, reordering and all three at once on both
# uplinks, in both directions. Every run's results must hash as the clean
# run's; counters must show that each impairment happened on both uplinks
# both ways (nft rule counters, the HTB slow class) and where it was
# recovered: DATA re-sent upstream by the first levels, some at once on the
# upper results' hints, and results re-sent by the second level (loss);
# duplicates refused or re-answered by the second level and repeated upper
# results ignored by the first levels (duplication). The ranks'
# retransmissions are printed, not required: the switches recover most
# uplink losses themselves. A run whose impairment was not applied fails.
#
# Why a kernel link, not a fault option in the datapath: the frames cross
# a real hop, so the test covers optincd exactly as it runs (its af_packet
# ports, ARP, the upstream JOIN barrier) and no test-only code path can
# diverge from the shipped one. The uplink's two ends are optincd's
# af_packet ports, where nftables cannot act (a tap sees a frame before the
# netdev ingress hook; af_packet sends past netdev egress with
# qdisc_bypass), and this kernel has no sch_netem. So optinc-testbed runs
# every uplink through a Linux bridge in namespace <tb>-up, and 'impair up'
# puts nftables rules on the ingress of its two ports (drop; dup to the
# other port; priority of an HTB slow class on the other port's egress, so
# that those frames fall behind later ones). TAP.
. "$(dirname "$0")/lib.sh"

require_root
RANK=$O/selftests/scale/scale_rank
CALLS=${UPF_CALLS:-20}
COUNT=${UPF_COUNT:-20000}
UPJOB=100
TOP_NET=10.77.100
LIMIT=60
CASES=("clean" "loss 5" "dup 5" "reorder 20" "loss 5 dup 5 reorder 20")
[ -n "${UPF_CASES:-}" ] && IFS=';' read -ra CASES <<<"$UPF_CASES"
T_TMP=$(mktemp -d)
trap 'ranks_kill; tb_cleanup' EXIT

# What the hop of testbed $1 did, "dir:what=packets" words: dir up (from
# the first level: chain "lower", leaving by port "upper") or down; what
# drop, dup, slow (nft rule counters), then slowsent and overlimits of the
# HTB class 1:20 on the port the frames leave by.
hop_counts() {
	local tb=$1 d dir

	"$TESTBED" exec --tb "$tb" up nft list table netdev optinc_uplink 2>/dev/null |
		awk '/chain lower/ { dir = "up" } /chain upper/ { dir = "down" }
		     / counter packets / { for (i = 1; i < NF; i++) if ($i == "packets") n = $(i + 1)
			what = / drop$/ ? "drop" : / dup to / ? "dup" : / priority set / ? "slow" : "?"
			print dir ":" what "=" n }'
	for d in upper lower; do
		dir=up
		[ $d = lower ] && dir=down
		"$TESTBED" exec --tb "$tb" up tc -s class show dev "$d" 2>/dev/null |
			awk -v dir=$dir '/^class htb 1:20 / { c = 1; next }
			c && /Sent/ { gsub(/[(),]/, " "); print dir ":slowsent=" $4
				      print dir ":overlimits=" $9; c = 0 }'
	done
}

# Every word $2... ("up:drop" ...) has a count > 0 in hop_counts $1.
hops_did() {
	local counts=$1 w v

	shift
	for w in "$@"; do
		v=$(echo "$counts" | tr ' ' '\n' | sed -n "s/^$w=//p")
		[ -n "$v" ] && [ "$v" -gt 0 ] || return 1
	done
}

impair_both() {
	local k

	for k in 0 1; do
		"$TESTBED" impair --tb "${G[$k]}" up "$@" || return 1
	done
}

# Sum over the ranks' logs of field $2 of their "frames sent" line.
ranks_sum() {
	awk -v f="$2" '/^frames sent/ { s += $f } END { print s + 0 }' "$1"/rank*.log
}

# Counters, through optincctl: "top_slots top_resends top_dups up_resends
# up_hinted up_results_dup" (the last three: both first levels added up).
counters() {
	{
		"$TESTBED" ctl --tb "$TOP" -j daemon job $UPJOB
		"$TESTBED" ctl --tb "${G[0]}" -j daemon job 1
		"$TESTBED" ctl --tb "${G[1]}" -j daemon job 1
	} | python3 -c '
import json, sys
text, dec, docs = sys.stdin.read(), json.JSONDecoder(), []
i = 0
while len(docs) < 3:
    while text[i].isspace():
        i += 1
    d, i = dec.raw_decode(text, i)
    docs.append(d)
t, g = docs[0], docs[1:]
print(t["slots_completed"], t["resends"], t["drops"]["duplicate"],
      *(sum(j.get(k, 0) for j in g) for k in ("up_resends", "up_hinted", "up_results_dup")))'
}

# All 4 ranks passed and printed hash $2, which is the clean run's.
case_ok() {
	logs_pass "$1" 4 && [ -n "$2" ] && [ "$2" = "$CLEAN" ]
}

run_case() {
	local name=$1 loss=0 dup=0 reo=0 dir k i t0 secs h retx hops
	local -a c0 c1 d

	# shellcheck disable=SC2086 # the case's words
	set -- $name
	while [ $# -ge 2 ]; do
		case $1 in
		loss) loss=$2 ;; dup) dup=$2 ;; reorder) reo=$2 ;;
		esac
		shift 2
	done
	dir=$T_TMP/${name// /_}
	mkdir -p "$dir"
	if ! impair_both --loss "$loss" --dup "$dup" --reorder "$reo"; then
		impair_both
		ok_if "$name: impairment set on both uplinks" false
		return
	fi
	read -ra c0 <<<"$(counters)"
	t0=$(date +%s.%N)
	for k in 0 1; do
		for i in 0 1; do
			RANK_SW=10.77.$((k + 1)).254 rank_start "${G[$k]}" "$i" "$i" 1 2 0 \
				"$dir/rank$((2 * k + i)).log" "$RANK" -g $((2 * k + i)):4 -V \
				-c "$COUNT" -t float -o avg -b 8 -n "$CALLS" -T $LIMIT
		done
	done
	ranks_wait $LIMIT
	secs=$(awk "BEGIN { printf \"%.2f\", $(date +%s.%N) - $t0 }")
	read -ra c1 <<<"$(counters)"
	hops="$(hop_counts "${G[0]}" | sed 's/^/g0:/') $(hop_counts "${G[1]}" | sed 's/^/g1:/')"
	impair_both
	read -ra d <<<"$(counters_delta "${c1[*]}" "${c0[*]}")"
	h=$(logs_hash "$dir")
	retx=$(ranks_sum "$dir" 7)
	grep -h -E "WRONG|FAIL|allreduce:|comm_create" "$dir"/rank*.log | head -5 | sed 's/^/# /'
	grep -h "^all results" "$dir/rank0.log" | sed 's/^/# rank 0: /'
	echo "# $name: ${secs}s, hash ${h:-differs}; ranks: $retx retransmits;" \
		"first levels: ${d[3]} DATA re-sent upstream (${d[4]} on the upper's hint), ${d[5]} repeated upper results;" \
		"second level: ${d[0]} slots, ${d[1]} results re-sent, ${d[2]} duplicates refused"
	echo "# $name: hops: ${hops//$'\n'/ }"
	[ "$name" = clean ] && CLEAN=$h
	ok_if "$name: $CALLS calls, new data each, right on all 4 ranks, results hash as the clean run's" \
		case_ok "$dir" "$h"
	if [ "$loss" != 0 ]; then
		ok_if "$name: frames dropped both ways on both uplinks (nft)" \
			hops_did "$hops" g0:up:drop g0:down:drop g1:up:drop g1:down:drop
		ok_if "$name: recovered where the loss was seen: first levels re-sent DATA up (on the upper results' hints too), the second level re-sent results" \
			test "${d[3]}" -gt 0 -a "${d[4]}" -gt 0 -a "${d[1]}" -gt 0
	fi
	if [ "$dup" != 0 ]; then
		ok_if "$name: frames duplicated both ways on both uplinks (nft)" \
			hops_did "$hops" g0:up:dup g0:down:dup g1:up:dup g1:down:dup
		ok_if "$name: duplicates refused where they arrived: second level (duplicates, results re-sent), first levels (repeated upper results)" \
			test $((d[1] + d[2])) -gt 0 -a "${d[5]}" -gt 0
	fi
	if [ "$reo" != 0 ]; then
		ok_if "$name: frames held back in the slow class both ways on both uplinks (nft marks, HTB sent and overlimits)" \
			hops_did "$hops" g0:up:slow g0:down:slow g1:up:slow g1:down:slow \
			g0:up:slowsent g0:down:slowsent g1:up:slowsent g1:down:slowsent \
			g0:up:overlimits g0:down:overlimits g1:up:overlimits g1:down:overlimits
	fi
}

# Tests of one case: its result, then two per loss or dup, one for reorder.
case_tests() {
	local n=1

	[[ " $1 " == *" loss "* ]] && n=$((n + 2))
	[[ " $1 " == *" dup "* ]] && n=$((n + 2))
	[[ " $1 " == *" reorder "* ]] && n=$((n + 1))
	echo $n
}

plan=3
for c in "${CASES[@]}"; do
	plan=$((plan + $(case_tests "$c")))
done
[ -x "$RANK" ] || { tap_plan 1; ok_if "$RANK is built" false; exit 1; }
command -v nft >/dev/null || { tap_plan 1; ok_if "nft is installed (nftables)" false; exit 1; }
tap_plan $plan
TOP=$(tb_name uft)
T_TBS+=("$TOP")
G=()
for k in 0 1; do
	G+=("$(tb_name "ufg$k")")
	ok_if "group $k: optincd, 2 servers in 10.77.$((k + 1)).0/24, uplink through a bridge hop" \
		tb_up "${G[$k]}" -n 2 --subnet 10.77.$((k + 1)) --uplink "$TOP:$k" \
		--job "id=1,size=2,up=$TOP_NET.254,up-job=$UPJOB,up-rank=$k"
done
ok_if "second level: optincd on the 2 uplinks, job $UPJOB fan-in 2" \
	tb_up "$TOP" -n 0 --ports 2 --subnet $TOP_NET --job "id=$UPJOB,size=2,fanin=2"
CLEAN=
for c in "${CASES[@]}"; do
	run_case "$c"
done
tap_end
