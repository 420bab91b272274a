# from tvm.script import tir as T
# corpus: uint32 division and modulo

@T.prim_func
def main(A: T.Buffer((8,), "uint32"), B: T.Buffer((8,), "uint32")):
    for i in range(8):
        B[i] = A[i] // T.uint32(7) + A[i] % T.uint32(5)
