#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Our XDP program next to another party's, both loaded through libxdp, on a
# veth pair between two namespaces this test makes. Where the kernel loads
# freplace programs (bpftool's probe), libxdp's dispatcher runs both in
# priority order and detach removes only ours; where it does not, attach is
# refused with a message that says why and what to do, and leaves the other
# program and the interface as they were. Either way every line must pass.
. "$(dirname "$0")/lib.sh"

require_root
xdp_private_mounts "$0" "$@"
require_xdp_tools
for t in nsenter xdp-loader bpftool; do
	command -v $t >/dev/null || skip_all "$t not found (make deps)"
done
OTHER=$XDPT/xdp_other.bpf.o
[ -r "$OTHER" ] || skip_all "$OTHER not built (make)"

ID=$(($$ % 100000))
A=xcoa$ID B=xcob$ID
DA=xca$ID DB=xcb$ID
IPA=10.77.203.1 IPB=10.77.203.2
T_TMP=$(mktemp -d)

trap 'xdp_pair_cleanup' EXIT

# MTU 1500: the other program has no multi-buffer support.
setup() {
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf || return 1
	xdp_pair 1500
}

inject() {
	nsx "$B" "$FRAMES" inject "$DB" "$1" "$2" --src $IPB --dst $IPA \
		--dst-mac "$MA" --dport 40000 --job 9
}

# The program attached to DA directly (a dispatcher, ours, or the other).
attached() {
	ip -n "$A" link show "$DA" | sed -n 's/.*prog\/xdp id [0-9]* name \([a-z_]*\).*/\1/p'
}

# Id of the other program: attached directly, or in libxdp's dispatcher.
other_id() {
	nsx "$A" xdp-loader status "$DA" 2>/dev/null | awk '/ other_xdp / {
		for (i = 1; i < NF; i++) if ($i == "other_xdp") break
		for (; i <= NF; i++) if ($i ~ /^[0-9]+$/) { print $i; exit } }'
}

# Frames the other program has seen.
other_seen() {
	local map

	map=$(bpftool prog show id "$(other_id)" 2>/dev/null | sed -n 's/.*map_ids \([0-9]*\).*/\1/p')
	[ -n "$map" ] || { echo "-1"; return; }
	bpftool -j map lookup id "$map" key 0 0 0 0 | sed -n 's/.*"value":\([0-9]*\).*/\1/p'
}

load_other() {
	nsx "$A" xdp-loader load -m native "$DA" "$OTHER" >"$T_TMP/loader.out" 2>&1 ||
		{ sed 's/^/# /' "$T_TMP/loader.out"; return 1; }
	[ -n "$(other_id)" ]
}

# libxdp and bpftool agree: a dispatcher exactly where freplace loads.
other_loaded() {
	load_other || return 1
	echo "# bpftool: program_type ext $EXT; attached to $DA: $(attached)"
	if [ "$EXT" = available ]; then
		expect_eq "attached" "$(attached)" xdp_dispatcher
	else
		expect_eq "attached" "$(attached)" other_xdp
	fi
}

other_counts() {
	local before

	before=$(other_seen)
	inject other 5 || return 1
	expect_eq "other_xdp frames" "$(($(other_seen) - before))" 5
}

# freplace refused: attach fails and says why and what to do.
attach_refused() {
	local out

	out=$(nsx "$A" timeout 20 "$XDPCTL" xdp attach "$DA" 2>&1) && return 1
	echo "# $out"
	echo "$out" | grep -q "needs freplace (BPF_PROG_TYPE_EXT) programs, and loading one fails: " &&
		echo "$out" | grep -q "xdp-loader unload $DA --all"
}

# freplace refused: the other program stays, nothing of ours is left.
other_untouched() {
	expect_eq "attached" "$(attached)" other_xdp || return 1
	[ ! -e "/sys/fs/bpf/optinc/$DA" ] &&
		! tc -n "$A" qdisc show dev "$DA" | grep -q clsact &&
		! nsx "$A" "$XDPCTL" xdp show "$DA" 2>/dev/null | grep -q . &&
		other_counts
}

