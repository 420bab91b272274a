"""Passage — ctypes declarations of the TIR part of the C API
(include/passage/tir.h), and the wrapping of TIR node pointers into the
Python classes of passage.tir (one class per node kind, registered by
the modules that define them)."""

import ctypes

from .. import _ffi
from .._ffi import lib, CTX, call, enc, s

P, S, I, Z, B = _ffi.P, _ffi.S, _ffi.I, _ffi.Z, _ffi.B
I64, U32, U64, PP = _ffi.I64, ctypes.c_uint32, _ffi.U64, _ffi.PP
D = ctypes.c_double
SPAN = ctypes.POINTER(_ffi.Span)


class BufferDesc(ctypes.Structure):
    """psg_tir_buffer_desc."""
    _fields_ = [("name", S), ("data", P), ("dtype", U32), ("shape", PP), ("ndim", Z),
                ("strides", PP), ("nstrides", Z), ("elem_offset", P),
                ("axis_separators", ctypes.POINTER(I64)), ("naxis_separators", Z),
                ("data_alignment", I), ("offset_factor", I), ("buffer_type", I)]


_PROTOS = {
    "psg_tir_dtype_lanes": (I, [U32]), "psg_tir_dtype_bits": (I, [U32]),
    "psg_tir_dtype_code": (I, [U32]), "psg_tir_dtype_with_lanes": (U32, [U32, I]),
    "psg_tir_dtype_str": (Z, [U32, ctypes.c_char_p, Z]), "psg_tir_dtype_parse": (U32, [S, Z]),
    "psg_tir_dtype_is_int": (B, [U32]), "psg_tir_dtype_is_uint": (B, [U32]),
    "psg_tir_dtype_is_float": (B, [U32]), "psg_tir_dtype_is_bool": (B, [U32]),
    "psg_tir_dtype_is_handle": (B, [U32]),
    "psg_tir_retain": (None, [P]), "psg_tir_release": (None, [P]), "psg_tir_kind": (I, [P]),
    "psg_tir_kind_name": (S, [I]), "psg_tir_is_expr": (B, [P]), "psg_tir_is_stmt": (B, [P]),
    "psg_tir_span": (None, [P, SPAN]), "psg_tir_dtype_of": (U32, [P]),
    "psg_tir_num_operands": (Z, [P]), "psg_tir_get_operand": (P, [P, Z]),
    "psg_tir_prim_type_create": (I, [P, U32, PP]),
    "psg_tir_pointer_type_create": (I, [P, P, S, PP]), "psg_tir_void_type_create": (I, [P, PP]),
    "psg_tir_pointer_type_get_element": (P, [P]), "psg_tir_pointer_type_scope": (S, [P]),
    "psg_tir_type_equal": (B, [P, P]),
    "psg_tir_var_create": (I, [P, S, U32, P, SPAN, PP]),
    "psg_tir_size_var_create": (I, [P, S, U32, SPAN, PP]),
    "psg_tir_int_imm_create": (I, [P, U32, I64, SPAN, PP]),
    "psg_tir_float_imm_create": (I, [P, U32, D, SPAN, PP]),
    "psg_tir_string_imm_create": (I, [P, S, Z, SPAN, PP]),
    "psg_tir_cast_create": (I, [P, U32, P, SPAN, PP]),
    "psg_tir_binary_create": (I, [P, I, P, P, SPAN, PP]),
    "psg_tir_not_create": (I, [P, P, SPAN, PP]),
    "psg_tir_select_create": (I, [P, P, P, P, SPAN, PP]),
    "psg_tir_ramp_create": (I, [P, P, P, I, SPAN, PP]),
    "psg_tir_broadcast_create": (I, [P, P, I, SPAN, PP]),
    "psg_tir_let_create": (I, [P, P, P, P, SPAN, PP]),
    "psg_tir_buffer_load_create": (I, [P, P, PP, Z, P, SPAN, PP]),
    "psg_tir_call_create": (I, [P, U32, S, PP, Z, SPAN, PP]),
    "psg_tir_op_count": (Z, []), "psg_tir_op_name": (S, [Z]),
    "psg_tir_op_find": (ctypes.c_ssize_t, [S]),
    "psg_tir_for_create": (I, [P, P, P, P, I, P, P, SPAN, PP]),
    "psg_tir_buffer_store_create": (I, [P, P, P, PP, Z, P, SPAN, PP]),
    "psg_tir_if_then_else_create": (I, [P, P, P, P, SPAN, PP]),
    "psg_tir_evaluate_create": (I, [P, P, SPAN, PP]),
    "psg_tir_let_stmt_create": (I, [P, P, P, P, SPAN, PP]),
    "psg_tir_seq_stmt_create": (I, [P, PP, Z, SPAN, PP]),
    "psg_tir_allocate_create": (I, [P, P, U32, PP, Z, P, P, P, SPAN, PP]),
    "psg_tir_decl_buffer_create": (I, [P, P, P, SPAN, PP]),
    "psg_tir_attr_stmt_create": (I, [P, P, S, P, P, SPAN, PP]),
    "psg_tir_assert_stmt_create": (I, [P, P, P, P, SPAN, PP]),
    "psg_tir_while_create": (I, [P, P, P, SPAN, PP]),
    "psg_tir_buffer_create": (I, [P, ctypes.POINTER(BufferDesc), SPAN, PP]),
    "psg_tir_prim_func_create": (I, [P, PP, Z, P, P, ctypes.POINTER(Z), PP, Z, P, SPAN, PP]),
    "psg_tir_prim_func_with_attr": (I, [P, S, P, PP]),
    "psg_tir_var_name": (S, [P]), "psg_tir_var_get_type": (P, [P]),
    "psg_tir_int_imm_value": (I64, [P]), "psg_tir_float_imm_value": (D, [P]),
    "psg_tir_string_imm_value": (P, [P, ctypes.POINTER(Z)]),
    "psg_tir_get_value": (P, [P]), "psg_tir_get_a": (P, [P]), "psg_tir_get_b": (P, [P]),
    "psg_tir_get_cond": (P, [P]), "psg_tir_select_get_true": (P, [P]),
    "psg_tir_select_get_false": (P, [P]), "psg_tir_ramp_get_base": (P, [P]),
    "psg_tir_ramp_get_stride": (P, [P]), "psg_tir_get_lanes": (I, [P]),
    "psg_tir_get_var": (P, [P]), "psg_tir_let_get_value": (P, [P]), "psg_tir_get_body": (P, [P]),
    "psg_tir_get_buffer": (P, [P]), "psg_tir_num_indices": (Z, [P]),
    "psg_tir_get_index": (P, [P, Z]), "psg_tir_get_predicate": (P, [P]),
    "psg_tir_buffer_store_get_value": (P, [P]), "psg_tir_call_op": (S, [P]),
    "psg_tir_call_num_args": (Z, [P]), "psg_tir_call_get_arg": (P, [P, Z]),
    "psg_tir_for_get_min": (P, [P]), "psg_tir_for_get_extent": (P, [P]),
    "psg_tir_for_kind": (I, [P]), "psg_tir_get_annotations": (P, [P]),
    "psg_tir_if_get_then": (P, [P]), "psg_tir_if_get_else": (P, [P]),
    "psg_tir_seq_size": (Z, [P]), "psg_tir_seq_get": (P, [P, Z]),
    "psg_tir_allocate_get_buffer_var": (P, [P]), "psg_tir_allocate_num_extents": (Z, [P]),
    "psg_tir_allocate_get_extent": (P, [P, Z]), "psg_tir_allocate_get_condition": (P, [P]),
    "psg_tir_attr_stmt_get_node": (P, [P]), "psg_tir_attr_stmt_key": (S, [P]),
    "psg_tir_attr_stmt_get_value": (P, [P]), "psg_tir_assert_get_message": (P, [P]),
    "psg_tir_buffer_name": (S, [P]), "psg_tir_buffer_get_data": (P, [P]),
    "psg_tir_buffer_ndim": (Z, [P]), "psg_tir_buffer_get_shape": (P, [P, Z]),
    "psg_tir_buffer_num_strides": (Z, [P]), "psg_tir_buffer_get_stride": (P, [P, Z]),
    "psg_tir_buffer_get_elem_offset": (P, [P]), "psg_tir_buffer_scope": (S, [P]),
    "psg_tir_buffer_num_axis_separators": (Z, [P]),
    "psg_tir_buffer_axis_separator": (I64, [P, Z]),
    "psg_tir_buffer_data_alignment": (I, [P]), "psg_tir_buffer_offset_factor": (I, [P]),
    "psg_tir_buffer_type": (I, [P]),
    "psg_tir_prim_func_num_params": (Z, [P]), "psg_tir_prim_func_get_param": (P, [P, Z]),
    "psg_tir_prim_func_buffer_map_size": (Z, [P]),
    "psg_tir_prim_func_buffer_map_key": (P, [P, Z]),
    "psg_tir_prim_func_buffer_map_value": (P, [P, Z]),
    "psg_tir_prim_func_get_ret_type": (P, [P]), "psg_tir_prim_func_get_attrs": (P, [P]),
    "psg_tir_iter_var_create": (I, [P, P, P, P, I, S, SPAN, PP]),
    "psg_tir_iter_var_get_var": (P, [P]), "psg_tir_iter_var_get_min": (P, [P]),
    "psg_tir_iter_var_get_extent": (P, [P]), "psg_tir_iter_var_type": (I, [P]),
    "psg_tir_iter_var_thread_tag": (S, [P]), "psg_tir_iter_type_name": (S, [I]),
    "psg_tir_structural_equal": (B, [P, P]),
    "psg_tir_structural_equal_explain": (B, [P, P, ctypes.POINTER(P)]),
    "psg_tir_structural_equal_ex": (B, [P, P, B, ctypes.POINTER(P)]),
    "psg_tir_structural_hash": (U64, [P]),
    "psg_tir_verify_well_formed": (I, [P]),
    # include/passage/tir_op.h
    "psg_tir_op_binary": (I, [P, I, P, P, SPAN, PP]), "psg_tir_op_not": (I, [P, P, SPAN, PP]),
    "psg_tir_op_neg": (I, [P, P, SPAN, PP]), "psg_tir_op_cast": (I, [P, U32, P, SPAN, PP]),
    "psg_tir_make_const_int": (I, [P, U32, I64, SPAN, PP]),
    "psg_tir_make_const_float": (I, [P, U32, D, SPAN, PP]),
    "psg_module_add_prim_func": (I, [P, P, P, PP]),
    "psg_module_update_prim_func": (I, [P, P, P, PP]),
    "psg_module_get_prim_func": (P, [P, Z]), "psg_module_lookup_prim_func": (P, [P, S]),
}

