"""Passage — tvm.runtime.object_path: TVM's ObjectPath over the C paths of
include/passage/object_path.h (where a descendant sits from a root: attribute,
array index, map value, or what one side of a comparison lacks), and
get_first_structural_mismatch on containers (tvm.ir.base)."""

import ctypes

from . import _ffi
from ._ffi import lib, CTX, P, S, I, Z, B, I64, PP

__all__ = ["ObjectPath", "RootPath", "AttributeAccessPath", "UnknownAttributeAccessPath", "ArrayIndexPath",
           "MissingArrayElementPath", "MapValuePath", "MissingMapEntryPath", "ObjectPathPair"]

_POUT = ctypes.POINTER(P)
_PROTOS = {
    "psg_object_path_root": (I, [P, S, _POUT]),
    "psg_object_path_attr": (I, [P, S, _POUT]),
    "psg_object_path_array_index": (I, [P, I64, _POUT]),
    "psg_object_path_missing_array_element": (I, [P, I64, _POUT]),
    "psg_object_path_map_value": (I, [P, S, _POUT]),
    "psg_object_path_missing_map_entry": (I, [P, _POUT]),
    "psg_object_path_retain": (None, [P]),
    "psg_object_path_release": (None, [P]),
    "psg_object_path_kind": (I, [P]),
    "psg_object_path_length": (Z, [P]),
    "psg_object_path_get_parent": (P, [P]),
    "psg_object_path_get_prefix": (I, [P, Z, _POUT]),
    "psg_object_path_equal": (B, [P, P]),
    "psg_object_path_is_prefix_of": (B, [P, P]),
    "psg_object_path_to_string": (I, [P, _POUT]),
    "psg_tir_array_first_mismatch": (I, [P, PP, Z, P, PP, Z, _POUT, _POUT]),
    "psg_expr_first_mismatch": (I, [P, P, B, P, P, _POUT, _POUT]),
    "psg_tir_map_first_mismatch": (I, [P, ctypes.POINTER(S), PP, Z, P, ctypes.POINTER(S), PP, Z, _POUT, _POUT]),
}
for _name, (_res, _args) in _PROTOS.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


class ObjectPath:
    """A path to an object from a root (TVM's ObjectPath). Made with
    ObjectPath.root(name=None) and the step methods; immutable."""
    __slots__ = ("_ptr",)

    def __init__(self):
        raise ValueError("ObjectPath can't be initialized directly. "
                         "Use ObjectPath.root() to create a path to the root object")

    @staticmethod
    def _own(ptr):
        obj = object.__new__(_CLASSES[lib.psg_object_path_kind(ptr)])
        obj._ptr = ptr
        return obj

    @staticmethod
    def _make(fn, *args, what):
        out = P()
        _ffi.call(fn, *args, ctypes.byref(out), what=what)
        return ObjectPath._own(out.value)

    def __del__(self):
        ptr = getattr(self, "_ptr", None)
        if ptr:
            self._ptr = None
            lib.psg_object_path_release(ptr)

    @staticmethod
    def root(root_name=None):
        return ObjectPath._make(lib.psg_object_path_root, CTX, _ffi.enc(root_name), what="ObjectPath.root")

    def attr(self, attr_key):
        return ObjectPath._make(lib.psg_object_path_attr, self._ptr, _ffi.enc(attr_key), what="ObjectPath.attr")

    def array_index(self, index):
        return ObjectPath._make(lib.psg_object_path_array_index, self._ptr, int(index),
                                what="ObjectPath.array_index")

    def missing_array_element(self, index):
        return ObjectPath._make(lib.psg_object_path_missing_array_element, self._ptr, int(index),
                                what="ObjectPath.missing_array_element")

    def map_value(self, key):
        return ObjectPath._make(lib.psg_object_path_map_value, self._ptr, _ffi.enc(str(key)),
                                what="ObjectPath.map_value")

    def missing_map_entry(self):
        return ObjectPath._make(lib.psg_object_path_missing_map_entry, self._ptr, what="ObjectPath.missing_map_entry")

    @property
    def parent(self):
        p = lib.psg_object_path_get_parent(self._ptr)
        if not p:
            return None
        lib.psg_object_path_retain(p)
        return ObjectPath._own(p)

    def __len__(self):
        return lib.psg_object_path_length(self._ptr)

    def get_prefix(self, length):
        if length < 0:
            length = 0  # negative lengths are "too short", as TVM's
        try:
            return ObjectPath._make(lib.psg_object_path_get_prefix, self._ptr, int(length),
                                    what="ObjectPath.get_prefix")
        except _ffi._err.InvalidArgumentError as e:
            raise IndexError(str(e)) from None

    def is_prefix_of(self, other):
        return bool(lib.psg_object_path_is_prefix_of(self._ptr, other._ptr))

    def __eq__(self, other):
        return isinstance(other, ObjectPath) and bool(lib.psg_object_path_equal(self._ptr, other._ptr))

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(str(self))

    def __str__(self):
        out = P()
        _ffi.call(lib.psg_object_path_to_string, self._ptr, ctypes.byref(out), what="ObjectPath")
        return _ffi.take_string(out.value)

    def __repr__(self):
        return str(self)


