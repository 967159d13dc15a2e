#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# train --revive-hidden TOP: on resume (or start), every unit of layers 2
# to L-1 that is off on every training row (found here from the model
# files, layer by layer through the layers before it as revived,
# independently of the trainer) gets its bias raised so that its largest
# pre-activation over the rows is TOP; no other number in the file
# changes; bad values are refused by name; `optinc-onn info --units`
# counts the units on somewhere as the files do. TAP output.
. "$(dirname "$0")/lib.sh"

begin 4 revive-hidden
PY=/usr/bin/python3

# N = 2 along S, dense: 30 epochs at a high rate leave hidden units off
args="-N 2 --seed 3 --s-invariant --approx none --arch 4-16-32-32-16-4 --epochs1 0 --epochs2 30 --batch 64 --lr2 3e-2 --lr-end 1"

"$ONN" train $args --checkpoint "$dir/a.ckpt" -o "$dir/a.onn" >"$dir/a.log" 2>&1
cp "$dir/a.ckpt" "$dir/c.ckpt"
# stage 2 is over at epoch 30: the resumed run writes its network at once
"$ONN" train $args --resume --checkpoint "$dir/c.ckpt" --revive-hidden 0.05 \
	-o "$dir/c.onn" >"$dir/c.log" 2>&1
said=$(sed -n 's/^revived \([0-9]*\) hidden units.*: \(layer.*\)/\1 \2/p' "$dir/c.log")
echo "# $(grep '^revived' "$dir/c.log")"

check=$(PYTHONPATH=$(dirname "$0") "$PY" - "$dir/a.onn" "$dir/c.onn" 0.05 "${said:-x}" <<'PYEOF'
import sys
import numpy as np
from onn_dense import layers
members, sc, la = layers(sys.argv[1])
_, _, lc = layers(sys.argv[2])
top = float(sys.argv[3])
S = np.arange(sum(3 * members * 4 ** k for k in range(4)) + 1, dtype=float)
bad, counts = [], []
for j, ((wa, ba), (wc, bc)) in enumerate(zip(la, lc)):
    if not np.array_equal(wa, wc):
        bad.append('layer %d: weights changed' % (j + 1))
    if j == 0:   # along S: the row is w_0 (4^0, 4^1, ..)
        h = np.maximum(np.outer(S * sc, wc[:, 0].astype(float)) + bc, 0)
        if not np.array_equal(ba, bc):
            bad.append('layer 1: biases changed')
        continue
    z = h @ wa.T.astype(float) + ba   # a's biases, on c's layers before
    off = z.max(0) <= 0
    zc = h @ wc.T.astype(float) + bc
    if j + 1 < len(la):
        counts.append(int(off.sum()))
        for u in np.where(off)[0]:
            if abs(zc[:, u].max() - top) > 1e-4:
                bad.append('layer %d unit %d: largest pre-activation %g, not %g' % (j + 1, u, zc[:, u].max(), top))
        if not np.array_equal(ba[~off], bc[~off]):
            bad.append('layer %d: a unit that was on changed' % (j + 1))
        h = np.maximum(zc, 0)
    elif not np.array_equal(ba, bc):
        bad.append('last layer: biases changed')
want = '%d %s' % (sum(counts), ' '.join('layer %d: %d' % (j + 2, n) for j, n in enumerate(counts)))
if sys.argv[4] != want:
    bad.append('trainer says "%s", the files "%s"' % (sys.argv[4], want))
if sum(counts) == 0:
    bad.append('no unit was off: the test proves nothing')
print('; '.join(bad) if bad else 'ok: ' + want)
PYEOF
)
echo "# $check"
[[ "$check" == ok:* ]]
tap_result $? "--revive-hidden 0.05: the hidden units off on every S, and only they, now reach 0.05 at most"

refused --revive-hidden -1 11 x nan 0.1x
tap_result $? "--revive-hidden -1 / 11 / x / nan / 0.1x: refused, naming --revive-hidden, no model written"

# info --units over the whole domain, as realised, against the files
# along S (the same: the first layer's rows are along (1, 4, 16, 64))
for f in a c; do
	got=$("$ONN" info --units "$dir/$f.onn" | sed -n 's/.*, \([0-9]*\) of [0-9]* units on somewhere$/\1/p' | paste -sd' ')
	want=$("$PY" - "$dir/$f.onn" <<'PYEOF'
import struct, sys
import numpy as np
d = open(sys.argv[1], 'rb').read()
members, nl = struct.unpack_from('<H', d, 10)[0], struct.unpack_from('<H', d, 14)[0]
sc = struct.unpack_from('<f', d, 16)[0]
h = np.arange(sum(3 * members * 4 ** k for k in range(4)) + 1, dtype=float)[:, None] * sc
off, on = 64, []
for j in range(nl):
    i, o, act, form = struct.unpack_from('<HHBB', d, off)
    w = np.frombuffer(d, '<f4', i * o, off + 16).reshape(o, i).astype(float)
    b = np.frombuffer(d, '<f4', o, off + 16 + 4 * i * o)
    z = (h * w[:, 0]) + b if j == 0 else h @ w.T + b
    if act == 1:
        h = np.maximum(z, 0)
        on.append(str(int((h.max(0) > 0).sum())))
    off += 16 + 4 * (i * o + o)
print(' '.join(on))
PYEOF
)
	echo "# $f.onn: info --units: $got; from the file along S: $want"
	[ -n "$got" ] && [ "$got" = "$want" ] || bad_units=1
done
[ -z "${bad_units:-}" ]
tap_result $? "info --units counts each ReLU layer's units on somewhere as the model files do"

# 0 is off: the same model byte for byte as no option
cp "$dir/a.ckpt" "$dir/z.ckpt"
cp "$dir/a.ckpt" "$dir/z0.ckpt"
"$ONN" train $args --resume --checkpoint "$dir/z.ckpt" -o "$dir/z.onn" >/dev/null 2>&1
"$ONN" train $args --resume --checkpoint "$dir/z0.ckpt" --revive-hidden 0 \
	-o "$dir/z0.onn" >/dev/null 2>&1
cmp -s "$dir/z.onn" "$dir/z0.onn" && ! cmp -s "$dir/z.onn" "$dir/c.onn"
tap_result $? "--revive-hidden 0 writes the same model as no option (and 0.05 another)"
tap_end
