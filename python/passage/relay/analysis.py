"""Passage — tvm.relay.analysis helpers computed from the public C API."""

from ..ir import Expr, Var, Function, Let, _wrap_expr
from .._ffi import lib
from . import type_solver as _type_solver

# TVM's relay.analysis._ffi_api entry for the type solver's tests.
_ffi_api = type("_ffi_api", (), {"_test_type_solver": staticmethod(_type_solver.TypeSolver)})

__all__ = ["free_vars", "bound_vars", "all_vars", "Feature", "detect_feature",
           "check_basic_block_normal_form", "free_type_vars", "bound_type_vars", "all_type_vars",
           "check_kind", "CallGraph", "unmatched_cases", "well_formed", "post_order_visit"]


def well_formed(expr):
    """No variable bound twice, none used outside its scope (relay/adt.py)."""
    from .adt import well_formed as _well_formed
    return _well_formed(expr)


def unmatched_cases(match, mod=None):
    """The patterns no clause of `match` handles (relay/adt.py)."""
    from .adt import unmatched_cases as _unmatched
    return _unmatched(match, mod)


def _dag(roots, children):
    """Nodes reachable from `roots` through `children(node)`, each once, in
    depth-first preorder (iterative)."""
    seen, order, stack = set(), [], list(reversed(roots))
    while stack:
        p = stack.pop()
        if p in seen:
            continue
        seen.add(p)
        order.append(p)
        stack.extend(reversed(children(p)))
    return order


def _walk(expr):
    """Nodes of the DAG reachable from `expr`, each once."""
    return _dag([expr._ptr], lambda p: [lib.psg_expr_get_child(p, i)
                                        for i in range(lib.psg_expr_num_children(p))])


def post_order_visit(expr, fvisit):
    """Calls fvisit on every node reachable from `expr` (ops included), each
    once, children before their parent, as TVM's ExprApplyVisit (iterative)."""
    seen, stack = set(), [(expr._ptr, False)]
    while stack:
        p, done = stack.pop()
        if done:
            fvisit(_wrap_expr(p, False))
            continue
        if p in seen:
            continue
        seen.add(p)
        stack.append((p, True))
        n = lib.psg_expr_num_children(p)
        stack.extend((lib.psg_expr_get_child(p, i), False) for i in reversed(range(n)))


def _vars(expr):
    """The variables of `expr` in TVM's VarVisitor order (a binder's
    variables where it binds them, before what they scope over: they are
    its children, visited in pre-order), and the set of those bound."""
    order, bound = [], set()
    for p in _walk(expr):
        k = lib.psg_expr_kind(p)
        if k == 0:
            order.append(p)
        elif k == 8:
            bound.update(lib.psg_function_get_param(p, i)
                         for i in range(lib.psg_function_num_params(p)))
        elif k == 6:
            bound.add(lib.psg_let_get_var(p))
        elif k == 11:  # Match: its patterns' variables (relay/adt.py)
            from .adt import match_vars
            bound.update(match_vars(p))
    return order, bound


def free_vars(expr):
    """Variables used in `expr` but not bound in it, in first-use order."""
    order, bound = _vars(expr)
    return [_wrap_expr(p, False) for p in order if p not in bound]


def bound_vars(expr):
    """Variables bound in `expr`, in the order their binders bind them."""
    order, bound = _vars(expr)
    return [_wrap_expr(p, False) for p in order if p in bound]


def all_vars(expr):
    """Every variable of `expr`, bound where bound, free at first use."""
    order, _ = _vars(expr)
    return [_wrap_expr(p, False) for p in order]


# Feature detection (tvm.relay.analysis.detect_feature) --------------------------------

import enum as _enum


class Feature(_enum.IntEnum):
    """The language features a Relay program uses (TVM's numbering)."""
    fVar = 0
    fGlobalVar = 1
    fConstant = 2
    fTuple = 3
    fTupleGetItem = 4
    fFunction = 5
    fOp = 6
    fCall = 7
    fLet = 8
    fIf = 9
    fRefCreate = 10
    fRefRead = 11
    fRefWrite = 12
    fConstructor = 13
    fMatch = 14
    fGraph = 15   # a non-atomic node used more than once (a graph, not a tree)
    fLetRec = 16  # a let whose value refers to its own variable


# C expression kinds (include/passage/ir.h) -> features.
_KIND_FEATURE = {0: Feature.fVar, 1: Feature.fGlobalVar, 2: Feature.fConstant, 3: Feature.fTuple,
                 4: Feature.fTupleGetItem, 5: Feature.fCall, 6: Feature.fLet, 7: Feature.fIf,
                 8: Feature.fFunction, 9: Feature.fOp}
_ATOMIC = (0, 1, 2, 9)  # Var, GlobalVar, Constant, Op


def _is_primitive(p):
    attrs = _wrap_expr(p, False).attrs
    return bool(attrs and attrs.get("Primitive"))


