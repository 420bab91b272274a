# from tvm.script import tir as T
# corpus: sixteen virtual threads around a loop

@T.prim_func
def main(A: T.Buffer((64,), "int32")):
    v = T.env_thread("vthread")
    with T.launch_thread(v, 16):
        for j in range(4):
            A[v * 4 + j] = A[v * 4 + j] * 2 + j
