"""Passage — the plain helpers of tvm.relay.testing that TVM's pass tests
import: run_infer_type, run_opt_pass, create_workload. TVM's model zoo
(resnet, mobilenet, ...) and the executor helpers are not here: they are
outside Passage's scope (issue 18)."""

from ...ir import IRModule, Function, Tensor

__all__ = ["run_infer_type", "run_opt_pass", "create_workload"]


def _entry(expr, mod):
    """A module's main as the caller gave it: the function when `expr` was
    one, else the body (IRModule.from_expr wrapped it in a function)."""
    main = mod["main"]
    return main if isinstance(expr, Function) else main.body


def run_infer_type(expr):
    """`expr` with its types checked: run InferType on it as a module's main."""
    from ..transform import InferType
    mod = InferType()(IRModule.from_expr(expr))
    return _entry(expr, mod)


def run_opt_pass(expr, opt_pass, import_prelude=False):
    """`expr` after InferType and `opt_pass` (a pass or a list of them, run
    in order) as a module's main."""
    from ..transform import InferType
    if import_prelude:
        from ...error import UnsupportedError
        raise UnsupportedError("run_opt_pass: Passage has no Relay prelude (ADTs)")
    mod = InferType()(IRModule.from_expr(expr))
    for p in (opt_pass if isinstance(opt_pass, (list, tuple)) else [opt_pass]):
        mod = p(mod)
    return _entry(expr, mod)


def _xavier(name, arr, rng):
    """TVM's default initializer in spirit: uniform in [-s, s] with
    s = sqrt(3 / mean(fan_in, fan_out)); biases, betas and means are 0,
    gammas and variances 1."""
    import numpy as np
    if name.endswith(("bias", "beta", "mean")):
        arr[:] = 0
    elif name.endswith(("gamma", "var")):
        arr[:] = 1
    elif arr.ndim >= 2:
        hw = int(np.prod(arr.shape[2:])) if arr.ndim > 2 else 1
        fan_in, fan_out = arr.shape[1] * hw, arr.shape[0] * hw
        scale = np.sqrt(3.0 / max(1.0, (fan_in + fan_out) / 2.0))
        arr[:] = rng.uniform(-scale, scale, size=arr.shape)
    else:
        arr[:] = rng.uniform(-1.0, 1.0, size=arr.shape)


def create_workload(net, initializer=None, seed=0):
    """(mod, params) for a network: `net` (a function, or an expression over
    free variables) becomes a type-checked module's main, and every parameter
    but `data` gets a value: `initializer(name, array)` fills a numpy array of
    the parameter's shape and dtype (default: Xavier-style uniform, seeded)."""
    import numpy as np
    from ..transform import InferType
    mod = InferType()(IRModule.from_expr(net))
    rng = np.random.RandomState(seed)
    params = {}
    for p in mod["main"].params:
        name = p.name_hint
        if name == "data":
            continue
        ty = p.checked_type
        arr = np.zeros(ty.shape, dtype=ty.dtype)
        if initializer is None:
            _xavier(name, arr, rng)
        else:
            initializer(name, arr)
        params[name] = Tensor(arr)
    return mod, params