def _expr_features(expr):
    """Features of one expression: each node reached once more through
    another edge is fGraph unless it is atomic; a primitive function's body
    is not looked into (it is an operator, as in TVM)."""
    found, seen, stack = set(), set(), [expr._ptr]
    while stack:
        p = stack.pop()
        kind = lib.psg_expr_kind(p)
        if p in seen:
            if kind not in _ATOMIC:
                found.add(Feature.fGraph)
            continue
        seen.add(p)
        found.add(_KIND_FEATURE[kind])
        if kind == 8 and _is_primitive(p):
            continue
        if kind == 6:
            v = lib.psg_let_get_var(p)
            if any(f._ptr == v for f in free_vars(_wrap_expr(lib.psg_let_get_value(p), False))):
                found.add(Feature.fLetRec)
        for i in range(lib.psg_expr_num_children(p)):
            stack.append(lib.psg_expr_get_child(p, i))
    return found


def detect_feature(a, b=None):
    """The set of Features used by an expression and/or a module (either
    argument may be either; a module's Relay functions are all looked at)."""
    from ..ir import IRModule
    if isinstance(a, IRModule):
        a, b = b, a
    found = set()
    if a is not None:
        found |= _expr_features(a)
    if b is not None:
        for gv in b.get_global_vars():
            f = b[gv]
            if isinstance(f, Expr):
                found |= _expr_features(f)
    return found


# Basic block normal form -------------------------------------------------------------

def check_basic_block_normal_form(expr):
    """True when `expr` is in basic block normal form: every expression used
    from more than one scope (both branches of an If, a function body and its
    surroundings) is let-bound where it dominates its uses. Decided by
    Passage's ToBasicBlockNormalForm, which binds exactly those: `expr` is in
    the form when the pass leaves it unchanged. Otherwise raises TVMError
    naming the expression, as TVM does."""
    from ..ir import IRModule, structural_equal
    from ..error import TVMError
    from .transform import ToBasicBlockNormalForm
    mod = IRModule.from_expr(expr)
    after = ToBasicBlockNormalForm()(mod)
    if structural_equal(after["main"], mod["main"]):
        return True
    raise TVMError("The expression below violates the basic block normal form in that its scope "
                   "should be lifted (ToBasicBlockNormalForm would let-bind it):\n%s"
                   % after["main"].astext())


# Type variables ----------------------------------------------------------------------

_TYPE_TUPLE, _TYPE_FUNC, _TYPE_VAR, _TYPE_CALL, _TYPE_REF = 2, 3, 4, 6, 7


def _type_children(t):
    """The types directly inside `t` (include/passage/type.h kinds)."""
    kind = lib.psg_type_kind(t)
    if kind == _TYPE_TUPLE:
        return [lib.psg_type_field(t, i) for i in range(lib.psg_type_num_fields(t))]
    if kind == _TYPE_FUNC:
        return [lib.psg_type_func_type_param(t, i)
                for i in range(lib.psg_type_func_num_type_params(t))] + \
            [lib.psg_type_field(t, i) for i in range(lib.psg_type_num_fields(t))] + \
            [lib.psg_type_func_ret(t)]
    if kind == _TYPE_CALL:
        return [lib.psg_type_call_func(t)] + \
            [lib.psg_type_field(t, i) for i in range(lib.psg_type_num_fields(t))]
    if kind == _TYPE_REF:
        return [lib.psg_type_ref_value(t)]
    return []


def _type_vars(expr):
    """(all, bound) type variables of `expr` (an Expr or a Type), each in
    first-met order, as TVM's TypeVarEVisitor collects them: from the
    annotations of variables, functions' return types and type parameters
    (bound), and the type parameters of function types (bound); checked
    types are not looked at, as in TVM."""
    from ..ir import Type, _wrap_type
    roots, bound = [], []
    if isinstance(expr, Type):
        roots.append(expr._ptr)
    else:
        for p in _walk(expr):
            kind = lib.psg_expr_kind(p)
            if kind == 0 and lib.psg_var_type(p):
                roots.append(lib.psg_var_type(p))
            if kind == 8:
                tps = [lib.psg_function_type_param(p, i)
                       for i in range(lib.psg_function_num_type_params(p))]
                bound.extend(tps)
                roots.extend(tps)
                if lib.psg_function_ret_type(p):
                    roots.append(lib.psg_function_ret_type(p))
    every = []
    for t in _dag(roots, _type_children):
        if lib.psg_type_kind(t) == _TYPE_VAR:
            every.append(t)
        elif lib.psg_type_kind(t) == _TYPE_FUNC:
            bound.extend(lib.psg_type_func_type_param(t, i)
                         for i in range(lib.psg_type_func_num_type_params(t)))
    seen, bound_once = set(), []
    for t in bound:
        if t not in seen:
            seen.add(t)
            bound_once.append(t)
    return [_wrap_type(t) for t in every], [_wrap_type(t) for t in bound_once], set(bound_once)


def free_type_vars(expr, mod=None):
    """Type variables used in `expr` (an Expr or a Type) and not bound in it."""
    every, _, bound = _type_vars(expr)
    return [t for t in every if t._ptr not in bound]


