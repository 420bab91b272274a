# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    threadIdx_x = T.env_thread("threadIdx.x")
    with T.launch_thread(threadIdx_x, 8):
        A[threadIdx_x] = A[threadIdx_x] + T.float32(1.0)
    with T.launch_thread(threadIdx_x, 8):
        A[threadIdx_x] = A[threadIdx_x] * T.float32(2.0)
    j = T.int32()
    with T.attr(T.iter_var(j, T.Range(0, 4), "Ordered", ""), "pragma_order", 1):
        A[0] = T.Cast("float32", j)
    with T.attr(T.iter_var(threadIdx_x, None, "ThreadIndex", "threadIdx.x"), "virtual_thread", 2):
        A[threadIdx_x] = T.float32(0.0)
# NOTE: a thread launch prints as TVM's T.env_thread + T.launch_thread; any
# NOTE: other IterVar as T.attr(T.iter_var(...)). Both read back the same.
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: diff %t.py %t.out
# RUN: passage print %t.out | diff %t.out -
