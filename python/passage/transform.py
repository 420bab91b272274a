"""Passage — the pass infrastructure from Python (tvm.transform): PassInfo,
PassContext, Pass and its kinds, Sequential, the module_pass / function_pass /
prim_func_pass decorators, PrintIR, registered passes by name and pipelines
from text.

A Python pass runs through a ctypes trampoline (STYLE rule 7): an exception
it raises is parked for this thread, the C side fails with
PSG_ERR_FRONTEND and unwinds the instruments by the spec's rules, and the
call site re-raises the very same exception object with the pass name added
(a note "in pass 'NAME'" and a `pass_name` attribute; its __cause__ is the
PassError carrying the library's diagnostic)."""

import ctypes
import functools
import inspect
import sys

from . import _ffi
from ._ffi import lib, CTX, call, enc, s, take_string
from .ir import IRModule, Function, Expr, _wrap_expr, _attr_from_py, _attr_to_py, _attrs_items, \
    attrs_from_py

__all__ = ["PassInfo", "PassContext", "Pass", "ModulePass", "FunctionPass", "PrimFuncPass",
           "Sequential", "FixedPoint", "load_pass_plugin", "loaded_pass_plugins", "module_pass", "function_pass", "prim_func_pass", "PrintIR", "get_pass",
           "list_passes", "parse_pipeline", "register_pass", "register_func"]


def _listify(x):
    """TVM turns arguments into lists with list(x); a bare string stays one
    name here (docs/pass-infra.md: TVM's character-splitting quirk fixed)."""
    if x is None:
        return []
    if isinstance(x, str):
        return [x]
    return list(x)


# PassInfo ------------------------------------------------------------------------------

class PassInfo:
    """PassInfo(opt_level, name, required=None, traceable=False)."""
    __slots__ = ("_ptr", "__weakref__")

    def __init__(self, opt_level, name, required=None, traceable=False):
        req = _listify(required)
        out = ctypes.c_void_p()
        call(lib.psg_pass_info_create, CTX, enc(name), int(opt_level), _ffi.str_array(req), len(req),
             ctypes.byref(out), what="PassInfo")
        self._ptr = out.value

    @classmethod
    def _borrow(cls, ptr):
        lib.psg_pass_info_retain(ptr)
        obj = cls.__new__(cls)
        obj._ptr = ptr
        return obj

    def __del__(self):
        ptr = getattr(self, "_ptr", None)
        if ptr:
            self._ptr = None
            try:
                lib.psg_pass_info_release(ptr)
            except Exception:
                pass

    @property
    def name(self):
        return s(lib.psg_pass_info_name(self._ptr))

    @property
    def opt_level(self):
        return lib.psg_pass_info_opt_level(self._ptr)

    @property
    def required(self):
        return [s(lib.psg_pass_info_required(self._ptr, i))
                for i in range(lib.psg_pass_info_num_required(self._ptr))]

    @property
    def traceable(self):
        return False

    def __str__(self):
        return take_string(lib.psg_pass_info_to_string(self._ptr))

    __repr__ = __str__


# Text sinks (PrintIR, printing instruments): what TVM logs or prints ------------------

def _stderr_sink(user, text, n):
    try:
        sys.stderr.write(ctypes.string_at(text, n).decode("utf-8", "replace"))
    except BaseException:
        pass


def _stdout_sink(user, text, n):
    try:
        sys.stdout.write(ctypes.string_at(text, n).decode("utf-8", "replace"))
    except BaseException:
        pass


STDERR_SINK = _ffi.immortal(_ffi.TEXT_SINK_FN(_stderr_sink))
STDOUT_SINK = _ffi.immortal(_ffi.TEXT_SINK_FN(_stdout_sink))


# Passes -------------------------------------------------------------------------------

