# SPDX-License-Identifier: GPL-2.0
"""The layers of a .onn model file whose layers are all dense, read from
Documentation/onn.md section 3 alone (the onn selftests that check what
the trainer wrote; onn_realise.py realises block layers too)."""
import struct

import numpy as np


def layers(path, count=None):
    """(N, input scale, [(w, b), ..]): w out x in, b out, float32; only
    the first COUNT layers when given (those must be dense, the rest may
    be blocks)."""
    d = open(path, 'rb').read()
    members, nl = struct.unpack_from('<H', d, 10)[0], struct.unpack_from('<H', d, 14)[0]
    scale = struct.unpack_from('<f', d, 16)[0]
    off, out = 64, []
    for _ in range(nl if count is None else count):
        i, o, act, form = struct.unpack_from('<HHBB', d, off)
        assert form == 0, 'dense layers only'
        w = np.frombuffer(d, '<f4', i * o, off + 16).reshape(o, i)
        b = np.frombuffer(d, '<f4', o, off + 16 + 4 * i * o)
        out.append((w, b))
        off += 16 + 4 * (i * o + o)
    return members, scale, out
