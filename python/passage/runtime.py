"""Passage — running compiled models from Python (issue 17): a shared library
built by `passage compile MODEL -o OUT.so`, loaded through the C API of
include/passage/runtime.h.

    import numpy as np, passage.runtime
    model = passage.runtime.load("model.so")        # and model.bin, if it has one
    y = model(np.zeros((1, 3, 224, 224), np.float32))  # positional, in input order
    y = model(input=np.zeros(...))                    # or by name
    model.inputs, model.outputs                       # [TensorInfo(name, shape, dtype)]
    model.benchmark(runs=21)                          # {'median_ms': ..., 'p90_ms': ...}

Arrays must have the dtype and shape the model was compiled for (a numpy
array of another dtype is an error, not a silent cast); lists and scalars
are converted to the input's dtype. The result is one numpy array for a
model with one output, else a list. A loaded model is not thread-safe (one
workspace): load it once per thread."""

import collections
import ctypes
import sys

from . import _ffi
from ._ffi import lib, CTX, P, S, I, Z, B, U64, PP
from .ir import Tensor

from . import object_path
from .object_path import ObjectPath

# `passage.runtime.object_path`, where TVM keeps ObjectPath: this module is a
# package of that one submodule (an empty __path__: nothing searched on disk).
__path__ = []
sys.modules[__name__ + ".object_path"] = object_path

__all__ = ["load", "CompiledModel", "TensorInfo", "convert", "String", "Array", "Map", "ShapeTuple",
           "object_path", "ObjectPath"]

TensorInfo = collections.namedtuple("TensorInfo", ["name", "shape", "dtype"])


# The model ABI (include/passage/model_abi.h, version 1), read through the
# pointer psg_compiled_info returns once the loader has checked the version.
class _TensorInfoC(ctypes.Structure):
    _fields_ = [("name", S), ("dtype", S), ("ndim", ctypes.c_int32), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("bytes", ctypes.c_uint64)]


class _ModelInfoC(ctypes.Structure):
    _fields_ = [("abi_version", ctypes.c_int32), ("name", S), ("module_hash", S), ("target", S),
                ("num_inputs", ctypes.c_int32), ("num_outputs", ctypes.c_int32),
                ("inputs", ctypes.POINTER(_TensorInfoC)), ("outputs", ctypes.POINTER(_TensorInfoC)),
                ("workspace_bytes", ctypes.c_uint64), ("intermediate_bytes", ctypes.c_uint64),
                ("params_bytes", ctypes.c_uint64), ("num_kernels", ctypes.c_int32),
                ("kernel_names", ctypes.POINTER(S)), ("run", P), ("run_profiled", P), ("set_params", P)]


_DOUBLES = ctypes.POINTER(ctypes.c_double)
_PROTOS = {
    "psg_compiled_load": (I, [P, S, S, PP]),
    "psg_compiled_free": (None, [P]),
    "psg_compiled_info": (ctypes.POINTER(_ModelInfoC), [P]),
    "psg_compiled_path": (S, [P]),
    "psg_compiled_kernel_op": (S, [P, Z]),
    "psg_compiled_uses_openmp": (B, [P]),
    "psg_compiled_set_num_threads": (I, [P, I]),
    "psg_compiled_run_named": (I, [P, ctypes.POINTER(S), PP, Z, ctypes.POINTER(PP), ctypes.POINTER(Z)]),
    "psg_compiled_time": (I, [P, PP, Z, Z, Z, _DOUBLES]),
    "psg_compiled_profile": (I, [P, PP, Z, Z, _DOUBLES, ctypes.POINTER(U64), _DOUBLES]),
}
for _name, (_res, _args) in _PROTOS.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


def _tensor_infos(arr, n):
    return [TensorInfo(_ffi.s(arr[i].name), tuple(arr[i].shape[d] for d in range(arr[i].ndim)),
                       _ffi.s(arr[i].dtype)) for i in range(n)]


def load(path, params=None):
    """Loads the compiled model at `path`; `params` names its parameters' side
    file when it is not `path` with ".so" replaced by ".bin". Raises
    InvalidArgumentError (not a Passage model, wrong parameters file),
    UnsupportedError (another ABI version) or PassError (IO)."""
    return CompiledModel(path, params)


