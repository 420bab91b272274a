# from tvm.script import tir as T
# corpus: nested LetStmts, one var shadowing names

@T.prim_func
def main(A: T.Buffer((16,), "int32"), n: T.int32):
    x: T.int32 = n * 2
    y: T.int32 = x + 1
    for i in range(4):
        z: T.int32 = y * i + x
        w: T.int32 = z - i
        A[i] = z + w
    A[5] = x * y
