# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 32), "float32"), B: T.Buffer((8, 32), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    m = T.allocate([1], "float32", "local")
    s = T.allocate([1], "float32", "local")
    for i in range(8):
        m_1 = T.Buffer((1,), data=m)
        s_1 = T.Buffer((1,), data=s)
        m_1[0] = T.float32("-inf")
        for k in range(32):
            m_1[0] = T.max(m_1[0], A[i, k])
        s_1[0] = T.float32(0.0)
        for k in range(32):
            s_1[0] = s_1[0] + T.exp(A[i, k] - m_1[0])
        for k in range(32):
            B[i, k] = T.exp(A[i, k] - m_1[0]) / s_1[0]
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
