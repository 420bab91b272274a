# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), x: T.float32):
    A[0] = x / T.float32(2.0)
    A[1] = x * x - x / (x + T.float32(1.0))
    A[2] = T.exp(x) + T.log(x) + T.sqrt(x)
    A[3] = T.tanh(x) * T.sigmoid(x)
    A[4] = T.pow(x, T.float32(2.0)) + T.fabs(x)
    A[5] = T.floor(x) + T.ceil(x) + T.round(x)
    A[6] = T.truncmod(x, T.float32(3.0))
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
