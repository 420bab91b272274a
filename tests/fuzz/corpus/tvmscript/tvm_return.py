# from tvm.script import tir as T

@T.prim_func
def main(x: T.int32) -> T.int32:
    if x < 0:
        return 0 - x
    return x * 2
