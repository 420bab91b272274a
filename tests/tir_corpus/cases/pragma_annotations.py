# from tvm.script import tir as T
# corpus: pragma annotations and plain ones on loops (LowerOpaqueBlock)

@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    for i in range(1):
        for j in range(0, 16, annotations={"pragma_b": 1, "k": 2, "pragma_a": "x"}):
            A[j] = A[j] + T.float32(i)
    for m in T.serial(1, annotations={"k": 1}):
        A[m] = T.float32(1.0)
