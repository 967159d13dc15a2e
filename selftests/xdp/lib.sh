#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared by the xdp selftests: TAP (selftests/tap.sh, through net/lib.sh), the
# tools, a private mount namespace for bpffs, counters.

XDP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../net/lib.sh
. "$XDP_DIR/../net/lib.sh"
XDPT=$O/selftests/xdp
FRAMES=$XDPT/oi_frames
XPORT=$XDPT/xport_afxdp

# The bpffs a test mounts and the netns it adds live and die with it.
xdp_private_mounts() {
	[ -n "${XDP_TEST_UNSHARED:-}" ] && return 0
	command -v unshare >/dev/null || skip_all "unshare not found (util-linux)"
	XDP_TEST_UNSHARED=1 exec unshare --mount --propagation private "$@"
}

# optincctl when it has the xdp object, else the tests' xdpctl (same code).
xdp_ctl_path() {
	local ctl=${OPTINCCTL:-$O/bin/optincctl}

	if [ -x "$ctl" ] && "$ctl" xdp help 2>&1 | grep -q "xdp attach"; then
		echo "$ctl"
	else
		echo "$XDPT/xdpctl"
	fi
}

require_xdp_tools() {
	local t

	for t in "$XDPT/xdpctl" "$FRAMES" "$XPORT"; do
		[ -x "$t" ] || skip_all "$t not built (make)"
	done
	XDPCTL=$(xdp_ctl_path)
}

# nsx NETNS CMD...: run in a network namespace, in this mount namespace
# (ip netns exec would remount /sys and with it the bpffs of the pins).
nsx() {
	local ns=$1

	shift
	nsenter --net="/run/netns/$ns" "$@"
}

# All counters of NETNS DEV as "name packets" lines.
ctrs() {
	nsx "$1" "$XDPCTL" xdp show "$2" 2>/dev/null |
		awk '$2 == "packets" { print $1, $3 }'
}

# delta BEFORE AFTER NAME: how much counter NAME grew between two ctrs dumps.
delta() {
	local a b

	a=$(echo "$1" | awk -v k="$3" '$1 == k { print $2 }')
	b=$(echo "$2" | awk -v k="$3" '$1 == k { print $2 }')
	echo $((${b:-0} - ${a:-0}))
}

# expect_eq WHAT GOT WANT: compare, and say it in the log when different.
expect_eq() {
	[ "$2" = "$3" ] && return 0
	echo "# $1: got '$2', want '$3'"
	return 1
}

# The pair's namespaces and the test's T_TMP, whatever happens (trap EXIT).
xdp_pair_cleanup() {
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	rm -rf "$T_TMP"
}

# xdp_pair MTU: veth DA in netns A (IPA) to DB in netns B (IPB), no IPv6
# and static neighbours, so that the only frames are the ones a test
# sends; MA is DA's MAC.
xdp_pair() {
	local ma mb

	ip netns add "$A" && ip netns add "$B" || return 1
	nsx "$A" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	nsx "$B" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip link add "$DA" netns "$A" mtu "$1" type veth peer name "$DB" \
		netns "$B" mtu "$1" || return 1
	ip -n "$A" addr add "$IPA/24" dev "$DA" && ip -n "$B" addr add "$IPB/24" dev "$DB" || return 1
	ip -n "$A" link set "$DA" up && ip -n "$B" link set "$DB" up || return 1
	ma=$(ip -n "$A" -br link show "$DA" | awk '{print $3}')
	mb=$(ip -n "$B" -br link show "$DB" | awk '{print $3}')
	MA=$ma
	ip -n "$A" neigh replace "$IPB" lladdr "$mb" dev "$DA" nud permanent &&
		ip -n "$B" neigh replace "$IPA" lladdr "$ma" dev "$DB" nud permanent
}
