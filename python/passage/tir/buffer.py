"""Passage — tvm.tir.Buffer and decl_buffer."""

import ctypes

from .._ffi import lib, enc, s
from . import _api
from ._api import register, new, borrowed, dtype_code, dtype_name
from .expr import Node, Var, convert
from .types import PointerType

__all__ = ["Buffer", "decl_buffer"]


@register(_api.BUFFER)
class Buffer(Node):
    """A typed view of memory (tvm.tir.Buffer); made by decl_buffer."""
    __slots__ = ()

    @property
    def name(self):
        return s(lib.psg_tir_buffer_name(self._ptr))

    @property
    def data(self):
        return borrowed(lib.psg_tir_buffer_get_data(self._ptr))

    @property
    def dtype(self):
        return dtype_name(lib.psg_tir_dtype_of(self._ptr))

    @property
    def shape(self):
        return [borrowed(lib.psg_tir_buffer_get_shape(self._ptr, i))
                for i in range(lib.psg_tir_buffer_ndim(self._ptr))]

    @property
    def strides(self):
        return [borrowed(lib.psg_tir_buffer_get_stride(self._ptr, i))
                for i in range(lib.psg_tir_buffer_num_strides(self._ptr))]

    @property
    def elem_offset(self):
        return borrowed(lib.psg_tir_buffer_get_elem_offset(self._ptr))

    @property
    def scope(self):
        return s(lib.psg_tir_buffer_scope(self._ptr))

    def scope_name(self):
        return self.scope

    @property
    def axis_separators(self):
        return [lib.psg_tir_buffer_axis_separator(self._ptr, i)
                for i in range(lib.psg_tir_buffer_num_axis_separators(self._ptr))]

    @property
    def data_alignment(self):
        return lib.psg_tir_buffer_data_alignment(self._ptr)

    @property
    def offset_factor(self):
        return lib.psg_tir_buffer_offset_factor(self._ptr)

    def access_ptr(self, access_mask, ptr_type="handle", content_lanes=1, offset=0, extent=None):
        """tir.tvm_access_ptr(T.type_annotation(dtype), data, elem_offset +
        offset, extent, mask) as TVM's Buffer.access_ptr builds it; the mask
        is "r", "w", "rw" or the int (1 read, 2 write)."""
        from .expr import Call, const
        from .op import truncdiv
        if isinstance(access_mask, str):
            access_mask = ("r" in access_mask and 1) | ("w" in access_mask and 2)
        offset = convert(offset)
        shape, strides = self.shape, self.strides
        if not shape:
            total = const(1, self.elem_offset.dtype)
        elif len(strides) == len(shape):
            total = strides[0] * shape[0] - offset
        else:
            total = const(1, "int32")
            for dim in shape:
                total = total * dim
            total = total - offset
        elem_offset = self.elem_offset + offset
        dtype = self.dtype
        if content_lanes > 1:
            dtype = "%sx%d" % (dtype, content_lanes)
            total = truncdiv(total, content_lanes)
            elem_offset = truncdiv(self.elem_offset, content_lanes)
        if extent is not None:
            total = convert(extent)
        args = [Call(dtype, "tir.type_annotation", []), self.data, elem_offset, total,
                const(int(access_mask), "int32")]
        return Call(ptr_type, "tir.tvm_access_ptr", args)

    def vload(self, begin, dtype=None):
        from .expr import BufferLoad
        return BufferLoad(self, list(begin) if isinstance(begin, (list, tuple)) else [begin])

    def __getitem__(self, indices):
        from .expr import BufferLoad
        if not isinstance(indices, (list, tuple)):
            indices = [indices]
        return BufferLoad(self, list(indices))

    def __repr__(self):
        return str(self)

    def __str__(self):
        return "Buffer(%s, %s, [%s])" % (self.name, self.dtype,
                                         ", ".join(str(d) for d in self.shape))


def decl_buffer(shape, dtype="float32", name="buffer", data=None, strides=None, elem_offset=None,
                scope="", data_alignment=-1, offset_factor=0, buffer_type="",
                axis_separators=None, span=None):
    """tvm.tir.decl_buffer: a Buffer over `data` (a new handle var `name` of
    PointerType(dtype, scope) when None)."""
    if isinstance(shape, (int,)) or not isinstance(shape, (list, tuple)):
        shape = [shape]
    dims = [convert(d) for d in shape]
    if data is None:
        data = Var(name, PointerType(dtype, scope))
    strides = [convert(x) for x in (strides or [])]
    offset = convert(elem_offset) if elem_offset is not None else None
    seps = list(axis_separators or [])
    desc = _api.BufferDesc()
    desc.name = enc(name)
    desc.data = data._ptr
    desc.dtype = dtype_code(dtype)
    shape_arr = _api.ptr_array(dims)
    desc.shape = ctypes.cast(shape_arr, _api.PP)
    desc.ndim = len(dims)
    strides_arr = _api.ptr_array(strides)
    desc.strides = ctypes.cast(strides_arr, _api.PP)
    desc.nstrides = len(strides)
    desc.elem_offset = offset._ptr if offset is not None else None
    seps_arr = (ctypes.c_int64 * max(len(seps), 1))(*seps)
    desc.axis_separators = seps_arr
    desc.naxis_separators = len(seps)
    desc.data_alignment = 0 if data_alignment in (-1, None) else int(data_alignment)
    desc.offset_factor = int(offset_factor or 0)
    desc.buffer_type = 2 if buffer_type == "auto_broadcast" else 0
    return new(lib.psg_tir_buffer_create, ctypes.byref(desc), None, what="Buffer")
