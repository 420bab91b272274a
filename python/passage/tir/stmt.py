"""Passage — TIR statements (tvm.tir.stmt)."""

import enum

from .._ffi import lib, enc, s
from ..ir import attrs_from_py, _attrs_of
from . import _api
from ._api import register, new, borrowed, dtype_code, dtype_name
from .expr import Node, convert

__all__ = ["Stmt", "ForKind", "For", "BufferStore", "IfThenElse", "Evaluate", "LetStmt", "SeqStmt",
           "Allocate", "DeclBuffer", "AttrStmt", "AssertStmt", "While", "stmt_seq"]


class Stmt(Node):
    """Base of the TIR statements."""
    __slots__ = ()


class ForKind(enum.IntEnum):
    SERIAL = 0
    PARALLEL = 1
    VECTORIZED = 2
    UNROLLED = 3
    THREAD_BINDING = 4


def _child(getter):
    return property(lambda self: borrowed(getter(self._ptr)))


def _with_attrs(fn, mapping, *args):
    a = attrs_from_py(mapping) if mapping else None
    try:
        return fn(a, *args)
    finally:
        if a:
            lib.psg_attrs_release(a)


@register(_api.FOR)
class For(Stmt):
    """For(loop_var, min, extent, kind, body, thread_binding=None, annotations=None)."""
    __slots__ = ()

    def __new__(cls, loop_var, min, extent, kind, body, thread_binding=None, annotations=None,
                span=None):
        if thread_binding is not None:
            raise NotImplementedError("thread_binding: GPU loops are out of Passage's scope")
        return _with_attrs(lambda a: new(lib.psg_tir_for_create, loop_var._ptr, convert(min),
                                         convert(extent), int(kind), body._ptr, a, None,
                                         what="For"), annotations)

    def __init__(self, *a, **k):
        pass

    loop_var = _child(lib.psg_tir_get_var)
    min = _child(lib.psg_tir_for_get_min)
    extent = _child(lib.psg_tir_for_get_extent)
    body = _child(lib.psg_tir_get_body)

    @property
    def kind(self):
        return ForKind(lib.psg_tir_for_kind(self._ptr))

    @property
    def annotations(self):
        a = _attrs_of(lib.psg_tir_get_annotations(self._ptr))
        return dict(a.items()) if a else {}


@register(_api.BUFFER_STORE)
class BufferStore(Stmt):
    """BufferStore(buffer, value, indices, predicate=None)."""
    __slots__ = ()

    def __new__(cls, buffer, value, indices, predicate=None, span=None):
        idx = [convert(i) for i in indices]
        return new(lib.psg_tir_buffer_store_create, buffer._ptr, convert(value),
                   _api.ptr_array(idx), len(idx),
                   convert(predicate) if predicate is not None else None, None,
                   what="BufferStore")

    def __init__(self, *a, **k):
        pass

    buffer = _child(lib.psg_tir_get_buffer)
    value = _child(lib.psg_tir_buffer_store_get_value)
    predicate = _child(lib.psg_tir_get_predicate)

    @property
    def indices(self):
        return [borrowed(lib.psg_tir_get_index(self._ptr, i))
                for i in range(lib.psg_tir_num_indices(self._ptr))]


@register(_api.IF_THEN_ELSE)
class IfThenElse(Stmt):
    """IfThenElse(condition, then_case, else_case)."""
    __slots__ = ()

    def __new__(cls, condition, then_case, else_case=None, span=None):
        condition = convert(condition)
        dt = str(condition.dtype)
        if dt.startswith(("int", "uint")) and "x" not in dt:
            # TVM takes an integer condition as C does (non-zero is true);
            # Passage's IfThenElse holds a bool, so it is compared with zero.
            from .expr import NE
            from . import const as _const
            condition = NE(condition, _const(0, dt))
        return new(lib.psg_tir_if_then_else_create, condition, then_case._ptr,
                   else_case._ptr if else_case is not None else None, None, what="IfThenElse")

    def __init__(self, *a, **k):
        pass

    condition = _child(lib.psg_tir_get_cond)
    then_case = _child(lib.psg_tir_if_get_then)
    else_case = _child(lib.psg_tir_if_get_else)


@register(_api.EVALUATE)
class Evaluate(Stmt):
    """Evaluate(value)."""
    __slots__ = ()

    def __new__(cls, value, span=None):
        return new(lib.psg_tir_evaluate_create, convert(value), None, what="Evaluate")

    def __init__(self, *a, **k):
        pass

    value = _child(lib.psg_tir_get_value)


@register(_api.LET_STMT)
class LetStmt(Stmt):
    """LetStmt(var, value, body)."""
    __slots__ = ()

    def __new__(cls, var, value, body, span=None):
        return new(lib.psg_tir_let_stmt_create, var._ptr, convert(value), body._ptr, None,
                   what="LetStmt")

    def __init__(self, *a, **k):
        pass

    var = _child(lib.psg_tir_get_var)
    value = _child(lib.psg_tir_let_get_value)
    body = _child(lib.psg_tir_get_body)


