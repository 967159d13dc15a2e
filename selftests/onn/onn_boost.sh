#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# train --boost F: in stage 2 the rows wrong at the last evaluation weigh
# 1 + F times as much. F = 0 (the default) must change nothing; F > 0 must
# change the training (from its first epoch: stage 2 evaluates before it
# to find the rows to train on); a value out of
# [0, 1000] or not a number is refused by name. TAP output.
. "$(dirname "$0")/lib.sh"

begin 3 boost

args="-N 2 --seed 3 --epochs1 0 --epochs2 20 --batch 64 --lr2 2e-2 --lr-end 1"
counts() { sed -n 's/^epoch .* exact .* (\([0-9]*\) wrong).*/\1/p' "$1" | tr '\n' ' '; }

"$ONN" train $args -o "$dir/a.onn" >"$dir/a.log" 2>&1
"$ONN" train $args --boost 0 -o "$dir/z.onn" >"$dir/z.log" 2>&1
[ -s "$dir/a.onn" ] && cmp -s "$dir/a.onn" "$dir/z.onn"
tap_result $? "--boost 0 writes the model a run without it writes, byte for byte"

"$ONN" train $args --boost 4 -o "$dir/b.onn" >"$dir/b.log" 2>&1
ca=$(counts "$dir/a.log") cb=$(counts "$dir/b.log")
echo "# wrong per epoch, --boost 0: $ca"
echo "# wrong per epoch, --boost 4: $cb"
[ -s "$dir/b.onn" ] && ! cmp -s "$dir/a.onn" "$dir/b.onn" &&
	[ -n "$cb" ] && [ "${ca%% *}" != "${cb%% *}" ]
tap_result $? "--boost 4: another run from the first epoch on, another model"

refused --boost -1 1001 x 1e
tap_result $? "--boost -1, 1001, x, 1e: refused, naming --boost, no model written"
tap_end
