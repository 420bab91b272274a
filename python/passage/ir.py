"""Passage — the IR objects: types, tensors, attributes, Relay expressions and
IRModule, each a Python object owning one C reference (released when the
Python object dies; the C side keeps whatever else it needs alive, so any
finalization order is safe). Mirrors tvm.ir / tvm.relay's node classes."""

import ctypes
import sys
import struct

from . import _ffi
from ._ffi import lib, CTX, call, take_string, enc, s

__all__ = ["Type", "TensorType", "TupleType", "FuncType", "TypeVar", "GlobalTypeVar",
           "IncompleteType", "TypeCall", "RefType", "TypeKind", "EnvFunc", "Tensor", "Attrs", "Expr", "Var",
           "GlobalVar", "Constant", "Tuple", "TupleGetItem", "Call", "Let", "If", "Function", "Op",
           "IRModule", "structural_equal", "structural_hash", "assert_structural_equal", "Span"]

# dtypes ---------------------------------------------------------------------------

_STRUCT = {"float16": "e", "float32": "f", "float64": "d", "int8": "b", "int16": "h",
           "int32": "i", "int64": "q", "uint8": "B", "uint16": "H", "uint32": "I", "uint64": "Q",
           "bool": "?"}


# TVM's shorthands: DataType("float") is float32, "int" int32, "uint" uint32.
_SHORTHAND = {"float": "float32", "int": "int32", "uint": "uint32"}


def dtype_code(dtype):
    if isinstance(dtype, int):
        return dtype
    name = _SHORTHAND.get(str(dtype), str(dtype))
    code = lib.psg_dtype_from_name(enc(name), len(enc(name)))
    if code == 0:
        raise ValueError("unknown dtype %r" % (dtype,))
    return code


def dtype_name(code):
    return s(lib.psg_dtype_name(code))


# Types (interned in the context: borrowed pointers, equal iff same pointer) --------

class Type:
    """A Relay type. `==` is TVM's structural equality on types (type
    parameters compared by position); `same_as` is identity."""
    __slots__ = ("_ptr",)

    def __init__(self, ptr):
        self._ptr = ptr

    def __eq__(self, other):
        return isinstance(other, Type) and structural_equal(self, other)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return lib.psg_type_structural_hash(self._ptr)

    def same_as(self, other):
        return isinstance(other, Type) and other._ptr == self._ptr

    def is_dynamic(self):
        return False

    @property
    def span(self):
        """Types carry no source span in Passage."""
        return None

    def __repr__(self):
        return str(self)


def _wrap_type(ptr):
    if not ptr:
        return None
    kind = lib.psg_type_kind(ptr)
    cls = {1: TensorType, 2: TupleType, 3: FuncType, 4: TypeVar, 5: IncompleteType, 6: TypeCall,
           7: RefType, 8: GlobalTypeVar}[kind]
    obj = Type.__new__(cls)
    obj._ptr = ptr
    return obj


def _new_type(fn, *args, what):
    out = ctypes.c_void_p()
    call(fn, CTX, *args, ctypes.byref(out), what=what)
    return out.value


class TypeKind:
    """TVM's TypeKind (the kind of a type variable)."""
    Type = 0
    ShapeVar = 1
    BaseType = 2
    Constraint = 4
    AdtHandle = 5
    TypeData = 6


class TensorType(Type):
    """TensorType(shape, dtype="float32"); a dimension None, -1 or Any() is
    unknown."""
    __slots__ = ()

    def __init__(self, shape, dtype="float32"):
        try:
            dims = [(-1 if d is None else int(_imm_value(d))) for d in shape]
        except (TypeError, ValueError) as e:
            raise _ffi._err.InvalidArgumentError("TensorType: a shape of integer dimensions, not %r (%s)"
                                                 % (shape, e)) from None
        arr = (ctypes.c_int64 * max(len(dims), 1))(*dims)
        self._ptr = _new_type(lib.psg_type_tensor, arr, len(dims), dtype_code(dtype), what="TensorType")

    def _dims(self):
        return tuple(lib.psg_type_dim(self._ptr, i) for i in range(lib.psg_type_ndim(self._ptr)))

    @property
    def shape(self):
        """The dimensions: ints, and tir.Any() for each unknown one, as TVM
        gives them."""
        from .tir import Any
        return tuple(Any() if d < 0 else d for d in self._dims())

    @property
    def dtype(self):
        return dtype_name(lib.psg_type_dtype(self._ptr))

    @property
    def concrete_shape(self):
        return self.shape

    def is_dynamic(self):
        return any(d < 0 for d in self._dims())

    def __str__(self):
        dims = ", ".join("?" if d < 0 else str(d) for d in self._dims())
        return "Tensor[(%s%s), %s]" % (dims, "," if len(self._dims()) == 1 else "", self.dtype)


def _fields(ptr):
    return [_wrap_type(lib.psg_type_field(ptr, i)) for i in range(lib.psg_type_num_fields(ptr))]


class TupleType(Type):
    __slots__ = ()

    def __init__(self, fields):
        ptrs = _ffi.ptr_array([f._ptr for f in fields])
        self._ptr = _new_type(lib.psg_type_tuple, ptrs, len(fields), what="TupleType")

    @property
    def fields(self):
        return _fields(self._ptr)

    def __str__(self):
        return "(%s)" % ", ".join(str(f) for f in self.fields)


class FuncType(Type):
    """FuncType(arg_types, ret_type, type_params=None, type_constraints=None):
    a function type, quantified over the TypeVars in type_params. Its
    type_constraints (TypeRelations) stay with this Python object: the C
    FuncType has none, so equality, printing and inference do not see them
    (docs/design.md, departure "FuncType constraints")."""
    __slots__ = ("_constraints",)

    def __init__(self, arg_types, ret_type, type_params=None, type_constraints=None):
        self._constraints = tuple(type_constraints or ())
        tps = list(type_params or [])
        args = _ffi.ptr_array([a._ptr for a in arg_types])
        self._ptr = _new_type(lib.psg_type_func_poly, args, len(arg_types), ret_type._ptr,
                              _ffi.ptr_array([t._ptr for t in tps]), len(tps), what="FuncType")

    @property
    def arg_types(self):
        return _fields(self._ptr)

    @property
    def ret_type(self):
        return _wrap_type(lib.psg_type_func_ret(self._ptr))

    @property
    def type_params(self):
        return [_wrap_type(lib.psg_type_func_type_param(self._ptr, i))
                for i in range(lib.psg_type_func_num_type_params(self._ptr))]

    @property
    def type_constraints(self):
        return list(getattr(self, "_constraints", ()))

    def __str__(self):
        tps = self.type_params
        head = "fn [%s](" % ", ".join(str(t) for t in tps) if tps else "fn ("
        return "%s%s) -> %s" % (head, ", ".join(str(a) for a in self.arg_types), self.ret_type)


class TypeVar(Type):
    """TypeVar(name_hint, kind=TypeKind.Type): a fresh type variable, equal
    only to itself (or to one bound at the same position)."""
    __slots__ = ()

    def __init__(self, name_hint, kind=TypeKind.Type):
        self._ptr = _new_type(lib.psg_type_var, enc(name_hint), int(kind), what="TypeVar")

    @property
    def name_hint(self):
        return s(lib.psg_type_var_name(self._ptr))

    @property
    def kind(self):
        return lib.psg_type_var_kind(self._ptr)

    def __str__(self):
        return self.name_hint


