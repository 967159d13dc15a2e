#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The server-side XDP/TC programs and the afxdp transport on a veth pair
# between two namespaces this test makes: native attach, pins, DSCP/PCP on
# the wire, counters equal to the frames sent, malformed frames dropped
# while ping passes, AF_XDP send/receive, and detach leaving nothing.
. "$(dirname "$0")/lib.sh"

require_root
xdp_private_mounts "$0" "$@"
require_xdp_tools
command -v nsenter >/dev/null || skip_all "nsenter not found (util-linux)"

ID=$(($$ % 100000))
A=xdpa$ID B=xdpb$ID
DA=xa$ID DB=xb$ID	# the server's interface and its peer
IPA=10.77.201.1 IPB=10.77.201.2
DSCP=46
T_TMP=$(mktemp -d)

trap 'xdp_pair_cleanup' EXIT

# MTU 9000: frames of a full optinc data frame.
setup() {
	xdp_pair 9000
}

attach_native() {
	nsx "$A" timeout 20 "$XDPCTL" xdp attach "$DA" dscp $DSCP || return 1
	ip -n "$A" link show "$DA" | grep -q "prog/xdp id [0-9]* name optinc_xdp" &&
		nsx "$A" "$XDPCTL" -j xdp show "$DA" | grep -q '"mode":"native"'
}

tc_attached() {
	tc -n "$A" filter show dev "$DA" egress | grep -q "optinc_tc"
}

pinned() {
	local f

	for f in optinc_cfg optinc_jobs optinc_xsks optinc_ctrs xdp_prog tc_prog; do
		[ -e "/sys/fs/bpf/optinc/$DA/$f" ] || { echo "# missing pin $f"; return 1; }
	done
}

second_attach_refused() {
	! nsx "$A" "$XDPCTL" xdp attach "$DA" 2>/dev/null &&
		ip -n "$A" link show "$DA" | grep -q "name optinc_xdp"
}

# capture_start COUNT: frames to the OptINC port, seen in B.
capture_start() {
	nsx "$B" timeout 15 "$FRAMES" capture "$DB" 8 "$1" --dscp $DSCP >"$T_TMP/cap" 2>&1 &
	CAP_PID=$!
	for _ in $(seq 50); do
		grep -q ready "$T_TMP/cap" && return 0
		sleep 0.1
	done
	return 1
}

# capture_check WANT: wait for the capture, compare "frames N dscp_ok N csum_ok N".
capture_check() {
	wait "$CAP_PID"
	expect_eq "captured frames" "$(sed -n 's/^frames //p' "$T_TMP/cap")" "$1"
}

# DATA and JOIN through the kernel's UDP stack: the TC program tags them.
dscp_on_wire() {
	local before after

	before=$(ctrs "$A" "$DA")
	capture_start 25 || return 1
	nsx "$A" "$FRAMES" udp data 20 --dst $IPB &&
		nsx "$A" "$FRAMES" udp join 5 --dst $IPB || return 1
	capture_check "25 dscp_ok 25 csum_ok 25" || return 1
	after=$(ctrs "$A" "$DA")
	expect_eq tc_tagged "$(delta "$before" "$after" tc_tagged)" 25
}

# Other frames to the OptINC port keep their TOS; non-OptINC frames too.
others_untagged() {
	local before after

	before=$(ctrs "$A" "$DA")
	capture_start 5 || return 1
	nsx "$A" "$FRAMES" udp result 5 --dst $IPB || return 1
	capture_check "5 dscp_ok 0 csum_ok 5" || return 1
	after=$(ctrs "$A" "$DA")
	expect_eq tc_optinc "$(delta "$before" "$after" tc_optinc)" 5 &&
		expect_eq tc_tagged "$(delta "$before" "$after" tc_tagged)" 0
}

inject() {
	nsx "$B" "$FRAMES" inject "$DB" "$1" "$2" --src $IPB --dst $IPA \
		--dst-mac "$MA" --dport "${3:-40000}" --job "${4:-9}" ${5:+--elems $5}
}

