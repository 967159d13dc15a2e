#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""One rank of selftests/python/ddp.sh: runs scenarios through the switch and
prints "check NAME ok|fail|skip DETAIL" and "hash NAME HEX" lines that the
script compares over all ranks."""
import hashlib
import os
import sys
import time
import traceback

# the package of this source tree, as documented for use from the build tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.distributed as dist
import torch.nn as nn
import torch.nn.parallel.distributed as tdp
from torch.nn.parallel import DistributedDataParallel as DDP

import optinc
import optinc.torch

RANK = int(os.environ["OPTINC_RANK"])
SIZE = int(os.environ["OPTINC_SIZE"])
BITS = int(os.environ.get("OPTINC_BITS", "8"))
BLOCK = int(os.environ.get("OPTINC_BLOCK", "256"))
os.environ.setdefault("GLOO_SOCKET_IFNAME", "eth0")
# a lost switch or rank is an error here, not a fallback to the ring
os.environ.setdefault("OPTINC_FAILOVER_MS", "0")
torch.set_num_threads(1)


def check(name, ok, detail=""):
    state = ok if isinstance(ok, str) else ("ok" if ok else "fail")
    print("check %s %s %s" % (name, state, detail), flush=True)


def hash_of(name, tensors):
    h = hashlib.sha256()
    for t in tensors:
        t = t.detach().contiguous().flatten()
        h.update(t.view(torch.uint8).numpy().tobytes())
    print("hash %s %s" % (name, h.hexdigest()[:16]), flush=True)


def gloo_init(port, backend="gloo"):
    dist.init_process_group(backend, init_method="tcp://10.77.0.1:%d" % port,
                            rank=RANK, world_size=SIZE)


# --- the documented bound (Documentation/library.md, "Error bounds") --------

def block_steps(xs):
    """Per element, step = 2^(e-(B-1)) of its block's agreed exponent e,
    from every rank's input (a list of float64 arrays)."""
    m = np.max(np.abs(np.stack(xs)), axis=0)
    n = m.size
    pad = (-n) % BLOCK
    mb = np.concatenate([m, np.zeros(pad)]).reshape(-1, BLOCK).max(axis=1)
    _, k = np.frexp(mb)
    e = np.where(mb >= np.ldexp(1 - 2.0 ** -BITS, k), k + 1, k)
    e = np.clip(np.where(mb == 0, -128, e), -128, 127)
    return np.repeat(np.ldexp(1.0, e - (BITS - 1)), BLOCK)[:n]


def gather(x):
    """Every rank's copy of float64 array @x (through gloo)."""
    t = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float64))
    out = [torch.empty_like(t) for _ in range(SIZE)]
    dist.all_gather(out, t)
    return [o.numpy() for o in out]


def within_avg_bound(ins, res, ulp_rel=0.0):
    """|res - mean| <= step (+ the result type's rounding, relative)."""
    xs = gather(ins)
    mean = np.mean(np.stack(xs), axis=0)
    bound = block_steps(xs) + ulp_rel * np.abs(mean) + 1e-30
    err = np.abs(res.astype(np.float64) - mean)
    worst = float(np.max(err / bound)) if err.size else 0.0
    return bool(np.all(err <= bound)), "worst %.3f of the bound" % worst


# --- models ----------------------------------------------------------------

def mlp(seed, dtype=torch.float32, width=512):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(32, width), nn.ReLU(),
                         nn.Linear(width, width), nn.ReLU(),
                         nn.Linear(width, 10)).to(dtype)


class Elementwise(nn.Module):
    """A model of float16 parameters whose ops CPU torch 1.13 has in half."""

    def __init__(self, seed, n=3000):
        super().__init__()
        torch.manual_seed(seed)
        self.w1 = nn.Parameter(torch.randn(n).half())
        self.w2 = nn.Parameter(torch.randn(n).half())

    def forward(self, x):
        return (x * self.w1 * self.w2).sum(dim=1)


def batch(step, dtype=torch.float32, n=16, dim=32):
    g = torch.Generator().manual_seed(1000 * RANK + step)
    return (torch.randn(n, dim, generator=g).to(dtype),
            torch.randint(0, 10, (n,), generator=g))


class Recorder:
    """A hook state that keeps each bucket's input before the switch."""

    def __init__(self, state):
        self.state = state
        self.inputs = []
        self.outputs = []
        self.indices = []


def recording_hook(rec, bucket):
    rec.inputs.append(bucket.buffer().clone())
    rec.indices.append(bucket.index())
    fut = optinc.torch.allreduce_hook(rec.state, bucket)
    rec.outputs.append(bucket.buffer())
    return fut


