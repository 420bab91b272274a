"""Passage — TIR types (tvm.ir.PrimType, tvm.ir.PointerType, the void TupleType)."""

from .._ffi import lib, enc, s
from . import _api
from ._api import register, new, borrowed, dtype_code, dtype_name
from .expr import Node

__all__ = ["PrimType", "PointerType", "VoidType"]


class _TirType(Node):
    __slots__ = ()

    def __eq__(self, other):
        return isinstance(other, _TirType) and bool(lib.psg_tir_type_equal(self._ptr, other._ptr))

    def __hash__(self):
        return hash(str(self))


@register(_api.PRIM_TYPE)
class PrimType(_TirType):
    """PrimType(dtype)."""
    __slots__ = ()

    def __new__(cls, dtype):
        return new(lib.psg_tir_prim_type_create, dtype_code(dtype), what="PrimType")

    def __init__(self, *a, **k):
        pass

    @property
    def dtype(self):
        return dtype_name(lib.psg_tir_dtype_of(self._ptr))

    def __str__(self):
        return "T.%s" % self.dtype


@register(_api.POINTER_TYPE)
class PointerType(_TirType):
    """PointerType(element_type, storage_scope="")."""
    __slots__ = ()

    def __new__(cls, element_type, storage_scope=""):
        if not isinstance(element_type, PrimType):
            element_type = PrimType(element_type)
        return new(lib.psg_tir_pointer_type_create, element_type._ptr, enc(storage_scope or ""),
                   what="PointerType")

    def __init__(self, *a, **k):
        pass

    @property
    def element_type(self):
        return borrowed(lib.psg_tir_pointer_type_get_element(self._ptr))

    @property
    def storage_scope(self):
        return s(lib.psg_tir_pointer_type_scope(self._ptr))

    def __str__(self):
        return 'T.handle("%s", "%s")' % (self.element_type.dtype, self.storage_scope)


@register(_api.TUPLE_TYPE)
class VoidType(_TirType):
    """TupleType([]), the return type of a PrimFunc that returns nothing."""
    __slots__ = ()

    def __new__(cls):
        return new(lib.psg_tir_void_type_create, what="VoidType")

    def __init__(self, *a, **k):
        pass

    def __str__(self):
        return "None"
