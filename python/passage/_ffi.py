"""Passage — the ctypes layer: finds libpassage, declares the public C API,
owns the process-wide library context, turns C statuses into exceptions and
hosts the callback trampolines (STYLE rule 7: an exception never escapes a
ctypes callback; it is parked per thread and re-raised at the call site)."""

import ctypes
import ctypes.util
import itertools
import os
import sys
import threading

from . import error as _err

# Loading -----------------------------------------------------------------------

_HERE = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    env = os.environ.get("PASSAGE_LIBRARY")
    if env:
        # An explicit override is the only candidate: a wrong path is an error,
        # not a silent fallback to some other build.
        return [env]
    names = ["libpassage.so", "libpassage.so.0"]
    dirs = [_HERE]  # a wheel or install that bundles the library
    root = os.path.dirname(os.path.dirname(_HERE))  # python/passage -> repo root
    for sub in ("build/release", "build", "build/asan"):
        dirs.append(os.path.join(root, sub))
    out = [os.path.join(d, n) for d in dirs for n in names]
    found = ctypes.util.find_library("passage")
    if found:
        out.append(found)
    out.extend(names)  # the system's search path (LD_LIBRARY_PATH, ld.so.cache)
    return out


def _load():
    errors = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            errors.append("%s: %s" % (path, e))
    raise ImportError("passage: cannot load libpassage (set PASSAGE_LIBRARY to its path); tried:\n  "
                      + "\n  ".join(errors or _candidates()))


lib, library_path = _load()

# Types ---------------------------------------------------------------------------

P = ctypes.c_void_p
S = ctypes.c_char_p
I = ctypes.c_int
Z = ctypes.c_size_t
B = ctypes.c_bool
I64 = ctypes.c_int64
U64 = ctypes.c_uint64
PP = ctypes.POINTER(ctypes.c_void_p)


class Span(ctypes.Structure):
    _fields_ = [("file", S), ("line", ctypes.c_int32), ("col", ctypes.c_int32),
                ("end_line", ctypes.c_int32), ("end_col", ctypes.c_int32), ("name", S)]


# Callback types (include/passage/pass.h, instrument.h, ctx.h).
MODULE_PASS_FN = ctypes.CFUNCTYPE(I, P, P, P, PP)
FUNCTION_PASS_FN = ctypes.CFUNCTYPE(I, P, P, P, P, PP)
FREE_FN = ctypes.CFUNCTYPE(None, P)
ENTER_FN = ctypes.CFUNCTYPE(I, P, P)
SHOULD_RUN_FN = ctypes.CFUNCTYPE(I, P, P, P, P, ctypes.POINTER(ctypes.c_bool))
PASS_CB_FN = ctypes.CFUNCTYPE(I, P, P, P, P)
DIAG_SINK_FN = ctypes.CFUNCTYPE(None, P, P)
TEXT_SINK_FN = ctypes.CFUNCTYPE(None, P, P, Z)
PASS_CTOR_FN = ctypes.CFUNCTYPE(I, P, P, P, PP)


class InstrumentCallbacks(ctypes.Structure):
    _fields_ = [("enter_pass_ctx", ENTER_FN), ("exit_pass_ctx", ENTER_FN),
                ("should_run", SHOULD_RUN_FN), ("run_before_pass", PASS_CB_FN),
                ("run_after_pass", PASS_CB_FN), ("run_after_pass_failed", PASS_CB_FN)]