class Pass:
    """A pass (tvm.transform.Pass): `pass(mod)` runs it under the current
    PassContext; `info` is its PassInfo."""

    def __init__(self, *a, **k):
        raise TypeError("create passes with module_pass, function_pass, Sequential or get_pass")

    @staticmethod
    def _own(ptr):
        kind = lib.psg_pass_kind(ptr)
        cls = {1: ModulePass, 2: FunctionPass, 3: PrimFuncPass, 4: Sequential}.get(kind, Pass)
        if kind == 1 and lib.psg_fixed_point_max_iterations(ptr) > 0:
            cls = FixedPoint
        obj = object.__new__(cls)
        obj._ptr = ptr
        return obj

    def __del__(self):
        ptr = self.__dict__.get("_ptr")
        if ptr:
            self.__dict__["_ptr"] = None
            try:
                lib.psg_pass_release(ptr)
            except Exception:
                pass

    @property
    def info(self):
        return PassInfo._borrow(lib.psg_pass_get_info(self._ptr))

    def __call__(self, mod):
        if not isinstance(mod, IRModule):
            raise TypeError("a pass runs on an IRModule, got %r" % type(mod).__name__)
        out = ctypes.c_void_p()
        with _ffi.Call() as c:
            st = lib.psg_pass_run(self._ptr, mod._ptr, None, ctypes.byref(out))
            _show_bisect_lines(c.t.diags)
            if st != _ffi.OK:
                raise _ffi.error_from_status(st, self.info.name)
        return IRModule._own(out.value)

    def same_as(self, other):
        return isinstance(other, Pass) and other._ptr == self._ptr

    @property
    def cacheable(self):
        """Whether the pass cache may memoize this pass's per-function results
        (declared by the pass; docs/pass-infra.md "Pass cache")."""
        return bool(lib.psg_pass_is_cacheable(self._ptr))

    def to_pipeline(self):
        """The pipeline text of this pass (parse_pipeline reads it back)."""
        return take_string(lib.psg_pipeline_print(self._ptr))

    def __str__(self):
        return take_string(lib.psg_pass_to_string(self._ptr))

    __repr__ = __str__


class ModulePass(Pass):
    pass


class FunctionPass(Pass):
    pass


class PrimFuncPass(Pass):
    pass


class Sequential(Pass):
    """Sequential(passes=None, opt_level=0, name="sequential", required=None,
    traceable=False): runs `passes` in order, each gated by PassEnabled."""

    def __init__(self, passes=None, opt_level=0, name="sequential", required=None,
                 traceable=False):
        passes = _listify(passes)
        for p in passes:
            if not isinstance(p, Pass):
                raise TypeError("pass %r is not a Pass" % (p,))
        info = PassInfo(opt_level, name, required, traceable)
        out = ctypes.c_void_p()
        call(lib.psg_sequential, CTX, _ffi.ptr_array([p._ptr for p in passes]), len(passes),
             info._ptr, ctypes.byref(out), what="Sequential")
        self._ptr = out.value

    @property
    def passes(self):
        out = []
        for i in range(lib.psg_pass_num_children(self._ptr)):
            p = lib.psg_pass_get_child(self._ptr, i)
            lib.psg_pass_retain(p)
            out.append(Pass._own(p))
        return out


class FixedPoint(ModulePass):
    """FixedPoint(passes, max_iterations=10): runs Sequential(passes) again
    and again until the module stops changing (XLA's HloPassFix; pipeline
    text fixed_point(P1,P2){max_iterations=N}). Reaching the limit is a
    warning (the last module is the result); a module seen before is a
    cycle and raises PassError."""

    def __init__(self, passes, max_iterations=10):
        passes = [passes] if isinstance(passes, Pass) else _listify(passes)
        for p in passes:
            if not isinstance(p, Pass):
                raise TypeError("pass %r is not a Pass" % (p,))
        out = ctypes.c_void_p()
        call(lib.psg_fixed_point, CTX, _ffi.ptr_array([p._ptr for p in passes]), len(passes),
             int(max_iterations), ctypes.byref(out), what="FixedPoint")
        self._ptr = out.value

    @property
    def max_iterations(self):
        return lib.psg_fixed_point_max_iterations(self._ptr)

    @property
    def passes(self):
        """The inner passes (the children of its Sequential)."""
        inner = lib.psg_pass_get_child(self._ptr, 0)
        lib.psg_pass_retain(inner)
        return Pass._own(inner).passes


