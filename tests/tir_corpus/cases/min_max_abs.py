# from tvm.script import tir as T
# corpus: min, max and abs on ints and floats

@T.prim_func
def main(A: T.Buffer((8,), "int32"), F: T.Buffer((8,), "float32")):
    for i in range(8):
        A[i] = T.max(T.min(A[i], 50), -20) + T.max(A[i] - 10, 10 - A[i])
        F[i] = T.min(T.max(F[i], T.float32(-2.5)), T.float32(30.0)) + T.fabs(F[i])
