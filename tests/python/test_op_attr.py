"""Op attributes set from Python (include/passage/op_attr.h, passage.relay.
op_attr) and the passes that call them: TVM's priority levels, TempOpAttr's
restore, Legalize's hooks (what TVM's test_pass_legalize.py checks), and a
failing hook failing the pass with the op named and the user's exception."""

import pytest

import passage
from passage import relay
from passage.relay import transform
from passage.relay.testing.temp_op_attr import TempOpAttr


def _run(expr, passes):
    mod = passage.IRModule.from_expr(expr)
    with passage.transform.PassContext(opt_level=3):
        mod = passage.transform.Sequential(passes)(mod)
    return mod["main"]


def _typed(expr):
    return _run(expr, [transform.InferType()])


def _conv_relu():
    x = relay.var("x", shape=(1, 4, 8, 8))
    w = relay.var("w", shape=(4, 4, 3, 3))
    y = relay.nn.relu(relay.nn.conv2d(x, w, channels=4, kernel_size=(3, 3), padding=(1, 1)))
    return relay.Function([x, w], y)


def test_levels_follow_tvm():
    conv = relay.op.get("nn.conv2d")
    first, second, low = (lambda *a: None), (lambda *a: None), (lambda *a: None)
    assert conv.get_attr("FTVMLegalize") is None
    try:
        relay.op.register_legalize("nn.conv2d", first, level=10)
        assert conv.get_attr("FTVMLegalize") is first
        with pytest.raises(passage.error.InvalidArgumentError, match="same plevel=10"):
            relay.op.register_legalize("nn.conv2d", second, level=10)
        relay.op.register_legalize("nn.conv2d", low, level=5)   # a lower level is dropped
        assert conv.get_attr("FTVMLegalize") is first
        relay.op.register_legalize("nn.conv2d", second, level=11)  # a higher one wins
        assert conv.get_attr("FTVMLegalize") is second
    finally:
        conv.reset_attr("FTVMLegalize")
    assert conv.get_attr("FTVMLegalize") is None


def test_decorator_form_and_unknown_op():
    try:
        @relay.op.register_legalize("nn.relu", level=12)
        def legal(attrs, inputs, types):
            return None
        assert relay.op.get("nn.relu").get_attr("FTVMLegalize") is legal
    finally:
        relay.op.get("nn.relu").reset_attr("FTVMLegalize")
    with pytest.raises(passage.error.InvalidArgumentError, match="unknown op 'nn.nope'"):
        passage.ir.register_op_attr("nn.nope", "FTVMLegalize", lambda *a: None)


def test_temp_op_attr_restores():
    relu = relay.op.get("nn.relu")
    outer, inner = (lambda *a: None), (lambda *a: None)
    with TempOpAttr("nn.relu", "FTVMLegalize", outer):
        with TempOpAttr("nn.relu", "FTVMLegalize", inner):
            assert relu.get_attr("FTVMLegalize") is inner
        assert relu.get_attr("FTVMLegalize") is outer
    assert relu.get_attr("FTVMLegalize") is None


def test_legalize_replaces_calls_post_order():
    seen = []

    def legal_conv(attrs, inputs, types):
        data, weight = inputs
        seen.append([str(t) for t in types])
        return relay.nn.conv2d(data, relay.multiply(weight, relay.const(2.0)), **attrs)

    def legal_relu(attrs, inputs, types):
        # the argument is already the rewritten conv2d
        assert isinstance(inputs[0].args[1], relay.Call)
        return relay.nn.relu(relay.add(relay.const(0.0), inputs[0]))

    with TempOpAttr("nn.conv2d", "FTVMLegalize", legal_conv), \
            TempOpAttr("nn.relu", "FTVMLegalize", legal_relu):
        got = _run(_conv_relu(), [transform.Legalize()])
    x = relay.var("x", shape=(1, 4, 8, 8))
    w = relay.var("w", shape=(4, 4, 3, 3))
    y = relay.nn.conv2d(x, relay.multiply(w, relay.const(2.0)), channels=4, kernel_size=(3, 3),
                        padding=(1, 1))
    want = _typed(relay.Function([x, w], relay.nn.relu(relay.add(relay.const(0.0), y))))
    passage.ir.assert_structural_equal(got, want)
    # the types of the original arguments, then the call's own
    assert seen == [["Tensor[(1, 4, 8, 8), float32]", "Tensor[(4, 4, 3, 3), float32]",
                     "Tensor[(1, 4, 8, 8), float32]"]]


def test_legalize_none_keeps_and_tuple_input():
    calls = []

    def legal_concat(attrs, inputs, types):
        calls.append((len(inputs), type(inputs[0]).__name__, [type(t).__name__ for t in types]))
        return None

    x, y = relay.var("x", shape=(1, 2)), relay.var("y", shape=(1, 3))
    f = relay.Function([x, y], relay.concatenate([x, y], axis=1))
    with TempOpAttr("concatenate", "FTVMLegalize", legal_concat):
        got = _run(f, [transform.Legalize()])
    passage.ir.assert_structural_equal(got, _typed(f))
    assert calls == [(1, "Tuple", ["TupleType", "TensorType"])]


def test_legalize_without_hooks_is_the_same_function():
    mod = transform.InferType()(passage.IRModule.from_expr(_conv_relu()))
    assert transform.Legalize()(mod)["main"].same_as(mod["main"])


def test_legalize_custom_attr_name():
    def legal_relu(attrs, inputs, types):
        return relay.sigmoid(inputs[0])

    with TempOpAttr("nn.relu", "FMyLegalize", legal_relu):
        plain = _run(_conv_relu(), [transform.Legalize()])
        custom = _run(_conv_relu(), [transform.Legalize(legalize_map_attr_name="FMyLegalize")])
    assert plain.body.op.name == "nn.relu"
    assert custom.body.op.name == "sigmoid"


def test_failing_hook_fails_the_pass_and_keeps_the_input():
    class Boom(Exception):
        pass

    def legal_relu(attrs, inputs, types):
        raise Boom("no relu today")

    mod = transform.InferType()(passage.IRModule.from_expr(_conv_relu()))
    before = mod["main"]
    with TempOpAttr("nn.relu", "FTVMLegalize", legal_relu):
        with pytest.raises(Boom, match="no relu today") as info:
            transform.Legalize()(mod)
    assert "in FTVMLegalize of op 'nn.relu'" in "".join(getattr(info.value, "__notes__", []))
    cause = str(info.value.__cause__)
    assert "FTVMLegalize of op 'nn.relu' failed" in cause
    assert mod["main"].same_as(before)


def test_hook_must_return_a_call():
    def legal_relu(attrs, inputs, types):
        return inputs[0]  # a Var: TVM requires a call

    x = relay.var("x", shape=(2,))
    with TempOpAttr("nn.relu", "FTVMLegalize", legal_relu):
        with pytest.raises(passage.error.PassError, match="can only replace the operator with another call"):
            _run(relay.Function([x], relay.nn.relu(x)), [transform.Legalize()])
