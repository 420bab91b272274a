# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128* 128), "float32"), B: T.Buffer((128,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i, k in T.grid(128, 128):
        if k == 0:
            B[i] = T.float32(0.0)
        B[i] = B[i] + A[i, k]
