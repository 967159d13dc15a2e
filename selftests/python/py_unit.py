#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""python/optinc without a switch or privileges: ctypes layouts against the
header, how the library is found, options and variables, errors as
exceptions, and all-reduce on a one-rank ring (numpy, torch, requests)."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
O = os.environ.get("O", "build")
if not os.path.isabs(O):
    O = os.path.join(ROOT, O)

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


class Skip(Exception):
    pass


def ring(**kw):
    import optinc
    opts = dict(rank=0, size=1, algo="ring", peers="127.0.0.1",
                ring_port=47390)
    opts.update(kw)
    return optinc.Communicator(**opts)


@test
def layouts_match_header():
    """struct optinc_opts, struct optinc_comm_stats, codes and enums as
    ctypes sees them equal what the C compiler makes of optinc.h"""
    import ctypes
    from optinc import _lib
    exe = os.path.join(O, "selftests", "python", "layout")
    if not os.access(exe, os.X_OK):
        raise AssertionError("%s is not built (make)" % exe)
    structs = {"optinc_opts": _lib.Opts, "optinc_comm_stats": _lib.Stats}
    lists = {
        "codes": [_lib.ERR_INVALID, _lib.ERR_NOMEM, _lib.ERR_TIMEOUT,
                  _lib.ERR_REFUSED, _lib.ERR_RANGE, _lib.ERR_UNSUPPORTED,
                  _lib.ERR_PROTO, _lib.ERR_SYSTEM],
        "enums": [_lib.FLOAT32, _lib.INT32, _lib.FLOAT16, _lib.BFLOAT16,
                  _lib.FLOAT64, _lib.SUM, _lib.AVG, _lib.MAX, _lib.MIN,
                  _lib.NONFINITE_NAN, _lib.NONFINITE_ERROR,
                  _lib.ALGO_OPTINC, _lib.ALGO_RING],
    }
    n = 0
    for line in subprocess.check_output([exe], text=True).splitlines():
        w = line.split()
        if w[0] in lists:
            got, want = [int(v) for v in w[1:]], lists[w[0]]
        elif w[1] == "sizeof":
            got, want = int(w[2]), ctypes.sizeof(structs[w[0]])
        else:
            f = getattr(structs[w[0]], w[1])
            got, want = [int(w[2]), int(w[3])], [f.offset, f.size]
        assert got == want, "%s: header %s, ctypes %s" % (line, got, want)
        n += 1
    fields = len(_lib.Opts._fields_) + len(_lib.Stats._fields_)
    assert n == fields + 4, "%d lines for %d fields" % (n, fields)
    return "%d fields, sizes, codes and enums" % fields


RANK_VARS = ("OPTINC_RANK", "OPTINC_SIZE", "OMPI_COMM_WORLD_RANK",
             "OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMI_SIZE", "SLURM_PROCID",
             "SLURM_NTASKS", "RANK", "WORLD_SIZE", "TORCHELASTIC_RUN_ID")


def load_in_child(env, code="import optinc; print(optinc.LIB_PATH)"):
    e = {k: v for k, v in os.environ.items()
         if k not in RANK_VARS and k != "OPTINC_LIB"}
    e["PYTHONPATH"] = os.path.join(ROOT, "python")
    e.update(env)
    return subprocess.run([sys.executable, "-c", code], env=e, text=True,
                          capture_output=True)


@test
def library_is_found():
    """the build tree's liboptinc.so.0 by default, OPTINC_LIB first, and
    an unloadable OPTINC_LIB is an ImportError naming it (the children
    start without the caller's OPTINC_LIB)"""
    p = load_in_child({})
    tree = os.path.join(O, "lib", "liboptinc.so.0")
    assert p.returncode == 0 and p.stdout.strip() == tree, p.stdout + p.stderr
    real = os.path.realpath(tree)
    p = load_in_child({"OPTINC_LIB": real})
    assert p.returncode == 0 and p.stdout.strip() == real, p.stdout + p.stderr
    p = load_in_child({"OPTINC_LIB": "/nonexistent/liboptinc.so.0"})
    assert p.returncode != 0 and "/nonexistent/liboptinc.so.0" in p.stderr \
        and "ImportError" in p.stderr, p.stderr
    return "build tree, OPTINC_LIB, bad OPTINC_LIB refused"


