"""Passage — tvm.tir.op: the operator functions of TIR (folded and
dtype-matched by the C operators of include/passage/tir_op.h) and the
builtin intrinsics as Calls."""

from .._ffi import lib, enc, s
from . import _api
from .expr import convert, const, _binop, _cast, Call, PrimExpr, StringImm

__all__ = ["Op", "floordiv", "floormod", "truncdiv", "truncmod", "indexdiv", "indexmod", "div",
           "min", "max", "all", "any", "if_then_else", "likely", "assume", "call_extern", "cast",
           "min_value", "max_value", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf",
           "fabs", "floor", "ceil", "round", "pow", "power", "exp2", "exp10", "log2", "log10",
           "sin", "cos", "trunc", "isnan", "abs", "address_of", "reinterpret", "op_names"]


class Op:
    """A builtin TIR op, named as TVM names it ("tir.exp")."""
    __slots__ = ("name",)

    def __init__(self, name):
        if lib.psg_tir_op_find(enc(name)) < 0:
            raise ValueError("unknown TIR op %r" % name)
        self.name = name

    @staticmethod
    def get(name):
        return Op(name)

    def __eq__(self, other):
        return isinstance(other, Op) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return 'Op(%s)' % self.name


def op_names():
    return [s(lib.psg_tir_op_name(i)) for i in range(lib.psg_tir_op_count())]


def floordiv(a, b, span=None): return _binop(_api.FLOOR_DIV, a, b)
def floormod(a, b, span=None): return _binop(_api.FLOOR_MOD, a, b)
def truncdiv(a, b, span=None): return _binop(_api.DIV, a, b)
def truncmod(a, b, span=None): return _binop(_api.MOD, a, b)
def div(a, b, span=None): return _binop(_api.DIV, a, b)
indexdiv = floordiv
indexmod = floormod


def min(a, b, span=None):  # noqa: A001 (TVM's name)
    return _binop(_api.MIN, a, b)


def max(a, b, span=None):  # noqa: A001
    return _binop(_api.MAX, a, b)


def all(*args, span=None):  # noqa: A001
    """The conjunction of the arguments (folded left to right)."""
    if not args:
        raise ValueError("tir.all needs at least one argument")
    ret = convert(args[0])
    for x in args[1:]:
        ret = _binop(_api.AND, ret, x)
    return ret


def any(*args, span=None):  # noqa: A001
    if not args:
        raise ValueError("tir.any needs at least one argument")
    ret = convert(args[0])
    for x in args[1:]:
        ret = _binop(_api.OR, ret, x)
    return ret


def cast(value, dtype, span=None):
    return _cast(dtype, value)


def _ints(dtype):
    bits = int("".join(ch for ch in dtype if ch.isdigit()) or 32)
    return bits


def min_value(dtype, span=None):
    if dtype.startswith("int"):
        return const(-(1 << (_ints(dtype) - 1)), dtype)
    if dtype.startswith("uint") or dtype == "bool":
        return const(0, dtype)
    return const(-{"float16": 65504.0, "float32": 3.4028234663852886e38,
                   "float64": 1.7976931348623157e308}[dtype], dtype)


def max_value(dtype, span=None):
    if dtype.startswith("int"):
        return const((1 << (_ints(dtype) - 1)) - 1, dtype)
    if dtype.startswith("uint"):
        return const((1 << _ints(dtype)) - 1, dtype)
    if dtype == "bool":
        return const(1, dtype)
    return const({"float16": 65504.0, "float32": 3.4028234663852886e38,
                  "float64": 1.7976931348623157e308}[dtype], dtype)


def _match_branches(t, f):
    """TVM matches the branch dtypes as for a binary operator; an immediate
    side takes the other side's dtype, anything else must agree."""
    t, f = convert(t), convert(f)
    if t.dtype == f.dtype:
        return t, f
    if type(f).__name__ in ("IntImm", "FloatImm"):
        return t, _cast(t.dtype, f)
    if type(t).__name__ in ("IntImm", "FloatImm"):
        return _cast(f.dtype, t), f
    raise TypeError("if_then_else: branches of dtype %s and %s" % (t.dtype, f.dtype))


def if_then_else(cond, t, f, span=None):
    """tir.if_then_else: only the chosen branch is evaluated; a constant
    condition picks its branch at once, as in TVM."""
    t, f = _match_branches(t, f)
    cond = convert(cond)
    if type(cond).__name__ == "IntImm":
        return t if cond.value else f
    return Call(t.dtype, "tir.if_then_else", [cond, t, f])


def likely(cond, span=None):
    return Call("bool", "tir.likely", [cond])


def assume(cond=None):
    return Call("bool", "tir.assume", [cond if cond is not None else True])


def call_extern(dtype, func_name, *args, span=None):
    return Call(dtype, "tir.call_extern", [StringImm(func_name)] + list(args))


def call_intrin(dtype, func_name, *args, span=None):
    """A call of the builtin op `func_name` ("tir.exp") with result dtype."""
    return Call(dtype, func_name, list(args))


def address_of(buffer_load, span=None):
    return Call("handle", "tir.address_of", [buffer_load])


def reinterpret(dtype, value, span=None):
    return Call(dtype, "tir.reinterpret", [value])


def _unary(name):
    def fn(x, span=None):
        x = convert(x)
        return Call(x.dtype, "tir." + name, [x])
    fn.__name__ = name
    fn.__doc__ = "tir.%s(x): a Call of the builtin intrinsic." % name
    return fn


exp = _unary("exp")
exp2 = _unary("exp2")
exp10 = _unary("exp10")
log = _unary("log")
log2 = _unary("log2")
log10 = _unary("log10")
sqrt = _unary("sqrt")
rsqrt = _unary("rsqrt")
tanh = _unary("tanh")
sigmoid = _unary("sigmoid")
erf = _unary("erf")
fabs = _unary("fabs")
floor = _unary("floor")
ceil = _unary("ceil")
round = _unary("round")  # noqa: A001
trunc = _unary("trunc")
sin = _unary("sin")
cos = _unary("cos")


def isnan(x, span=None):
    return Call("bool", "tir.isnan", [x])


def pow(x, y, span=None):  # noqa: A001
    x, y = convert(x), convert(y)
    return Call(x.dtype, "tir.pow", [x, y])


power = pow


def abs(x, span=None):  # noqa: A001
    """|x|: Select(x >= 0, x, -x) for ints, x for unsigned, tir.fabs for floats."""
    from .expr import Select
    x = convert(x)
    if x.dtype.startswith("int"):
        if type(x).__name__ == "IntImm":
            return const(-x.value if x.value < 0 else x.value, x.dtype)
        return Select(x >= 0, x, -x)
    if x.dtype.startswith(("uint", "bool")):
        return x
    if type(x).__name__ == "FloatImm":
        return const(-x.value if x.value < 0 else x.value, x.dtype)
    return Call(x.dtype, "tir.fabs", [x])