for _name, (_res, _args) in _PROTOS.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args

# Node kinds (include/passage/tir.h; part of the ABI).
(VAR, SIZE_VAR, INT_IMM, FLOAT_IMM, STRING_IMM, CAST, ADD, SUB, MUL, DIV, MOD, FLOOR_DIV,
 FLOOR_MOD, MIN, MAX, EQ, NE, LT, LE, GT, GE, AND, OR, NOT, SELECT, RAMP, BROADCAST, LET,
 BUFFER_LOAD, CALL, FOR, BUFFER_STORE, IF_THEN_ELSE, EVALUATE, LET_STMT, SEQ_STMT, ALLOCATE,
 DECL_BUFFER, ATTR_STMT, ASSERT_STMT, WHILE, BUFFER, PRIM_FUNC, PRIM_TYPE, POINTER_TYPE,
 TUPLE_TYPE, ITER_VAR) = range(47)

CLASSES = {}  # kind -> Python class, filled by the defining modules


def register(kind):
    def deco(cls):
        CLASSES[kind] = cls
        return cls
    return deco


def wrap(ptr, own=True):
    """The Python object for TIR node `ptr`; `own` False retains a borrowed
    pointer first. None for NULL."""
    if not ptr:
        return None
    if not own:
        lib.psg_tir_retain(ptr)
    cls = CLASSES[lib.psg_tir_kind(ptr)]
    obj = object.__new__(cls)
    obj._ptr = ptr
    return obj


