"""Passage — TIR expressions (tvm.tir.expr): one class per PrimExpr kind,
with TVM's Python operators. `a + b` goes through the C operators of
include/passage/tir_op.h, which match dtypes and fold constants exactly as
TVM's tir/op.cc does; the class constructors (`tir.Add(a, b)`) build the
node as given, as TVM's do."""

import ctypes

from .. import _ffi
from .._ffi import lib, CTX, call, enc, s
from ..ir import _Owned
from . import _api
from ._api import register, new, borrowed, dtype_code, dtype_name

__all__ = ["PrimExpr", "Var", "SizeVar", "IntImm", "FloatImm", "StringImm", "Cast", "Add", "Sub",
           "Mul", "Div", "Mod", "FloorDiv", "FloorMod", "Min", "Max", "EQ", "NE", "LT", "LE", "GT",
           "GE", "And", "Or", "Not", "Select", "Ramp", "Broadcast", "Let", "BufferLoad", "Call",
           "EqualOp", "NotEqualOp", "const", "convert"]


class Node(_Owned):
    """Base of every TIR object: owns one C reference."""
    __slots__ = ()
    _retain = staticmethod(lambda p: lib.psg_tir_retain(p))
    _release = staticmethod(lambda p: lib.psg_tir_release(p))

    @property
    def span(self):
        sp = _ffi.Span()
        lib.psg_tir_span(self._ptr, ctypes.byref(sp))
        from ..ir import Span
        return Span(s(sp.file), sp.line, sp.end_line, sp.col, sp.end_col) if sp.line else None

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, str(self))

    def __str__(self):
        from . import _printing
        return _printing.show(self)


def _span_ptr(span):
    return None


class ExprOp:
    """TVM's ExprOp: the Python operators of PrimExpr (and of EqualOp)."""
    __slots__ = ()

    def __add__(self, o): return _binop(_api.ADD, self, o)
    def __radd__(self, o): return _binop(_api.ADD, o, self)
    def __sub__(self, o): return _binop(_api.SUB, self, o)
    def __rsub__(self, o): return _binop(_api.SUB, o, self)
    def __mul__(self, o): return _binop(_api.MUL, self, o)
    def __rmul__(self, o): return _binop(_api.MUL, o, self)

    def __truediv__(self, o):
        _check_div(self, o)
        return _binop(_api.DIV, self, o)

    def __rtruediv__(self, o):
        _check_div(o, self)
        return _binop(_api.DIV, o, self)

    def __floordiv__(self, o): return _binop(_api.FLOOR_DIV, self, o)
    def __rfloordiv__(self, o): return _binop(_api.FLOOR_DIV, o, self)
    def __mod__(self, o): return _binop(_api.FLOOR_MOD, self, o)
    def __rmod__(self, o): return _binop(_api.FLOOR_MOD, o, self)

    def __lshift__(self, o): return _bitop("tir.shift_left", self, o)
    def __rlshift__(self, o): return _bitop("tir.shift_left", o, self)
    def __rshift__(self, o): return _bitop("tir.shift_right", self, o)
    def __rrshift__(self, o): return _bitop("tir.shift_right", o, self)
    def __and__(self, o): return _bitop("tir.bitwise_and", self, o)
    def __rand__(self, o): return _bitop("tir.bitwise_and", o, self)
    def __or__(self, o): return _bitop("tir.bitwise_or", self, o)
    def __ror__(self, o): return _bitop("tir.bitwise_or", o, self)
    def __xor__(self, o): return _bitop("tir.bitwise_xor", self, o)
    def __rxor__(self, o): return _bitop("tir.bitwise_xor", o, self)
    def __invert__(self): return Call(self.dtype, "tir.bitwise_not", [self])

    def __neg__(self):
        # TVM: self * const(-1, dtype).
        return _binop(_api.MUL, self, const(-1, self.dtype))

    def __lt__(self, o): return _binop(_api.LT, self, o)
    def __le__(self, o): return _binop(_api.LE, self, o)
    def __gt__(self, o): return _binop(_api.GT, self, o)
    def __ge__(self, o): return _binop(_api.GE, self, o)
    def __eq__(self, o): return EqualOp(self, o)
    def __ne__(self, o): return NotEqualOp(self, o)

    def __bool__(self):
        raise ValueError("Cannot use and / or / not operator to Expr, hint: "
                         "use tvm.tir.all / tvm.tir.any instead")

    def equal(self, other, span=None):
        return _binop(_api.EQ, self, other)

    def astype(self, dtype, span=None):
        return _cast(dtype, self)


