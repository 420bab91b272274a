"""Passage — tvm.relay.base: the source span of Relay nodes."""

from ..ir import Span

__all__ = ["Span"]
