# SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
"""The communicator: created from keyword options or the environment;
all-reduce of numpy arrays and CPU torch tensors in place, blocking or not."""
import contextlib
import os
import queue
import threading
import traceback
from ctypes import byref, c_void_p, sizeof

from . import _lib
from ._lib import LIB
from .errors import InvalidError, error

DTYPES = {"float32": _lib.FLOAT32, "int32": _lib.INT32,
          "float16": _lib.FLOAT16, "bfloat16": _lib.BFLOAT16,
          "float64": _lib.FLOAT64}
OPS = {"sum": _lib.SUM, "avg": _lib.AVG, "mean": _lib.AVG,
       "max": _lib.MAX, "min": _lib.MIN}
# types that become float32 for the call where the library lacks them
WIDENED = ("float16", "bfloat16", "float64")

# Rank and size as liboptinc 0.3 resolves them (Documentation/library.md):
# OPTINC_* first, then mpirun's, PMI's, Slurm's, torchrun's RANK/WORLD_SIZE
# last, except in a torchrun worker (TORCHELASTIC_RUN_ID set), where they
# come right after OPTINC_*. The binding applies the same rule itself, so a
# library from before the rule behaves alike.
_RANK_VARS = ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID")
_SIZE_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS")

_STR_OPTS = {"switch": "switch_addr", "switch_addr": "switch_addr",
             "transport": "transport", "bind": "bind_addr",
             "bind_addr": "bind_addr", "peers": "peers"}
_INT_OPTS = ("job", "token", "bits", "timeout_ms", "retx_ms", "window",
             "mtu", "block", "ring_port")
_ALGOS = {"optinc": _lib.ALGO_OPTINC, "ring": _lib.ALGO_RING}
_NONFINITE = {"nan": _lib.NONFINITE_NAN, "error": _lib.NONFINITE_ERROR}


