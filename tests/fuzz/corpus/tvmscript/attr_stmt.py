# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    with T.attr(A.data, "storage_alignment", 128):
        A[0] = T.float32(0.0)
    with T.attr(None, "pragma_import_llvm", "m"):
        with T.attr(A, "buffer_bound", 16):
            A[1] = T.float32(1.0)