class CompiledModel:
    """A loaded compiled model: call it with numpy arrays (see the module's
    docstring). `inputs` / `outputs` are lists of TensorInfo; `name`,
    `target`, `module_hash`, `workspace_bytes`, `params_bytes`, `kernels`
    (the kernel calls in program order) describe the build."""

    def __init__(self, path, params=None):
        out = ctypes.c_void_p()
        _ffi.call(lib.psg_compiled_load, CTX, _ffi.enc(str(path)), _ffi.enc(None if params is None else str(params)),
                  ctypes.byref(out), what="load")
        self._ptr = out.value
        info = lib.psg_compiled_info(self._ptr).contents
        self.path = _ffi.s(lib.psg_compiled_path(self._ptr))
        self.name = _ffi.s(info.name)
        self.target = _ffi.s(info.target)
        self.module_hash = _ffi.s(info.module_hash)
        self.workspace_bytes = info.workspace_bytes
        self.intermediate_bytes = info.intermediate_bytes
        self.params_bytes = info.params_bytes
        self.inputs = _tensor_infos(info.inputs, info.num_inputs)
        self.outputs = _tensor_infos(info.outputs, info.num_outputs)
        self.kernels = [_ffi.s(info.kernel_names[k]) for k in range(info.num_kernels)]
        self.kernel_ops = [_ffi.s(lib.psg_compiled_kernel_op(self._ptr, k)) for k in range(info.num_kernels)]
        self.uses_openmp = bool(lib.psg_compiled_uses_openmp(self._ptr))

    def close(self):
        """Frees the model now (the library is closed; calls fail after)."""
        ptr, self._ptr = getattr(self, "_ptr", None), None
        if ptr:
            lib.psg_compiled_free(ptr)

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone first
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return "<CompiledModel %s: %s -> %s>" % (self.name, self.inputs, self.outputs)

    def _live(self):
        if not self._ptr:
            raise ValueError("the compiled model is closed")
        return self._ptr

    def _tensors(self, args, kwargs):
        """(names, Tensors) of a call's arguments: positional ones in input
        order, then keywords by name."""
        import numpy as np
        if len(args) > len(self.inputs):
            raise TypeError("%s takes %d inputs, but %d were given" % (self.name, len(self.inputs), len(args)))
        names = [t.name for t in self.inputs[:len(args)]]
        for k in kwargs:
            if k in names:
                raise TypeError("input '%s' is given by position and by name" % k)
        names += list(kwargs)
        dtypes = {t.name: t.dtype for t in self.inputs}
        tensors = []
        for name, value in zip(names, list(args) + list(kwargs.values())):
            if isinstance(value, Tensor):
                tensors.append(value)
                continue
            if not isinstance(value, np.ndarray):
                # A list or scalar takes the input's dtype (an unknown name is the library's error).
                value = np.asarray(value, dtype=dtypes.get(name))
            tensors.append(Tensor(value))
        return names, tensors

    def run(self, *args, **kwargs):
        """The outputs as a list of numpy arrays, whatever their number."""
        names, tensors = self._tensors(args, kwargs)
        outs = PP()
        n = Z()
        _ffi.call(lib.psg_compiled_run_named, self._live(), _ffi.str_array(names),
                  _ffi.ptr_array([t._ptr for t in tensors]), len(tensors), ctypes.byref(outs), ctypes.byref(n),
                  what="run")
        owned = [Tensor._own(outs[i]) for i in range(n.value)]
        lib.psg_free(outs)
        return [t.numpy() for t in owned]

    def __call__(self, *args, **kwargs):
        outs = self.run(*args, **kwargs)
        return outs[0] if len(outs) == 1 else outs

    def _ordered(self, inputs, seed):
        """Tensors in input order: `inputs` (a list in order or a dict by
        name), random ones (numpy, seeded) for those missing."""
        import numpy as np
        given = dict(zip([t.name for t in self.inputs], inputs)) if isinstance(inputs, (list, tuple)) \
            else dict(inputs or {})
        rng = np.random.default_rng(seed)
        unknown = set(given) - {t.name for t in self.inputs}
        if unknown:
            raise TypeError("%s has no input named %s" % (self.name, ", ".join(sorted(unknown))))
        out = []
        for t in self.inputs:
            v = given.get(t.name)
            if v is None:
                if np.dtype(t.dtype).kind == "f":
                    v = rng.uniform(-1, 1, t.shape).astype(t.dtype)
                elif np.dtype(t.dtype).kind == "b":
                    v = rng.integers(0, 2, t.shape).astype(bool)
                else:
                    v = rng.integers(0, 10, t.shape).astype(t.dtype)
            out.append(v if isinstance(v, Tensor) else Tensor(np.asarray(v)))
        return out

    def set_num_threads(self, n):
        """Threads of the model's parallel loops (a library built with
        OpenMP); a single-threaded library accepts only 1."""
        _ffi.call(lib.psg_compiled_set_num_threads, self._live(), int(n), what="set_num_threads")

    def benchmark(self, runs=21, warmup=3, inputs=None, seed=0, profile=False):
        """Times `runs` runs after `warmup` (the model's run alone, as
        `passage bench`), on `inputs` (list in order or dict by name; random
        for those missing). {'median_ms', 'p90_ms', 'min_ms', 'max_ms',
        'times_ms'}; with profile=True also 'kernels' and 'op_kinds': lists of
        (name, ms per run, share of the time in kernels, calls), largest first."""
        import numpy as np
        tensors = self._ordered(inputs, seed)
        arr = _ffi.ptr_array([t._ptr for t in tensors])
        secs = (ctypes.c_double * max(runs, 1))()
        _ffi.call(lib.psg_compiled_time, self._live(), arr, len(tensors), warmup, runs, secs, what="benchmark")
        times = sorted(s * 1e3 for s in secs[:runs])
        res = {"median_ms": float(np.median(times)), "times_ms": times, "min_ms": times[0], "max_ms": times[-1],
               "p90_ms": times[max(int(np.ceil(0.9 * runs)), 1) - 1]}
        if profile:
            nk = len(self.kernels)
            ks = (ctypes.c_double * max(nk, 1))()
            kc = (ctypes.c_uint64 * max(nk, 1))()
            total = ctypes.c_double()
            _ffi.call(lib.psg_compiled_profile, self._live(), arr, len(tensors), runs, ks, kc, ctypes.byref(total),
                      what="profile")
            in_kernels = sum(ks[:nk]) or 1.0
            for key, names in (("kernels", self.kernels), ("op_kinds", self.kernel_ops)):
                acc = collections.OrderedDict()
                for k in range(nk):
                    s, c = acc.get(names[k], (0.0, 0))
                    acc[names[k]] = (s + ks[k], c + kc[k])
                res[key] = sorted(((n, s * 1e3 / runs, s / in_kernels, c) for n, (s, c) in acc.items()),
                                  key=lambda r: -r[1])
        return res


