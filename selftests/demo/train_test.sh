#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Short data-parallel training through the testbed switch, OptINC and ring:
# the loss goes down, the two stay close, the switch counts fewer bytes for
# OptINC. Runs tools/demo/optinc-demo, as `make demo` does, on a small subset.
SRC=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
. "$SRC/selftests/net/lib.sh"

require_root
[ -x "$O/examples/train_fmnist" ] || skip_all "$O/examples/train_fmnist not built"
[ -d /usr/share/datasets/fashion-mnist ] || skip_all "dataset-fashion-mnist not installed"
tap_plan 10

T_TMP=$(mktemp -d /tmp/optinc-train-test.XXXXXX)
TB=$(tb_name dt)
T_TBS+=("$TB")
csv=$T_TMP/train.csv

# A demo takes down what is left of its testbed first, but not while
# another optinc-demo runs on it: a stand-in holds the name (its command
# line says optinc-demo) over a testbed that is up.
pidf=/run/optinc-demo-$TB.pid
"$TESTBED" up --tb "$TB" -n 2 --no-switch >/dev/null 2>&1
bash -c 'exec -a optinc-demo sleep 60' &
holder=$!
echo "$holder" > "$pidf"
"$SRC/tools/demo/optinc-demo" --tb "$TB" --out "$T_TMP/refused" --epochs 1 \
	>"$T_TMP/refused.log" 2>&1
rc=$?
[ $rc != 0 ] && grep -q "testbed '$TB' is in use by optinc-demo (pid $holder)" "$T_TMP/refused.log"
tap_result $? "a second demo on a testbed in use is refused, naming the first ($(tail -1 "$T_TMP/refused.log"))"
[ -e "/run/netns/$TB-h1" ] && [ "$(cat "$pidf")" = "$holder" ]
tap_result $? "the testbed in use is left up, and its demo keeps the name"
kill "$holder"
wait "$holder" 2>/dev/null

# the holder is gone: its pid file is a leftover, and so is the testbed
"$SRC/tools/demo/optinc-demo" --tb "$TB" --out "$T_TMP" --epochs 1 \
	--subset 3072 --test-subset 2000 --batch 128 >"$T_TMP/demo.log" 2>&1
rc=$?
ok_if "the demo's claim on its testbed is gone when it ends" [ ! -e "$pidf" ]
sed 's/^/# /' "$T_TMP/demo.log"
ok_if "optinc-demo trains with optinc and ring" [ $rc = 0 ]

# field F of epoch E of ALGO in train.csv
col() {
	awk -F, -v a="$1" -v e="$2" -v f="$3" \
		'NR > 1 && $2 == a && $1 == e { print $f }' "$csv"
}

# awk condition on its variables x and y
cmp_ok() {
	awk -v x="$1" -v y="$2" "BEGIN { exit !(x != \"\" && y != \"\" && ($3)) }"
}

for algo in optinc ring; do
	ok_if "$algo: training loss fell below the initial loss" \
		cmp_ok "$(col $algo 1 7)" "$(col $algo 0 7)" 'x < y - 0.5'
	ok_if "$algo: test loss fell below the initial loss" \
		cmp_ok "$(col $algo 1 8)" "$(col $algo 0 8)" 'x < y - 0.5'
done
ok_if "test accuracy of optinc and ring within 2 points" \
	cmp_ok "$(col optinc 1 9)" "$(col ring 1 9)" 'x - y < 2 && y - x < 2 && x > 60'
# bytes each server sent per step over the gradient: 8-bit values and
# headers for optinc, 2(N-1)/N float32 for the ring
ratio() {
	awk -F, -v a="$1" 'NR > 1 && $1 == a { s += $7; n++ } END { if (n) print s / n }' \
		"$T_TMP/switch.csv"
}
ok_if "the switch counts about 1/4 gradient per server for optinc, 1.5 for ring" \
	cmp_ok "$(ratio optinc)" "$(ratio ring)" 'x > 0.25 && x < 0.3 && y > 1.5 && y < 1.7'
tap_end