class GlobalTypeVar(Type):
    """GlobalTypeVar(name_hint, kind=TypeKind.AdtHandle): the name of an ADT."""
    __slots__ = ()

    def __init__(self, name_hint, kind=TypeKind.AdtHandle):
        self._ptr = _new_type(lib.psg_type_global_var, enc(name_hint), int(kind), what="GlobalTypeVar")

    name_hint = TypeVar.name_hint
    kind = TypeVar.kind

    def __str__(self):
        return self.name_hint

    def __call__(self, *args):
        return TypeCall(self, list(args))


class IncompleteType(Type):
    """IncompleteType(kind=TypeKind.Type): a hole that type inference fills."""
    __slots__ = ()

    def __init__(self, kind=TypeKind.Type):
        self._ptr = _new_type(lib.psg_type_incomplete, int(kind), what="IncompleteType")

    kind = TypeVar.kind

    def __str__(self):
        return "?"


class TypeCall(Type):
    """TypeCall(func, args): an ADT (a GlobalTypeVar) applied to types."""
    __slots__ = ()

    def __init__(self, func, args):
        ptrs = _ffi.ptr_array([a._ptr for a in args])
        self._ptr = _new_type(lib.psg_type_call, func._ptr, ptrs, len(args), what="TypeCall")

    @property
    def func(self):
        return _wrap_type(lib.psg_type_call_func(self._ptr))

    @property
    def args(self):
        return _fields(self._ptr)

    def __str__(self):
        return "%s[%s]" % (self.func, ", ".join(str(a) for a in self.args))


class RefType(Type):
    """RefType(value): the type of a mutable reference to `value`."""
    __slots__ = ()

    def __init__(self, value):
        self._ptr = _new_type(lib.psg_type_ref, value._ptr, what="RefType")

    @property
    def value(self):
        return _wrap_type(lib.psg_type_ref_value(self._ptr))

    def __str__(self):
        return "ref(%s)" % self.value


class EnvFunc:
    """tvm.ir.EnvFunc: a function known by its global name. Passage knows the
    type relations: "tvm.relay.type_relation.Identity", "...Broadcast", and
    each operator's by the operator's name."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    @staticmethod
    def get(name):
        return EnvFunc(name)



# Reference-owning base ---------------------------------------------------------------

class _Owned:
    """Owns one C reference; `_retain` and `_release` are the C functions."""
    __slots__ = ("_ptr", "__weakref__")
    _retain = None
    _release = None

    @classmethod
    def _own(cls, ptr):
        """A wrapper taking over the reference `ptr` (a new C reference)."""
        obj = cls.__new__(cls)
        obj._ptr = ptr
        return obj

    @classmethod
    def _borrow(cls, ptr):
        """A wrapper with its own reference to the borrowed `ptr`."""
        cls._retain(ptr)
        return cls._own(ptr)

    def __del__(self):
        ptr = getattr(self, "_ptr", None)
        if ptr:
            self._ptr = None
            try:
                type(self)._release(ptr)
            except Exception:
                pass

    def same_as(self, other):
        return isinstance(other, _Owned) and other._ptr == self._ptr

    def __eq__(self, other):
        return self.same_as(other)

    def __ne__(self, other):
        return not self.same_as(other)

    def __hash__(self):
        return hash(self._ptr)


# Tensors -----------------------------------------------------------------------------

def _flatten(value):
    """Shape and flat list of a nested list/tuple of scalars."""
    if isinstance(value, (list, tuple)):
        if not value:
            return (0,), []
        parts = [_flatten(v) for v in value]
        shape = parts[0][0]
        for p in parts:
            if p[0] != shape:
                raise ValueError("ragged nested list: cannot make a tensor")
        flat = [x for p in parts for x in p[1]]
        return (len(value),) + shape, flat
    return (), [value]


def _float_to_bf16(x):
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    bits += 0x7FFF + ((bits >> 16) & 1)  # round to nearest even
    return (bits >> 16) & 0xFFFF


class Tensor(_Owned):
    """An n-dimensional array (TVM's NDArray): `shape`, `dtype`, `numpy()`,
    `tolist()`. Build with `passage.nd.array(value, dtype=None)`."""
    __slots__ = ()
    _retain = staticmethod(lambda p: lib.psg_tensor_retain(p))
    _release = staticmethod(lambda p: lib.psg_tensor_release(p))

    def __init__(self, value, dtype=None):
        if isinstance(value, Tensor):
            lib.psg_tensor_retain(value._ptr)
            self._ptr = value._ptr
            return
        shape, dt, data = _tensor_source(value, dtype)
        dims = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        out = ctypes.c_void_p()
        buf = ctypes.create_string_buffer(data, max(len(data), 1))
        call(lib.psg_tensor_create, CTX, dtype_code(dt), dims, len(shape), buf, ctypes.byref(out),
             what="tensor")
        self._ptr = out.value

    @property
    def shape(self):
        return tuple(lib.psg_tensor_dim(self._ptr, i) for i in range(lib.psg_tensor_ndim(self._ptr)))

    @property
    def dtype(self):
        return dtype_name(lib.psg_tensor_dtype(self._ptr))

    def tobytes(self):
        n = lib.psg_tensor_nbytes(self._ptr)
        return ctypes.string_at(lib.psg_tensor_data(self._ptr), n) if n else b""

    def _flat(self):
        dt, raw = self.dtype, self.tobytes()
        if dt == "bfloat16":
            return [struct.unpack("<f", struct.pack("<I", h << 16))[0]
                    for h in struct.unpack("<%dH" % (len(raw) // 2), raw)]
        fmt = _STRUCT[dt]
        return list(struct.unpack("<%d%s" % (len(raw) // struct.calcsize(fmt), fmt), raw))

    def tolist(self):
        flat, shape = self._flat(), self.shape
        if not shape:
            return flat[0]

        def build(off, dims):
            if len(dims) == 1:
                return flat[off:off + dims[0]]
            step = 1
            for d in dims[1:]:
                step *= d
            return [build(off + i * step, dims[1:]) for i in range(dims[0])]
        return build(0, list(shape))

    def numpy(self):
        import numpy as np
        dt = self.dtype
        if dt == "bfloat16":
            return np.array(self._flat(), dtype=np.float32).reshape(self.shape)
        return np.frombuffer(self.tobytes(), dtype=np.dtype(dt).newbyteorder("<")).reshape(self.shape).copy()

    asnumpy = numpy

    def __eq__(self, other):
        return isinstance(other, Tensor) and bool(lib.psg_tensor_equal(self._ptr, other._ptr))

    def __hash__(self):
        return hash((self.dtype, self.shape, self.tobytes()))

    def __repr__(self):
        return "passage.nd.array(%r, dtype=%r)" % (self.tolist(), self.dtype)


def _tensor_source(value, dtype):
    """(shape, dtype name, little-endian bytes) of a Python value."""
    np = None
    try:
        import numpy as np  # optional
    except ImportError:
        pass
    if np is not None and isinstance(value, np.ndarray):
        arr = value
        if dtype is not None and dtype != "bfloat16":
            arr = arr.astype(dtype)
        dt = dtype or arr.dtype.name
        if dt == "bfloat16":
            flat = [_float_to_bf16(float(x)) for x in arr.reshape(-1)]
            return tuple(arr.shape), dt, struct.pack("<%dH" % len(flat), *flat)
        # Not np.ascontiguousarray: it makes a 0-d array 1-d (issue 18, item 4).
        arr = np.asarray(arr, dtype=arr.dtype.newbyteorder("<"), order="C")
        return tuple(arr.shape), dt, arr.tobytes()
    if np is not None and isinstance(value, np.generic):
        return _tensor_source(np.asarray(value), dtype)
    if isinstance(value, (bytes, bytearray, memoryview)) or hasattr(value, "__buffer__") \
            or _has_buffer(value):
        mv = memoryview(value)
        fmt = mv.format.lstrip("<=@")
        dt = dtype or {v: k for k, v in _STRUCT.items()}.get(fmt)
        if fmt in ("l", "L"):
            dt = dtype or ("int64" if fmt == "l" else "uint64")
        if dt is None:
            raise TypeError("cannot make a tensor from a buffer of format %r" % mv.format)
        return tuple(mv.shape or ()), dt, mv.tobytes()
    shape, flat = _flatten(value)
    if dtype is None:
        if flat and all(isinstance(x, bool) for x in flat):
            dtype = "bool"
        elif any(isinstance(x, float) for x in flat):
            dtype = "float32"
        elif all(isinstance(x, int) for x in flat):
            dtype = "int32"
        else:
            raise TypeError("cannot make a tensor from %r" % (value,))
    if dtype == "bfloat16":
        data = struct.pack("<%dH" % len(flat), *[_float_to_bf16(float(x)) for x in flat])
    else:
        fmt = _STRUCT.get(dtype)
        if fmt is None:
            raise ValueError("unknown dtype %r" % (dtype,))
        conv = float if fmt in "efd" else (bool if fmt == "?" else int)
        data = struct.pack("<%d%s" % (len(flat), fmt), *[conv(x) for x in flat])
    return shape, dtype, data


def _has_buffer(value):
    try:
        memoryview(value)
        return not isinstance(value, (str,))
    except TypeError:
        return False


# Attributes ----------------------------------------------------------------------

def _imm_value(value):
    """The Python number of a tir.IntImm / tir.FloatImm (TVM code passes them
    as attribute values and dimensions), or `value` itself."""
    name = type(value).__name__
    if name == "IntImm":
        return bool(value.value) if value.dtype == "bool" else int(value.value)
    if name == "FloatImm":
        return float(value.value)
    return value


def _attr_from_py(value, key=""):
    """A new C attr reference for a Python value."""
    out = ctypes.c_void_p()
    value = _imm_value(value)
    if value is None:
        call(lib.psg_attr_none, CTX, ctypes.byref(out))
    elif isinstance(value, bool):
        call(lib.psg_attr_bool, CTX, value, ctypes.byref(out))
    elif isinstance(value, int) or type(value).__name__.startswith(("int", "uint")) \
            and hasattr(value, "__index__"):
        call(lib.psg_attr_int, CTX, int(value), ctypes.byref(out))
    elif isinstance(value, float) or type(value).__name__.startswith("float"):
        call(lib.psg_attr_float, CTX, float(value), ctypes.byref(out))
    elif isinstance(value, str):
        code = lib.psg_dtype_from_name(enc(value), len(enc(value))) if "dtype" in key else 0
        if code:
            call(lib.psg_attr_dtype, CTX, code, ctypes.byref(out))
        else:
            b = enc(value)
            call(lib.psg_attr_string, CTX, b, len(b), ctypes.byref(out))
    elif isinstance(value, (list, tuple)) or type(value).__name__ == "ndarray":
        items = [_attr_from_py(v, key) for v in list(value)]
        try:
            call(lib.psg_attr_list, CTX, _ffi.ptr_array(items), len(items), ctypes.byref(out))
        finally:
            for it in items:
                lib.psg_attr_release(it)
    elif isinstance(value, (dict, Attrs)):
        d = attrs_from_py(value)
        try:
            call(lib.psg_attr_dict, CTX, d, ctypes.byref(out))
        finally:
            lib.psg_attrs_release(d)
    else:
        raise TypeError("cannot convert %r to an attribute value" % (value,))
    return out.value


def attrs_from_py(mapping):
    """A new C attrs reference (or None for None/empty)."""
    if mapping is None:
        return None
    if isinstance(mapping, Attrs):
        mapping = dict(mapping.items())
    keys = list(mapping.keys())
    vals = [_attr_from_py(mapping[k], k) for k in keys]
    out = ctypes.c_void_p()
    try:
        call(lib.psg_attrs_create, CTX, _ffi.str_array(keys), _ffi.ptr_array(vals), len(keys),
             ctypes.byref(out), what="attrs")
    finally:
        for v in vals:
            lib.psg_attr_release(v)
    return out.value


def _attr_to_py(a):
    kind = lib.psg_attr_kind(a)
    if kind == 0:
        return None
    if kind == 1:
        return lib.psg_attr_get_int(a)
    if kind == 2:
        return lib.psg_attr_get_float(a)
    if kind == 3:
        return s(lib.psg_attr_get_string(a))
    if kind == 4:
        return bool(lib.psg_attr_get_bool(a))
    if kind == 5:
        return dtype_name(lib.psg_attr_get_dtype(a))
    if kind == 6:
        return [_attr_to_py(lib.psg_attr_list_get(a, i)) for i in range(lib.psg_attr_list_len(a))]
    if kind == 7:
        return _DictAttr(_attrs_items(lib.psg_attr_get_dict(a)))
    if kind == 8:  # a GlobalVar reference (call_lowered's all_prim_fn_vars)
        return GlobalVar(s(lib.psg_attr_get_global_var(a)))
    raise ValueError("unknown attribute kind %d" % kind)


class _DictAttr(dict):
    """A dict attribute value: a dict whose keys also read as attributes, as
    TVM's DictAttrs do (call_lowered's metadata["relay_attrs"].Primitive)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def _attrs_items(ptr):
    return [(s(lib.psg_attrs_key(ptr, i)), _attr_to_py(lib.psg_attrs_get_value(ptr, i)))
            for i in range(lib.psg_attrs_count(ptr))]


