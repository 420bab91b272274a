# from tvm.script import tir as T

@T.prim_func(private=True)
def helper(A: T.Buffer((4,), "int32")):
    A[0] = 1
