"""Passage — compiling a model to C from Python (issue 17): the calls of
include/passage/compile.h, what `passage compile` runs.

    import passage
    model = passage.compile("model.onnx", output="model.so")   # a loaded passage.runtime model
    y = model(x)
    src = passage.compile(mod, emit_c="model.c")                # C file + model.h, no C compiler
    print(src.source[:200], src.stats["workspace_bytes"])

TVM's flow is relay.build(mod, target) -> export_library(path) ->
runtime.load_module(path); here one call does the three (docs/design.md,
departure "compile"), with `passage compile`'s options as keywords."""

import collections
import ctypes
import os

from . import _ffi
from ._ffi import lib, CTX, P, S, I, Z, U64, PP
from .error import UnsupportedError
from .ir import IRModule
from . import runtime
from . import transform

__all__ = ["compile", "CSource"]

_PROTOS = {
    "psg_compile_lower": (I, [P, P, PP]),
    "psg_compile_to_c": (I, [P, S, S, I, PP]),
    "psg_compile_output_free": (None, [P]),
    "psg_compile_output_source": (S, [P]),
    "psg_compile_output_header": (S, [P]),
    "psg_compile_output_params": (P, [P, ctypes.POINTER(U64)]),
    "psg_compile_output_target": (S, [P]),
    "psg_compile_output_module_hash": (S, [P]),
    "psg_compile_output_stat": (U64, [P, I]),
    "psg_compile_output_write_c": (I, [P, P, S, S]),
    "psg_compile_shared": (I, [P, P, S, S, ctypes.POINTER(U64)]),
}
for _name, (_res, _args) in _PROTOS.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args

_PARAMS_FILE = 1  # PSG_COMPILE_PARAMS_FILE
_STATS = ["kernels", "calls", "workspace_bytes", "intermediate_bytes", "constant_bytes", "codegen_us"]

CSource = collections.namedtuple("CSource", ["source", "header", "params", "target", "module_hash", "stats"])
CSource.__doc__ = """The generated C: `source` (one self-contained C99 file), `header`
(its model.h), `params` (the side params file's bytes, or None when the
constants are compiled in), the canonical `target` string, the lowered
module's `module_hash`, and `stats` (kernels, calls, workspace_bytes,
intermediate_bytes, constant_bytes, codegen_us)."""

_onnx = None


def _onnx_lib():
    """libpassage_onnx, beside libpassage (the ONNX importer is its own library)."""
    global _onnx
    if _onnx is None:
        base = _ffi.library_path
        names = ["libpassage_onnx.so"]
        if os.sep in base:
            names.insert(0, os.path.join(os.path.dirname(base), "libpassage_onnx.so"))
        for n in names:
            try:
                _onnx = ctypes.CDLL(n)
                break
            except OSError:
                continue
        else:
            raise UnsupportedError("passage.compile: an ONNX model needs libpassage_onnx, which is not installed "
                                   "beside %s" % base)
        _onnx.psg_onnx_import_file.restype = I
        _onnx.psg_onnx_import_file.argtypes = [P, S, P, PP]
    return _onnx


class _ImportOpts(ctypes.Structure):
    _fields_ = [("input_shapes", ctypes.POINTER(S)), ("num_input_shapes", Z), ("input_shape_origins", P)]


def _load_model(path, input_shapes):
    path = os.fspath(path)
    if path.endswith(".onnx"):
        onnx = _onnx_lib()
        specs = ["%s=%s" % (k, ",".join(str(int(d)) for d in v)) for k, v in (input_shapes or {}).items()]
        arr = (S * max(1, len(specs)))(*[s.encode() for s in specs])
        opts = _ImportOpts(arr, len(specs), None)
        out = ctypes.c_void_p()
        _ffi.call(onnx.psg_onnx_import_file, CTX, path.encode(), ctypes.byref(opts), ctypes.byref(out),
                  what="ONNX import")
        return IRModule._own(out.value)
    if input_shapes:
        raise ValueError("passage.compile: input_shapes binds the dynamic dims of an ONNX model only")
    from . import parse
    with open(path, "r", encoding="utf-8") as f:
        return parse(f.read(), path)


def compile(mod, target="c", *, emit_c=None, output=None, opt_level=3, name="model", params_file=None,
            input_shapes=None):
    """Compiles `mod` (an IRModule, or the path of an .onnx or Relay text
    file) as `passage compile` does: the pipeline of `passage opt
    -O<opt_level> --lower` under a new PassContext, then C for the kernels and
    the host function. `target`: a Target string ("c -mcpu=native
    -num-threads=1 -vector-ext=1 -link-params=1"). `name`: the C prefix of
    NAME_info and NAME_run. `input_shapes`: {input: dims} for an ONNX
    model's dynamic dims. `params_file`: put the constants in this side file
    (else only above 64 MiB; for `output`, OUT.so -> OUT.bin).

    With `emit_c`, writes the C file there and its header beside it. With
    `output`, builds a shared library with the system C compiler ($CC) and
    returns it loaded (a passage.runtime.CompiledModel); otherwise returns a
    CSource. Errors raise the matching PassageError (a located one for an
    unsupported kernel or target; PassError for a C compiler failure)."""
    if not isinstance(mod, IRModule):
        mod = _load_model(mod, input_shapes)
    elif input_shapes:
        raise ValueError("passage.compile: input_shapes binds the dynamic dims of an ONNX model only")
    pc = transform.PassContext(opt_level=opt_level)
    lowered = ctypes.c_void_p()
    with pc:
        _ffi.call(lib.psg_compile_lower, mod._ptr, pc._ptr, ctypes.byref(lowered), what="compile")
    lowered = IRModule._own(lowered.value)
    out = ctypes.c_void_p()
    _ffi.call(lib.psg_compile_to_c, lowered._ptr, _ffi.enc(target), _ffi.enc(name),
              _PARAMS_FILE if params_file is not None else 0, ctypes.byref(out), what="compile")
    try:
        c = out.value
        if emit_c is not None:
            _ffi.call(lib.psg_compile_output_write_c, CTX, c, os.fspath(emit_c).encode(),
                      None if params_file is None else os.fspath(params_file).encode(), what="compile")
        if output is not None:
            _ffi.call(lib.psg_compile_shared, CTX, c, os.fspath(output).encode(),
                      None if params_file is None else os.fspath(params_file).encode(), None, what="compile")
            return runtime.load(output, params_file)
        nbytes = ctypes.c_uint64()
        pdata = lib.psg_compile_output_params(c, ctypes.byref(nbytes))
        return CSource(_ffi.s(lib.psg_compile_output_source(c)), _ffi.s(lib.psg_compile_output_header(c)),
                       ctypes.string_at(pdata, nbytes.value) if pdata and nbytes.value else None,
                       _ffi.s(lib.psg_compile_output_target(c)), _ffi.s(lib.psg_compile_output_module_hash(c)),
                       {k: lib.psg_compile_output_stat(c, i) for i, k in enumerate(_STATS)})
    finally:
        lib.psg_compile_output_free(out.value)
