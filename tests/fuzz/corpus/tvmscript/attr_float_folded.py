# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4,), "int32")):
    T.func_attr({"global_symXol": "kernel", "tir.noalias": T.bool(True), "target_bits": 32, "tags": ["a", "b"], "meta": {"x": 1./5}})
    A[0] = 1
