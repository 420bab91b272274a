"""Passage — tvm.relay.transform: the pass decorators and classes of
passage.transform, plus every registered C pass under its TVM name
(`relay.transform.FoldConstant()`, `InferType()`, ...), resolved from the C
registry when accessed, so passes registered later appear automatically.
FoldConstant and EliminateCommonSubexpr also take TVM's extra arguments
(an expression to fold; an `fskip` predicate)."""

from ..transform import (PassInfo, PassContext, Pass, ModulePass, FunctionPass, PrimFuncPass,
                         Sequential, module_pass, function_pass, prim_func_pass, PrintIR, get_pass,
                         list_passes, parse_pipeline, _registry_ctor, registered_name,
                         register_pass, register_func)
from ..ir import Expr, Function, IRModule, Op

__all__ = ["PassInfo", "PassContext", "Pass", "ModulePass", "FunctionPass", "Sequential",
           "module_pass", "function_pass", "PrintIR", "get_pass", "list_passes", "parse_pipeline",
           "register_pass", "InferTypeLocal", "FoldConstant", "FoldConstantExpr", "EliminateCommonSubexpr",
           "LayoutConfig"]


def InferTypeLocal(expr):
    """The type of `expr` (TVM's InferTypeLocal): `expr` is type-checked as
    the body of a function over its free variables, which must be annotated."""
    from .testing import run_infer_type
    return run_infer_type(expr).checked_type


def FoldConstantExpr(expr, mod=None, fold_qnn=False):
    """`expr` with its constant subexpressions folded (TVM's
    FoldConstantExpr): it is folded as the main function of `mod` (or of a
    new module), so calls to `mod`'s globals resolve."""
    work = IRModule(dict((gv, mod[gv]) for gv in mod.get_global_vars())) if mod else IRModule()
    if isinstance(expr, Function):
        work["main"] = expr
    else:
        from .analysis import free_vars
        work["main"] = Function(free_vars(expr), expr)
    folded = get_pass("FoldConstant")(work)["main"]
    return folded if isinstance(expr, Function) else folded.body


def FoldConstant(fold_qnn=False):
    """The FoldConstant pass; given an expression instead (as TVM's tutorial
    calls it), that expression folded (FoldConstantExpr). Passage has no QNN
    ops, so `fold_qnn` changes nothing."""
    if isinstance(fold_qnn, Expr):
        return FoldConstantExpr(fold_qnn)
    return get_pass("FoldConstant")


def EliminateCommonSubexpr(fskip=None):
    """The EliminateCommonSubexpr pass. With `fskip(expr) -> bool`, a Python
    function pass with the same rules that leaves every call or tuple item
    fskip accepts as it is (the C pass cannot call back into Python per
    node; departure 105)."""
    if fskip is None:
        return get_pass("EliminateCommonSubexpr")

    @function_pass(opt_level=3, name="EliminateCommonSubexpr", required=["InferType"])
    def cse_with_fskip(func, mod, ctx):
        return _CseSkip(fskip).visit(func)

    return cse_with_fskip


def _is_stateful(op):
    from .._ffi import lib, enc
    i = lib.psg_op_find(enc(op.name), len(op.name))
    return i >= 0 and bool(lib.psg_op_is_stateful(i))


class _CseSkip:
    """Common subexpressions of a function, bottom-up: a call is replaced by
    an earlier call of the same op with equal attributes and the same
    arguments (tuples of the same fields count as the same), a tuple item by
    an earlier item of the same tuple and index; calls without arguments,
    of stateful ops, of non-ops, and whatever fskip accepts stay."""

    def __init__(self, fskip):
        from .expr_functor import ExprMutator
        outer = self

        class Mutator(ExprMutator):
            def visit_call(self, call):
                return outer.call(ExprMutator.visit_call(self, call))

            def visit_tuple_getitem(self, t):
                return outer.item(ExprMutator.visit_tuple_getitem(self, t))

        self.fskip, self.seen = fskip, {}
        self.visit = Mutator().visit

    @staticmethod
    def _same(a, b):
        from ..ir import Tuple
        if isinstance(a, Tuple) and isinstance(b, Tuple):
            return len(a.fields) == len(b.fields) and all(
                x.same_as(y) for x, y in zip(a.fields, b.fields))
        return a.same_as(b)

    def call(self, call):
        op = call.op
        if not call.args or not isinstance(op, Op) or _is_stateful(op) or self.fskip(call):
            return call
        bucket = self.seen.setdefault(("call", op.name), [])
        for cand in bucket:
            if (cand.attrs or None) == (call.attrs or None) and len(cand.args) == len(call.args) and \
                    all(self._same(a, b) for a, b in zip(call.args, cand.args)):
                return cand
        bucket.append(call)
        return call

    def item(self, t):
        if self.fskip(t):
            return t
        bucket = self.seen.setdefault(("item", t.tuple_value._ptr), [])
        for cand in bucket:
            if cand.index == t.index:
                return cand
        bucket.append(t)
        return t