def borrowed(ptr):
    return wrap(ptr, own=False)


def new(fn, *args, what=None):
    """Calls constructor `fn(CTX, *args, &out)` and wraps the new node. An
    argument may be a node object: it is passed as its pointer and, being in
    `args`, stays alive for the call (a temporary's `._ptr` would not: the
    wrapper, and with it the C reference, dies as soon as it is read)."""
    from ..ir import _Owned
    out = ctypes.c_void_p()
    cargs = [a._ptr if isinstance(a, _Owned) else a for a in args]
    call(fn, CTX, *cargs, ctypes.byref(out), what=what)
    return wrap(out.value)


# dtypes ------------------------------------------------------------------------------

def dtype_code(dtype):
    """A TIR dtype (uint32) from a name ("float32x4"), a DataType-like object
    or a code."""
    if isinstance(dtype, int):
        return dtype
    name = str(dtype)
    code = lib.psg_tir_dtype_parse(enc(name), len(enc(name)))
    if code == 0:
        raise ValueError("unknown TIR dtype %r" % (dtype,))
    return code


def dtype_name(code):
    buf = ctypes.create_string_buffer(40)
    lib.psg_tir_dtype_str(code, buf, len(buf))
    return s(buf.value)


def ptr_array(nodes):
    return _ffi.ptr_array([n._ptr for n in nodes])
