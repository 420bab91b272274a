"""Passage — TVMScript text of TIR through the C printer
(include/passage/tvmscript.h): `PrimFunc.script()`, `IRModule.script()`,
str() of a PrimFunc. Other nodes (expressions, statements) print in a plain
constructor form naming every field (enough to read one in a test failure):
TVMScript has no text for a lone node outside a function."""

import ctypes

from .._ffi import lib, CTX, call, take_string, s, enc

_P, _Z, _I, _S = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_char_p
_PP = ctypes.POINTER(ctypes.c_void_p)
for _name, _res, _args in [
        ("psg_tir_script_print_func", _I, [_P, _S, _I, _PP, ctypes.POINTER(_Z)]),
        ("psg_tir_script_print", _I, [_P, _I, _PP, ctypes.POINTER(_Z)]),
        ("psg_tir_script_from_module", _I, [_P, _PP]),
        ("psg_tir_script_release", None, [_P])]:
    _fn = getattr(lib, _name)
    _fn.restype, _fn.argtypes = _res, _args

NO_HEADER = 1  # PSG_TIR_SCRIPT_NO_HEADER


def script_func(func, name=None, show_header=True):
    """TVMScript of one PrimFunc (`def main` unless `name` or its
    global_symbol says otherwise), as TVM's PrimFunc.script()."""
    out = ctypes.c_void_p()
    call(lib.psg_tir_script_print_func, func._ptr, enc(name) if name else None,
         0 if show_header else NO_HEADER, ctypes.byref(out), None, what="script")
    return take_string(out.value)


def script_module(mod, show_header=True):
    """TVMScript of a module of PrimFuncs (@I.ir_module class Module)."""
    sc = ctypes.c_void_p()
    call(lib.psg_tir_script_from_module, mod._ptr, ctypes.byref(sc), what="script")
    try:
        out = ctypes.c_void_p()
        call(lib.psg_tir_script_print, sc.value, 0 if show_header else NO_HEADER, ctypes.byref(out),
             None, what="script")
        return take_string(out.value)
    finally:
        lib.psg_tir_script_release(sc.value)


def show(node):
    from . import _api
    parts = []
    kind = lib.psg_tir_kind(node._ptr)
    if kind == _api.PRIM_FUNC:
        return script_func(node)
    name = s(lib.psg_tir_kind_name(kind))
    if kind in (_api.VAR, _api.SIZE_VAR):
        return s(lib.psg_tir_var_name(node._ptr))
    if kind == _api.INT_IMM:
        v = lib.psg_tir_int_imm_value(node._ptr)
        dt = node.dtype
        return str(v) if dt == "int32" else ("T.bool(%s)" % bool(v) if dt == "bool" else "T.%s(%d)" % (dt, v))
    if kind == _api.FLOAT_IMM:
        return "T.%s(%r)" % (node.dtype, lib.psg_tir_float_imm_value(node._ptr))
    if kind == _api.STRING_IMM:
        return repr(node.value)
    infix = {_api.ADD: "+", _api.SUB: "-", _api.MUL: "*", _api.FLOOR_DIV: "//",
             _api.FLOOR_MOD: "%", _api.EQ: "==", _api.NE: "!=", _api.LT: "<", _api.LE: "<=",
             _api.GT: ">", _api.GE: ">=", _api.AND: "and", _api.OR: "or"}
    if kind in infix:
        return "(%s %s %s)" % (show(node.a), infix[kind], show(node.b))
    if kind == _api.BUFFER:
        return "Buffer(%s)" % s(lib.psg_tir_buffer_name(node._ptr))
    n = lib.psg_tir_num_operands(node._ptr)
    for i in range(n):
        c = _api.borrowed(lib.psg_tir_get_operand(node._ptr, i))
        parts.append(show(c))
    return "%s(%s)" % (name, ", ".join(parts))
