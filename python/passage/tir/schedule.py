"""Passage — tvm.tir.Schedule over loop nests (include/passage/tir_schedule.h).

Our TIR has no S-TIR blocks: a block is a *stage*, the statements that store
to one buffer, named after that buffer (TE names a stage after its output
tensor, so TVM's spelling holds):

    sch = tir.Schedule(func)                 # a PrimFunc or an IRModule
    C = sch.get_block("C")
    i, j, k = sch.get_loops(C)
    io, ii = sch.split(i, factors=[None, 4])
    sch.reorder(io, j, k, ii)
    sch.vectorize(ii)
    sch.mod                                  # IRModule({"main": the result})

A loop handle (LoopRV) is its loop var; it stays valid until split or fuse
replaces that loop. A primitive that cannot apply raises ScheduleError and
leaves the function as it was."""

import ctypes

from .. import _ffi
from .._ffi import lib, CTX, enc, s
from ..error import PassError
from ..ir import IRModule, _attr_from_py
from . import _api
from .expr import Var

__all__ = ["Schedule", "BlockRV", "LoopRV", "ScheduleError"]

P, S, I, Z, B, PP = _ffi.P, _ffi.S, _ffi.I, _ffi.Z, _ffi.B, _ffi.PP
_PROTOS = {
    "psg_tir_schedule_create": (I, [P, PP]),
    "psg_tir_schedule_release": (None, [P]),
    "psg_tir_schedule_get_func": (P, [P]),
    "psg_tir_schedule_get_block": (I, [P, S, ctypes.POINTER(S)]),
    "psg_tir_schedule_get_loops": (I, [P, S, ctypes.POINTER(PP), ctypes.POINTER(Z)]),
    "psg_tir_schedule_split": (I, [P, P, ctypes.POINTER(ctypes.c_int64), Z, PP]),
    "psg_tir_schedule_fuse": (I, [P, PP, Z, PP]),
    "psg_tir_schedule_reorder": (I, [P, PP, Z]),
    "psg_tir_schedule_vectorize": (I, [P, P]),
    "psg_tir_schedule_parallel": (I, [P, P]),
    "psg_tir_schedule_unroll": (I, [P, P]),
    "psg_tir_schedule_annotate": (I, [P, P, S, P]),
    "psg_tir_schedule_compute_inline": (I, [P, S]),
    "psg_tir_schedule_reverse_compute_inline": (I, [P, S]),
    "psg_tir_schedule_compute_at": (I, [P, S, P, B]),
    "psg_tir_schedule_cache_write": (I, [P, S, I, S, ctypes.POINTER(S)]),
    "psg_tir_schedule_decompose_reduction": (I, [P, S, P, ctypes.POINTER(S)]),
}
for _name, (_res, _args) in _PROTOS.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


class ScheduleError(PassError):
    """tvm.tir.ScheduleError: a primitive that cannot apply (the schedule's
    function is unchanged)."""


