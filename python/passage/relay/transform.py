"""Passage — tvm.relay.transform: the pass decorators and classes of
passage.transform, plus every registered C pass under its TVM name
(`relay.transform.FoldConstant()`, `InferType()`, ...), resolved from the C
registry when accessed, so passes registered later appear automatically."""

from ..transform import (PassInfo, PassContext, Pass, ModulePass, FunctionPass, PrimFuncPass,
                         Sequential, module_pass, function_pass, prim_func_pass, PrintIR, get_pass,
                         list_passes, parse_pipeline, _registry_ctor, registered_name)

__all__ = ["PassInfo", "PassContext", "Pass", "ModulePass", "FunctionPass", "Sequential",
           "module_pass", "function_pass", "PrintIR", "get_pass", "list_passes", "parse_pipeline"]


def ConvertLayout(desired_layouts):
    """tvm.relay.transform.ConvertLayout: `desired_layouts` given by position, as TVM takes it."""
    return get_pass("ConvertLayout", desired_layouts=desired_layouts)


def __getattr__(attr):
    if not attr.startswith("_") and registered_name(attr):
        return _registry_ctor(attr)
    raise AttributeError("module 'passage.relay.transform' has no attribute %r (registered "
                         "passes: %s)" % (attr, ", ".join(sorted(list_passes()))))


def __dir__():
    return sorted(set(globals()) | set(list_passes()))
