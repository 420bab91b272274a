"""IR from Python: IRModule, parse/astext, relay constructors, constants
from lists / buffers / numpy, generated op helpers, structural equality."""

import array

import pytest

import passage
from passage import relay
from passage import _ffi


def test_irmodule_dict_update_getitem_functions():
    x = relay.var("x", shape=(2,))
    f = relay.Function([x], relay.abs(x))
    gv = relay.GlobalVar("f")
    mod = passage.IRModule({gv: f})
    assert mod["f"].same_as(f) and mod[gv].same_as(f)
    assert list(mod.functions.items())[0][0].name_hint == "f"
    assert "f" in mod and "g" not in mod and len(mod) == 1
    with pytest.raises(KeyError):
        mod["g"]
    y = relay.var("y", shape=(2,))
    g = relay.Function([y], relay.log(y))
    mod["g"] = g
    assert [v.name_hint for v in mod.get_global_vars()] == ["f", "g"]
    other = passage.IRModule({relay.GlobalVar("f"): g})
    mod.update(other)
    assert mod["f"].same_as(g) and [v.name_hint for v in mod.get_global_vars()] == ["f", "g"]
    mod.remove("g")
    assert [v.name_hint for v in mod.get_global_vars()] == ["f"]
    with pytest.raises(TypeError):
        mod["h"] = x  # not a function


def test_free_variables_rejected():
    x = relay.var("x", shape=(2,))
    with pytest.raises(passage.InvalidArgumentError, match="x"):
        passage.IRModule({relay.GlobalVar("main"): relay.Function([], x)})


def test_parse_astext_round_trip():
    text = ('#[version = "0.0.5"]\n'
            'def @main(%x: Tensor[(3, 4), float32], %y: Tensor[(3, 4), float32]) {\n'
            '  %0 = add(%x, %y);\n'
            '  log(%0)\n'
            '}\n')
    mod = passage.parse(text)
    assert mod.astext() == text == str(mod)
    again = passage.parse(mod.astext())
    assert passage.structural_equal(mod, again)
    assert passage.structural_hash(mod) == passage.structural_hash(again)
    body = mod["main"].body
    assert isinstance(body, relay.Call) and body.op.name == "log"
    assert body.args[0].op.name == "add"
    assert body.span is not None and body.span.line == 4


def test_constructors_and_accessors():
    t = relay.TensorType((3, None), "int8")
    # An unknown dimension reads back as tir.Any(), as in TVM.
    assert t.shape[0] == 3 and isinstance(t.shape[1], relay.Any)
    assert t.dtype == "int8" and str(t) == "Tensor[(3, ?), int8]"
    assert t == relay.TensorType((3, -1), "int8")  # interned
    x = relay.var("x", t)
    assert x.name_hint == "x" and x.type_annotation == t
    s = relay.var("s", "float32")
    assert s.type_annotation.shape == ()
    with pytest.raises(ValueError):
        relay.var("bad", t, shape=(1,))
    tup = relay.Tuple([x, s])
    assert len(tup) == 2 and tup.fields[1].same_as(s)
    item = relay.TupleGetItem(tup, 1)
    assert item.index == 1 and item.tuple_value.same_as(tup)
    v = relay.var("v")
    let = relay.Let(v, relay.const(1.0), v)
    assert let.var.same_as(v) and let.body.same_as(v)
    cond = relay.var("c", "bool")
    iff = relay.If(cond, x, x)
    assert iff.cond.same_as(cond) and iff.true_branch.same_as(x)
    f = relay.Function([x], x, ret_type=t, attrs={"Primitive": 1})
    assert f.ret_type == t and f.attrs["Primitive"] == 1
    call = relay.Call(relay.GlobalVar("g"), [x])
    assert call.op.name_hint == "g"
    tt = relay.TupleType([t, t])
    assert tt.fields == [t, t]
    ft = relay.FuncType([t], t)
    assert ft.ret_type == t and ft.arg_types == [t]


def test_const_from_lists_buffers_numpy():
    c = relay.const([[1, 2], [3, 4]])
    assert c.data.dtype == "int32" and c.data.shape == (2, 2) and c.data.tolist() == [[1, 2], [3, 4]]
    f = relay.const(2.5)
    assert f.data.dtype == "float32" and f.data.shape == () and f.data.tolist() == 2.5
    b = relay.const([True, False])
    assert b.data.dtype == "bool" and b.data.tolist() == [True, False]
    h = relay.const([1.5, -2.0], "float16")
    assert h.data.tolist() == [1.5, -2.0]
    bf = relay.const([1.0, 3.0], "bfloat16")
    assert bf.data.dtype == "bfloat16" and bf.data.tolist() == [1.0, 3.0]
    buf = relay.const(array.array("d", [1.0, 2.0, 3.0]))
    assert buf.data.dtype == "float64" and buf.data.tolist() == [1.0, 2.0, 3.0]
    raw = relay.const(bytes([1, 0, 0, 0, 2, 0, 0, 0]), "int32")
    assert raw.data.tolist() == [1, 2]
    with pytest.raises(ValueError):
        relay.const([[1, 2], [3]])
    np = pytest.importorskip("numpy")
    arr = np.arange(6, dtype="int64").reshape(2, 3)
    c = relay.const(arr)
    assert c.data.dtype == "int64" and (c.data.numpy() == arr).all()
    assert c.data == passage.nd.array(arr)
    assert relay.const(np.float32(3)).data.dtype == "float32"


