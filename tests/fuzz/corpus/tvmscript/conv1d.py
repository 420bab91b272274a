# from tvm.script import tir as T

@T.prim_func
def main(X: T.Buffer((1, 4, 34), "float32"), W: T.Buffer((8, 4, 3), "float32"), Y: T.Buffer((1, 8, 32), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for c, x in T.grid(8, 32):
        Y[0, c, x] = T.float32(0.0)
        for rc, rx in T.grid(4, 3):
            Y[0, c, x] = Y[0, c, x] + X[0, rc, x + rx] * W[c, rc, rx]
