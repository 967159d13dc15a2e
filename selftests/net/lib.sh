#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared by the net selftests: TAP output (selftests/tap.sh), the testbed
# tool, cleanup.

NET_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC_ROOT=$(cd "$NET_DIR/../.." && pwd)
TESTBED=$SRC_ROOT/tools/testbed/optinc-testbed
O=${O:-build}
case $O in
/*) ;;
*) O=$SRC_ROOT/$O ;;
esac
export O
# shellcheck source=../tap.sh
. "$NET_DIR/../tap.sh"

T_TBS=()

require_root() {
	[ "$(id -u)" = 0 ] || skip_all "needs root for network namespaces"
}

# Testbeds this file made; removed on exit, whatever happens.
tb_up() {
	local tb=$1 out rc

	shift
	T_TBS+=("$tb")
	out=$("$TESTBED" up --tb "$tb" "$@" 2>&1)
	rc=$?
	[ -n "$out" ] && echo "$out" | sed 's/^/# /'
	return $rc
}

tb_down() {
	"$TESTBED" down --tb "$1"
}

T_MGS=()

# A second network for the ring beside testbed $1's $2 servers: bridge
# namespace $1-mg, eth1 = $3.(i+1)/24 on server i; removed at exit.
ring_net_up() {
	local tb=$1 n=$2 net=$3 mg=$1-mg i

	T_MGS+=("$mg")
	ip netns add "$mg" || return 1
	ip -n "$mg" link add br0 type bridge || return 1
	ip -n "$mg" link set br0 up
	for ((i = 0; i < n; i++)); do
		ip link add "m$i" netns "$mg" type veth peer name eth1 \
			netns "$tb-h$i" || return 1
		ip -n "$mg" link set "m$i" master br0 up || return 1
		ip -n "$tb-h$i" addr add "$net.$((i + 1))/24" dev eth1
		ip -n "$tb-h$i" link set eth1 up || return 1
	done
}

# OPTINC_PEERS of that network for $1 ranks in $2.0/24: "$2.1,$2.2,...".
ring_net_peers() {
	local n=$1 i p=

	for ((i = 0; i < n; i++)); do
		p+=${p:+,}$2.$((i + 1))
	done
	echo "$p"
}

tb_cleanup() {
	local tb mg

	for tb in "${T_TBS[@]}"; do
		"$TESTBED" down --tb "$tb" >/dev/null 2>&1
	done
	for mg in "${T_MGS[@]}"; do
		ip netns del "$mg" 2>/dev/null
	done
	[ -n "${T_TMP:-}" ] && rm -rf "$T_TMP"
}

# A testbed name unique to this process, so runs can overlap.
tb_name() {
	echo "$1$(($$ % 100000))"
}

# The ranks' verdicts and hashes, from their logs $1/rank*.log: $2 ranks
# printed PASS; all $2 printed the same "rank R hash H".
all_pass() {
	[ "$(grep -lx PASS "$1"/rank*.log 2>/dev/null | wc -l)" -eq "$2" ]
}

all_same() {
	local h

	h=$(sed -n 's/^rank .* hash \([0-9a-f]*\)$/\1/p' "$1"/rank*.log | sort | uniq -c)
	echo "# hashes: $(echo "$h" | tr '\n' ' ')"
	[ "$(echo "$h" | wc -l)" -eq 1 ] && [ "$(echo "$h" | awk '{print $1}')" -eq "$2" ]
}

# Nothing of this file's testbeds is left: no namespace, no optincd.
nothing_left() {
	local tb left=0

	for tb in "${T_TBS[@]}"; do
		if ip netns list | grep -q "^$tb-"; then
			echo "# left: namespaces of $tb: $(ip netns list | grep "^$tb-" | tr '\n' ' ')"
			left=1
		fi
		if pgrep -f -- "--file-prefix $tb " >/dev/null; then
			echo "# left: $(pgrep -af -- "--file-prefix $tb ")"
			left=1
		fi
	done
	return $left
}

trap tb_cleanup EXIT
trap 'exit 1' INT TERM
