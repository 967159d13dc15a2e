#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# optinc-onn verify --phase-noise SIGMA --seeds K: mean, min and max over the
# seeds S..S+K-1, each seed's draw the same as a one-seed run with that seed;
# sigma 0 is the model as designed; bad sigmas and counts refused by name.
# On the shipped N = 4 model. TAP output.
. "$(dirname "$0")/lib.sh"
M=models/onn-n4.onn

echo "1..5"
if [ ! -x "$ONN" ]; then
	echo "Bail out! $ONN not built"
	exit 1
fi

# "mean min max" of the one sigma of a verify run
stats() {
	"$ONN" verify "$M" "$@" | awk '/^ +[0-9.e-]+ +[0-9.]+ %/ { print $2, $4, $6 }'
}

got=$(stats --phase-noise 0 --seeds 3)
[ "$got" = "100.0000 100.0000 100.0000" ]
ok $? "sigma 0 over 3 seeds is the model as designed: $got"

got=$(stats --phase-noise 1e-2 --seeds 4 --seed 7)
read -r mean lo hi <<<"$got"
awk -v m="$mean" -v l="$lo" -v h="$hi" 'BEGIN { exit !(l <= m && m <= h && l < h && h < 100) }'
ok $? "sigma 1e-2, seeds 7..10: min <= mean <= max < 100: $got"

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
ok $? "they are seeds 7, 8, 9, 10 run one by one:$one -> $want"

out=$("$ONN" verify "$M" --phase-noise 1e-3,abc 2>&1)
[ $? -ne 0 ] && echo "$out" | grep -q "'abc' is not a sigma"
ok $? "a bad sigma is refused: $(echo "$out" | head -1)"
out=$("$ONN" verify "$M" --phase-noise 1e-3 --seeds 0 2>&1)
[ $? -ne 0 ] && echo "$out" | grep -q -- "--seeds '0'"
ok $? "a seed count of 0 is refused: $(echo "$out" | head -1)"
exit $failed
