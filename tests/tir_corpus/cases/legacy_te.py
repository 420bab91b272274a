# from tvm.script import tir as T
# corpus: a from_legacy_te_schedule function with multi-dim scratch (StorageFlatten)

@T.prim_func
def main(X: T.Buffer((4, 5), "int32"), Y: T.Buffer((4, 5), "int32")):
    T.func_attr({"from_legacy_te_schedule": True})
    acc_data = T.allocate([4, 5], "int32", "global")
    acc = T.decl_buffer((4, 5), "int32", data=acc_data)
    for u, v in T.grid(4, 5):
        acc[u, v] = X[u, v] + u
    for u, v in T.grid(4, 5):
        Y[u, v] = acc[u, 4 - v]
