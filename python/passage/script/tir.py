"""Passage — `from passage.script import tir as T`: the decorator
`@T.prim_func`, and the T.* names a TVMScript function's signature and
surrounding Python code evaluate (annotations run when the `def` runs: the
body never runs, the C parser reads it from the source).

    @T.prim_func
    def main(A: T.Buffer((16,), "float32")):
        for i in range(16):
            A[i] = A[i] + T.float32(1)

Outside a parsed body T.* names are light objects: `T.int32` is a DType
(str() "int32", callable: T.int32(5) is a constant), `T.Buffer(shape,
dtype)` declares a Buffer, any other T.name is an alias object that a
closure may hand to the parser (`op = T.Add`, then `op(a, b)` inside)."""

import linecache
import sys

from . import _parser

__all__ = ["prim_func", "Buffer", "DType", "handle"]


def prim_func(func=None, private=False, check_well_formed=True):
    """@T.prim_func / @T.prim_func(private=True, check_well_formed=False):
    the PrimFunc of the decorated function's source. Inside an
    @I.ir_module class the function is returned as is (the module parses
    the whole class)."""
    frame = sys._getframe(1)
    caller = frame.f_locals
    in_module = _in_ir_module_class(frame)
    del frame

    def decorate(fn):
        if in_module:
            fn._passage_prim_func = dict(private=private)
            return fn
        return _parser.parse_object(fn, private=private, check_well_formed=check_well_formed,
                                    caller_locals=caller)

    if func is None:
        return decorate
    return decorate(func)


def _in_ir_module_class(frame):
    """True when `frame` runs the body of a class decorated @I.ir_module
    (read from the lines between the class's first decorator and its
    `class` line). A class body's frame has __module__ and __qualname__."""
    if "__qualname__" not in frame.f_locals or "__module__" not in frame.f_locals:
        return False
    code = frame.f_code
    for n in range(code.co_firstlineno, code.co_firstlineno + 50):
        line = linecache.getline(code.co_filename, n).strip()
        if line.startswith("class ") or not line:
            return False
        if line.startswith("@") and "ir_module" in line:
            return True
    return False


class DType:
    """T.int32, T.float32, ...: the dtype name; calling it makes a constant
    (T.int32(5)) or, with no value, a Var of that dtype."""
    __slots__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = dtype

    def __call__(self, value=None, is_size_var=False):
        from .. import tir
        if value is None:
            return (tir.SizeVar if is_size_var else tir.Var)("v", self.dtype)
        return tir.const(value, self.dtype)

    def __str__(self):
        return self.dtype

    def __repr__(self):
        return "T." + self.dtype

    def __eq__(self, other):
        return str(other) == self.dtype

    def __hash__(self):
        return hash(self.dtype)


class _Name:
    """Any other T.name outside a parsed body: callable and subscriptable
    (so `T.Buffer[(16,), "float32"]`-style annotations load), and an alias
    of T.<name> when a closure hands it to the parser."""
    __slots__ = ("_t_name",)

    def __init__(self, name):
        self._t_name = name

    def __call__(self, *args, **kwargs):
        return self

    def __getitem__(self, key):
        return self

    def __repr__(self):
        return "T." + self._t_name


class _BufferAnnotation(_Name):
    """T.Buffer: called as a function it declares a Buffer (as TVM's does
    outside a parse); when its arguments are no buffer declaration (an
    annotation naming closure values, for instance) it is a placeholder."""
    __slots__ = ()

    def __call__(self, shape=None, dtype="float32", *args, **kwargs):
        from .. import tir
        try:
            return tir.decl_buffer(shape, str(dtype), name=kwargs.get("name", "buffer"))
        except Exception:
            return self


Buffer = _BufferAnnotation("Buffer")
handle = _Name("handle")

_DTYPES = ["bool", "handle", "void"] + ["%s%d" % (k, b) for k in ("int", "uint") for b in (8, 16, 32, 64)] + \
    ["float16", "float32", "float64", "bfloat16"]
for _d in _DTYPES:
    if _d not in ("handle", "void"):
        globals()[_d] = DType(_d)
        for _lanes in (2, 4, 8, 16, 32, 64):
            globals()["%sx%d" % (_d, _lanes)] = DType("%sx%d" % (_d, _lanes))

_names = {}


def iter_var(var, dom, iter_type, thread_tag):
    """T.iter_var(v, T.Range(0, n), "ThreadIndex", "threadIdx.x") outside a parsed body."""
    from ..tir.iter_var import iter_var as _iter_var
    return _iter_var(var, dom, iter_type, thread_tag)


def Range(begin, end=None):  # noqa: N802 (TVM's name)
    """T.Range outside a parsed body: an ir.Range."""
    from ..ir import Range as _Range
    return _Range(begin, end)


def __getattr__(name):
    """T.<anything else>: one _Name per name (so `op = T.Add` is the same
    object each time and the parser can tell which T.name it is)."""
    if name.startswith("__"):
        raise AttributeError(name)
    if name not in _names:
        _names[name] = _Name(name)
    return _names[name]
