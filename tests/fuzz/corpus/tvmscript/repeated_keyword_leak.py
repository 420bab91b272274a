# from tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), n: T.int32):
    t = T.allocate([n], "float32", "global", condition=n > 0, annotations={"disable_lower_builtin": T.bool(True)})
    t_1 = T.Buffer((n,), data=t, data=t)
    t_1[]
