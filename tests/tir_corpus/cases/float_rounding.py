# from tvm.script import tir as T
# corpus: floor, ceil, round, trunc, pow and division

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        B[i] = T.floor(A[i] / T.float32(3.0)) + T.ceil(A[i] * T.float32(0.3)) + T.round(A[i] / T.float32(7.0)) + T.trunc(A[i] / T.float32(9.0)) + T.pow(T.float32(1.5), T.Cast("float32", i))
