"""Passage — tvm.tir.analysis: the well-formedness check."""

from .. import _ffi
from .._ffi import lib


def verify_well_formed(obj, assert_mode=True):
    """tir.analysis.verify_well_formed on a PrimFunc or every PrimFunc of an
    IRModule: True when well formed; otherwise raises (assert_mode) or
    returns False. The error names the function and the node."""
    from .function import PrimFunc
    funcs = [obj] if isinstance(obj, PrimFunc) else list(_prim_funcs(obj))
    for f in funcs:
        with _ffi.Call():
            st = lib.psg_tir_verify_well_formed(f._ptr)
            if st != _ffi.OK:
                if assert_mode:
                    raise _ffi.error_from_status(st, "verify_well_formed")
                return False
    return True


def _prim_funcs(mod):
    for i in range(len(mod)):
        p = lib.psg_module_get_prim_func(mod._ptr, i)
        if p:
            from ._api import borrowed
            yield borrowed(p)
