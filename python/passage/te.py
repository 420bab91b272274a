"""Passage — passage.te, the part of TVM's tvm.te that is plain TIR: scalar
variables and constants, thread axes, and the TIR operator functions tvm.te
re-exports (te.min, te.floordiv, ...), so TVM code that builds index
expressions through te runs. The tensor-expression language itself (te.placeholder, te.compute,
te.create_schedule, reduce_axis) comes with the lowering of Relay into TIR
(the next issue) and is not here."""

from .tir import (Var, SizeVar, const as _tir_const, any, all, min_value, max_value, exp, erf,
                  tanh, sigmoid, log, log2, log10, sqrt, rsqrt, floor, ceil, sin, cos, trunc,
                  abs, round, power, isnan, if_then_else, div, indexdiv, indexmod, truncdiv,
                  truncmod, floordiv, floormod, min, max)

__all__ = ["var", "size_var", "const", "thread_axis", "any", "all", "min_value", "max_value", "exp", "erf",
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


def thread_axis(dom=None, tag="", name="", span=None):
    """A thread index IterVar, as tvm.te.thread_axis: `thread_axis("threadIdx.x")`
    or `thread_axis((0, 256), "threadIdx.x")`; its var is named after the tag
    unless `name` is given."""
    from .tir import IterVar
    if isinstance(dom, str):
        tag, dom = dom, None
    if not tag:
        raise ValueError("tag must be given as Positional or keyword argument")
    return IterVar(dom, name if name else tag, IterVar.ThreadIndex, tag)
