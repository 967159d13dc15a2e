# SPDX-License-Identifier: GPL-2.0
"""Does the hook overlap communication with the backward pass? Times, on
every rank (medians): compute alone (forward + backward of the model without
DDP), communication alone (the same buckets all-reduced one after another,
blocking), and a DDP step with optinc.torch.allreduce_hook.

On a 2-core machine the ranks' CPU backward takes every core, leaving none
for the communication (quantizing, the kernel's UDP, the switch), so the
checked model also has, after each layer, a backward that sleeps
OPTINC_PY_OVERLAP_SLEEP_MS: device compute, as a GPU's kernels leave the
CPU free. What is checked is that communication proceeds during the
backward pass; the pure CPU model (sleep 0) is measured and printed too."""
import os
import statistics
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

import optinc.torch

REPS = int(os.environ.get("OPTINC_PY_OVERLAP_REPS", "7"))
WIDTH = int(os.environ.get("OPTINC_PY_OVERLAP_WIDTH", "1024"))
LAYERS = int(os.environ.get("OPTINC_PY_OVERLAP_LAYERS", "6"))
BATCH = int(os.environ.get("OPTINC_PY_OVERLAP_BATCH", "16"))
BUCKET_MB = float(os.environ.get("OPTINC_PY_OVERLAP_BUCKET_MB", "4"))


SLEEP_MS = float(os.environ.get("OPTINC_PY_OVERLAP_SLEEP_MS", "20"))


class DeviceTime(torch.autograd.Function):
    """Identity whose backward waits @ms without using the CPU."""

    @staticmethod
    def forward(ctx, x, ms):
        ctx.ms = ms
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        time.sleep(ctx.ms / 1e3)
        return g, None


class Device(nn.Module):
    def __init__(self, ms):
        super().__init__()
        self.ms = ms

    def forward(self, x):
        return DeviceTime.apply(x, self.ms) if self.ms else x


def model(sleep_ms=SLEEP_MS):
    torch.manual_seed(0)
    layers = []
    for _ in range(LAYERS):
        layers += [nn.Linear(WIDTH, WIDTH), nn.ReLU(), Device(sleep_ms)]
    return nn.Sequential(*layers)


def timed(*fns):
    """Median time of each of @fns, run in turn (so that load from outside
    falls on all of them alike), all ranks starting each together; each
    run's time is the slowest rank's (a synchronous step waits for it)."""
    ts = [[] for _ in fns]
    for rep in range(REPS + 1):
        for fn, t in zip(fns, ts):
            dist.barrier()
            t0 = time.perf_counter()
            fn()
            dt = torch.tensor([time.perf_counter() - t0], dtype=torch.float64)
            dist.all_reduce(dt, op=dist.ReduceOp.MAX)
            if rep:                         # the first is a warm-up
                t.append(dt.item())
    return [statistics.median(t) for t in ts]


def measure(comm, check):
    t = times(comm, 0)
    print("# overlap, CPU only (not checked): %s" % t[0], flush=True)
    t = times(comm, SLEEP_MS)
    print("# overlap, %g ms of device time per layer: %s" % (SLEEP_MS, t[0]),
          flush=True)
    t_comp, t_comm, t_hook = t[1:]
    check("hook_overlaps", t_hook < t_comp + t_comm,
          "hook %.1f ms < compute %.1f + communication %.1f ms" %
          (1e3 * t_hook, 1e3 * t_comp, 1e3 * t_comm))


def times(comm, sleep_ms):
    x = torch.randn(BATCH, WIDTH)
    local = model(sleep_ms)

    def compute():
        local.zero_grad()
        local(x).sum().backward()

    sizes = []

    def sizing_hook(state, bucket):
        sizes.append(bucket.buffer().numel())
        return optinc.torch.allreduce_hook(state, bucket)

    ddp = DDP(model(sleep_ms), bucket_cap_mb=BUCKET_MB)
    ddp.register_comm_hook(optinc.torch.OptincState(comm=comm), sizing_hook)
    for _ in range(2):                      # buckets are rebuilt after step 1
        sizes.clear()
        ddp.zero_grad()
        ddp(x).sum().backward()
    bucket_sizes = list(sizes)
    bufs = [torch.ones(n) for n in bucket_sizes]

    def communicate():
        for b in bufs:
            comm.allreduce(b)

    def hooked():
        ddp.zero_grad()
        ddp(x).sum().backward()

    t_comp, t_comm, t_hook = timed(compute, communicate, hooked)
    saved = t_comp + t_comm - t_hook
    text = ("%d buckets (%.1f M floats); compute %.1f ms, communication "
            "%.1f ms, step with the hook %.1f ms: %.1f ms (%.0f %% of the "
            "shorter) hidden" %
            (len(bucket_sizes), sum(bucket_sizes) / 1e6, 1e3 * t_comp,
             1e3 * t_comm, 1e3 * t_hook, 1e3 * saved,
             100 * saved / min(t_comp, t_comm)))
    return text, t_comp, t_comm, t_hook
