"""Passage — str() of TIR nodes: TVMScript from the C printer when the
library has it (include/passage/tvmscript.h), else a plain constructor
form that names every field (enough to read a node in a test failure)."""

import ctypes

from .._ffi import lib, s


def _c_printer():
    fn = getattr(lib, "psg_tir_script_print_node", None)
    return fn


def show(node):
    from . import _api
    parts = []
    kind = lib.psg_tir_kind(node._ptr)
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
