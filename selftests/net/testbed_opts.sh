#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# optinc-testbed's command line: every option or variable it refuses is
# named in the error (with its value and what it may be), and a refused
# `up` leaves nothing behind. Needs root (the checks follow need_root);
# makes no testbed. TAP (selftests/net/lib.sh).
set -u
. "$(dirname "$0")/lib.sh"
require_root
tb=$(tb_name otbo)
T_TBS+=("$tb")

# refused WANT CMD...: the testbed tool exits 1 and says WANT
refused() {
	local want=$1 out rc

	shift
	out=$("$@" 2>&1)
	rc=$?
	[ $rc -eq 1 ] && grep -qF -- "$want" <<<"$out" && return 0
	echo "# exit $rc, wanted '$want' in: $out"
	return 1
}

# Each `up` option: a bad value, and the text its error must have.
UP_CASES=(
	"-n 99|-n '99': servers, 1..64"
	"-n x|-n 'x': servers, 1..64"
	"-n 0|-n 0: a switch without servers needs --ports P"
	"--ports 65|--ports '65': switch ports, from -n (4) to 64"
	"--ports 2|--ports '2': switch ports, from -n (4) to 64"
	"--tb 9lives|--tb '9lives': a testbed name"
	"--mtu 100|--mtu '100': 576..9118 with optincd"
	"--mtu 9200|--mtu '9200': 576..9118 with optincd"
	"--loss 101|--loss '101': a percentage, 0..100"
	"--dup many|--dup 'many': a percentage, 0..100"
	"--delay 5|--delay '5': TIME [JITTER]"
	"--delay 5ms --reorder x|--reorder 'x': a percentage"
	"--reorder 10|--reorder 10 needs --delay"
	"--impair tc|--impair 'tc': auto, netem or nft"
	"--port 0|--port '0': a UDP port, 1..65535"
	"--wait soon|--wait 'soon': seconds, 1..3600"
	"--subnet 10.77.300|--subnet '10.77.300': A.B.C"
	"--uplink top|--uplink 'top': TB2:PORT"
	"--uplink top:64|--uplink 'top:64': TB2:PORT"
	"--frob|up: unknown option '--frob'"
)
# Options that take a value, given none.
UP_VALUED=(-n --tb --mtu --loss --dup --delay --reorder --impair --job --port
	   --daemon-args --eal-args --wait --subnet --ports --uplink)

up_cases() {
	local c args want bad=0

	for c in "${UP_CASES[@]}"; do
		args=${c%%|*} want=${c#*|}
		# shellcheck disable=SC2086
		refused "$want" "$TESTBED" up --tb "$tb" $args || bad=1
	done
	return $bad
}

up_valued() {
	local o bad=0

	for o in "${UP_VALUED[@]}"; do
		refused "up: $o needs a value" "$TESTBED" up "$o" || bad=1
	done
	return $bad
}

# The other commands' options and variables.
others() {
	local bad=0

	refused "down: --tb needs a value" "$TESTBED" down --tb || bad=1
	refused "down: unknown option '-x'" "$TESTBED" down -x || bad=1
	refused "exec: --tb needs a value" "$TESTBED" exec --tb || bad=1
	refused "run: -t needs a value" "$TESTBED" run -t || bad=1
	refused "run: -t 'x': seconds" "$TESTBED" run -t x true || bad=1
	refused "run: OPTINC_TB_RUN_TIMEOUT 'x': seconds" env OPTINC_TB_RUN_TIMEOUT=x "$TESTBED" run true || bad=1
	refused "run: OPTINC_TB_RUN_GRACE '-1': seconds" env OPTINC_TB_RUN_GRACE=-1 "$TESTBED" run true || bad=1
	refused "impair: --loss needs a percentage" "$TESTBED" impair --tb "$tb" 0 --loss || bad=1
	refused "status: unknown option '-x'" "$TESTBED" status -x || bad=1
	refused "OPTINC_TB '1x': a testbed name" env OPTINC_TB=1x "$TESTBED" up || bad=1
	refused "OPTINC_TB '1x': a testbed name" env OPTINC_TB=1x "$TESTBED" down || bad=1
	refused "no testbed '$tb'" "$TESTBED" ctl --tb "$tb" || bad=1
	refused "/nowhere/optincd not found" env OPTINCD=/nowhere/optincd "$TESTBED" up --tb "$tb" -n 1 || bad=1
	return $bad
}

none_left() {
	[ ! -e "/run/optinc-testbed/$tb" ] && nothing_left
}

tap_plan 5
ok_if "up: each bad option value is refused naming the option (${#UP_CASES[@]} cases)" up_cases
ok_if "up: each option that takes a value, given none, is named (${#UP_VALUED[@]})" up_valued
ok_if "down, exec, run, impair, status, ctl: options and variables named" others
ok_if "'up -n 99' (the issue's case) names -n and 1..64" refused "-n '99': servers, 1..64" "$TESTBED" up --tb "$tb" -n 99
ok_if "refused commands leave no testbed behind" none_left
tap_end
