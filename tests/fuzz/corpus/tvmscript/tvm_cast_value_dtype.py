# from tvm.script import tir as T

@T.prim_func
def main(B: T.Buffer((8,), "int32"), x: T.int32, f: T.float32):
    B[0] = T.cast(f, "int32")
    B[1] = T.cast(T.cast(14, "float64"), dtype="int32")
    B[2] = T.cast(x, "int32")