# Every class of frame from a raw socket in B, counted exactly in A.
counters_exact() {
	local before after k want fail=0

	before=$(ctrs "$A" "$DA")
	inject result 13 && inject other 7 && inject short-ip 3 &&
		inject short-udp 4 && inject magic 5 && inject version 6 &&
		inject type 2 || return 1
	after=$(ctrs "$A" "$DA")
	for k in xdp_pass_optinc:13 xdp_pass:7 xdp_drop_short:7 xdp_drop_magic:5 \
		 xdp_drop_version:6 xdp_drop_type:2 xdp_redirect:0; do
		want=${k#*:}
		k=${k%%:*}
		expect_eq "$k" "$(delta "$before" "$after" "$k")" "$want" || fail=1
	done
	return $fail
}

ping_passes() {
	local before after

	before=$(ctrs "$A" "$DA")
	nsx "$A" ping -c 3 -i 0.2 -W 2 -q $IPB >/dev/null || return 1
	after=$(ctrs "$A" "$DA")
	expect_eq "xdp_pass (3 echo replies)" "$(delta "$before" "$after" xdp_pass)" 3
}

# afxdp transport sends: the frames it builds carry the DSCP, fit checksums.
xport_sends() {
	capture_start 20 || return 1
	nsx "$A" timeout 10 "$XPORT" $IPB 9 9000 send 10 100 >/dev/null &&
		nsx "$A" timeout 10 "$XPORT" $IPB 9 9000 send 10 8000 >/dev/null || return 1
	capture_check "20 dscp_ok 20 csum_ok 20"
}

xport_port() {
	nsx "$A" "$XDPCTL" xdp show "$DA" | awk '$1 == "job" && $2 == 9 { print $6 }'
}

# afxdp transport receives what XDP steers: small and multi-chunk frames.
xport_receives() {
	local before after port

	before=$(ctrs "$A" "$DA")
	nsx "$A" timeout 15 "$XPORT" $IPB 9 9000 recv 20 8 >"$T_TMP/rx" 2>&1 &
	for _ in $(seq 50); do
		port=$(xport_port)
		[ -n "$port" ] && break
		sleep 0.1
	done
	[ -n "$port" ] || { cat "$T_TMP/rx" | sed 's/^/# /'; return 1; }
	inject result 10 "$port" 9 && inject result 10 "$port" 9 8900 || return 1
	wait $!
	after=$(ctrs "$A" "$DA")
	expect_eq "transport" "$(grep received "$T_TMP/rx")" \
		"received 20 bytes 89800 bad 0" &&
		expect_eq xdp_redirect "$(delta "$before" "$after" xdp_redirect)" 20
}

job_unregistered() {
	[ -z "$(xport_port)" ]
}

# tcpdump_vlan COUNT CMD...: run CMD, count frames to the OptINC port that
# B sees with VLAN 7 and PCP 5 (the tag may be in the skb's metadata,
# which only tcpdump's view shows).
tcpdump_vlan() {
	local want=$1 n

	shift
	nsx "$B" timeout 10 tcpdump -i "$DB" -c "$want" -e -nn -l \
		'vlan and udp dst port 47000' >"$T_TMP/tcpdump" 2>/dev/null &
	sleep 1
	"$@" || return 1
	wait $!
	n=$(grep -c "vlan 7, p 5," "$T_TMP/tcpdump")
	expect_eq "frames with vlan 7, p 5" "$n" "$want"
}

# PCP of a tag in the frame data (a raw socket's frame through TC egress).
pcp_in_data() {
	nsx "$A" "$XDPCTL" xdp detach "$DA" &&
		nsx "$A" "$XDPCTL" xdp attach "$DA" dscp $DSCP pcp 5 priority 3 || return 1
	tcpdump_vlan 3 nsx "$A" "$FRAMES" inject "$DA" data 3 --src $IPA \
		--dst $IPB --vlan 7
}

# PCP of a tag in the skb's metadata: frames of a VLAN device.
pcp_vlan_dev() {
	local mb

	ip -n "$A" addr add 10.77.202.1/24 dev "$DA.7" &&
		ip -n "$A" link set "$DA.7" up || return 1
	mb=$(ip -n "$B" -br link show "$DB" | awk '{print $3}')
	ip -n "$A" neigh replace 10.77.202.2 lladdr "$mb" dev "$DA.7" nud permanent
	tcpdump_vlan 3 nsx "$A" "$FRAMES" udp data 3 --dst 10.77.202.2
	ip -n "$A" link del "$DA.7"
}

detached_clean() {
	nsx "$A" "$XDPCTL" xdp detach "$DA" || return 1
	! ip -n "$A" link show "$DA" | grep -q "prog/xdp" &&
		! tc -n "$A" qdisc show dev "$DA" | grep -q clsact &&
		[ ! -e "/sys/fs/bpf/optinc/$DA" ] &&
		! nsx "$A" "$XDPCTL" xdp show "$DA" 2>/dev/null | grep -q .
}

# Without the program, the transport says what to do (and the library
# falls back to udp).
xport_refuses() {
	local out

	out=$(nsx "$A" timeout 10 "$XPORT" $IPB 9 9000 send 1 10 2>&1)
	echo "# $out"
	echo "$out" | grep -q "optincctl xdp attach $DA"
}

# A clsact qdisc that was there before stays after detach; so do its filters.
clsact_kept() {
	tc -n "$A" qdisc add dev "$DA" clsact || return 1
	nsx "$A" "$XDPCTL" xdp attach "$DA" mode generic || return 1
	ip -n "$A" link show "$DA" | grep -q "prog/xdp.*name optinc_xdp" || return 1
	nsx "$A" "$XDPCTL" -j xdp show "$DA" | grep -q '"mode":"generic"' || return 1
	nsx "$A" "$XDPCTL" xdp detach "$DA" || return 1
	tc -n "$A" qdisc show dev "$DA" | grep -q clsact &&
		! tc -n "$A" filter show dev "$DA" egress | grep -q optinc_tc &&
		! ip -n "$A" link show "$DA" | grep -q "prog/xdp" &&
		tc -n "$A" qdisc del dev "$DA" clsact
}

nothing_attached() {
	[ -z "$(nsx "$A" "$XDPCTL" xdp show)" ]
}

tap_plan 18
ok_if "veth pair in two namespaces" setup
ok_if "attach: XDP in native mode on veth (MTU 9000)" attach_native
ok_if "attach: TC egress filter on clsact" tc_attached
ok_if "attach: maps and programs pinned in /sys/fs/bpf/optinc/$DA" pinned
ok_if "a second attach is refused, the first stays" second_attach_refused
ok_if "DATA/JOIN via the kernel carry DSCP $DSCP, valid IPv4 checksum; tc_tagged = frames" dscp_on_wire
ok_if "other OptINC frames keep their TOS; tc_optinc = frames" others_untagged
ok_if "XDP counters equal the frames injected, per outcome and reason" counters_exact
ok_if "ping passes with the program attached" ping_passes
ok_if "afxdp transport: frames (100 B and 8 KB) on the wire carry DSCP $DSCP" xport_sends
ok_if "afxdp transport: steered answers received (48 B and 8.9 KB); xdp_redirect = frames" xport_receives
ok_if "afxdp transport: its job leaves the map when it closes" job_unregistered
if ! command -v tcpdump >/dev/null; then
	tap_skip "VLAN PCP, tag in the frame" "tcpdump not installed"
	tap_skip "VLAN PCP, tag in the skb" "tcpdump not installed"
else
	ok_if "VLAN PCP 5 set on DATA frames tagged in their data" pcp_in_data
	if ! ip -n "$A" link add link "$DA" name "$DA.7" type vlan id 7 2>/dev/null; then
		tap_skip "VLAN PCP, tag in the skb" "this kernel has no 802.1Q VLAN devices"
	else
		ok_if "VLAN PCP 5 set on DATA frames of a VLAN device" pcp_vlan_dev
	fi
fi
ok_if "detach: no XDP program, no clsact, no pins, nothing to show" detached_clean
ok_if "afxdp transport without the program: a clear message" xport_refuses
ok_if "generic mode; a clsact qdisc that was there stays after detach" clsact_kept
ok_if "nothing left attached in the namespace" nothing_attached
tap_end
