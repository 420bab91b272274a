# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i in range(128):
        B[i] = T.float32(0.0)
        for k in range(128):
            A_1 = T.Buffer((16384,), data=A.data)
            B[i] = B[i] + A_1[i * 128 + k]