class Attrs:
    """Read-only attributes of a call, function or module: `attrs.axis` or
    `attrs["axis"]`, `keys()`, `items()`."""

    def __init__(self, items):
        self._items = dict(items)

    def __getattr__(self, name):
        try:
            return self.__dict__["_items"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, k):
        return self._items[k]

    def get(self, k, default=None):
        return self._items.get(k, default)

    def __contains__(self, k):
        return k in self._items

    def keys(self):
        return self._items.keys()

    def items(self):
        return self._items.items()

    def __len__(self):
        return len(self._items)

    def __eq__(self, other):  # structural, as TVM compares attributes
        return isinstance(other, Attrs) and _container_equal(self, other, False)

    def __repr__(self):
        return "Attrs(%r)" % (self._items,)


def _attrs_of(ptr):
    return Attrs(_attrs_items(ptr)) if ptr else None


# Expressions ------------------------------------------------------------------------

class Span:
    """tvm.ir.Span(source_name, line, end_line, column, end_column): a source
    range (line 0 = none); `file`, `col` and `end_col` are other names of
    source_name, column and end_column."""

    def __init__(self, source_name, line, end_line, column, end_column):
        self.source_name, self.line, self.end_line = source_name, line, end_line
        self.column, self.end_column = column, end_column

    file = property(lambda self: self.source_name)
    col = property(lambda self: self.column)
    end_col = property(lambda self: self.end_column)

    def same_as(self, other):
        return self is other

    def __eq__(self, other):
        return isinstance(other, Span) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def _key(self):
        return (self.source_name, self.line, self.end_line, self.column, self.end_column)

    def __repr__(self):
        return "Span(%r, %d, %d, %d, %d)" % self._key()


def _out():
    return ctypes.c_void_p()


def _expr_ptr(e):
    if isinstance(e, Expr):
        return e._ptr
    raise TypeError("expected a Relay expression, got %r" % (type(e).__name__,))


