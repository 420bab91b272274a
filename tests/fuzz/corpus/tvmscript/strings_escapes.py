# from tvm.script import tir as T

@T.prim_func
def main(n: T.int32):
    assert n > 0, "a \"quoted\" message\twith tab"
    T.evaluate(0)
