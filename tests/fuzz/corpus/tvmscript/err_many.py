# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), n: T.int32):
    A[0] = q0
    A[0] = q1
    A[0] = q2
    A[0] = q3
    A[0] = q4
    A[0] = q5
    A[0] = q6
    A[0] = q7
    A[0] = q8
    A[0] = q9
    A[0] = q10
    A[0] = q11
    A[0] = q12
    A[0] = q13
    A[0] = q14
    A[0] = q15
    A[0] = q16
    A[0] = q17
    A[0] = q18
    A[0] = q19
    A[0] = q20
    A[0] = q21
    A[0] = q22
    A[0] = q23
    A[0] = q24
    A[0] = q25
    A[0] = q26
    A[0] = q27
    A[0] = q28
    A[0] = q29
