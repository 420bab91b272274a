# from tvm.script import tir as T
# corpus: two allocations whose lifetimes do not overlap (StorageRewrite reuse)

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    p = T.allocate([8], "float32", "global")
    p_1 = T.Buffer((8,), data=p)
    for i in range(8):
        p_1[i] = A[i] + T.float32(1.0)
    for i in range(8):
        B[i] = p_1[i] * T.float32(2.0)
    q = T.allocate([8], "float32", "global")
    q_1 = T.Buffer((8,), data=q)
    for i in range(8):
        q_1[i] = B[i] - A[i]
    for i in range(8):
        B[i] = q_1[7 - i]
