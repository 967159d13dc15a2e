#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""An independent realiser of .onn model files, written from
Documentation/onn.md alone (sections 1-3), sharing no code with
tools/onn: it parses the file, rebuilds every block's mesh from its MZI
phases, runs domain points through the network in double precision and
decides the PAM4 symbols. The outputs are compared with the truth table
optinc-onn compiled from the same file (the model's own outputs, right or
wrong) and the worst margin with the one `optinc-onn verify` printed.

usage: onn_realise.py MODEL TABLE [--sample K] [--margin M]
       onn_realise.py MODEL --noise SIGMA --seed S [--layers A,B-C]
Prints one line of results; exits 1 on a mismatch, 2 on bad input. The
second form draws the phase noise as onn.md describes (block layers only)
and prints the accuracy over the whole domain, to compare with
`optinc-onn verify MODEL --phase-noise SIGMA --seeds 1 --seed S`, and the
rms of the outputs' move (noisy - clean), to compare with the profile's
`--noise-profile` "together" line; with
--layers every layer's noise is drawn but only the layers named (1 = the
first) get theirs, as verify's --noise-layers."""
import hashlib
import math
import struct
import sys

import numpy as np


def fail(msg):
    print(f"onn_realise: {msg}", file=sys.stderr)
    sys.exit(2)


M64 = (1 << 64) - 1


