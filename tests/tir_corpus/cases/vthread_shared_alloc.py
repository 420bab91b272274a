# from tvm.script import tir as T
# corpus: a virtual thread whose scratch buffer depends on the thread (InjectVirtualThread)

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in range(8):
        tx = T.env_thread("vthread")
        with T.launch_thread(tx, 2):
            B_data = T.allocate([1], "float32", "local")
            B = T.Buffer((1,), data=B_data, scope="local")
            B[0] = A[i * 2 + tx] * T.float32(2.0)
            C[i * 2 + tx] = B[0] + T.float32(1.0)