class BlockRV:
    """A block: the stage of one buffer, by the buffer's name."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, BlockRV) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return "BlockRV(%r)" % self.name


class LoopRV:
    """A loop: the For over `var`."""
    __slots__ = ("var",)

    def __init__(self, var):
        self.var = var

    def __eq__(self, other):
        return isinstance(other, LoopRV) and other.var.same_as(self.var)

    def __hash__(self):
        return hash(self.var._ptr)

    def __repr__(self):
        return "LoopRV(%s)" % self.var.name


def _block_name(block):
    if isinstance(block, BlockRV):
        return block.name
    if isinstance(block, str):
        return block
    raise TypeError("expected a BlockRV (or a block name), got %r" % (block,))


def _loop_var(loop):
    if isinstance(loop, LoopRV):
        return loop.var
    if isinstance(loop, Var):
        return loop
    raise TypeError("expected a LoopRV, got %r" % (loop,))


def _loops(vals):
    out = []
    for v in vals:
        if isinstance(v, (list, tuple)):
            out.extend(_loops(v))
        else:
            out.append(_loop_var(v))
    return out


class Schedule:
    """tvm.tir.Schedule(mod): a PrimFunc, or an IRModule holding one (its
    "main", or its only PrimFunc)."""

    def __init__(self, mod):
        from .function import PrimFunc
        self._name = "main"
        if isinstance(mod, IRModule):
            funcs = [(gv.name_hint, f) for gv, f in mod.functions.items() if isinstance(f, PrimFunc)]
            chosen = [x for x in funcs if x[0] == "main"] or (funcs if len(funcs) == 1 else [])
            if not chosen:
                raise ValueError("Schedule: the IRModule needs a PrimFunc 'main' or exactly one PrimFunc")
            self._name, mod = chosen[0]
        if not isinstance(mod, PrimFunc):
            raise TypeError("Schedule: expected a PrimFunc or an IRModule, got %r" % (mod,))
        out = ctypes.c_void_p()
        _ffi.call(lib.psg_tir_schedule_create, mod._ptr, ctypes.byref(out), what="Schedule")
        self._ptr = out.value

    def __del__(self):
        ptr, self._ptr = getattr(self, "_ptr", None), None
        if ptr:
            lib.psg_tir_schedule_release(ptr)

    def copy(self):
        """A schedule of the current function that goes its own way (TVM's
        Schedule.copy); loop and block handles are valid in both."""
        out = Schedule(self.func)
        out._name = self._name
        return out

    def _call(self, fn, *args, what):
        try:
            _ffi.call(fn, self._ptr, *args, what="Schedule." + what)
        except PassError as e:
            raise ScheduleError(str(e)) from e

    @property
    def func(self):
        """The scheduled PrimFunc."""
        return _api.borrowed(lib.psg_tir_schedule_get_func(self._ptr))

    @property
    def mod(self):
        """IRModule({name: the scheduled PrimFunc})."""
        return IRModule({self._name: self.func})

    def get_block(self, name, func_name=None):
        if func_name is not None and func_name != self._name:
            raise ValueError("Schedule.get_block: the schedule works on %r, not %r" % (self._name, func_name))
        out = S()
        self._call(lib.psg_tir_schedule_get_block, enc(name), ctypes.byref(out), what="get_block")
        return BlockRV(s(out.value))

    def get_loops(self, block):
        arr, n = PP(), Z()
        self._call(lib.psg_tir_schedule_get_loops, enc(_block_name(block)), ctypes.byref(arr), ctypes.byref(n),
                   what="get_loops")
        loops = [LoopRV(_api.wrap(arr[i])) for i in range(n.value)]
        lib.psg_free(ctypes.cast(arr, P))
        return loops

    def split(self, loop, factors):
        """factors: ints (or IntImm), at most one None (inferred)."""
        vals = []
        for f in factors:
            if f is None:
                vals.append(0)
            else:
                v = int(f.value if hasattr(f, "value") else f)
                if v <= 0:
                    raise ScheduleError("Schedule.split: factor %d is not positive" % v)
                vals.append(v)
        c = (ctypes.c_int64 * len(vals))(*vals)
        out = (P * len(vals))()
        self._call(lib.psg_tir_schedule_split, _loop_var(loop)._ptr, c, len(vals), out, what="split")
        return [LoopRV(_api.wrap(out[i])) for i in range(len(vals))]

    def fuse(self, *loops):
        vs = _loops(loops)
        out = P()
        self._call(lib.psg_tir_schedule_fuse, _api.ptr_array(vs), len(vs), ctypes.byref(out), what="fuse")
        return LoopRV(_api.wrap(out.value))

    def reorder(self, *ordered_loops):
        vs = _loops(ordered_loops)
        self._call(lib.psg_tir_schedule_reorder, _api.ptr_array(vs), len(vs), what="reorder")

    def vectorize(self, loop):
        self._call(lib.psg_tir_schedule_vectorize, _loop_var(loop)._ptr, what="vectorize")

    def parallel(self, loop):
        self._call(lib.psg_tir_schedule_parallel, _loop_var(loop)._ptr, what="parallel")

    def unroll(self, loop):
        self._call(lib.psg_tir_schedule_unroll, _loop_var(loop)._ptr, what="unroll")

    def annotate(self, block_or_loop, ann_key, ann_val):
        """A loop annotation (For.annotations[ann_key] = ann_val). A block
        has no annotations here (no S-TIR blocks): annotate one of its loops."""
        if isinstance(block_or_loop, (BlockRV, str)):
            raise ScheduleError("Schedule.annotate: block %r: a stage carries no annotations (our TIR has no "
                                "S-TIR blocks); annotate one of its loops" % _block_name(block_or_loop))
        a = _attr_from_py(ann_val, ann_key)
        try:
            self._call(lib.psg_tir_schedule_annotate, _loop_var(block_or_loop)._ptr, enc(ann_key), a,
                       what="annotate")
        finally:
            lib.psg_attr_release(a)

    def compute_inline(self, block):
        self._call(lib.psg_tir_schedule_compute_inline, enc(_block_name(block)), what="compute_inline")

    def reverse_compute_inline(self, block):
        self._call(lib.psg_tir_schedule_reverse_compute_inline, enc(_block_name(block)),
                   what="reverse_compute_inline")

    def compute_at(self, block, loop, preserve_unit_loops=False):
        self._call(lib.psg_tir_schedule_compute_at, enc(_block_name(block)), _loop_var(loop)._ptr,
                   bool(preserve_unit_loops), what="compute_at")

    def cache_write(self, block, write_buffer_index, storage_scope):
        """The stage now computes into "<name>_<scope>"; returns that stage
        (the copy back to the buffer keeps the block's name)."""
        out = S()
        self._call(lib.psg_tir_schedule_cache_write, enc(_block_name(block)), int(write_buffer_index),
                   enc(storage_scope), ctypes.byref(out), what="cache_write")
        return BlockRV(s(out.value))

    def decompose_reduction(self, block, loop):
        out = S()
        self._call(lib.psg_tir_schedule_decompose_reduction, enc(_block_name(block)), _loop_var(loop)._ptr,
                   ctypes.byref(out), what="decompose_reduction")
        return BlockRV(s(out.value))
