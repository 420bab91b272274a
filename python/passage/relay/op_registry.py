"""Passage — registering an operator from Python (TVM's
tvm.relay.op.op.register, register_pattern, register_stateful and the Op
methods set_num_inputs, add_argument, set_support_level,
set_attrs_type_key, add_type_rel), over include/passage/op_register.h.

The op lives in the library context: calls to it are built, printed and
compared like any other, and InferType types them by its relation, which is
one of the library's ("Identity", "Broadcast", "BroadcastComp") or a Python
function f(arg_types, attrs) -> Type or None, run through one ctypes
trampoline (STYLE rule 7). An exception the function raises fails InferType
and reaches its caller as the same exception.

The argument descriptions and the attrs type key are what TVM records for
documentation; they are kept here and read back by Op.arguments and
Op.attrs_type_key."""

import collections
import ctypes

from .. import _ffi
from .._ffi import lib, CTX, call, enc
from ..ir import Op, Type, Attrs, _attrs_items, _wrap_type

__all__ = ["register", "register_pattern", "register_stateful"]

# psg_type_rel_fn(ctx, args, nargs, attrs, user, out)
TYPE_REL_FN = ctypes.CFUNCTYPE(_ffi.I, _ffi.P, _ffi.PP, _ffi.Z, _ffi.P, _ffi.P, _ffi.PP)

for _name, _res, _args in [
        ("psg_op_register", _ffi.I, [_ffi.P, _ffi.S, _ffi.S]),
        ("psg_op_set_num_inputs", _ffi.I, [_ffi.P, _ffi.S, _ffi.I]),
        ("psg_op_set_support_level", _ffi.I, [_ffi.P, _ffi.S, _ffi.I]),
        ("psg_op_set_pattern", _ffi.I, [_ffi.P, _ffi.S, _ffi.I]),
        ("psg_op_set_stateful", _ffi.I, [_ffi.P, _ffi.S, _ffi.B]),
        ("psg_op_add_type_rel", _ffi.I, [_ffi.P, _ffi.S, _ffi.S, TYPE_REL_FN, _ffi.P, _ffi.FREE_FN]),
        ("psg_op_node_num_inputs", _ffi.I, [_ffi.P]),
        ("psg_op_node_support_level", _ffi.I, [_ffi.P]),
        ("psg_op_node_pattern", _ffi.I, [_ffi.P]),
        ("psg_op_node_is_stateful", _ffi.B, [_ffi.P]),
        ("psg_op_node_type_rel_name", _ffi.S, [_ffi.P]),
        ("psg_op_node_is_registered", _ffi.B, [_ffi.P])]:
    getattr(lib, _name).restype = _res
    getattr(lib, _name).argtypes = _args

# What TVM keeps for documentation only: op name -> [argument], attrs type key.
Argument = collections.namedtuple("Argument", "name type_info description")
_arguments = collections.defaultdict(list)
_attrs_type_keys = {}


def _rel_tramp(ctx, args, nargs, attrs, user, out):
    rel = None
    try:
        rel = _ffi.handle_obj(user)
        with _ffi.Call():
            res = rel.fn([_wrap_type(args[i]) for i in range(nargs)],
                         Attrs(_attrs_items(attrs)) if attrs else None)
            if res is not None:
                if not isinstance(res, Type):
                    raise TypeError("type relation %s of op %r returned %r, not a Type or None"
                                    % (rel.name, rel.op, type(res).__name__))
                out[0] = res._ptr  # types are interned in the context: no reference to give
        return 0
    except BaseException as e:
        note = "in type relation %s of op '%s'" % (rel.name, rel.op) if rel is not None else None
        return _ffi.park_exception_noted(e, note)


_REL_TRAMP = _ffi.immortal(TYPE_REL_FN(_rel_tramp))


class _Rel:
    __slots__ = ("fn", "op", "name")

    def __init__(self, fn, op, name):
        self.fn, self.op, self.name = fn, op, name


