#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# train --init rows: every hidden unit's hinge goes through a training row
# drawn at random, the weights are those of --init cube (the default);
# found here from the model files, independently of the trainer, on runs
# whose rate is 0 (so the file holds the network as it started). With a
# stage 1 the hinges are placed at the start, without one after the
# blocks' first projection (info --units: every unit on somewhere); a
# resumed run is not re-initialised; bad values are refused by name.
# TAP output.
. "$(dirname "$0")/lib.sh"

begin 5 init
PY=/usr/bin/python3

# N = 2 along S, dense, rate 0: the files hold the initial networks
args="-N 2 --seed 5 --s-invariant --approx none --arch 4-16-32-32-16-4 --epochs1 0 --epochs2 1 --batch 64 --lr2 0"
for i in cube rows; do
	"$ONN" train $args --init $i -o "$dir/$i.onn" >"$dir/$i.log" 2>&1 ||
		tap_bail "train --init $i failed: $(tail -1 "$dir/$i.log")"
done
"$ONN" train $args -o "$dir/none.onn" >/dev/null 2>&1
# with a stage 1 (dense, no projection) the hinges are placed at the start
"$ONN" train ${args/--epochs1 0/--epochs1 1 --lr1 0} --init rows \
	-o "$dir/rows1.onn" >/dev/null 2>&1

check=$(PYTHONPATH=$(dirname "$0") "$PY" - "$dir/cube.onn" "$dir/rows.onn" "$dir/rows1.onn" <<'PYEOF'
import sys
import numpy as np
from onn_dense import layers
members, sc, lc = layers(sys.argv[1])
S = np.arange(sum(3 * members * 4 ** k for k in range(4)) + 1, dtype=float)
# along S a first-layer row is w_0 (4^0, 4^1, ..): its input is w_0 S scale
x = np.outer(S * sc, [1.0, 0, 0, 0])
bad, off_cube, placed = [], 0, []
h = x
for j, (wc, bc) in enumerate(lc[:-1]):
    h = np.maximum(h @ wc.T.astype(float) + bc, 0)
    off_cube += int((h.max(0) <= 0).sum())
for name in sys.argv[2:]:
    _, _, lr = layers(name)
    h, n = x, 0
    for j, ((wc, bc), (wr, br)) in enumerate(zip(lc, lr)):
        # the same He draws (stage 1's projections move the last bits)
        if not np.allclose(wc, wr, rtol=1e-5, atol=0):
            bad.append('%s layer %d: weights differ from --init cube' % (name, j + 1))
        if j + 1 == len(lc):
            break
        p = h @ wr.T.astype(float)
        z = p + br
        tol = 1e-5 * (np.abs(p).max(0) + 1)
        for u in range(z.shape[1]):
            if np.abs(z[:, u]).min() > tol[u]:
                bad.append('%s layer %d unit %d: no row at its hinge (closest %g)' % (name, j + 1, u, np.abs(z[:, u]).min()))
            elif z[:, u].max() > tol[u]:
                n += 1
        h = np.maximum(z, 0)
    placed.append(str(n))
if off_cube == 0:
    bad.append('--init cube leaves no unit off: the test proves little')
print('; '.join(bad) if bad else 'ok: %s hidden units with a row at their hinge and on beyond it; %d off everywhere with cube' % (' and '.join(placed), off_cube))
PYEOF
)
echo "# $check"
[[ "$check" == ok:* ]]
tap_result $? "--init rows, with and without a stage 1: each hidden unit's hinge at a training row, the weights those of --init cube"

cmp -s "$dir/none.onn" "$dir/cube.onn" && ! cmp -s "$dir/cube.onn" "$dir/rows.onn"
tap_result $? "--init cube is the default (the same model as no option; rows another)"

# blocks (N = 2, every layer Sigma * U, rate 0): placed after the first
# projection, so that every hidden unit of the realised network bends
# inside the domain
bargs="-N 2 --seed 5 --approx all --arch 4-16-32-16-4 --epochs1 0 --epochs2 1 --batch 256 --lr2 0"
units() { "$ONN" info --units "$1" | sed -n 's/.*, \([0-9]*\) of \([0-9]*\) units on somewhere$/\1 \2/p' | paste -sd' '; }
for i in cube rows; do
	"$ONN" train $bargs --init $i -o "$dir/b$i.onn" >/dev/null 2>&1
done
uc=$(units "$dir/bcube.onn")
ur=$(units "$dir/brows.onn")
echo "# info --units, on somewhere of each layer: cube: $uc; rows: $ur"
# pairs "on width": every layer's count equals its width
[ -n "$ur" ] && [ "$uc" != "$ur" ] &&
	echo "$ur" | awk '{for (i = 1; i < NF; i += 2) if ($i != $(i + 1)) exit 1}'
tap_result $? "--init rows on blocks: every hidden unit on somewhere as realised (cube: not)"

# a resumed run keeps its network: --init acts on a new run only
"$ONN" train ${args/--epochs2 1 --batch 64 --lr2 0/--epochs2 4 --batch 64 --lr2 1e-2} \
	--stop-after 2 --init rows --checkpoint "$dir/s.ckpt" -o "$dir/s.onn" >/dev/null 2>&1
cp "$dir/s.ckpt" "$dir/t.ckpt"
for i in cube rows; do
	c=s; [ $i = rows ] && c=t
	"$ONN" train ${args/--epochs2 1 --batch 64 --lr2 0/--epochs2 4 --batch 64 --lr2 1e-2} \
		--resume --init $i --checkpoint "$dir/$c.ckpt" -o "$dir/r$i.onn" >/dev/null 2>&1
done
[ -s "$dir/rcube.onn" ] && cmp -s "$dir/rcube.onn" "$dir/rrows.onn"
tap_result $? "on resume --init changes nothing (cube and rows write the same model)"

refused --init foo Rows ''
tap_result $? "--init foo / Rows / '': refused, naming --init, no model written"
tap_end