def _show_bisect_lines(diags):
    """testing.opt_bisect_limit's BISECT lines go to stderr as the CLI
    shows them (LLVM prints them there too)."""
    for d in diags:
        if lib.psg_diag_pass(d) == b"OptBisect":
            sys.stderr.write(s(lib.psg_diag_message(d)) + "\n")


def load_pass_plugin(path):
    """Loads a pass plugin (a shared library exporting
    psg_get_pass_plugin_info, include/passage/plugin.h) and registers its
    passes: get_pass and parse_pipeline then know them. PassError on a
    missing file, a library that is not a plugin or an ABI mismatch."""
    call(lib.psg_pass_plugin_load, CTX, enc(str(path)), what="pass plugin")


def loaded_pass_plugins():
    """[(name, path)] of the plugins loaded so far, in order."""
    return [(s(lib.psg_pass_plugin_name(CTX, i)), s(lib.psg_pass_plugin_path(CTX, i)))
            for i in range(lib.psg_pass_plugin_count(CTX))]


# So that the design doc's example runs as written: it decorates a function
# named `transform` and then checks isinstance(module_pass, transform.ModulePass).
Pass.ModulePass = ModulePass
Pass.FunctionPass = FunctionPass
Pass.PrimFuncPass = PrimFuncPass
Pass.Sequential = Sequential


# Python passes: the trampolines ---------------------------------------------------------

class _PyPassBody:
    """What a C pass's `user` handle points at: the user's callable and the
    pass name (for error reports). Holds no reference to the Pass object."""
    __slots__ = ("fn", "name")

    def __init__(self, fn, name):
        self.fn, self.name = fn, name


def _module_tramp(mod, pctx, user, out):
    body = None
    try:
        body = _ffi.handle_obj(user)
        with _ffi.Call():
            res = body.fn(IRModule._borrow(mod), PassContext._borrow(pctx))
            if not isinstance(res, IRModule):
                raise TypeError("module pass %r returned %r, not an IRModule"
                                % (body.name, type(res).__name__))
            lib.psg_module_retain(res._ptr)
            out[0] = res._ptr
        return 0
    except BaseException as e:
        return _ffi.park_exception(e, body.name if body else None)


def _function_tramp(func, mod, pctx, user, out):
    body = None
    try:
        body = _ffi.handle_obj(user)
        with _ffi.Call():
            res = body.fn(_wrap_expr(func, False), IRModule._borrow(mod), PassContext._borrow(pctx))
            if not isinstance(res, Function):
                raise TypeError("function pass %r returned %r, not a relay.Function"
                                % (body.name, type(res).__name__))
            lib.psg_expr_retain(res._ptr)
            out[0] = res._ptr
        return 0
    except BaseException as e:
        return _ffi.park_exception(e, body.name if body else None)


def _prim_func_tramp(func, mod, pctx, user, out):
    body = None
    try:
        body = _ffi.handle_obj(user)
        with _ffi.Call():
            from .tir import _api as tir_api, PrimFunc  # the callback sees TIR PrimFuncs
            res = body.fn(tir_api.borrowed(func), IRModule._borrow(mod), PassContext._borrow(pctx))
            if res is None:
                out[0] = None  # removes the function
            elif not isinstance(res, PrimFunc):
                raise TypeError("prim-func pass %r returned %r, not a tir.PrimFunc"
                                % (body.name, type(res).__name__))
            else:
                lib.psg_tir_retain(res._ptr)
                out[0] = res._ptr
        return 0
    except BaseException as e:
        return _ffi.park_exception(e, body.name if body else None)


_MODULE_TRAMP = _ffi.immortal(_ffi.MODULE_PASS_FN(_module_tramp))
_FUNCTION_TRAMP = _ffi.immortal(_ffi.FUNCTION_PASS_FN(_function_tramp))
_PRIM_FUNC_TRAMP = _ffi.immortal(_ffi.FUNCTION_PASS_FN(_prim_func_tramp))


