# from tvm.script import tir as T
# corpus: float to int and back, with clamps keeping values in range

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "int8"), C: T.Buffer((8,), "float32")):
    for i in range(8):
        B[i] = T.Cast("int8", T.max(T.min(A[i], T.float32(127.0)), T.float32(-128.0)))
        C[i] = T.Cast("float32", B[i]) + T.Cast("float32", T.Cast("int16", A[i]))
