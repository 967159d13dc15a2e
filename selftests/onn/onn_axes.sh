#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# train --first-axes: each first-layer row reads one axis of its input,
# row o the (o mod A)-th: with --s-low K the axes are S_K (the row's
# inputs 0..K-1 along (4^0, .., 4^{K-1})) and s_K .., s_3; without it,
# s_0 .. s_3. Found here from the model files (rate 0: as the run started;
# after training: still so, and moved); the trainer's wrong count is
# verify's; a run on axes may resume without them, not the other way
# round, nor with another K; the shipped version-1 checkpoint
# (models/n8-train) still resumes and is written back as version 2; bad
# combinations are refused by name. TAP output.
. "$(dirname "$0")/lib.sh"

begin 9 axes
PY=/usr/bin/python3

args="-N 4 --approx 2-5 --seed 3 --epochs1 0 --batch 256 --eval-every 1"
wrong() { sed -n 's/^trained .*: \([0-9]*\) of 28561 points wrong.*/\1/p' "$1"; }

# axes K FILE..: every first-layer row of each FILE on its axis, and
# which; prints "ok" or what is wrong
axes() {
	PYTHONPATH=$(dirname "$0") "$PY" - "$@" <<'PYEOF'
import sys
import numpy as np
from onn_dense import layers
low, bad = int(sys.argv[1]), []
for path in sys.argv[2:]:
    w = layers(path, 1)[2][0][0].astype(float)
    nax = (1 if low else 0) + w.shape[1] - low
    for o, row in enumerate(w):
        a = o % nax
        keep = np.zeros(w.shape[1], bool)
        if low and a == 0:
            keep[:low] = True
            v = 4.0 ** np.arange(low)
            # along S_K: row[:K] = c v, to float rounding
            if np.abs(row[:low] - row[0] * v).max() > 1e-6 * np.abs(row[:low]).max():
                bad.append('%s row %d not along S_%d: %s' % (path, o, low, row))
        else:
            keep[a - 1 + low if low else a] = True
        if np.any(row[~keep] != 0) or not np.all(row[keep] != 0):
            bad.append('%s row %d (axis %d): %s' % (path, o, a, row))
print('ok' if not bad else '; '.join(bad[:3]))
PYEOF
}

# rate 0: the file holds the network as it started
"$ONN" train $args --s-low 2 --first-axes --epochs2 1 --lr2 0 -o "$dir/z.onn" >"$dir/z.log" 2>&1
"$ONN" train $args --s-low 2 --epochs2 1 --lr2 0 -o "$dir/z0.onn" >/dev/null 2>&1
r=$(axes 2 "$dir/z.onn")
[ "$r" = ok ] && grep -q "^first layer: row o on axis o mod 3 of (S_2, s_2, s_3)$" "$dir/z.log" &&
	! cmp -s "$dir/z.onn" "$dir/z0.onn"
tap_result $? "--s-low 2 --first-axes, as initialised: rows on S_2, s_2, s_3 in turn: $r"

# trained: still on the axes, the first layer's weights moved (bytes
# 80..1103 of the file: 64 x 4 floats after the 64-byte header and the
# layer's 16); the trainer counts what verify counts
w1() { tail -c +81 "$1" | head -c 1024; }
"$ONN" train $args --s-low 2 --first-axes --epochs2 6 --lr2 3e-3 -o "$dir/a.onn" >"$dir/a.log" 2>&1
r=$(axes 2 "$dir/a.onn")
t=$(wrong "$dir/a.log")
v=$("$ONN" verify "$dir/a.onn" 2>&1 | sed -n 's/.* \([0-9]*\) of 28561 points right.*/\1/p')
[ "$r" = ok ] && [ -n "$t" ] && [ "$t" -gt 0 ] && [ "$t" = $((28561 - ${v:-28562})) ] &&
	! cmp -s <(w1 "$dir/a.onn") <(w1 "$dir/z.onn")
tap_result $? "after 6 epochs: rows still on their axes ($r); trainer $t wrong, verify $((28561 - ${v:-28562}))"

# without --s-low every input is an axis
"$ONN" train -N 4 --approx 2-5 --seed 3 --epochs1 0 --batch 256 --first-axes \
	--epochs2 2 --lr2 3e-3 -o "$dir/k0.onn" >"$dir/k0.log" 2>&1
r=$(axes 0 "$dir/k0.onn")
[ "$r" = ok ] && grep -q "^first layer: row o on axis o mod 4 of (s_0, s_1, s_2, s_3)$" "$dir/k0.log"
tap_result $? "--first-axes alone: rows on s_0, s_1, s_2, s_3 in turn: $r"

# resume without the axes: taken, the network as it was (the same wrong
# count after an epoch at a vanishing rate)
"$ONN" train $args --s-low 2 --epochs2 7 --lr2 1e-12 --resume --checkpoint "$dir/a.onn.ckpt" \
	-o "$dir/b.onn" >"$dir/b.log" 2>&1
