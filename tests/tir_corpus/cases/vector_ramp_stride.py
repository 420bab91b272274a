# from tvm.script import tir as T
# corpus: a strided Ramp load and a Ramp value

@T.prim_func
def main(A: T.Buffer((32,), "int32"), B: T.Buffer((16,), "int32")):
    B[0:8] = A[0:16:2]
    B[8:12] = T.Ramp(3, 5, 4)
    B[12:16] = A[T.Ramp(31, -2, 4)]
