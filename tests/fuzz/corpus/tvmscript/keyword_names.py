# from tvm.script import tir as T

@T.prim_func
def main(T_1: T.Buffer((8,), "int32"), range_1: T.int32):
    T_1[0] = range_1