@test
def installed_package():
    """make install-python puts the package under PREFIX/lib/python3/
    dist-packages; installed, it finds liboptinc through OPTINC_LIB or the
    system loader, not a build tree"""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["make", "-s", "-C", ROOT, "install-python",
                        "DESTDIR=" + d, "PREFIX=/usr"], check=True)
        pkg = os.path.join(d, "usr", "lib", "python3", "dist-packages")
        code = ("import sys; sys.path.insert(0, %r); import optinc; "
                "print(optinc.__file__, optinc.LIB_PATH)" % pkg)
        real = os.path.realpath(os.path.join(O, "lib", "liboptinc.so.0"))
        p = load_in_child({"OPTINC_LIB": real, "PYTHONPATH": ""}, code)
        assert p.returncode == 0, p.stderr
        f, lib = p.stdout.split()
        assert f.startswith(pkg) and lib == real, p.stdout
        p = load_in_child({"PYTHONPATH": ""}, code)
        assert (p.returncode == 0 and p.stdout.split()[1] == "liboptinc.so.0"
                ) or "set OPTINC_LIB" in p.stderr, p.stdout + p.stderr
    return "installed package: OPTINC_LIB, then the system loader"


@test
def features_detected():
    """optinc_version() and which calls are native (printed)"""
    import optinc
    from optinc import _lib
    assert optinc.version() >= (0, 3, 0) or not optinc.HAS_NONBLOCKING
    with ring() as c:
        types = sorted(c.native_types)
    return "liboptinc %d.%d.%d: %s non-blocking calls; native %s" % (
        optinc.version() + ("native" if _lib.HAS_NONBLOCKING else
                            "no (worker-thread fallback)", ", ".join(types)))


@test
def create_errors_are_exceptions():
    """a failed create raises the subclass of its code with the library's
    message: no rank, a bad variable, a silent switch"""
    import optinc
    saved = {k: os.environ.pop(k) for k in list(os.environ)
             if k in ("OPTINC_RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK",
                      "SLURM_PROCID", "RANK")}
    try:
        try:
            optinc.Communicator(size=1)
            raise AssertionError("created without a rank")
        except optinc.InvalidError as e:
            assert "rank not set" in str(e) and e.code == -22, e
            assert isinstance(e, ValueError)
        os.environ["OPTINC_BITS"] = "12"
        try:
            ring()
            raise AssertionError("OPTINC_BITS=12 accepted")
        except optinc.InvalidError as e:
            assert "OPTINC_BITS=12" in e.errmsg, e
        finally:
            del os.environ["OPTINC_BITS"]
        try:
            optinc.Communicator(rank=0, size=1, switch="127.0.0.1:9",
                                timeout_ms=200, peers=None)
            raise AssertionError("created without a switch")
        except optinc.TimeoutError as e:
            assert "no answer from switch 127.0.0.1:9" in str(e), e
            assert isinstance(e, TimeoutError)
    finally:
        os.environ.update(saved)
    try:
        ring(algo="tree")
        raise AssertionError("algo=tree accepted")
    except optinc.InvalidError as e:
        assert "algo='tree'" in str(e)
    return "InvalidError, TimeoutError with optinc_comm_errmsg() text"


@test
def torchrun_variables():
    """RANK and WORLD_SIZE (torchrun) give rank and size when no
    OPTINC_/mpirun/PMI/Slurm variable is set, and before mpirun's/PMI's/
    Slurm's in a torchrun worker (TORCHELASTIC_RUN_ID)"""
    code = ("import optinc; c = optinc.Communicator(algo='ring', "
            "peers='127.0.0.1', ring_port=47391); print(c.rank, c.size)")
    p = load_in_child({"RANK": "0", "WORLD_SIZE": "1"}, code)
    assert p.returncode == 0 and p.stdout.split() == ["0", "1"], p.stderr
    p = load_in_child({"RANK": "x", "WORLD_SIZE": "1"}, code)
    assert p.returncode != 0 and "RANK=x: not a number" in p.stderr, p.stderr
    # a stray RANK loses to Slurm's, except in a torchrun worker
    slurm = {"RANK": "0", "WORLD_SIZE": "1", "SLURM_PROCID": "3",
             "SLURM_NTASKS": "4"}
    p = load_in_child(slurm, code)
    assert p.returncode != 0 and "for 4 ranks" in p.stderr, p.stdout + p.stderr
    p = load_in_child(dict(slurm, TORCHELASTIC_RUN_ID="x"), code)
    assert p.returncode == 0 and p.stdout.split() == ["0", "1"], p.stderr
    return ("RANK=0 WORLD_SIZE=1 -> rank 0 of 1; RANK=x refused; Slurm's "
            "over RANK, except in a torchrun worker")


