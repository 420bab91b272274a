"""Ops registered from Python (passage.relay.op_registry over
include/passage/op_register.h): what TVM's custom-op tests in
test_type_infer.py and test_ir_op.py check, in our words — a registered op
typed by a library relation or a Python one, the Python relation's
arguments, an exception it raises reaching the caller, a second
registration refused, and the properties read back."""

import pytest

import passage
from passage import relay
from passage.relay.op import op as _op


def _typed(expr):
    mod = passage.IRModule.from_expr(expr)
    return relay.transform.InferType()(mod)["main"]


def _let_then_add(op_name, shape=(10, 10)):
    """fn(%x) { let %t1 = OP(%x); add(%t1, %x) }"""
    tp = relay.TensorType(shape, "float32")
    x = relay.var("x", tp)
    sb = relay.ScopeBuilder()
    t1 = sb.let("t1", relay.Call(_op.get(op_name), [x]))
    sb.ret(relay.add(t1, x))
    return relay.Function([x], sb.get()), tp


def test_library_relation_types_the_call():
    _op.register("opreg_identity", "the identity, for the type checker")
    op = _op.get("opreg_identity")
    op.set_num_inputs(1)
    op.add_argument("data", "Tensor", "the input")
    op.add_type_rel("Identity")
    op.set_support_level(2)
    _op.register_pattern("opreg_identity", _op.OpPattern.ELEMWISE)
    _op.register_stateful("opreg_identity", False)
    f, tp = _let_then_add("opreg_identity")
    assert _typed(f).checked_type == relay.FuncType([tp], tp)
    assert op.name == "opreg_identity"
    assert op.num_inputs == 1 and op.support_level == 2
    assert [a.name for a in op.arguments] == ["data"]
    assert op.get_attr("TOpPattern") == _op.OpPattern.ELEMWISE
    assert op.get_attr("TOpIsStateful") is False
    # The call prints and compares as a built-in op's.
    x = relay.var("x", shape=(2,))
    assert "opreg_identity(%x)" in str(relay.Call(op, [x]))
    assert passage.ir.structural_equal(relay.Call(op, [x]), relay.Call(_op.get("opreg_identity"), [x]))


def test_broadcast_relation():
    _op.register("opreg_badd")
    op = _op.get("opreg_badd")
    op.set_num_inputs(2)
    op.add_type_rel("Broadcast")
    x, y = relay.var("x", shape=(10, 4)), relay.var("y", shape=(5, 10, 1))
    f = _typed(relay.Function([x, y], relay.Call(op, [x, y])))
    assert f.checked_type.ret_type == relay.TensorType((5, 10, 4), "float32")
    # The text parser knows it (AnnotateSpans prints and parses back, as TVM's).
    mod = passage.IRModule.from_expr(relay.Function([x, y], relay.Call(op, [x, y])))
    again = relay.parse(mod.astext())
    assert passage.ir.structural_equal(again, relay.transform.InferType()(mod))
    assert again["main"].checked_type.ret_type == relay.TensorType((5, 10, 4), "float32")
    assert relay.transform.AnnotateSpans()(mod)["main"].body.op.name == "opreg_badd"
    # Its count is checked.
    with pytest.raises(passage.error.PassTypeError, match="'opreg_badd' takes 2 arguments, got 1"):
        _typed(relay.Function([x], relay.Call(op, [x])))


def test_python_relation_gets_types_and_attrs():
    seen = []

    def rel(arg_types, attrs):
        seen.append((list(arg_types), attrs))
        return relay.TensorType(arg_types[0].shape, "float16")

    _op.register("opreg_half")
    op = _op.get("opreg_half")
    op.set_attrs_type_key("DictAttrs")
    op.add_type_rel("opreg_half_rel", rel)
    assert op.attrs_type_key == "DictAttrs"
    x = relay.var("x", shape=(3, 4))
    f = _typed(relay.Function([x], relay.Call(op, [x])))
    assert f.checked_type.ret_type == relay.TensorType((3, 4), "float16")
    assert seen[0][0] == [relay.TensorType((3, 4), "float32")] and seen[0][1] is None
    # With attributes, the relation gets them as DictAttrs.
    seen.clear()
    _typed(relay.Function([x], relay.Call(op, [x], passage.ir.make_node("DictAttrs", k=3))))
    assert isinstance(seen[0][1], passage.ir.DictAttrs) and seen[0][1]["k"] == 3


def test_python_relation_errors():
    def raises(arg_types, attrs):
        assert len(arg_types) == 2, "type relation arg number mismatch!"

    def gives_none(arg_types, attrs):
        return None

    def gives_junk(arg_types, attrs):
        return 42

    for name, fn in [("opreg_raises", raises), ("opreg_none", gives_none), ("opreg_junk", gives_junk)]:
        _op.register(name)
        _op.get(name).add_type_rel(name + "_rel", fn)
    # The very exception the relation raised.
    with pytest.raises(AssertionError, match="arg number mismatch"):
        _typed(_let_then_add("opreg_raises")[0])
    with pytest.raises(passage.error.PassTypeError, match="opreg_none_rel gave no type"):
        _typed(_let_then_add("opreg_none")[0])
    with pytest.raises(TypeError, match="not a Type or None"):
        _typed(_let_then_add("opreg_junk")[0])


def test_register_twice_and_builtin_ops():
    _op.register("opreg_once")
    with pytest.raises(passage.error.TVMError, match="Operator opreg_once is registered before"):
        _op.register("opreg_once")
    with pytest.raises(passage.error.TVMError, match="registered before"):
        _op.register("nn.relu")
    with pytest.raises(passage.error.TVMError, match="built in"):
        relay.op.get("nn.relu").set_num_inputs(3)
    # Built-in ops answer the same queries.
    relu = relay.op.get("nn.relu")
    assert relu.num_inputs == 1
    assert relu.get_attr("TOpPattern") == _op.OpPattern.ELEMWISE
    assert relay.op.get("add").get_attr("TOpPattern") == _op.OpPattern.BROADCAST
    assert relay.op.get("random.uniform").get_attr("TOpIsStateful") is True
