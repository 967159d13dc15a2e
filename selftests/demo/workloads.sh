#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The demo's PyTorch workloads (tools/demo/workloads), short: each trains a
# few steps on 2 servers through the testbed switch with the optinc DDP hook
# (optinc-demo --workload resnet|lm --algos optinc); the run finishes, the
# loss falls, every rank's parameters are bit-identical after the steps,
# and the gradients went through the switch (the communicator's bytes).
SRC=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
. "$SRC/selftests/net/lib.sh"

PY=/usr/bin/python3
STEPS=${OPTINC_WL_STEPS:-12}
require_root
"$PY" -c 'import numpy, torch, torchvision' 2>/dev/null ||
	skip_all "needs $PY with torch and torchvision (make deps: python3-torch python3-torchvision)"
[ -e "$O/lib/liboptinc.so.0" ] || skip_all "$O/lib/liboptinc.so.0 not built"
[ -d /usr/share/datasets/fashion-mnist ] || skip_all "dataset-fashion-mnist not installed"
[ -f /usr/src/linux-source-6.1.tar.xz ] || skip_all "linux-source-6.1 not installed"
tap_plan 12

T_TMP=$(mktemp -d /tmp/optinc-wl-test.XXXXXX)

# mean train_loss of the first (or last) 3 steps
loss_mean() {
	local csv=$1 which=$2

	awk -F, -v w="$which" -v n="$STEPS" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		(w == "first" && $c["step"] <= 3) || (w == "last" && $c["step"] > n - 3) {
			s += $c["train_loss"]; k++ }
		END { if (k) printf "%.5f\n", s / k }' "$csv"
}

# col CSV NAME STEP: column NAME of eval.csv at STEP
col() {
	awk -F, -v n="$2" -v s="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["step"] == s { print $c[n] }' "$1"
}

lt() {
	awk -v x="$1" -v y="$2" 'BEGIN { exit !(x != "" && y != "" && x < y) }'
}

# every rank logged the same "hash stepS X" for each evaluation
same_hashes() {
	local logs=$1 s h

	for s in 0 "$STEPS"; do
		h=$(grep -h "^hash step$s " "$logs"/rank*.log | sort -u)
		[ "$(echo "$h" | grep -c .)" = 1 ] || return 1
		[ "$(grep -l "^hash step$s " "$logs"/rank*.log | wc -l)" = 2 ] || return 1
		echo "# step $s: ${h##* }"
	done
	[ "$(awk -F, 'NR > 1 && $NF != 1' "$logs/../eval.csv" | wc -l)" = 0 ]
}

through_switch() {
	local sent

	sent=$(awk -F, 'NR > 1 { s += $12 } END { print s + 0 }' "$1")
	echo "# optinc bytes_sent over the run: $sent"
	[ "$sent" -gt 0 ]
}

# run_workload WL METRIC [OPTINC-DEMO ARGS...]
run_workload() {
	local wl=$1 metric=$2 out=$T_TMP/$1 tb t0=$SECONDS rc

	shift 2
	tb=$(tb_name "wl${wl:0:1}")
	T_TBS+=("$tb")
	"$SRC/tools/demo/optinc-demo" --workload "$wl" -n 2 --algos optinc \
		--steps "$STEPS" --tb "$tb" --out "$out" "$@" >"$T_TMP/$wl.log" 2>&1
	rc=$?
	grep -v '^hash ' "$T_TMP/$wl.log" | sed 's/^/# /'
	ok_if "$wl: $STEPS steps on 2 servers with the optinc hook ($((SECONDS - t0)) s)" \
		[ $rc = 0 ]
	ok_if "$wl: training loss of the last 3 steps below the first 3" \
		lt "$(loss_mean "$out/steps.csv" last)" "$(loss_mean "$out/steps.csv" first)"
	ok_if "$wl: $metric after $STEPS steps below the initial model's" \
		lt "$(col "$out/eval.csv" "$metric" "$STEPS")" "$(col "$out/eval.csv" "$metric" 0)"
	ok_if "$wl: parameters bit-identical on every rank" same_hashes "$out/logs-optinc"
	ok_if "$wl: gradients averaged through the switch" through_switch "$out/steps.csv"
}

run_workload resnet test_loss --test-subset 1000
run_workload lm val_loss --workload-args '--val-seqs 64'
ok_if "no testbed left behind" bash -c "! ip netns list | grep -q '^wl[rl]$(($$ % 100000))-'"
ok_if "plots written" test -s "$T_TMP/resnet/demo.png" -a -s "$T_TMP/lm/demo.png"
tap_end
