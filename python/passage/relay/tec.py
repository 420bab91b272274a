"""Passage — tvm.relay.tec: the TE compiler's module pass under TVM's Python
name. `relay.tec.LowerTE(module_name)` is the registered pass LowerTE
(src/lower/): each Primitive function becomes a PrimFunc named
`<module_name>_fused_<ops>` called through `call_lowered`, an `Extern`
function stays a Relay function called the same way.

TVM's LowerTE also takes a CompilationConfig (the targets and virtual devices
PlanDevices assigned); Passage lowers for its interpreter alone and has no
targets, so a config other than None is refused rather than ignored."""

from ..error import UnsupportedError
from ..transform import get_pass

__all__ = ["LowerTE"]


def LowerTE(module_name="tvmgen_default", config=None):
    """The LowerTE pass whose PrimFuncs are named after `module_name`."""
    if config is not None:
        raise UnsupportedError("relay.tec.LowerTE: Passage has no compilation targets; "
                               "pass config=None (got %r)" % (config,))
    return get_pass("LowerTE", module_name=module_name)
