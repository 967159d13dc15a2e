#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# train --ema DECAY: every stage-2 step is folded into an exponential
# average of the parameters, which is realised (U back on the orthogonal
# group) and evaluated each epoch beside the network. On a run whose
# accuracy swings (N = 2 at a high rate) the average must differ from the
# network and do better than any epoch's network; --keep-best then keeps
# an average, and the model written must be it as realised from its
# phases (verify counts the same); without --keep-best the last average
# is written when it beats the last network. DECAY = 0 changes nothing;
# a decay out of [0, 1) is refused by name. TAP output.
. "$(dirname "$0")/lib.sh"

begin 4 ema

args="-N 2 --seed 3 --epochs1 0 --epochs2 40 --batch 64 --lr2 2e-2 --lr-end 1"
# wrong points per epoch: of the network, of the average
nets() { sed -n 's/^epoch .* exact [0-9.]*% (\([0-9]*\) wrong).*/\1/p' "$1"; }
avgs() { sed -n 's/^epoch .* average .* (\([0-9]*\) wrong).*/\1/p' "$1"; }
# right points of a model as realised from its file
right() { "$ONN" verify "$1" | sed -n 's/.*: \([0-9]*\) of 2401 points right.*/\1/p'; }

"$ONN" train $args -o "$dir/a.onn" >"$dir/a.log" 2>&1
"$ONN" train $args --ema 0 -o "$dir/z.onn" >"$dir/z.log" 2>&1
[ -s "$dir/a.onn" ] && cmp -s "$dir/a.onn" "$dir/z.onn" &&
	! grep -q average "$dir/z.log"
tap_result $? "--ema 0 writes the model a run without it writes, byte for byte, and evaluates no average"

"$ONN" train $args --ema 0.99 --keep-best -o "$dir/k.onn" >"$dir/k.log" 2>&1
na=$(nets "$dir/k.log" | sort -n | head -1)
aa=$(avgs "$dir/k.log" | sort -n | head -1)
differ=$(paste <(nets "$dir/k.log") <(avgs "$dir/k.log") | awk '$1 != $2' | wc -l)
kept=$(sed -n "s/^keeping epoch [0-9]*'s average (\([0-9]*\) wrong; .*/\1/p" "$dir/k.log")
got=$(right "$dir/k.onn")
echo "# fewest wrong: of a network $na, of an average $aa; epochs where they differ: $differ of $(avgs "$dir/k.log" | wc -l); kept: ${kept:-none}; verify: ${got:-?} right"
[ "$(avgs "$dir/k.log" | wc -l)" = 40 ] && [ "$differ" -gt 0 ] &&
	[ -n "$na" ] && [ -n "$aa" ] && [ "$aa" -lt "$na" ] &&
	[ "$kept" = "$aa" ] && [ "$got" = $((2401 - aa)) ]
tap_result $? "--ema 0.99 --keep-best: an average on every epoch, better than every epoch's network ($aa against $na wrong), kept, and verify agrees"

"$ONN" train $args --ema 0.99 -o "$dir/l.onn" >"$dir/l.log" 2>&1
line=$(sed -n 's/^writing the average (\([0-9]*\) wrong; the last epoch.s network: \([0-9]*\))$/\1 \2/p' "$dir/l.log")
la=$(avgs "$dir/l.log" | tail -1) ln=$(nets "$dir/l.log" | tail -1)
got=$(right "$dir/l.onn")
echo "# last epoch: network $ln wrong, average $la; written: ${line:-none}; verify: ${got:-?} right"
[ -n "$la" ] && [ "$la" -lt "$ln" ] && [ "$line" = "$la $ln" ] &&
	[ "$got" = $((2401 - la)) ]
tap_result $? "--ema 0.99 without --keep-best: the last average, better than the last network, is written"

refused --ema -0.5 1 1.5 x
tap_result $? "--ema -0.5, 1, 1.5, x: refused, naming --ema, no model written"
tap_end
