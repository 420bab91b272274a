"""Passage — op attributes from Python (TVM's tvm.ir.register_op_attr,
Op.get_attr / set_attr / reset_attr, relay.op.register_legalize /
register_alter_op_layout / register_convert_op_layout): a Python function
becomes a hook in the library context's op attribute table
(include/passage/op_attr.h), which Legalize, AlterOpLayout and ConvertLayout
consult by attribute name.

The hook runs through one ctypes trampoline (STYLE rule 7): it calls the
function with TVM's arguments for its attribute name, and an exception it
raises is parked for this thread, so the pass fails naming the op and the
very same exception reaches the caller. The table keeps the function alive
(a handle freed when the hook leaves the table)."""

import ctypes

from .. import _ffi
from .._ffi import lib, CTX, call, enc
from ..ir import Op, Expr, Attrs, _attrs_items, _wrap_expr, _wrap_type

__all__ = ["register_op_attr", "register_legalize", "register_alter_op_layout",
           "register_convert_op_layout"]

# psg_op_hook_fn(ctx, attrs, args, nargs, types, ntypes, layouts, nlayouts, user, out)
HOOK_FN = ctypes.CFUNCTYPE(_ffi.I, _ffi.P, _ffi.P, _ffi.PP, _ffi.Z, _ffi.PP, _ffi.Z,
                           ctypes.POINTER(_ffi.S), _ffi.Z, _ffi.P, _ffi.PP)

lib.psg_op_attr_set.restype = _ffi.I
lib.psg_op_attr_set.argtypes = [_ffi.P, _ffi.S, _ffi.S, HOOK_FN, _ffi.P, _ffi.FREE_FN, _ffi.I]
lib.psg_op_attr_reset.restype = _ffi.I
lib.psg_op_attr_reset.argtypes = [_ffi.P, _ffi.S, _ffi.S]
lib.psg_op_attr_get.restype = _ffi.B
lib.psg_op_attr_get.argtypes = [_ffi.P, _ffi.S, _ffi.S, _ffi.PP, ctypes.POINTER(_ffi.I)]


class _Hook:
    """What a hook's `user` handle points at."""
    __slots__ = ("fn", "op", "key")

    def __init__(self, fn, op, key):
        self.fn, self.op, self.key = fn, op, key


def _call_hook(hook, attrs, inputs, types, layouts):
    """The user's function with TVM's arguments for the attribute name:
    FTVMAlterOpLayout (attrs, inputs, tinfos, out_type), FTVMConvertOpLayout
    (attrs, inputs, tinfos, desired_layouts), any other (FTVMLegalize and
    its custom names) (attrs, inputs, types) with the call's type last."""
    if hook.key == "FTVMAlterOpLayout":
        return hook.fn(attrs, inputs, types[:-1], types[-1])
    if hook.key == "FTVMConvertOpLayout":
        return hook.fn(attrs, inputs, types[:-1], layouts)
    return hook.fn(attrs, inputs, types)


def _hook_tramp(ctx, attrs, args, nargs, types, ntypes, layouts, nlayouts, user, out):
    hook = None
    try:
        hook = _ffi.handle_obj(user)
        with _ffi.Call():
            res = _call_hook(hook, Attrs(_attrs_items(attrs)) if attrs else Attrs({}),
                             [_wrap_expr(args[i], False) for i in range(nargs)],
                             [_wrap_type(types[i]) for i in range(ntypes)],
                             [layouts[i].decode() for i in range(nlayouts)])
            if res is not None and hasattr(res, "astuple"):
                res = res.astuple()  # a TupleWrapper: its tuple-valued call
            if res is not None:
                if not isinstance(res, Expr):
                    raise TypeError("%s of op %r returned %r, not a Relay expression or None"
                                    % (hook.key, hook.op, type(res).__name__))
                lib.psg_expr_retain(res._ptr)
                out[0] = res._ptr
        return 0
    except BaseException as e:
        note = "in %s of op '%s'" % (hook.key, hook.op) if hook is not None else None
        return _ffi.park_exception_noted(e, note)


