"""Passage — TIR, the loop-level IR, as tvm.tir spells it:

    from passage import tir
    n = tir.Var("n", "int32")
    cond = n + 1 < 4                       # LT(Add(n, 1), 4)
    A = tir.decl_buffer((16,), "float32", name="A")
    i = tir.Var("i", "int32")
    body = tir.For(i, 0, 16, tir.ForKind.SERIAL,
                   tir.BufferStore(A, A[i] + tir.const(1, "float32"), [i]))
    f = tir.PrimFunc([A.data], body, buffer_map={A.data: A})

Operators (`+`, `//`, `<`, ...) match dtypes and fold constants as TVM's
do; the node classes (`tir.Add(a, b)`) build exactly the node given."""

from . import _api
from .expr import (PrimExpr, Var, SizeVar, IntImm, FloatImm, StringImm, Cast, Add, Sub, Mul, Div,
                   Mod, FloorDiv, FloorMod, Min, Max, EQ, NE, LT, LE, GT, GE, And, Or, Not,
                   Select, Ramp, Broadcast, Let, BufferLoad, Call, EqualOp, NotEqualOp, const,
                   convert)
from .types import PrimType, PointerType, VoidType
from .buffer import Buffer, decl_buffer
from .stmt import (Stmt, ForKind, For, BufferStore, IfThenElse, Evaluate, LetStmt, SeqStmt,
                   Allocate, DeclBuffer, AttrStmt, AssertStmt, While, stmt_seq)
from .function import PrimFunc
from .iter_var import IterVar
from .op import (Op, floordiv, floormod, truncdiv, truncmod, indexdiv, indexmod, div, min, max,
                 all, any, if_then_else, likely, assume, call_extern, call_intrin, cast, min_value, max_value,
                 exp, exp2, exp10, log, log2, log10, sqrt, rsqrt, tanh, sigmoid, erf, fabs, floor,
                 ceil, round, trunc, sin, cos, isnan, pow, power, abs, address_of, reinterpret)
from .schedule import Schedule, BlockRV, LoopRV, ScheduleError
from . import analysis
from . import transform
from . import ir_builder
from . import stmt_functor


class Any:
    """tvm.tir.Any(): an unknown dimension. Passage's Relay shapes spell it
    -1; a TensorType given Any() has that dimension unknown."""
    __slots__ = ()

    def __index__(self):
        return -1

    def __int__(self):
        return -1

    def __repr__(self):
        return "?"
