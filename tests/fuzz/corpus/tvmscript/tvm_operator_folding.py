# from tvm.script import tir as T

@T.prim_func
def main(B: T.Buffer((8,), "int32"), L: T.Buffer((4,), "int64"), x: T.int32, n: T.int64):
    B[0] = T.int32(1) + 2 * 3 - 4 // 2 % 3
    B[1] = x + 0 - 0 * x + x * 1
    B[2] = -x + -(-x) + T.min(3, x) + T.floordiv(-7, 2)
    B[3] = T.if_then_else(False, x, 3) + T.bitwise_xor(5, 3) + T.shift_right(-8, 1)
    L[0] = n + x + T.int64(1) * 2
    B[T.ramp(0, 1, 4)] = T.broadcast(x, 4) + T.Broadcast(1, 4)
