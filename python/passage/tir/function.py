"""Passage — tvm.tir.PrimFunc."""

import ctypes

from .. import _ffi
from .._ffi import lib, CTX, call, enc
from ..ir import attrs_from_py, _attrs_of, _attr_from_py
from . import _api
from ._api import register, new, borrowed
from .expr import Node

__all__ = ["PrimFunc"]


def _buffer_param(p, buffer_map):
    """A Buffer given as a parameter is passed through a handle param of its
    name, as in TVM."""
    from .buffer import Buffer
    from .expr import Var
    if not isinstance(p, Buffer):
        return p
    v = Var(p.name, "handle")
    buffer_map[v] = p
    return v


@register(_api.PRIM_FUNC)
class PrimFunc(Node):
    """PrimFunc(params, body, ret_type=None, buffer_map=None, attrs=None)."""
    __slots__ = ()

    def __new__(cls, params, body, ret_type=None, buffer_map=None, attrs=None, span=None):
        buffer_map = dict(buffer_map or {})
        params = [_buffer_param(p, buffer_map) for p in params]
        index = {}
        for i, p in enumerate(params):
            index[p._ptr] = i
        keys, bufs = [], []
        for p, b in buffer_map.items():
            if p._ptr not in index:
                raise ValueError("buffer_map key %s is not a parameter" % p.name)
            keys.append(index[p._ptr])
            bufs.append(b)
        map_params = (ctypes.c_size_t * max(len(keys), 1))(*keys)
        a = attrs_from_py(attrs) if attrs else None
        try:
            return new(lib.psg_tir_prim_func_create, _api.ptr_array(params), len(params), body._ptr,
                       ret_type._ptr if ret_type is not None else None, map_params,
                       _api.ptr_array(bufs), len(bufs), a, None, what="PrimFunc")
        finally:
            if a:
                lib.psg_attrs_release(a)

    def __init__(self, *a, **k):
        pass

    @property
    def params(self):
        return [borrowed(lib.psg_tir_prim_func_get_param(self._ptr, i))
                for i in range(lib.psg_tir_prim_func_num_params(self._ptr))]

    @property
    def body(self):
        return borrowed(lib.psg_tir_get_body(self._ptr))

    @property
    def ret_type(self):
        return borrowed(lib.psg_tir_prim_func_get_ret_type(self._ptr))

    @property
    def buffer_map(self):
        """A dict param Var -> Buffer, in declaration order."""
        return {borrowed(lib.psg_tir_prim_func_buffer_map_key(self._ptr, i)):
                borrowed(lib.psg_tir_prim_func_buffer_map_value(self._ptr, i))
                for i in range(lib.psg_tir_prim_func_buffer_map_size(self._ptr))}

    @property
    def attrs(self):
        return _attrs_of(lib.psg_tir_prim_func_get_attrs(self._ptr))

    def with_attr(self, attr_key_or_dict, attr_value=None):
        """A copy with the attribute set (or every pair of a dict)."""
        items = attr_key_or_dict.items() if isinstance(attr_key_or_dict, dict) \
            else [(attr_key_or_dict, attr_value)]
        f = self
        for key, value in items:
            v = _attr_from_py(value, key)
            try:
                f = new_from(lib.psg_tir_prim_func_with_attr, f._ptr, enc(key), v)
            finally:
                lib.psg_attr_release(v)
        return f

    def script(self, *, name=None, show_header=True, **_options):
        """TVMScript text (TVM's PrimFunc.script(); printer options other
        than the header are accepted and ignored)."""
        from . import _printing
        return _printing.script_func(self, name, show_header)

    def show(self, **options):
        print(self.script(**options))

    def without_attr(self, key):
        items = dict(self.attrs.items()) if self.attrs else {}
        items.pop(key, None)
        m = self.buffer_map
        return PrimFunc(self.params, self.body, self.ret_type, m, items or None)


def new_from(fn, *args):
    """Calls `fn(*args, &out)` (a method-like constructor with no ctx)."""
    out = ctypes.c_void_p()
    call(fn, *args, ctypes.byref(out), what="PrimFunc")
    return _api.wrap(out.value)
