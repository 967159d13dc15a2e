#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# optinc-onn verify --phase-noise SIGMA --seeds K: mean, min and max over the
# seeds S..S+K-1, each seed's draw the same as a one-seed run with that seed;
# sigma 0 is the model as designed; bad sigmas and counts refused by name
# (on the shipped N = 4 model); the wrong points summed over the draws and
# the most in one draw, the sums of the single-seed runs' counts and what
# the mean says. --noise-layers: naming every layer is the
# same as no option, one layer alone is another figure, and bad lists, a
# layer the model lacks and the option without --phase-noise are refused.
# --noise-profile: all zero at sigma 0, first order in sigma, one layer's
# figures the same alone as among all, dense layers included, and refused
# without --phase-noise. --hot N: its lost points are the accuracy's, its
# rms move --noise-profile's, its N outputs ranked by rms move / margin,
# and bad counts refused. And train --noise (phase noise in the loop):
# it changes the trained model, the same file every time and after a pause
# and resume, and an out-of-range sigma is refused; train --noise-layers:
# by default the blocks, the dense layers through their SVD meshes when
# named (another model, the same after a pause and resume; at a rate of 0
# the model of a run without noise, so the clean weights come back bit for
# bit), a layer the network lacks refused. TAP output.
. "$(dirname "$0")/lib.sh"
M=models/onn-n4.onn

begin 28 noise

# "mean min max" of the one sigma of a verify run
stats() {
	"$ONN" verify "$M" "$@" | awk '/^ +[0-9.e-]+ +[0-9.]+ %/ { print $2, $4, $6 }'
}

# "wrong-in-all-draws most-in-one" of the one sigma of a verify run
counts() {
	"$ONN" verify "$M" "$@" | awk '/^ +[0-9.e-]+ +[0-9.]+ %/ { print $8, $9 }'
}

got=$(stats --phase-noise 0 --seeds 3)
[ "$got" = "100.0000 100.0000 100.0000" ] && [ "$(counts --phase-noise 0 --seeds 3)" = "0 0" ]
tap_result $? "sigma 0 over 3 seeds is the model as designed: $got, no point wrong"

got=$(stats --phase-noise 1e-2 --seeds 4 --seed 7)
read -r mean lo hi <<<"$got"
awk -v m="$mean" -v l="$lo" -v h="$hi" 'BEGIN { exit !(l <= m && m <= h && l < h && h < 100) }'
tap_result $? "sigma 1e-2, seeds 7..10: min <= mean <= max < 100: $got"

one=""
for s in 7 8 9 10; do
	one="$one $(stats --phase-noise 1e-2 --seeds 1 --seed $s | cut -d' ' -f1)"
done
want=$(echo "$one" | awk '{ s = 0; lo = 101; hi = -1
	for (i = 1; i <= NF; i++) { s += $i; if ($i < lo) lo = $i; if ($i > hi) hi = $i }
	printf "%.4f %.4f %.4f", s / NF, lo, hi }')
# the mean of four 4-decimal values may differ from the tool's in the last digit
awk -v a="$got" -v b="$want" 'BEGIN { split(a, x); split(b, y)
	exit !((x[1] - y[1])^2 < 1e-8 && x[2] == y[2] && x[3] == y[3]) }'
tap_result $? "they are seeds 7, 8, 9, 10 run one by one:$one -> $want"

# the counts: every draw's wrong points (28,561 points a draw), summed and
# the largest, and the same loss as the mean accuracy
each=""
for s in 7 8 9 10; do
	each="$each $(counts --phase-noise 1e-2 --seeds 1 --seed $s | cut -d' ' -f1)"
done
want=$(echo "$each" | awk '{ s = 0; hi = 0
	for (i = 1; i <= NF; i++) { s += $i; if ($i > hi) hi = $i }
	print s, hi }')
