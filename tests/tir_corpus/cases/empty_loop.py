# from tvm.script import tir as T
# corpus: a loop whose body does nothing, next to one that stores

@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    for i in range(8):
        T.evaluate(0)
    for i in range(8):
        A[i] = A[i] + T.float32(1.0)
