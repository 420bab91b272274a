# from tvm.script import tir as T
# corpus: exp, log, tanh, sigmoid, sqrt, erf on bounded inputs

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        x: T.float32 = A[i] * T.float32(0.01)
        B[i] = T.exp(x) + T.tanh(x) + T.sigmoid(x) + T.sqrt(T.fabs(x)) + T.log(T.fabs(x) + T.float32(1.0)) + T.erf(x)
