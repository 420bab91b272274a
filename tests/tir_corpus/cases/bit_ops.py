# from tvm.script import tir as T
# corpus: shifts, xor, not and popcount on int32

@T.prim_func
def main(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int32")):
    for i in range(8):
        B[i] = T.bitwise_xor(A[i], 85) + T.shift_right(A[i], 2) + T.bitwise_or(T.shift_left(i, 3), 1) + T.bitwise_not(i)
