"""Passage — pass instruments from Python (tvm.ir.instrument): the
pass_instrument class decorator, PassInstrument subclassing (only the methods
a class overrides are registered with C, as TVM does), and the built-in
PassTimingInstrument, PrintBeforeAll, PrintAfterAll and
PassPrintingInstrument (C instruments that print through sys.stdout).

Each time a Python instrument is installed in a PassContext a fresh C
instrument is made whose `user` handle refers to the Python object; the C
side frees the handle when it drops the instrument. The Python object holds
no C reference, so no reference cycle runs through C."""

import ctypes
import inspect
import weakref

from . import _ffi
from ._ffi import lib, CTX, call, enc, s, take_string
from .ir import IRModule
from .transform import PassInfo, PassContext, STDOUT_SINK

__all__ = ["PassInstrument", "pass_instrument", "PassTimingInstrument", "ReportInstrument", "PrintBeforeAll",
           "PrintAfterAll", "PassPrintingInstrument"]

_METHODS = ("enter_pass_ctx", "exit_pass_ctx", "should_run", "run_before_pass", "run_after_pass",
            "run_after_pass_failed")


class PassInstrument:
    """Base of instruments. Subclass it and override any of
    enter_pass_ctx(self), exit_pass_ctx(self), should_run(self, mod, info),
    run_before_pass(self, mod, info), run_after_pass(self, mod, info), and
    Passage's run_after_pass_failed(self, mod, info); or decorate a plain
    class with @pass_instrument."""

    # A C-backed built-in sets this to its own C instrument reference.
    _c_ptr = None

    def __init__(self):
        pass

    @property
    def name(self):
        if self._c_ptr:
            return s(lib.psg_instrument_name(self._c_ptr))
        return type(self).__name__

    def __str__(self):
        return self.name

    def _overridden(self):
        cls = type(self)
        return [m for m in _METHODS
                if callable(getattr(cls, m, None)) and getattr(cls, m) is not getattr(PassInstrument, m, None)]

    def __del__(self):
        ptr = self.__dict__.get("_c_ptr")
        if ptr:
            self.__dict__["_c_ptr"] = None
            try:
                lib.psg_instrument_release(ptr)
            except Exception:
                pass


# Trampolines ---------------------------------------------------------------------------

def _info_name(info):
    try:
        return s(lib.psg_pass_info_name(info))
    except BaseException:
        return None


def _enter_tramp(user, pctx):
    try:
        with _ffi.Call():
            _ffi.handle_obj(user).enter_pass_ctx()
        return 0
    except BaseException as e:
        return _ffi.park_exception(e, None)


def _exit_tramp(user, pctx):
    try:
        with _ffi.Call():
            _ffi.handle_obj(user).exit_pass_ctx()
        return 0
    except BaseException as e:
        return _ffi.park_exception(e, None)


def _should_run_tramp(user, pctx, mod, info, run):
    try:
        with _ffi.Call():
            r = _ffi.handle_obj(user).should_run(IRModule._borrow(mod), PassInfo._borrow(info))
            run[0] = bool(r)
        return 0
    except BaseException as e:
        return _ffi.park_exception(e, _info_name(info))


def _make_cb(method):
    def tramp(user, pctx, mod, info):
        try:
            with _ffi.Call():
                getattr(_ffi.handle_obj(user), method)(IRModule._borrow(mod), PassInfo._borrow(info))
            return 0
        except BaseException as e:
            return _ffi.park_exception(e, _info_name(info))
    return tramp


_TRAMPS = {
    "enter_pass_ctx": _ffi.immortal(_ffi.ENTER_FN(_enter_tramp)),
    "exit_pass_ctx": _ffi.immortal(_ffi.ENTER_FN(_exit_tramp)),
    "should_run": _ffi.immortal(_ffi.SHOULD_RUN_FN(_should_run_tramp)),
    "run_before_pass": _ffi.immortal(_ffi.PASS_CB_FN(_make_cb("run_before_pass"))),
    "run_after_pass": _ffi.immortal(_ffi.PASS_CB_FN(_make_cb("run_after_pass"))),
    "run_after_pass_failed": _ffi.immortal(_ffi.PASS_CB_FN(_make_cb("run_after_pass_failed"))),
}

# C instrument pointer -> the Python built-in owning it (for ctx.instruments).
_c_backed = weakref.WeakValueDictionary()


def _c_instrument(inst):
    """A new C reference for installing `inst` in a PassContext."""
    if not isinstance(inst, PassInstrument):
        raise TypeError("%r is not a PassInstrument (decorate its class with "
                        "@passage.instrument.pass_instrument)" % (inst,))
    if inst._c_ptr:
        lib.psg_instrument_retain(inst._c_ptr)
        return inst._c_ptr
    cb = _ffi.InstrumentCallbacks()
    for m in inst._overridden():
        setattr(cb, m, _TRAMPS[m])
    h = _ffi.new_handle(inst)
    out = ctypes.c_void_p()
    try:
        call(lib.psg_instrument_create, CTX, enc(inst.name), ctypes.byref(cb), h, _ffi.FREE_HANDLE,
             ctypes.byref(out), what="instrument")
    except BaseException:
        _ffi._handles.pop(h, None)
        raise
    return out.value


