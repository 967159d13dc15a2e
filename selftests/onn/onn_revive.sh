#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# train --revive FIRST,STEP,SLOPE: on resume (or start) of a run along S,
# every first-layer unit that is off on every training row (read here
# from the model file, independently of the trainer) becomes, the i-th of
# them in unit order, SLOPE * (FIRST + i * STEP - S); every other unit and
# every other layer stays as it was, byte for byte; a bad value, or a run
# not along S, is refused by name. TAP output.
. "$(dirname "$0")/lib.sh"

begin 3 revive
PY=/usr/bin/python3

# N = 2 along S, dense: 20 epochs at a high rate leave units off
args="-N 2 --seed 3 --s-invariant --approx none --epochs1 0 --epochs2 20 --batch 64 --lr2 2e-2 --lr-end 1"

"$ONN" train $args --checkpoint "$dir/a.ckpt" -o "$dir/a.onn" >"$dir/a.log" 2>&1
cp "$dir/a.ckpt" "$dir/c.ckpt"
# stage 2 is over at epoch 20: the resumed run writes its network at once
"$ONN" train $args --resume --checkpoint "$dir/c.ckpt" --revive 3,5,0.25 \
	-o "$dir/c.onn" >"$dir/c.log" 2>&1
n=$(sed -n 's/^revived \([0-9]*\) first-layer units.*/\1/p' "$dir/c.log")
echo "# $(grep '^revived' "$dir/c.log")"

# the first layer of each file: units off for every S in 0..3N(4^4-1)/3
check=$("$PY" - "$dir/a.onn" "$dir/c.onn" 3 5 0.25 "${n:-x}" <<'PYEOF'
import struct, sys
def layer1(path):
    d = open(path, 'rb').read()
    members = struct.unpack_from('<H', d, 10)[0]
    scale = struct.unpack_from('<f', d, 16)[0]
    i, o = struct.unpack_from('<HH', d, 64)
    w = struct.unpack_from('<%df' % (i * o), d, 80)
    b = struct.unpack_from('<%df' % o, d, 80 + 4 * i * o)
    return d, members, scale, i, o, w, b, 80 + 4 * (i * o + o)
da, members, sc, i, o, wa, ba, end = layer1(sys.argv[1])
dc, _, _, _, _, wc, bc, endc = layer1(sys.argv[2])
first, step, slope = map(float, sys.argv[3:6])
top = sum(3 * members * 4 ** k for k in range(i))
def pre(w, b, u, s):    # the row is w_0 (4^0, 4^1, ..): along S
    return b[u] + w[u * i] * sc * s
off = [u for u in range(o) if all(pre(wa, ba, u, s) <= 0 for s in range(top + 1))]
bad = []
if str(len(off)) != sys.argv[6] or not off:
    bad.append('%d units off, trainer says %s' % (len(off), sys.argv[6]))
for j, u in enumerate(off):
    kink = first + j * step
    if abs(bc[u] - slope * kink) > 1e-6 * slope * kink + 1e-9:
        bad.append('unit %d: bias %g, not %g' % (u, bc[u], slope * kink))
    for k in range(i):
        want = -slope * 4 ** k
        if abs(wc[u * i + k] * sc - want) > 1e-6 * abs(want):
            bad.append('unit %d input %d: %g per S, not %g' % (u, k, wc[u * i + k] * sc, want))
for u in set(range(o)) - set(off):
    if wc[u * i:(u + 1) * i] != wa[u * i:(u + 1) * i] or bc[u] != ba[u]:
        bad.append('unit %d changed' % u)
if dc[endc:] != da[end:]:
    bad.append('layers 2.. changed')
print('; '.join(bad) if bad else 'ok: %d units, kinks %s' % (len(off), [first + j * step for j in range(len(off))]))
PYEOF
)
echo "# $check"
[[ "$check" == ok:* ]]
tap_result $? "--revive 3,5,0.25: the units off on every S, and only they, fall from S = 3 + 5 i with slope 0.25"

refused --revive 1,2 1,2,0 x,1,1 -1,2,3 1,2,3,4 1,,2 1,2,inf
tap_result $? "--revive 1,2 / 1,2,0 / x,1,1 / -1,2,3 / 1,2,3,4 / 1,,2 / 1,2,inf: refused, naming --revive, no model written"

args="-N 2 --seed 3 --approx none --epochs1 0 --epochs2 2 --batch 64"
refused --revive 1,2,3
tap_result $? "--revive without --s-invariant: refused, naming --revive"
tap_end
