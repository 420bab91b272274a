"""TVM's Python API names and shapes that TVM code relies on (issue 18, items 3,
4 and the module-level names of item 6): each is checked for what it does,
written from TVM's documented behaviour (not from its tests)."""

import json

import numpy as np
import pytest

import passage
from passage import relay, tir
from passage.relay import analysis, transform
from passage.relay.analysis import Feature


def _mod(body, *params):
    return transform.InferType()(passage.IRModule.from_expr(relay.Function(list(params), body)))


# Item 4: 0-d arrays ------------------------------------------------------------------------

def test_zero_d_numpy_array_is_a_scalar_constant():
    c = relay.const(np.array(1.5, dtype="float32"))
    assert c.data.shape == () and c.data.numpy().shape == ()
    assert c.data.numpy() == np.float32(1.5)
    assert relay.const(np.array(7, dtype="int64")).data.dtype == "int64"
    # Non-contiguous and big-endian arrays still come out right.
    a = np.arange(12, dtype=">i4").reshape(3, 4)[:, ::2]
    assert relay.const(a).data.numpy().tolist() == a.tolist()
    # And the scalar constant types as a scalar.
    x = relay.var("x", shape=(), dtype="float32")
    assert _mod(x + c, x)["main"].body.checked_type.shape == ()


# Item 3 ----------------------------------------------------------------------------------

def test_scalar_type():
    t = relay.scalar_type("int8")
    assert t.shape == () and t.dtype == "int8" and t == relay.TensorType((), "int8")


def test_tuple_wrapper_for_multi_output_ops():
    x = relay.var("x", shape=(1, 4, 2, 2))
    g = relay.var("g", shape=(4,))
    bn = relay.nn.batch_norm(x, g, g, g, g)
    assert isinstance(bn, relay.TupleWrapper) and len(bn) == 3
    out, mean, var = bn
    assert isinstance(out, relay.TupleGetItem) and out.index == 0 and var.index == 2
    assert bn[1].tuple_value.same_as(bn.astuple()) and bn.astuple().op.name == "nn.batch_norm"
    with pytest.raises(IndexError):
        bn[3]
    assert len(relay.split(x, 2, axis=1)) == 2
    assert len(relay.split(x, (1, 3), axis=1)) == 3
    # A wrapper passed as an input is its tuple.
    assert relay.Tuple([bn.astuple()]).fields[0].same_as(bn.astuple())
    # nn.dropout gives its first output, as TVM's helper does.
    d = relay.nn.dropout(x, rate=0.5)
    assert isinstance(d, relay.TupleGetItem) and d.index == 0
    assert d.tuple_value.op.name == "nn.dropout"
    assert _mod(d, x)["main"].body.checked_type == relay.TensorType((1, 4, 2, 2))


def test_op_helpers_take_inputs_by_keyword():
    x = relay.var("x", shape=(1, 3, 8, 8))
    w = relay.var("w", shape=(4, 3, 3, 3))
    by_kw = relay.nn.conv2d(data=x, weight=w, kernel_size=(3, 3), channels=4)
    by_pos = relay.nn.conv2d(x, w, kernel_size=(3, 3), channels=4)
    assert passage.structural_equal(by_kw, by_pos)
    assert passage.structural_equal(relay.nn.conv2d(x, weight=w), relay.nn.conv2d(x, w))
    i = relay.var("i", shape=(2,), dtype="int32")
    t = relay.take(data=x, indices=i, axis=1)
    assert [a.same_as(b) for a, b in zip(t.args, [x, i])] == [True, True]
    assert relay.nn.relu(data=x).args[0].same_as(x)
    with pytest.raises(TypeError, match="unexpected argument 'bogus'"):
        relay.nn.conv2d(data=x, bogus=w)
    with pytest.raises(TypeError, match="multiple values"):
        relay.nn.conv2d(x, w, data=x)
    with pytest.raises(TypeError, match="without the ones before it"):
        relay.nn.conv2d(weight=w)


def test_expr_astype():
    x = relay.var("x", shape=(2,), dtype="float32")
    c = x.astype("int8")
    assert c.op.name == "cast" and c.attrs.dtype == "int8"
    assert _mod(c, x)["main"].body.checked_type == relay.TensorType((2,), "int8")


