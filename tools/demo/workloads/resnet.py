# SPDX-License-Identifier: BSD-3-Clause
"""The ResNet workload: a CIFAR-style ResNet-20 (torchvision's BasicBlock,
three stages of three blocks, widths w, 2w, 4w) on Fashion-MNIST from
Debian's dataset-fashion-mnist, read from its IDX files."""
import gzip
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision.models.resnet import BasicBlock

DATA = "/usr/share/datasets/fashion-mnist"
MEAN, STD = 0.2860, 0.3530      # the training set's pixel statistics
NAME = "resnet"
METRIC = "test_acc"


def add_args(p):
    p.add_argument("--width", type=int, default=8,
                   help="channels of the first stage (ResNet-20: 16)")
    p.add_argument("--blocks", type=int, default=3,
                   help="basic blocks per stage (3: ResNet-20)")
    p.add_argument("--data", default=DATA)
    p.add_argument("--test-subset", type=int, default=0,
                   help="evaluate on the first N test images (0: all 10,000)")


def defaults():
    return {"steps": 700, "batch": 128, "lr": 0.1, "eval_every": 175,
            "warmup": 10}


def _idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * ndim).reshape(dims)


def _images(path):
    x = _idx(path).astype(np.float32) / 255.0
    return torch.from_numpy((x - MEAN) / STD).unsqueeze(1)


class Data:
    def __init__(self, args):
        d = args.data
        self.x = _images(os.path.join(d, "train-images-idx3-ubyte.gz"))
        self.y = torch.from_numpy(_idx(os.path.join(d, "train-labels-idx1-ubyte.gz"))
                                  .astype(np.int64))
        self.tx = _images(os.path.join(d, "t10k-images-idx3-ubyte.gz"))
        self.ty = torch.from_numpy(_idx(os.path.join(d, "t10k-labels-idx1-ubyte.gz"))
                                   .astype(np.int64))
        if args.test_subset:
            self.tx, self.ty = self.tx[:args.test_subset], self.ty[:args.test_subset]
        self.seed = args.seed
        self.order = None
        self.epoch = -1

    def batch(self, step, gbatch, rank, size):
        """Rank @rank's slice of global batch @step (1-based): every rank
        draws the same permutation per epoch."""
        per_epoch = len(self.x) // gbatch
        epoch, i = divmod(step - 1, per_epoch)
        if epoch != self.epoch:
            g = torch.Generator().manual_seed(self.seed * 1000 + epoch)
            self.order = torch.randperm(len(self.x), generator=g)
            self.epoch = epoch
        lo = i * gbatch + rank * (gbatch // size)
        idx = self.order[lo:lo + gbatch // size]
        return self.x[idx], self.y[idx]

    def eval_shards(self, rank, size, chunk=500):
        """This rank's share of the test set, in chunks."""
        n = len(self.tx)
        lo, hi = rank * n // size, (rank + 1) * n // size
        for a in range(lo, hi, chunk):
            b = min(a + chunk, hi)
            yield self.tx[a:b], self.ty[a:b]


class ResNet(nn.Module):
    def __init__(self, width, blocks, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, width, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(width), nn.ReLU(inplace=True))
        layers, inp = [], width
        for stage in range(3):
            planes, stride = width << stage, 1 if stage == 0 else 2
            for b in range(blocks):
                down = None
                if b == 0 and (stride != 1 or inp != planes):
                    down = nn.Sequential(nn.Conv2d(inp, planes, 1, stride, bias=False),
                                         nn.BatchNorm2d(planes))
                layers.append(BasicBlock(inp, planes, stride if b == 0 else 1, down))
                inp = planes
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(inp, classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def model(args):
    return ResNet(args.width, args.blocks)


def loss(out, y):
    return F.cross_entropy(out, y)


def optimizer(params, args):
    return torch.optim.SGD(params, lr=args.lr, momentum=0.9, nesterov=True,
                           weight_decay=5e-4)


@torch.no_grad()
def evaluate(net, data, rank, size):
    """(sum of losses, correct, count) over this rank's test shard."""
    tot, correct, n = 0.0, 0, 0
    for x, y in data.eval_shards(rank, size):
        out = net(x)
        tot += F.cross_entropy(out, y, reduction="sum").item()
        correct += (out.argmax(1) == y).sum().item()
        n += len(y)
    return [tot, correct, n]


def metrics(sums):
    tot, correct, n = sums
    return {"test_loss": tot / n, "test_acc": 100.0 * correct / n}