def _make_pass(cls, create, tramp, fn, info):
    obj = object.__new__(cls)
    h = _ffi.new_handle(_PyPassBody(fn, info.name))
    out = ctypes.c_void_p()
    try:
        call(create, CTX, info._ptr, tramp, h, _ffi.FREE_HANDLE, ctypes.byref(out), what=info.name)
    except BaseException:
        _ffi._handles.pop(h, None)
        raise
    obj._ptr = out.value
    return obj


def _wrap_class_pass(pass_cls, info, base, create, tramp, method):
    """Decorating a class gives a class: instantiating it builds the user's
    instance and a pass whose body closes over that instance (not over the
    pass object, so there is no reference cycle through C)."""

    class PyPass(base):
        def __init__(self, *args, **kwargs):
            inst = pass_cls(*args, **kwargs)
            bound = getattr(inst, method)
            made = _make_pass(base, create, tramp, bound, info)
            self.__dict__["_ptr"] = made.__dict__.pop("_ptr")
            self.__dict__["_inst"] = inst

        def __getattr__(self, name):
            inst = self.__dict__.get("_inst")
            if inst is None:
                raise AttributeError(name)
            return getattr(inst, name)

    functools.update_wrapper(PyPass.__init__, pass_cls.__init__)
    PyPass.__name__ = pass_cls.__name__
    PyPass.__qualname__ = pass_cls.__qualname__
    PyPass.__doc__ = pass_cls.__doc__
    PyPass.__module__ = pass_cls.__module__
    return PyPass


def _decorator(kind, pass_func, opt_level, name, required, traceable):
    label = {"module": "module pass", "function": "function pass", "prim_func": "prim_func pass"}[kind]
    if opt_level is None:
        raise ValueError("Please provide opt_level for the %s." % label)
    required = required if required else []
    if not isinstance(required, (list, tuple)):
        raise TypeError("Required is expected to be the type of list/tuple.")
    base, create, tramp, method = {
        "module": (ModulePass, lib.psg_create_module_pass, _MODULE_TRAMP, "transform_module"),
        "function": (FunctionPass, lib.psg_create_function_pass, _FUNCTION_TRAMP,
                     "transform_function"),
        "prim_func": (PrimFuncPass, lib.psg_create_prim_func_pass, _PRIM_FUNC_TRAMP,
                      "transform_function"),
    }[kind]

    def create_pass(pass_arg):
        if not callable(pass_arg):
            raise TypeError("pass_func must be a callable for %s pass"
                            % ("Module" if kind == "module" else "Function" if kind == "function"
                               else "PrimFunc"))
        fname = name if name else pass_arg.__name__
        info = PassInfo(opt_level, fname, required, traceable)
        if inspect.isclass(pass_arg):
            return _wrap_class_pass(pass_arg, info, base, create, tramp, method)
        return _make_pass(base, create, tramp, pass_arg, info)

    if pass_func:
        return create_pass(pass_func)
    return create_pass


def module_pass(pass_func=None, opt_level=None, name=None, required=None, traceable=False):
    """Decorates `f(mod, ctx) -> IRModule`, or a class with
    `transform_module(self, mod, ctx)`, into a module pass."""
    return _decorator("module", pass_func, opt_level, name, required, traceable)


def function_pass(pass_func=None, opt_level=None, name=None, required=None):
    """Decorates `f(func, mod, ctx) -> Function`, or a class with
    `transform_function(self, func, mod, ctx)`, into a function pass."""
    return _decorator("function", pass_func, opt_level, name, required, False)


def prim_func_pass(pass_func=None, opt_level=None, name=None, required=None, traceable=False):
    """Decorates `f(func, mod, ctx) -> PrimFunc or None`, or a class with
    `transform_function`, into a prim-func pass (None removes the function)."""
    return _decorator("prim_func", pass_func, opt_level, name, required, traceable)


def PrintIR(header="", show_meta_data=False):
    """A module pass (opt_level 0) that writes "PrintIR(<header>):" and the
    module text to sys.stderr, as TVM logs it, and returns the same module."""
    out = ctypes.c_void_p()
    call(lib.psg_print_ir_pass_create, CTX, enc(header), bool(show_meta_data), STDERR_SINK, None,
         ctypes.byref(out), what="PrintIR")
    return Pass._own(out.value)


# The registry ------------------------------------------------------------------------------

