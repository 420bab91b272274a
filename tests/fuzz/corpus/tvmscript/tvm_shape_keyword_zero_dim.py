# from tvm.script import tir as T

@T.prim_func
def main(a: T.handle, b: T.handle) -> None:
    A = T.match_buffer(a, shape=(), dtype="float32", buffer_type="auto")
    B = T.match_buffer(b, shape=(4, 4), dtype="float32")
    C = T.Buffer(shape=16, dtype="float32", data=B.data)
    A[()] = A[()] + B[1, 2] + C[3]
