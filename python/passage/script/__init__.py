"""Passage — tvm.script: TVMScript for TIR.

    from passage.script import tir as T, ir as I

    @T.prim_func
    def add_one(A: T.Buffer((16,), "float32")):
        for i in range(16):
            A[i] = A[i] + T.float32(1)

    passage.script.from_source(add_one.script())   # the same function again

A decorated function or class is parsed from its source by the C parser
(include/passage/tvmscript.h): its body never runs. The Python values the
text reads from outside (closure and global ints, floats, dtype strings,
PrimExprs and Vars, Buffers, `op = T.Add` aliases) are handed to the parser
(include/passage/tvmscript_env.h)."""

from . import tir, ir
from .ir import ir_module  # tvm.script.ir_module, as `from tvm.script import ir_module`
from ._parser import parse_text as _parse_text

__all__ = ["tir", "ir", "ir_module", "from_source", "parse"]


def from_source(input_text, *, extra_vars=None, check_well_formed=True, filename=None):
    """tvm.script.from_source: a PrimFunc (one standalone @T.prim_func) or an
    IRModule (an @I.ir_module class) from TVMScript text. `extra_vars` maps
    names the text uses to Python values, as a closure would."""
    if not isinstance(input_text, str):
        from ._parser import parse_object
        return parse_object(input_text, check_well_formed=check_well_formed)
    return _parse_text(input_text, filename, extra_vars, check_well_formed)


parse = from_source
