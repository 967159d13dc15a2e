#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# train --keep-best: a stage-2 run whose accuracy goes up and down (N = 2 at
# a high rate) writes the network of its epoch with the fewest wrong points
# (the model a run stopped at that epoch writes); the checkpoint still holds
# the last epoch's network, which resuming it without --keep-best writes.
# Between exact epochs the one with the widest worst margin is kept (N = 2
# at a lower rate, exact from epoch 107 on with margins that go up and down).
# TAP output.
. "$(dirname "$0")/lib.sh"

begin 6 best

args="-N 2 --seed 3 --epochs1 0 --epochs2 40 --batch 64 --lr2 2e-2 --lr-end 1"
"$ONN" train $args --keep-best -o "$dir/b.onn" >"$dir/b.log" 2>&1
least=$(sed -n 's/^epoch .* exact .* (\([0-9]*\) wrong).*/\1/p' "$dir/b.log" | sort -n | head -1)
last=$(sed -n 's/^epoch 40\/40 .* exact .* (\([0-9]*\) wrong).*/\1/p' "$dir/b.log")
kept=$(sed -n "s/^keeping epoch [0-9]*'s network (\([0-9]*\) wrong; the last epoch's: \([0-9]*\))$/\1 \2/p" \
	"$dir/b.log")
[ -n "$least" ] && [ -n "$last" ] && [ "$least" -lt "$last" ] && [ "$kept" = "$least $last" ] &&
	grep -q "^trained 40 epochs .*: $least of 2401 points wrong" "$dir/b.log"
tap_result $? "40 epochs: the fewest wrong of an epoch $least, the last epoch's $last; kept: ${kept:-none}"

# at a constant rate (--lr-end 1) a run of E epochs is the first E of a
# longer one: the model written must be the one a run stopped at the kept
# epoch writes, to the byte
e=$(sed -n "s/^keeping epoch \([0-9]*\)'s network.*/\1/p" "$dir/b.log")
"$ONN" train ${args/--epochs2 40/--epochs2 ${e:-1}} -o "$dir/e.onn" >"$dir/e.log" 2>&1
[ -n "$e" ] && cmp -s "$dir/b.onn" "$dir/e.onn"
tap_result $? "the model written is the one of a run of ${e:-?} epochs, byte for byte"

"$ONN" train $args --resume --checkpoint "$dir/b.onn.ckpt" -o "$dir/l.onn" >"$dir/l.log" 2>&1
grep -q "^trained 40 epochs .*: $last of 2401 points wrong" "$dir/l.log"
tap_result $? "the checkpoint holds the last epoch: resumed without --keep-best it writes $(sed -n 's/^trained .*: \([0-9]*\) of 2401.*/\1/p' "$dir/l.log") wrong (want $last)"

# exact epochs: "EPOCH MARGIN" for each, from the progress lines
args="-N 2 --seed 3 --epochs1 0 --epochs2 114 --batch 64 --lr2 5e-3 --lr-end 1 --stop-margin 0.4"
"$ONN" train $args --keep-best -o "$dir/x.onn" >"$dir/x.log" 2>&1
sed -n 's/^epoch \([0-9]*\)\/114 .* exact .* (0 wrong) margin \([-+0-9.]*\) .*/\1 \2/p' \
	"$dir/x.log" >"$dir/x.exact"
first=$(head -1 "$dir/x.exact")
final=$(tail -1 "$dir/x.exact")
read -r e widest <<<"$(sort -k2,2g -k1,1n "$dir/x.exact" | awk '$2 == m || NR == 1 { m = $2 } END { print }')"
# the widest must be neither the first exact epoch (the old rule's pick) nor
# the last (what is written without --keep-best)
[ "${first#* }" != "${widest:-}" ] && [ "${final%% *}" = 114 ] &&
	[ "${final#* }" != "${widest:-}" ] &&
	grep -q "^keeping epoch $e's network (exact, margin $widest; the last epoch's: exact, margin ${final#* })$" "$dir/x.log"
tap_result $? "exact epochs $(wc -l <"$dir/x.exact") (first $first, last $final): kept epoch ${e:-?}, margin ${widest:-?}"

m=$("$ONN" verify "$dir/x.onn" --require-exact | sed -n '1s/.*worst margin \([-+0-9.]*\)$/\1/p')
awk -v m="${m:-x}" -v w="${widest:-y}" 'BEGIN { d = m - w; exit !(m != "" && d < 0.0005 && d > -0.0005) }'
tap_result $? "the model written is exact with verify's worst margin ${m:-?} (the trainer's ${widest:-?})"

"$ONN" train ${args/--epochs2 114/--epochs2 ${e:-1}} -o "$dir/y.onn" >"$dir/y.log" 2>&1
[ -n "$e" ] && cmp -s "$dir/x.onn" "$dir/y.onn"
tap_result $? "it is the model of a run of ${e:-?} epochs, byte for byte"
tap_end