def test_scope_builder_if_scope():
    i = relay.var("i", shape=(), dtype="int32")
    sb = relay.ScopeBuilder()
    one = sb.let("one", relay.const(1))
    with sb.if_scope(relay.equal(i, relay.const(0))):
        sb.ret(i)
    with sb.else_scope():
        t = sb.let("t", relay.add(i, one))
        sb.ret(t)
    body = sb.get()
    assert isinstance(body, relay.Let) and body.var.same_as(one)
    branch = body.body
    assert isinstance(branch, relay.If) and branch.true_branch.same_as(i)
    assert isinstance(branch.false_branch, relay.Let) and branch.false_branch.var.same_as(t)
    assert _mod(body, i)["main"].body.checked_type == relay.TensorType((), "int32")
    sb2 = relay.ScopeBuilder()
    with pytest.raises(ValueError, match="else_scope must follow"):
        sb2.else_scope()
    with pytest.raises(ValueError, match="without ret"):
        with sb2.if_scope(relay.equal(i, relay.const(0))):
            pass


def test_calling_global_vars_and_functions_makes_calls():
    x = relay.var("x", shape=(2,))
    gv = relay.GlobalVar("f")
    c = gv(x)
    assert isinstance(c, relay.Call) and c.op.same_as(gv) and c.args[0].same_as(x)
    f = relay.Function([x], relay.abs(x))
    assert f(x).op.same_as(f)


def test_eliminate_common_subexpr_with_fskip():
    x = relay.var("x", shape=(2, 2))
    a, b = relay.add(x, x), relay.add(x, x)
    mod = _mod(relay.multiply(a, b), x)
    merged = transform.EliminateCommonSubexpr()(mod)["main"].body
    assert merged.args[0].same_as(merged.args[1])
    kept = transform.EliminateCommonSubexpr(lambda e: True)(mod)["main"].body
    assert not kept.args[0].same_as(kept.args[1])
    seen = []

    def fskip(e):
        seen.append(e)
        return isinstance(e, relay.Call) and e.op.name == "add"
    kept = transform.EliminateCommonSubexpr(fskip)(mod)["main"].body
    assert not kept.args[0].same_as(kept.args[1]) and seen
    merged = transform.EliminateCommonSubexpr(lambda e: False)(mod)["main"].body
    assert merged.args[0].same_as(merged.args[1])
    # Different attributes are not merged.
    s1, s2 = relay.sum(x, axis=[0]), relay.sum(x, axis=[1])
    body = transform.EliminateCommonSubexpr(lambda e: False)(_mod(relay.add(s1, s2), x))["main"].body
    assert not body.args[0].same_as(body.args[1])


def test_int_imm_as_attribute_value_and_dim():
    x = relay.var("x", shape=(tir.IntImm("int32", 3), tir.const(4, "int64")))
    assert x.type_annotation.shape == (3, 4)
    s = relay.nn.softmax(x, axis=tir.const(1))
    assert s.attrs.axis == 1 and isinstance(s.attrs.axis, int)
    p = relay.nn.max_pool2d(relay.var("y", shape=(1, 1, 4, 4)),
                            pool_size=(tir.IntImm("int64", 2), 2))
    assert p.attrs.pool_size == [2, 2]
    assert relay.nn.leaky_relu(x, alpha=tir.FloatImm("float32", 0.5)).attrs.alpha == 0.5


def test_make_node():
    a = passage.ir.make_node("DictAttrs", **{"relay.reshape_only": 1})
    assert a["relay.reshape_only"] == 1
    assert passage.ir.make_node("IntImm", dtype="int64", value=3).value == 3
    assert passage.ir.make_node("relay.TensorType", shape=(2,), dtype="int8") == \
        relay.TensorType((2,), "int8")
    with pytest.raises(ValueError, match="unknown"):
        passage.ir.make_node("NoSuchNode")


