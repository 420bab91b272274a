# from tvm.script import tir as T
# corpus: explicit vector loads and stores through slices and Broadcast

@T.prim_func
def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
    for i in range(8):
        B[i * 4:i * 4 + 4] = A[i * 4:i * 4 + 4] + T.Broadcast(T.float32(1.0), 4)