class _ForeignInstrument(PassInstrument):
    """A C instrument not made from Python (e.g. installed by C code)."""

    def __init__(self, ptr):
        lib.psg_instrument_retain(ptr)
        self._c_ptr = ptr


def _py_instrument(ptr):
    obj = _c_backed.get(ptr)
    if obj is not None:
        return obj
    user = lib.psg_instrument_user(ptr)
    obj = _ffi.handle_obj(user) if user else None
    if isinstance(obj, PassInstrument):
        return obj
    if s(lib.psg_instrument_name(ptr)) == "PassTimingInstrument":
        # A timing instrument whose Python wrapper is gone: a new wrapper
        # renders the same profile.
        obj = PassTimingInstrument.__new__(PassTimingInstrument)
        lib.psg_instrument_retain(ptr)
        obj._c_ptr = ptr
        _c_backed[ptr] = obj
        return obj
    return _ForeignInstrument(ptr)


def pass_instrument(pi_cls=None):
    """Class decorator: the class's methods named like PassInstrument's
    become the instrument's callbacks (only those the class defines)."""

    def create_pass_instrument(pi_cls):
        if not inspect.isclass(pi_cls):
            raise TypeError("pi_cls must be a class")
        if issubclass(pi_cls, PassInstrument):
            return pi_cls

        class PyPassInstrument(pi_cls, PassInstrument):
            def __init__(self, *args, **kwargs):
                pi_cls.__init__(self, *args, **kwargs)
                PassInstrument.__init__(self)

            @property
            def name(self):
                return pi_cls.__name__

        PyPassInstrument.__name__ = pi_cls.__name__
        PyPassInstrument.__qualname__ = pi_cls.__qualname__
        PyPassInstrument.__doc__ = pi_cls.__doc__
        PyPassInstrument.__module__ = pi_cls.__module__
        return PyPassInstrument

    if pi_cls:
        return create_pass_instrument(pi_cls)
    return create_pass_instrument


# Built-ins -------------------------------------------------------------------------------

class _CBacked(PassInstrument):
    def _adopt(self, out):
        self._c_ptr = out.value
        _c_backed[out.value] = self


class PassTimingInstrument(_CBacked):
    """Times every pass. Unlike TVM the profile belongs to the instrument and
    survives the context's exit; render() may be called afterwards and
    reset() clears it."""

    def __init__(self):
        out = ctypes.c_void_p()
        call(lib.psg_timing_instrument_create, CTX, ctypes.byref(out), what="PassTimingInstrument")
        self._adopt(out)

    def render(self):
        """TVM's format: "\\t"*depth + "NAME: Dus [Sus] (T%; P%)" per pass."""
        return take_string(lib.psg_timing_render(self._c_ptr)) or ""

    def render_flat(self, n=0):
        return take_string(lib.psg_timing_render_flat(self._c_ptr, n)) or ""

    def render_json(self):
        import json
        return json.loads(take_string(lib.psg_timing_render_json(self._c_ptr)) or "[]")

    def reset(self):
        lib.psg_timing_reset(self._c_ptr)


class ReportInstrument(_CBacked):
    """The one-file HTML run report (docs/report.md): records every pass run
    under the contexts it is added to and writes `path` (if given) each time
    such a context exits. `graphs`: "ends" (the dataflow graph before and
    after the run, drawn by Graphviz's dot), "each" (also after every pass
    that changed the module) or "none"."""

    _GRAPHS = {"none": 0, "ends": 1, "each": 2}

    def __init__(self, path=None, graphs="ends"):
        if graphs not in self._GRAPHS:
            raise ValueError("graphs must be 'none', 'ends' or 'each', not %r" % (graphs,))
        out = ctypes.c_void_p()
        call(lib.psg_report_instrument_create, CTX, enc(None if path is None else str(path)), self._GRAPHS[graphs],
             ctypes.byref(out), what="ReportInstrument")
        self._adopt(out)

    def render(self):
        """The report as HTML text now."""
        return take_string(lib.psg_report_render(self._c_ptr)) or ""

    def write(self, path):
        call(lib.psg_report_write, self._c_ptr, enc(str(path)), what="ReportInstrument.write")


def _print_ir(before, after, flags):
    out = ctypes.c_void_p()
    b = _ffi.str_array(before, terminate=True) if before is not None else None
    a = _ffi.str_array(after, terminate=True) if after is not None else None
    call(lib.psg_print_ir_instrument_create, CTX, b, a, flags, STDOUT_SINK, None, ctypes.byref(out),
         what="print-IR instrument")
    return out


class PrintBeforeAll(_CBacked):
    """Prints "Before Running Pass: <info>" and the module before every pass."""

    def __init__(self):
        self._adopt(_print_ir(None, None, 1))


class PrintAfterAll(_CBacked):
    """Prints "After Running Pass: <info>" and the output after every pass."""

    def __init__(self):
        self._adopt(_print_ir(None, None, 2))


class PassPrintingInstrument(_CBacked):
    """Prints the IR before the passes named in print_before_pass_names and
    after those in print_after_pass_names (exact names)."""

    def __init__(self, print_before_pass_names=None, print_after_pass_names=None):
        before = [print_before_pass_names] if isinstance(print_before_pass_names, str) \
            else list(print_before_pass_names or [])
        after = [print_after_pass_names] if isinstance(print_after_pass_names, str) \
            else list(print_after_pass_names or [])
        self._adopt(_print_ir(before, after, 0))
