# SPDX-License-Identifier: GPL-2.0
"""Does the hook overlap communication with the backward pass? Times, on
every rank (medians): compute alone (a DDP step whose hook sends nothing, so
DDP's own copies into buckets count as compute), communication alone (the same buckets all-reduced one after another,
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
ATTEMPTS = int(os.environ.get("OPTINC_PY_OVERLAP_ATTEMPTS", "3"))
MIN_HIDDEN = float(os.environ.get("OPTINC_PY_OVERLAP_MIN_HIDDEN", "0.25"))
# above this load average a failed measurement is a SKIP, not a failure
MAX_LOAD = float(os.environ.get("OPTINC_PY_OVERLAP_MAX_LOAD",
                                str(2 * (os.cpu_count() or 1))))


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
    """Times of each of @fns, run in turn REPS times (so that load from
    outside falls on all of them alike), all ranks starting each together;
    each run's time is the slowest rank's (a synchronous step waits for it)."""
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
    return ts


def measure(comm, check):
    """The check: in the median of the runs, a hooked step is shorter than
    the compute and the communication run next to it, by at least
    MIN_HIDDEN of the communication (a call that does not overlap comes
    out near 0 here, give or take the noise). A shared machine's
    load can swamp one measurement, so up to ATTEMPTS are made; every one
    is printed, with the load average; if all fail while the load is above
    MAX_LOAD, the check is a SKIP saying so."""
    text = times(comm, 0)[0]
    print("# overlap, CPU only (not checked): %s" % text, flush=True)
    for attempt in range(1, ATTEMPTS + 1):
        text, gain, t_comm = times(comm, SLEEP_MS)
        load = os.getloadavg()[0]
        print("# overlap, %g ms of device time per layer, attempt %d (load "
              "%.1f): %s" % (SLEEP_MS, attempt, load, text), flush=True)
        ok = torch.tensor([1.0 if gain > MIN_HIDDEN * t_comm else 0.0])
        dist.all_reduce(ok, op=dist.ReduceOp.MIN)   # ranks decide alike
        if ok.item():
            break
    ok = gain > MIN_HIDDEN * t_comm
    if not ok and load > MAX_LOAD:
        check("hook_overlaps", "skip", "the machine is too loaded to time "
              "(load %.1f above %.1f on %d cores): %s" %
              (load, MAX_LOAD, os.cpu_count(), text))
        return
    check("hook_overlaps", ok, "attempt %d: %s" % (attempt, text))


def no_communication(_, bucket):
    """A hook that sends nothing: DDP's own work (bucket copies) stays."""
    fut = torch.futures.Future()
    fut.set_result(bucket.buffer())
    return fut


def times(comm, sleep_ms):
    x = torch.randn(BATCH, WIDTH)
    local = DDP(model(sleep_ms), bucket_cap_mb=BUCKET_MB)
    local.register_comm_hook(None, no_communication)

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

    comp, comm_t, hook = timed(compute, communicate, hooked)
    med = statistics.median
    gain = med([c + m - h for c, m, h in zip(comp, comm_t, hook)])
    text = ("%d buckets (%.1f M floats); compute %.1f ms, communication "
            "%.1f ms, step with the hook %.1f ms (medians); hidden: %.1f ms "
            "(median of the runs' compute + communication - step)" %
            (len(bucket_sizes), sum(bucket_sizes) / 1e6, 1e3 * med(comp),
             1e3 * med(comm_t), 1e3 * med(hook), 1e3 * gain))
    return text, gain, med(comm_t)
