# from tvm.script import tir as T
# corpus: loops of extent 0 (constant and computed), the store must never run

@T.prim_func
def main(A: T.Buffer((8,), "int32")):
    for i in range(0):
        A[i] = 99
    for i in range(4, 4):
        A[i] = 98
    for i in range(3):
        for j in range(i - i):
            A[j] = 97
    A[1] = A[1] + 1
