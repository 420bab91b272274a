"""Passage — passage.arith, TVM's tvm.arith Python API over the arithmetic
analyzer of include/passage/arith.h (docs/tir-arith.md says what it proves).

    ana = arith.Analyzer()
    ana.bind(i, ir.Range(0, 16))
    ana.simplify(i // 16)                     # 0
    ana.const_int_bound(i * 2)                # ConstIntBound(min_value=0, max_value=30)
    with ana.constraint_scope(n > 4):
        assert ana.can_prove(n >= 5)

Not here: int_set (the C analyzer has no interval sets) and a separate
ProofStrength.SYMBOLIC_BOUND search (the C analyzer has one proof strength:
can_prove accepts the argument and proves what it proves)."""

import ctypes
import enum

from ._ffi import lib, CTX, call, P, I, B, PP
from .arith_range import Range
from .tir import _api
from .tir.expr import And, IntImm, PrimExpr, Var, convert

__all__ = ["Analyzer", "ConstIntBound", "ModularSet", "ProofStrength", "Extension", "Range"]

_I64 = ctypes.c_int64


class _Bound(ctypes.Structure):
    _fields_ = [("min", _I64), ("max", _I64)]


class _Modset(ctypes.Structure):
    _fields_ = [("coeff", _I64), ("base", _I64)]


class _Scope(ctypes.Structure):
    _fields_ = [("nfacts", ctypes.c_size_t), ("nknown", ctypes.c_size_t)]


for _name, (_res, _args) in {
    "psg_arith_analyzer_create": (I, [P, PP]), "psg_arith_analyzer_destroy": (None, [P]),
    "psg_arith_bind": (I, [P, P, P, P]), "psg_arith_bind_value": (I, [P, P, P]),
    "psg_arith_enter_constraint": (I, [P, P, ctypes.POINTER(_Scope)]),
    "psg_arith_exit_constraint": (None, [P, ctypes.POINTER(_Scope)]),
    "psg_arith_const_int_bound": (I, [P, P, ctypes.POINTER(_Bound)]),
    "psg_arith_modular_set": (I, [P, P, ctypes.POINTER(_Modset)]),
    "psg_arith_rewrite_simplify": (I, [P, P, PP]), "psg_arith_canonical_simplify": (I, [P, P, PP]),
    "psg_arith_can_prove": (B, [P, P]),
    "psg_arith_can_prove_equal": (B, [P, P, P]),
    "psg_arith_update_bound": (I, [P, P, _Bound]), "psg_arith_set_extensions": (I, [P, ctypes.c_uint]),
}.items():
    _fn = getattr(lib, _name)
    _fn.restype, _fn.argtypes = _res, _args


class ConstIntBound:
    """[min_value, max_value] of an integer expression; POS_INF / NEG_INF
    stand for an unbounded end (TVM's kPosInf / kNegInf)."""
    POS_INF = (1 << 63) - 1
    NEG_INF = -(1 << 63)

    def __init__(self, min_value, max_value):
        self.min_value, self.max_value = int(min_value), int(max_value)

    def __eq__(self, other):
        return (isinstance(other, ConstIntBound) and self.min_value == other.min_value
                and self.max_value == other.max_value)

    __hash__ = None

    def __repr__(self):
        return "ConstIntBound(min_value=%d, max_value=%d)" % (self.min_value, self.max_value)


class ModularSet:
    """The values coeff * k + base for every integer k."""

    def __init__(self, coeff, base):
        self.coeff, self.base = int(coeff), int(base)

    def __eq__(self, other):
        return isinstance(other, ModularSet) and (self.coeff, self.base) == (other.coeff, other.base)

    __hash__ = None

    def __repr__(self):
        return "ModularSet(coeff=%d, base=%d)" % (self.coeff, self.base)


class ProofStrength(enum.IntEnum):
    """TVM's proof strengths; the C analyzer proves the same at both."""
    DEFAULT = 0
    SYMBOLIC_BOUND = 1


class Extension(enum.Flag):
    """TVM's optional analyzer extensions (Analyzer.enabled_extensions), all
    four in the C analyzer."""
    NoExtensions = 0
    TransitivelyProveInequalities = 1 << 0
    ConvertBooleanToAndOfOrs = 1 << 1
    ApplyConstraintsToBooleanBranches = 1 << 2
    ComparisonOfProductAndSum = 1 << 3


class _ConstraintScope:
    """`with analyzer.constraint_scope(cond):` — cond holds inside."""

    def __init__(self, analyzer, constraint):
        self._analyzer, self._constraint = analyzer, _expr(constraint)
        self._scope = None

    def __enter__(self):
        self._scope = _Scope()
        call(lib.psg_arith_enter_constraint, self._analyzer._ptr, self._constraint._ptr,
             ctypes.byref(self._scope), what="constraint_scope")
        self._analyzer._keep.append(self._constraint)
        return self

    def __exit__(self, *exc):
        lib.psg_arith_exit_constraint(self._analyzer._ptr, ctypes.byref(self._scope))
        return False


