#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# optincd's datapath with one server on a veth: ARP and ping of the switch
# (jumbo too), malformed frames of every kind dropped and counted by reason
# while optincd keeps running, a NACK for a missing job, and a one-member
# job's JOIN, DATA and RESULT. Makes its own namespaces; prints TAP.
set -u
. "$(dirname "$0")/../tap.sh"
O=${O:-build}
D=$O/bin/optincd
C=$O/bin/optincctl
FRAMES=$(dirname "$0")/frames.py
tb=odp$$
K=20
tmp=$(mktemp -d)
pid=

cleanup() {
	[ -n "$pid" ] && kill -INT "$pid" 2>/dev/null && wait "$pid"
	ip netns del "$tb-h0" 2>/dev/null
	ip netns del "$tb-sw" 2>/dev/null
	rm -rf "$tmp" "/var/run/dpdk/$tb"
}
trap cleanup EXIT

[ "$(id -u)" = 0 ] || skip_all "needs root for network namespaces"

setup() {
	ip netns add "$tb-sw" && ip netns add "$tb-h0" || return 1
	ip link add p0 netns "$tb-sw" type veth peer name eth0 netns "$tb-h0" || return 1
	for ns in "$tb-sw" "$tb-h0"; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	done
	ip -n "$tb-h0" addr add 10.77.0.1/24 dev eth0 &&
	ip -n "$tb-h0" link set eth0 mtu 9000 up &&
	ip netns exec "$tb-h0" ethtool -K eth0 tx off >/dev/null &&
	ip -n "$tb-sw" link set p0 mtu 9000 up || return 1
	ip netns exec "$tb-sw" "$D" -l 0 --no-huge -m 128 --no-pci \
		--file-prefix "$tb" --vdev net_af_packet0,iface=p0 -- \
		--addr 10.77.0.254 --job id=1,size=1 >"$tmp/log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		"$C" --prefix "$tb" daemon show >/dev/null 2>&1 && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	sed 's/^/# /' "$tmp/log"
	return 1
}

in_h0() {
	ip netns exec "$tb-h0" "$@"
}

pings() {
	in_h0 ping -c 2 -i 0.2 -W 2 -q "$@" 10.77.0.254 >/dev/null
}

# counters PYTHON-EXPR: true when EXPR holds for s (daemon show) and j (job 1)
counters() {
	"$C" --prefix "$tb" -j daemon show >"$tmp/show" &&
	"$C" --prefix "$tb" -j daemon job 1 >"$tmp/job" || return 1
	python3 - "$tmp/show" "$tmp/job" "$1" <<'PYEOF'
import json, sys
s, j = (json.load(open(f)) for f in sys.argv[1:3])
ok = eval('(' + sys.argv[3] + ')')
if not ok:
    print('# switch drops', s['drops'], 'to_switch_other', s['to_switch_other'])
    print('# job drops', j['drops'], 'slots', j['slots_completed'])
sys.exit(0 if ok else 1)
PYEOF
}

rx_at_least() {
	"$C" --prefix "$tb" -j daemon ports >"$tmp/ports" &&
	python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))[0]["rx_pkts"] < int(sys.argv[2]))' \
		"$tmp/ports" "$1"
}

result_is() {
	local got

	got=$(in_h0 timeout 20 python3 "$FRAMES" join-data)
	echo "# result: $got"
	[ "$got" = "$1" ]
}

nack_is() {
	local got

	got=$(in_h0 timeout 20 python3 "$FRAMES" nack)
	[ "$got" = "$1" ]
}

stops() {
	kill -TERM "$pid" && wait "$pid"
	local rc=$?

	pid=
	[ $rc -eq 0 ] && grep -q "optincd: stopping" "$tmp/log"
}

tap_plan 11
ok_if "optincd starts with one af_packet port" setup
ok_if "ARP and ping of the switch" pings
ok_if "jumbo ping of the switch (8900 bytes, DF)" pings -s 8900 -M do
mac=$(ip netns exec "$tb-sw" cat /sys/class/net/p0/address)
ok_if "malformed frames sent ($K of each of 9 kinds)" \
	in_h0 timeout 60 python3 "$FRAMES" malformed "$mac" "$K"
sleep 1
ok_if "optincd still runs" kill -0 "$pid"
ok_if "all of them received" rx_at_least $((9 * K))
ok_if "switch-wide drops by reason" counters \
	"s['drops']['short'] == $K and s['drops']['bad_version'] == $K and
	 s['drops']['bad_type'] == $K and s['drops']['unknown_job'] == $K and
	 s['to_switch_other'] == $K"
ok_if "job drops by reason" counters \
	"j['drops']['bad_shape'] == $K and j['drops']['bad_token'] == $K and
	 j['drops']['not_member'] == $K and j['slots_completed'] == 0"
ok_if "JOIN of a missing job gets a NACK (no job)" nack_is 1
ok_if "one member's DATA comes back as the RESULT" result_is "10 -20 30 -40"
ok_if "SIGTERM stops optincd with exit 0" stops
tap_end