class PrimExpr(ExprOp, Node):
    """Base of the TIR expressions (tvm.tir.PrimExpr)."""
    __slots__ = ()
    __hash__ = Node.__hash__

    @property
    def dtype(self):
        return dtype_name(lib.psg_tir_dtype_of(self._ptr))


def _check_div(a, b):
    def is_int(x):
        if isinstance(x, PrimExpr):
            t = lib.psg_tir_dtype_of(x._ptr)
            return lib.psg_tir_dtype_is_int(t) or lib.psg_tir_dtype_is_uint(t)
        return isinstance(x, int)
    if is_int(a) and is_int(b):
        raise RuntimeError("TVM supports multiple types of integer divisions, please call div, "
                           "indexdiv/indexmod, floordiv/floormod  or truncdiv/truncmod directly "
                           "to avoid ambiguity in the code.")


class EqualOp(ExprOp):
    """`a == b` on PrimExprs: a node when used as one, identity in `bool()`
    (so PrimExprs work as dict keys), as TVM's EqualOp."""
    __slots__ = ("a", "b")
    _kind = _api.EQ

    def __init__(self, a, b, span=None):
        self.a, self.b = a, b

    def __bool__(self):
        a, b = self.a, self.b
        if isinstance(a, Node) and isinstance(b, Node):
            return a.same_as(b)
        return a is b

    def asobject(self):
        return _binop(self._kind, self.a, self.b)

    @property
    def dtype(self):
        return "bool"

    def __hash__(self):
        return hash((self._kind, id(self.a), id(self.b)))


class NotEqualOp(EqualOp):
    __slots__ = ()
    _kind = _api.NE

    def __bool__(self):
        return not EqualOp.__bool__(self)


# Conversion ---------------------------------------------------------------------------

def convert(value):
    """A PrimExpr for a Python value (TVM's runtime.convert on scalars): int ->
    int32 (int64 when it does not fit), float -> float32, bool -> bool."""
    if isinstance(value, PrimExpr):
        return value
    if isinstance(value, EqualOp):
        return value.asobject()
    if hasattr(value, "_as_prim_expr"):  # an IterVar is its var in expressions, as in TVM
        return value._as_prim_expr()
    if isinstance(value, bool):
        return IntImm("bool", int(value))
    if isinstance(value, int):
        return IntImm("int32" if -2**31 <= value < 2**31 else "int64", value)
    if isinstance(value, float):
        return FloatImm("float32", value)
    if isinstance(value, str):
        return StringImm(value)
    if hasattr(value, "dtype") and hasattr(value, "item"):  # a numpy scalar
        return const(value.item(), str(value.dtype))
    raise TypeError("cannot convert %r to a PrimExpr" % (value,))


def _binop(kind, a, b):
    a, b = convert(a), convert(b)
    return new(lib.psg_tir_op_binary, kind, a._ptr, b._ptr, None,
               what=lib.psg_tir_kind_name(kind).decode())


def _bitop(name, a, b):
    """TVM's bit operators on PrimExprs: a call of the tir op, a Python int
    taking the other operand's dtype."""
    if not isinstance(a, ExprOp):
        a = const(a, b.dtype) if isinstance(a, int) and not isinstance(a, bool) else convert(a)
    if not isinstance(b, ExprOp):
        b = const(b, a.dtype) if isinstance(b, int) and not isinstance(b, bool) else convert(b)
    return Call(a.dtype, name, [a, b])


def _cast(dtype, value):
    value = convert(value)
    return new(lib.psg_tir_op_cast, dtype_code(dtype), value._ptr, None, what="cast")


def const(value, dtype=None, span=None):
    """tvm.tir.const: an immediate (folded make_const; a vector dtype broadcasts)."""
    if dtype is None:
        if isinstance(value, bool):
            dtype = "bool"
        elif isinstance(value, int):
            dtype = "int32" if -2**31 <= value < 2**31 else "int64"
        else:
            dtype = "float32"
    code = dtype_code(dtype)
    if isinstance(value, float) or lib.psg_tir_dtype_is_float(code):
        return new(lib.psg_tir_make_const_float, code, float(value), None, what="const")
    return new(lib.psg_tir_make_const_int, code, int(value), None, what="const")


def _expr(x):
    return convert(x)


def _child(getter):
    return property(lambda self: borrowed(getter(self._ptr)))


# Leaves ------------------------------------------------------------------------------

