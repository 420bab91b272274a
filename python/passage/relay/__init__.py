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

__all__ = ["var", "const", "Var", "GlobalVar", "Constant", "Tuple", "TupleGetItem", "Call", "Let",
           "If", "Function", "Op", "TensorType", "TupleType", "FuncType", "Expr", "IRModule",
           "Type", "TypeVar", "GlobalTypeVar", "IncompleteType", "TypeCall", "RefType", "TypeKind",
           "Any", "ty", "op", "transform", "analysis", "tec", "ScopeBuilder", "ExprVisitor", "ExprMutator"]


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


class ScopeBuilder:
    """TVM's relay.ScopeBuilder: `let` bindings, then `ret`, then `get()`."""

    def __init__(self):
        self._bindings = []
        self._ret = None

    def let(self, name, value):
        v = var(name) if isinstance(name, str) else (var(*name) if isinstance(name, tuple) else name)
        self._bindings.append((v, value))
        return v

    def ret(self, value):
        self._ret = value

    def get(self):
        body = self._ret
        for v, val in reversed(self._bindings):
            body = Let(v, val, body)
        return body


# Operators -------------------------------------------------------------------------------

op = types.ModuleType(__name__ + ".op", "Operators: op.get(name) and one helper per op.")
sys.modules[op.__name__] = op


def _get_op(name):
    """The Op node named `name` (NotFoundError if unknown)."""
    return Op(name)


op.get = _get_op


def _as_input(a):
    if isinstance(a, Expr):
        return a
    if isinstance(a, (list, tuple)) and a and all(isinstance(x, Expr) for x in a):
        return Tuple(list(a))
    return None


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
        return Call(Op(name), inputs, attrs or None)

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

from . import transform  # noqa: E402
from . import analysis  # noqa: E402
from . import tec  # noqa: E402
from .expr_functor import ExprVisitor, ExprMutator  # noqa: E402


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
