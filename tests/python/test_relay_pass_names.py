"""TVM's Python names of Relay passes (issue 18, item 5), and what TVM's
test_pass_inline.py checks of `relay.transform.Inline()`, as our own tests."""

import passage
from passage import relay


def _leaf(name, compiler=None):
    x = relay.var("x_" + name, shape=(3, 5))
    y = relay.var("y_" + name, shape=(3, 5))
    fn = relay.Function([x, y], x + y).with_attr("Inline", passage.tir.IntImm("int32", 1))
    return fn.with_attr("Compiler", compiler) if compiler else fn


def _module(compiler=None):
    mod = passage.IRModule({})
    g1 = relay.GlobalVar("g1")
    mod[g1] = _leaf("g1", compiler)
    p0 = relay.var("p0", shape=(3, 5))
    p1 = relay.var("p1", shape=(3, 5))
    mod["main"] = relay.Function([p0, p1], g1(p0, p1) * p0)
    return mod


def test_inline_is_inline_globals():
    p = relay.transform.Inline()
    assert p.info.name == "InlineGlobals"
    assert p.info.opt_level == 1


def test_inline_splices_leaf_and_drops_it():
    got = relay.transform.Inline()(_module())
    p0 = relay.var("p0", shape=(3, 5))
    p1 = relay.var("p1", shape=(3, 5))
    want = passage.IRModule({})
    want["main"] = relay.Function([p0, p1], (p0 + p1) * p0)
    passage.ir.assert_structural_equal(got, want, map_free_vars=True)


def test_inline_external_callee_is_called_as_function():
    got = relay.transform.Inline()(_module("a"))
    p0 = relay.var("p0", shape=(3, 5))
    p1 = relay.var("p1", shape=(3, 5))
    want = passage.IRModule({})
    want["main"] = relay.Function([p0, p1], relay.Call(_leaf("g1", "a"), [p0, p1]) * p0)
    passage.ir.assert_structural_equal(got, want, map_free_vars=True)


def test_div_to_mul_reciprocal_per_dtype():
    import numpy as np
    for dtype, rtol in (("float16", 1e-3), ("float32", 1e-7), ("float64", 1e-12)):
        x = relay.var("x", relay.TensorType((), dtype))
        y = relay.Constant(passage.nd.array(np.array([1.5]).astype(dtype)))
        got = relay.transform.DivToMul()(passage.IRModule.from_expr(x / y))["main"].body
        assert got.op.name == "multiply"
        np.testing.assert_allclose(got.args[1].data.numpy()[0], 1 / 1.5, rtol=rtol)
    p = relay.transform.DivToMul()
    assert (p.info.opt_level, list(p.info.required)) == (0, ["InferType", "FoldConstant"])


def test_div_to_mul_keeps_larger_constants():
    import numpy as np
    x = relay.var("x", shape=(2,))
    y = relay.const(np.array([2.0, 4.0], dtype="float32"))
    got = relay.transform.DivToMul()(passage.IRModule.from_expr(x / y))["main"].body
    assert got.op.name == "divide"


def test_eta_expand_global_var():
    mod = passage.relay.fromtext(
        '#[version = "0.0.5"]\n'
        "def @aux(%x: Tensor[(), int32]) -> Tensor[(), int32] { %x }\n"
        "def @main() -> fn(Tensor[(), int32]) -> Tensor[(), int32] { @aux }\n")
    got = relay.transform.EtaExpand(expand_global_var=True)(mod)
    want = passage.relay.fromtext(
        '#[version = "0.0.5"]\n'
        "def @aux(%x: Tensor[(), int32]) -> Tensor[(), int32] { %x }\n"
        "def @main() -> fn(Tensor[(), int32]) -> Tensor[(), int32] {\n"
        "  fn (%x: Tensor[(), int32]) -> Tensor[(), int32] { @aux(%x) }\n}\n")
    passage.ir.assert_structural_equal(got["main"], want["main"], map_free_vars=True)
    assert relay.transform.EtaExpand().info.opt_level == 1


def test_remove_unused_functions_takes_entry_functions_by_position():
    mod = passage.IRModule({})
    x = relay.var("x", shape=(2,))
    for name in ("main1", "main2", "unused"):
        mod[relay.GlobalVar(name)] = relay.Function([x], x)
    kept = relay.transform.RemoveUnusedFunctions(["main1", "main2"])(mod)
    assert sorted(g.name_hint for g in kept.get_global_vars()) == ["main1", "main2"]
    by_default = relay.transform.RemoveUnusedFunctions()(mod)
    assert by_default.get_global_vars() == []