@register(_api.VAR)
class Var(PrimExpr):
    """Var(name, dtype): dtype a name ("int32"), or a PrimType / PointerType."""
    __slots__ = ()

    def __new__(cls, name, dtype="int32", span=None):
        from .types import PrimType, PointerType
        if isinstance(dtype, PointerType):
            return new(lib.psg_tir_var_create, enc(name), dtype_code("handle"), dtype._ptr, None,
                       what="Var")
        if isinstance(dtype, PrimType):
            dtype = dtype.dtype
        return new(lib.psg_tir_var_create, enc(name), dtype_code(dtype), None, None, what="Var")

    def __init__(self, *a, **k):
        pass

    @property
    def name(self):
        return s(lib.psg_tir_var_name(self._ptr))

    name_hint = name

    @property
    def type_annotation(self):
        return borrowed(lib.psg_tir_var_get_type(self._ptr))


@register(_api.SIZE_VAR)
class SizeVar(Var):
    """SizeVar(name, dtype): a var known to be >= 0."""
    __slots__ = ()

    def __new__(cls, name, dtype="int32", span=None):
        return new(lib.psg_tir_size_var_create, enc(name), dtype_code(dtype), None, what="SizeVar")


@register(_api.INT_IMM)
class IntImm(PrimExpr):
    """IntImm(dtype, value)."""
    __slots__ = ()

    def __new__(cls, dtype, value, span=None):
        return new(lib.psg_tir_int_imm_create, dtype_code(dtype), int(value), None, what="IntImm")

    def __init__(self, *a, **k):
        pass

    @property
    def value(self):
        return lib.psg_tir_int_imm_value(self._ptr)

    def __int__(self):
        return self.value

    def __index__(self):
        return self.value

    def __bool__(self):
        return self.value != 0

    def __eq__(self, o):
        return _binop(_api.EQ, self, o)

    def __ne__(self, o):
        return _binop(_api.NE, self, o)

    def __hash__(self):
        return self.value


@register(_api.FLOAT_IMM)
class FloatImm(PrimExpr):
    """FloatImm(dtype, value)."""
    __slots__ = ()

    def __new__(cls, dtype, value, span=None):
        return new(lib.psg_tir_float_imm_create, dtype_code(dtype), float(value), None,
                   what="FloatImm")

    def __init__(self, *a, **k):
        pass

    @property
    def value(self):
        return lib.psg_tir_float_imm_value(self._ptr)

    def __float__(self):
        return self.value


@register(_api.STRING_IMM)
class StringImm(PrimExpr):
    """StringImm(value)."""
    __slots__ = ()

    def __new__(cls, value, span=None):
        b = enc(value)
        return new(lib.psg_tir_string_imm_create, b, len(b), None, what="StringImm")

    def __init__(self, *a, **k):
        pass

    @property
    def value(self):
        n = ctypes.c_size_t()
        p = lib.psg_tir_string_imm_value(self._ptr, ctypes.byref(n))
        return ctypes.string_at(p, n.value).decode("utf-8", "replace")

    def __eq__(self, o):
        if isinstance(o, str):
            return self.value == o
        return Node.same_as(self, o)

    __hash__ = Node.__hash__


# Composite expressions -------------------------------------------------------------

@register(_api.CAST)
class Cast(PrimExpr):
    """Cast(dtype, value): the node itself (tir.Cast); `expr.astype` folds."""
    __slots__ = ()

    def __new__(cls, dtype, value, span=None):
        return new(lib.psg_tir_cast_create, dtype_code(dtype), _expr(value), None, what="Cast")

    def __init__(self, *a, **k):
        pass

    value = _child(lib.psg_tir_get_value)


def _binary_class(kind, name):
    def __new__(cls, a, b, span=None):
        return new(lib.psg_tir_binary_create, kind, _expr(a), _expr(b), None, what=name)

    def __init__(self, *a, **k):
        pass

    cls = type(name, (PrimExpr,), {"__slots__": (), "__new__": __new__, "__init__": __init__,
                                   "a": _child(lib.psg_tir_get_a), "b": _child(lib.psg_tir_get_b),
                                   "__doc__": "%s(a, b): the node as given (no folding)." % name})
    register(kind)(cls)
    return cls


Add = _binary_class(_api.ADD, "Add")
Sub = _binary_class(_api.SUB, "Sub")
Mul = _binary_class(_api.MUL, "Mul")
Div = _binary_class(_api.DIV, "Div")
Mod = _binary_class(_api.MOD, "Mod")
FloorDiv = _binary_class(_api.FLOOR_DIV, "FloorDiv")
FloorMod = _binary_class(_api.FLOOR_MOD, "FloorMod")
Min = _binary_class(_api.MIN, "Min")
Max = _binary_class(_api.MAX, "Max")
EQ = _binary_class(_api.EQ, "EQ")
NE = _binary_class(_api.NE, "NE")
LT = _binary_class(_api.LT, "LT")
LE = _binary_class(_api.LE, "LE")
GT = _binary_class(_api.GT, "GT")
GE = _binary_class(_api.GE, "GE")
And = _binary_class(_api.AND, "And")
Or = _binary_class(_api.OR, "Or")


