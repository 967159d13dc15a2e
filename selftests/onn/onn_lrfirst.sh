#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# train --lr-first F: the first layer's weights step at F times the rate,
# everything else (its biases included) at the rate. F = 1 (the default)
# must change nothing; F = 20 must move the first layer's weights about
# 20 times as far in the same epochs (read here from the model files,
# independently of the trainer) while its biases move about as far as
# with F = 1; a value out of (0, 10000] or not a number is refused by
# name. TAP output.
. "$(dirname "$0")/lib.sh"

begin 3 lrfirst
PY=/usr/bin/python3

# N = 2 along S, dense: 4 epochs to a checkpoint, then 2 more from it
args="-N 2 --seed 3 --s-invariant --approx none --epochs1 0 --epochs2 6 --batch 64 --lr2 1e-3 --lr-end 1"
"$ONN" train $args --stop-after 4 --checkpoint "$dir/s.ckpt" -o "$dir/s.onn" >"$dir/s.log" 2>&1
from() {	# from NAME [OPTION..]: resume a copy of the checkpoint of epoch 4
	local name=$1
	shift
	cp "$dir/s.ckpt" "$dir/$name.ckpt"
	"$ONN" train $args --resume --checkpoint "$dir/$name.ckpt" "$@" \
		-o "$dir/$name.onn" >"$dir/$name.log" 2>&1
}
# the network at epoch 4: a run of 4 epochs resumed writes it at once
cp "$dir/s.ckpt" "$dir/e4.ckpt"
"$ONN" train ${args/--epochs2 6/--epochs2 4} --resume --checkpoint "$dir/e4.ckpt" \
	-o "$dir/e4.onn" >"$dir/e4.log" 2>&1
from a
from one --lr-first 1
from f20 --lr-first 20

[ -s "$dir/a.onn" ] && cmp -s "$dir/a.onn" "$dir/one.onn"
tap_result $? "--lr-first 1 writes the model a run without it writes, byte for byte"

# how far each file's first-layer weights and biases are from epoch 4's
check=$("$PY" - "$dir/e4.onn" "$dir/a.onn" "$dir/f20.onn" <<'PYEOF'
import struct, sys
def layer1(path):
    d = open(path, 'rb').read()
    i, o = struct.unpack_from('<HH', d, 64)
    w = struct.unpack_from('<%df' % (i * o), d, 80)
    b = struct.unpack_from('<%df' % o, d, 80 + 4 * i * o)
    return w, b
def dist(x, y):
    return sum((p - q) ** 2 for p, q in zip(x, y)) ** 0.5
w0, b0 = layer1(sys.argv[1])
w1, b1 = layer1(sys.argv[2])
w20, b20 = layer1(sys.argv[3])
rw = dist(w20, w0) / dist(w1, w0)
rb = dist(b20, b0) / dist(b1, b0)
ok = 10 < rw < 30 and 0.5 < rb < 2
print('%s: weights moved %.2f times as far, biases %.2f times' % ('ok' if ok else 'bad', rw, rb))
PYEOF
)
echo "# --lr-first 20 against 1, from epoch 4 to 6: $check"
[[ "$check" == ok:* ]]
tap_result $? "--lr-first 20: the first layer's weights move 10-30 times as far, its biases 0.5-2 times"

refused --lr-first 0 -1 10001 x nan
tap_result $? "--lr-first 0, -1, 10001, x, nan: refused, naming --lr-first, no model written"
tap_end