def test_python_pass_registered_by_name():
    ran = []

    def marker(mod, ctx):
        ran.append("PyMarker")
        return mod

    # The factory makes the pass each time (a pass kept by the registry would
    # live as long as the process).
    transform.register_pass(
        "PyMarker", lambda: passage.transform.module_pass(marker, opt_level=1, name="PyMarker"))
    assert "PyMarker" in passage.transform.list_passes()
    x = relay.var("x", shape=(2,))
    mod = _mod(relay.abs(x), x)
    passage.transform.get_pass("PyMarker")(mod)
    assert ran == ["PyMarker"]
    seq = passage.transform.parse_pipeline("PyMarker,InferType")
    seq(mod)
    assert ran == ["PyMarker"] * 2

    @passage.transform.module_pass(opt_level=0, name="NeedsMarker", required=["PyMarker"])
    def needs(mod, ctx):
        ran.append("NeedsMarker")
        return mod
    # A Sequential resolves `required` (on a module the marker has not seen:
    # a required pass whose spec already holds for the module is skipped).
    passage.transform.Sequential([needs])(_mod(relay.negative(x), x))
    assert ran[2:] == ["PyMarker", "NeedsMarker"]
    with pytest.raises(TypeError):
        transform.register_pass("Bad", lambda: 3)
    with pytest.raises(passage.UnsupportedError):
        passage.register_func("my.func", lambda: None)


def test_fold_constant_on_an_expression():
    e = relay.add(relay.const(1.0), relay.const(2.0))
    folded = transform.FoldConstant(e)
    assert isinstance(folded, relay.Constant) and folded.data.numpy() == np.float32(3.0)
    x = relay.var("x", shape=(2,))
    out = transform.FoldConstantExpr(relay.add(x, relay.multiply(relay.const(2.0), relay.const(3.0))))
    assert out.args[0].same_as(x) and out.args[1].data.numpy() == np.float32(6.0)
    assert isinstance(transform.FoldConstant(), passage.transform.Pass)


# Item 6: module-level names ----------------------------------------------------------------

def test_detect_feature():
    x = relay.var("x", shape=(2,))
    a = relay.add(x, x)
    tree = relay.Function([x], relay.multiply(a, relay.add(x, x)))
    assert analysis.detect_feature(tree) == {Feature.fVar, Feature.fFunction, Feature.fOp,
                                             Feature.fCall}
    graph = relay.Function([x], relay.multiply(a, a))
    assert Feature.fGraph in analysis.detect_feature(graph)
    v = relay.var("v")
    let = relay.Let(v, relay.const(1.0), relay.If(relay.const(True), relay.Tuple([v]), relay.Tuple([v])))
    feats = analysis.detect_feature(let)
    assert {Feature.fLet, Feature.fIf, Feature.fConstant, Feature.fTuple} <= feats
    assert Feature.fLetRec not in feats
    mod = passage.IRModule.from_expr(tree)
    assert analysis.detect_feature(mod) == analysis.detect_feature(tree)
    assert Feature.fGraph in analysis.detect_feature(graph, mod)


def test_check_basic_block_normal_form():
    x = relay.var("x", shape=(), dtype="float32")
    c = relay.var("c", shape=(), dtype="bool")
    shared = relay.add(x, x)
    ok = relay.Function([x, c], relay.If(c, relay.abs(x), relay.negative(x)))
    assert analysis.check_basic_block_normal_form(ok) is True
    # `shared` is used in both branches without being let-bound above them.
    bad = relay.Function([x, c], relay.If(c, relay.abs(shared), relay.negative(shared)))
    with pytest.raises(passage.TVMError, match="basic block normal form"):
        analysis.check_basic_block_normal_form(bad)


def test_free_type_vars_of_monomorphic_programs():
    x = relay.var("x", shape=(2,))
    f = relay.Function([x], relay.abs(x))
    assert analysis.free_type_vars(f) == [] and analysis.all_type_vars(f) == []
    assert analysis.bound_type_vars(f) == []


def test_type_vars_of_polymorphic_programs():
    a, b = relay.TypeVar("A"), relay.TypeVar("B")
    x, y = relay.var("x", a), relay.var("y", b)
    ident = relay.Function([x], x, a, [a])
    assert analysis.free_type_vars(ident) == [] and analysis.bound_type_vars(ident) == [a]
    assert analysis.all_type_vars(ident) == [a]
    open_fn = relay.Function([y], y)
    assert analysis.free_type_vars(open_fn) == [b] and analysis.bound_type_vars(open_fn) == []
    ft = relay.FuncType([a, b], a, [a])
    assert analysis.free_type_vars(ft) == [b] and analysis.bound_type_vars(ft) == [a]


