# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for i in T.parallel(2, 10, annotations={"pragma_loop_partition_hint": 1}):
        A[i] = T.float32(1.0)
