# from tvm.script import tir as T
# corpus: a padded 1-d convolution through a padded scratch buffer

@T.prim_func
def main(X: T.Buffer((10,), "float32"), W: T.Buffer((3,), "float32"), Y: T.Buffer((10,), "float32")):
    p = T.allocate([12], "float32", "global")
    P = T.Buffer((12,), data=p)
    for i in range(12):
        P[i] = T.if_then_else(1 <= i and i < 11, X[i - 1], T.float32(0.0))
    for i in range(10):
        Y[i] = T.float32(0.0)
        for r in range(3):
            Y[i] = Y[i] + P[i + r] * W[r]
