# from tvm.script import tir as T
# corpus: a numerically stable softmax over a row with scratch buffers

@T.prim_func
def main(A: T.Buffer((3, 6), "float32"), B: T.Buffer((3, 6), "float32")):
    m = T.allocate([1], "float32", "local")
    M = T.Buffer((1,), data=m, scope="local")
    s = T.allocate([1], "float32", "local")
    S = T.Buffer((1,), data=s, scope="local")
    for i in range(3):
        M[0] = T.float32(-3.4028234663852886e+38)
        for k in range(6):
            M[0] = T.max(M[0], A[i, k])
        S[0] = T.float32(0.0)
        for k in range(6):
            S[0] = S[0] + T.exp((A[i, k] - M[0]) * T.float32(0.01))
        for k in range(6):
            B[i, k] = T.exp((A[i, k] - M[0]) * T.float32(0.01)) / S[0]