class Expr(_Owned):
    """Base of every Relay expression (tvm.relay.Expr)."""
    __slots__ = ()
    _retain = staticmethod(lambda p: lib.psg_expr_retain(p))
    _release = staticmethod(lambda p: lib.psg_expr_release(p))

    @property
    def checked_type(self):
        t = _wrap_type(lib.psg_expr_checked_type(self._ptr))
        if t is None:
            raise ValueError("the type of this expression is not checked yet: run InferType")
        return t

    @property
    def span(self):
        sp = _ffi.Span()
        lib.psg_expr_span(self._ptr, ctypes.byref(sp))
        return Span(s(sp.file), sp.line, sp.end_line, sp.col, sp.end_col) if sp.line else None

    def _text(self, flags):
        out = ctypes.c_void_p()
        call(lib.psg_expr_print_text, self._ptr, flags, ctypes.byref(out), None, what="print")
        return take_string(out.value)

    def astext(self, show_meta_data=True):
        """TVM's AsText: the version line, free variables as `free_var`, the
        `/* ty=T */` of checked nodes, the metadata section; relay.parse_expr
        reads it back."""
        return self._text(_PRINT_CHECKED_TYPES | (0 if show_meta_data else _PRINT_NO_METADATA))

    def __str__(self):
        # TVM's PrettyPrint: no version line, no metadata section.
        return self._text(_PRINT_CHECKED_TYPES | _PRINT_NO_METADATA | _PRINT_NO_HEADER)

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, str(self))

    # TVM's operator sugar on relay.Expr.
    def _bin(self, other, op, swap=False):
        from . import relay
        if not isinstance(other, Expr):
            other = relay.const(other, _scalar_dtype(self, other))
        a, b = (other, self) if swap else (self, other)
        return relay.Call(relay.op.get(op), [a, b])

    def __add__(self, o): return self._bin(o, "add")
    def __radd__(self, o): return self._bin(o, "add", True)
    def __sub__(self, o): return self._bin(o, "subtract")
    def __rsub__(self, o): return self._bin(o, "subtract", True)
    def __mul__(self, o): return self._bin(o, "multiply")
    def __rmul__(self, o): return self._bin(o, "multiply", True)
    def __truediv__(self, o): return self._bin(o, "divide")
    def __rtruediv__(self, o): return self._bin(o, "divide", True)
    # Comparisons build calls as in TVM (`a < b` is less(a, b)); `==` stays identity.
    def __lt__(self, o): return self._bin(o, "less")
    def __gt__(self, o): return self._bin(o, "greater")
    def __le__(self, o): return self._bin(o, "less_equal")
    def __ge__(self, o): return self._bin(o, "greater_equal")

    def __neg__(self):
        from . import relay
        return relay.Call(relay.op.get("negative"), [self])

    def __call__(self, *args):
        """`f(x, y)`: the Call of this expression (TVM's ExprWithOp)."""
        from . import relay
        return relay.Call(self, list(args))

    def astype(self, dtype):
        """A cast of this expression to `dtype` (tvm.relay.Expr.astype)."""
        from . import relay
        return relay.Call(relay.op.get("cast"), [self], {"dtype": dtype})

    __eq__ = _Owned.__eq__
    __hash__ = _Owned.__hash__


def _scalar_dtype(expr, value):
    try:
        t = lib.psg_expr_checked_type(expr._ptr) or (
            lib.psg_var_type(expr._ptr) if lib.psg_expr_kind(expr._ptr) == 0 else None)
        if t and lib.psg_type_kind(t) == 1:
            return dtype_name(lib.psg_type_dtype(t))
    except Exception:
        pass
    return "float32" if isinstance(value, float) else "int32"


# Printing flags (include/passage/text.h).
_PRINT_NO_METADATA, _PRINT_CHECKED_TYPES, _PRINT_NO_HEADER = 1, 2, 4


def _wrap_expr(ptr, own=True):
    """A Python wrapper for `ptr`; `own` False retains a borrowed pointer."""
    if not ptr:
        return None
    if not own:
        lib.psg_expr_retain(ptr)
    cls = _EXPR_CLASSES[lib.psg_expr_kind(ptr)]
    obj = object.__new__(cls)
    obj._ptr = ptr
    return obj


def _child(getter):
    """A read-only property: the child expression `getter` returns (borrowed
    by C, so wrapped with a new reference)."""
    return property(lambda self: _wrap_expr(getter(self._ptr), False))


def _new(cls, fn, *args, what=None):
    out = ctypes.c_void_p()
    call(fn, CTX, *args, ctypes.byref(out), what=what or cls.__name__)
    obj = object.__new__(cls)
    obj._ptr = out.value
    return obj


class Var(Expr):
    """Var(name_hint, type_annotation=None)."""
    __slots__ = ()

    def __new__(cls, name_hint, type_annotation=None):
        return _new(cls, lib.psg_var_create, enc(name_hint),
                    type_annotation._ptr if type_annotation is not None else None, None)

    def __init__(self, *a, **k):
        pass

    @property
    def name_hint(self):
        return s(lib.psg_var_name(self._ptr))

    @property
    def type_annotation(self):
        return _wrap_type(lib.psg_var_type(self._ptr))

    @property
    def vid(self):
        """The variable's identity (TVM's Id): `same_as` and `==` hold for
        the vids of the same variable, wherever a pass put it."""
        return Id(self)


class Id:
    """tvm.relay.Id, a variable's identity. A Passage Var is its own
    identity (passes keep the node; a renamed or re-annotated variable is a
    new one), so an Id stands for the Var node it came from."""
    __slots__ = ("_var",)

    def __init__(self, var):
        self._var = var

    @property
    def name_hint(self):
        return self._var.name_hint

    def same_as(self, other):
        return isinstance(other, Id) and self._var.same_as(other._var)

    def __eq__(self, other):
        return self.same_as(other)

    def __hash__(self):
        return hash(self._var._ptr)

    def __repr__(self):
        return "Id(%s)" % self.name_hint


class GlobalVar(Expr):
    """GlobalVar(name_hint): the name of a module function."""
    __slots__ = ()

    def __new__(cls, name_hint):
        return _new(cls, lib.psg_global_var_create, enc(name_hint), None)

    def __init__(self, *a, **k):
        pass

    @property
    def name_hint(self):
        return s(lib.psg_global_var_name(self._ptr))


class Constant(Expr):
    """Constant(data): `data` a Tensor (see relay.const for Python values)."""
    __slots__ = ()

    def __new__(cls, data):
        if not isinstance(data, Tensor):
            data = Tensor(data)
        return _new(cls, lib.psg_constant_create, data._ptr, None)

    def __init__(self, *a, **k):
        pass

    @property
    def data(self):
        return Tensor._borrow(lib.psg_constant_get_tensor(self._ptr))


class Tuple(Expr):
    __slots__ = ()

    def __new__(cls, fields):
        fields = list(fields)
        return _new(cls, lib.psg_tuple_create, _ffi.ptr_array([_expr_ptr(f) for f in fields]),
                    len(fields), None)

    def __init__(self, *a, **k):
        pass

    @property
    def fields(self):
        return [_wrap_expr(lib.psg_tuple_get_field(self._ptr, i), False)
                for i in range(lib.psg_tuple_size(self._ptr))]

    def __len__(self):
        return lib.psg_tuple_size(self._ptr)

    def __getitem__(self, i):
        return self.fields[i]


class TupleGetItem(Expr):
    __slots__ = ()

    def __new__(cls, tuple_value, index):
        return _new(cls, lib.psg_tuple_get_item_create, _expr_ptr(tuple_value), int(index), None)

    def __init__(self, *a, **k):
        pass

    tuple_value = _child(lib.psg_tuple_get_item_get_tuple)

    @property
    def index(self):
        return lib.psg_tuple_get_item_index(self._ptr)


