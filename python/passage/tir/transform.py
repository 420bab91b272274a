"""Passage — tvm.tir.transform: `prim_func_pass` (a decorator on a
function `f(func, mod, ctx) -> PrimFunc or None` or on a class with
`transform_function(self, func, mod, ctx)`; None removes the function) and
the registered TIR passes by TVM's names:

    mod = tir.transform.Simplify()(mod)

Every registered pass whose name starts with "tir." is reachable here
without its prefix (tir.transform.RemoveNoOp() is the pass "tir.RemoveNoOp")."""

from ..transform import prim_func_pass, PrimFuncPass, get_pass, registered_name

__all__ = ["prim_func_pass", "PrimFuncPass", "Simplify", "RemoveNoOp", "ConvertSSA", "FlattenBuffer",
           "StorageFlatten", "NarrowDataType",
           "UnrollLoop", "VectorizeLoop", "LoopPartition", "HoistIfThenElse",
           "LowerOpaqueBlock", "CommonSubexprElimTIR", "LowerIntrin", "StorageRewrite",
           "InjectVirtualThread"]


def _tir_pass(name):
    def ctor(**options):
        return get_pass("tir." + name, **options)
    ctor.__name__ = ctor.__qualname__ = name
    ctor.__doc__ = "The registered pass tir.%s (options as keyword arguments)." % name
    return ctor


Simplify = _tir_pass("Simplify")
RemoveNoOp = _tir_pass("RemoveNoOp")
ConvertSSA = _tir_pass("ConvertSSA")
FlattenBuffer = _tir_pass("FlattenBuffer")


def StorageFlatten(cache_line_size, create_bound_attributes=False):
    """The registered pass tir.StorageFlatten (TVM's positional signature)."""
    return get_pass("tir.StorageFlatten", cache_line_size=cache_line_size,
                    create_bound_attributes=create_bound_attributes)


def NarrowDataType(target_bits):
    """The registered pass tir.NarrowDataType (TVM's positional signature)."""
    return get_pass("tir.NarrowDataType", target_bits=target_bits)


UnrollLoop = _tir_pass("UnrollLoop")
LoopPartition = _tir_pass("LoopPartition")
HoistIfThenElse = _tir_pass("HoistIfThenElse")


def VectorizeLoop(enable_vectorize=True):
    """The registered pass tir.VectorizeLoop; enable_vectorize=False (or the
    config tir.disable_vectorize) makes vectorized loops serial."""
    return get_pass("tir.VectorizeLoop", enable_vectorize=bool(enable_vectorize))


LowerOpaqueBlock = _tir_pass("LowerOpaqueBlock")
LowerIntrin = _tir_pass("LowerIntrin")
StorageRewrite = _tir_pass("StorageRewrite")
InjectVirtualThread = _tir_pass("InjectVirtualThread")


def CommonSubexprElimTIR(enable_cse_tir=True, identify_equiv_terms=False):
    """The registered pass tir.CommonSubexprElimTIR (TVM's positional
    signature); the configs tir.disable_cse_tir and
    tir.enable_equiv_terms_in_cse_tir apply as well."""
    return get_pass("tir.CommonSubexprElimTIR", enable_cse_tir=bool(enable_cse_tir),
                    identify_equiv_terms=bool(identify_equiv_terms))


def __getattr__(attr):
    if not attr.startswith("_") and registered_name("tir." + attr):
        return _tir_pass(attr)
    raise AttributeError("module 'passage.tir.transform' has no attribute %r" % attr)
