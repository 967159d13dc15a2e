# SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
"""Python exceptions for liboptinc's result codes."""
import builtins

from . import _lib


class OptincError(RuntimeError):
    """A liboptinc call failed: .code (negative errno), .name
    (optinc_strerror()) and .errmsg (optinc_comm_errmsg()'s text)."""

    def __init__(self, code, errmsg="", what=""):
        self.code = code
        self.name = _lib.strerror(code)
        self.errmsg = errmsg
        text = "%s: %s" % (self.name, errmsg) if errmsg else self.name
        super().__init__("%s: %s" % (what, text) if what else text)


class InvalidError(OptincError, ValueError):
    """OPTINC_ERR_INVALID: a bad argument, option or variable."""


class TimeoutError(OptincError, builtins.TimeoutError):
    """OPTINC_ERR_TIMEOUT: the switch or a rank did not answer."""


class RefusedError(OptincError, ConnectionRefusedError):
    """OPTINC_ERR_REFUSED: the switch refused the join."""


class RangeError(OptincError, ArithmeticError):
    """OPTINC_ERR_RANGE: non-finite input (OPTINC_NONFINITE_ERROR)."""


class UnsupportedError(OptincError, NotImplementedError):
    """OPTINC_ERR_UNSUPPORTED: datatype, op or transport not served."""


class ProtocolError(OptincError):
    """OPTINC_ERR_PROTO: ranks met in different calls, or a bad answer."""


_BY_CODE = {
    _lib.ERR_INVALID: InvalidError,
    _lib.ERR_TIMEOUT: TimeoutError,
    _lib.ERR_REFUSED: RefusedError,
    _lib.ERR_RANGE: RangeError,
    _lib.ERR_UNSUPPORTED: UnsupportedError,
    _lib.ERR_PROTO: ProtocolError,
}


def error(code, errmsg="", what=""):
    """The exception for a result code (OptincError or a subclass)."""
    return _BY_CODE.get(code, OptincError)(code, errmsg, what)
