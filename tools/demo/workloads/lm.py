# SPDX-License-Identifier: BSD-3-Clause
"""The language-model workload: a small LLaMA-style decoder (RMSNorm,
rotary positions, SwiGLU, causal multi-head attention, no biases) over
bytes of English text, the .rst files of the kernel's Documentation/ in
Debian's linux-source-6.1; validation loss in nats per byte."""
import math
import os
import tarfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

TARBALL = "/usr/src/linux-source-6.1.tar.xz"
DOCS = "linux-source-6.1/Documentation/"
NAME = "lm"
METRIC = "val_loss"


def add_args(p):
    p.add_argument("--dim", type=int, default=128)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--seq", type=int, default=128, help="context in bytes")
    p.add_argument("--corpus", default="", help="directory of train.bin, val.bin "
                   "(made by 'lm.py --prepare DIR')")
    p.add_argument("--val-seqs", type=int, default=256,
                   help="validation windows of --seq bytes")


def defaults():
    return {"steps": 450, "batch": 32, "lr": 3e-3, "eval_every": 150,
            "warmup": 20}


# --- the corpus ------------------------------------------------------------

def prepare(out, limit=8 << 20, val_every=20):
    """Stream the tarball up to the end of Documentation/ (it comes early),
    keep the .rst files in archive order up to @limit bytes; every
    @val_every-th file is held out for validation."""
    os.makedirs(out, exist_ok=True)
    train, val, n, total = [], [], 0, 0
    with tarfile.open(TARBALL, "r|xz") as t:
        for m in t:
            if not m.name.startswith(DOCS):
                if n:
                    break
                continue
            if not (m.isfile() and m.name.endswith(".rst")):
                continue
            text = t.extractfile(m).read()
            (val if n % val_every == val_every - 1 else train).append(text)
            n += 1
            total += len(text)
            if total >= limit:
                break
    for name, parts in (("train", train), ("val", val)):
        tmp = os.path.join(out, name + ".bin.tmp")
        with open(tmp, "wb") as f:
            f.write(b"\n".join(parts))
        os.replace(tmp, os.path.join(out, name + ".bin"))
    print("lm corpus: %d files, %d bytes (%d train, %d validation files) in %s" %
          (n, total, len(train), len(val), out))


class Data:
    def __init__(self, args):
        d = args.corpus
        self.train = torch.from_numpy(np.fromfile(os.path.join(d, "train.bin"),
                                                  np.uint8).astype(np.int64))
        val = torch.from_numpy(np.fromfile(os.path.join(d, "val.bin"),
                                           np.uint8).astype(np.int64))
        s = args.seq
        # fixed, evenly spaced validation windows
        starts = np.linspace(0, len(val) - s - 2, args.val_seqs).astype(np.int64)
        self.val = torch.stack([val[i:i + s + 1] for i in starts])
        self.seq, self.seed = s, args.seed

    def batch(self, step, gbatch, rank, size):
        """Random windows, the same draw on every rank; rank @rank's slice."""
        g = torch.Generator().manual_seed(self.seed * 1000003 + step)
        starts = torch.randint(0, len(self.train) - self.seq - 1, (gbatch,),
                               generator=g)
        per = gbatch // size
        idx = starts[rank * per:(rank + 1) * per]
        w = torch.stack([self.train[i:i + self.seq + 1] for i in idx.tolist()])
        return w[:, :-1], w[:, 1:]

    def eval_shards(self, rank, size, chunk=32):
        n = len(self.val)
        lo, hi = rank * n // size, (rank + 1) * n // size
        for a in range(lo, hi, chunk):
            w = self.val[a:min(a + chunk, hi)]
            yield w[:, :-1], w[:, 1:]


# --- the model ---------------------------------------------------------------

class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotary(seq, hdim, base=10000.0):
    """cos, sin of the rotary angles, (seq, hdim/2) each."""
    inv = 1.0 / base ** (torch.arange(0, hdim, 2).float() / hdim)
    ang = torch.outer(torch.arange(seq).float(), inv)
    return ang.cos(), ang.sin()


def apply_rotary(x, cos, sin):
    """Rotate pairs (x[2i], x[2i+1]) of the last dimension."""
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), -1).flatten(-2)


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.hdim = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)

    def forward(self, x, cos, sin, mask):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, self.hdim).permute(2, 0, 3, 1, 4)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(self.hdim)
        att = att.masked_fill(mask[:t, :t], float("-inf")).softmax(-1)
        return self.out((att @ v).transpose(1, 2).reshape(b, t, d))


class SwiGLU(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        hidden = 64 * ((8 * dim // 3 + 63) // 64)      # LLaMA's 8/3 d, rounded
        self.n1, self.attn = RMSNorm(dim), Attention(dim, heads)
        self.n2, self.mlp = RMSNorm(dim), SwiGLU(dim, hidden)

    def forward(self, x, cos, sin, mask):
        x = x + self.attn(self.n1(x), cos, sin, mask)
        return x + self.mlp(self.n2(x))


class Decoder(nn.Module):
    def __init__(self, dim, layers, heads, seq, vocab=256):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(layers))
        self.norm = RMSNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        # constants, not buffers: DDP would broadcast them (gloo has no bool)
        self.cos, self.sin = rotary(seq, dim // heads)
        self.mask = torch.ones(seq, seq, dtype=torch.bool).triu(1)
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=0.02)
        for b in self.blocks:       # GPT-2's scaled residual projections
            for w in (b.attn.out.weight, b.mlp.w2.weight):
                nn.init.normal_(w, std=0.02 / math.sqrt(2 * layers))

    def forward(self, idx):
        t = idx.shape[1]
        x = self.emb(idx)
        cos, sin = self.cos[:t], self.sin[:t]
        for b in self.blocks:
            x = b(x, cos, sin, self.mask)
        return self.head(self.norm(x))


def model(args):
    return Decoder(args.dim, args.layers, args.heads, args.seq)


def loss(out, y):
    return F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))


def optimizer(params, args):
    decay = [p for p in params if p.dim() >= 2]
    rest = [p for p in params if p.dim() < 2]
    return torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                              {"params": rest, "weight_decay": 0.0}],
                             lr=args.lr, betas=(0.9, 0.95))


@torch.no_grad()
def evaluate(net, data, rank, size):
    """(sum of byte losses, bytes) over this rank's validation windows."""
    tot, n = 0.0, 0
    for x, y in data.eval_shards(rank, size):
        out = net(x)
        tot += F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1),
                               reduction="sum").item()
        n += y.numel()
    return [tot, 0.0, n]


def metrics(sums):
    tot, _, n = sums
    v = tot / n
    return {"val_loss": v, "val_ppl": math.exp(v), "val_bpb": v / math.log(2)}


if __name__ == "__main__":
    import sys
    if len(sys.argv) == 3 and sys.argv[1] == "--prepare":
        prepare(sys.argv[2])
    else:
        sys.exit("usage: lm.py --prepare DIR")
