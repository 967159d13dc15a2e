#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Documentation/onn.md checked by a second realiser written from it alone
# (onn_realise.py, numpy, no code shared with tools/onn): it must give the
# outputs optinc-onn compiled into the tables, for the shipped N = 4 (every
# point, and verify's worst margin), N = 8 (a sample) and a small wrong
# model with dense, stacked and side-by-side layers (every point, wrong
# outputs included); one phase-noise draw gives verify's accuracy, on every
# layer and on some only (--noise-layers), and the rms of the outputs' move
# that verify --noise-profile prints; a corrupt file is refused by
# name. TAP output.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
REAL=$(dirname "$0")/onn_realise.py

begin 8 real
if ! $PY -c 'import numpy' 2>/dev/null; then
	echo "Bail out! $PY has no numpy (scripts/install-deps)"
	exit 1
fi

# the worst margin as optinc-onn verify prints it
margin() {
	"$ONN" verify "$1" | sed -n '1s/.*worst margin \([-+0-9.]*\).*/\1/p'
}

out=$($PY "$REAL" models/onn-n4.onn models/onn-n4.tbl \
	--margin "$(margin models/onn-n4.onn)" 2>&1)
tap_result $? "N = 4 shipped, every point: $out"
out=$($PY "$REAL" models/onn-n8.onn models/onn-n8.tbl --sample 20000 2>&1)
tap_result $? "N = 8 shipped, sample: $out"

# dense layers 4, stacked blocks 1-2, side-by-side blocks 3; mostly wrong
"$ONN" train -N 2 --arch 4-16-32-8-4 --approx 1-3 --epochs1 20 --epochs2 20 \
	--lr1 3e-2 --lr2 3e-2 --batch 64 --seed 3 -o "$dir/w.onn" >/dev/null 2>&1 &&
	"$ONN" compile "$dir/w.onn" -o "$dir/w.tbl" >/dev/null 2>&1
out=$($PY "$REAL" "$dir/w.onn" "$dir/w.tbl" --margin "$(margin "$dir/w.onn")" 2>&1)
tap_result $? "N = 2 briefly trained 4-16-32-8-4: $out"
wrong=$(echo "$out" | sed -n 's/.*, \([0-9]*\) differ from the exact.*/\1/p')
[ "${wrong:-0}" -gt 1000 ]
tap_result $? "that model is wrong at ${wrong:-?} points, so the match is not just the exact average"

# one noise draw (sigma 1e-2, seed 8): the document fixes every random number
want=$("$ONN" verify models/onn-n4.onn --phase-noise 1e-2 --seeds 1 --seed 8 |
	awk '/^ +0.01 / { print $2 }')
out=$($PY "$REAL" models/onn-n4.onn --noise 1e-2 --seed 8 2>&1)
echo "$out" | grep -q "(${want:-none} %)"
tap_result $? "N = 4, phase noise 1e-2, seed 8: optinc-onn ${want:-?} %, $out"

# the same draw, only layers 2, 5 and 6 perturbed (verify --noise-layers)
want=$("$ONN" verify models/onn-n4.onn --phase-noise 1e-2 --seeds 1 --seed 8 \
	--noise-layers 2,5-6 | awk '/^ +0.01 / { print $2 }')
out=$($PY "$REAL" models/onn-n4.onn --noise 1e-2 --seed 8 --layers 2,5-6 2>&1)
echo "$out" | grep -q "(${want:-none} %)"
tap_result $? "N = 4, the same draw on layers 2, 5, 6 only: optinc-onn ${want:-?} %, $out"

# that draw's outputs' move, against verify --noise-profile's together line
want=$("$ONN" verify models/onn-n4.onn --phase-noise 1e-2 --seeds 1 --seed 8 \
	--noise-layers 2,5-6 --noise-profile | sed -n 's/.*together: outputs move by \([0-9.e-]*\) .*/\1/p')
got=$(echo "$out" | sed -n 's/.*outputs move by \([0-9.e-]*\) (rms).*/\1/p')
awk -v a="${want:-0}" -v b="${got:-1}" 'BEGIN { exit !(a > 0 && ((a - b) / a)^2 < 1e-6) }'
tap_result $? "N = 4, that draw moves the outputs by ${got:-?} (rms), verify --noise-profile says ${want:-?}"

# one flipped payload byte: the hash no longer matches
cp "$dir/w.onn" "$dir/bad.onn"
printf '\x55' | dd of="$dir/bad.onn" bs=1 seek=100 conv=notrunc 2>/dev/null
out=$($PY "$REAL" "$dir/bad.onn" "$dir/w.tbl" 2>&1)
[ $? -eq 2 ] && echo "$out" | grep -q "bad.onn: SHA-256"
tap_result $? "a corrupt file is refused: $out"
tap_end
