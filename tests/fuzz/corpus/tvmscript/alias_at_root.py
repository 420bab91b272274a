# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4, 8), "float32")):
    A_1 = T.Buffer((32,), data=A.data)
    for i in range(4):
        A_1[i * 8] = T.float32(0.0)
    for j in range(8):
        A_1[j] = T.float32(1.0)
