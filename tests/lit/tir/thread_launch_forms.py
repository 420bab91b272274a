# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):
    with T.launch_thread("threadIdx.x", 4) as tx:
        A[tx] = tx
    ty = T.launch_thread("threadIdx.y", 4)
    B[ty] = ty * 2
# The other spellings TVM accepts: `with T.launch_thread("tag", n) as v`,
# and `v = T.launch_thread("tag", n)` over the rest of the block. They print
# in the T.env_thread form.
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py | FileCheck %s
# CHECK:      tx = T.env_thread("threadIdx.x")
# CHECK-NEXT: with T.launch_thread(tx, 4):
# CHECK-NEXT:     A[tx] = tx
# CHECK-NEXT: ty = T.env_thread("threadIdx.y")
# CHECK-NEXT: with T.launch_thread(ty, 4):
# CHECK-NEXT:     B[ty] = ty * 2