# --- scenarios -------------------------------------------------------------

def sc_basic(comm):
    rng = np.random.default_rng(RANK + 1)
    x = rng.standard_normal(1000).astype(np.float32)
    ins = x.copy()
    comm.allreduce(x)
    check("numpy_f32_avg", *within_avg_bound(ins, x))
    hash_of("numpy_f32_avg", [torch.from_numpy(x)])

    t = torch.from_numpy(ins.copy())
    ptr = t.data_ptr()
    out = comm.allreduce(t)
    check("torch_in_place", out is t and t.data_ptr() == ptr and
          torch.equal(t, torch.from_numpy(x)), "same storage, same result as numpy")

    i = (np.arange(5000, dtype=np.int32) * (RANK + 1)) - 7
    comm.allreduce(i, op="sum")
    want = np.arange(5000, dtype=np.int64) * (SIZE * (SIZE + 1) // 2) - 7 * SIZE
    check("numpy_i32_sum_exact", np.array_equal(i, want))

    h = rng.standard_normal(700).astype(np.float16)
    hin = h.astype(np.float64)
    comm.allreduce(h)
    ok, d = within_avg_bound(hin, h, 2.0 ** -11)
    check("numpy_f16_avg", ok, d + (" (native)" if "float16" in comm.native_types
                                   else " (float32 fallback)"))

    bufs = [np.full(n, RANK + 1.0, dtype=np.float32) for n in (10, 100000, 33)]
    reqs = [comm.iallreduce(b, op="sum") for b in bufs]
    for r in reversed(reqs):
        r.wait()
    s = SIZE * (SIZE + 1) / 2
    check("requests_in_order", all(r.done and r.test() for r in reqs) and
          all(np.all(np.abs(b - s) <= SIZE * 2.0 ** -(BITS - 1) * 2 ** 5)
              for b in bufs), "3 posted, waited in reverse")

    try:
        comm.allreduce(np.zeros((4, 4), np.float32)[:, 1])
        check("noncontiguous_refused", False)
    except ValueError as e:
        check("noncontiguous_refused", True, str(e))
    try:
        comm.allreduce(np.zeros(8, np.int32), op="avg")
        check("library_error_text", False, "int32 AVG accepted")
    except optinc.OptincError as e:
        check("library_error_text", "int32 AVG" in str(e) and e.errmsg in str(e),
              "%s: %s" % (type(e).__name__, e))
    y = np.ones(10, np.float32)
    comm.allreduce(y)
    st = comm.stats()
    check("stats", st["calls"] >= 8 and st["frames_sent"] > 0 and
          st["bytes_rcvd"] > 0, "calls %d frames_sent %d" %
          (st["calls"], st["frames_sent"]))


def ddp_of(model, **kw):
    """DDP(model) with small buckets (several per step). gloo in torch 1.13
    cannot broadcast bfloat16 ("Invalid scalar type"), so DDP's initial
    broadcast of parameters goes as float16 bits (a copy, no arithmetic)."""
    orig = tdp._sync_module_states

    def sync(module, process_group, broadcast_bucket_size, src, **_):
        for t in list(module.parameters()) + list(module.buffers()):
            v = t.data.view(torch.float16) if t.dtype == torch.bfloat16 else t.data
            dist.broadcast(v, src, group=process_group)
    tdp._sync_module_states = sync
    try:
        return DDP(model, bucket_cap_mb=kw.pop("bucket_cap_mb", 0.01), **kw)
    finally:
        tdp._sync_module_states = orig


def train(comm, model, steps, dtype, name, opt_lr=0.05, check_grads=True):
    ddp = ddp_of(model)
    rec = Recorder(optinc.torch.OptincState(comm=comm))
    ddp.register_comm_hook(rec, recording_hook)
    opt = torch.optim.SGD(ddp.parameters(), lr=opt_lr)
    order = []
    hash_of(name + "_initial", list(ddp.parameters()))
    for step in range(steps):
        x, y = batch(step, dtype, dim=getattr(model, "dim", 32))
        out = ddp(x)
        loss = (nn.functional.cross_entropy(out.float(), y) if out.dim() > 1
                else out.float().pow(2).mean())
        rec.inputs.clear(), rec.outputs.clear(), rec.indices.clear()
        opt.zero_grad()
        loss.backward()
        order.append(tuple(rec.indices))
        if step < 2 and check_grads:     # DDP 1.13: 1 bucket, then rebuilt
            grad_check(rec, dtype, name, step)
        opt.step()
    print("hash %s_bucket_order %s" % (name, hashlib.sha256(
        repr(order).encode()).hexdigest()[:16]), flush=True)
    hash_of(name + "_params", list(ddp.parameters()))
    return ddp


ULP = {torch.float32: 2.0 ** -23, torch.float16: 2.0 ** -10,
       torch.bfloat16: 2.0 ** -7}


GRAD_CHECKS = {}


def grad_check(rec, dtype, name, step):
    """A step's averaged buckets against gloo's average of the inputs."""
    worst_ok, details = GRAD_CHECKS.setdefault(name, [True, []])
    for inp, out in zip(rec.inputs, rec.outputs):
        g = inp.double()
        dist.all_reduce(g)          # gloo's sum (float64), then the mean
        xs = gather(inp.double().numpy())
        bound = block_steps(xs) + ULP[dtype] * np.abs(g.numpy() / SIZE) * 2
        err = np.abs(out.double().numpy() - g.numpy() / SIZE)
        worst_ok = worst_ok and bool(np.all(err <= bound))
        details.append("%.3f" % float(np.max(err / (bound + 1e-30))))
    GRAD_CHECKS[name][0] = worst_ok
    if step == 1:
        check(name + "_grads_vs_gloo", worst_ok and len(details) > 0,
              "%d buckets in steps 0-1, error / bound: %s" %
              (len(details), " ".join(details)))


def sc_train(comm, steps=5):
    train(comm, mlp(0), steps, torch.float32, "f32")


def sc_dtypes(comm):
    train(comm, mlp(1, torch.bfloat16), 3, torch.bfloat16, "bf16")
    m = Elementwise(2)
    m.dim = 3000
    train(comm, m, 3, torch.float16, "f16", opt_lr=0.001)
    kind = "native" if "float16" in comm.native_types else "float32 fallback"
    print("# float16/bfloat16 buckets: %s" % kind, flush=True)


def nonfinite_probe(comm):
    """Every rank all-reduces one NaN: does it come back as NaN on every
    rank (the 0.3 non-finite rule)? Older libraries refuse it locally on
    every rank (OPTINC_ERR_RANGE), so nothing is sent and nothing hangs."""
    x = np.array([np.nan], np.float32)
    try:
        comm.allreduce(x)
    except optinc.RangeError:
        return False
    return bool(np.isnan(x[0]))


def sc_nan(comm):
    if not nonfinite_probe(comm):
        check("nan_seen_everywhere", "skip", "needs liboptinc 0.3's non-finite "
              "rule (library %d.%d.%d refuses NaN with OPTINC_ERR_RANGE on "
              "that rank only)" % optinc.version())
        return
    ddp = DDP(mlp(3))
    ddp.register_comm_hook(optinc.torch.OptincState(comm=comm),
                           optinc.torch.allreduce_hook)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05)
    skipped = []
    first = next(iter(ddp.module.parameters()))
    for step in range(4):
        x, y = batch(step)
        h = None
        if step == 2 and RANK == SIZE - 1:
            h = first.register_hook(lambda g: g.index_fill(0, torch.tensor([0]),
                                                           float("nan")))
        opt.zero_grad()
        nn.functional.cross_entropy(ddp(x), y).backward()
        if h:
            h.remove()
        found_inf = any(not torch.isfinite(p.grad).all() for p in ddp.parameters())
        if found_inf:               # what GradScaler does: skip the step
            skipped.append(step)
            continue
        opt.step()
    check("nan_seen_everywhere", skipped == [2], "skipped steps %s" % skipped)
    hash_of("nan_params", list(ddp.parameters()))


