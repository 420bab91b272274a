"""Passage — tvm.DataType: a TIR data type by name ("float32", "int8x4",
"bool"), parsed by the library (psg_tir_dtype_parse) into its type code,
bits and lanes."""

from .tir import _api

__all__ = ["DataType", "DataTypeCode"]


class DataTypeCode:
    """The type codes of DLPack (and TIR)."""
    INT = 0
    UINT = 1
    FLOAT = 2
    HANDLE = 3
    BFLOAT = 4


class DataType:
    """DataType(name): raises ValueError for a name TIR does not have."""
    __slots__ = ("_code",)

    def __init__(self, name):
        self._code = _api.dtype_code(name)

    @property
    def type_code(self):
        return _api.lib.psg_tir_dtype_code(self._code)

    @property
    def bits(self):
        return _api.lib.psg_tir_dtype_bits(self._code)

    @property
    def lanes(self):
        return _api.lib.psg_tir_dtype_lanes(self._code)

    def itemsize(self):
        """Bytes of one element (of the whole vector when lanes > 1)."""
        return (self.bits * self.lanes + 7) // 8

    def __str__(self):
        return _api.dtype_name(self._code)

    def __repr__(self):
        return "DataType(%r)" % str(self)

    def __eq__(self, other):
        if isinstance(other, str):
            try:
                other = DataType(other)
            except ValueError:
                return False
        return isinstance(other, DataType) and other._code == self._code

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self._code)
