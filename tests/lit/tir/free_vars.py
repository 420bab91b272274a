# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8,), "int32")):
    n = T.int32()
    T.evaluate(T.likely(n < 4))
    for i in range(8):
        m = T.uint16(is_size_var=True)
        A[i] = n + T.Cast("int32", m)
# A var nothing binds is defined where TVM's printer defines it: in the
# lowest frame that holds all its uses (n at the top, m inside the loop).
# RUN: grep -v '^# [A-Z]*:' %s > %t.py
# RUN: passage print %t.py > %t.out
# RUN: passage print %t.out | diff %t.out -
# RUN: FileCheck %s < %t.out
# CHECK:      def main(A: T.Buffer((8,), "int32")):
# CHECK-NEXT:     n = T.int32()
# CHECK-NEXT:     T.likely(n < 4)
# CHECK-NEXT:     for i in range(8):
# CHECK-NEXT:         m = T.uint16(is_size_var=True)
# CHECK-NEXT:         A[i] = n + T.Cast("int32", m)
