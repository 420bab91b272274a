# from tvm.script import tir as T
# corpus: a 0-d buffer as accumulator

@T.prim_func
def main(A: T.Buffer((), "int32"), B: T.Buffer((6,), "int32")):
    for i in range(6):
        A[()] = A[()] + B[i] * i