def list_passes():
    """{name: {"kind", "opt_level", "help"}} for every registered C pass."""
    n = lib.psg_pass_registry_count(CTX)
    kinds = {1: "module", 2: "function", 3: "prim_func", 4: "sequential"}
    return {s(lib.psg_pass_registry_name(CTX, i)):
            {"kind": kinds.get(lib.psg_pass_registry_kind(CTX, i)),
             "opt_level": lib.psg_pass_registry_opt_level(CTX, i),
             "help": s(lib.psg_pass_registry_help(CTX, i))} for i in range(n)}


def get_pass(name, **options):
    """The registered pass `name` (TVM's names and aliases: "FoldConstant",
    "transform.FoldConstant", "relay._transform.FoldConstant"), made with
    `options` (pipeline options such as fuse_opt_level=2)."""
    opts = attrs_from_py(options) if options else None
    out = ctypes.c_void_p()
    try:
        call(lib.psg_pass_get, CTX, enc(name), opts, ctypes.byref(out), what="get_pass")
    finally:
        if opts:
            lib.psg_attrs_release(opts)
    return Pass._own(out.value)


def parse_pipeline(text):
    """A pass from pipeline text, e.g. "sequential(InferType,FoldConstant)"
    or "InferType,FoldConstant" (a Sequential). ParseError on bad text."""
    out = ctypes.c_void_p()
    call(lib.psg_pipeline_parse, CTX, enc(text), ctypes.byref(out), what="pipeline")
    return Pass._own(out.value)


def _ctor_tramp(ctx, options, user, out):
    try:
        make = _ffi.handle_obj(user)
        with _ffi.Call():
            made = make()
            if not isinstance(made, Pass):
                raise TypeError("register_pass: the constructor returned %r, not a Pass"
                                % type(made).__name__)
            lib.psg_pass_retain(made._ptr)
            out[0] = made._ptr
        return 0
    except BaseException as e:
        return _ffi.park_exception(e)


_CTOR_TRAMP = _ffi.immortal(_ffi.PASS_CTOR_FN(_ctor_tramp))


def register_pass(name, make, help=""):
    """Registers a pass made in Python under `name`, as the C passes are:
    `make()` (a Pass, e.g. a module_pass-decorated class or a function
    returning one) is called each time the name is resolved, so the name can
    appear in another pass's `required`, in pipeline text and in get_pass.
    The kind, opt_level and required passes listed are those of one pass made
    now. Registering a name again replaces it. Returns `make`, so it can be a
    decorator: `@register_pass("MyPass")`."""
    if not callable(make):
        raise TypeError("register_pass: `make` must be callable")
    sample = make()
    if not isinstance(sample, Pass):
        raise TypeError("register_pass: make() returned %r, not a Pass" % type(sample).__name__)
    info = sample.info
    required = list(info.required)
    arr = (ctypes.c_char_p * max(len(required), 1))(*[enc(r) for r in required])
    h = _ffi.new_handle(make)  # kept for the life of the registry (the process)
    kind = lib.psg_pass_kind(sample._ptr)
    call(lib.psg_pass_register, CTX, enc(name), kind, info.opt_level, arr, len(required), None,
         enc(help or "a pass registered from Python"), _CTOR_TRAMP, h, what="register_pass")
    return make


def register_func(func_name, f=None, override=False):
    """tvm.register_func for the names TVM resolves passes by:
    "transform.NAME" or "relay._transform.NAME" registers `f` (returning a
    Pass) as the pass NAME (register_pass). Other global functions are not
    part of Passage."""
    def do(fn):
        for prefix in ("relay._transform.", "transform."):
            if func_name.startswith(prefix):
                return register_pass(func_name[len(prefix):], fn)
        from .error import UnsupportedError
        raise UnsupportedError("register_func: only pass constructors (transform.NAME, "
                               "relay._transform.NAME) can be registered, not %r" % func_name)
    return do(f) if f is not None else do


def _registry_ctor(name):
    def ctor(**options):
        return get_pass(name, **options)
    ctor.__name__ = ctor.__qualname__ = name
    ctor.__doc__ = "The registered pass %s (options as keyword arguments)." % name
    return ctor


