#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Loss matrix on the testbed (3 ranks, one optincd): the same sequence of
# checked all-reduces without impairment, then with 1 % and 20 % loss each
# way, reordering, 5 % duplication, and all of them at once. Every run's
# results must hash the same as the clean run's; the ranks' counters show
# retransmissions, optincd's show the duplicates it refused.
# selftests/net/allreduce.sh already covers 5 % loss with 5 % duplication.
# LOSS_N (ranks), LOSS_CALLS, LOSS_COUNT (values per call) and LOSS_CASES
# ("clean;loss 5;...") choose another matrix, e.g. to measure
# retransmissions per slot at N = 8.
#
# Impairments are set on the servers' eth0 while the testbed runs: loss
# and duplication with nftables (this needs no sch_netem), reordering by
# an HTB qdisc whose slow class gets a random 20 % of the frames to the
# switch (nftables sets their priority), so they fall behind the others.
# shellcheck source=../net/lib.sh
. "$(dirname "$0")/../net/lib.sh"

require_root
N=${LOSS_N:-3}
CALLS=${LOSS_CALLS:-30}
COUNT=${LOSS_COUNT:-20000}
RANK=$O/selftests/reliability/rel_rank
TB=$(tb_name rlm)
CASES=("clean" "loss 1" "loss 20" "reorder 20" "dup 5" "loss 20 reorder 20 dup 5")
[ -n "${LOSS_CASES:-}" ] && IFS=';' read -ra CASES <<<"$LOSS_CASES"

# impair NS LOSS DUP REORDER: nftables rules and the HTB qdisc on eth0.
impair() {
	local ns=$1 loss=$2 dup=$3 reo=$4 rules='' lp dp

	lp=$((loss * 10000))
	dp=$((dup * 10000))
	if [ "$lp" -gt 0 ]; then
		rules="table netdev rel_loss {
	chain in {
		type filter hook ingress device \"eth0\" priority 0
		numgen random mod 1000000 < $lp counter drop
	}
	chain out {
		type filter hook egress device \"eth0\" priority 0
		numgen random mod 1000000 < $lp counter drop
	}
}"
	fi
	if [ "$dp" -gt 0 ] || [ "$reo" -gt 0 ]; then
		rules="$rules
table ip rel_ip {
	chain out {
		type filter hook output priority 0
		ip daddr 10.77.0.254 numgen random mod 1000000 < $dp counter dup to 10.77.0.254 device \"eth0\"
	}
	chain post {
		type filter hook postrouting priority 0
		ip daddr 10.77.0.254 numgen random mod 100 < $reo counter meta priority set 1:20
	}
}"
	fi
	if [ "$reo" -gt 0 ]; then
		ip netns exec "$ns" tc qdisc add dev eth0 root handle 1: htb default 10 &&
		ip netns exec "$ns" tc class add dev eth0 parent 1: classid 1:10 htb rate 10gbit quantum 10000 &&
		ip netns exec "$ns" tc class add dev eth0 parent 1: classid 1:20 htb rate 40mbit burst 20k quantum 10000 ||
			return 1
	fi
	[ -z "$rules" ] || echo "$rules" | ip netns exec "$ns" nft -f -
}

unimpair() {
	ip netns exec "$1" nft delete table netdev rel_loss 2>/dev/null
	ip netns exec "$1" nft delete table ip rel_ip 2>/dev/null
	ip netns exec "$1" tc qdisc del dev eth0 root 2>/dev/null
	return 0
}

# Counters of job 1 in optincd: "duplicate stale resends slots_completed".
sw_counts() {
	"$TESTBED" tel --tb "$TB" /optinc/job,1 | python3 -c '
import json, sys
d = json.loads(sys.stdin.readline())["/optinc/job"]
def find(o, k):
    if isinstance(o, dict):
        if k in o and not isinstance(o[k], dict):
            return o[k]
        for v in o.values():
            r = find(v, k)
            if r is not None:
                return r
    return None
print(*(find(d, k) or 0 for k in ("duplicate", "stale", "resends", "slots_completed")))'
}

# The ranks' last lines: "PASS ... retransmits R dup_results D hash H".
rank_field() {
	sed -n "s/^PASS .* $2 \([0-9a-f]*\).*/\1/p" "$1"/rank*.log
}

run_case() {
	local name=$1 loss=0 dup=0 reo=0 dir i t0 secs h0 h retx dres slots
	local -a c0 c1

	set -- $name
	while [ $# -ge 2 ]; do
		case $1 in
		loss) loss=$2 ;; dup) dup=$2 ;; reorder) reo=$2 ;;
		esac
		shift 2
	done
	dir=$T_TMP/${name// /_}
	for ((i = 0; i < N; i++)); do
		if ! impair "$TB-h$i" "$loss" "$dup" "$reo"; then
			for ((i = 0; i < N; i++)); do
				unimpair "$TB-h$i"
			done
			ok_if "$name: impairment set" false
			return
		fi
	done
	read -ra c0 < <(sw_counts)
	t0=$(date +%s.%N)
	"$TESTBED" run --tb "$TB" -t 100 -o "$dir" "$RANK" -n "$CALLS" -t 90 -c "$COUNT" \
		>/dev/null 2>&1
	secs=$(awk "BEGIN { printf \"%.2f\", $(date +%s.%N) - $t0 }")
	read -ra c1 < <(sw_counts)
	for ((i = 0; i < N; i++)); do
		unimpair "$TB-h$i"
	done
	grep -h "FAIL\|ring" "$dir"/rank*.log | head -5 | sed 's/^/# /'
	h=$(rank_field "$dir" hash | sort -u)
	retx=$(rank_field "$dir" retransmits | awk '{ s += $1 } END { print s + 0 }')
	dres=$(rank_field "$dir" dup_results | awk '{ s += $1 } END { print s + 0 }')
	slots=$((c1[3] - c0[3]))
	echo "# $name: N $N, ${secs}s, hash ${h//$'\n'/ }; ranks: $retx retransmits ($(awk "BEGIN { printf \"%.3f\", $retx / ($slots ? $slots : 1) }") per slot, $slots slots), $dres duplicate results ignored; optincd: $((c1[0] - c0[0])) duplicates refused, $((c1[1] - c0[1])) stale, $((c1[2] - c0[2])) results re-sent"
	[ "$name" = clean ] && CLEAN=$h
	ok_if "$name: $CALLS checked calls pass on every rank, results hash as the clean run's" \
		test "$(grep -c '^PASS' "$dir"/rank*.log | awk -F: '{ s += $2 } END { print s }')" = $N -a \
		"$h" = "$CLEAN" -a -n "$h"
	case $name in
	clean) ;;
	dup*) ok_if "$name: optincd refused duplicates" test $((c1[0] - c0[0])) -gt 0 ;;
	*) ok_if "$name: the ranks retransmitted" test "$retx" -gt 0 ;;
	esac
}

[ -x "$RANK" ] || { tap_plan 1; ok_if "$RANK is built" false; exit 1; }
command -v nft >/dev/null || { tap_plan 1; ok_if "nft is installed (nftables)" false; exit 1; }
tap_plan $((2 * ${#CASES[@]}))
T_TMP=$(mktemp -d /tmp/optinc-rel.XXXXXX)
if ! tb_up "$TB" -n $N --job "id=1,size=$N,bits=8"; then
	ok_if "testbed up" false
	tap_end
	exit 1
fi
ok_if "testbed up" true
CLEAN=
for c in "${CASES[@]}"; do
	run_case "$c"
done
tap_end