# freplace loads: ours joins the dispatcher.
attach_joins() {
	nsx "$A" timeout 20 "$XDPCTL" xdp attach "$DA" || return 1
	nsx "$A" "$XDPCTL" -j xdp show "$DA" | grep -q '"dispatcher":' &&
		nsx "$A" xdp-loader status "$DA" | grep -q " optinc_xdp " &&
		[ -n "$(other_id)" ]
}

# Chain order: ours (priority 20) first; the other (50) sees what we pass.
chain_order() {
	local before after seen fail=0

	before=$(ctrs "$A" "$DA")
	seen=$(other_seen)
	inject other 7 && inject magic 4 || return 1
	after=$(ctrs "$A" "$DA")
	expect_eq "xdp_pass" "$(delta "$before" "$after" xdp_pass)" 7 || fail=1
	expect_eq "xdp_drop_magic" "$(delta "$before" "$after" xdp_drop_magic)" 4 || fail=1
	expect_eq "other_xdp frames" "$(($(other_seen) - seen))" 7 || fail=1
	return $fail
}

# Detach removes ours; the other stays in its dispatcher and sees all.
detach_only_ours() {
	local before

	nsx "$A" "$XDPCTL" xdp detach "$DA" || return 1
	! nsx "$A" xdp-loader status "$DA" | grep -q " optinc_xdp " &&
		[ ! -e "/sys/fs/bpf/optinc/$DA" ] || return 1
	before=$(other_seen)
	inject magic 3 || return 1
	expect_eq "other_xdp frames" "$(($(other_seen) - before))" 3
}

unload_other() {
	nsx "$A" xdp-loader unload "$DA" --all >/dev/null 2>&1
	expect_eq "attached" "$(attached)" ""
}

# On a free interface ours goes through libxdp too: xdp-loader lists it.
attach_alone() {
	nsx "$A" timeout 20 "$XDPCTL" xdp attach "$DA" || return 1
	nsx "$A" xdp-loader status "$DA" | grep -q " optinc_xdp "
}

# Another program loaded after ours: refused without freplace (ours stays),
# joins the dispatcher with it.
other_after_ours() {
	if [ "$EXT" = available ]; then
		load_other && chain_order
		return
	fi
	nsx "$A" xdp-loader load -m native "$DA" "$OTHER" >/dev/null 2>&1 && return 1
	expect_eq "attached" "$(attached)" optinc_xdp
}

detached_clean() {
	nsx "$A" "$XDPCTL" xdp detach "$DA" || return 1
	[ "$EXT" = available ] && nsx "$A" xdp-loader unload "$DA" --all >/dev/null 2>&1
	expect_eq "attached" "$(attached)" "" &&
		[ ! -e "/sys/fs/bpf/optinc/$DA" ] &&
		! tc -n "$A" qdisc show dev "$DA" | grep -q clsact
}

EXT=$(bpftool feature probe kernel 2>/dev/null |
	sed -n 's/^eBPF program_type ext is \(.*\)$/\1/p')
EXT=${EXT:-unknown}
echo "# kernel $(uname -r): eBPF program_type ext is $EXT"

tap_plan 10
ok_if "veth pair in two namespaces" setup
ok_if "the other program loads through libxdp (dispatcher exactly where ext loads: $EXT)" other_loaded
ok_if "the other program sees the frames sent to it" other_counts
if [ "$EXT" = available ]; then
	ok_if "attach joins libxdp's dispatcher next to the other program" attach_joins
	ok_if "chain order: ours first (drops malformed, passes the rest), the other sees what we pass" chain_order
	ok_if "detach removes only ours; the other keeps running" detach_only_ours
else
	ok_if "attach refused: says freplace fails and how to detach the other" attach_refused
	ok_if "refused attach leaves the other program, no pins, no TC filter" other_untouched
	ok_if "the other program keeps running" other_counts
fi
ok_if "the other program unloads (xdp-loader unload --all)" unload_other
ok_if "on a free interface, ours attaches through libxdp" attach_alone
if [ "$EXT" = available ]; then
	ok_if "a program loaded after ours joins the dispatcher; chain order holds" other_after_ours
else
	ok_if "a program loaded after ours is refused; ours stays" other_after_ours
fi
ok_if "detach: no XDP program, no pins, no clsact" detached_clean
tap_end