def bound_type_vars(expr, mod=None):
    """Type variables `expr` binds: functions' and function types' type parameters."""
    return _type_vars(expr)[1]


def all_type_vars(expr, mod=None):
    """Every type variable of `expr`, bound or free."""
    return _type_vars(expr)[0]


# Kind checking and the call graph (include/passage/analysis.h) -----------------------

import ctypes as _ctypes

from .. import _ffi
from .._ffi import P as _P, I as _I, Z as _Z, B as _B, PP as _PP, CTX as _CTX

_PROTOS = {
    "psg_type_check_kind_in": (_I, [_P, _P, _P, _ctypes.POINTER(_I)]),
    "psg_type_relation_check_kind_in": (_I, [_P, _PP, _I, _P, _ctypes.POINTER(_I)]),
    "psg_call_graph_create": (_I, [_P, _ctypes.POINTER(_P)]),
    "psg_call_graph_free": (None, [_P]),
    "psg_call_graph_get_module": (_P, [_P]),
    "psg_call_graph_find": (_ctypes.c_ssize_t, [_P, _ctypes.c_char_p]),
    "psg_call_graph_ref_count": (_Z, [_P, _Z]),
    "psg_call_graph_call_count": (_Z, [_P, _Z]),
    "psg_call_graph_is_recursive": (_B, [_P, _Z]),
    "psg_call_graph_print_entry": (_I, [_P, _Z, _ctypes.POINTER(_P)]),
    "psg_call_graph_print": (_I, [_P, _ctypes.POINTER(_P)]),
}
for _name, (_res, _args) in _PROTOS.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


def check_kind(t, mod=None):
    """tvm.relay.analysis.check_kind: the TypeKind of `t` (a type or a
    TypeRelation) once its parts are checked to be well kinded (a tuple's
    fields, a function type's arguments, result and constraints, ...); a
    mistake raises TVMError (PassTypeError) naming the part. A TypeCall's
    ADT is looked up in `mod` (its arity checked); without a module every
    TypeCall is undefined, as in TVM."""
    from ..ir import FuncType
    from .type_solver import TypeRelation
    kind = _I()
    mod_ptr = mod._ptr if mod is not None else None
    if isinstance(t, TypeRelation):
        args = _ffi.ptr_array([a._ptr for a in t.args])
        _ffi.call(lib.psg_type_relation_check_kind_in, _CTX, args, len(t.args), mod_ptr, _ctypes.byref(kind),
                  what="check_kind")
        return kind.value
    _ffi.call(lib.psg_type_check_kind_in, _CTX, t._ptr, mod_ptr, _ctypes.byref(kind), what="check_kind")
    if isinstance(t, FuncType):
        for c in t.type_constraints:
            if check_kind(c, mod) != 4:  # TypeKind.Constraint
                raise _ffi._err.PassTypeError("Incorrect kind for a function type constraint: %s" % (c,))
    return kind.value


class CallGraph:
    """tvm.relay.analysis.CallGraph(module): which global functions each one
    references, counted by the C call graph."""

    def __init__(self, module):
        out = _P()
        _ffi.call(lib.psg_call_graph_create, module._ptr, _ctypes.byref(out), what="CallGraph")
        self._ptr = out.value

    def __del__(self):
        ptr, self._ptr = getattr(self, "_ptr", None), None
        if ptr:
            lib.psg_call_graph_free(ptr)

    @property
    def module(self):
        """The module the graph was built from (as it was then)."""
        from ..ir import IRModule
        return IRModule._borrow(lib.psg_call_graph_get_module(self._ptr))

    def _entry(self, var):
        from ..ir import GlobalVar
        if isinstance(var, GlobalVar):
            var = var.name_hint
        if not isinstance(var, str):
            raise TypeError("var should be either a string or GlobalVar")
        i = lib.psg_call_graph_find(self._ptr, _ffi.enc(var))
        if i < 0:
            raise _ffi._err.NotFoundError("GlobalVar %s not found in the call graph!" % var)
        return i

    def ref_count(self, var):
        """How many global functions reference `var` (a GlobalVar or name)."""
        return lib.psg_call_graph_ref_count(self._ptr, self._entry(var))

    def global_call_count(self, var):
        """How many globals the function `var` calls."""
        return lib.psg_call_graph_call_count(self._ptr, self._entry(var))

    def is_recursive(self, var):
        return bool(lib.psg_call_graph_is_recursive(self._ptr, self._entry(var)))

    def print_var(self, var):
        out = _P()
        _ffi.call(lib.psg_call_graph_print_entry, self._ptr, self._entry(var), _ctypes.byref(out),
                  what="CallGraph.print_var")
        return _ffi.take_string(out.value)

    def __str__(self):
        out = _P()
        _ffi.call(lib.psg_call_graph_print, self._ptr, _ctypes.byref(out), what="CallGraph")
        return _ffi.take_string(out.value)
