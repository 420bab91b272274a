# from tvm.script import tir as T
# corpus: an elem_offset view writing into the middle of a buffer

@T.prim_func
def main(A: T.Buffer((16,), "int32")):
    A_1 = T.Buffer((8,), "int32", data=A.data, elem_offset=5)
    for i in range(8):
        A_1[i] = A_1[i] + A[i]
