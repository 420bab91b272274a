"""Passage — `from passage.script import ir as I`: `@I.ir_module` on a
class whose methods are @T.prim_func functions parses the class source into
an IRModule (the methods' decorators only mark them)."""

import sys

from . import _parser

__all__ = ["ir_module"]


def ir_module(cls=None, check_well_formed=True):
    """@I.ir_module / @I.ir_module(check_well_formed=False)."""
    caller = sys._getframe(1).f_locals

    def decorate(c):
        from ..ir import IRModule
        mod = _parser.parse_object(c, check_well_formed=check_well_formed, caller_locals=caller)
        if not isinstance(mod, IRModule):  # a class holding one function
            mod = IRModule.from_expr(mod)
        return mod

    if cls is None:
        return decorate
    return decorate(cls)


def __getattr__(name):
    """Any other I.name (I.GlobalVar, ...) as an inert placeholder object."""
    if name.startswith("__"):
        raise AttributeError(name)
    from .tir import _Name
    return _Name(name)
