# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    B.vstore([0:4], A.vload([0:4], predicate=T.Broadcast(T.bool(True), 4)), predicate=T.Broadcast(T.bool(False), 4))