class InferCorrectLayoutOutput:
    """What a layout inference returns (TVM's InferCorrectLayoutOutput): the
    layouts the op's inputs and outputs take (layout strings such as "NCHW",
    "" for one without a layout) and the attributes of the rewritten call."""

    def __init__(self, input_layouts, output_layouts, new_attrs):
        self.input_layouts = [str(x) for x in input_layouts]
        self.output_layouts = [str(x) for x in output_layouts]
        self.new_attrs = new_attrs

    def __repr__(self):
        return "InferCorrectLayoutOutput(%r, %r, %r)" % (self.input_layouts, self.output_layouts,
                                                          self.new_attrs)


# tvm.relay.transform.infer_layout_utils, the module TVM keeps that class in.
import sys as _sys  # noqa: E402
import types as _types  # noqa: E402
infer_layout_utils = _types.ModuleType(__name__ + ".infer_layout_utils",
                                       "tvm.relay.transform.infer_layout_utils")
infer_layout_utils.InferCorrectLayoutOutput = InferCorrectLayoutOutput
_sys.modules[infer_layout_utils.__name__] = infer_layout_utils
__path__ = []  # a package of made submodules, so `import ...transform.infer_layout_utils` works


class LayoutConfig:
    """tvm.relay.transform.LayoutConfig(skip_layers): inside its `with`
    block, ConvertLayout leaves the nn.conv2d calls whose index (in the order
    the pass meets them, from 0) is in skip_layers as they are. TVM's
    built-in conv2d convert hook asks it; Passage's conversion is C, so the
    block installs an FTVMConvertOpLayout hook for nn.conv2d that answers
    the skipped layers with the call unchanged and None (the C rule) for the
    others. A hook the host registered itself stays, and decides alone, as
    it replaces TVM's built-in one."""

    current = None

    def __init__(self, skip_layers=None):
        self.skip_counter = 0
        self.skip_layers = skip_layers if skip_layers is not None else []
        self._installed = False

    def check_skip(self):
        """Whether the next conv2d is skipped (counts it)."""
        skip = self.skip_counter in self.skip_layers
        self.skip_counter += 1
        return skip

    def reset(self):
        self.skip_counter = 0
        self.skip_layers = []

    def __enter__(self):
        self._old_manager = LayoutConfig.current
        LayoutConfig.current = self
        from . import op as _op
        conv = _op.get("nn.conv2d")
        self._installed = conv.get_attr("FTVMConvertOpLayout") is None
        if self._installed:
            conv.set_attr("FTVMConvertOpLayout", _convert_conv2d_skipping)
        return self

    def __exit__(self, ptype, value, trace):
        LayoutConfig.current = self._old_manager
        if self._installed:
            from . import op as _op
            _op.get("nn.conv2d").reset_attr("FTVMConvertOpLayout")
            self._installed = False


def _convert_conv2d_skipping(attrs, inputs, tinfos, desired_layouts):
    config = LayoutConfig.current
    if config is not None and config.check_skip():
        from . import nn
        return nn.conv2d(*inputs, **dict(attrs))
    return None


def ConvertLayout(desired_layouts):
    """tvm.relay.transform.ConvertLayout: `desired_layouts` given by position, as TVM takes it."""
    return get_pass("ConvertLayout", desired_layouts=desired_layouts)


def RemoveUnusedFunctions(entry_functions=None):
    """tvm.relay.transform.RemoveUnusedFunctions: `entry_functions` (names; default ["main"]) given
    by position or keyword, as TVM takes it."""
    if entry_functions is None:
        return get_pass("RemoveUnusedFunctions")
    return get_pass("RemoveUnusedFunctions", entry_functions=list(entry_functions))


def Inline():
    """tvm.relay.transform.Inline: the module pass TVM names InlineGlobals."""
    return get_pass("InlineGlobals")


def __getattr__(attr):
    if not attr.startswith("_") and registered_name(attr):
        return _registry_ctor(attr)
    raise AttributeError("module 'passage.relay.transform' has no attribute %r (registered "
                         "passes: %s)" % (attr, ", ".join(sorted(list_passes()))))


def __dir__():
    return sorted(set(globals()) | set(list_passes()))