def register(op_name, describe=""):
    """Registers op `op_name` (TVM's relay.op.op.register); TVMError if an op
    of that name exists. Set its properties with the Op methods below."""
    call(lib.psg_op_register, CTX, enc(op_name), enc(describe or ""), what="register")


def _name(op):
    return op.name if isinstance(op, Op) else str(op)


def register_pattern(op_name, pattern, level=10):
    """TOpPattern of a registered op (an OpPattern number)."""
    call(lib.psg_op_set_pattern, CTX, enc(_name(op_name)), int(pattern), what="register_pattern")


def register_stateful(op_name, stateful, level=10):
    """TOpIsStateful of a registered op."""
    call(lib.psg_op_set_stateful, CTX, enc(_name(op_name)), bool(stateful), what="register_stateful")


# Op methods and properties, as TVM's tvm.ir.Op has them.

def _set_num_inputs(self, n):
    call(lib.psg_op_set_num_inputs, CTX, enc(self.name), int(n), what="set_num_inputs")


def _set_support_level(self, level):
    call(lib.psg_op_set_support_level, CTX, enc(self.name), int(level), what="set_support_level")


def _add_argument(self, name, type, description):  # noqa: A002 (TVM's parameter name)
    _arguments[self.name].append(Argument(name, type, description))


def _set_attrs_type_key(self, key):
    _attrs_type_keys[self.name] = key


def _add_type_rel(self, rel_name, type_rel_func=None):
    """The op's type relation: the library's relation `rel_name` when
    type_rel_func is None, else type_rel_func(arg_types, attrs) -> the
    call's Type (None: cannot tell, a type error)."""
    if type_rel_func is None:
        call(lib.psg_op_add_type_rel, CTX, enc(self.name), enc(rel_name), TYPE_REL_FN(), None, _ffi.FREE_FN(),
             what="add_type_rel")
        return
    h = _ffi.new_handle(_Rel(type_rel_func, self.name, rel_name))
    # From here the library owns the handle: it frees it on every path.
    call(lib.psg_op_add_type_rel, CTX, enc(self.name), enc(rel_name), _REL_TRAMP, h, _ffi.FREE_HANDLE,
         what="add_type_rel")


def _num_inputs(self):
    return lib.psg_op_node_num_inputs(self._ptr)


def _support_level(self):
    level = lib.psg_op_node_support_level(self._ptr)
    return None if level < 0 else level


Op.set_num_inputs = _set_num_inputs
Op.set_support_level = _set_support_level
Op.add_argument = _add_argument
Op.set_attrs_type_key = _set_attrs_type_key
Op.add_type_rel = _add_type_rel
Op.num_inputs = property(_num_inputs, doc="Argument count (-1: any).")
Op.support_level = property(_support_level, doc="TVM's support level (None when not recorded).")
Op.arguments = property(lambda self: list(_arguments.get(self.name, ())),
                        doc="The arguments add_argument described.")
Op.attrs_type_key = property(lambda self: _attrs_type_keys.get(self.name, ""),
                             doc="The key set_attrs_type_key recorded.")


def builtin_attr(op, key):
    """TOpPattern / TOpIsStateful of any op from the library (None when the
    op has no pattern); (False, None) for any other key."""
    if key == "TOpPattern":
        p = lib.psg_op_node_pattern(op._ptr)
        return True, (None if p < 0 else p)
    if key == "TOpIsStateful":
        return True, bool(lib.psg_op_node_is_stateful(op._ptr))
    return False, None


def _install():
    """The names where TVM code finds them: tvm.relay.op.op (and
    tvm.relay.op for the register_* helpers)."""
    from . import op as relay_op
    relay_op.op.register = register
    for mod in (relay_op, relay_op.op):
        mod.register_pattern = register_pattern
        mod.register_stateful = register_stateful


_install()