all=$(counts --phase-noise 1e-2 --seeds 4 --seed 7)
[ -n "$all" ] && [ "$all" = "$want" ]
tap_result $? "wrong points of seeds 7..10 (all, most) are the one-by-one counts:$each -> $all"
awk -v c="$all" -v m="$mean" 'BEGIN { split(c, x)
	d = 100 * (1 - x[1] / (4 * 28561)) - m; exit !(x[1] > 0 && d * d < 1e-8) }'
tap_result $? "${all%% *} wrong in 4 draws of 28,561 points is the mean's $mean %"

out=$("$ONN" verify "$M" --phase-noise 1e-3,abc 2>&1)
[ $? -ne 0 ] && echo "$out" | grep -q "'abc' is not a sigma"
tap_result $? "a bad sigma is refused: $(echo "$out" | head -1)"
out=$("$ONN" verify "$M" --phase-noise 1e-3 --seeds 0 2>&1)
[ $? -ne 0 ] && echo "$out" | grep -q -- "--seeds '0'"
tap_result $? "a seed count of 0 is refused: $(echo "$out" | head -1)"

# --noise-layers (the N = 4 model has 6 layers, all of blocks)
all=$(stats --phase-noise 1e-2 --seeds 2 --seed 7)
got=$(stats --phase-noise 1e-2 --seeds 2 --seed 7 --noise-layers 1-6)
[ -n "$all" ] && [ "$got" = "$all" ]
tap_result $? "--noise-layers 1-6 is every layer: $got, without the option $all"
one=$(stats --phase-noise 1e-2 --seeds 2 --seed 7 --noise-layers 3)
awk -v a="$all" -v b="$one" 'BEGIN { split(a, x); split(b, y); exit !(y[1] > x[1]) }'
tap_result $? "layer 3 alone keeps more points than all six: $one against $all"
bad=0
for l in 0 3-2 x 2,,3 7; do
	out=$("$ONN" verify "$M" --phase-noise 1e-3 --seeds 1 --noise-layers "$l" 2>&1)
	[ $? -ne 0 ] && echo "$out" | grep -q -- "--noise-layers '$l'" || bad=1
done
tap_result $bad "--noise-layers 0, 3-2, x, 2,,3 and 7 (of 6 layers) are refused by name: $(echo "$out" | head -1)"
out=$("$ONN" verify "$M" --noise-layers 2 2>&1)
[ $? -ne 0 ] && echo "$out" | grep -q "without --phase-noise"
tap_result $? "--noise-layers without --phase-noise is refused: $(echo "$out" | head -1)"

# --noise-profile: "layer dW/W alone together" rows, and the together line
prof() {
	"$ONN" verify "$@" --noise-profile | awk '
		/^noise profile/ { p = 1; next }
		p && /^ +[0-9]+ +[0-9]+x[0-9]+ / { print $1, $4, $5, $6 }
		p && /together: outputs move by/ { print "all", $5; p = 0 }'
}
got=$(prof "$M" --phase-noise 0 --seeds 2)
[ "$(echo "$got" | awk '$1 == "all" ? $2 != 0 : ($2 != 0 || $3 != 0 || $4 != 0)' | wc -l)" = 0 ] &&
	[ "$(echo "$got" | wc -l)" = 7 ]
tap_result $? "--noise-profile at sigma 0: every layer's figures and the outputs' move are 0 ($(echo $got | tr '\n' ' '))"
hi=$(prof "$M" --phase-noise 1e-3 --seeds 2)
lo=$(prof "$M" --phase-noise 1e-4 --seeds 2)
# (first order: within 3 %; ReLUs that switch make the rest)
paste <(echo "$hi") <(echo "$lo") | awk '
	NF == 8 { if (!($2 > 0 && $3 > 0 && $4 > 0)) bad = 1
		  for (i = 2; i <= 4; i++) if (($(i + 4) / $i - 0.1)^2 > 9e-6) bad = 1 }
	NF == 4 && $1 == "all" { if (!($2 > 0) || ($4 / $2 - 0.1)^2 > 9e-6) bad = 1 }
	END { exit bad || NR != 7 }'