class Call(Expr):
    """Call(op, args, attrs=None): `op` an Op, Function, GlobalVar or Var;
    `attrs` a dict."""
    __slots__ = ()

    def __new__(cls, op, args, attrs=None, type_args=None, span=None):
        args = list(args)
        a = attrs_from_py(attrs) if attrs else None
        try:
            return _new(cls, lib.psg_call_create, _expr_ptr(op),
                        _ffi.ptr_array([_expr_ptr(x) for x in args]), len(args), a, None)
        finally:
            if a:
                lib.psg_attrs_release(a)

    def __init__(self, *a, **k):
        pass

    op = _child(lib.psg_call_get_callee)

    @property
    def args(self):
        return [_wrap_expr(lib.psg_call_get_arg(self._ptr, i), False)
                for i in range(lib.psg_call_num_args(self._ptr))]

    @property
    def attrs(self):
        return _attrs_of(lib.psg_call_get_attrs(self._ptr))

    @property
    def type_args(self):
        """The type arguments TVM's InferType records on a call, derived here
        from the checked types (a Passage Call stores none; docs/design.md,
        "type_args"): for an op, the argument types (TVM's PrimitiveCall);
        for a callee of polymorphic function type, its type parameters as
        this call instantiates them; [] for a monomorphic callee or before
        InferType."""
        args = self.args
        if any(not lib.psg_expr_checked_type(a._ptr) for a in args):
            return []
        if isinstance(self.op, Op):
            return [a.checked_type for a in args]
        ft = _wrap_type(lib.psg_expr_checked_type(self.op._ptr))
        if not isinstance(ft, FuncType) or not ft.type_params:
            return []
        bound = {}
        pairs = list(zip(ft.arg_types, [a.checked_type for a in args]))
        if lib.psg_expr_checked_type(self._ptr):
            pairs.append((ft.ret_type, self.checked_type))
        while pairs:  # match the generic type against the instance
            gen, inst = pairs.pop()
            if isinstance(gen, TypeVar):
                bound.setdefault(gen._ptr, inst)
            elif isinstance(gen, FuncType) and isinstance(inst, FuncType):
                pairs.extend(zip(gen.arg_types, inst.arg_types))
                pairs.append((gen.ret_type, inst.ret_type))
            elif type(gen) is type(inst) and isinstance(gen, (TupleType, TypeCall)):
                pairs.extend(zip(gen.fields, inst.fields) if isinstance(gen, TupleType)
                             else zip(gen.args, inst.args))
        return [bound.get(p._ptr, p) for p in ft.type_params]


class Let(Expr):
    __slots__ = ()

    def __new__(cls, variable, value, body):
        return _new(cls, lib.psg_let_create, _expr_ptr(variable), _expr_ptr(value), _expr_ptr(body),
                    None)

    def __init__(self, *a, **k):
        pass

    var = _child(lib.psg_let_get_var)

    value = _child(lib.psg_let_get_value)

    body = _child(lib.psg_let_get_body)


class If(Expr):
    __slots__ = ()

    def __new__(cls, cond, true_branch, false_branch):
        return _new(cls, lib.psg_if_create, _expr_ptr(cond), _expr_ptr(true_branch),
                    _expr_ptr(false_branch), None)

    def __init__(self, *a, **k):
        pass

    cond = _child(lib.psg_if_get_cond)

    true_branch = _child(lib.psg_if_get_then)

    false_branch = _child(lib.psg_if_get_else)


class Function(Expr):
    """Function(params, body, ret_type=None, type_params=None, attrs=None)."""
    __slots__ = ()

    def __new__(cls, params, body, ret_type=None, type_params=None, attrs=None, span=None):
        params = list(params)
        a = attrs_from_py(attrs) if attrs else None
        try:
            tps = list(type_params or [])
            return _new(cls, lib.psg_function_create_poly,
                        _ffi.ptr_array([_expr_ptr(p) for p in params]), len(params),
                        _expr_ptr(body), ret_type._ptr if ret_type is not None else None,
                        _ffi.ptr_array([t._ptr for t in tps]), len(tps), a, None)
        finally:
            if a:
                lib.psg_attrs_release(a)

    def __init__(self, *a, **k):
        pass

    @property
    def params(self):
        return [_wrap_expr(lib.psg_function_get_param(self._ptr, i), False)
                for i in range(lib.psg_function_num_params(self._ptr))]

    body = _child(lib.psg_function_get_body)

    @property
    def type_params(self):
        return [_wrap_type(lib.psg_function_type_param(self._ptr, i))
                for i in range(lib.psg_function_num_type_params(self._ptr))]

    @property
    def ret_type(self):
        return _wrap_type(lib.psg_function_ret_type(self._ptr))

    @property
    def attrs(self):
        return _attrs_of(lib.psg_function_get_attrs(self._ptr))

    def with_attr(self, key, value):
        items = dict(self.attrs.items()) if self.attrs else {}
        items[key] = value
        return Function(self.params, self.body, self.ret_type, attrs=items)


class Op(Expr):
    """An operator node; get one with `passage.relay.op.get(name)`."""
    __slots__ = ()

    def __new__(cls, name):
        return _new(cls, lib.psg_op_get, enc(name))

    def __init__(self, *a, **k):
        pass

    @property
    def name(self):
        return s(lib.psg_op_name(self._ptr))


_EXPR_CLASSES = {0: Var, 1: GlobalVar, 2: Constant, 3: Tuple, 4: TupleGetItem, 5: Call, 6: Let,
                 7: If, 8: Function, 9: Op}


# IRModule ------------------------------------------------------------------------------