class RootPath(ObjectPath):
    __slots__ = ()


class AttributeAccessPath(ObjectPath):
    __slots__ = ()


class UnknownAttributeAccessPath(ObjectPath):
    __slots__ = ()


class ArrayIndexPath(ObjectPath):
    __slots__ = ()


class MissingArrayElementPath(ObjectPath):
    __slots__ = ()


class MapValuePath(ObjectPath):
    __slots__ = ()


class MissingMapEntryPath(ObjectPath):
    __slots__ = ()


# Indexed by the C step kind (PSG_PATH_*).
_CLASSES = [RootPath, AttributeAccessPath, UnknownAttributeAccessPath, ArrayIndexPath, MissingArrayElementPath,
            MapValuePath, MissingMapEntryPath]


class ObjectPathPair(tuple):
    """(lhs_path, rhs_path), as get_first_structural_mismatch returns it."""

    @property
    def lhs_path(self):
        return self[0]

    @property
    def rhs_path(self):
        return self[1]


def _tir_values(items):
    """TIR nodes of container items (ints and floats converted as
    runtime.convert does), keeping the Python objects alive alongside."""
    from .tir import expr as _e
    nodes = []
    for v in items:
        v = v if hasattr(v, "_ptr") else _e.convert(v)
        nodes.append(v)
    return nodes, _ffi.ptr_array([v._ptr for v in nodes])


def get_first_structural_mismatch(lhs, rhs, map_free_vars=False):
    """tvm.ir.base.get_first_structural_mismatch for two Relay expressions, or
    containers (an Array, ShapeTuple or list; a Map or dict with string keys)
    of TIR values: None when equal, else the ObjectPathPair of the first
    difference."""
    from .ir import Expr
    ra, rb = ObjectPath.root(), ObjectPath.root()
    pa, pb = P(), P()
    if isinstance(lhs, Expr) and isinstance(rhs, Expr):
        _ffi.call(lib.psg_expr_first_mismatch, lhs._ptr, rhs._ptr, bool(map_free_vars), ra._ptr, rb._ptr,
                  ctypes.byref(pa), ctypes.byref(pb), what="get_first_structural_mismatch")
    elif isinstance(lhs, dict) and isinstance(rhs, dict):
        ka, kb = [str(k) for k in lhs], [str(k) for k in rhs]
        na, arr_a = _tir_values(lhs.values())
        nb, arr_b = _tir_values(rhs.values())
        _ffi.call(lib.psg_tir_map_first_mismatch, ra._ptr, _ffi.str_array(ka), arr_a, len(na), rb._ptr,
                  _ffi.str_array(kb), arr_b, len(nb), ctypes.byref(pa), ctypes.byref(pb),
                  what="get_first_structural_mismatch")
    elif isinstance(lhs, (list, tuple)) and isinstance(rhs, (list, tuple)):
        na, arr_a = _tir_values(lhs)
        nb, arr_b = _tir_values(rhs)
        _ffi.call(lib.psg_tir_array_first_mismatch, ra._ptr, arr_a, len(na), rb._ptr, arr_b, len(nb),
                  ctypes.byref(pa), ctypes.byref(pb), what="get_first_structural_mismatch")
    else:
        raise TypeError("get_first_structural_mismatch: Relay expressions and containers of TIR values (Array, "
                        "Map) are supported, "
                        "not %s and %s" % (type(lhs).__name__, type(rhs).__name__))
    if not pa.value:
        return None
    return ObjectPathPair((ObjectPath._own(pa.value), ObjectPath._own(pb.value)))
