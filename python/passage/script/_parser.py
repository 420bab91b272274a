"""Passage — the parse behind passage.script: TVMScript text through the C
parser (include/passage/tvmscript.h), and decorated Python functions and
classes parsed from their source with the Python values they read from
outside (include/passage/tvmscript_env.h)."""

import ast
import ctypes
import inspect
import numbers
import textwrap

from .. import _ffi
from .._ffi import lib, CTX, call, enc

_P, _Z, _I, _S = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_char_p
_PP = ctypes.POINTER(ctypes.c_void_p)
for _name, _res, _args in [
        ("psg_tir_script_env_create", _I, [_P, _PP]),
        ("psg_tir_script_env_release", None, [_P]),
        ("psg_tir_script_env_add_int", _I, [_P, _S, ctypes.c_int64]),
        ("psg_tir_script_env_add_float", _I, [_P, _S, ctypes.c_double]),
        ("psg_tir_script_env_add_bool", _I, [_P, _S, ctypes.c_bool]),
        ("psg_tir_script_env_add_string", _I, [_P, _S, _S]),
        ("psg_tir_script_env_add_expr", _I, [_P, _S, _P]),
        ("psg_tir_script_env_add_buffer", _I, [_P, _S, _P]),
        ("psg_tir_script_env_add_alias", _I, [_P, _S, _S]),
        ("psg_tir_script_parse_env", _I, [_P, _S, _Z, _S, _P, _PP]),
        ("psg_tir_script_release", None, [_P]),
        ("psg_tir_script_is_module", ctypes.c_bool, [_P]),
        ("psg_tir_script_count", _Z, [_P]),
        ("psg_tir_script_get", _P, [_P, _Z]),
        ("psg_tir_script_to_module", _I, [_P, _PP])]:
    _fn = getattr(lib, _name)
    _fn.restype, _fn.argtypes = _res, _args

# Names the parser reads itself: never handed over from Python.
_OWN_NAMES = frozenset(["T", "I", "range", "True", "False", "None"])


class _Env:
    """A psg_tir_script_env filled from a dict of Python values; values of
    kinds TVMScript cannot hold are left out (their names stay undefined in
    the text, which the parser reports where they are used)."""

    def __init__(self, values):
        out = ctypes.c_void_p()
        call(lib.psg_tir_script_env_create, CTX, ctypes.byref(out), what="TVMScript environment")
        self.ptr = out.value
        self.keep = []
        try:
            for name, value in values.items():
                if name not in _OWN_NAMES and name.isidentifier():
                    self._add(name, value)
        except BaseException:
            self.close()
            raise

    def _add(self, name, value):
        from ..tir.buffer import Buffer
        from ..tir.expr import PrimExpr, EqualOp
        from ..tir.iter_var import IterVar
        from . import tir as T
        n = enc(name)
        if isinstance(value, EqualOp):  # `a == b` of PrimExprs: the EQ/NE node, as TVM reads it
            value = value.asobject()
        if isinstance(value, bool):
            call(lib.psg_tir_script_env_add_bool, self.ptr, n, value)
        elif isinstance(value, numbers.Integral):
            v = int(value)
            if -2 ** 63 <= v < 2 ** 63:
                call(lib.psg_tir_script_env_add_int, self.ptr, n, v)
        elif isinstance(value, numbers.Real):
            v = float(value)
            if v == v and abs(v) != float("inf"):
                call(lib.psg_tir_script_env_add_float, self.ptr, n, v)
        elif isinstance(value, str):
            if "\0" not in value:
                call(lib.psg_tir_script_env_add_string, self.ptr, n, enc(value))
        elif isinstance(value, T.DType):
            call(lib.psg_tir_script_env_add_string, self.ptr, n, enc(value.dtype))
        elif isinstance(value, Buffer):
            self.keep.append(value)
            call(lib.psg_tir_script_env_add_buffer, self.ptr, n, value._ptr)
        elif isinstance(value, (PrimExpr, IterVar)):
            self.keep.append(value)
            call(lib.psg_tir_script_env_add_expr, self.ptr, n, value._ptr)
        else:
            alias = _alias_of(value)
            if alias:
                call(lib.psg_tir_script_env_add_alias, self.ptr, n, enc(alias))

    def close(self):
        if self.ptr:
            lib.psg_tir_script_env_release(self.ptr)
            self.ptr = None


def _alias_of(value):
    """`op = T.Add` (or tir.Add, the node class): the T.<name> it stands for."""
    from . import tir as T
    from .. import tir
    name = getattr(value, "_t_name", None)
    if name is not None and getattr(T, name, None) is value:
        return name
    if isinstance(value, type) and getattr(tir, value.__name__, None) is value and \
            value.__module__.startswith("passage.tir"):
        return value.__name__
    return None