class IRModule(_Owned):
    """IRModule(functions=None, attrs=None): a map from GlobalVar (or name) to
    function. The C module is immutable; this Python object is a handle that
    `update`, `__setitem__` and `remove` point at a new C module, as TVM's
    copy-on-write module looks mutable from Python."""
    __slots__ = ()
    _retain = staticmethod(lambda p: lib.psg_module_retain(p))
    _release = staticmethod(lambda p: lib.psg_module_release(p))

    def __init__(self, functions=None, attrs=None, type_definitions=None):
        out = ctypes.c_void_p()
        call(lib.psg_module_create, CTX, ctypes.byref(out), what="IRModule")
        self._ptr = out.value
        for k, v in (functions or {}).items():
            self._set(k, v, update=False)
        for k, v in (type_definitions or {}).items():
            self._set(k, v, update=False)
        if attrs:
            a = attrs_from_py(attrs)
            try:
                self._replace(lambda o: lib.psg_module_with_attrs(self._ptr, a, o))
            finally:
                lib.psg_attrs_release(a)

    @staticmethod
    def from_expr(expr, functions=None):
        mod = IRModule(functions)
        if _is_prim_func(expr):
            mod["main"] = expr
            return mod
        if not isinstance(expr, Function):
            from .relay.analysis import free_vars
            expr = Function(free_vars(expr), expr)
        mod["main"] = expr
        return mod

    def _replace(self, fn):
        out = ctypes.c_void_p()
        call(fn, ctypes.byref(out), what="IRModule")
        old, self._ptr = self._ptr, out.value
        lib.psg_module_release(old)

    def _set(self, var, func, update=True):
        if type(func).__name__ == "TypeData":  # mod[gtv] = TypeData (relay/adt.py)
            from .relay import adt
            return adt.set_type_def(self, var, func, update)
        if isinstance(var, str):
            existing = self.get_global_var(var) if var in self else None
            var = existing if existing is not None else GlobalVar(var)
        if not isinstance(var, GlobalVar):
            raise TypeError("IRModule keys are GlobalVars or names, got %r" % type(var).__name__)
        if _is_prim_func(func):
            fn = lib.psg_module_update_prim_func if update else lib.psg_module_add_prim_func
        elif isinstance(func, Function):
            fn = lib.psg_module_update if update else lib.psg_module_add
        else:
            raise TypeError("IRModule values are Functions or PrimFuncs, got %r"
                            % type(func).__name__)
        self._replace(lambda o: fn(self._ptr, var._ptr, func._ptr, o))

    def __setitem__(self, var, func):
        self._set(var, func, update=True)

    def _add(self, var, func, update=False):
        self._set(var, func, update=update)

    def add(self, var, func, update=False):
        self._set(var, func, update=update)

    def update(self, other):
        """Adds (or replaces) every function of `other` (an IRModule or dict)."""
        items = other.functions.items() if isinstance(other, IRModule) else dict(other).items()
        for gv, f in items:
            name = gv if isinstance(gv, str) else gv.name_hint
            self._set(self.get_global_var(name) if name in self else gv, f, update=True)

    def update_func(self, var, func):
        self._set(var, func, update=True)

    def remove(self, var):
        name = var if isinstance(var, str) else var.name_hint
        self._replace(lambda o: lib.psg_module_remove(self._ptr, enc(name), o))

    def __delitem__(self, var):
        self.remove(var)

    def __getitem__(self, var):
        if isinstance(var, GlobalTypeVar):
            from .relay import adt
            return adt.get_type_def(self, var)
        name = var if isinstance(var, str) else var.name_hint
        i = lib.psg_module_find(self._ptr, enc(name))
        if i < 0:
            raise KeyError("no function named %r in the module" % name)
        return self._function_at(i)

    def _function_at(self, i):
        """Entry i: a Relay Function or a tir.PrimFunc."""
        ptr = lib.psg_module_get_function(self._ptr, i)
        if ptr:
            return _wrap_expr(ptr, False)
        from .tir import _api as tir_api
        return tir_api.borrowed(lib.psg_module_get_prim_func(self._ptr, i))

    def __contains__(self, var):
        name = var if isinstance(var, str) else var.name_hint
        return lib.psg_module_find(self._ptr, enc(name)) >= 0

    def __len__(self):
        return lib.psg_module_num_functions(self._ptr)

    def get_global_var(self, name):
        i = lib.psg_module_find(self._ptr, enc(name))
        if i < 0:
            raise ValueError("Cannot find global var \"%s\" in the Module" % name)
        return _wrap_expr(lib.psg_module_get_global_var(self._ptr, i), False)

    def get_global_type_var(self, name):
        from .relay import adt
        return adt.get_global_type_var(self, name)

    def get_global_type_vars(self):
        return list(self.type_definitions.keys())

    def get_constructor(self, name):
        from .relay import adt
        return adt.get_constructor(self, name)

    def import_from_std(self, file_to_import):
        """Parses relay/std/FILE (prelude.rly, nat.rly, gradient.rly) into this module."""
        from .relay import adt
        adt.import_from_std(self, file_to_import)

    def get_type(self, name):
        """TVM's IRModule.get_type: the ADT's GlobalTypeVar and its constructors."""
        td = self[self.get_global_type_var(name)]
        return tuple([td.header] + list(td.constructors))

    @property
    def type_definitions(self):
        from .relay import adt
        return adt.type_definitions(self)

    def get_global_vars(self):
        return [_wrap_expr(lib.psg_module_get_global_var(self._ptr, i), False)
                for i in range(len(self))]

    @property
    def functions(self):
        """A dict GlobalVar -> function, in module order."""
        return {_wrap_expr(lib.psg_module_get_global_var(self._ptr, i), False):
                self._function_at(i) for i in range(len(self))}

    @property
    def attrs(self):
        return _attrs_of(lib.psg_module_get_attrs(self._ptr))

    def with_attr(self, key, value):
        items = dict(self.attrs.items()) if self.attrs else {}
        items[key] = value
        out = IRModule._borrow(self._ptr)
        a = attrs_from_py(items)
        try:
            out._replace(lambda o: lib.psg_module_with_attrs(out._ptr, a, o))
        finally:
            lib.psg_attrs_release(a)
        return out

    def astext(self, show_meta_data=True):
        """TVM's AsText, with the `/* ty=T */` of checked nodes."""
        out = ctypes.c_void_p()
        flags = _PRINT_CHECKED_TYPES | (0 if show_meta_data else _PRINT_NO_METADATA)
        call(lib.psg_module_print, self._ptr, flags, ctypes.byref(out), None, what="print")
        return take_string(out.value)

    def __str__(self):
        # As TVM: a module of PrimFuncs only prints as TVMScript.
        return self.script()

    def __repr__(self):
        return self.script()

    def script(self, *, show_header=True, **_options):
        """TVMScript of a module of PrimFuncs (passage.tir._printing); a
        module holding Relay functions prints as Relay text."""
        if len(self) and all(_is_prim_func(self[g]) for g in self.get_global_vars()):
            from .tir import _printing
            return _printing.script_module(self, show_header)
        return self.astext()

    def copy(self):
        return IRModule._borrow(self._ptr)


def _is_prim_func(obj):
    return type(obj).__name__ == "PrimFunc" and type(obj).__module__.startswith(__package__ + ".tir")


def _is_tir(obj):
    return type(obj).__module__.startswith(__package__ + ".tir") and hasattr(obj, "_ptr")


# Structural equality ------------------------------------------------------------------

def structural_equal(lhs, rhs, map_free_vars=False):
    """TVM's StructuralEqual: alpha-equivalence on bound variables; free
    variables equal only themselves, or, with map_free_vars, pair one to one
    with the other side's free variables."""
    if _is_tir(lhs) and _is_tir(rhs):
        return bool(lib.psg_tir_structural_equal_ex(lhs._ptr, rhs._ptr, bool(map_free_vars), None))
    if isinstance(lhs, Type) and isinstance(rhs, Type):
        ca, cb = getattr(lhs, "type_constraints", []), getattr(rhs, "type_constraints", [])
        if not ca and not cb:
            return bool(lib.psg_type_structural_equal(lhs._ptr, rhs._ptr, bool(map_free_vars)))
        from .relay.type_solver import _relation_name
        if len(ca) != len(cb) or any(_relation_name(x.func) != _relation_name(y.func) or x.num_inputs != y.num_inputs
                                     or not _container_equal(x.attrs, y.attrs, False) or len(x.args) != len(y.args)
                                     for x, y in zip(ca, cb)):
            return False

        # The constraints' arguments join the arguments of one function type,
        # so that the type parameters bind them too.
        def joined(ft):
            return FuncType(list(ft.arg_types) + [TupleType(c.args) for c in ft.type_constraints], ft.ret_type,
                            ft.type_params)
        return bool(lib.psg_type_structural_equal(joined(lhs)._ptr, joined(rhs)._ptr, bool(map_free_vars)))
    from .relay.type_solver import TypeRelation, _relation_name
    if isinstance(lhs, TypeRelation) and isinstance(rhs, TypeRelation):
        # The arguments compare as one tuple type, so free variables pair
        # consistently across them.
        return (_relation_name(lhs.func) == _relation_name(rhs.func) and lhs.num_inputs == rhs.num_inputs
                and _container_equal(lhs.attrs, rhs.attrs, False) and len(lhs.args) == len(rhs.args)
                and structural_equal(TupleType(lhs.args), TupleType(rhs.args), map_free_vars))
    if isinstance(lhs, IRModule) and isinstance(rhs, IRModule):
        return bool(lib.psg_module_structural_equal_ex(lhs._ptr, rhs._ptr, bool(map_free_vars), None))
    if isinstance(lhs, Expr) and isinstance(rhs, Expr):
        return bool(lib.psg_expr_structural_equal_ex(lhs._ptr, rhs._ptr, bool(map_free_vars), None))
    from .relay import adt
    if isinstance(lhs, adt.Pattern) and isinstance(rhs, adt.Pattern):
        return adt.pattern_structural_equal(lhs, rhs, map_free_vars)
    if isinstance(lhs, adt.TypeData) and isinstance(rhs, adt.TypeData):
        return adt.type_data_structural_equal(lhs, rhs, map_free_vars)
    return _container_equal(lhs, rhs, map_free_vars)