class Rng:
    """xoshiro256** seeded by splitmix64, normals by Box-Muller (cosine)."""

    def __init__(self, seed):
        self.s = []
        for _ in range(4):
            seed = (seed + 0x9e3779b97f4a7c15) & M64
            z = ((seed ^ (seed >> 30)) * 0xbf58476d1ce4e5b9) & M64
            z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
            self.s.append(z ^ (z >> 31))

    def next(self):
        s = self.s
        rot = lambda x, k: ((x << k) | (x >> (64 - k))) & M64
        res = (rot((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rot(s[3], 45)
        return res

    def uniform(self):
        return (self.next() >> 11) * 2.0 ** -53

    def normals(self, n):
        out = np.empty(n)
        for i in range(n):
            u = 1.0 - self.uniform()
            out[i] = math.sqrt(-2.0 * math.log(u)) * math.cos(2 * math.pi * self.uniform())
        return out


def mesh_modes(k):
    """Mode p of every MZI in mesh order (onn.md 2, "Order of the MZIs")."""
    right, left = [], []
    for i in range(k - 1):
        for j in range(i + 1):
            if i % 2 == 0:
                right.append(i - j)
            else:
                left.append(k - 2 - i + j)
    return right + left[::-1]


def mesh_build(k, ph):
    """k x k unitary from k(k-1)/2 (theta, phi) pairs then k alphas."""
    m = k * (k - 1) // 2
    u = np.eye(k, dtype=complex)
    for i, p in enumerate(mesh_modes(k)):
        th, fi = ph[2 * i], ph[2 * i + 1]
        x, y = u[p].copy(), u[p + 1].copy()
        e = np.exp(1j * fi)
        u[p] = e * np.cos(th) * x - np.sin(th) * y
        u[p + 1] = e * np.sin(th) * x + np.cos(th) * y
    return np.exp(1j * ph[2 * m:2 * m + k])[:, None] * u


class Reader:
    def __init__(self, buf, path):
        self.buf, self.pos, self.path = buf, 0, path

    def take(self, n, what):
        if self.pos + n > len(self.buf):
            fail(f"{self.path}: truncated in {what}")
        b = self.buf[self.pos:self.pos + n]
        self.pos += n
        return b

    def floats(self, n, what):
        return np.frombuffer(self.take(4 * n, what), "<f4").astype(float)


def parse_layer(r, idx, width, noise, apply=True):
    """One layer: (W as a real out x in matrix, bias, relu); its noise is
    drawn, and added only when @apply."""
    h = r.take(16, f"layer {idx} header")
    n_in, n_out, act, form, k, nb = struct.unpack_from("<HHBBHH", h)
    if n_in != width or act > 1 or form > 1:
        fail(f"{r.path}: layer {idx}: in {n_in} (expected {width}), "
             f"activation {act}, form {form}")
    if form == 0:
        if noise:
            fail(f"{r.path}: layer {idx} is dense: its noise needs LAPACK's SVD")
        w = r.floats(n_out * n_in, f"layer {idx} weights")
        w = w.reshape(n_out, n_in)
    else:
        if k != min(n_in, n_out) or nb * k != max(n_in, n_out):
            fail(f"{r.path}: layer {idx}: k {k}, {nb} blocks for {n_out}x{n_in}")
        sig = r.floats(nb * k, f"layer {idx} attenuations")
        w = np.zeros((n_out, n_in))
        for j in range(nb):
            ph = r.floats(k * k, f"layer {idx} block {j}")
            if noise:
                dph = noise[0] * noise[1].normals(k * k)
                ph = ph + dph if apply else ph
            u = mesh_build(k, ph)
            b = sig[j * k:(j + 1) * k, None] * u.real
            if n_out >= n_in:
                w[j * k:(j + 1) * k, :] = b
            else:
                w[:, j * k:(j + 1) * k] = b
    bias = r.floats(n_out, f"layer {idx} biases")
    return w, bias, act == 1


def load(path, noise=None, layers=None):
    buf = open(path, "rb").read()
    r = Reader(buf, path)
    hdr = r.take(64, "header")
    magic, ver, n, bits, nl, scale, plen = struct.unpack_from("<8sHHHHfI", hdr)
    if magic != b"OINCONN1" or ver != 1:
        fail(f"{path}: not a version-1 model file")
    if plen != len(buf) - 64:
        fail(f"{path}: payload length {plen}, file has {len(buf) - 64}")
    if hashlib.sha256(buf[:32] + buf[64:]).digest() != buf[32:64]:
        fail(f"{path}: SHA-256 differs from the header's")
    out, width = [], bits // 2
    for i in range(nl):
        out.append(parse_layer(r, i + 1, width, noise,
                               layers is None or i + 1 in layers))
        width = out[-1][0].shape[0]
    if width != bits // 2 or r.pos != len(buf):
        fail(f"{path}: last layer has {width} outputs or trailing bytes")
    return n, bits, np.float32(scale).item(), out


def forward(layers, x):
    for w, b, relu in layers:
        x = x @ w.T + b
        if relu:
            x = np.maximum(x, 0)
    return x


def decide(y):
    """Symbols by the slicer 0.5 / 1.5 / 2.5, and each output's margin."""
    sym = (y >= 0.5).astype(int) + (y >= 1.5) + (y >= 2.5)
    lo = np.where(sym > 0, y - (sym - 0.5), np.inf)
    hi = np.where(sym < 3, (sym + 0.5) - y, np.inf)
    return sym, np.minimum(lo, hi)


def domain(n, syms, idx):
    radix = 3 * n + 1
    return np.stack([(idx // radix ** k) % radix for k in range(syms)], 1)


def exact(n, s):
    """Offset-binary S / N rounded half to even (numpy rounds so)."""
    return np.round((s * 4 ** np.arange(s.shape[1])).sum(1) / n).astype(int)


def outputs(layers, s, scale):
    syms = s.shape[1]
    got, worst, near = np.zeros(len(s), int), np.inf, 0
    for c in range(0, len(s), 8192):
        sym, marg = decide(forward(layers, s[c:c + 8192] * scale))
        got[c:c + 8192] = (sym << (2 * np.arange(syms))).sum(1)
        worst = min(worst, marg.min())
        near += int((marg.min(1) < 1e-9).sum())
    return got, worst, near


def noisy(argv):
    model = argv[1]
    sigma = float(argv[argv.index("--noise") + 1])
    seed = int(argv[argv.index("--seed") + 1])
    only = None
    if "--layers" in argv:
        only = set()
        for part in argv[argv.index("--layers") + 1].split(","):
            a, _, b = part.partition("-")
            only.update(range(int(a), int(b or a) + 1))
    n, bits, scale, layers = load(model, (sigma, Rng(seed)), only)
    clean = load(model)[3]
    s = domain(n, bits // 2, np.arange((3 * n + 1) ** (bits // 2)))
    got = outputs(layers, s, scale)[0]
    right = int((got == exact(n, s)).sum())
    which = "" if only is None else f", layers {sorted(only)}"
    print(f"{model}: sigma {sigma:g}, seed {seed}{which}: {right} of {len(s)} points "
          f"right ({100.0 * right / len(s):.4f} %), outputs move by "
          f"{moved(clean, layers, s, scale):.6g} (rms)")
    return 0


def moved(clean, layers, s, scale):
    """rms over the points and outputs of noisy minus clean outputs."""
    se = 0.0
    for c in range(0, len(s), 8192):
        x = s[c:c + 8192] * scale
        se += float(((forward(layers, x) - forward(clean, x)) ** 2).sum())
    return math.sqrt(se / (len(s) * s.shape[1]))


def main(argv):
    if len(argv) < 3:
        lines = __doc__.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith("usage:"))
        fail("\n".join(lines[at:at + 2]))
    if "--noise" in argv:
        return noisy(argv)
    model, table = argv[1], argv[2]
    sample = int(argv[argv.index("--sample") + 1]) if "--sample" in argv else 0
    n, bits, scale, layers = load(model)
    radix, syms = 3 * n + 1, bits // 2
    tbl = open(table, "rb").read()
    entries = radix ** syms
    if len(tbl) != 64 + entries or tbl[:8] != b"OINCTBL1":
        fail(f"{table}: not a table of {entries} entries")
    if tbl[24:56] != hashlib.sha256(open(model, "rb").read()).digest():
        fail(f"{table}: compiled from another model")
    want = np.frombuffer(tbl, np.uint8, entries, 64)
    if sample and sample < entries:
        rng = np.random.default_rng(1)
        idx = np.unique(np.concatenate(([0, entries - 1],
                                        rng.integers(0, entries, sample))))
    else:
        idx = np.arange(entries)
    s = domain(n, syms, idx)
    got, worst, near = outputs(layers, s, scale)
    bad = int((got != want[idx]).sum())
    wrong = int((got != exact(n, s)).sum())
    print(f"{model}: {len(idx)} points, {bad} differ from {table}, "
          f"{wrong} differ from the exact average, worst margin {worst:+.4f}, "
          f"{near} within 1e-9 of a threshold")
    if "--margin" in argv:
        m = float(argv[argv.index("--margin") + 1])
        if abs(m - worst) > 1e-4:
            print(f"worst margin {worst:+.4f}, optinc-onn says {m:+.4f}")
            return 1
    return 1 if bad > near else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
