# from tvm.script import tir as T
# corpus: repeated subexpressions across statements (CSE)

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), n: T.int32):
    for i in range(4):
        B[i * 4 + n % 4] = A[i * 4 + n % 4] * A[i * 4 + n % 4] + A[i * 4 + n % 4]
        B[i * 4 + (n + 1) % 4] = A[i * 4 + n % 4] * A[i * 4 + n % 4] - T.float32(1.0)
