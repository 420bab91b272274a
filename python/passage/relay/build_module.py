"""Passage — tvm.relay.build_module's IR helper: bind_params_by_name. Building
(relay.build) and executors are outside Passage's scope (issue 18); the
module exists for the helper TVM code imports from it."""

from ..ir import Function, Constant, Tensor
from .expr_functor import ExprMutator

__all__ = ["bind_params_by_name"]


def bind_params_by_name(func, params):
    """`func` with the parameters named in `params` ({name: array}) replaced
    by constants of those values and dropped from its parameter list.
    Raises TVMError when two parameters that `params` names share a name
    (the binding would be ambiguous)."""
    from ..error import TVMError
    if not params:
        return func
    by_name = {}
    for p in func.params:
        if p.name_hint in params:
            if p.name_hint in by_name:
                raise TVMError("bind_params_by_name: multiple parameters are named %r"
                               % p.name_hint)
            by_name[p.name_hint] = p
    if not by_name:
        return func
    consts = {p: Constant(v if isinstance(v, Tensor) else Tensor(v))
              for name, p in by_name.items() for v in [params[name]]}

    class Bind(ExprMutator):
        def visit_var(self, v):
            return consts.get(v, v)

    body = Bind().visit(func.body)
    attrs = func.attrs
    return Function([p for p in func.params if p not in consts], body, func.ret_type,
                    attrs=dict(attrs.items()) if attrs else None)
