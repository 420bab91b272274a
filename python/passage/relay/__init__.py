"""Passage — tvm.relay's Python surface: expression constructors (var,
const, Function, Call, Tuple, TupleGetItem, Let, If, GlobalVar, TensorType)
and one helper per registered operator, generated from the C op table:
`relay.add(x, y)`, `relay.nn.conv2d(data, weight, strides=(1, 1))`.
Positional arguments that are expressions (or lists of expressions, which
become a Tuple) are the inputs; the rest, and keyword arguments, are the
op's attributes in its schema order."""

import sys
import types

from .. import _ffi
from .._ffi import lib, s
from ..ir import (Type, TensorType, TupleType, FuncType, Expr, Var, GlobalVar, Constant, Tuple,
                  TupleGetItem, Call, Let, If, Function, Op, IRModule, Tensor, Attrs)
from ..ir import structural_equal, structural_hash
from ..ir import TypeVar, GlobalTypeVar, IncompleteType, TypeCall, RefType, TypeKind
from ..tir import Any
from . import ty
from .adt import (TypeData, Constructor, Match, Clause, Pattern, PatternWildcard, PatternVar,
                  PatternConstructor, PatternTuple, RefCreate, RefRead, RefWrite)

__all__ = ["var", "const", "bind", "scalar_type", "TupleWrapper", "ExprFunctor", "Var", "GlobalVar", "Constant", "Tuple", "TupleGetItem", "Call", "Let",
           "If", "Function", "Op", "TensorType", "TupleType", "FuncType", "Expr", "IRModule",
           "Type", "TypeVar", "GlobalTypeVar", "IncompleteType", "TypeCall", "RefType", "TypeKind",
           "Any", "ty", "op", "TypeData", "Constructor", "Match", "Clause", "Pattern",
           "PatternWildcard", "PatternVar", "PatternConstructor", "PatternTuple", "RefCreate",
           "RefRead", "RefWrite", "transform", "analysis", "tec", "ScopeBuilder", "ExprVisitor", "ExprMutator"]


def var(name_hint, type_annotation=None, shape=None, dtype="float32", span=None):
    """relay.var(name, type_annotation=None, shape=None, dtype="float32"):
    a type annotation may be a Type or a dtype string; `shape` makes a
    TensorType(shape, dtype)."""
    if type_annotation is not None and shape is not None:
        raise ValueError("Can only specify either type_annotation or shape.")
    if shape is not None:
        type_annotation = TensorType(shape, dtype)
    elif isinstance(type_annotation, str):
        type_annotation = TensorType((), type_annotation)
    return Var(name_hint, type_annotation)