_HOOK_TRAMP = _ffi.immortal(HOOK_FN(_hook_tramp))


def _op_name(op):
    return op.name if isinstance(op, Op) else str(op)


def _set(op_name, key, value, level):
    if key in ("TOpPattern", "TOpIsStateful"):  # properties of a registered op (op_registry.py)
        from . import op_registry
        setter = op_registry.register_pattern if key == "TOpPattern" else op_registry.register_stateful
        return setter(op_name, value, level)
    if not callable(value):
        from ..error import UnsupportedError
        raise UnsupportedError("op attribute %s of %s: Passage's op attributes hold functions only, "
                               "not %r" % (key, op_name, type(value).__name__))
    h = _ffi.new_handle(_Hook(value, op_name, key))
    # The table owns the handle from here on: psg_op_attr_set frees it (through
    # FREE_HANDLE) on every path where it does not keep it.
    call(lib.psg_op_attr_set, CTX, enc(op_name), enc(key), _HOOK_TRAMP, h, _ffi.FREE_HANDLE,
         int(level), what="set_attr")


def _get(op_name, key):
    from . import op_registry
    known, value = op_registry.builtin_attr(Op(op_name), key)
    if known:
        return value
    user = ctypes.c_void_p()
    if not lib.psg_op_attr_get(CTX, enc(op_name), enc(key), ctypes.byref(user), None):
        return None
    hook = _ffi.handle_obj(user.value)
    return hook.fn if hook is not None else None


def _reset(op_name, key):
    call(lib.psg_op_attr_reset, CTX, enc(op_name), enc(key), what="reset_attr")


# Op methods, as TVM's tvm.ir.Op has them.

def _op_get_attr(self, attr_name):
    """The value of attribute `attr_name` of this op (None when unset)."""
    return _get(self.name, attr_name)


def _op_set_attr(self, attr_name, value, plevel=10):
    """Sets attribute `attr_name` to `value` at priority `plevel` (a higher
    level set earlier stays; the same level again is an error)."""
    _set(self.name, attr_name, value, plevel)


def _op_reset_attr(self, attr_name):
    """Removes attribute `attr_name` of this op."""
    _reset(self.name, attr_name)


def _op_has_attr(self, attr_name):
    return bool(lib.psg_op_attr_get(CTX, enc(self.name), enc(attr_name), None, None))


Op.get_attr = _op_get_attr
Op.set_attr = _op_set_attr
Op.reset_attr = _op_reset_attr
Op.has_attr = _op_has_attr


def register_op_attr(op_name, attr_key, value=None, level=10):
    """tvm.ir.register_op_attr: sets `attr_key` of op `op_name` to `value`
    at `level`; without a value, a decorator that does so."""
    def _register(v):
        _set(_op_name(op_name), attr_key, v, level)
        return v
    return _register(value) if value is not None else _register


def register_legalize(op_name, legal_op=None, level=10):
    """FTVMLegalize of `op_name`: f(attrs, inputs, types) -> Expr or None."""
    return register_op_attr(op_name, "FTVMLegalize", legal_op, level)


def register_alter_op_layout(op_name, alter_layout=None, level=10):
    """FTVMAlterOpLayout of `op_name`: f(attrs, inputs, tinfos, out_type) ->
    Expr or None."""
    return register_op_attr(op_name, "FTVMAlterOpLayout", alter_layout, level)


def register_convert_op_layout(op_name, convert_layout=None, level=10):
    """FTVMConvertOpLayout of `op_name`: f(attrs, inputs, tinfos,
    desired_layouts) -> Expr or None."""
    return register_op_attr(op_name, "FTVMConvertOpLayout", convert_layout, level)


def _install():
    """The names where TVM code finds them: tvm.relay.op, tvm.relay.op.op,
    tvm.ir."""
    from . import op as relay_op
    from .. import ir
    for mod in (relay_op, relay_op.op):
        for name in __all__[1:]:
            setattr(mod, name, globals()[name])
        mod.register_op_attr = register_op_attr
    ir.register_op_attr = register_op_attr


_install()
