# from tvm.script import tir as T
# corpus: loops starting above 0 and a reversed index

@T.prim_func
def main(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
    for i in range(3, 13):
        B[i] = A[15 - i] + A[i - 3]