tap_result $? "at sigma 1e-4 every layer's dW/W, alone and together, and the outputs' move are a tenth of 1e-3's, none 0: $(echo "$hi" | sed -n 2p) / $(echo "$lo" | sed -n 2p)"
one=$(prof "$M" --phase-noise 1e-3 --seeds 2 --noise-layers 3)
l3=$(echo "$hi" | awk '$1 == 3 { print $2, $3 }')
echo "$one" | awk -v l3="$l3" '
	$1 == 3 { split(l3, x); if ($2 != x[1] || $3 != x[2]) bad = 1; a = $3 }
	$1 ~ /^[0-9]+$/ && $1 != 3 && ($2 != "-" || $3 != "-") { bad = 1 }
	$1 == "all" && $2 != a { bad = 1 }
	END { exit bad || NR != 7 }'
tap_result $? "--noise-layers 3: layer 3's dW/W and outputs' move as among all six ($l3), the together line its own, the others '-'"

# --hot: the same draws as the accuracy's, every output of every point's
# move; the summary "moves by R rms; A points lost in all, D points in
# some draw; P outputs moved past their margin in some draw, H past half"
hotsum() {
	awk '$1 == "outputs" && $2 == "move" { print $4, $6, $11, $16, $25 }'
}
out=$("$ONN" verify "$M" --phase-noise 3e-3 --seeds 3 --seed 4 --hot 6)
acc=$(echo "$out" | awk '/^ +[0-9.e-]+ +[0-9.]+ %/ { print $8 }')
sum=$(echo "$out" | hotsum)
echo "$sum" | awk -v a="$acc" '{ exit !(NF == 5 && $2 == a && a > 0 &&
	0 < $3 && $3 <= $2 && $3 <= $4 && $4 <= $5) }'
tap_result $? "--hot at 3e-3, seeds 4..6: its points lost are verify's ($acc); lost in some draw <= in all, <= outputs past their margin <= past half ($sum)"
# rank, sums, exact, output, clean y, margin, rms move, max move, ratio
rank=$(echo "$out" | awk '/^ +rank/ { t = 1; next } t && NF == 9')
echo "$rank" | awk '{ if ($1 != NR || !($8 >= $7) || !($6 > 0) ||
		($7 / $6 - $9)^2 > 0.006^2 || (NR > 1 && $9 > last)) bad = 1
		last = $9 }
	END { exit bad || NR != 6 }'
tap_result $? "--hot 6: six outputs ranked 1-6 by rms move / margin, not rising, each ratio its row's rms / margin, max move >= rms ($(echo "$rank" | head -1 | tr -s ' '))"
one=$("$ONN" verify "$M" --phase-noise 3e-3 --seeds 1 --seed 5 --hot 1 --noise-profile)
sum=$(echo "$one" | hotsum)
all=$(echo "$one" | awk '/together: outputs move by/ { print $5 }')
echo "$sum" | awk -v p="$all" '{ exit !($2 == $3 && $2 > 0 && $1 == p) }'
tap_result $? "--hot over one draw: lost in some draw is lost in all, and the rms move is --noise-profile's ($all): $sum"
bad=0
for v in 0 x 2y; do
	out=$("$ONN" verify "$M" --phase-noise 1e-3 --seeds 1 --hot "$v" 2>&1)
	[ $? -ne 0 ] && echo "$out" | grep -q -- "--hot '$v'" || bad=1
done
out2=$("$ONN" verify "$M" --hot 3 2>&1)
[ $? -ne 0 ] && echo "$out2" | grep -q -- "--hot without --phase-noise" || bad=1
tap_result $bad "--hot 0, x and 2y are refused by name ($(echo "$out" | head -1)), and --hot without --phase-noise"

# noise in the training loop (stage 2 only: --epochs1 0)
args="-N 2 --seed 5 --epochs1 0 --epochs2 8 --batch 256 --slack 0.5"
"$ONN" train $args --noise 1e-2 -o "$dir/a.onn" >"$dir/a.log" 2>&1 &&
	"$ONN" train $args --noise 1e-2 -o "$dir/b.onn" >/dev/null 2>&1 &&
	cmp -s "$dir/a.onn" "$dir/b.onn"
