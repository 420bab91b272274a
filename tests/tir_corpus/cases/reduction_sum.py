# from tvm.script import tir as T
# corpus: a row sum with init in the loop

@T.prim_func
def main(A: T.Buffer((6, 7), "float32"), B: T.Buffer((6,), "float32")):
    for i, k in T.grid(6, 7):
        if k == 0:
            B[i] = T.float32(0.0)
        B[i] = B[i] + A[i, k]