def test_save_json_load_json_round_trip():
    x = relay.var("x", shape=(2, 3))
    f = relay.Function([x], relay.nn.relu(x))
    mod = passage.IRModule.from_expr(f)
    s = passage.ir.save_json(mod)
    assert json.loads(s)["kind"] == "IRModule"
    assert passage.structural_equal(passage.ir.load_json(s), mod)
    assert passage.structural_equal(passage.ir.load_json(passage.ir.save_json(f)), f)
    t = relay.TupleType([relay.TensorType((1, None), "int8"), relay.scalar_type("bool")])
    assert passage.ir.load_json(passage.ir.save_json(t)) == t
    assert passage.load_json(passage.save_json(relay.op.get("add"))).same_as(relay.op.get("add"))
    body = passage.ir.load_json(passage.ir.save_json(relay.add(x, x)))
    assert body.op.name == "add" and body.args[0].same_as(body.args[1])
    with pytest.raises(ValueError, match="not a string written"):
        passage.ir.load_json('{"format": "other"}')


def test_runtime_convert():
    from passage import runtime
    a = runtime.convert([1, 2.5, "s", {"k": True}])
    assert isinstance(a, runtime.Array) and len(a) == 4
    assert isinstance(a[0], tir.IntImm) and a[0].value == 1 and a[0].dtype == "int32"
    assert isinstance(a[1], tir.FloatImm) and a[1].dtype == "float32"
    assert isinstance(a[2], runtime.String) and a[2] == "s"
    assert isinstance(a[3], runtime.Map) and list(a[3].values())[0].dtype == "bool"
    assert runtime.convert(2 ** 40).dtype == "int64"
    x = relay.var("x")
    assert runtime.convert(x) is x


def test_relay_op_op_and_expr_modules():
    from passage.relay.op import op as _op
    assert _op.get("add").same_as(relay.op.get("add"))
    assert relay.op.get_pattern("add") == _op.OpPattern.BROADCAST
    assert relay.expr.const(1.0).data.dtype == "float32"


def test_tvm_testing_helpers():
    passage.testing.assert_allclose(np.ones(3, "float32"), [1.0, 1.0, 1.0 + 1e-9])
    with pytest.raises(AssertionError):
        passage.testing.assert_allclose(np.ones(3), np.ones(3) * 1.1)
    with pytest.raises(AssertionError):
        passage.testing.assert_allclose(np.ones((1, 3)), np.ones(3))
    passage.testing.assert_allclose(relay.const([1.0, 2.0]), np.array([1.0, 2.0], "float32"))

    @passage.testing.uses_gpu
    def t():
        pass
    assert t.uses_gpu is True and t() is None


def test_relay_testing_helpers():
    from passage.relay import testing
    x = relay.var("x", shape=(1, 3, 4, 4))
    w = relay.var("w", shape=(2, 3, 1, 1))
    typed = testing.run_infer_type(relay.nn.conv2d(x, w))
    assert typed.checked_type == relay.TensorType((1, 2, 4, 4))
    f = testing.run_opt_pass(relay.Function([x], relay.add(x, relay.add(relay.const(1.0),
                                                                          relay.const(1.0)))),
                             transform.FoldConstant())
    assert isinstance(f, relay.Function) and isinstance(f.body.args[1], relay.Constant)
    data = relay.var("data", shape=(1, 3, 4, 4))
    mod, params = testing.create_workload(relay.nn.conv2d(data, w))
    assert set(params) == {"w"} and params["w"].shape == (2, 3, 1, 1)
    assert np.abs(params["w"].numpy()).max() > 0
    zeros = []
    mod, params = testing.create_workload(relay.nn.conv2d(data, w),
                                          lambda name, arr: zeros.append(name))
    assert zeros == ["w"] and not params["w"].numpy().any()


def test_bind_params_by_name():
    from passage.relay.build_module import bind_params_by_name
    a, b = relay.var("a", shape=(2,)), relay.var("b", shape=(2,))
    f = relay.Function([a, b], relay.add(a, b))
    g = bind_params_by_name(f, {"a": np.array([1.0, 2.0], "float32")})
    assert [p.name_hint for p in g.params] == ["b"]
    assert isinstance(g.body.args[0], relay.Constant) and g.body.args[1].same_as(b)
    assert g.body.args[0].data.numpy().tolist() == [1.0, 2.0]
    assert bind_params_by_name(f, {}).same_as(f)
    dup = relay.Function([a, relay.var("a", shape=(2,))], a)
    with pytest.raises(passage.TVMError, match="multiple parameters"):
        bind_params_by_name(dup, {"a": [1.0, 2.0]})


