"""Passage — tensors (tvm.nd): `array(value, dtype=None)` from a numpy array,
nested lists, a scalar or a buffer."""

from .ir import Tensor

NDArray = Tensor

__all__ = ["array", "NDArray"]


def array(value, dtype=None):
    return Tensor(value, dtype)