def version():
    """optinc_version() of the loaded library as (major, minor, patch)."""
    v = LIB.optinc_version()
    return (v // 10000, v // 100 % 100, v % 100)


def _env_member(val, own, launchers, torch_var):
    """@val, or -1 (the library reads the variables), or torchrun's
    variable where the rule above makes it the one that counts."""
    if val is not None:
        return int(val)
    env = os.environ
    if own in env or torch_var not in env:
        return -1
    if "TORCHELASTIC_RUN_ID" not in env and any(n in env for n in launchers):
        return -1
    s = env[torch_var]
    try:
        return int(s, 10)
    except ValueError:
        raise InvalidError(_lib.ERR_INVALID, "%s=%.32s: not a number" %
                           (torch_var, s), "optinc_comm_create") from None


def _choice(val, table, what):
    if val is None:
        return -1
    if isinstance(val, int):
        return val
    try:
        return table[str(val).lower()]
    except KeyError:
        raise InvalidError(_lib.ERR_INVALID, "%s=%r: one of %s" %
                           (what, val, ", ".join(table)),
                           "optinc_comm_create") from None


def make_opts(rank=None, size=None, algo=None, nonfinite=None, **kw):
    """struct optinc_opts from keywords; None fields come from the environment."""
    o = _lib.Opts()
    # a library before 0.3 refuses a struct that sets bytes it does not know
    o.sz = sizeof(_lib.Opts) if nonfinite is not None else _lib.OPTS_SZ_0_2
    o.rank = _env_member(rank, "OPTINC_RANK", _RANK_VARS, "RANK")
    o.size = _env_member(size, "OPTINC_SIZE", _SIZE_VARS, "WORLD_SIZE")
    o.algo = _choice(algo, _ALGOS, "algo")
    o.nonfinite = _choice(nonfinite, _NONFINITE, "nonfinite")
    for k, v in kw.items():
        if v is None:
            continue
        if k in _STR_OPTS:
            setattr(o, _STR_OPTS[k], str(v).encode())
        elif k in _INT_OPTS:
            setattr(o, k, int(v))
        else:
            raise TypeError("optinc: unknown option %r" % k)
    return o


class _Buf:
    """A contiguous numpy array or CPU torch tensor, seen as (ptr, count, type)."""
    __slots__ = ("obj", "ptr", "count", "dtype", "kind")

    def __init__(self, obj, writable):
        self.obj = obj
        mod = type(obj).__module__
        if mod.startswith("torch"):
            self._torch(obj)
        elif mod.startswith("numpy"):
            self._numpy(obj, writable)
        else:
            raise TypeError("optinc: a numpy array or a torch tensor, not %s"
                            % type(obj).__name__)

    def _torch(self, t):
        if t.device.type != "cpu":
            raise ValueError("optinc: tensor on %s: only CPU tensors" %
                             t.device)
        if not t.is_contiguous():
            raise ValueError("optinc: tensor is not contiguous")
        self.kind = "torch"
        self.dtype = str(t.dtype).replace("torch.", "")
        self.ptr = t.data_ptr()
        self.count = t.numel()

    def _numpy(self, a, writable):
        if not a.flags.c_contiguous:
            raise ValueError("optinc: array is not C-contiguous")
        if writable and not a.flags.writeable:
            raise ValueError("optinc: array is read-only")
        self.kind = "numpy"
        self.dtype = a.dtype.name
        self.ptr = a.ctypes.data
        self.count = a.size

    def float32(self):
        """A float32 copy (the widening fallback)."""
        if self.kind == "torch":
            return _Buf(self.obj.float().contiguous(), True)
        import numpy as np
        return _Buf(np.ascontiguousarray(self.obj, dtype=np.float32), True)

    def assign(self, src):
        """Copy @src (a _Buf) into this buffer, converting the type."""
        if self.kind == "torch":
            self.obj.copy_(src.obj)
        else:
            self.obj[...] = src.obj


def _callback(fn, req):
    """A callback's exception is printed, as concurrent.futures does; it
    must not stop the communicator's thread."""
    try:
        fn(req)
    except Exception:
        traceback.print_exc()


class Request:
    """The handle of a non-blocking all-reduce: wait(), test(), done."""

    def __init__(self, result, keep):
        self.result = result
        self._keep = keep
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks = []
        self._exc = None

    def _complete(self, exc):
        self._exc = exc
        self._keep = None
        with self._lock:
            self._event.set()
            cbs, self._callbacks = self._callbacks, None
        for cb in cbs:
            _callback(cb, self)

    def add_done_callback(self, fn):
        """Run fn(request) once it completes (now, if it has), on the
        communicator's completion thread."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(fn)
                return
        _callback(fn, self)

    @property
    def done(self):
        return self._event.is_set()

    def test(self):
        """True once the call completed (successfully or not)."""
        return self._event.is_set()

    def exception(self):
        """The OptincError of a completed call that failed, else None."""
        self._event.wait()
        return self._exc

    def wait(self, timeout=None):
        """Wait for the call; return its result buffer or raise its error."""
        if not self._event.wait(timeout):
            raise TimeoutError("optinc: request still running after %s s" %
                               timeout)
        if self._exc is not None:
            raise self._exc
        return self.result


class Communicator:
    """A liboptinc communicator (optinc_comm_create()).

    Keywords: rank, size, switch ("ip[:port]"), job, token, bits,
    timeout_ms, retx_ms, window, mtu, block, algo ("optinc" | "ring"),
    transport ("udp" | "afxdp"), bind, peers, ring_port, nonfinite
    ("nan" | "error"). What is not given comes from the OPTINC_*
    variables, mpirun's, PMI's, Slurm's or torchrun's rank and size, or
    the library's defaults. Creating it is a barrier of all ranks.
    """

    def __init__(self, **options):
        opts = make_opts(**options)
        self._opts = opts       # keeps the option strings alive
        h = c_void_p()
        rc = LIB.optinc_comm_create(byref(opts), byref(h))
        if rc:
            raise error(rc, _lib.errmsg(None), "optinc_comm_create")
        self._h = h
        self._queue = None
        self._thread = None
        self._call_lock = threading.Lock()
        self._post_lock = threading.Lock()
        self.native_nonblocking = _lib.HAS_NONBLOCKING
        self.native_types = self._probe_types()

    def _probe_types(self):
        """Datatypes and ops the library serves: count-0 calls, no traffic
        (each one counts in stats()["calls"])."""
        served = {"float32", "int32"}
        if LIB.optinc_version() < 300:
            return frozenset(served)
        for name in WIDENED:
            if not LIB.optinc_allreduce(self._h, None, None, 0,
                                        DTYPES[name], _lib.AVG):
                served.add(name)
        for name in ("max", "min"):
            if not LIB.optinc_allreduce(self._h, None, None, 0,
                                        _lib.FLOAT32, OPS[name]):
                served.add(name)
        return frozenset(served)

    # --- properties ---------------------------------------------------
    @property
    def rank(self):
        return LIB.optinc_comm_rank(self._live())

    @property
    def size(self):
        return LIB.optinc_comm_size(self._live())

    def _live(self):
        if self._h is None:
            raise ValueError("optinc: communicator is closed")
        return self._h

    def stats(self):
        """optinc_comm_get_stats() as a dict of the counters filled."""
        st = _lib.Stats()
        st.sz = sizeof(_lib.Stats)
        with (self._call_lock if not self.native_nonblocking else
              contextlib.nullcontext()):
            rc = LIB.optinc_comm_get_stats(self._live(), byref(st))
        if rc:
            raise error(rc, _lib.errmsg(self._h), "optinc_comm_get_stats")
        return {f: getattr(st, f) for f in _lib.STATS_FIELDS
                if _lib.Stats.__dict__[f].offset + 8 <= st.sz}

    # --- calls --------------------------------------------------------
    def allreduce(self, sendbuf, recvbuf=None, op="avg"):
        """All-reduce in place (recvbuf None or sendbuf) or into recvbuf;
        returns the result buffer; raises OptincError."""
        return self.iallreduce(sendbuf, recvbuf, op).wait()

    def iallreduce(self, sendbuf, recvbuf=None, op="avg"):
        """Post an all-reduce and return its Request at once. The buffers
        must stay untouched until it completes. Calls run in the order
        they are posted; every rank must post the same calls in the same
        order."""
        s = _Buf(sendbuf, recvbuf is None)
        r = s if recvbuf is None or recvbuf is sendbuf else _Buf(recvbuf, True)
        opc = self._op(op)
        if r.dtype != s.dtype or r.count != s.count:
            raise InvalidError(_lib.ERR_INVALID, "sendbuf is %d %s, recvbuf "
                               "%d %s" % (s.count, s.dtype, r.count, r.dtype),
                               "allreduce")
        if s.dtype not in DTYPES:
            raise error(_lib.ERR_UNSUPPORTED, "datatype %s: one of %s" %
                        (s.dtype, ", ".join(DTYPES)), "allreduce")
        req = Request(r.obj, (s, r))
        if s.dtype in self.native_types:
            self._post(req, s.ptr, r.ptr, s.count, DTYPES[s.dtype], opc, None)
            return req
        wide = s.float32()     # WIDENED fallback: float32 for the call
        self._post(req, wide.ptr, wide.ptr, wide.count, _lib.FLOAT32, opc,
                   lambda: r.assign(wide))
        req._keep = (s, r, wide)
        return req

    @staticmethod
    def _op(op):
        if isinstance(op, int):
            return op
        try:
            return OPS[str(op).lower()]
        except KeyError:
            raise InvalidError(_lib.ERR_INVALID, "op %r: one of %s" %
                               (op, ", ".join(OPS)), "allreduce") from None

    def _post(self, req, sp, rp, n, dt, op, finish):
        with self._post_lock:
            self._start()
            if self.native_nonblocking:
                h = c_void_p()
                rc = LIB.optinc_iallreduce(self._live(), sp, rp, n, dt, op,
                                           byref(h))
                if rc:
                    raise error(rc, _lib.errmsg(self._h), "optinc_iallreduce")
                self._queue.put((req, h, finish))
            else:
                self._queue.put((req, (self._live(), sp, rp, n, dt, op),
                                 finish))

    # --- the completion thread -----------------------------------------
    def _start(self):
        if self._thread is None:
            self._queue = queue.SimpleQueue()
            self._thread = threading.Thread(target=self._run, daemon=True,
                                            name="optinc-comm")
            self._thread.start()

    def _run(self):
        """Native: wait for each posted request in order. Fallback: run
        each call with the blocking optinc_allreduce() (ctypes lets the
        GIL go meanwhile), one after another in the order posted."""
        while True:
            item = self._queue.get()
            if item is None:
                return
            req, call, finish = item
            try:
                exc = self._finish(call, finish)
            except Exception as e:      # the call's, not the thread's end
                exc = e
            req._complete(exc)

    def _finish(self, call, finish):
        with self._call_lock:
            if self.native_nonblocking:
                rc = LIB.optinc_wait(byref(call))
            else:
                rc = LIB.optinc_allreduce(*call)
            msg = _lib.errmsg(self._h) if rc else ""
        if rc:
            return error(rc, msg, "allreduce")
        if finish is not None:
            finish()                    # the widened result copied back
        return None

    # --- lifetime -----------------------------------------------------
    def close(self):
        """Finish posted calls (each ends within timeout_ms), then
        optinc_comm_destroy()."""
        if self._h is None:
            return
        if self._thread is not None:
            self._queue.put(None)
            if self._thread.is_alive():
                self._thread.join()
            self._thread = None
        LIB.optinc_comm_destroy(self._h)
        self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        if self._h is None:
            return "<optinc.Communicator closed>"
        return "<optinc.Communicator rank %d of %d>" % (self.rank, self.size)

