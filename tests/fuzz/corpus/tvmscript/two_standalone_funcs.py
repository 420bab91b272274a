# from tvm.script import tir as T

@T.prim_func
def first(A: T.Buffer((4,), "int32")):
    A[0] = 1

@T.prim_func
def second(A: T.Buffer((4,), "int32")):
    A[1] = 2