grep -q "resumed from .* after epoch 6" "$dir/b.log" && [ "$(wrong "$dir/b.log")" = "$t" ]
tap_result $? "resumed without --first-axes: $(grep -m1 -e resumed -e cannot "$dir/b.log"); $(wrong "$dir/b.log") wrong, was $t"

# ... but not onto axes, nor on axes with another K
"$ONN" train $args --s-low 2 --epochs2 2 -o "$dir/n.onn" >/dev/null 2>&1
out=$("$ONN" train $args --s-low 2 --first-axes --epochs2 3 --resume \
	--checkpoint "$dir/n.onn.ckpt" -o "$dir/c.onn" 2>&1)
rc=$?
out0=$("$ONN" train -N 4 --approx 2-5 --seed 3 --epochs1 0 --batch 256 --first-axes \
	--epochs2 7 --resume --checkpoint "$dir/a.onn.ckpt" -o "$dir/c.onn" 2>&1)
rc0=$?
[ $rc -ne 0 ] && [ $rc0 -ne 0 ] && [ ! -e "$dir/c.onn" ] &&
	echo "$out" | grep -q "cannot resume: written by a run with other settings" &&
	echo "$out0" | grep -q "cannot resume: written by a run with other settings"
tap_result $? "a run not on axes resumed with them, and one on the axes of S_2 with those of s_0..s_3, are refused: $(echo "$out" | grep cannot)"

# the shipped checkpoint is version 1 (before --first-axes): it resumes
# with its own settings (its phase 20; stage 2 already run out, so the
# model is the checkpoint's network: its last epoch's wrong count, as the
# run's log gives it); one epoch more writes it as version 2, 8 bytes
# longer, which resumes in turn to the same network
ck=models/n8-train/onn-n8.ckpt
want=$(sed -n "s/.*the last epoch's: \([0-9]*\)).*/\1/p" models/n8-train/onn-n8.train.log | tail -1)
cp "$ck" "$dir/v1.ckpt"
n8="-N 8 --approx 2-7 --seed 4 --s-low 2 --input-gain 8 --epochs1 0 --batch 256 --s-weights uniform --margin2 0.15 --lr-end 1 --lr2 2.5e-6"
"$ONN" train $n8 --epochs2 176437 --resume --checkpoint "$dir/v1.ckpt" \
	-o "$dir/v1.onn" >"$dir/v1.log" 2>&1
w1=$(sed -n 's/^trained .*: \([0-9]*\) of 390625 points wrong.*/\1/p' "$dir/v1.log")
[ "$(head -c 8 "$ck")" = OINCCKP1 ] && grep -q "resumed from .* after epoch 176437" "$dir/v1.log" &&
	[ -n "$want" ] && [ "$w1" = "$want" ]
tap_result $? "models/n8-train's version-1 checkpoint resumes: $(grep -m1 -e resumed -e cannot "$dir/v1.log"), $w1 wrong (its log: $want)"
"$ONN" train $n8 --epochs2 176438 --resume --checkpoint "$dir/v1.ckpt" \
	-o "$dir/v2.onn" >"$dir/v2.log" 2>&1
"$ONN" train $n8 --epochs2 176438 --resume --checkpoint "$dir/v1.ckpt" \
	-o "$dir/v3.onn" >"$dir/v3.log" 2>&1
[ "$(head -c 8 "$dir/v1.ckpt")" = OINCCKP2 ] &&
	[ $(stat -c %s "$dir/v1.ckpt") = $(( $(stat -c %s "$ck") + 8 )) ] &&
	grep -q "resumed from .* after epoch 176438" "$dir/v3.log" && [ -s "$dir/v2.onn" ] &&
	cmp -s "$dir/v2.onn" "$dir/v3.onn"
tap_result $? "written back as $(head -c 8 "$dir/v1.ckpt"), $(stat -c %s "$dir/v1.ckpt") bytes, which resumes: $(grep -m1 -e resumed -e cannot "$dir/v3.log"), the same model"

out=$("$ONN" train $args --s-invariant --first-axes --epochs2 1 -o "$dir/d.onn" 2>&1)
[ $? -ne 0 ] && [ ! -e "$dir/d.onn" ] && echo "$out" | grep -q -- "--first-axes with --s-low 4"
tap_result $? "--first-axes with --s-invariant is refused: $out"
out=$("$ONN" train -N 4 --approx 1-5 --first-axes --epochs1 0 --epochs2 1 -o "$dir/e.onn" 2>&1)
[ $? -ne 0 ] && [ ! -e "$dir/e.onn" ] && echo "$out" | grep -q -- "--first-axes need a dense first layer"
tap_result $? "--first-axes with an approximated first layer is refused: $out"
tap_end
