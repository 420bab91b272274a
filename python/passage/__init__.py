"""Passage — a Relay-style tensor IR and TVM's pass infrastructure, from
Python. A thin ctypes layer over libpassage's public C API whose names
mirror TVM's: code written for `tvm` ports by renaming it `passage`.

    import passage
    from passage import relay
    x = relay.var("x", shape=(10,), dtype="float32")
    mod = passage.IRModule({relay.GlobalVar("main"): relay.Function([x], relay.abs(x))})
    with passage.transform.PassContext(opt_level=3):
        mod = relay.transform.InferType()(mod)
"""

import ctypes as _ctypes

from . import _ffi
from .error import (PassError, PassageError, TVMError, ParseError, PassTypeError, InvalidArgumentError,
                    NotFoundError, ConfigError, UnsupportedError, InternalError, Diagnostic)
from . import ir
from .ir import IRModule, structural_equal, structural_hash, assert_structural_equal
from . import transform
from . import instrument
from . import relay
from . import nd
from . import tir
from . import arith
from . import script
from . import arith
from . import te
from . import runtime
from .dtype import DataType
from . import compiler
from .compiler import compile  # passage.compile; not in __all__ (it would shadow the builtin)
import sys as _sys
import types as _types

# tvm._ffi.base.TVMError, where TVM's tests name the base error class.
_ffi.base = _types.ModuleType(__name__ + "._ffi.base", "tvm._ffi.base: TVMError.")
_ffi.base.TVMError = TVMError
_sys.modules[_ffi.base.__name__] = _ffi.base

# TVM spells these tvm.ir.transform and tvm.ir.instrument as well.
ir.transform = transform
ir.instrument = instrument
_sys.modules[__name__ + ".ir.transform"] = transform
_sys.modules[__name__ + ".ir.instrument"] = instrument

# TVM keeps the TIR types in tvm.ir.
ir.PrimType = tir.PrimType
ir.PointerType = tir.PointerType
ir.Range = arith.Range

__version__ = _ffi.s(_ffi.lib.psg_version())
library_path = _ffi.library_path
live_objects = _ffi.live_objects

__all__ = ["IRModule", "parse", "relay", "tir", "arith", "transform", "instrument", "ir", "nd", "PassError",
           "ParseError", "PassTypeError", "structural_equal", "structural_hash",
           "assert_structural_equal", "live_objects"]


def parse(text, source_name="<input>", init_module=None, meta_constants=()):
    """Parses Relay text (`#[version = "0.0.5"]`) into an IRModule; a
    ParseError carries the first diagnostic (file:line:col, caret) and all of
    them in `diagnostics`. With `init_module`, the text is parsed into a copy
    of it (its functions callable, a def of the same name replacing one);
    `meta_constants` (relay.Constant) follow the text's metadata section."""
    b = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    out = _ctypes.c_void_p()
    consts = list(meta_constants)
    tensors = (_ctypes.c_void_p * max(len(consts), 1))(
        *[_ffi.lib.psg_constant_get_tensor(c._ptr) for c in consts])
    with _ffi.Call():
        st = _ffi.lib.psg_module_parse_in(_ffi.CTX, b, len(b), _ffi.enc(source_name),
                                          init_module._ptr if init_module is not None else None,
                                          tensors, len(consts), _ctypes.byref(out))
        if st != _ffi.OK:
            err = _ffi.error_from_status(st, "parse")
            err.diagnostics = _all_errors()
            raise err
    return IRModule._own(out.value)


def parse_expr(text, source_name="string"):
    """Parses one Relay expression (TVM's relay.parse_expr): an optional
    version line, `free_var` declarations, bindings, lets, a metadata
    section. A ParseError as parse's."""
    from .ir import _wrap_expr
    b = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    out = _ctypes.c_void_p()
    with _ffi.Call():
        st = _ffi.lib.psg_expr_parse(_ffi.CTX, b, len(b), _ffi.enc(source_name), _ctypes.byref(out))
        if st != _ffi.OK:
            err = _ffi.error_from_status(st, "parse")
            err.diagnostics = _all_errors()
            raise err
    return _wrap_expr(out.value)


def _all_errors():
    from .error import make_error
    t = _ffi._state()
    return [make_error(-1, d).diagnostic for d in t.diags if _ffi.lib.psg_diag_severity(d) == 0]


register_func = transform.register_func

# tvm.load_json / tvm.save_json (Passage's own JSON, ir.save_json).
load_json = ir.load_json
save_json = ir.save_json


def __getattr__(name):
    # tvm.testing is reachable as an attribute after `import tvm` alone in
    # TVM's tests; it needs pytest, so it is imported on first use.
    if name == "testing":
        import importlib
        return importlib.import_module(__name__ + ".testing")
    raise AttributeError("module 'passage' has no attribute %r" % (name,))
