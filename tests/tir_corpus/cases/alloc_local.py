# from tvm.script import tir as T
# corpus: a local scratch buffer filled then read

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    t = T.allocate([16], "float32", "local")
    t_1 = T.Buffer((16,), data=t, scope="local")
    for i in range(16):
        t_1[i] = A[i] * T.float32(3.0)
    for i in range(16):
        B[i] = t_1[15 - i] + t_1[i]