def test_every_registered_op_has_a_helper():
    lib = _ffi.lib
    n = lib.psg_op_count()
    assert n > 50
    x = relay.var("x", shape=(2,))
    for i in range(n):
        name = _ffi.s(lib.psg_op_name_at(i))
        ns = relay
        for part in name.split(".")[:-1]:
            ns = getattr(ns, part)
        helper = getattr(ns, name.split(".")[-1])
        assert callable(helper), name
        call = helper(x)
        # Ops with several outputs give a TupleWrapper (nn.dropout its first item), as in TVM.
        if isinstance(call, relay.TupleWrapper):
            call = call.astuple()
        elif name == "nn.dropout":
            call = call.tuple_value
        assert isinstance(call, relay.Call) and call.op.name == name
        assert relay.op.get(name).name == name


def test_op_helpers_with_attrs():
    data = relay.var("data", shape=(1, 3, 8, 8))
    weight = relay.var("weight", shape=(4, 3, 3, 3))
    conv = relay.nn.conv2d(data, weight, strides=(2, 2), padding=(1, 1), channels=4,
                           kernel_size=(3, 3), out_dtype="float32")
    assert conv.op.name == "nn.conv2d"
    assert conv.attrs.strides == [2, 2] and conv.attrs["channels"] == 4
    assert conv.attrs.out_dtype == "float32"
    mod = passage.IRModule.from_expr(conv)
    assert [p.name_hint for p in mod["main"].params] == ["data", "weight"]
    typed = relay.transform.InferType()(mod)
    assert typed["main"].body.checked_type.shape == (1, 4, 4, 4)
    assert relay.op.nn.conv2d is relay.nn.conv2d
    cat = relay.concatenate([data, data], 1)  # a list input becomes a Tuple; then attrs by position
    assert isinstance(cat.args[0], relay.Tuple) and cat.attrs.axis == 1
    with pytest.raises(TypeError, match="unexpected attribute"):
        relay.nn.conv2d(data, weight, no_such_attr=1)
    with pytest.raises(TypeError):
        relay.abs(data, 3)


def test_operator_sugar_and_infer_type():
    x = relay.var("x", shape=(3,))
    e = (x + x) * 2.0 - x / x
    assert e.op.name == "subtract"
    mod = relay.transform.InferType()(passage.IRModule.from_expr(e))
    assert str(mod["main"].body.checked_type) == "Tensor[(3,), float32]"
    with pytest.raises(ValueError, match="InferType"):
        relay.abs(x).checked_type  # a new node has no type until InferType runs


def test_structural_equal_and_hash():
    def make():
        a = relay.var("a", shape=(2,))
        return relay.Function([a], relay.add(a, relay.const([1.0, 2.0])))
    f1, f2 = make(), make()
    assert not f1.same_as(f2) and f1 != f2
    assert passage.structural_equal(f1, f2)
    assert passage.structural_hash(f1) == passage.structural_hash(f2)
    a = relay.var("a", shape=(2,))
    f3 = relay.Function([a], relay.add(a, relay.const([1.0, 3.0])))
    assert not passage.structural_equal(f1, f3)
    with pytest.raises(ValueError, match="Constant"):
        passage.assert_structural_equal(f1, f3)
    passage.assert_structural_equal(f1, f2)
    # free variables are equal only to themselves
    assert not passage.structural_equal(relay.var("z"), relay.var("z"))
    assert passage.ir.structural_equal is passage.structural_equal


def test_let_scope_builder():
    sb = relay.ScopeBuilder()
    x = relay.var("x", shape=(2,))
    t = sb.let("t", relay.abs(x))
    sb.ret(relay.log(t))
    body = sb.get()
    assert isinstance(body, relay.Let) and body.var.same_as(t)
    assert [v.name_hint for v in relay.analysis.free_vars(body)] == ["x"]


def test_module_attrs():
    mod = passage.IRModule(attrs={"executor": "graph", "opt": [1, 2]})
    assert mod.attrs["executor"] == "graph" and mod.attrs.opt == [1, 2]
    mod2 = mod.with_attr("extra", 1.5)
    assert mod2.attrs["extra"] == 1.5 and "extra" not in mod.attrs
    assert not passage.structural_equal(mod, mod2)


def test_tvm_module_aliases():
    from passage.ir import transform as ir_transform
    from passage.ir.instrument import PassTimingInstrument
    assert ir_transform is passage.transform
    assert PassTimingInstrument is passage.instrument.PassTimingInstrument
    assert relay.transform.PassContext is passage.transform.PassContext
