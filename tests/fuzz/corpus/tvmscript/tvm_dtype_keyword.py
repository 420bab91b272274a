# from tvm.script import tir as T

@T.prim_func
def main(B: T.Buffer((8,), "float32"), x: T.int32):
    B[0] = T.if_then_else(x < 12, 1.0, 2.0, dtype="float32")
    B[1] = T.ceil(T.log2(B[2], dtype="float32"), dtype="float32")
    B[3] = T.call_extern("my_sin", B[4], dtype="float32")
    B[5] = T.reinterpret(x, dtype="float32")