def _container_equal(lhs, rhs, map_free_vars):
    """structural_equal of containers (lists, tuples, dicts, Attrs: item by
    item) and plain values (strings, None, Python scalars: by type and value)."""
    if isinstance(lhs, Attrs) and isinstance(rhs, Attrs):
        lhs, rhs = dict(lhs.items()), dict(rhs.items())
    if isinstance(lhs, dict) and isinstance(rhs, dict):
        return lhs.keys() == rhs.keys() and all(structural_equal(v, rhs[k], map_free_vars) for k, v in lhs.items())
    if isinstance(lhs, (list, tuple)) and isinstance(rhs, (list, tuple)):
        return len(lhs) == len(rhs) and all(structural_equal(a, b, map_free_vars) for a, b in zip(lhs, rhs))
    if isinstance(lhs, str) and isinstance(rhs, str):
        return str(lhs) == str(rhs)
    if lhs is None or rhs is None:
        return lhs is rhs
    if type(lhs) in (bool, int, float) and type(rhs) in (bool, int, float):
        return type(lhs) is type(rhs) and lhs == rhs
    return False


def structural_hash(node, map_free_vars=False):
    if isinstance(node, IRModule):
        return lib.psg_module_structural_hash(node._ptr)
    if isinstance(node, Expr):
        return lib.psg_expr_structural_hash(node._ptr)
    if _is_tir(node):
        return lib.psg_tir_structural_hash(node._ptr)
    if isinstance(node, Type):
        return hash(node)
    from .relay import adt
    if isinstance(node, adt.Pattern):
        return adt.pattern_structural_hash(node)
    if isinstance(node, adt.TypeData):
        return adt.type_data_structural_hash(node)
    raise TypeError("structural_hash of %r" % type(node).__name__)


def assert_structural_equal(lhs, rhs, map_free_vars=False):
    """Raises ValueError naming the first difference."""
    path = ctypes.c_void_p()
    if _is_tir(lhs) and _is_tir(rhs):
        eq = lib.psg_tir_structural_equal_ex(lhs._ptr, rhs._ptr, bool(map_free_vars), ctypes.byref(path))
    elif isinstance(lhs, IRModule) and isinstance(rhs, IRModule):
        eq = lib.psg_module_structural_equal_ex(lhs._ptr, rhs._ptr, bool(map_free_vars), ctypes.byref(path))
    elif isinstance(lhs, Expr) and isinstance(rhs, Expr):
        eq = lib.psg_expr_structural_equal_ex(lhs._ptr, rhs._ptr, bool(map_free_vars), ctypes.byref(path))
    else:
        eq = structural_equal(lhs, rhs, map_free_vars)
    where = take_string(path.value)
    if not eq:
        raise ValueError("StructuralEqual check failed%s:\n%s\n---\n%s"
                         % (" at " + where if where else "", lhs, rhs))


class Range:
    """tvm.ir.Range(begin, end=None): the integers [begin, end) as min and
    extent PrimExprs ([0, begin) when end is None); the dom of a tir.IterVar."""
    __slots__ = ("min", "extent")

    def __init__(self, begin, end=None, span=None):
        from .tir import expr as _e
        if end is None:
            begin, end = 0, begin
        begin, end = _e.convert(begin), _e.convert(end)
        if begin.dtype != end.dtype and isinstance(begin, _e.IntImm):
            begin = _e.const(begin.value, end.dtype)
        self.min = begin
        self.extent = end - begin

    @staticmethod
    def from_min_extent(min_value, extent, span=None):
        """The range [min_value, min_value + extent)."""
        from .tir import expr as _e
        r = object.__new__(Range)
        r.min = _e.convert(min_value)
        r.extent = _e.convert(extent)
        return r

    def __repr__(self):
        return "I.Range(%r, %r)" % (self.min, self.min + self.extent)


# tvm.ir.module.IRModule: the class lives here; the submodule path names this module.
module = sys.modules[__name__]


def __getattr__(name):
    """tvm.ir.PrimExpr: the base class of TIR expressions (passage.tir.PrimExpr),
    looked up lazily (passage.tir imports this module)."""
    if name == "PrimExpr":
        from .tir.expr import PrimExpr
        return PrimExpr
    raise AttributeError("module 'passage.ir' has no attribute %r" % (name,))


# `passage.ir.module`, where TVM's tvm.ir.module keeps IRModule
# (`from tvm.ir.module import IRModule`): passage.ir is a package of
# submodules made here (an empty __path__: nothing is searched on disk).
__path__ = []


def _submodule(name, **members):
    import types
    m = types.ModuleType(__name__ + "." + name)
    m.__dict__.update(members)
    sys.modules[m.__name__] = m
    return m


module = _submodule("module", IRModule=IRModule)


# Serialization and reflection (tvm.ir.save_json / load_json / make_node) -------------------

_JSON_FORMAT = "passage-relay-text/1"


def _to_json(node):
    """The JSON value of one node (see save_json)."""
    from . import runtime
    name = type(node).__name__
    if isinstance(node, IRModule):
        return {"kind": "IRModule", "text": node.astext()}
    if isinstance(node, Function):
        return {"kind": "Function", "text": IRModule({"main": node}).astext()}
    if isinstance(node, Op):
        return {"kind": "Op", "name": node.name}
    if isinstance(node, GlobalVar):
        return {"kind": "GlobalVar", "name": node.name_hint}
    if isinstance(node, Expr):
        return {"kind": "Expr", "text": IRModule.from_expr(node).astext()}
    if isinstance(node, Type):
        return {"kind": "Type", "type": _type_to_json(node, {})}
    from .relay.type_solver import TypeRelation
    if isinstance(node, TypeRelation):
        return {"kind": "TypeRelation", "type": _type_to_json(node, {})}
    if name in ("IntImm", "FloatImm"):
        value = node.value
        if name == "FloatImm" and value != value:
            value = "nan"
        elif name == "FloatImm" and value in (float("inf"), float("-inf")):
            value = "inf" if value > 0 else "-inf"
        return {"kind": name, "dtype": node.dtype, "value": value}
    if name in ("Var", "SizeVar") and hasattr(node, "dtype"):   # a TIR variable (a new one on load)
        return {"kind": "tir." + name, "name": node.name, "dtype": node.dtype}
    if isinstance(node, runtime.String) or isinstance(node, str):
        return {"kind": "String", "value": str(node)}
    if isinstance(node, Span):
        return {"kind": "Span", "fields": list(node._key())}
    if node is None or type(node) in (bool, int, float):  # plain Python values stay themselves
        return {"kind": "Py", "value": node}
    if isinstance(node, Attrs):
        return {"kind": "Attrs", "items": [[k, _to_json(v)] for k, v in node.items()]}
    if isinstance(node, runtime.Map) or isinstance(node, dict):
        return {"kind": "Map", "items": [[_to_json(k), _to_json(v)] for k, v in node.items()]}
    if isinstance(node, (list, tuple)):
        return {"kind": "Array", "items": [_to_json(v) for v in node]}
    raise TypeError("save_json: cannot serialize a %s" % name)