_PROTOS = {
    # defs / status / ctx
    "psg_version": (S, []), "psg_free": (None, [P]), "psg_status_str": (S, [I]),
    "psg_ctx_create": (I, [P, PP]), "psg_ctx_retain": (None, [P]), "psg_ctx_release": (None, [P]),
    "psg_ctx_live_objects": (I64, [P]), "psg_ctx_fail": (I, [P, I, S, S]),
    "psg_ctx_set_diag_sink": (None, [P, DIAG_SINK_FN, P]), "psg_ctx_clear_diags": (None, [P]),
    "psg_diag_severity": (I, [P]), "psg_diag_code": (I, [P]), "psg_diag_message": (S, [P]),
    "psg_diag_file": (S, [P]), "psg_diag_line": (I, [P]), "psg_diag_col": (I, [P]),
    "psg_diag_pass": (S, [P]), "psg_diag_rendered": (S, [P]),
    # types
    "psg_dtype_name": (S, [I]), "psg_dtype_from_name": (I, [S, Z]), "psg_dtype_size": (Z, [I]),
    "psg_type_tensor": (I, [P, ctypes.POINTER(I64), I, I, PP]),
    "psg_type_tuple": (I, [P, PP, I, PP]), "psg_type_func": (I, [P, PP, I, P, PP]),
    "psg_type_kind": (I, [P]), "psg_type_ndim": (I, [P]), "psg_type_dim": (I64, [P, I]),
    "psg_type_dtype": (I, [P]), "psg_type_num_fields": (I, [P]), "psg_type_field": (P, [P, I]),
    "psg_type_func_ret": (P, [P]),
    "psg_type_func_poly": (I, [P, PP, I, P, PP, I, PP]), "psg_type_call": (I, [P, P, PP, I, PP]),
    "psg_type_ref": (I, [P, P, PP]), "psg_type_var": (I, [P, S, I, PP]),
    "psg_type_global_var": (I, [P, S, I, PP]), "psg_type_incomplete": (I, [P, I, PP]),
    "psg_type_func_num_type_params": (I, [P]), "psg_type_func_type_param": (P, [P, I]),
    "psg_type_call_func": (P, [P]), "psg_type_ref_value": (P, [P]), "psg_type_var_name": (S, [P]),
    "psg_type_var_kind": (I, [P]), "psg_type_structural_equal": (B, [P, P, B]),
    "psg_type_structural_hash": (U64, [P]),
    "psg_function_create_poly": (I, [P, PP, Z, P, P, PP, I, P, P, PP]),
    "psg_function_num_type_params": (I, [P]), "psg_function_type_param": (P, [P, I]),
    "psg_type_solver_create": (I, [P, PP]), "psg_type_solver_free": (None, [P]),
    "psg_type_solver_unify": (I, [P, P, P, PP]), "psg_type_solver_resolve": (I, [P, P, PP]),
    "psg_type_solver_add_relation": (I, [P, S, PP, I, I, P]),
    "psg_type_solver_solve": (I, [P, ctypes.POINTER(ctypes.c_bool)]),
    # tensors
    "psg_tensor_create": (I, [P, I, ctypes.POINTER(I64), I, P, PP]),
    "psg_tensor_retain": (None, [P]), "psg_tensor_release": (None, [P]),
    "psg_tensor_dtype": (I, [P]), "psg_tensor_ndim": (I, [P]), "psg_tensor_dim": (I64, [P, I]),
    "psg_tensor_nbytes": (Z, [P]), "psg_tensor_data": (P, [P]), "psg_tensor_equal": (B, [P, P]),
    # attrs
    "psg_attr_none": (I, [P, PP]), "psg_attr_int": (I, [P, I64, PP]),
    "psg_attr_float": (I, [P, ctypes.c_double, PP]), "psg_attr_string": (I, [P, S, Z, PP]),
    "psg_attr_bool": (I, [P, B, PP]), "psg_attr_dtype": (I, [P, I, PP]),
    "psg_attr_list": (I, [P, PP, Z, PP]), "psg_attr_dict": (I, [P, P, PP]),
    "psg_attr_release": (None, [P]), "psg_attr_kind": (I, [P]), "psg_attr_get_int": (I64, [P]),
    "psg_attr_get_float": (ctypes.c_double, [P]), "psg_attr_get_string": (S, [P]),
    "psg_attr_get_global_var": (S, [P]),
    "psg_attr_get_bool": (B, [P]), "psg_attr_get_dtype": (I, [P]), "psg_attr_list_len": (Z, [P]),
    "psg_attr_list_get": (P, [P, Z]), "psg_attr_get_dict": (P, [P]),
    "psg_attrs_create": (I, [P, ctypes.POINTER(S), PP, Z, PP]),
    "psg_attrs_retain": (None, [P]), "psg_attrs_release": (None, [P]),
    "psg_attrs_count": (Z, [P]), "psg_attrs_key": (S, [P, Z]), "psg_attrs_get_value": (P, [P, Z]),
    # expressions
    "psg_var_create": (I, [P, S, P, P, PP]), "psg_global_var_create": (I, [P, S, P, PP]),
    "psg_constant_create": (I, [P, P, P, PP]), "psg_tuple_create": (I, [P, PP, Z, P, PP]),
    "psg_tuple_get_item_create": (I, [P, P, I, P, PP]),
    "psg_call_create": (I, [P, P, PP, Z, P, P, PP]), "psg_let_create": (I, [P, P, P, P, P, PP]),
    "psg_if_create": (I, [P, P, P, P, P, PP]),
    "psg_function_create": (I, [P, PP, Z, P, P, P, P, PP]), "psg_op_get": (I, [P, S, PP]),
    "psg_expr_retain": (None, [P]), "psg_expr_release": (None, [P]), "psg_expr_kind": (I, [P]),
    "psg_expr_span": (None, [P, ctypes.POINTER(Span)]), "psg_expr_checked_type": (P, [P]),
    "psg_expr_num_children": (Z, [P]), "psg_expr_get_child": (P, [P, Z]),
    "psg_var_name": (S, [P]), "psg_var_type": (P, [P]), "psg_global_var_name": (S, [P]),
    "psg_constant_get_tensor": (P, [P]), "psg_tuple_size": (Z, [P]), "psg_tuple_get_field": (P, [P, Z]),
    "psg_tuple_get_item_get_tuple": (P, [P]), "psg_tuple_get_item_index": (I, [P]),
    "psg_call_get_callee": (P, [P]), "psg_call_num_args": (Z, [P]), "psg_call_get_arg": (P, [P, Z]),
    "psg_call_get_attrs": (P, [P]), "psg_let_get_var": (P, [P]), "psg_let_get_value": (P, [P]),
    "psg_let_get_body": (P, [P]), "psg_if_get_cond": (P, [P]), "psg_if_get_then": (P, [P]),
    "psg_if_get_else": (P, [P]), "psg_function_num_params": (Z, [P]),
    "psg_function_get_param": (P, [P, Z]), "psg_function_get_body": (P, [P]),
    "psg_function_ret_type": (P, [P]), "psg_function_get_attrs": (P, [P]), "psg_op_name": (S, [P]),
    "psg_expr_structural_equal": (B, [P, P]), "psg_expr_structural_hash": (U64, [P]),
    "psg_expr_structural_equal_explain": (B, [P, P, ctypes.POINTER(P)]),
    # ops
    "psg_op_count": (Z, []), "psg_op_name_at": (S, [Z]), "psg_op_num_attrs": (Z, [Z]),
    "psg_op_attr_name": (S, [Z, Z]), "psg_op_doc": (S, [Z]),
    # modules and text
    "psg_module_create": (I, [P, PP]), "psg_module_retain": (None, [P]),
    "psg_module_release": (None, [P]), "psg_module_add": (I, [P, P, P, PP]),
    "psg_module_update": (I, [P, P, P, PP]), "psg_module_remove": (I, [P, S, PP]),
    "psg_module_with_attrs": (I, [P, P, PP]),
    "psg_module_num_functions": (Z, [P]), "psg_module_get_global_var": (P, [P, Z]),
    "psg_module_get_function": (P, [P, Z]), "psg_module_find": (ctypes.c_ssize_t, [P, S]),
    "psg_module_lookup": (P, [P, S]), "psg_module_get_attrs": (P, [P]),
    "psg_module_structural_equal": (B, [P, P, ctypes.POINTER(P)]),
    "psg_module_structural_hash": (U64, [P]),
    "psg_module_parse": (I, [P, S, Z, S, PP]), "psg_module_print": (I, [P, I, ctypes.POINTER(P), P]),
    "psg_expr_print": (I, [P, ctypes.POINTER(P), P]),
    "psg_expr_print_text": (I, [P, I, ctypes.POINTER(P), P]), "psg_expr_parse": (I, [P, S, Z, S, PP]),
    "psg_module_parse_in": (I, [P, S, Z, S, P, PP, Z, PP]),
    "psg_expr_structural_equal_ex": (B, [P, P, B, ctypes.POINTER(P)]),
    "psg_module_structural_equal_ex": (B, [P, P, B, ctypes.POINTER(P)]),
    # passes
    "psg_pass_info_create": (I, [P, S, I, ctypes.POINTER(S), Z, PP]),
    "psg_pass_register": (I, [P, S, I, I, ctypes.POINTER(S), Z, ctypes.POINTER(S), S, PASS_CTOR_FN,
                              P]),
    "psg_pass_info_retain": (None, [P]), "psg_pass_info_release": (None, [P]),
    "psg_pass_info_name": (S, [P]), "psg_pass_info_opt_level": (I, [P]),
    "psg_pass_info_num_required": (Z, [P]), "psg_pass_info_required": (S, [P, Z]),
    "psg_pass_info_to_string": (P, [P]),
    "psg_create_module_pass": (I, [P, P, MODULE_PASS_FN, P, FREE_FN, PP]),
    "psg_create_function_pass": (I, [P, P, FUNCTION_PASS_FN, P, FREE_FN, PP]),
    "psg_create_prim_func_pass": (I, [P, P, FUNCTION_PASS_FN, P, FREE_FN, PP]),
    "psg_sequential": (I, [P, PP, Z, P, PP]),
    "psg_fixed_point": (I, [P, PP, Z, I, PP]), "psg_fixed_point_max_iterations": (I, [P]),
    "psg_pass_plugin_load": (I, [P, S]), "psg_pass_plugin_count": (Z, [P]),
    "psg_pass_plugin_name": (S, [P, Z]), "psg_pass_plugin_path": (S, [P, Z]),
    "psg_pass_retain": (None, [P]), "psg_pass_release": (None, [P]), "psg_pass_kind": (I, [P]),
    "psg_pass_get_info": (P, [P]), "psg_pass_num_children": (Z, [P]),
    "psg_pass_get_child": (P, [P, Z]), "psg_pass_to_string": (P, [P]),
    "psg_pass_run": (I, [P, P, P, PP]),
    "psg_pass_context_create": (I, [P, PP]), "psg_pass_context_retain": (None, [P]),
    "psg_pass_context_release": (None, [P]), "psg_pass_context_set_opt_level": (I, [P, I]),
    "psg_pass_context_opt_level": (I, [P]), "psg_pass_context_add_required_pass": (I, [P, S]),
    "psg_pass_context_cache_count": (U64, [P, I]), "psg_pass_is_cacheable": (B, [P]),
    "psg_pass_context_add_disabled_pass": (I, [P, S]),
    "psg_pass_context_num_required": (Z, [P]), "psg_pass_context_required": (S, [P, Z]),
    "psg_pass_context_num_disabled": (Z, [P]), "psg_pass_context_disabled": (S, [P, Z]),
    "psg_pass_context_set_config": (I, [P, S, P]), "psg_pass_context_get_config_dict": (P, [P]),
    "psg_pass_context_add_instrument": (I, [P, P]),
    "psg_pass_context_num_instruments": (Z, [P]), "psg_pass_context_get_instrument": (P, [P, Z]),
    "psg_pass_context_override_instruments": (I, [P, PP, Z]),
    "psg_pass_context_enter": (I, [P]), "psg_pass_context_exit": (I, [P]),
    "psg_pass_context_current": (P, [P]),
    "psg_config_option_count": (Z, [P]), "psg_config_option_key": (S, [P, Z]),
    "psg_config_option_type": (I, [P, Z]), "psg_config_option_type_name": (S, [I]),
    "psg_config_option_help": (S, [P, Z]), "psg_config_option_type_key": (S, [I]),
    "psg_config_option_read_by": (S, [P, Z]), "psg_config_option_is_reserved": (B, [P, Z]),
    "psg_pass_get": (I, [P, S, P, PP]), "psg_pass_registry_count": (Z, [P]),
    "psg_pass_registry_name": (S, [P, Z]), "psg_pass_registry_kind": (I, [P, Z]),
    "psg_pass_registry_opt_level": (I, [P, Z]), "psg_pass_registry_help": (S, [P, Z]),
    "psg_pipeline_parse": (I, [P, S, PP]), "psg_pipeline_print": (P, [P]),
    "psg_reproducer_load": (I, [P, S, PP, PP, PP]),
    "psg_testing_register_seeded_bug_passes": (I, [P]),
    # instruments
    "psg_instrument_create": (I, [P, S, ctypes.POINTER(InstrumentCallbacks), P, FREE_FN, PP]),
    "psg_instrument_retain": (None, [P]), "psg_instrument_release": (None, [P]),
    "psg_instrument_name": (S, [P]), "psg_instrument_user": (P, [P]),
    "psg_timing_instrument_create": (I, [P, PP]), "psg_timing_render": (P, [P]),
    "psg_timing_render_flat": (P, [P, Z]), "psg_timing_render_json": (P, [P]),
    "psg_timing_reset": (None, [P]),
    "psg_report_instrument_create": (I, [P, S, I, PP]), "psg_report_render": (P, [P]),
    "psg_report_write": (I, [P, S]),
    "psg_print_ir_instrument_create": (I, [P, ctypes.POINTER(S), ctypes.POINTER(S), I,
                                            TEXT_SINK_FN, P, PP]),
    "psg_print_ir_pass_create": (I, [P, S, B, TEXT_SINK_FN, P, PP]),
}