# tvm.runtime.convert and its containers ------------------------------------------------


class ShapeTuple(tuple):
    """tvm.runtime.ShapeTuple: a tuple of int64 extents."""

    def __new__(cls, shape):
        return tuple.__new__(cls, (int(x) for x in shape))


class String(str):
    """tvm.runtime.String: a str (TVM's string object)."""


class Array(list):
    """tvm.ir.Array as runtime.convert makes it: a list of converted items."""
    type_key = "Array"


class Map(dict):
    """tvm.ir.Map as runtime.convert makes it: a dict of converted keys and
    values, read with `m[k]`, `items()`, `in`."""
    type_key = "Map"


def convert(value):
    """tvm.runtime.convert: a Python value as the IR object TVM would make.
    int, bool and float become tir.IntImm / FloatImm (int32, or int64 when it
    does not fit; float32), str a String, a list or tuple an Array and a dict
    a Map of converted items; IR objects are returned as they are."""
    from .tir import expr as _e
    if isinstance(value, (String, Array, Map)):
        return value
    if isinstance(value, (bool, int, float)) or (hasattr(value, "dtype") and hasattr(value, "item")):
        return _e.convert(value)
    if isinstance(value, str):
        return String(value)
    if isinstance(value, (list, tuple)):
        return Array(convert(v) for v in value)
    if isinstance(value, dict):
        return Map((convert(k), convert(v)) for k, v in value.items())
    return value
