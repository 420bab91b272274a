# from tvm.script import tir as T
# corpus: nested ifs without else

@T.prim_func
def main(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    for i in range(10):
        if i >= 2:
            if i < 8:
                if A[i] > T.float32(0.0):
                    B[i] = A[i]
