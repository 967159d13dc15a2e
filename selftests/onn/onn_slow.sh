#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# train --s-low K and --s-invariant (N = 4, B = 8): the training set has one
# row per (S_K, s_K, .., s_3), (N (4^K - 1) + 1) (3N + 1)^(4 - K) of them;
# the wrong count the trainer reports over those weighted rows is verify's
# over the whole domain; a run may resume with a lower K (the network as it
# was: the same wrong count after an epoch at a vanishing rate) but not
# with a higher one or from a network that sees every input; it may resume
# with other row weights (--s-weights), which then weigh its loss; K = 1, K > B/2
# and an approximated first layer are refused by name, and so is a value
# that is not a number or is out of range (here and in the other numeric
# options). TAP output.
. "$(dirname "$0")/lib.sh"

begin 12 slow

args="-N 4 --approx 2-5 --seed 3 --epochs1 0 --batch 256 --eval-every 1"
rows() { sed -n 's/^training set: \([0-9]*\) rows.*/\1/p' "$1"; }
wrong() { sed -n 's/^trained .*: \([0-9]*\) of 28561 points wrong.*/\1/p' "$1"; }

for k in 2 3 4; do
	want=$(( (4 * ((1 << (2 * k)) - 1) + 1) * 13 ** (4 - k) ))
	"$ONN" train $args --s-low $k --epochs2 1 -o "$dir/r$k.onn" >"$dir/r$k.log" 2>&1
	got=$(rows "$dir/r$k.log")
	[ "$got" = "$want" ]
	tap_result $? "--s-low $k: $got training rows, want $want"
done
"$ONN" train $args --s-invariant --epochs2 1 -o "$dir/si.onn" >"$dir/si.log" 2>&1
[ "$(rows "$dir/si.log")" = 1021 ] && cmp -s "$dir/si.onn" "$dir/r4.onn"
tap_result $? "--s-invariant is --s-low 4: $(rows "$dir/si.log") rows, the same model"

# trainer's count over weighted rows = verify's over all 28561 points
"$ONN" train $args --s-low 2 --epochs2 4 --lr2 3e-3 -o "$dir/a.onn" >"$dir/a.log" 2>&1
t=$(wrong "$dir/a.log")
r=$("$ONN" verify "$dir/a.onn" 2>&1 | sed -n 's/.* \([0-9]*\) of 28561 points right.*/\1/p')
v=$(( 28561 - ${r:-28562} ))
[ -n "$t" ] && [ "$t" = "$v" ] && [ "$t" -gt 0 ] && [ "$t" -lt 28561 ]
tap_result $? "--s-low 2 after 4 epochs: trainer counts $t wrong, verify $v"

# resume: K 4 -> 2 keeps the network, 2 -> 4 and 0 -> 2 are refused
"$ONN" train $args --s-invariant --epochs2 30 --lr2 3e-3 -o "$dir/b.onn" >"$dir/b.log" 2>&1
"$ONN" train $args --s-low 2 --epochs2 31 --lr2 1e-12 --resume --checkpoint "$dir/b.onn.ckpt" \
	-o "$dir/c.onn" >"$dir/c.log" 2>&1
w=$(wrong "$dir/b.log")
[ -n "$w" ] && [ "$w" -gt 0 ] && [ "$w" -lt 28561 ] && [ "$w" = "$(wrong "$dir/c.log")" ] &&
	grep -q "resumed from .* after epoch 30" "$dir/c.log"
tap_result $? "--s-invariant resumed as --s-low 2: $(wrong "$dir/b.log") -> $(wrong "$dir/c.log") wrong"
out=$("$ONN" train $args --s-low 4 --epochs2 6 --resume --checkpoint "$dir/a.onn.ckpt" \
	-o "$dir/d.onn" 2>&1)
