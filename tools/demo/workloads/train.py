#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""One rank of a data-parallel workload (resnet.py, lm.py) under torch DDP:
gradients averaged by the optinc switch (optinc.torch.allreduce_hook) or by
DDP's gloo all-reduce (torch's default allreduce hook: divide by N, then
all-reduce SUM); per-step CSV of loss and time split into compute and
communication, evaluations, a check that every rank's parameters are
bit-identical, and a progress line on rank 0.

Rank and size come from OPTINC_RANK/OPTINC_SIZE (optinc-testbed run) or
torchrun's RANK/WORLD_SIZE; the process group's rendezvous is TCP to
--master (server 0) through the switch."""
import argparse
import hashlib
import importlib
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks  # noqa: E402
from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402

WORKLOADS = ("resnet", "lm")


def env_int(*names, default=None):
    for n in names:
        if n in os.environ:
            return int(os.environ[n])
    if default is None:
        sys.exit("train.py: none of %s set" % ", ".join(names))
    return default


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--workload", choices=WORKLOADS, required=True)
    p.add_argument("--algo", choices=("optinc", "gloo"), default="optinc")
    p.add_argument("--steps", type=int)
    p.add_argument("--batch", type=int, help="global batch (all ranks)")
    p.add_argument("--lr", type=float, help="peak learning rate")
    p.add_argument("--warmup", type=int, help="linear warm-up steps")
    p.add_argument("--eval-every", type=int, help="steps between evaluations")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--master", default="10.77.0.1:29400",
                   help="rendezvous address of rank 0")
    p.add_argument("--csv", default="", help="per-step CSV (rank 0 appends)")
    p.add_argument("--eval-csv", default="", help="evaluation CSV (rank 0 appends)")
    p.add_argument("--progress", type=float, default=10.0,
                   help="seconds between progress lines")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--bucket-mb", type=float, default=25.0)
    wl_name = next((argv[i + 1] for i, a in enumerate(argv[:-1])
                    if a == "--workload"), None)
    wl_name = wl_name or next((a.split("=", 1)[1] for a in argv
                               if a.startswith("--workload=")), None)
    wl = importlib.import_module(wl_name) if wl_name in WORKLOADS else None
    if wl is not None:
        wl.add_args(p)
    args = p.parse_args(argv)
    for k, v in wl.defaults().items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    return args, wl


class Timer:
    """A comm hook around the real one: when each bucket was posted and
    when its average was back."""

    def __init__(self, hook, state):
        self.hook, self.state = hook, state
        self.reset()

    def reset(self):
        self.first_post = self.last_post = self.last_done = None

    def call(self, bucket):
        now = time.perf_counter()
        self.first_post = self.first_post or now
        self.last_post = now
        fut = self.hook(self.state, bucket)

        def done(f):
            self.last_done = time.perf_counter()
            return f.value()
        return fut.then(done)


def timed_hook(timer, bucket):
    """The comm hook DDP calls (it must be a function)."""
    return timer.call(bucket)


def lr_at(step, args):
    """Linear warm-up, then a cosine to zero at the last step."""
    if step <= args.warmup:
        return args.lr * step / args.warmup
    t = (step - args.warmup) / max(1, args.steps - args.warmup)
    return args.lr * 0.5 * (1 + math.cos(math.pi * t))


def params_hash(net):
    h = hashlib.sha256()
    for t in net.parameters():
        h.update(t.detach().contiguous().view(-1).view(torch.uint8).numpy().tobytes())
    return h.hexdigest()[:16]


def same_everywhere(hexhash):
    """True when every rank's parameters hash alike (gathered by gloo)."""
    t = torch.tensor([int(hexhash[:15], 16)], dtype=torch.int64)
    out = [torch.empty_like(t) for _ in range(dist.get_world_size())]
    dist.all_gather(out, t)
    return all(torch.equal(o, t) for o in out)


def sync_buffers(net):
    """BatchNorm statistics are per rank (broadcast_buffers=False keeps
    them off the per-step traffic): averaged before an evaluation."""
    for b in net.buffers():
        if b.dtype.is_floating_point:
            dist.all_reduce(b)
            b.div_(dist.get_world_size())


class Run:
    def __init__(self, args, wl, rank, size):
        self.args, self.wl, self.rank, self.size = args, wl, rank, size
        self.t0 = time.time()
        self.last_progress = 0.0
        self.ema = None

    def csv_row(self, path, header, row):
        if self.rank or not path:
            return
        new = not os.path.exists(path) or os.path.getsize(path) == 0
        with open(path, "a") as f:
            if new:
                f.write(header + "\n")
            f.write(",".join(str(v) for v in row) + "\n")

    def evaluate(self, net, step):
        sync_buffers(net.module)
        net.eval()
        t = time.perf_counter()
        sums = torch.tensor(self.wl.evaluate(net.module, self.data, self.rank,
                                             self.size), dtype=torch.float64)
        dist.all_reduce(sums)
        net.train()
        m = self.wl.metrics(sums.tolist())
        h = params_hash(net.module)
        same = same_everywhere(h)
        print("hash step%d %s" % (step, h), flush=True)
        if self.rank == 0:
            print("%s %s: step %d %s (%.1f s)%s" % (
                self.wl.NAME, self.args.algo, step,
                " ".join("%s %.4f" % kv for kv in m.items()),
                time.perf_counter() - t, "" if same else " PARAMETERS DIFFER"),
                flush=True)
        key = list(m)
        self.csv_row(self.args.eval_csv,
                     "workload,algo,ranks,bits,step,elapsed_s," + ",".join(key) +
                     ",identical",
                     [self.wl.NAME, self.args.algo, self.size, self.bits, step,
                      "%.1f" % (time.time() - self.t0)] +
                     ["%.6f" % m[k] for k in key] + [int(same)])
        if not same:
            sys.exit("train.py: rank %d: parameters differ between ranks at "
                     "step %d" % (self.rank, step))
        return m

    def progress(self, step, loss, ms, comm):
        self.ema = loss if self.ema is None else 0.9 * self.ema + 0.1 * loss
        now = time.time() - self.t0
        if self.rank or (now - self.last_progress < self.args.progress and
                         step != self.args.steps):
            return
        self.last_progress = now
        eta = now / step * (self.args.steps - step)
        print("%s %s: step %d/%d loss %.4f (mean %.4f) %.0f ms/step "
              "(comm %.0f) %ds, eta %ds" % (self.wl.NAME, self.args.algo, step,
                                            self.args.steps, loss, self.ema, ms,
                                            comm, now, eta), flush=True)


