# from tvm.script import tir as T
# corpus: a strided, offset view over a flat parameter

@T.prim_func
def main(A: T.Buffer((40,), "float32"), B: T.Buffer((4, 4), "float32")):
    V = T.Buffer((4, 4), data=A.data, strides=(9, 2), elem_offset=3)
    for i, j in T.grid(4, 4):
        B[i, j] = V[i, j] + T.float32(1.0)
        V[i, j] = B[i, j] * T.float32(2.0)
