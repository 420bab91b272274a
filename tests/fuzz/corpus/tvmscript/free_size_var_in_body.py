# from tvm.scrip.t imporn\64)8
@T.prim_func
def main(a: T.handle):
    n = T.uint16(is_size_var=True)
# ri))
    T.likely(n < 4)
    