for _name, (_res, _args) in _PROTOS.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args

# Status codes (include/passage/status.h).
OK, ERR_PARSE, ERR_TYPE, ERR_NOMEM, ERR_INVALID_ARGUMENT = 0, -1, -2, -3, -4
ERR_PASS_FAILED, ERR_FRONTEND, ERR_IO, ERR_UNSUPPORTED, ERR_INTERNAL, ERR_NOT_FOUND = -5, -6, -7, -8, -9, -10


def s(b):
    """A C string (bytes or None) as str."""
    return None if b is None else b.decode("utf-8", "replace")


def enc(x):
    return x.encode("utf-8") if isinstance(x, str) else x


def take_string(ptr):
    """A malloc'd string returned by the library, freed after reading."""
    if not ptr:
        return None
    try:
        return ctypes.string_at(ptr).decode("utf-8", "replace")
    finally:
        lib.psg_free(ptr)


def ptr_array(ptrs):
    arr = (ctypes.c_void_p * max(len(ptrs), 1))()
    for i, p in enumerate(ptrs):
        arr[i] = p
    return arr


def str_array(strs, terminate=False):
    n = len(strs) + (1 if terminate else 0)
    arr = (ctypes.c_char_p * max(n, 1))()
    for i, x in enumerate(strs):
        arr[i] = enc(x)
    return arr