def test_error_names_and_infer_type_local():
    import passage._ffi.base
    assert passage._ffi.base.TVMError is passage.TVMError
    assert issubclass(passage.ParseError, passage.error.DiagnosticError)
    assert issubclass(passage.PassTypeError, passage.error.DiagnosticError)
    with pytest.raises(passage.error.DiagnosticError):
        passage.parse("def @main(")
    x = relay.var("x", shape=(3,), dtype="int8")
    assert transform.InferTypeLocal(relay.abs(x)) == relay.TensorType((3,), "int8")
    with pytest.raises(passage.InvalidArgumentError):  # a type parameter must be a TypeVar
        relay.FuncType([], relay.scalar_type("int8"), [relay.scalar_type("int8")])
    assert relay.FuncType([], relay.scalar_type("int8"), [], []).ret_type.dtype == "int8"


def test_infer_layout_utils():
    from passage.relay.transform.infer_layout_utils import InferCorrectLayoutOutput
    out = InferCorrectLayoutOutput(["NCHW", ""], ["NCHW"], {"axis": 1})
    assert out.input_layouts == ["NCHW", ""] and out.output_layouts == ["NCHW"]
    assert out.new_attrs["axis"] == 1


def test_comparison_operators_build_calls():
    a = relay.var("a", shape=(), dtype="float32")
    b = relay.const(1.0)
    for expr, op in ((a < b, "less"), (a > b, "greater"), (a <= b, "less_equal"),
                     (a >= b, "greater_equal"), (a < 2.0, "less")):
        assert isinstance(expr, relay.Call) and expr.op.name == op and expr.args[0].same_as(a)
    assert (a == a) is True and relay.Function([a], a).type_params == []


def test_relay_bind_and_calls_of_any_expression():
    x, y = relay.var("x", shape=(2,)), relay.var("y", shape=(2,))
    f = relay.Function([x, y], relay.add(x, y))
    g = relay.bind(f, {x: relay.const([1.0, 2.0])})
    assert [p.name_hint for p in g.params] == ["y"] and isinstance(g.body.args[0], relay.Constant)
    z = relay.bind(relay.add(x, y), {y: x})
    assert z.args[0].same_as(x) and z.args[1].same_as(x)
    fv = relay.var("f")
    c = fv(x, y)  # any expression can be called (a function-typed variable here)
    assert isinstance(c, relay.Call) and c.op.same_as(fv) and c.type_args == []
    assert relay.scope_builder.ScopeBuilder is relay.ScopeBuilder
    ft = relay.FuncType([relay.scalar_type("int8")], relay.scalar_type("int8"))
    assert ft.type_params == [] and ft.span is None


def test_save_json_of_values_and_containers():
    from passage import runtime
    for v in (tir.const(3, "int64"), tir.const(float("inf"), "float32"),
              tir.const(float("-inf"), "float64"), tir.const(0.25, "float32")):
        back = passage.ir.load_json(passage.ir.save_json(v))
        assert type(back) is type(v) and back.dtype == v.dtype and back.value == v.value
    nan = passage.ir.load_json(passage.ir.save_json(tir.const(float("nan"), "float32")))
    assert nan.value != nan.value
    s = passage.ir.load_json(passage.ir.save_json(runtime.String("xy\x01z")))
    assert isinstance(s, runtime.String) and s == "xy\x01z"
    a = passage.ir.load_json(passage.ir.save_json(runtime.convert([1, 2, 3.5, True])))
    assert [type(x).__name__ for x in a] == ["IntImm", "IntImm", "FloatImm", "IntImm"]
    assert a[2].value == 3.5 and a[3].dtype == "bool"
    m = passage.ir.load_json(passage.ir.save_json(
        runtime.convert({tir.Var("a", "int32"): 2, tir.Var("b", "int32"): 3})))
    assert {k.name: v.value for k, v in m.items()} == {"a": 2, "b": 3}
    with pytest.raises(TypeError, match="cannot serialize"):
        passage.ir.save_json(object())