def registered_name(attr):
    """`attr` if a pass of that name is registered now, else None."""
    for i in range(lib.psg_pass_registry_count(CTX)):
        if s(lib.psg_pass_registry_name(CTX, i)) == attr:
            return attr
    return None


def __getattr__(attr):
    # Every registered C pass is reachable as passage.transform.NAME(), looked
    # up at access time so passes registered later appear too.
    if not attr.startswith("_") and registered_name(attr):
        return _registry_ctor(attr)
    raise AttributeError("module 'passage.transform' has no attribute %r" % attr)


def __dir__():
    return sorted(set(globals()) | set(list_passes()))


# PassContext -----------------------------------------------------------------------------

class PassContext:
    """PassContext(opt_level=2, required_pass=None, disabled_pass=None,
    instruments=None, config=None), usable as `with PassContext(...):`."""

    def __init__(self, opt_level=2, required_pass=None, disabled_pass=None, instruments=None,
                 config=None, trace=None, trace_stack=None, make_traceable=None, num_evals=0,
                 tuning_api_database=None):
        out = ctypes.c_void_p()
        call(lib.psg_pass_context_create, CTX, ctypes.byref(out), what="PassContext")
        self._ptr = out.value
        call(lib.psg_pass_context_set_opt_level, self._ptr, int(opt_level), what="PassContext")
        for n in _listify(required_pass):
            call(lib.psg_pass_context_add_required_pass, self._ptr, enc(n), what="PassContext")
        for n in _listify(disabled_pass):
            call(lib.psg_pass_context_add_disabled_pass, self._ptr, enc(n), what="PassContext")
        for k, v in (config or {}).items():
            self._set_config(k, v)
        from .instrument import _c_instrument
        for inst in _listify(instruments):
            ptr = _c_instrument(inst)
            try:
                call(lib.psg_pass_context_add_instrument, self._ptr, ptr, what="PassContext")
            finally:
                lib.psg_instrument_release(ptr)

    def _set_config(self, key, value):
        from .error import ConfigError
        if value is None:
            raise ConfigError("AttributeError: %s is None" % key)
        a = _attr_from_py(value, key)
        try:
            with _ffi.Call():
                st = lib.psg_pass_context_set_config(self._ptr, enc(key), a)
                if st != _ffi.OK:
                    err = _ffi.error_from_status(st, "config")
                    raise ConfigError(str(err), err.status, err.diagnostic)
        finally:
            lib.psg_attr_release(a)

    @classmethod
    def _borrow(cls, ptr):
        lib.psg_pass_context_retain(ptr)
        obj = cls.__new__(cls)
        obj._ptr = ptr
        return obj

    def __del__(self):
        ptr = self.__dict__.get("_ptr")
        if ptr:
            self._ptr = None
            try:
                lib.psg_pass_context_release(ptr)
            except Exception:
                pass

    def __eq__(self, other):
        return isinstance(other, PassContext) and other._ptr == self._ptr

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self._ptr)

    def same_as(self, other):
        return self == other

    def __enter__(self):
        call(lib.psg_pass_context_enter, self._ptr, what="entering the PassContext")
        return self

    def __exit__(self, ptype, value, trace):
        call(lib.psg_pass_context_exit, self._ptr, what="exiting the PassContext")
        return False

    @staticmethod
    def current():
        """The innermost PassContext entered on this thread, or this thread's
        default context (one stable object per thread)."""
        ptr = lib.psg_pass_context_current(CTX)
        if not ptr:
            raise MemoryError("passage: out of memory")
        return PassContext._borrow(ptr)

    @staticmethod
    def list_configs():
        """{key: {"type": TVM's type key ("IntImm" for Bool and Integer options,
        "Attrs" for dictionaries), "passage_type": our type name, "help": text,
        "read_by": the pass or component that reads it (None if nothing does),
        "reserved": True for a built-in option nothing reads yet}} for every
        option. The type names and keys come from the library."""
        out = {}
        for i in range(lib.psg_config_option_count(CTX)):
            key = s(lib.psg_config_option_key(CTX, i))
            ctype = lib.psg_config_option_type(CTX, i)
            out[key] = {"type": s(lib.psg_config_option_type_key(ctype)),
                        "passage_type": s(lib.psg_config_option_type_name(ctype)),
                        "help": s(lib.psg_config_option_help(CTX, i)),
                        "read_by": s(lib.psg_config_option_read_by(CTX, i)),
                        "reserved": bool(lib.psg_config_option_is_reserved(CTX, i))}
        return out

    def override_instruments(self, instruments):
        """Exits the current instruments, installs `instruments` (None or a
        list), enters them (tvm-behavior §3.5)."""
        from .instrument import _c_instrument
        ptrs = [_c_instrument(i) for i in _listify(instruments)]
        try:
            call(lib.psg_pass_context_override_instruments, self._ptr, _ffi.ptr_array(ptrs),
                 len(ptrs), what="override_instruments")
        finally:
            for p in ptrs:
                lib.psg_instrument_release(p)

    @property
    def instruments(self):
        from .instrument import _py_instrument
        return [_py_instrument(lib.psg_pass_context_get_instrument(self._ptr, i))
                for i in range(lib.psg_pass_context_num_instruments(self._ptr))]

    @property
    def opt_level(self):
        return lib.psg_pass_context_opt_level(self._ptr)

    @property
    def required_pass(self):
        return [s(lib.psg_pass_context_required(self._ptr, i))
                for i in range(lib.psg_pass_context_num_required(self._ptr))]

    @property
    def disabled_pass(self):
        return [s(lib.psg_pass_context_disabled(self._ptr, i))
                for i in range(lib.psg_pass_context_num_disabled(self._ptr))]

    @property
    def config(self):
        d = lib.psg_pass_context_get_config_dict(self._ptr)
        return dict(_attrs_items(d)) if d else {}

    @property
    def pass_cache_stats(self):
        """What the pass cache (config "passage.pass_cache": a directory) did
        under this context: {"hits", "misses", "stored", "unusable",
        "bypassed"} counts, one per function looked up (docs/pass-infra.md
        "Pass cache")."""
        names = ("hits", "misses", "stored", "unusable", "bypassed")
        return {n: int(lib.psg_pass_context_cache_count(self._ptr, i)) for i, n in enumerate(names)}

    def __str__(self):
        return ("Pass context information: \n\topt_level: %d\n\trequired passes: %s\n"
                "\tdisabled passes: %s\n\tinstruments: %s\n\tconfig: %s\n"
                % (self.opt_level, self.required_pass, self.disabled_pass,
                   [str(i) for i in self.instruments], self.config))


