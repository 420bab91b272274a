"""Passage — tvm.tir.IterVar: a var with its range, kind and thread tag, the
node of the AttrStmts that launch threads ("thread_extent") and of pragma
AttrStmts.

    tx = tir.IterVar(ir.Range(0, 256), "threadIdx.x", tir.IterVar.ThreadIndex, "threadIdx.x")
    body = tir.AttrStmt(tx, "thread_extent", 256, stmt)
"""

from .._ffi import lib, enc, s
from . import _api
from ._api import register, new, borrowed
from .expr import Node, Var, ExprOp, convert

__all__ = ["IterVar"]


@register(_api.ITER_VAR)
class IterVar(ExprOp, Node):
    """IterVar(dom, var, iter_type, thread_tag=""): dom a Range, a (begin,
    end) pair or None; var a Var or a name (an int32 Var, or of the range's
    dtype). In arithmetic it stands for its var, as TVM's IterVar converts
    to a PrimExpr (`tx * 4 + ty`)."""
    __slots__ = ()

    DataPar = 0
    ThreadIndex = 1
    CommReduce = 2
    Ordered = 3
    DimInfo = 3
    Opaque = 4
    Unrolled = 5
    Vectorized = 6
    Parallelized = 7
    Tensorized = 8

    def __new__(cls, dom, var, iter_type, thread_tag="", span=None):
        from ..ir import Range
        if dom is not None:
            if isinstance(dom, (list, tuple)):
                if len(dom) != 2:
                    raise TypeError("need to be list of ranges")
                dom = Range(dom[0], dom[1])
            if not isinstance(dom, Range):
                raise TypeError("dom need to be Range")
        if not isinstance(var, Var):
            var = Var(var if var is not None else "iter", "int32" if dom is None else dom.extent.dtype)
        if isinstance(iter_type, str):
            iter_type = _TYPE_NAMES.index(iter_type) if iter_type in _TYPE_NAMES else -1
        return new(lib.psg_tir_iter_var_create, var, dom.min if dom is not None else None,
                   dom.extent if dom is not None else None, int(iter_type), enc(thread_tag or ""),
                   None, what="IterVar")

    def __init__(self, *a, **k):
        pass

    @property
    def var(self):
        return borrowed(lib.psg_tir_iter_var_get_var(self._ptr))

    def _as_prim_expr(self):
        return self.var

    @property
    def dtype(self):
        return self.var.dtype

    # As TVM's IterVar(Object, ExprOp): == builds an EqualOp; hashed as an object.
    __hash__ = Node.__hash__

    @property
    def dom(self):
        from ..ir import Range
        lo = borrowed(lib.psg_tir_iter_var_get_min(self._ptr))
        return None if lo is None else Range.from_min_extent(
            lo, borrowed(lib.psg_tir_iter_var_get_extent(self._ptr)))

    @property
    def iter_type(self):
        return lib.psg_tir_iter_var_type(self._ptr)

    @property
    def thread_tag(self):
        return s(lib.psg_tir_iter_var_thread_tag(self._ptr))


_TYPE_NAMES = ["DataPar", "ThreadIndex", "CommReduce", "Ordered", "Opaque", "Unrolled", "Vectorized",
               "Parallelized", "Tensorized"]


def iter_var(var, dom, iter_type, thread_tag):
    """TVMScript's T.iter_var(var, dom, "ThreadIndex", "threadIdx.x")."""
    return IterVar(dom, var, iter_type, thread_tag)
