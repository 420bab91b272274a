"""Passage — the part of tvm.te that TIR code uses: thread_axis."""

__all__ = ["thread_axis"]


def thread_axis(dom=None, tag="", name="", span=None):
    """A thread index IterVar, as tvm.te.thread_axis: `thread_axis("threadIdx.x")`
    or `thread_axis((0, 256), "threadIdx.x")`; its var is named after the tag
    unless `name` is given."""
    from .tir import IterVar
    if isinstance(dom, str):
        tag, dom = dom, None
    if not tag:
        raise ValueError("tag must be given as Positional or keyword argument")
    return IterVar(dom, name if name else tag, IterVar.ThreadIndex, tag)
