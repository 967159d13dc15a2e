#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The testbed tool itself, with a Linux bridge as the switch (no optincd):
# addressing per the contract, reachability, rank environment, run's exit
# status and time bound, loss, coexistence, and that down leaves nothing.
. "$(dirname "$0")/lib.sh"

require_root
N=3
TB=$(tb_name tbb)
TB2=$(tb_name tbc)
T_TMP=$(mktemp -d)

tap_plan 16

links_ok() {
	local i

	for ((i = 0; i < N; i++)); do
		ip -n "$TB-h$i" -br addr show dev eth0 | grep -q "10.77.0.$((i + 1))/24" || return 1
		ip -n "$TB-h$i" link show dev eth0 | grep -q "mtu 9000" || return 1
		ip -n "$TB-sw" link show dev "p$i" | grep -q "mtu 9000.*state UP" || return 1
		ip netns exec "$TB-h$i" ethtool -k eth0 |
			grep -q "tx-checksum-ip-generic: off" || return 1
	done
}

ping_all() {
	local i j

	for ((i = 0; i < N; i++)); do
		"$TESTBED" exec --tb "$TB" "$i" ping -c 1 -W 2 -q 10.77.0.254 >/dev/null || return 1
		for ((j = 0; j < N; j++)); do
			[ "$i" = "$j" ] && continue
			"$TESTBED" exec --tb "$TB" "$i" ping -c 1 -W 2 -q \
				"10.77.0.$((j + 1))" >/dev/null || return 1
		done
	done
}

env_ok() {
	local i

	"$TESTBED" run --tb "$TB" -o "$T_TMP/env" sh -c \
		'echo "$OPTINC_RANK $OPTINC_SIZE $OPTINC_SWITCH $OPTINC_JOB $OPTINC_PEERS"' >/dev/null || return 1
	for ((i = 0; i < N; i++)); do
		grep -qx "$i $N 10.77.0.254:47000 1 10.77.0.1,10.77.0.2,10.77.0.3" \
			"$T_TMP/env/rank$i.log" || return 1
	done
}

run_fails() {
	! "$TESTBED" run --tb "$TB" -q sh -c '[ "$OPTINC_RANK" != 1 ]' >/dev/null 2>&1
}

# A rank that hangs is stopped by -t: the run ends in about that time.
run_bounded() {
	local t0=$SECONDS

	! "$TESTBED" run --tb "$TB" -t 2 -q sleep 60 >/dev/null 2>&1 &&
		[ $((SECONDS - t0)) -le 10 ]
}

# Once a rank fails, the others get a grace period, not the full timeout.
run_grace() {
	local t0=$SECONDS

	! OPTINC_TB_RUN_GRACE=1 "$TESTBED" run --tb "$TB" -t 60 -q sh -c \
		'[ "$OPTINC_RANK" = 0 ] && exit 3; sleep 60' >/dev/null 2>&1 &&
		[ $((SECONDS - t0)) -le 10 ]
}

# 30 % loss each way at the server (about half the pings to the switch are
# answered): some must go missing, not all.
loss_ok() {
	local out recv

	"$TESTBED" exec --tb "$TB2" 0 ping -c 5 -i 0.2 -W 1 -q 10.77.0.254 >/dev/null
	out=$("$TESTBED" exec --tb "$TB2" 0 ping -c 100 -i 0.002 -W 1 -q 10.77.0.254)
	recv=$(echo "$out" | sed -n 's/.* \([0-9]*\) received.*/\1/p')
	echo "# loss 30%: $recv of 100 pings answered"
	[ -n "$recv" ] && [ "$recv" -gt 10 ] && [ "$recv" -lt 90 ]
}

nothing_left() {
	! ip netns list | grep -Eq "^($TB|$TB2)-" &&
		[ ! -e "/run/optinc-testbed/$TB" ] && [ ! -e "/run/optinc-testbed/$TB2" ]
}

ok_if "up -n $N --bridge" tb_up "$TB" -n $N --bridge
ok_if "addresses, mtu 9000, tx checksum off per contract" links_ok
ok_if "every server reaches the switch and every other server" ping_all
ok_if "run sets OPTINC_* per rank" env_ok
ok_if "run fails when one rank fails" run_fails
ok_if "run stops a hanging rank after -t" run_bounded
ok_if "run stops the others soon after one fails" run_grace
ok_if "exec rejects a rank outside 0..N-1" \
	bash -c "! '$TESTBED' exec --tb '$TB' $N true 2>/dev/null"
ok_if "up refuses an existing testbed name" \
	bash -c "! '$TESTBED' up --tb '$TB' -n 2 --bridge 2>/dev/null"
ok_if "a second testbed with loss 30% coexists" \
	tb_up "$TB2" -n 2 --bridge --loss 30
ok_if "loss 30% drops some frames, not all" loss_ok
# impair on one server: its frames to the switch are lost, the others' are not
impair_one_ok() {
	local out

	"$TESTBED" impair --tb "$TB" 1 --loss 100 || return 1
	! "$TESTBED" exec --tb "$TB" 1 ping -c 2 -i 0.2 -W 1 -q 10.77.0.254 >/dev/null &&
		"$TESTBED" exec --tb "$TB" 0 ping -c 2 -i 0.2 -W 1 -q 10.77.0.254 >/dev/null
}
ok_if "impair one server: 100% loss there, none on the others" impair_one_ok
ok_if "impair rejects a rank outside 0..N-1" \
	bash -c "! '$TESTBED' impair --tb '$TB' $N --loss 5 2>/dev/null"
ok_if "impair names an unknown option" \
	bash -c "'$TESTBED' impair --tb '$TB' 0 --lose 5 2>&1 | grep -q \"unknown option '--lose'\""
ok_if "status lists both testbeds" \
	bash -c "'$TESTBED' status | grep -q '^$TB ' && '$TESTBED' status | grep -q '^$TB2 '"
tb_down "$TB"
tb_down "$TB2"
ok_if "down removes namespaces and state" nothing_left
tap_end
