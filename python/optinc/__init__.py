# SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
"""optinc: all-reduce through an OptINC switch from Python (ctypes over
liboptinc.so.0). optinc.torch adds the DDP communication hook and the
"optinc" torch.distributed backend."""
from ._lib import (AVG, BFLOAT16, FLOAT16, FLOAT32, FLOAT64, INT32, MAX,
                   MIN, SUM, LIB_PATH, HAS_NONBLOCKING)
from .comm import Communicator, Request, version
from .errors import (InvalidError, OptincError, ProtocolError, RangeError,
                     RefusedError, TimeoutError, UnsupportedError)

__version__ = "0.3.0"

__all__ = ["Communicator", "Request", "version", "OptincError",
           "InvalidError", "TimeoutError", "RefusedError", "RangeError",
           "UnsupportedError", "ProtocolError", "LIB_PATH",
           "HAS_NONBLOCKING", "FLOAT32", "INT32", "FLOAT16", "BFLOAT16",
           "FLOAT64", "SUM", "AVG", "MAX", "MIN"]
