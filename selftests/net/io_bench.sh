#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# optinc-io-bench, the benchmark's I/O probe, against a real optincd: in
# optinc mode every rank's RESULT frames come back and pass its checks
# (seq, slot, shadow bit, shape, length, exponents, values), with and
# without the exponent phase; in reflect mode, which expects its own frames
# back from a forwarder, optincd's answers are refused and the run fails.
. "$(dirname "$0")/lib.sh"

require_root
N=3
TB=$(tb_name iob)
IOB=$O/bin/optinc-io-bench
T_TMP=$(mktemp -d)

tap_plan 5

[ -x "$IOB" ] || { echo "Bail out! $IOB not built"; exit 1; }

# io_run NAME ARGS...: all ranks, lines into $T_TMP/NAME; the run's status
io_run() {
	local name=$1 rc

	shift
	"$TESTBED" run --tb "$TB" -t 60 -o "$T_TMP/$name" "$IOB" "$@" \
		>"$T_TMP/$name.out" 2>&1
	rc=$?
	sed 's/^/# /' "$T_TMP/$name.out" | grep -E "checked|error|wrong" | head -6
	return $rc
}

all_checked() {
	[ "$(grep -c "frames back, all checked" "$T_TMP/$1.out")" -eq $N ]
}

if tb_up "$TB" -n $N --job "id=1,size=$N,bits=8"; then
	ok_if "testbed with optincd up" true
else
	ok_if "testbed with optincd up" false
	tap_end
	exit
fi
io_run ex -M optinc -b 4M -n 3 -w 1
ok_if "optinc mode, 4 MiB with the exponent phase: every rank passes" [ $? = 0 ]
ok_if "... and every rank checked all its frames" all_checked ex
io_run nx -M optinc -b 1M -n 2 -w 1 --no-exp
ok_if "optinc mode without the exponent phase: every rank checked all its frames" all_checked nx
io_run rf -M reflect -b 64K -n 1 -w 0 -t 2000
ok_if "reflect mode against optincd fails (its own frames never come back)" [ $? != 0 ]
tap_end
