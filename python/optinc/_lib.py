# SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
"""liboptinc.so.0 through ctypes: where it is found, the structs of
<optinc/optinc.h> and the prototypes of the functions it exports."""
import ctypes
import os
from ctypes import (POINTER, Structure, byref, c_char_p, c_int, c_size_t,
                    c_uint, c_uint32, c_uint64, c_void_p)

SONAME = "liboptinc.so.0"

# Result codes: negated errno values, as the header defines them.
OK = 0
ERR_INVALID = -22       # EINVAL
ERR_NOMEM = -12         # ENOMEM
ERR_TIMEOUT = -110      # ETIMEDOUT
ERR_REFUSED = -111      # ECONNREFUSED
ERR_RANGE = -34         # ERANGE
ERR_UNSUPPORTED = -95   # EOPNOTSUPP
ERR_PROTO = -71         # EPROTO
ERR_SYSTEM = -5         # EIO

# enum optinc_datatype, enum optinc_reduce_op, enum optinc_nonfinite,
# enum optinc_algo
FLOAT32, INT32, FLOAT16, BFLOAT16, FLOAT64 = 1, 2, 3, 4, 5
SUM, AVG, MAX, MIN = 1, 2, 3, 4
NONFINITE_NAN, NONFINITE_ERROR = 0, 1
ALGO_OPTINC, ALGO_RING = 0, 1


class Opts(Structure):
    """struct optinc_opts, field for field."""
    _fields_ = [
        ("sz", c_size_t),
        ("rank", c_int),
        ("size", c_int),
        ("switch_addr", c_char_p),
        ("job", c_uint),
        ("token", c_uint32),
        ("bits", c_uint),
        ("timeout_ms", c_uint),
        ("retx_ms", c_uint),
        ("window", c_uint),
        ("mtu", c_uint),
        ("block", c_uint),
        ("algo", c_int),
        ("transport", c_char_p),
        ("bind_addr", c_char_p),
        ("peers", c_char_p),
        ("ring_port", c_uint),
        # 0.3 on: 0.2's struct ended in 4 bytes of padding, taken by reserved0
        ("reserved0", c_uint),
        ("nonfinite", c_int),
    ]


# sz of 0.2's struct (all but nonfinite): every 0.x library accepts it, and
# takes nonfinite from OPTINC_NONFINITE (or its default)
OPTS_SZ_0_2 = Opts.reserved0.offset + Opts.reserved0.size


STATS_FIELDS = ("calls", "frames_sent", "frames_rcvd", "bytes_sent",
                "bytes_rcvd", "retransmits", "dup_results", "frames_ignored",
                "probes", "tail_probes")


class Stats(Structure):
    """struct optinc_comm_stats, field for field."""
    _fields_ = [("sz", c_size_t)] + [(f, c_uint64) for f in STATS_FIELDS]


def _candidates():
    """OPTINC_LIB, then the build tree this package sits in, then the loader."""
    env = os.environ.get("OPTINC_LIB")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    out = os.environ.get("O", "build")
    if not os.path.isabs(out):
        out = os.path.join(root, out)
    tree = os.path.join(out, "lib", SONAME)
    if os.path.exists(os.path.join(root, "lib", "include", "optinc",
                                   "optinc.h")) and os.path.exists(tree):
        return [tree]
    return [SONAME]


def _prototypes(lib):
    comm_p = c_void_p
    protos = {
        "optinc_version": (c_uint, []),
        "optinc_strerror": (c_char_p, [c_int]),
        "optinc_comm_create": (c_int, [POINTER(Opts), POINTER(comm_p)]),
        "optinc_comm_destroy": (None, [comm_p]),
        "optinc_comm_rank": (c_int, [comm_p]),
        "optinc_comm_size": (c_int, [comm_p]),
        "optinc_comm_errmsg": (c_char_p, [comm_p]),
        "optinc_comm_get_stats": (c_int, [comm_p, POINTER(Stats)]),
        "optinc_allreduce": (c_int, [comm_p, c_void_p, c_void_p, c_size_t,
                                     c_int, c_int]),
        "optinc_iallreduce": (c_int, [comm_p, c_void_p, c_void_p, c_size_t,
                                      c_int, c_int, POINTER(c_void_p)]),
        "optinc_test": (c_int, [POINTER(c_void_p), POINTER(c_int)]),
        "optinc_wait": (c_int, [POINTER(c_void_p)]),
        "optinc_waitall": (c_int, [POINTER(c_void_p), c_size_t,
                                   POINTER(c_int)]),
    }
    found = set()
    for name, (res, args) in protos.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            continue
        fn.restype = res
        fn.argtypes = args
        found.add(name)
    return found


def load():
    """Load liboptinc; returns (CDLL, path tried, names of functions found)."""
    errors = []
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            errors.append("%s: %s" % (path, e))
            continue
        found = _prototypes(lib)
        missing = {"optinc_version", "optinc_comm_create",
                   "optinc_allreduce"} - found
        if missing:
            raise ImportError("optinc: %s lacks %s" %
                              (path, ", ".join(sorted(missing))))
        return lib, path, found
    raise ImportError("optinc: cannot load liboptinc (%s); set OPTINC_LIB "
                      "to its path, or install it (make install)" %
                      "; ".join(errors))


LIB, LIB_PATH, FUNCS = load()
HAS_NONBLOCKING = {"optinc_iallreduce", "optinc_wait"} <= FUNCS


def strerror(code):
    s = LIB.optinc_strerror(code)
    return s.decode(errors="replace") if s else "error %d" % code


def errmsg(comm):
    s = LIB.optinc_comm_errmsg(comm)
    return s.decode(errors="replace") if s else ""


__all__ = ["LIB", "LIB_PATH", "FUNCS", "HAS_NONBLOCKING", "Opts", "Stats",
           "STATS_FIELDS", "strerror", "errmsg", "byref"]
