# from tvm.script import tir as T
# corpus: Let expressions, nested

@T.prim_func
def main(A: T.Buffer((8,), "int32"), n: T.int32):
    for i in range(8):
        A[i] = T.Let(T.Let(a * b + a, where={b: a - 1}), where={a: i + n})
