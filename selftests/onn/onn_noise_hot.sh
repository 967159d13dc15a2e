#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# train --noise-hot K: after each stage-2 evaluation, K chips with the
# --noise error; a row a draw moves past half its margin (on the chip
# without noise) is trained from then on. From an exact N = 2 network
# (paused at epoch 90, every row right with 0.3 to spare): K = 0 is a run
# without the option, byte for byte; at sigma 1e-9 no row is hot, no
# point is lost and the model is that of a run without the option (the
# draws' network is the trained one); at 3e-3 the rows a draw moves join
# the trained ones from the first epoch on, stay (the hot count never
# falls, every epoch trains at least the rows hot before it), and the
# model is another, the same twice. Bad counts, and the option without
# --noise, are refused by name. TAP output.
. "$(dirname "$0")/lib.sh"

begin 6 noise-hot

exact_n2

# run (lib.sh): 6 epochs on from that network
args="$base --epochs2 206 --lr2 1e-4 --stop-margin 0.3 --slack 0.02"
# "trained hot" per epoch (hot 0 without the option)
counts() {
	sed -n 's/^epoch .* trained \([0-9]*\) .*/\1/p' "$1" >"$dir/t"
	sed -n 's/^epoch .* wrong in [0-9]* draws, \([0-9]*\) hot.*/\1/p' "$1" >"$dir/h"
	[ -s "$dir/h" ] || sed 's/.*/0/' "$dir/t" >"$dir/h"
	paste -d ' ' "$dir/t" "$dir/h" | tr '\n' ',' | sed 's/,$//'
}

run a --noise 3e-3
run z --noise 3e-3 --noise-hot 0
[ -s "$dir/a.onn" ] && cmp -s "$dir/a.onn" "$dir/z.onn"
tap_result $? "--noise-hot 0 writes the model a run without it writes, byte for byte"

run c --noise 1e-9
run d --noise 1e-9 --noise-hot 2
dl=$(grep -c "^epoch .* noisy 0 wrong in 2 draws, 0 hot" "$dir/d.log")
echo "# trained, hot per epoch: without: $(counts "$dir/c.log"); --noise-hot 2: $(counts "$dir/d.log")"
[ "$dl" = 6 ] && [ "$(counts "$dir/c.log")" = "$(counts "$dir/d.log")" ] &&
	[ -s "$dir/d.onn" ] && cmp -s "$dir/c.onn" "$dir/d.onn"
tap_result $? "sigma 1e-9: in 6 of 6 epochs no point lost and no row hot ($dl), the same rows trained, the same model"

run e --noise 3e-3 --noise-hot 2
ca=$(counts "$dir/a.log") ce=$(counts "$dir/e.log")
echo "# trained, hot per epoch at 3e-3: without: $ca; --noise-hot 2: $ce"
echo "$ca,$ce" | tr ',' '\n' | awk 'NR == 1 { a = $1 } NR == 7 { e = $1 }
	NR > 6 && !($2 > 0) { bad = 1 }
	END { exit bad || NR != 12 || !(e > a) }'
tap_result $? "sigma 3e-3: the first epoch trains more rows with --noise-hot 2 (hot rows join) and every epoch has hot rows"
echo "$ce" | tr ',' '\n' | awk 'NR > 1 && ($2 < hot || $1 < hot) { bad = 1 } { hot = $2 }
	END { exit bad || NR != 6 }'
tap_result $? "the hot count never falls and every epoch trains at least the rows hot after the one before"

run f --noise 3e-3 --noise-hot 2
lost=$(sed -n 's/^epoch .* noisy \([0-9]*\) wrong in 2 draws.*/\1/p' "$dir/e.log" | tr '\n' ' ')
echo "# points lost in the 2 draws per epoch: $lost"
[ -s "$dir/e.onn" ] && cmp -s "$dir/e.onn" "$dir/f.onn" &&
	! cmp -s "$dir/a.onn" "$dir/e.onn" &&
	echo "$lost" | awk '{ for (i = 1; i <= NF; i++) if ($i > 2 * 2401) bad = 1 }
		END { exit bad || NF != 6 }'
tap_result $? "--noise-hot 2: another model than without, the same twice; each epoch's lost count in 0..2 x 2401"

args="$base --epochs2 2 --noise 1e-3"
refused --noise-hot 101 x -1 2y
ok=$?
args="$base --epochs2 2"
out=$("$ONN" train $args --noise-hot 2 -o "$dir/r.onn" 2>&1)
echo "# without --noise: $out"
[ $ok = 0 ] && [[ "$out" == *"--noise-hot 2: need K <= 100, and --noise"* ]] && [ ! -e "$dir/r.onn" ]
tap_result $? "--noise-hot 101, x, -1, 2y refused by name; --noise-hot without --noise refused"
tap_end
