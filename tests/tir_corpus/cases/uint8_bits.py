# from tvm.script import tir as T
# corpus: uint8 shifts, masks and wrap-around

@T.prim_func
def main(A: T.Buffer((8,), "uint8"), B: T.Buffer((8,), "uint8")):
    for i in range(8):
        B[i] = T.shift_left(A[i], T.uint8(1)) + T.bitwise_and(A[i], T.uint8(15)) + T.uint8(200)