@register(_api.SEQ_STMT)
class SeqStmt(Stmt):
    """SeqStmt(seq)."""
    __slots__ = ()

    def __new__(cls, seq, span=None):
        seq = list(seq)
        return new(lib.psg_tir_seq_stmt_create, _api.ptr_array(seq), len(seq), None, what="SeqStmt")

    def __init__(self, *a, **k):
        pass

    @property
    def seq(self):
        return [borrowed(lib.psg_tir_seq_get(self._ptr, i))
                for i in range(lib.psg_tir_seq_size(self._ptr))]

    def __len__(self):
        return lib.psg_tir_seq_size(self._ptr)

    def __getitem__(self, i):
        return self.seq[i]


def stmt_seq(*args):
    """tvm.tir.stmt_seq: a SeqStmt of the statements (expressions are wrapped
    in Evaluate), or the one statement."""
    items = [a if isinstance(a, Stmt) else Evaluate(a) for a in args]
    return items[0] if len(items) == 1 else SeqStmt(items)


@register(_api.ALLOCATE)
class Allocate(Stmt):
    """Allocate(buffer_var, dtype, extents, condition, body, annotations=None)."""
    __slots__ = ()

    def __new__(cls, buffer_var, dtype, extents, condition, body, annotations=None, span=None):
        ext = [convert(e) for e in extents]
        cond = convert(condition) if condition is not None else None
        return _with_attrs(lambda a: new(lib.psg_tir_allocate_create, buffer_var._ptr,
                                         dtype_code(dtype), _api.ptr_array(ext), len(ext),
                                         cond._ptr if cond is not None else None, body._ptr, a,
                                         None, what="Allocate"), annotations)

    def __init__(self, *a, **k):
        pass

    buffer_var = _child(lib.psg_tir_allocate_get_buffer_var)
    condition = _child(lib.psg_tir_allocate_get_condition)
    body = _child(lib.psg_tir_get_body)

    @property
    def dtype(self):
        return dtype_name(lib.psg_tir_dtype_of(self._ptr))

    @property
    def extents(self):
        return [borrowed(lib.psg_tir_allocate_get_extent(self._ptr, i))
                for i in range(lib.psg_tir_allocate_num_extents(self._ptr))]


@register(_api.DECL_BUFFER)
class DeclBuffer(Stmt):
    """DeclBuffer(buffer, body)."""
    __slots__ = ()

    def __new__(cls, buffer, body, span=None):
        return new(lib.psg_tir_decl_buffer_create, buffer._ptr, body._ptr, None, what="DeclBuffer")

    def __init__(self, *a, **k):
        pass

    buffer = _child(lib.psg_tir_get_buffer)
    body = _child(lib.psg_tir_get_body)


@register(_api.ATTR_STMT)
class AttrStmt(Stmt):
    """AttrStmt(node, attr_key, value, body)."""
    __slots__ = ()

    def __new__(cls, node, attr_key, value, body, span=None):
        if isinstance(node, str):
            from .expr import StringImm
            node = StringImm(node)
        elif not isinstance(node, Node) and hasattr(node, "asobject"):
            node = node.asobject()  # an ir_builder BufferVar: its Buffer (TVM's ObjectGeneric)
        return new(lib.psg_tir_attr_stmt_create, node._ptr if node is not None else None,
                   enc(attr_key), convert(value), body._ptr, None, what="AttrStmt")

    def __init__(self, *a, **k):
        pass

    node = _child(lib.psg_tir_attr_stmt_get_node)
    value = _child(lib.psg_tir_attr_stmt_get_value)
    body = _child(lib.psg_tir_get_body)

    @property
    def attr_key(self):
        return s(lib.psg_tir_attr_stmt_key(self._ptr))


@register(_api.ASSERT_STMT)
class AssertStmt(Stmt):
    """AssertStmt(condition, message, body)."""
    __slots__ = ()

    def __new__(cls, condition, message, body, span=None):
        return new(lib.psg_tir_assert_stmt_create, convert(condition), convert(message),
                   body._ptr, None, what="AssertStmt")

    def __init__(self, *a, **k):
        pass

    condition = _child(lib.psg_tir_get_cond)
    message = _child(lib.psg_tir_assert_get_message)
    body = _child(lib.psg_tir_get_body)


@register(_api.WHILE)
class While(Stmt):
    """While(condition, body)."""
    __slots__ = ()

    def __new__(cls, condition, body, span=None):
        return new(lib.psg_tir_while_create, convert(condition), body._ptr, None, what="While")

    def __init__(self, *a, **k):
        pass

    condition = _child(lib.psg_tir_get_cond)
    body = _child(lib.psg_tir_get_body)