# Per-thread error state ------------------------------------------------------------
#
# The library context is shared by every thread; its diagnostic list is not
# per thread. The diagnostic sink tells us which diagnostics this thread
# recorded during the current top-level call, so errors are never attributed
# to another thread. The list is cleared only when no thread is inside a call.

_tls = threading.local()
_active_lock = threading.Lock()
_active = 0


def _state():
    st = _tls.__dict__
    if "depth" not in st:
        _tls.depth = 0
        _tls.diags = []
        _tls.pending = []  # [(exception, pass name or None)], first one wins
    return _tls


class Call:
    """Brackets a (possibly nested) call into the library on this thread."""
    __slots__ = ("t",)

    def __enter__(self):
        global _active
        t = _state()
        if t.depth == 0:
            with _active_lock:
                _active += 1
            t.diags = []
            t.pending = []
        t.depth += 1
        self.t = t
        return self

    def __exit__(self, *exc):
        global _active
        t = self.t
        t.depth -= 1
        if t.depth == 0:
            t.diags = []
            with _active_lock:
                _active -= 1
                if _active == 0 and CTX:
                    lib.psg_ctx_clear_diags(CTX)
        return False


def _sink(user, diag):
    try:
        t = _state()
        if t.depth > 0:
            t.diags.append(diag)
    except BaseException:  # never escape a callback
        pass