def sc_backend(port):
    gloo_init(port, "optinc")
    pg = dist.distributed_c10d._get_default_group()
    check("backend_is_optinc", type(pg).__name__ == "ProcessGroupOptinc")
    rng = np.random.default_rng(RANK + 7)
    x = rng.standard_normal(3000).astype(np.float32)
    ins = x.copy()
    t = torch.from_numpy(x)
    calls0 = pg.comm.stats()["calls"]
    dist.all_reduce(t)
    xs = gather(ins)
    err = np.abs(t.numpy().astype(np.float64) - np.sum(np.stack(xs), axis=0))
    bound = SIZE * block_steps(xs) / 2 + 1e-30
    check("backend_sum_bound", bool(np.all(err <= bound)) and
          pg.comm.stats()["calls"] > calls0, "worst %.3f of N*step/2" %
          float(np.max(err / bound)))
    hash_of("backend_sum", [t])
    w = dist.all_reduce(torch.full((5,), float(RANK)), op=dist.ReduceOp.SUM,
                        async_op=True)
    w.wait()
    big = torch.arange(10, dtype=torch.int64) + RANK
    dist.all_reduce(big)        # int64: gloo
    b = torch.full((3,), float(RANK))
    dist.broadcast(b, src=SIZE - 1)
    check("backend_gloo_collectives", torch.equal(
        big, torch.arange(10) * SIZE + SIZE * (SIZE - 1) // 2) and
        torch.equal(b, torch.full((3,), float(SIZE - 1))),
        "int64 all_reduce, broadcast")
    ddp = DDP(mlp(4))       # no hook: the reducer's all_reduce goes to the switch
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05)
    for step in range(2):
        x, y = batch(step)
        opt.zero_grad()
        nn.functional.cross_entropy(ddp(x), y).backward()
        opt.step()
    hash_of("backend_ddp_params", list(ddp.parameters()))
    check("backend_ddp", pg.comm.stats()["calls"] > calls0 + 2)


