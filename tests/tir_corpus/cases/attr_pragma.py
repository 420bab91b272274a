# from tvm.script import tir as T
# corpus: an AttrStmt around a loop

@T.prim_func
def main(A: T.Buffer((8,), "int32")):
    with T.attr(0, "pragma_unroll_explicit", 1):
        for i in range(8):
            A[i] = A[i] * i