def immortal(cb):
    """Keeps a ctypes callback object alive until the process ends: C may call
    it while the interpreter finalizes modules."""
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(cb))
    return cb


_SINK = immortal(DIAG_SINK_FN(_sink))

# The process-wide library context. Every Passage object made from Python
# lives in it; it is never released, so it outlives every object.
_ctx = ctypes.c_void_p()
if lib.psg_ctx_create(None, ctypes.byref(_ctx)) != OK:
    raise ImportError("passage: cannot create the library context")
CTX = _ctx.value
lib.psg_ctx_set_diag_sink(CTX, _SINK, None)


def live_objects():
    """Number of live Passage objects in the library context (tests)."""
    return lib.psg_ctx_live_objects(CTX)


def park_exception(exc, pass_name=None):
    """Trampoline side of rule 7: remember `exc` for this thread and fail
    through the context. Never raises (it runs inside a ctypes callback)."""
    try:
        _state().pending.append((exc, pass_name))
        try:
            msg = "%s: %s" % (type(exc).__name__, exc)
        except BaseException:
            msg = type(exc).__name__
        lib.psg_ctx_fail(CTX, ERR_FRONTEND, b"%s", msg.encode("utf-8", "replace"))
    except BaseException:
        pass
    return ERR_FRONTEND


