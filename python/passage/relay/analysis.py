"""Passage — tvm.relay.analysis helpers computed from the public C API."""

from ..ir import Expr, Var, Function, Let, _wrap_expr
from .._ffi import lib
from . import type_solver as _type_solver

# TVM's relay.analysis._ffi_api entry for the type solver's tests.
_ffi_api = type("_ffi_api", (), {"_test_type_solver": staticmethod(_type_solver.TypeSolver)})

__all__ = ["free_vars", "bound_vars", "all_vars"]


def _walk(expr):
    """Nodes of the DAG reachable from `expr`, each once (iterative)."""
    seen, order, stack = set(), [], [expr._ptr]
    while stack:
        p = stack.pop()
        if p in seen:
            continue
        seen.add(p)
        order.append(p)
        n = lib.psg_expr_num_children(p)
        for i in reversed(range(n)):
            stack.append(lib.psg_expr_get_child(p, i))
    return order


def _vars(expr):
    bound, used = [], []
    for p in _walk(expr):
        k = lib.psg_expr_kind(p)
        if k == 0:
            used.append(p)
        elif k == 8:
            bound.extend(lib.psg_function_get_param(p, i)
                         for i in range(lib.psg_function_num_params(p)))
        elif k == 6:
            bound.append(lib.psg_let_get_var(p))
    return bound, used


def free_vars(expr):
    """Variables used in `expr` but not bound in it, in first-use order."""
    bound, used = _vars(expr)
    b = set(bound)
    seen, out = set(), []
    for p in used:
        if p not in b and p not in seen:
            seen.add(p)
            out.append(_wrap_expr(p, False))
    return out


def bound_vars(expr):
    bound, _ = _vars(expr)
    seen, out = set(), []
    for p in bound:
        if p not in seen:
            seen.add(p)
            out.append(_wrap_expr(p, False))
    return out


def all_vars(expr):
    bound, used = _vars(expr)
    seen, out = set(), []
    for p in bound + used:
        if p not in seen:
            seen.add(p)
            out.append(_wrap_expr(p, False))
    return out
