#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End to end: train a small ONN (N = 2, all layers Sigma*U blocks) to 100 %,
# verify it as realised, compile its truth table and check that table
# against the exact average; check that verify's wrong points by exact
# average are those of the compiled table; and check that a paused and
# resumed run ends in the same model as one never stopped, and that a run
# may go on with another end of its rate's cosine (--lr-end) or another
# seed, but not another stage-1 rate. TAP output.
. "$(dirname "$0")/lib.sh"

begin 12 e2e

"$ONN" train -N 2 --seed 1 --epochs1 0 --epochs2 1500 --lr2 3e-3 \
	--batch 256 --eval-every 10 -o "$dir/n2.onn" >"$dir/train.log" 2>&1
tap_result $? "train N = 2 ($(tail -2 "$dir/train.log" | head -1))"
grep -q "0 of 2401 points wrong" "$dir/train.log"
tap_result $? "trainer reaches 100 % with the network as built"
"$ONN" verify "$dir/n2.onn" --require-exact --noise 0.001 --trials 2 \
	>"$dir/verify.log" 2>&1
tap_result $? "verify: every domain point right as realised from phases"
grep -q "^  (none)" "$dir/verify.log"
tap_result $? "verify: empty histogram of wrong outputs"
"$ONN" compile "$dir/n2.onn" -o "$dir/n2.tbl" --require-exact >/dev/null 2>&1
tap_result $? "compile: table written"
"$ONN" check-table "$dir/n2.tbl" -N 2 --model "$dir/n2.onn" --require-exact \
	>"$dir/check.log" 2>&1
tap_result $? "compiled table equals the exact average and the model's outputs"

# determinism and resume: 30 epochs in one go, or 12 + pause + 18
args="-N 2 --seed 5 --epochs1 10 --epochs2 20 --eval-every 5 --batch 256"
"$ONN" train $args -o "$dir/a.onn" >/dev/null 2>&1 &&
"$ONN" train $args -o "$dir/b.onn" --stop-after 12 >/dev/null 2>&1 &&
	test ! -e "$dir/b.onn" &&
	"$ONN" train $args -o "$dir/b.onn" --resume >"$dir/resume.log" 2>&1
tap_result $? "train: pause after epoch 12 and resume"
cmp -s "$dir/a.onn" "$dir/b.onn" && grep -q "resumed from" "$dir/resume.log"
tap_result $? "resumed run gives the same model file as an uninterrupted one"

# the rate of epoch 21 (stage 2, lr2 3e-4 by default): on the cosine to
# 0.05 of it, or flat at it after a resume with --lr-end 1
lr21() { sed -n 's/^epoch 21\/30 stage 2 lr \([0-9.e+-]*\) .*/\1/p' "$1"; }
"$ONN" train $args --stop-after 20 --checkpoint "$dir/c.ckpt" -o "$dir/c.onn" >/dev/null 2>&1
cp "$dir/c.ckpt" "$dir/c20.ckpt"
"$ONN" train $args --lr-end 1 --resume --checkpoint "$dir/c.ckpt" -o "$dir/c.onn" \
	>"$dir/c.log" 2>&1
rc=$?
[ $rc = 0 ] && grep -q "resumed from .* after epoch 20" "$dir/c.log" &&
	[ "$(lr21 "$dir/c.log")" = 3.00e-04 ]
tap_result $? "a run resumed with another --lr-end follows the new cosine (epoch 21 at $(lr21 "$dir/c.log"))"
out=$("$ONN" train $args --lr1 5e-3 --resume --checkpoint "$dir/c.ckpt" -o "$dir/d.onn" 2>&1)
[ $? -ne 0 ] && [ ! -e "$dir/d.onn" ] &&
	grep -q "cannot resume: written by a run with other settings" <<<"$out"
tap_result $? "... but not with another stage-1 rate (--lr1): $(head -1 <<<"$out")"
# another seed from the same checkpoint: another model than seed 5's
# (other shuffles), and than seed 6's own run (another network to start from)
s6=${args/--seed 5/--seed 6}
"$ONN" train $s6 --lr-end 1 --resume --checkpoint "$dir/c20.ckpt" -o "$dir/e.onn" \
	>"$dir/e.log" 2>&1
rc=$?
"$ONN" train $s6 --stop-after 20 --checkpoint "$dir/f.ckpt" -o "$dir/f.onn" >/dev/null 2>&1
"$ONN" train $s6 --lr-end 1 --resume --checkpoint "$dir/f.ckpt" -o "$dir/f.onn" >/dev/null 2>&1
[ $rc = 0 ] && grep -q "resumed from .* after epoch 20" "$dir/e.log" &&
	[ -e "$dir/e.onn" ] && [ -e "$dir/f.onn" ] &&
	! cmp -s "$dir/e.onn" "$dir/c.onn" && ! cmp -s "$dir/e.onn" "$dir/f.onn"
tap_result $? "a run resumed with another --seed goes on from the checkpoint's network on other shuffles"
# verify's wrong points by exact average (bins of 16) against a recount
# from the compiled table of a model that is not exact (30 epochs above)
"$ONN" verify "$dir/a.onn" >"$dir/a.verify" 2>&1
"$ONN" compile "$dir/a.onn" -o "$dir/a.tbl" >/dev/null 2>&1
got=$(sed -n 's/^  exact average \([0-9]*\)-[0-9]*: \([0-9]*\) wrong$/\1:\2/p' "$dir/a.verify" | tr '\n' ' ')
# the exact average and the domain order from onn_realise.py (written
# from onn.md alone, no code shared with tools/onn)
want=$(PYTHONPATH=$(dirname "$0") /usr/bin/python3 - "$dir/a.tbl" <<'PYEOF'
import sys
import numpy as np
from onn_realise import domain, exact
t = np.frombuffer(open(sys.argv[1], 'rb').read()[64:], np.uint8)
q = exact(2, domain(2, 4, np.arange(len(t))))
bins = np.bincount(q[t != q] >> 4, minlength=16)
print(' '.join('%d:%d' % (16 * b, c) for b, c in enumerate(bins) if c), end=' ')
PYEOF
)
[ -n "$got" ] && [ "$got" = "$want" ]
tap_result $? "verify's wrong points by exact average: $got(from the table: $want)"
tap_end