@register(_api.NOT)
class Not(PrimExpr):
    __slots__ = ()

    def __new__(cls, a, span=None):
        return new(lib.psg_tir_not_create, _expr(a), None, what="Not")

    def __init__(self, *a, **k):
        pass

    a = _child(lib.psg_tir_get_value)


@register(_api.SELECT)
class Select(PrimExpr):
    """Select(condition, true_value, false_value): both sides evaluated."""
    __slots__ = ()

    def __new__(cls, condition, true_value, false_value, span=None):
        return new(lib.psg_tir_select_create, _expr(condition), _expr(true_value),
                   _expr(false_value), None, what="Select")

    def __init__(self, *a, **k):
        pass

    condition = _child(lib.psg_tir_get_cond)
    true_value = _child(lib.psg_tir_select_get_true)
    false_value = _child(lib.psg_tir_select_get_false)


@register(_api.RAMP)
class Ramp(PrimExpr):
    """Ramp(base, stride, lanes)."""
    __slots__ = ()

    def __new__(cls, base, stride, lanes, span=None):
        base, stride = _expr(base), _expr(stride)
        if stride.dtype != base.dtype:  # as TVM's constructor: the stride takes base's dtype
            stride = _cast(base.dtype, stride)
        return new(lib.psg_tir_ramp_create, base, stride, int(lanes), None, what="Ramp")

    def __init__(self, *a, **k):
        pass

    base = _child(lib.psg_tir_ramp_get_base)
    stride = _child(lib.psg_tir_ramp_get_stride)

    @property
    def lanes(self):
        return lib.psg_tir_get_lanes(self._ptr)


@register(_api.BROADCAST)
class Broadcast(PrimExpr):
    """Broadcast(value, lanes)."""
    __slots__ = ()

    def __new__(cls, value, lanes, span=None):
        return new(lib.psg_tir_broadcast_create, _expr(value), int(lanes), None,
                   what="Broadcast")

    def __init__(self, *a, **k):
        pass

    value = _child(lib.psg_tir_get_value)

    @property
    def lanes(self):
        return lib.psg_tir_get_lanes(self._ptr)


@register(_api.LET)
class Let(PrimExpr):
    """Let(var, value, body)."""
    __slots__ = ()

    def __new__(cls, var, value, body, span=None):
        return new(lib.psg_tir_let_create, var._ptr, _expr(value), _expr(body), None,
                   what="Let")

    def __init__(self, *a, **k):
        pass

    var = _child(lib.psg_tir_get_var)
    value = _child(lib.psg_tir_let_get_value)
    body = _child(lib.psg_tir_get_body)


@register(_api.BUFFER_LOAD)
class BufferLoad(PrimExpr):
    """BufferLoad(buffer, indices, predicate=None)."""
    __slots__ = ()

    def __new__(cls, buffer, indices, predicate=None, span=None):
        idx = [_expr(i) for i in indices]
        return new(lib.psg_tir_buffer_load_create, buffer._ptr, _api.ptr_array(idx), len(idx),
                   _expr(predicate) if predicate is not None else None, None,
                   what="BufferLoad")

    def __init__(self, *a, **k):
        pass

    buffer = _child(lib.psg_tir_get_buffer)
    predicate = _child(lib.psg_tir_get_predicate)

    @property
    def indices(self):
        return [borrowed(lib.psg_tir_get_index(self._ptr, i))
                for i in range(lib.psg_tir_num_indices(self._ptr))]


@register(_api.CALL)
class Call(PrimExpr):
    """Call(dtype, op, args): `op` a builtin name ("tir.exp") or an Op."""
    __slots__ = ()

    def __new__(cls, dtype, op, args, span=None):
        name = op if isinstance(op, str) else getattr(op, "name", str(op))
        a = [_expr(x) for x in args]
        return new(lib.psg_tir_call_create, dtype_code(dtype), enc(name), _api.ptr_array(a),
                   len(a), None, what="Call")

    def __init__(self, *a, **k):
        pass

    @property
    def op(self):
        from .op import Op
        return Op(s(lib.psg_tir_call_op(self._ptr)))

    @property
    def args(self):
        return [borrowed(lib.psg_tir_call_get_arg(self._ptr, i))
                for i in range(lib.psg_tir_call_num_args(self._ptr))]