@test
def numpy_and_torch_in_place():
    """numpy and torch buffers are reduced in place (same memory); a
    separate recvbuf; float16/bfloat16/float64 (native or widened)"""
    import numpy as np
    import torch
    with ring() as c:
        a = np.arange(1000, dtype=np.float32)
        ptr = a.ctypes.data
        assert c.allreduce(a) is a and a.ctypes.data == ptr
        assert np.array_equal(a, np.arange(1000, dtype=np.float32))
        t = torch.arange(10, dtype=torch.int32)
        p = t.data_ptr()
        assert c.allreduce(t, op="sum") is t and t.data_ptr() == p
        r = np.empty(1000, np.float32)
        assert c.allreduce(a, r) is r and np.array_equal(a, r)
        for dt in (torch.float16, torch.bfloat16, torch.float64):
            x = torch.linspace(-3, 3, 500).to(dt)
            y = x.clone()
            c.allreduce(y)
            assert torch.equal(x, y), dt
        h = np.linspace(-1, 1, 300).astype(np.float16)
        c.allreduce(h.copy())
    return "in place for numpy float32 and torch int32; widened types exact on one rank"


@test
def bad_buffers_refused():
    """non-contiguous, read-only, GPU-less types and mismatched buffers are
    refused before anything is sent; the communicator stays usable"""
    import numpy as np
    import torch
    import optinc
    with ring() as c:
        for bad, exc in ((np.zeros((4, 4), np.float32)[:, 0], ValueError),
                         (torch.zeros(4, 4).t(), ValueError),
                         (np.zeros(3, np.int64), optinc.UnsupportedError),
                         ([1.0, 2.0], TypeError)):
            try:
                c.allreduce(bad)
                raise AssertionError("%r accepted" % (bad,))
            except exc:
                pass
        ro = np.zeros(4, np.float32)
        ro.flags.writeable = False
        try:
            c.allreduce(ro)
            raise AssertionError("read-only accepted")
        except ValueError:
            pass
        try:
            c.allreduce(np.zeros(4, np.float32), np.zeros(5, np.float32))
            raise AssertionError("4 into 5 accepted")
        except optinc.InvalidError:
            pass
        try:
            c.allreduce(np.zeros(4, np.int32), op="avg")
            raise AssertionError("int32 avg accepted")
        except optinc.UnsupportedError as e:
            assert "int32 AVG" in e.errmsg, e
        x = np.ones(4, np.float32)
        c.allreduce(x)
    return "ValueError, TypeError, InvalidError, UnsupportedError"


@test
def requests():
    """iallreduce returns a Request at once; wait/test/done/callbacks"""
    import numpy as np
    with ring() as c:
        bufs = [np.full(n, 2.0, np.float32) for n in (1, 5000, 100000)]
        reqs = [c.iallreduce(b) for b in bufs]
        seen = []
        reqs[0].add_done_callback(lambda r: seen.append(r))
        for r, b in zip(reqs, bufs):
            assert r.wait(timeout=30) is b
            assert r.done and r.test() and r.exception() is None
        assert seen == [reqs[0]]
        late = []
        reqs[1].add_done_callback(late.append)
        assert late == [reqs[1]]
        assert all(np.all(b == 2.0) for b in bufs)
    return "3 requests, callbacks before and after completion"


@test
def stats_and_close():
    """stats() has the counters the library filled; a closed communicator
    raises; close() is idempotent"""
    import numpy as np
    from optinc import _lib
    c = ring()
    c.allreduce(np.ones(100, np.float32))
    st = c.stats()
    assert set(st) == set(_lib.STATS_FIELDS) and st["calls"] >= 1, st
    c.close()
    c.close()
    try:
        c.stats()
        raise AssertionError("stats of a closed communicator")
    except ValueError:
        pass
    return "calls %d, bytes_sent %d" % (st["calls"], st["bytes_sent"])


@test
def torch_module_imports():
    """optinc.torch registers the 'optinc' backend; allreduce_hook and
    OptincState exist"""
    try:
        import torch.distributed as dist
    except ImportError:
        raise Skip("no torch (make deps installs python3-torch)")
    import optinc.torch as ot
    assert hasattr(dist.Backend, "OPTINC")
    assert callable(ot.allreduce_hook) and callable(ot.OptincState)
    return "torch %s" % __import__("torch").__version__


def main():
    print("TAP version 13")
    print("1..%d" % len(TESTS))
    failed = 0
    for i, fn in enumerate(TESTS, 1):
        name = fn.__name__.replace("_", " ")
        try:
            detail = fn()
            print("ok %d - %s" % (i, name))
            if detail:
                print("# %s" % detail)
        except Skip as e:
            print("ok %d - %s # SKIP %s" % (i, name, e))
        except Exception:
            import traceback
            for line in traceback.format_exc().splitlines():
                print("# " + line)
            print("not ok %d - %s" % (i, name))
            failed += 1
        sys.stdout.flush()
    print("# %d passed, %d failed" % (len(TESTS) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
