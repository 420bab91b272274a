"""passage.tir.transform.CommonSubexprElimTIR / LowerIntrin / LowerOpaqueBlock
under TVM's names: CSE's positional options and its two configs, LowerIntrin's
libm calls, LowerOpaqueBlock's pragma AttrStmts."""
import passage
from passage import tir
from passage.transform import PassContext

_SUMS = """
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4,), "int32"), a: T.int32, b: T.int32, c: T.int32):
    A[0] = (a + b) + c
    A[1] = a + (b + c)
"""


def _mod(text):
    return passage.IRModule({"main": passage.script.from_source(text)})


def _lets(mod):
    return mod["main"].script().count("cse_var")


def test_cse_options_and_configs():
    mod = _mod(_SUMS)
    assert _lets(tir.transform.CommonSubexprElimTIR()(mod)) == 0  # not syntactically equal
    assert _lets(tir.transform.CommonSubexprElimTIR(True, True)(mod)) == 3
    with PassContext(config={"tir.enable_equiv_terms_in_cse_tir": True}):
        assert _lets(tir.transform.CommonSubexprElimTIR()(mod)) == 3
    with PassContext(config={"tir.disable_cse_tir": True}):
        assert _lets(tir.transform.CommonSubexprElimTIR(True, True)(mod)) == 0
    assert _lets(tir.transform.CommonSubexprElimTIR(False, True)(mod)) == 0


def test_lower_intrin_libm_names():
    mod = _mod("""
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float64")):
    A[0] = T.exp(A[1])
    B[0] = T.log(B[1])
""")
    text = tir.transform.LowerIntrin()(mod)["main"].script()
    assert '"expf"' in text and '"log"' in text and "T.exp(" not in text


def test_lower_opaque_block_pragmas():
    mod = _mod("""
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in T.serial(4, annotations={"pragma_z": 1, "pragma_a": "s"}):
        A[i] = T.float32(0)
""")
    body = tir.transform.LowerOpaqueBlock()(mod)["main"].body
    assert body.attr_key == "pragma_a" and body.body.attr_key == "pragma_z"
    assert isinstance(body.body.body, tir.For)


_FACTORED = """
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4,), "int32"), a: T.int32, b: T.int32, c: T.int32):
    A[0] = a * (b + c)
    A[1] = b * a + c * a
"""


def test_cse_equiv_terms_take_out_a_common_factor():
    # a * b + a * c is a * (b + c) to the simplifier (TVM's rewrite rule), so
    # the two stores compute one term when terms are compared semantically.
    mod = _mod(_FACTORED)
    assert _lets(tir.transform.CommonSubexprElimTIR()(mod)) == 0
    out = tir.transform.CommonSubexprElimTIR(True, True)(mod)["main"]
    assert isinstance(out.body, tir.LetStmt) and out.body.var.name == "cse_var_1"
    assert out.script().count("cse_var_1") == 3  # the binding and both stores


def test_if_then_else_takes_an_integer_condition():
    # TVM accepts an int condition (non-zero is true); Passage compares it with 0.
    b = passage.te.var("b")
    buf = tir.decl_buffer((4,), "int32", name="M")
    body = tir.IfThenElse(b, tir.BufferStore(buf, 1, [0]), tir.BufferStore(buf, 2, [0]))
    assert isinstance(body.condition, tir.NE) and body.condition.a.same_as(b)
    assert int(body.condition.b) == 0 and body.condition.dtype == "bool"
    flag = tir.Var("flag", "bool")
    assert tir.IfThenElse(flag, tir.Evaluate(0)).condition.same_as(flag)
