#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End to end: train a small ONN (N = 2, all layers Sigma*U blocks) to 100 %,
# verify it as realised, compile its truth table and check that table
# against the exact average; and check that a paused and resumed run ends
# in the same model as one never stopped. TAP output.
. "$(dirname "$0")/lib.sh"

begin 8 e2e

"$ONN" train -N 2 --seed 1 --epochs1 0 --epochs2 1500 --lr2 3e-3 \
	--batch 256 --eval-every 10 -o "$dir/n2.onn" >"$dir/train.log" 2>&1
tap_result $? "train N = 2 ($(tail -2 "$dir/train.log" | head -1))"
grep -q "0 of 2401 points wrong" "$dir/train.log"
tap_result $? "trainer reaches 100 % with the network as built"
"$ONN" verify "$dir/n2.onn" --require-exact --noise 0.001 --trials 2 \
	>"$dir/verify.log" 2>&1
tap_result $? "verify: every domain point right as realised from phases"
grep -q "^  (none)" "$dir/verify.log"
tap_result $? "verify: empty histogram of wrong outputs"
"$ONN" compile "$dir/n2.onn" -o "$dir/n2.tbl" --require-exact >/dev/null 2>&1
tap_result $? "compile: table written"
"$ONN" check-table "$dir/n2.tbl" -N 2 --model "$dir/n2.onn" --require-exact \
	>"$dir/check.log" 2>&1
tap_result $? "compiled table equals the exact average and the model's outputs"

# determinism and resume: 30 epochs in one go, or 12 + pause + 18
args="-N 2 --seed 5 --epochs1 10 --epochs2 20 --eval-every 5 --batch 256"
"$ONN" train $args -o "$dir/a.onn" >/dev/null 2>&1 &&
"$ONN" train $args -o "$dir/b.onn" --stop-after 12 >/dev/null 2>&1 &&
	test ! -e "$dir/b.onn" &&
	"$ONN" train $args -o "$dir/b.onn" --resume >"$dir/resume.log" 2>&1
tap_result $? "train: pause after epoch 12 and resume"
cmp -s "$dir/a.onn" "$dir/b.onn" && grep -q "resumed from" "$dir/resume.log"
tap_result $? "resumed run gives the same model file as an uninterrupted one"
tap_end