def sc_gone(comm, timeout_ms):
    ddp = DDP(mlp(5))
    ddp.register_comm_hook(optinc.torch.OptincState(comm=comm),
                           optinc.torch.allreduce_hook)
    for step in range(3):
        if step == 2 and RANK == SIZE - 1:
            print("# rank %d leaves before step 2" % RANK, flush=True)
            os._exit(0)
        x, y = batch(step)
        t0 = time.monotonic()
        try:
            nn.functional.cross_entropy(ddp(x), y).backward()
        except RuntimeError as e:
            dt = time.monotonic() - t0
            check("rank_gone_raises", step == 2 and "timed out" in str(e) and
                  dt < timeout_ms / 1000 + 5, "step %d after %.1f s: %s" %
                  (step, dt, str(e).splitlines()[0][:200]))
            os._exit(0)
    check("rank_gone_raises", False, "no exception")
    os._exit(0)


def sc_switch_gone(comm, timeout_ms):
    """Trains until the script kills optincd: the next backward raises."""
    ddp = DDP(mlp(6))
    ddp.register_comm_hook(optinc.torch.OptincState(comm=comm),
                           optinc.torch.allreduce_hook)
    last = time.monotonic()
    for step in range(400):
        x, y = batch(step)
        try:
            nn.functional.cross_entropy(ddp(x), y).backward()
        except RuntimeError as e:
            dt = time.monotonic() - last
            check("switch_gone_raises", step >= 3 and "timed out" in str(e)
                  and dt < timeout_ms / 1000 + 5,
                  "step %d, %.1f s after the last good one: %s" %
                  (step, dt, str(e).splitlines()[0][:200]))
            os._exit(0)
        last = time.monotonic()
        print("# step %d" % step, flush=True)
        time.sleep(0.05)
    check("switch_gone_raises", False, "400 steps without an exception")
    os._exit(0)


def sc_noswitch(timeout_ms):
    t0 = time.monotonic()
    try:
        optinc.torch.OptincState(timeout_ms=timeout_ms)
        check("no_switch_raises", False, "a communicator without a switch")
    except optinc.TimeoutError as e:
        dt = time.monotonic() - t0
        check("no_switch_raises", dt < timeout_ms / 1000 + 3 and
              "no answer from switch" in str(e), "after %.1f s: %s" % (dt, e))


def run(name, fn, *args):
    try:
        fn(*args)
    except Exception as e:
        traceback.print_exc()
        check(name, False, "exception %s: %s" % (type(e).__name__, e))


def main():
    what, port = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 29500
    print("# rank %d of %d: optinc %s from %s, non-blocking %s, torch %s" %
          (RANK, SIZE, ".".join(map(str, optinc.version())), optinc.LIB_PATH,
           "native" if optinc.HAS_NONBLOCKING else "thread fallback",
           torch.__version__), flush=True)
    if what == "noswitch":
        return sc_noswitch(int(sys.argv[3]))
    gloo_init(port)
    comm = optinc.Communicator(rank=RANK, size=SIZE)
    if what == "gone":
        return sc_gone(comm, int(os.environ.get("OPTINC_TIMEOUT_MS", "10000")))
    if what == "swgone":
        return sc_switch_gone(comm, int(os.environ.get("OPTINC_TIMEOUT_MS",
                                                      "10000")))
    if what == "overlap":
        import overlap
        return overlap.measure(comm, check)
    run("basic", sc_basic, comm)
    run("train", sc_train, comm)
    run("dtypes", sc_dtypes, comm)
    run("nan", sc_nan, comm)
    comm.close()
    dist.destroy_process_group()
    run("backend", sc_backend, port + 1)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)