class Reproducer:
    """A reproducer file read back (docs/pass-infra.md, "Reproducers"): the
    file a pass run writes when it fails or crashes under
    `PassContext(config={"testing.reproducer": PATH})` (and, for the failing
    pass alone, `"testing.local_reproducer": True`).

        r = passage.transform.Reproducer("repro.relay")
        r.pipeline, r.mod, r.pass_context     # what was recorded
        r.run()                                # replays: raises the same error

    Options given as keyword arguments are added to the recorded context's
    config (e.g. `Reproducer(path, config={"testing.verify_each": True})`).
    IOError-like PassError/ParseError when the file cannot be read."""

    def __init__(self, path, config=None):
        pc, pipeline, mod = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
        call(lib.psg_reproducer_load, CTX, enc(str(path)), ctypes.byref(pc), ctypes.byref(pipeline),
             ctypes.byref(mod), what="reproducer")
        self.path = str(path)
        self.pipeline = take_string(pipeline.value)
        self.mod = IRModule._own(mod.value)
        ctx = PassContext.__new__(PassContext)
        ctx._ptr = pc.value
        self.pass_context = ctx
        for k, v in (config or {}).items():
            ctx._set_config(k, v)

    def run(self):
        """Replays the recorded pipeline over the recorded module under the
        recorded context; the module it returns (a failing replay raises)."""
        with self.pass_context:
            return parse_pipeline(self.pipeline)(self.mod)

    def __repr__(self):
        return "Reproducer(%r, pipeline=%r)" % (self.path, self.pipeline)
