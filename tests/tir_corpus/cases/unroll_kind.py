# from tvm.script import tir as T
# corpus: loops marked unroll, nested and after a serial one

@T.prim_func
def main(A: T.Buffer((24,), "int32")):
    for i in range(2):
        for j in T.unroll(3):
            for k in T.unroll(4):
                A[i * 12 + j * 4 + k] = A[i * 12 + j * 4 + k] + i * j - k