def park_exception_noted(exc, note):
    """park_exception after adding `note` (where it was raised: "in
    FTVMLegalize of op 'nn.relu'"; None: nothing) to exc, when exc takes
    notes."""
    try:
        if note is not None:
            exc.add_note(note)
    except BaseException:
        pass
    return park_exception(exc)


def _last_error_diag():
    t = _state()
    for d in reversed(t.diags):
        if lib.psg_diag_severity(d) == 0:
            return d
    return None


def error_from_status(status, what=None):
    """The exception for a failed call (call inside a `Call` bracket)."""
    t = _state()
    d = _last_error_diag()
    if status == ERR_FRONTEND and t.pending:
        exc, pass_name = t.pending[0]
        t.pending = []
        cause = _err.make_error(status, d, what)
        if pass_name:
            cause.pass_name = cause.pass_name or pass_name
            try:
                exc.add_note("in pass '%s'" % pass_name)
            except AttributeError:
                pass
            try:
                exc.pass_name = pass_name
            except AttributeError:
                pass
        if exc.__cause__ is None and not exc.__suppress_context__:
            exc.__cause__ = cause
        return exc
    t.pending = []
    return _err.make_error(status, d, what)


def check(status, what=None):
    if status != OK:
        raise error_from_status(status, what)


def call(fn, *args, what=None):
    """Calls a fallible C function, raising the matching exception."""
    with Call():
        st = fn(*args)
        if st != OK:
            raise error_from_status(st, what)


# Handles: Python objects reachable from C `user` pointers ----------------------------

_handles = {}
_next_handle = itertools.count(1)


def new_handle(obj):
    h = next(_next_handle)
    _handles[h] = obj
    return h


def handle_obj(user):
    return _handles.get(user)


def _free_handle(user):
    try:
        _handles.pop(user, None)
    except BaseException:
        pass


FREE_HANDLE = immortal(FREE_FN(_free_handle))