def _expr(x):
    if isinstance(x, PrimExpr):
        return x
    return convert(x)


class Analyzer:
    """tvm.arith.Analyzer: facts (bind, update, constraint_scope) and the
    queries that read them."""

    def __init__(self):
        out = ctypes.c_void_p()
        call(lib.psg_arith_analyzer_create, CTX, ctypes.byref(out), what="Analyzer")
        self._ptr = out.value
        self._keep = []  # the expressions the facts were made from stay alive with them
        self._updated = {}  # var -> ConstIntBound given to update()
        self._extensions = Extension.NoExtensions

    def __del__(self):
        if getattr(self, "_ptr", None):
            lib.psg_arith_analyzer_destroy(self._ptr)
            self._ptr = None

    def _rewrite(self, fn, expr, what):
        e = _expr(expr)
        out = ctypes.c_void_p()
        call(fn, self._ptr, e._ptr, ctypes.byref(out), what=what)
        return _api.wrap(out.value)

    # Queries ------------------------------------------------------------------------

    def const_int_bound(self, expr):
        b = _Bound()
        call(lib.psg_arith_const_int_bound, self._ptr, _expr(expr)._ptr, ctypes.byref(b),
             what="const_int_bound")
        return ConstIntBound(b.min, b.max)

    def modular_set(self, expr):
        m = _Modset()
        call(lib.psg_arith_modular_set, self._ptr, _expr(expr)._ptr, ctypes.byref(m),
             what="modular_set")
        return ModularSet(m.coeff, m.base)

    def simplify(self, expr, steps=2):
        """TVM's Analyzer.simplify: canonical_simplify, then `steps` passes
        alternating rewrite_simplify and canonical_simplify, stopping at an
        integer constant."""
        e = self.canonical_simplify(expr)
        for i in range(steps):
            if isinstance(e, IntImm):
                break
            e = (self.rewrite_simplify if i % 2 == 0 else self.canonical_simplify)(e)
        return e

    def rewrite_simplify(self, expr):
        return self._rewrite(lib.psg_arith_rewrite_simplify, expr, "rewrite_simplify")

    def canonical_simplify(self, expr):
        return self._rewrite(lib.psg_arith_canonical_simplify, expr, "canonical_simplify")

    def can_prove(self, expr, strength=ProofStrength.DEFAULT):
        e = _expr(expr)
        return bool(lib.psg_arith_can_prove(self._ptr, e._ptr))

    def can_prove_equal(self, lhs, rhs):
        a, b = _expr(lhs), _expr(rhs)
        return bool(lib.psg_arith_can_prove_equal(self._ptr, a._ptr, b._ptr))

    # Facts ----------------------------------------------------------------------------

    def bind(self, var, expr):
        """var in Range(min, min + extent), or var = expr."""
        if not isinstance(var, Var):
            raise TypeError("Analyzer.bind needs a Var, got %r" % type(var).__name__)
        if isinstance(expr, Range):
            call(lib.psg_arith_bind, self._ptr, var._ptr, expr.min._ptr, expr.extent._ptr,
                 what="bind")
            self._keep += [var, expr.min, expr.extent]
        else:
            e = _expr(expr)
            call(lib.psg_arith_bind_value, self._ptr, var._ptr, e._ptr, what="bind")
            self._keep += [var, e]

    def update(self, var, info, override=False):
        """Sets `var`'s bound to `info` (a ConstIntBound; either end may be
        infinite). As TVM's, giving a var a second, different bound is an
        error unless `override`."""
        if not isinstance(info, ConstIntBound):
            raise TypeError("Analyzer.update takes a ConstIntBound, got %r" % type(info).__name__)
        old = self._updated.get(var)
        if old is not None and old != info and not override:
            raise ValueError("Trying to update var '%s' with a different const bound: original=%r, new=%r"
                             % (var.name, old, info))
        self._updated[var] = info
        call(lib.psg_arith_update_bound, self._ptr, var._ptr, _Bound(info.min_value, info.max_value),
             what="update")
        self._keep.append(var)

    def constraint_scope(self, constraint):
        return _ConstraintScope(self, constraint)

    @property
    def enabled_extensions(self):
        return self._extensions

    @enabled_extensions.setter
    def enabled_extensions(self, flags):
        """TransitivelyProveInequalities, ConvertBooleanToAndOfOrs,
        ApplyConstraintsToBooleanBranches and ComparisonOfProductAndSum."""
        flags = Extension(flags)
        call(lib.psg_arith_set_extensions, self._ptr, flags.value, what="enabled_extensions")
        self._extensions = flags


def _const(value, like):
    from .tir.expr import const
    return const(value, like.dtype)
