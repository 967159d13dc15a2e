#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared by the tests that inject frames during a job (portsec.sh,
# ratelimit.sh), sourced after lib.sh: addresses, telemetry, the ranks'
# (rel_rank's) reports, and the rule that holds a run under attack to a
# control run. Needs SW (the switch's address) and FLOOR_MS.

mac_of() { ip -n "$1" -j link show eth0 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["address"])'; }
sw_mac() { ip -n "$1" neigh show "$SW" dev eth0 | awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1) }'; }

# tel TB CMD EXPR: EXPR of the answer d of one telemetry command.
tel() {
	"$TESTBED" tel --tb "$1" "$2" |
		python3 -c "import json, sys; d = json.load(sys.stdin)[\"${2%%,*}\"]; print($3)"
}

port_ctr() { tel "$1" /optinc/ports "d['$2']['$3']"; }

max_ms() { sed -n 's/^PASS .* max_ms \([0-9]*\) .*/\1/p' "$1"; }
# p99 of the call times, whole ms rounded up
p99_ms() { awk '/^# call_ms / { printf "%d", $6 + 0.999 }' "$1"; }
probes() { sed -n 's/^PASS .* probes \([0-9]*\) .*/\1/p' "$1"; }
retx() { sed -n 's/^PASS .* retransmits \([0-9]*\) .*/\1/p' "$1"; }
passed() { [ "$(grep -l '^PASS' "$@" | wc -l)" -eq $# ]; }

# within_2x ATTACKED CONTROL: the victim's p99 call time within 2x the
# control run's, which has the same injector load without the attack (the
# same frames from the attacker's own MAC and IP in portsec.sh, as many
# uncharged frames in ratelimit.sh). On 2 shared cores the injector's load
# alone moved the p99 from 20 to 53 ms once; the idle clean run and every
# slowest call are reported, not tested. Values under FLOOR_MS count as it.
within_2x() {
	local a=$1 c=$2

	[ -n "$a" ] && [ -n "$c" ] || return 1
	[ "$c" -lt "$FLOOR_MS" ] && c=$FLOOR_MS
	[ "$a" -le $((2 * c)) ]
}

eq() {
	echo "# $3: $1, expected $2"
	[ "$1" = "$2" ]
}
