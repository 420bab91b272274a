# from tvm.script import tir as T
# corpus: an allocation with a condition

@T.prim_func
def main(A: T.Buffer((16,), "float32"), n: T.int32):
    t = T.allocate([n], "float32", "global", condition=n > 0)
    t_1 = T.Buffer((n,), data=t)
    for i in range(n):
        t_1[i] = A[i] + T.float32(1.0)
    for i in range(n):
        A[i + 1] = t_1[i]
