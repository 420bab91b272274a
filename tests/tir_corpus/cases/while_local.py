# from tvm.script import tir as T
# corpus: a while loop over a local counter, nested in a for

@T.prim_func
def main(B: T.Buffer((3, 4), "int32")):
    c = T.allocate([1], "int32", "local")
    c_1 = T.Buffer((1,), "int32", data=c, scope="local")
    for i in range(3):
        c_1[0] = 0
        while c_1[0] < 4:
            B[i, c_1[0]] = i + c_1[0]
            c_1[0] = c_1[0] + 1