def _from_json(d):
    from . import parse, runtime, tir
    kind = d["kind"]
    if kind == "Op":
        return Op(d["name"])
    if kind == "GlobalVar":
        return GlobalVar(d["name"])
    if kind in ("IntImm", "FloatImm"):
        v = d["value"]
        v = float(v) if isinstance(v, str) else v
        return getattr(tir, kind)(d["dtype"], v)
    if kind in ("tir.Var", "tir.SizeVar"):
        return getattr(tir, kind[4:])(d["name"], d["dtype"])
    if kind == "String":
        return runtime.String(d["value"])
    if kind == "Span":
        return Span(*d["fields"])
    if kind == "Py":
        return d["value"]
    if kind == "Attrs":
        return Attrs((k, _from_json(v)) for k, v in d["items"])
    if kind == "Array":
        return runtime.Array(_from_json(v) for v in d["items"])
    if kind == "Map":
        return runtime.Map((_from_json(k), _from_json(v)) for k, v in d["items"])
    if kind in ("Type", "TypeRelation"):
        return _type_from_json(d["type"], {})
    mod = parse(d["text"])
    if kind == "IRModule":
        return mod
    main = mod["main"]
    if kind == "Function":
        return main
    if kind == "Expr":
        return main.body
    if kind == "Type":
        return main.params[0].type_annotation
    raise ValueError("load_json: unknown kind %r" % (kind,))


def _type_to_json(t, ids):
    """A type (or TypeRelation) as nested JSON; each type variable gets an id
    in `ids` (by identity), so that the same variable loads as one new one."""
    from .relay.type_solver import TypeRelation, _relation_name
    if isinstance(t, TypeRelation):
        return {"t": "TypeRelation", "func": None if t.func is None else _relation_name(t.func),
                "num_inputs": t.num_inputs,
                "attrs": _to_json(dict(t.attrs.items())) if t.attrs is not None else None,
                "args": [_type_to_json(a, ids) for a in t.args]}
    if isinstance(t, (TypeVar, GlobalTypeVar, IncompleteType)):
        return {"t": type(t).__name__, "id": ids.setdefault(t._ptr, len(ids)),
                "name": getattr(t, "name_hint", None), "kind": t.kind}
    if isinstance(t, TensorType):
        return {"t": "TensorType", "shape": [-1 if d is None else int(_imm_value(d)) for d in t.shape],
                "dtype": t.dtype}
    if isinstance(t, TupleType):
        return {"t": "TupleType", "fields": [_type_to_json(f, ids) for f in t.fields]}
    if isinstance(t, FuncType):
        return {"t": "FuncType", "args": [_type_to_json(a, ids) for a in t.arg_types],
                "ret": _type_to_json(t.ret_type, ids), "params": [_type_to_json(p, ids) for p in t.type_params],
                "constraints": [_type_to_json(c, ids) for c in t.type_constraints]}
    if isinstance(t, TypeCall):
        return {"t": "TypeCall", "func": _type_to_json(t.func, ids), "args": [_type_to_json(a, ids) for a in t.args]}
    if isinstance(t, RefType):
        return {"t": "RefType", "value": _type_to_json(t.value, ids)}
    raise TypeError("save_json: cannot serialize a %s" % type(t).__name__)


def _type_from_json(d, vars_):
    from .relay.type_solver import TypeRelation
    k = d["t"]
    if k in ("TypeVar", "GlobalTypeVar", "IncompleteType"):
        if d["id"] not in vars_:
            vars_[d["id"]] = IncompleteType(d["kind"]) if k == "IncompleteType" else \
                globals()[k](d["name"], d["kind"])
        return vars_[d["id"]]
    if k == "TensorType":
        return TensorType(d["shape"], d["dtype"])
    if k == "TupleType":
        return TupleType([_type_from_json(f, vars_) for f in d["fields"]])
    if k == "FuncType":
        params = [_type_from_json(p, vars_) for p in d["params"]]
        return FuncType([_type_from_json(a, vars_) for a in d["args"]], _type_from_json(d["ret"], vars_), params,
                        [_type_from_json(c, vars_) for c in d["constraints"]])
    if k == "TypeCall":
        return TypeCall(_type_from_json(d["func"], vars_), [_type_from_json(a, vars_) for a in d["args"]])
    if k == "RefType":
        return RefType(_type_from_json(d["value"], vars_))
    if k == "TypeRelation":
        attrs = _from_json(d["attrs"]) if d["attrs"] is not None else None
        func = None if d["func"] is None else EnvFunc.get("tvm.relay.type_relation." + d["func"])
        return TypeRelation(func,
                            [_type_from_json(a, vars_) for a in d["args"]], d["num_inputs"],
                            Attrs(attrs) if attrs is not None else None)
    raise ValueError("load_json: unknown type kind %r" % (k,))


def save_json(node):
    """A JSON string holding `node`: Passage's own format, read back by
    load_json (TVM's JSON node graph is not implemented). An IRModule, a
    Relay expression or a type is kept as Relay text; an expression that is
    not a function is saved as the body of a function over its free
    variables, so those come back as new variables. tir.IntImm / FloatImm
    (infinities and NaN too), TIR variables (a new variable of the same name
    and dtype on load), strings, and lists and dicts of these (runtime.Array
    and Map) are kept as values."""
    import json
    doc = _to_json(node)
    doc["format"] = _JSON_FORMAT
    return json.dumps(doc)


def load_json(json_str):
    """The node a save_json string holds."""
    import json
    doc = json.loads(json_str)
    if doc.get("format") != _JSON_FORMAT:
        raise ValueError("load_json: not a string written by passage.ir.save_json")
    return _from_json(doc)


def make_node(type_key, **fields):
    """tvm.ir.make_node for the node kinds Passage has: attributes
    ("DictAttrs", or any "...Attrs" key: the fields as an Attrs), "IntImm" /
    "FloatImm" (dtype, value), "relay.TensorType" / "TensorType" (shape,
    dtype), "relay.Var" (name_hint, type_annotation), "GlobalVar" (name_hint)."""
    if type_key == "DictAttrs" or type_key.endswith("Attrs"):
        from .runtime import convert
        return Attrs((k, convert(v)) for k, v in fields.items())
    if type_key in ("IntImm", "FloatImm"):
        from . import tir
        return getattr(tir, type_key)(fields.get("dtype", "int32"), fields["value"])
    if type_key in ("relay.TensorType", "TensorType"):
        return TensorType(fields.get("shape", ()), fields.get("dtype", "float32"))
    if type_key == "relay.Var":
        return Var(fields["name_hint"], fields.get("type_annotation"))
    if type_key in ("GlobalVar", "relay.GlobalVar"):
        return GlobalVar(fields["name_hint"])
    raise ValueError("make_node: unknown or unsupported type key %r" % (type_key,))


def _first_mismatch(lhs, rhs, map_free_vars=False):
    from .object_path import get_first_structural_mismatch
    return get_first_structural_mismatch(lhs, rhs, map_free_vars)


# tvm.ir.base, where TVM keeps structural equality, JSON and the mismatch path.
base = _submodule("base", structural_equal=structural_equal, structural_hash=structural_hash,
                  assert_structural_equal=assert_structural_equal, save_json=save_json, load_json=load_json,
                  get_first_structural_mismatch=_first_mismatch)


# tvm.ir.DictAttrs: Passage's attributes are one class.
DictAttrs = Attrs

# tvm.ir._ffi_api: the registered functions TVM's Python reaches through it.
_ffi_api = _submodule("_ffi_api", StructuralEqual=structural_equal, StructuralHash=structural_hash,
                      SaveJSON=save_json, LoadJSON=load_json, GetFirstStructuralMismatch=_first_mismatch)
