"""Passage — tvm.relay.frontend.common: infer_type, which frontends use to
read the type of an expression while building a graph."""

from ...ir import IRModule, Function

__all__ = ["infer_type"]


def infer_type(node, mod=None):
    """`node` with its types checked (InferType over a module whose main is
    `node`, or a function over its free variables): the typed function if
    `node` is one, else the typed body. `mod` (optional) supplies global
    functions `node` may call."""
    from ..transform import InferType
    new_mod = IRModule.from_expr(node)
    if mod is not None:
        new_mod.update(mod)
        new_mod["main"] = IRModule.from_expr(node)["main"]
    new_mod = InferType()(new_mod)
    entry = new_mod["main"]
    return entry if isinstance(node, Function) else entry.body
