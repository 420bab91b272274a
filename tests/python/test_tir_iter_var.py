"""tir.IterVar, ir.Range and te.thread_axis from Python, thread launches in
TVMScript (T.env_thread / T.launch_thread / T.attr(T.iter_var(...))) parsed
with captured Vars and IterVars, and tir.ConvertSSA on two functions that
share a thread var."""

import pytest

import passage
from passage import ir, te, tir
from passage.script import tir as T, ir as I


def test_iter_var_fields():
    tx = te.thread_axis((0, 64), "threadIdx.x")
    assert tx.iter_type == tir.IterVar.ThreadIndex
    assert tx.thread_tag == "threadIdx.x"
    assert tx.var.name == "threadIdx.x"
    assert tx.dom.extent.value == 64 and tx.dom.min.value == 0
    free = tir.IterVar(None, "k", tir.IterVar.DataPar)
    assert free.dom is None and free.thread_tag == "" and free.var.dtype == "int32"
    r = ir.Range(2, 10)
    assert r.min.value == 2 and r.extent.value == 8
    assert ir.Range(5).extent.value == 5
    with pytest.raises(ValueError):
        te.thread_axis()
    with pytest.raises(TypeError):
        tir.IterVar(7, "k", tir.IterVar.DataPar)


def test_launch_parses_and_prints():
    @T.prim_func
    def kernel(A: T.Buffer((8,), "int32")):
        tx = T.env_thread("threadIdx.x")
        with T.launch_thread(tx, 8):
            A[tx] = A[tx] + 1
        with T.launch_thread(tx, 8):
            A[tx] = A[tx] * 3

    text = kernel.script()
    assert 'tx = T.env_thread("threadIdx.x")' in text
    assert text.count("with T.launch_thread(tx, 8):") == 2
    launch = kernel.body[0]
    assert isinstance(launch.node, tir.IterVar)
    assert launch.attr_key == "thread_extent"
    assert launch.node.var.same_as(kernel.body[1].node.var)


def test_captured_iter_var_and_convert_ssa():
    tx = tir.Var("tx", "int32")
    iv = tir.IterVar(ir.Range(0, 4), tx, tir.IterVar.ThreadIndex, "threadIdx.x")

    @I.ir_module
    class Mod:
        @T.prim_func
        def k1(A: T.Buffer((4,), "float32")):
            with T.attr(iv, "thread_extent", 4):
                A[tx] = A[tx] + T.float32(1)

        @T.prim_func
        def k2(A: T.Buffer((4,), "float32")):
            T.attr(T.iter_var(tx, T.Range(0, 4), "ThreadIndex", "threadIdx.x"), "thread_extent", 4)
            A[tx] = A[tx] + T.float32(1)

    v1 = Mod["k1"].body.node.var
    v2 = Mod["k2"].body.node.var
    assert v1.same_as(tx) and v2.same_as(tx)
    out = tir.transform.ConvertSSA()(Mod)
    w1, w2 = out["k1"].body.node.var, out["k2"].body.node.var
    assert w1.same_as(tx) and not w2.same_as(tx)
    passage.ir.assert_structural_equal(out["k1"].with_attr("global_symbol", "k"),
                                       out["k2"].with_attr("global_symbol", "k"))


def test_iter_var_is_its_var_in_arithmetic():
    # TVM's IterVar is an ExprOp: in an expression it stands for its var.
    tx = passage.te.thread_axis("threadIdx.x")
    ty = passage.te.thread_axis("threadIdx.y")
    e = tx * 32 + ty
    assert isinstance(e, tir.Add)
    assert e.a.a.same_as(tx.var) and e.b.same_as(ty.var)
    assert (tx < 4).a.same_as(tx.var)
    assert tx.dtype == "int32"
    assert len({tx, ty, tx}) == 2
