"""tir.Simplify with the known buffer values (docs/tir-arith.md "Known buffer
values"): the propagate_knowns_* switches set through the PassContext config,
as TVM users set them, and thread extents taken from te.thread_axis IterVars."""
import passage
import passage.testing
from passage import te, tir
from passage.script import tir as T


class KnownsBase(passage.testing.CompareBeforeAfter):
    prove = True
    simplify_all = False

    def transform(self):
        def run(mod):
            cfg = {
                "tir.Simplify": {
                    "propagate_knowns_to_prove_conditional": self.prove,
                    "propagate_knowns_to_simplify_expressions": self.simplify_all,
                }
            }
            with passage.transform.PassContext(config=cfg):
                return tir.transform.Simplify()(mod)

        return run


class TestStoredValueDecidesIf(KnownsBase):
    def before(Out: T.Buffer((2,), "int32"), Acc: T.Buffer((1,), "int32")):
        Acc[0] = 4
        Acc[0] = Acc[0] * 2
        if Acc[0] == 8:
            Out[0] = 1
        else:
            Out[0] = 2

    def expected(Out: T.Buffer((2,), "int32"), Acc: T.Buffer((1,), "int32")):
        Acc[0] = 4
        Acc[0] = Acc[0] * 2
        Out[0] = 1


class TestStoredValueInExpressions(KnownsBase):
    prove = False
    simplify_all = True

    def before(Out: T.Buffer((2,), "int32"), Acc: T.Buffer((1,), "int32")):
        Acc[0] = 4
        Out[1] = Acc[0] * 3 + 1

    def expected(Out: T.Buffer((2,), "int32"), Acc: T.Buffer((1,), "int32")):
        Acc[0] = 4
        Out[1] = 13


class TestBranchStoreOnlyUnderItsCondition(KnownsBase):
    def before(Out: T.Buffer((4,), "int32"), W: T.Buffer((4,), "int32")):
        for j in range(4):
            if j == 2:
                W[j] = 9
            if W[j] == 9:
                Out[j] = 1

    expected = before


class TestLoopPerElementValue(KnownsBase):
    def before(Out: T.Buffer((6,), "int32"), W: T.Buffer((6,), "int32")):
        for j in range(6):
            W[j] = j + 10
        for j in range(6):
            if W[j] < 16:
                W[j] = 0

    def expected(Out: T.Buffer((6,), "int32"), W: T.Buffer((6,), "int32")):
        for j in range(6):
            W[j] = j + 10
        for j in range(6):
            W[j] = 0


class TestOpaqueCallForgets(KnownsBase):
    def before(Out: T.Buffer((1,), "int32"), W: T.Buffer((1,), "int32")):
        W[0] = 1
        T.evaluate(T.call_extern("int32", "scribble", W.data))
        if W[0] == 1:
            Out[0] = 5

    expected = before


def test_thread_extent_from_iter_var():
    ib = tir.ir_builder.create()
    P = ib.pointer("float32", name="P")
    tx = te.thread_axis("threadIdx.x")
    ib.scope_attr(tx, "thread_extent", 8)
    with ib.if_scope(tx < 8):
        P[tx] = 1.0
    mod = passage.IRModule.from_expr(tir.PrimFunc([P], ib.get()))
    body = tir.transform.Simplify()(mod)["main"].body
    assert isinstance(body.body, tir.BufferStore)
