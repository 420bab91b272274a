# from tvm.script import tir as T
# corpus: an int64 symbolic extent

@T.prim_func
def main(n: T.int64, A: T.Buffer((n,), "int32")):
    for i in range(n):
        A[i] = A[i] + T.Cast("int32", i)
