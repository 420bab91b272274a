# from tvm.script import tir as T
# corpus: an allocation inside a loop body

@T.prim_func
def main(A: T.Buffer((4, 4), "int32"), B: T.Buffer((4,), "int32")):
    for i in range(4):
        acc = T.allocate([1], "int32", "local")
        acc_1 = T.Buffer((1,), "int32", data=acc, scope="local")
        acc_1[0] = 0
        for j in range(4):
            acc_1[0] = acc_1[0] + A[i, j]
        B[i] = acc_1[0]
