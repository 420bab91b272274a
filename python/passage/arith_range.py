"""Passage — tvm.ir.Range: an integer interval [min, min + extent) of PrimExprs,
what Analyzer.bind takes for a loop variable. passage.ir exposes it as
passage.ir.Range (it lives here so that passage.ir needs no TIR import)."""


class Range:
    """Range(begin, end=None): [begin, end), or [0, begin) when end is None.
    As TVM's, the extent of a range from 0 is `end` itself, else `end - begin`
    (not simplified)."""

    def __init__(self, begin, end=None, span=None):
        from .tir.expr import convert
        if end is None:
            begin, end = 0, begin
        self.min = convert(begin)
        end = convert(end)
        zero = self.min.__class__.__name__ == "IntImm" and self.min.value == 0
        self.extent = end if zero else end - self.min
        self.span = span

    @staticmethod
    def from_min_extent(min_value, extent, span=None):
        from .tir.expr import convert
        r = Range.__new__(Range)
        r.min, r.extent, r.span = convert(min_value), convert(extent), span
        return r

    def __eq__(self, other):
        from .ir import structural_equal
        return (isinstance(other, Range) and structural_equal(self.min, other.min)
                and structural_equal(self.extent, other.extent))

    __hash__ = object.__hash__

    def __repr__(self):
        return "I.Range(%s, %s)" % (self.min, self.min + self.extent)