def make_ddp(net, args, rank, size):
    ddp = DDP(net, broadcast_buffers=False, bucket_cap_mb=args.bucket_mb)
    if args.algo == "optinc":
        import optinc.torch
        state = optinc.torch.OptincState(rank=rank, size=size)
        timer = Timer(optinc.torch.allreduce_hook, state)
    else:
        state = None
        timer = Timer(default_hooks.allreduce_hook, dist.group.WORLD)
    ddp.register_comm_hook(timer, timed_hook)
    return ddp, timer, state


STEP_HEADER = ("workload,algo,ranks,bits,step,lr,train_loss,step_ms,compute_ms,"
               "comm_ms,comm_span_ms,bytes_sent,grad_bytes")


def setup(args, wl):
    """Process group, data, model under DDP with its hook, optimiser."""
    rank = env_int("OPTINC_RANK", "RANK")
    size = env_int("OPTINC_SIZE", "WORLD_SIZE")
    torch.set_num_threads(args.threads)
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "eth0")
    if args.batch % size:
        sys.exit("train.py: --batch %d not a multiple of %d ranks" % (args.batch, size))
    dist.init_process_group("gloo", init_method="tcp://" + args.master,
                            rank=rank, world_size=size)
    run = Run(args, wl, rank, size)
    run.bits = int(os.environ.get("OPTINC_BITS", "8")) if args.algo == "optinc" else 32
    run.data = wl.Data(args)
    torch.manual_seed(args.seed)
    net = wl.model(args)
    run.ddp, run.timer, run.state = make_ddp(net, args, rank, size)
    run.opt = wl.optimizer(list(net.parameters()), args)
    run.grad_bytes = sum(p.numel() * p.element_size() for p in net.parameters())
    run.sent = 0
    if rank == 0:
        print("%s %s: %d ranks, %d parameters (%d gradient bytes), %d steps of "
              "global batch %d" % (wl.NAME, args.algo, size, run.grad_bytes // 4,
                                   run.grad_bytes, args.steps, args.batch),
              flush=True)
    return run


def one_step(run, step):
    """Train one step; returns (loss, step ms, communication ms)."""
    args, wl = run.args, run.wl
    lr = lr_at(step, args)
    for g in run.opt.param_groups:
        g["lr"] = lr
    t0 = time.perf_counter()
    x, y = run.data.batch(step, args.batch, run.rank, run.size)
    run.timer.reset()
    loss = wl.loss(run.ddp(x), y)
    loss.backward()
    t1 = time.perf_counter()
    run.opt.step()
    run.opt.zero_grad(set_to_none=True)
    t2 = time.perf_counter()
    # communication not hidden by compute: backward() waits for the
    # averages after its last bucket is posted
    comm = max(0.0, t1 - run.timer.last_post) * 1e3
    span = (run.timer.last_done - run.timer.first_post) * 1e3
    sent = run.state.comm.stats()["bytes_sent"] if run.state else 0
    ms = (t2 - t0) * 1e3
    run.csv_row(args.csv, STEP_HEADER,
                [wl.NAME, args.algo, run.size, run.bits, step, "%.6g" % lr,
                 "%.5f" % loss.item(), "%.2f" % ms, "%.2f" % (ms - comm),
                 "%.2f" % comm, "%.2f" % span, sent - run.sent, run.grad_bytes])
    run.sent = sent
    return loss.item(), ms, comm


def train(args, wl):
    run = setup(args, wl)
    run.evaluate(run.ddp, 0)
    run.sent = run.state.comm.stats()["bytes_sent"] if run.state else 0
    for step in range(1, args.steps + 1):
        loss, ms, comm = one_step(run, step)
        run.progress(step, loss, ms, comm)
        if step % args.eval_every == 0 or step == args.steps:
            run.evaluate(run.ddp, step)
    if run.state:
        run.state.comm.close()
    dist.destroy_process_group()
    return run


if __name__ == "__main__":
    a, w = parse(sys.argv[1:])
    keep = train(a, w)
    # Out without freeing the DDP: in torch 1.13 its gloo group's destructor
    # joins the group's worker threads holding the GIL, and a worker that is
    # still freeing a tensor of the last collective waits for the GIL: a
    # hang at exit (seen in selftests/demo/workloads.sh, rank 0 of resnet,
    # every step done). Nothing is left to write: the CSV files are closed
    # after each row, the communicator closed above.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
