# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for i in T.serial(64, annotations={"pragma_auto_unroll_max_step": 16, "pragma_unroll_explicit": T.bool(False)}):
        A[i] = A[i] * T.float32(2.0)
