"""Passage — automatic test-case reduction from Python (include/passage/reduce.h,
docs/pass-infra.md "Reducing a failing case"): `passage.reduce.reduce(mod,
pipeline, predicate)` shrinks the pipeline text and then the module while
`predicate(mod, pipeline)` returns True, as `passage reduce` does with a
shell command. An exception raised by the predicate stops the reduction and
is re-raised at the call (STYLE rule 7)."""

import ctypes
import sys

from . import _ffi
from ._ffi import lib, CTX, enc, s, take_string
from .ir import IRModule

__all__ = ["reduce", "sizes"]

KEEP_PIPELINE = 1
KEEP_MODULE = 2

_PREDICATE_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                 ctypes.c_size_t, ctypes.c_char_p)
lib.psg_reduce.restype = ctypes.c_int
lib.psg_reduce.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, _PREDICATE_FN, ctypes.c_void_p,
                           ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]
lib.psg_reduce_sizes.restype = None
lib.psg_reduce_sizes.argtypes = [ctypes.c_void_p] + [ctypes.POINTER(ctypes.c_size_t)] * 3


def _predicate_tramp(user, mod, text, length, pipeline):
    try:
        fn = _ffi.handle_obj(user)
        with _ffi.Call():
            return 1 if fn(IRModule._borrow(mod), s(pipeline)) else 0
    except BaseException as e:
        return _ffi.park_exception(e)


_PREDICATE = _ffi.immortal(_PREDICATE_FN(_predicate_tramp))


def sizes(mod):
    """(calls, functions, bytes of Relay text) of `mod`, as the reducer counts them."""
    c, f, b = ctypes.c_size_t(), ctypes.c_size_t(), ctypes.c_size_t()
    lib.psg_reduce_sizes(mod._ptr, ctypes.byref(c), ctypes.byref(f), ctypes.byref(b))
    return c.value, f.value, b.value


def reduce(mod, pipeline, predicate, keep_pipeline=False, keep_module=False, verbose=False):
    """The smallest (module, pipeline text) found that `predicate(mod,
    pipeline)` still calls interesting (it must on the input: else
    InvalidArgumentError). `verbose` writes each step to sys.stderr."""
    if not isinstance(mod, IRModule):
        raise TypeError("reduce takes an IRModule, got %r" % type(mod).__name__)
    flags = (KEEP_PIPELINE if keep_pipeline else 0) | (KEEP_MODULE if keep_module else 0)
    out_mod, out_pipeline = ctypes.c_void_p(), ctypes.c_void_p()
    handle = _ffi.new_handle(predicate)
    try:
        with _ffi.Call() as c:
            st = lib.psg_reduce(CTX, mod._ptr, enc(pipeline), _PREDICATE, handle, flags, ctypes.byref(out_mod),
                                ctypes.byref(out_pipeline))
            if verbose:
                for d in c.t.diags:
                    if lib.psg_diag_pass(d) == b"Reduce":
                        sys.stderr.write("passage " + s(lib.psg_diag_message(d)) + "\n")
            if st != _ffi.OK:
                raise _ffi.error_from_status(st, "reduce")
    finally:
        _ffi._free_handle(handle)
    return IRModule._own(out_mod.value), take_string(out_pipeline.value)
