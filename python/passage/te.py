"""Passage — passage.te, the part of TVM's tvm.te that is plain TIR: scalar
variables and constants, and the TIR operator functions tvm.te re-exports
(te.min, te.floordiv, ...), so TVM code that builds index expressions through
te runs. The tensor-expression language itself (te.placeholder, te.compute,
te.create_schedule, reduce_axis) comes with the lowering of Relay into TIR
(the next issue) and is not here."""

from .tir import (Var, SizeVar, const as _tir_const, any, all, min_value, max_value, exp, erf,
                  tanh, sigmoid, log, log2, log10, sqrt, rsqrt, floor, ceil, sin, cos, trunc,
                  abs, round, power, isnan, if_then_else, div, indexdiv, indexmod, truncdiv,
                  truncmod, floordiv, floormod, min, max)

__all__ = ["var", "size_var", "const", "any", "all", "min_value", "max_value", "exp", "erf",
           "tanh", "sigmoid", "log", "log2", "log10", "sqrt", "rsqrt", "floor", "ceil", "sin",
           "cos", "trunc", "abs", "round", "power", "isnan", "if_then_else", "div", "indexdiv",
           "indexmod", "truncdiv", "truncmod", "floordiv", "floormod", "min", "max"]


def var(name="tindex", dtype="int32", span=None):
    """A scalar tir.Var."""
    return Var(name, dtype, span)


def size_var(name="size", dtype="int32", span=None):
    """A tir.SizeVar: a var known to be non-negative (a shape dimension)."""
    return SizeVar(name, dtype, span)


def const(value, dtype="int32", span=None):
    """tir.const with te's default dtype int32."""
    return _tir_const(value, dtype, span)
