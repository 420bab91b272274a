# from tvm.script import tir as T
# corpus: allocations of different dtypes and sizes live at once

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "int32")):
    f = T.allocate([8], "float32", "global")
    f_1 = T.Buffer((8,), data=f)
    g = T.allocate([4], "int16", "global")
    g_1 = T.Buffer((4,), "int16", data=g)
    for i in range(8):
        f_1[i] = A[i] * T.float32(0.25)
    for i in range(4):
        g_1[i] = T.Cast("int16", i * 3)
    for i in range(8):
        B[i] = T.Cast("int32", f_1[i]) + T.Cast("int32", g_1[i % 4])