def const(value, dtype=None, span=None):
    """A Constant from a Python scalar, nested lists, a numpy array, a buffer
    (bytes with dtype, memoryview, array.array) or a Tensor. Python ints
    become int32 and floats float32 unless `dtype` says otherwise, as in TVM."""
    if isinstance(value, Constant):
        return value
    if isinstance(value, (bytes, bytearray)) and dtype is not None:
        import struct
        from ..ir import _STRUCT
        fmt = _STRUCT[dtype]
        value = list(struct.unpack("<%d%s" % (len(value) // struct.calcsize(fmt), fmt), value))
    try:
        import numpy as np
        if isinstance(value, np.ndarray) and dtype is None:
            pass
        elif isinstance(value, np.generic) and dtype is None:
            value = np.asarray(value)
    except ImportError:
        pass
    return Constant(Tensor(value, dtype))


def scalar_type(dtype):
    """The type of a scalar of `dtype`: TensorType((), dtype)."""
    return TensorType((), dtype)


class _Scope:
    def __init__(self):
        self.bindings = []
        self.ret = None


class ScopeBuilder:
    """TVM's relay.ScopeBuilder: `let` bindings, then `ret`, then `get()`;
    `with sb.if_scope(cond):` ... `with sb.else_scope():` ... makes an If
    whose branches are the scopes' own lets and ret, and that If is the
    enclosing scope's result."""

    def __init__(self):
        self._scopes = [_Scope()]
        self._pending_if = None     # (cond, true branch) between if_scope and else_scope

    def let(self, name, value):
        v = var(name) if isinstance(name, str) else (var(*name) if isinstance(name, tuple) else name)
        self._scopes[-1].bindings.append((v, value))
        return v

    def ret(self, value):
        if self._scopes[-1].ret is not None:
            raise ValueError("ScopeBuilder: ret was already called in this scope")
        self._scopes[-1].ret = value

    @staticmethod
    def _body(scope, what):
        """The scope's lets around its ret."""
        if scope.ret is None:
            raise ValueError("ScopeBuilder: %s" % what)
        body = scope.ret
        for v, val in reversed(scope.bindings):
            body = Let(v, val, body)
        return body

    def _close(self):
        return self._body(self._scopes.pop(), "a scope ended without ret")

    def if_scope(self, cond):
        import contextlib

        @contextlib.contextmanager
        def scope():
            self._scopes.append(_Scope())
            yield
            self._pending_if = (cond, self._close())
        return scope()

    def else_scope(self):
        import contextlib
        if self._pending_if is None:
            raise ValueError("ScopeBuilder: else_scope must follow an if_scope")

        @contextlib.contextmanager
        def scope():
            cond, then = self._pending_if
            self._pending_if = None
            self._scopes.append(_Scope())
            yield
            self.ret(If(cond, then, self._close()))
        return scope()

    def get(self):
        if len(self._scopes) != 1 or self._pending_if is not None:
            raise ValueError("ScopeBuilder: get() inside an open if/else scope")
        return self._body(self._scopes[0], "get() before ret")


class TupleWrapper:
    """The result of an op with several outputs (tvm.relay.TupleWrapper):
    `w[i]` is a TupleGetItem, `len(w)` and unpacking follow its size, and
    `astuple()` is the tuple-valued expression itself."""

    def __init__(self, tuple_value, size):
        self.tuple_value = tuple_value
        self.size = size

    def astuple(self):
        return self.tuple_value

    def astext(self):
        return self.tuple_value.astext()

    def __getitem__(self, index):
        if index >= len(self):
            raise IndexError("Tuple index out of range")
        return TupleGetItem(self.tuple_value, index)

    def __len__(self):
        return self.size

    def __repr__(self):
        return "TupleWrapper(%r, %d)" % (self.tuple_value, self.size)

    def astype(self, _):
        raise TypeError("astype cannot be used on a tuple")


# Operators -------------------------------------------------------------------------------

op = types.ModuleType(__name__ + ".op", "Operators: op.get(name) and one helper per op.")
sys.modules[op.__name__] = op


def _get_op(name):
    """The Op node named `name` (NotFoundError if unknown)."""
    return Op(name)


op.get = _get_op


class OpPattern:
    """TVM's operator fusion patterns (relay.op.OpPattern), as psg_op_pattern
    numbers them."""
    ELEMWISE = 0
    BROADCAST = 1
    INJECTIVE = 2
    COMM_REDUCE = 3
    OUT_ELEMWISE_FUSABLE = 4
    TUPLE = 7
    OPAQUE = 8


def _op_pattern(name):
    """The fusion pattern of the op `name` (an OpPattern number; -1 for an
    op with no behaviour registered)."""
    i = lib.psg_op_find(name.encode(), len(name.encode()))
    if i < 0:
        from ..error import NotFoundError
        raise NotFoundError("unknown op %r" % (name,))
    return lib.psg_op_pattern(i)


op.OpPattern = OpPattern
op.get_pattern = _op_pattern
# tvm.relay.op.op: where TVM keeps get and OpPattern (`from tvm.relay.op import op as _op`).
op.op = types.ModuleType(op.__name__ + ".op", "tvm.relay.op.op: op.get and OpPattern.")
op.op.get, op.op.OpPattern = _get_op, OpPattern
sys.modules[op.op.__name__] = op.op


def _as_input(a):
    if isinstance(a, Expr):
        return a
    if isinstance(a, TupleWrapper):
        return a.astuple()
    if isinstance(a, (list, tuple)) and a and all(isinstance(x, Expr) for x in a):
        return Tuple(list(a))
    return None


# TVM's names for op inputs, by position, so that a helper can take its
# inputs by keyword (`nn.conv2d(data=x, weight=w)`). An op not listed takes
# `data` for a single input and lhs/rhs for two.
_INPUT_NAMES = {
    "nn.conv1d": ("data", "weight"), "nn.conv2d": ("data", "weight"), "nn.conv3d": ("data", "weight"),
    "nn.conv2d_transpose": ("data", "weight"), "nn.conv1d_transpose": ("data", "weight"),
    "nn.dense": ("data", "weight"), "nn.matmul": ("tensor_a", "tensor_b"),
    "nn.batch_matmul": ("tensor_a", "tensor_b"), "nn.bias_add": ("data", "bias"),
    "nn.batch_norm": ("data", "gamma", "beta", "moving_mean", "moving_var"),
    "nn.layer_norm": ("data", "gamma", "beta"), "nn.instance_norm": ("data", "gamma", "beta"),
    "nn.group_norm": ("data", "gamma", "beta"), "nn.prelu": ("data", "alpha"),
    "take": ("data", "indices"), "gather": ("data", "indices"), "gather_nd": ("data", "indices"),
    "where": ("condition", "x", "y"), "nn.pad": ("data", "pad_value"),
    "reshape_like": ("data", "shape_like"), "broadcast_to_like": ("data", "broadcast_type"),
    "collapse_sum_like": ("data", "collapse_type"), "layout_transform": ("data",),
    "one_hot": ("indices", "on_value", "off_value"), "scatter": ("data", "indices", "updates"),
    "scatter_elements": ("data", "indices", "updates"), "scatter_nd": ("data", "indices", "updates"),
}

# Ops with several outputs: the helper returns a TupleWrapper of this size
# (a function of the attributes where the count depends on them).
_TUPLE_OUTPUTS = {
    "nn.batch_norm": lambda attrs: 3,
    "nn.dropout": lambda attrs: 2,
    "split": lambda attrs: (attrs.get("indices_or_sections")
                            if isinstance(attrs.get("indices_or_sections"), int)
                            else len(attrs.get("indices_or_sections") or ()) + 1),
    "topk": lambda attrs: 2 if attrs.get("ret_type", "both") == "both" else None,
}


def _make_helper(name, index):
    attr_names = [s(lib.psg_op_attr_name(index, j)) for j in range(lib.psg_op_num_attrs(index))]
    short = name.rsplit(".", 1)[-1]

    def helper(*args, **kwargs):
        inputs, extra = [], []
        for a in args:
            e = None if extra else _as_input(a)
            if e is None:
                extra.append(a)
            else:
                inputs.append(e)
        named = {k: kwargs.pop(k) for k in list(kwargs)
                 if k not in attr_names and _as_input(kwargs[k]) is not None}
        if named:
            known = _INPUT_NAMES.get(name) or (("data",) if len(inputs) + len(named) == 1
                                               else ("lhs", "rhs"))
            for k, v in named.items():
                if k not in known:
                    raise TypeError("%s() got an unexpected argument %r (inputs: %s; attributes: %s)"
                                    % (name, k, ", ".join(known), ", ".join(attr_names) or "none"))
            for pos, k in enumerate(known):
                if k in named:
                    if pos < len(inputs):
                        raise TypeError("%s() got multiple values for input %r" % (name, k))
                    if pos > len(inputs):
                        raise TypeError("%s(): input %r given without the ones before it (%s)"
                                        % (name, k, ", ".join(known[:pos])))
                    inputs.append(_as_input(named.pop(k)))
        if len(extra) > len(attr_names):
            raise TypeError("%s() takes %d attribute(s) %s, got %d positional non-expression "
                            "argument(s)" % (name, len(attr_names), attr_names, len(extra)))
        attrs = dict(zip(attr_names, extra))
        for k, v in kwargs.items():
            if k not in attr_names:
                raise TypeError("%s() got an unexpected attribute %r (accepted: %s)"
                                % (name, k, ", ".join(attr_names) or "none"))
            if k in attrs:
                raise TypeError("%s() got multiple values for attribute %r" % (name, k))
            attrs[k] = v
        if name == "nn.pad" and len(inputs) == 1:  # TVM's helper: pad_value=0, a constant
            inputs.append(const(0))
        result = Call(Op(name), inputs, attrs or None)
        size = _TUPLE_OUTPUTS[name](attrs) if name in _TUPLE_OUTPUTS else None
        if size is None:
            return result
        wrapper = TupleWrapper(result, size)
        # TVM's nn.dropout helper gives the output alone (the mask is internal).
        return wrapper[0] if name == "nn.dropout" else wrapper

    helper.__name__ = helper.__qualname__ = short
    doc = s(lib.psg_op_doc(index)) or ""
    helper.__doc__ = "%s: %s\n\nAttributes: %s" % (name, doc, ", ".join(attr_names) or "none")
    return helper


def _namespace(root, path):
    """The (sub)module of `root` for a dotted op prefix, made on demand."""
    mod = root
    for part in path:
        sub = getattr(mod, part, None)
        if not isinstance(sub, types.ModuleType):
            sub = types.ModuleType(mod.__name__ + "." + part)
            sys.modules[sub.__name__] = sub
            setattr(mod, part, sub)
        mod = sub
    return mod


def _install_ops():
    this = sys.modules[__name__]
    for i in range(lib.psg_op_count()):
        name = s(lib.psg_op_name_at(i))
        parts = name.split(".")
        helper = _make_helper(name, i)
        for root in (this, op):
            ns = _namespace(root, parts[:-1])
            # Never shadow a constructor, submodule or op.get.
            if not hasattr(ns, parts[-1]):
                setattr(ns, parts[-1], helper)


_install_ops()
reverse_reshape = op.reverse_reshape = contrib_reverse_reshape  # noqa: F821 (TVM's Python name)


def _static_broadcast_to(helper):
    def broadcast_to(data, shape=None):
        """broadcast_to(data, shape): TVM's helper reads a Constant shape into
        the static `shape` attribute (only a shape computed at run time makes
        TVM's dyn.broadcast_to, which Passage does not have)."""
        if isinstance(shape, Constant):
            shape = [int(v) for v in shape.data.numpy().reshape(-1)]
        elif isinstance(shape, int):
            shape = [shape]
        return helper(data) if shape is None else helper(data, shape)
    return broadcast_to


broadcast_to = op.broadcast_to = _static_broadcast_to(broadcast_to)  # noqa: F821

from . import transform  # noqa: E402
from . import analysis  # noqa: E402
from . import tec  # noqa: E402
from .expr_functor import ExprFunctor, ExprVisitor, ExprMutator  # noqa: E402
from . import op_attr  # noqa: E402  (op.register_legalize, Op.set_attr, ...)
from . import op_registry  # noqa: E402  (op.op.register, Op.add_type_rel, ...)
from .ty import TypeRelation  # noqa: E402
from . import base  # noqa: E402
from .base import Span  # noqa: E402
op.const = const  # tvm.relay.op.const, the same helper
from .type_functor import TypeFunctor, TypeVisitor, TypeMutator  # noqa: E402
from . import testing  # noqa: E402
from . import build_module  # noqa: E402
from . import prelude  # noqa: E402  (relay.prelude, as TVM's package imports it)



def bind(expr, binds):
    """`expr` with the variables of `binds` ({Var: Expr}) replaced (TVM's
    relay.bind); a Function also loses the parameters that are bound."""
    from .expr_functor import ExprMutator

    class Bind(ExprMutator):
        def visit_var(self, v):
            return binds.get(v, v)

    if isinstance(expr, Function):
        attrs = expr.attrs
        return Function([p for p in expr.params if p not in binds], Bind().visit(expr.body),
                        expr.ret_type, attrs=dict(attrs.items()) if attrs else None)
    return Bind().visit(expr)


# tvm.relay.scope_builder, the module TVM keeps ScopeBuilder in.
scope_builder = types.ModuleType(__name__ + ".scope_builder", "tvm.relay.scope_builder")
scope_builder.ScopeBuilder = ScopeBuilder
sys.modules[scope_builder.__name__] = scope_builder

# tvm.relay.expr: the expression constructors under their module's name.
expr = types.ModuleType(__name__ + ".expr", "tvm.relay.expr: the expression classes and helpers.")
sys.modules[expr.__name__] = expr
for _name in ("var", "const", "Expr", "Var", "GlobalVar", "Constant", "Tuple", "TupleGetItem", "Call",
              "Let", "If", "Function", "TupleWrapper", "RefCreate", "RefRead", "RefWrite"):
    setattr(expr, _name, globals()[_name])


def parse(source, source_name="from_string", init_module=None, init_meta_table=None):
    """tvm.relay.parse: Relay text (it may hold @T.prim_func blocks,
    docs/text-format.md) as an IRModule, type-checked as TVM's parser does
    (InferType). With init_module, the text is parsed into a copy of it;
    init_meta_table {"relay.Constant": [constants]} extends the text's
    metadata section (its indexes follow the section's own)."""
    from .. import parse as _parse
    table = dict(init_meta_table or {})
    consts = list(table.pop("relay.Constant", []))
    if table:
        from ..error import UnsupportedError
        raise UnsupportedError("relay.parse: init_meta_table holds only relay.Constant entries here, not %s"
                               % ", ".join(sorted(table)))
    mod = _parse(source, source_name, init_module, consts)
    # A module with PrimFunc blocks (Passage's mixed text; TVM's parser reads
    # none) is returned as parsed: a Relay call of a PrimFunc is not typable.
    if any(type(mod[g]).__name__ == "PrimFunc" for g in mod.get_global_vars()):
        return mod
    return transform.InferType()(mod)


def parse_expr(source):
    """tvm.relay.parse_expr: one expression (free_var declarations, bindings,
    lets; no type checking, as TVM)."""
    from .. import parse_expr as _parse_expr
    return _parse_expr(source, "string")


def fromtext(source, source_name="from_string"):
    """tvm.relay.fromtext: the same as parse."""
    return parse(source, source_name)