def parse_text(text, filename=None, values=None, check_well_formed=True):
    """Parses TVMScript text: a PrimFunc for one standalone function, an
    IRModule for an @I.ir_module class (or several functions)."""
    from ..tir import _api
    from ..ir import IRModule
    data = enc(text)
    env = _Env(values or {})
    script = ctypes.c_void_p()
    try:
        call(lib.psg_tir_script_parse_env, CTX, data, len(data), enc(filename) if filename else None,
             env.ptr, ctypes.byref(script), what="TVMScript")
    finally:
        env.close()
    try:
        if not lib.psg_tir_script_is_module(script.value) and lib.psg_tir_script_count(script.value) == 1:
            result = _api.borrowed(lib.psg_tir_script_get(script.value, 0))
        else:
            m = ctypes.c_void_p()
            call(lib.psg_tir_script_to_module, script.value, ctypes.byref(m), what="TVMScript")
            result = IRModule._own(m.value)
    finally:
        lib.psg_tir_script_release(script.value)
    if check_well_formed:
        from ..tir.analysis import verify_well_formed
        verify_well_formed(result)
    return result


# Decorated Python functions and classes -----------------------------------------------

def _decorator_private(dec):
    """private=True in a decorator call `@T.prim_func(private=True)`."""
    if isinstance(dec, ast.Call):
        for k in dec.keywords:
            if k.arg == "private" and isinstance(k.value, ast.Constant):
                return bool(k.value.value)
    return False


def _rewrite_decorators(lines, node, replacement):
    """Replaces the decorator lines of `node` (0-based line list, in place)
    by one line `replacement` and blank lines, so every line keeps its
    number."""
    if not node.decorator_list:
        return
    first = min(d.lineno for d in node.decorator_list) - 1
    indent = lines[first][:len(lines[first]) - len(lines[first].lstrip())]
    for i in range(first, node.lineno - 1):
        lines[i] = "\n"
    lines[first] = indent + replacement + "\n"


def source_of(obj, private=False):
    """The TVMScript text of a decorated function or class: its source,
    dedented, with the decorators the C parser reads in place of whatever
    spelling the file used, padded with blank lines so that diagnostics give
    the file's own line numbers. Returns (text, filename)."""
    lines, start = inspect.getsourcelines(obj)
    filename = inspect.getsourcefile(obj) or "<%s>" % obj.__qualname__
    lines = textwrap.dedent("".join(lines)).splitlines(True)
    tree = ast.parse("".join(lines))
    top = tree.body[0]
    if isinstance(top, ast.ClassDef):
        _rewrite_decorators(lines, top, "@I.ir_module")
        for item in top.body:
            if isinstance(item, ast.FunctionDef) and item.decorator_list:
                priv = any(_decorator_private(d) for d in item.decorator_list)
                _rewrite_decorators(lines, item, "@T.prim_func(private=True)" if priv else "@T.prim_func")
    else:
        _rewrite_decorators(lines, top, "@T.prim_func(private=True)" if private else "@T.prim_func")
    if start == 0:  # a module's source (never a function's): keep as is
        start = 1
    return "\n" * (start - 1) + "".join(lines), filename


def _indent_of(obj):
    """The indentation dedent removed from obj's source (its first line's)."""
    first = inspect.getsourcelines(obj)[0][0]
    return len(first) - len(first.lstrip(" \t"))


def _shift_columns(err, filename, indent):
    """A ParseError located in the dedented text, moved to the file's
    columns: the column grows by `indent`, and so do the quoted source line
    and its caret."""
    d = getattr(err, "diagnostic", None)
    if not indent or d is None or d.file != filename or not err.args:
        return
    old = "%s:%d:%d:" % (d.file, d.line, d.col)
    new = "%s:%d:%d:" % (d.file, d.line, d.col + indent)
    text = str(err.args[0])
    if old not in text:
        return
    head, _, rest = text.partition(old)
    lines = rest.split("\n")
    lines[1:3] = [ln[:2] + " " * indent + ln[2:] if ln.startswith("  ") else ln for ln in lines[1:3]]
    err.args = (head + new + "\n".join(lines),) + tuple(err.args[1:])
    d.col += indent


def _functions_of(obj):
    if inspect.isclass(obj):
        return [v for v in vars(obj).values() if inspect.isfunction(v)]
    return [obj]


def _local_names(fn):
    code = fn.__code__
    return set(code.co_varnames) | set(code.co_cellvars)


def captured_values(obj, caller_locals=None):
    """The Python values the text of `obj` may read from outside: for each
    name it uses and does not bind, the closure cell, else the caller's
    local (annotations are evaluated there), else the function's global."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(obj)))
    except (OSError, TypeError, SyntaxError):
        return {}
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    values = {}
    funcs = _functions_of(obj)
    bound = set()
    for fn in funcs:
        bound |= _local_names(fn)
    glb = funcs[0].__globals__ if funcs else getattr(inspect.getmodule(obj), "__dict__", {})
    for name in used - _OWN_NAMES:
        if name in glb:
            values[name] = glb[name]
    for name in used - _OWN_NAMES:
        if caller_locals and name in caller_locals:
            values[name] = caller_locals[name]
    for fn in funcs:
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                values[name] = cell.cell_contents
            except ValueError:  # an empty cell
                pass
    # a name the function binds itself is its own (a param, a loop var)
    own = {n for n in bound if n not in {c for fn in funcs for c in fn.__code__.co_freevars}}
    for name in own:
        values.pop(name, None)
    return values


def parse_object(obj, private=False, check_well_formed=True, caller_locals=None):
    from ..error import ParseError
    text, filename = source_of(obj, private)
    try:
        return parse_text(text, filename, captured_values(obj, caller_locals), check_well_formed)
    except ParseError as err:
        _shift_columns(err, filename, _indent_of(obj))
        raise
