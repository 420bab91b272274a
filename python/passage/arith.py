"""Passage — tvm.arith: the arithmetic analyzer of TIR (include/passage/arith.h).

    ana = passage.arith.Analyzer()
    i = passage.tir.Var("i", "int32")
    ana.bind(i, (0, 16))                     # 0 <= i < 16
    ana.simplify((i * 4 + 2) // 4)           # i
    ana.const_int_bound(i + 1)               # ConstIntBound(min_value=1, max_value=16)
"""

import ctypes

from . import _ffi
from ._ffi import lib, CTX, call
from .tir import _api
from .tir.expr import convert

__all__ = ["Analyzer", "ConstIntBound", "ModularSet"]

P, I, B = ctypes.c_void_p, ctypes.c_int, ctypes.c_bool
PP = ctypes.POINTER(ctypes.c_void_p)


class _Bound(ctypes.Structure):
    _fields_ = [("min", ctypes.c_int64), ("max", ctypes.c_int64)]


class _ModSet(ctypes.Structure):
    _fields_ = [("coeff", ctypes.c_int64), ("base", ctypes.c_int64)]


class _Scope(ctypes.Structure):
    _fields_ = [("nfacts", ctypes.c_size_t), ("nknown", ctypes.c_size_t)]


for _name, (_res, _args) in {
    "psg_arith_analyzer_create": (I, [P, PP]),
    "psg_arith_analyzer_destroy": (None, [P]),
    "psg_arith_bind": (I, [P, P, P, P]),
    "psg_arith_bind_value": (I, [P, P, P]),
    "psg_arith_enter_constraint": (I, [P, P, ctypes.POINTER(_Scope)]),
    "psg_arith_exit_constraint": (None, [P, ctypes.POINTER(_Scope)]),
    "psg_arith_const_int_bound": (I, [P, P, ctypes.POINTER(_Bound)]),
    "psg_arith_modular_set": (I, [P, P, ctypes.POINTER(_ModSet)]),
    "psg_arith_rewrite_simplify": (I, [P, P, PP]),
    "psg_arith_canonical_simplify": (I, [P, P, PP]),
    "psg_arith_simplify": (I, [P, P, PP]),
    "psg_arith_can_prove": (B, [P, P]),
}.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


class ConstIntBound:
    """[min_value, max_value] of an integer expression (TVM's names; the
    infinite ends are POS_INF / NEG_INF)."""
    POS_INF = 2**63 - 1
    NEG_INF = -2**63

    def __init__(self, min_value, max_value):
        self.min_value, self.max_value = min_value, max_value

    def __repr__(self):
        return "ConstIntBound(min_value=%d, max_value=%d)" % (self.min_value, self.max_value)


class ModularSet:
    """The values coeff * k + base."""

    def __init__(self, coeff, base):
        self.coeff, self.base = coeff, base

    def __repr__(self):
        return "ModularSet(coeff=%d, base=%d)" % (self.coeff, self.base)


class _ConstraintScope:
    def __init__(self, analyzer, cond):
        self._a, self._cond, self._scope = analyzer, convert(cond), _Scope()

    def __enter__(self):
        call(lib.psg_arith_enter_constraint, self._a._ptr, self._cond._ptr,
             ctypes.byref(self._scope), what="constraint_scope")
        return self

    def __exit__(self, *exc):
        lib.psg_arith_exit_constraint(self._a._ptr, ctypes.byref(self._scope))
        return False


class Analyzer:
    """tvm.arith.Analyzer: facts (bind, constraint_scope) and the queries
    that read them."""

    def __init__(self):
        out = ctypes.c_void_p()
        call(lib.psg_arith_analyzer_create, CTX, ctypes.byref(out), what="Analyzer")
        self._ptr = out.value

    def __del__(self):
        ptr = getattr(self, "_ptr", None)
        if ptr:
            self._ptr = None
            lib.psg_arith_analyzer_destroy(ptr)

    def _rewrite(self, fn, expr, what):
        expr = convert(expr)
        out = ctypes.c_void_p()
        call(fn, self._ptr, expr._ptr, ctypes.byref(out), what=what)
        return _api.wrap(out.value)

    def simplify(self, expr):
        """Rewrite, canonical, rewrite (TVM's Analyzer.simplify)."""
        return self._rewrite(lib.psg_arith_simplify, expr, "simplify")

    def rewrite_simplify(self, expr):
        return self._rewrite(lib.psg_arith_rewrite_simplify, expr, "rewrite_simplify")

    def canonical_simplify(self, expr):
        return self._rewrite(lib.psg_arith_canonical_simplify, expr, "canonical_simplify")

    def const_int_bound(self, expr):
        expr, b = convert(expr), _Bound()
        call(lib.psg_arith_const_int_bound, self._ptr, expr._ptr, ctypes.byref(b),
             what="const_int_bound")
        return ConstIntBound(b.min, b.max)

    def modular_set(self, expr):
        expr, m = convert(expr), _ModSet()
        call(lib.psg_arith_modular_set, self._ptr, expr._ptr, ctypes.byref(m), what="modular_set")
        return ModularSet(m.coeff, m.base)

    def can_prove(self, cond):
        cond = convert(cond)
        with _ffi.Call():
            return bool(lib.psg_arith_can_prove(self._ptr, cond._ptr))

    def can_prove_equal(self, lhs, rhs):
        return self.can_prove(convert(lhs) - convert(rhs) == 0)

    def bind(self, var, value):
        """var in [begin, end) for a (begin, end) pair or an object with
        .min and .extent (a loop's range); otherwise var is bound to the
        expression `value` (a Let)."""
        var = convert(var)
        if isinstance(value, tuple):
            begin, end = convert(value[0]), convert(value[1])
            extent = convert(end - begin)
            call(lib.psg_arith_bind, self._ptr, var._ptr, begin._ptr, extent._ptr, what="bind")
        elif hasattr(value, "min") and hasattr(value, "extent"):
            lo, ext = convert(value.min), convert(value.extent)
            call(lib.psg_arith_bind, self._ptr, var._ptr, lo._ptr, ext._ptr, what="bind")
        else:
            value = convert(value)
            call(lib.psg_arith_bind_value, self._ptr, var._ptr, value._ptr, what="bind")

    def constraint_scope(self, constraint):
        """`with ana.constraint_scope(cond):` — cond is known inside."""
        return _ConstraintScope(self, constraint)
