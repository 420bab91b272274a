# from tvm.script import tir as T
# corpus: a 3-d transpose with a fused loop

@T.prim_func
def main(A: T.Buffer((2, 3, 4), "float32"), B: T.Buffer((4, 2, 3), "float32")):
    for f in range(24):
        B[f // 6, f % 6 // 3, f % 3] = A[f % 6 // 3, f % 3, f // 6]