tap_result $? "train --noise 1e-2: the same model twice ($(tail -2 "$dir/a.log" | head -1))"
"$ONN" train $args -o "$dir/c.onn" >/dev/null 2>&1 && ! cmp -s "$dir/a.onn" "$dir/c.onn"
tap_result $? "train --noise 1e-2 and without noise give different models"
"$ONN" train $args --noise 1e-2 -o "$dir/d.onn" --stop-after 3 >/dev/null 2>&1 &&
	"$ONN" train $args --noise 1e-2 -o "$dir/d.onn" --resume >/dev/null 2>&1 &&
	cmp -s "$dir/a.onn" "$dir/d.onn"
tap_result $? "train --noise 1e-2 paused after epoch 3 and resumed: the same model"
out=$("$ONN" train $args --noise 2 -o "$dir/e.onn" 2>&1)
[ $? -ne 0 ] && [ ! -e "$dir/e.onn" ] && echo "$out" | grep -q -- "--noise in \[0, 1)"
tap_result $? "train --noise 2 is refused: $(echo "$out" | tail -1)"

# --noise-layers in training: layers 1 and 4 dense, 2 and 3 blocks
args="-N 2 --arch 4-16-32-8-4 --approx 2-3 --seed 5 --epochs1 0 --epochs2 6 --batch 256 --slack 0.5 --noise 1e-2"
"$ONN" train $args -o "$dir/f.onn" >/dev/null 2>&1 &&
	"$ONN" train $args --noise-layers 2-3 -o "$dir/g.onn" >/dev/null 2>&1 &&
	cmp -s "$dir/f.onn" "$dir/g.onn"
tap_result $? "train --noise-layers 2-3 (the blocks) is the default"
"$ONN" train $args --noise-layers 1,4 -o "$dir/h.onn" >/dev/null 2>&1 &&
	! cmp -s "$dir/f.onn" "$dir/h.onn" &&
	"$ONN" train $args --noise-layers 1,4 -o "$dir/i.onn" --stop-after 3 >/dev/null 2>&1 &&
	"$ONN" train $args --noise-layers 1,4 -o "$dir/i.onn" --resume >/dev/null 2>&1 &&
	cmp -s "$dir/h.onn" "$dir/i.onn"
tap_result $? "train --noise-layers 1,4 (the dense layers): another model, the same after a pause and resume"
z="${args/--noise 1e-2/} --lr2 0"
"$ONN" train $z -o "$dir/k.onn" >/dev/null 2>&1 &&
	"$ONN" train $z --noise 1e-2 --noise-layers 1,4 -o "$dir/l.onn" >/dev/null 2>&1 &&
	cmp -s "$dir/k.onn" "$dir/l.onn"
tap_result $? "at a rate of 0, noise on the dense layers leaves the model of a run without noise (their clean w restored)"
got=$(prof "$dir/f.onn" --phase-noise 1e-2 --seeds 1)
echo "$got" | awk '$1 ~ /^[0-9]$/ && !($2 > 0 && $3 > 0) { bad = 1 } END { exit bad || NR != 5 }'
tap_result $? "--noise-profile on dense layers 1 and 4 and blocks 2, 3 (N = 2): each moves ($(echo $got | tr '\n' ' '))"
out=$("$ONN" verify "$M" --noise-profile 2>&1)
[ $? -ne 0 ] && echo "$out" | grep -q -- "--noise-profile without --phase-noise"
tap_result $? "--noise-profile without --phase-noise is refused: $(echo "$out" | head -1)"
out=$("$ONN" train $args --noise-layers 5 -o "$dir/j.onn" 2>&1)
[ $? -ne 0 ] && [ ! -e "$dir/j.onn" ] && echo "$out" | grep -q -- "--noise-layers '5'"
tap_result $? "train --noise-layers 5 (of 4 layers) is refused: $(echo "$out" | tail -1)"
tap_end