[ $? -ne 0 ] && echo "$out" | grep -q "cannot resume: written by a run with other settings"
tap_result $? "--s-low 2 resumed as --s-low 4 is refused: $(echo "$out" | head -1)"
"$ONN" train $args --epochs2 1 -o "$dir/e.onn" >/dev/null 2>&1
out=$("$ONN" train $args --s-low 2 --epochs2 2 --resume --checkpoint "$dir/e.onn.ckpt" \
	-o "$dir/f.onn" 2>&1)
[ $? -ne 0 ] && echo "$out" | grep -q "cannot resume"
tap_result $? "a network of every input resumed as --s-low 2 is refused: $(echo "$out" | head -1)"

# --s-weights may change on resume (it weighs the loss, not the network):
# one checkpoint resumed with uniform and with domain weights, both taken,
# two different models
"$ONN" train $args --s-invariant --epochs2 10 --lr2 3e-3 -o "$dir/w.onn" >/dev/null 2>&1
cp "$dir/w.onn.ckpt" "$dir/wu.ckpt"; cp "$dir/w.onn.ckpt" "$dir/wd.ckpt"
for w in u d; do
	[ $w = u ] && sw=uniform || sw=domain
	"$ONN" train $args --s-invariant --epochs2 14 --lr2 3e-3 --s-weights $sw --resume \
		--checkpoint "$dir/w$w.ckpt" -o "$dir/w$w.onn" >"$dir/w$w.log" 2>&1
done
grep -q "resumed from .* after epoch 10" "$dir/wu.log" &&
	grep -q "resumed from .* after epoch 10" "$dir/wd.log" &&
	[ -s "$dir/wu.onn" ] && [ -s "$dir/wd.onn" ] && ! cmp -s "$dir/wu.onn" "$dir/wd.onn"
tap_result $? "a domain-weighted checkpoint resumed with --s-weights uniform: $(grep -m1 -e resumed -e cannot "$dir/wu.log"); $(wrong "$dir/wu.log") against $(wrong "$dir/wd.log") wrong with domain weights"

out=$("$ONN" train $args --s-low 1 --epochs2 1 -o "$dir/g.onn" 2>&1)
rc=$?
out5=$("$ONN" train $args --s-low 5 --epochs2 1 -o "$dir/g.onn" 2>&1)
rc5=$?
[ $rc -ne 0 ] && [ $rc5 -ne 0 ] && [ ! -e "$dir/g.onn" ] &&
	echo "$out" | grep -q -- "--s-low 1: need 2 <= K <= 4" &&
	echo "$out5" | grep -q -- "--s-low 5: need 2 <= K <= 4"
tap_result $? "--s-low 1 and 5 are refused: $out"
out=$("$ONN" train -N 4 --s-low 3 --epochs1 0 --epochs2 1 -o "$dir/h.onn" 2>&1)
[ $? -ne 0 ] && [ ! -e "$dir/h.onn" ] && echo "$out" | grep -q "need a dense first layer"
tap_result $? "--s-low with an approximated first layer is refused: $out"
out=$("$ONN" train $args --s-low 3x --epochs2 1 -o "$dir/i.onn" 2>&1)
rc=$?
out2=$("$ONN" train $args --s-low 3 --lr2 1e-3e --epochs2 1 -o "$dir/i.onn" 2>&1)
rc2=$?
out3=$("$ONN" train $args --s-low 3 --seed -1 --epochs2 1 -o "$dir/i.onn" 2>&1)
rc3=$?
out4=$("$ONN" train $args --s-low 3 --epochs2 5000000000 -o "$dir/i.onn" 2>&1)
[ $? -ne 0 ] && [ $rc -ne 0 ] && [ $rc2 -ne 0 ] && [ $rc3 -ne 0 ] && [ ! -e "$dir/i.onn" ] &&
	echo "$out" | grep -q -- "--s-low '3x': not a count" &&
	echo "$out2" | grep -q -- "--lr2 '1e-3e': not a number" &&
	echo "$out3" | grep -q -- "--seed '-1': not a count" &&
	echo "$out4" | grep -q -- "--epochs2 '5000000000': out of range"
tap_result $? "values that are not numbers, or too large, are refused: $out / $out2 / $out3 / $out4"
tap_end
