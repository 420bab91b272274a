# from tvm.script import tir as T
# corpus: two nested virtual threads and a statement shared by them

@T.prim_func
def main(A: T.Buffer((12,), "int32"), C: T.Buffer((12,), "int32")):
    vx = T.env_thread("vthread")
    with T.launch_thread(vx, 3):
        vy = T.env_thread("vthread")
        with T.launch_thread(vy, 4):
            C[vx * 4 + vy] = A[vx * 4 + vy] + vx * 10 + vy
