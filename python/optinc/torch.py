# SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
"""PyTorch through the switch: a DDP communication hook that averages each
gradient bucket with a non-blocking optinc all-reduce, and the "optinc"
torch.distributed backend (all_reduce through the switch, the other
collectives served by gloo).

    import optinc.torch
    model = DDP(model)
    model.register_comm_hook(optinc.torch.OptincState(),
                             optinc.torch.allreduce_hook)
"""
import torch
import torch.distributed as dist
from torch._C import _distributed_c10d as c10d

from .comm import Communicator
from .errors import OptincError

# dtypes the switch path takes (others go to gloo in the backend)
SWITCH_DTYPES = (torch.float32, torch.float16, torch.bfloat16, torch.int32,
                 torch.float64)


class OptincState:
    """State of allreduce_hook: the communicator (made from @options, with
    rank and size of the default process group when one is initialized)
    and counters."""

    def __init__(self, comm=None, op="avg", **options):
        if comm is None:
            if dist.is_available() and dist.is_initialized():
                options.setdefault("rank", dist.get_rank())
                options.setdefault("size", dist.get_world_size())
            comm = Communicator(**options)
        self.comm = comm
        self.op = op
        self.buckets = 0        # buckets posted
        self.last_index = None  # index of the last bucket posted

    def __getstate__(self):
        raise TypeError("optinc.torch.OptincState cannot be pickled")


def _future_of(reqs, value):
    """A torch Future completed (by the communicator's thread) with @value
    when all @reqs are done, or failed with the first one's error. They
    complete in the order posted, so the last one's callback ends it.
    torch 1.13's set_exception() only stores the exception as the value
    (C++ waiters such as DDP's reducer then fail with "Unable to cast"),
    so what is returned is a .then() of it, which fails properly."""
    base = torch.futures.Future()
    reqs = list(reqs)

    def done(_):
        exc = next((r._exc for r in reqs if r._exc is not None), None)
        if exc is None:
            base.set_result(value)
        else:
            base.set_exception(exc)
    reqs[-1].add_done_callback(done)
    return base.then(_unwrap)


def _unwrap(fut):
    return fut.value()


def allreduce_hook(state, bucket):
    """DDP comm hook: averages the bucket through the switch, in place,
    with the non-blocking call; returns a torch.futures.Future of the
    bucket's tensor. DDP posts buckets in index order on every rank, so
    the calls meet on the switch; a rank whose calls differ makes every
    rank fail (optinc.ProtocolError)."""
    t = bucket.buffer()
    fut_err = None
    try:
        req = state.comm.iallreduce(t, op=state.op)
    except OptincError as e:
        fut_err = e
    if fut_err is not None:
        fut = torch.futures.Future()
        fut.set_exception(fut_err)
        return fut.then(_unwrap)
    state.buckets += 1
    state.last_index = bucket.index()
    return _future_of([req], t)


# --- the process-group backend ---------------------------------------------

backend_options = {}    # keywords for the backend's Communicator


def _op_name(reduce_op):
    for name in ("SUM", "AVG", "MAX", "MIN"):
        if reduce_op == getattr(dist.ReduceOp, name):
            return name.lower()
    return None


class ProcessGroupOptinc(c10d.ProcessGroup):
    """all_reduce (SUM, AVG; MAX and MIN where the library serves them) of
    contiguous CPU float32/float16/bfloat16/float64/int32 tensors through
    the switch; everything else through a gloo group on the same store."""

    def __init__(self, store, rank, size, timeout):
        super().__init__(rank, size)
        self.gloo = c10d.ProcessGroupGloo(store, rank, size, timeout)
        self.comm = Communicator(rank=rank, size=size, **backend_options)

    def getBackendName(self):
        return "optinc"

    def _switch_serves(self, tensors, op):
        if op is None or (op in ("max", "min") and
                          op not in self.comm.native_types):
            return False
        for t in tensors:
            if (t.device.type != "cpu" or not t.is_contiguous() or
                    t.dtype not in SWITCH_DTYPES or
                    (t.dtype == torch.int32 and op == "avg")):
                return False
        return True

    def allreduce(self, tensors, opts=None):
        if opts is None:
            opts = c10d.AllreduceOptions()
        if isinstance(tensors, torch.Tensor):
            tensors = [tensors]
        op = _op_name(opts.reduceOp)
        if not self._switch_serves(tensors, op):
            return self.gloo.allreduce(tensors, opts)
        reqs = [self.comm.iallreduce(t, op=op) for t in tensors]
        return c10d._create_work_from_future(_future_of(reqs, tensors))


def _broadcast(self, tensors, opts=None):
    """Served by gloo; bfloat16 (which gloo in torch 1.13 refuses) goes
    as float16 bits, a copy."""
    if isinstance(tensors, torch.Tensor):
        tensors = [tensors]
    views = [t.view(torch.float16) if t.dtype == torch.bfloat16 else t
             for t in tensors]
    if opts is None:
        return self.gloo.broadcast(views)
    return self.gloo.broadcast(views, opts)


ProcessGroupOptinc.broadcast = _broadcast


def _delegate(name):
    def call(self, *args, **kwargs):
        return getattr(self.gloo, name)(*args, **kwargs)
    call.__name__ = name
    call.__doc__ = "Served by gloo."
    return call


for _name in ("allgather", "_allgather_base",
              "allgather_coalesced", "allreduce_coalesced", "reduce",
              "gather", "scatter", "reduce_scatter", "_reduce_scatter_base",
              "alltoall", "alltoall_base", "send", "recv", "recv_anysource",
              "barrier", "monitored_barrier"):
    if hasattr(c10d.ProcessGroupGloo, _name):
        setattr(ProcessGroupOptinc, _name, _delegate(_name))


def _create_pg(store, rank, size, timeout):
    return ProcessGroupOptinc(store, rank, size, timeout)


def register_backend():
    """Register "optinc" with torch.distributed (done on import)."""
    if not hasattr(dist.Backend, "OPTINC"):
        dist.Backend.register_backend("optinc", _create_pg)


register_backend()
