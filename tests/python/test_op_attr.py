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


# AlterOpLayout (what TVM's test_pass_alter_op_layout.py checks) ------------------------------

def _alter_to(data_layout, kernel_layout=None):
    def alter_conv2d(attrs, inputs, tinfos, out_type):
        data, weight = inputs
        new_attrs = dict(attrs)
        new_attrs["data_layout"] = data_layout
        if kernel_layout:
            new_attrs["kernel_layout"] = kernel_layout
        return relay.nn.conv2d(data, weight, **new_attrs)
    return alter_conv2d


def test_alter_same_layout_replaces_the_call():
    seen = []

    def alter_conv2d(attrs, inputs, tinfos, out_type):
        seen.append(([str(t) for t in tinfos], str(out_type)))
        data, weight = inputs
        return relay.nn.conv2d(data, relay.multiply(weight, relay.const(2.0)), **attrs)

    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", alter_conv2d):
        got = _run(_conv_relu(), [transform.AlterOpLayout()])
    x = relay.var("x", shape=(1, 4, 8, 8))
    w = relay.var("w", shape=(4, 4, 3, 3))
    y = relay.nn.conv2d(x, relay.multiply(w, relay.const(2.0)), channels=4, kernel_size=(3, 3),
                        padding=(1, 1))
    passage.ir.assert_structural_equal(got, _typed(relay.Function([x, w], relay.nn.relu(y))))
    assert seen == [(["Tensor[(1, 4, 8, 8), float32]", "Tensor[(4, 4, 3, 3), float32]"],
                     "Tensor[(1, 4, 8, 8), float32]")]


def test_alter_none_keeps_and_no_hooks_is_identity():
    called = []
    x = relay.var("x", shape=(1, 4, 8, 8))
    f = relay.Function([x], relay.nn.global_max_pool2d(x))
    with TempOpAttr("nn.global_max_pool2d", "FTVMAlterOpLayout", lambda *a: called.append(1)):
        got = _run(f, [transform.AlterOpLayout()])
    passage.ir.assert_structural_equal(got, _typed(f))
    assert called == [1]
    mod = transform.InferType()(passage.IRModule.from_expr(_conv_relu()))
    assert transform.AlterOpLayout()(mod)["main"].same_as(mod["main"])


def test_alter_blocked_layout_carried_through():
    """NCHW16c from the hook: data and weight transformed in, the bias
    expanded and transformed, relu and max_pool2d kept in NCHW16c, one
    transform back before batch_flatten."""
    def before():
        x = relay.var("x", shape=(1, 32, 8, 8))
        w = relay.var("w", shape=(32, 32, 3, 3))
        b = relay.var("b", shape=(32,))
        y = relay.nn.conv2d(x, w, channels=32, kernel_size=(3, 3), padding=(1, 1))
        y = relay.nn.bias_add(y, b)
        y = relay.nn.max_pool2d(relay.nn.relu(y), pool_size=(2, 2))
        return relay.Function([x, w, b], relay.nn.batch_flatten(y))

    def expected():
        x = relay.var("x", shape=(1, 32, 8, 8))
        w = relay.var("w", shape=(32, 32, 3, 3))
        b = relay.var("b", shape=(32,))
        y = relay.nn.conv2d(relay.layout_transform(x, "NCHW", "NCHW16c"),
                            relay.layout_transform(w, "OIHW", "OIHW16i"), channels=32,
                            kernel_size=(3, 3), padding=(1, 1), data_layout="NCHW16c",
                            kernel_layout="OIHW16i")
        bias = relay.expand_dims(relay.expand_dims(b, axis=1, num_newaxis=2), axis=0, num_newaxis=1)
        y = relay.add(y, relay.layout_transform(bias, "NCHW", "NCHW16c"))
        y = relay.nn.max_pool2d(relay.nn.relu(y), pool_size=(2, 2), layout="NCHW16c")
        y = relay.layout_transform(y, "NCHW16c", "NCHW")
        return relay.Function([x, w, b], relay.nn.batch_flatten(y))

    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", _alter_to("NCHW16c", "OIHW16i")):
        got = _run(before(), [transform.CanonicalizeOps(), transform.AlterOpLayout()])
    want = _typed(expected())
    passage.ir.assert_structural_equal(got, want)
    assert str(got.body.args[0].args[0].checked_type) == "Tensor[(1, 2, 7, 7, 16), float32]"


def test_alter_shared_input_transformed_once():
    """Two convs of one input in NCHW16c: one layout_transform of x (TVM's
    transform memo), the sum stays blocked."""
    x = relay.var("x", shape=(1, 16, 8, 8))
    w1, w2 = relay.var("w1", shape=(16, 16, 3, 3)), relay.var("w2", shape=(16, 16, 1, 1))
    y = relay.nn.conv2d(x, w1, channels=16, kernel_size=(3, 3), padding=(1, 1))
    z = relay.nn.conv2d(x, w2, channels=16, kernel_size=(1, 1))
    f = relay.Function([x, w1, w2], relay.nn.global_max_pool2d(relay.add(y, z)))
    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", _alter_to("NCHW16c")):
        got = _run(f, [transform.AlterOpLayout()])
    text = got.astext()
    assert text.count('dst_layout="NCHW16c"') == 1, text
    assert text.count('src_layout="NCHW16c"') == 1, text
    assert 'nn.global_max_pool2d(%3, layout="NCHW16c")' in text, text


def test_blocked_conv2d_type_and_weight_inference():
    x = relay.var("x", shape=(1, 4, 7, 7, 16))
    w = relay.var("w")
    y = relay.nn.conv2d(x, w, channels=64, kernel_size=(3, 3), padding=(1, 1), data_layout="NCHW16c",
                        kernel_layout="OIHW16i")
    f = _typed(relay.Function([x, w], y))
    assert str(f.body.checked_type) == "Tensor[(1, 4, 7, 7, 16), float32]"
    assert str(f.params[1].checked_type) == "Tensor[(64, 4, 3, 3, 16), float32]"


def test_failing_alter_hook_names_the_op():
    def alter(attrs, inputs, tinfos, out_type):
        raise KeyError("layout")

    mod = transform.InferType()(passage.IRModule.from_expr(_conv_relu()))
    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", alter):
        with pytest.raises(KeyError) as info:
            transform.AlterOpLayout()(mod)
    assert "FTVMAlterOpLayout of op 'nn.conv2d' failed" in str(info.value.__cause__)


def test_convert_layout_calls_the_convert_hook():
    seen = []

    def convert_conv2d(attrs, inputs, tinfos, desired_layouts):
        seen.append(list(desired_layouts))
        data, weight = inputs
        new_attrs = dict(attrs)
        new_attrs["data_layout"], new_attrs["kernel_layout"] = "NHWC", "HWIO"
        return relay.nn.conv2d(data, weight, **new_attrs)

    with TempOpAttr("nn.conv2d", "FTVMConvertOpLayout", convert_conv2d):
        got = _run(_conv_relu(), [transform.ConvertLayout({"nn.conv2d": ["NHWC", "default"]})])
    plain = _run(_conv_relu(), [transform.ConvertLayout({"nn.conv2d": ["NHWC", "HWIO"]})])
    passage.ir.assert_structural_equal(got, plain)
    assert seen == [["NHWC", "default"]]


def _conv_then(op, shape=(1, 32, 8, 8), layout="NCHW"):
    x = relay.var("x", shape=shape)
    w = relay.var("w")
    y = relay.nn.conv2d(x, w, channels=32, kernel_size=(3, 3), padding=(1, 1), data_layout=layout,
                        kernel_layout="OIHW" if layout == "NCHW" else "HWIO")
    return relay.Function([x, w], op(y))


def _blocked_conv(x, w, layout="NCHW", blocked="NCHW16c"):
    return relay.nn.conv2d(relay.layout_transform(x, layout, blocked), w, channels=32, kernel_size=(3, 3),
                           padding=(1, 1), data_layout=blocked,
                           kernel_layout="OIHW" if layout == "NCHW" else "HWIO")


def _alter_blocked(op, want_op, layout="NCHW", blocked="NCHW16c", back=None, shape=(1, 32, 8, 8)):
    with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", _alter_to(blocked)):
        got = _run(_conv_then(op, shape, layout), [transform.AlterOpLayout()])
    x, w = relay.var("x", shape=shape), relay.var("w")
    y = want_op(_blocked_conv(x, w, layout, blocked))
    want = _typed(relay.Function([x, w], relay.layout_transform(y, back or blocked, layout)))
    passage.ir.assert_structural_equal(got, want)


def test_alter_blocked_pad_sum_strided_slice():
    """TVM's rules for a blocked input: pad gets [0, 0] for the inner axis,
    sum over C reduces both parts (NCHW1c with keepdims), strided_slice of
    the split axis divides begin and end by the factor."""
    pw = ((0, 0), (0, 0), (1, 1), (1, 1))
    _alter_blocked(lambda y: relay.nn.pad(y, pad_width=pw),
                   lambda y: relay.nn.pad(y, pad_width=pw + ((0, 0),)))
    _alter_blocked(lambda y: relay.sum(y, axis=1, keepdims=True),
                   lambda y: relay.sum(y, axis=[1, 4], keepdims=True), back="NCHW1c")
    _alter_blocked(lambda y: relay.strided_slice(y, begin=[0, 16], end=[1, 32], strides=[1, 1], axes=[0, 3]),
                   lambda y: relay.strided_slice(y, begin=[0, 4], end=[1, 8], strides=[1, 1], axes=[0, 3]),
                   layout="NHWC", blocked="NHWC4c", shape=(1, 8, 8, 32))


def test_alter_blocked_rules_that_must_not_fire():
    """Padding the split axis, a slice the factor does not divide and a sum
    over C and H (the sum order would change) read NCHW back."""
    def check(op):
        with TempOpAttr("nn.conv2d", "FTVMAlterOpLayout", _alter_to("NCHW16c")):
            got = _run(_conv_then(op), [transform.AlterOpLayout()])
        assert got.body.args[0].op.name == "layout_transform"
        assert got.body.args[0].attrs["src_layout"] == "NCHW16c"
    check(lambda y: relay.nn.pad(y, pad_width=((0, 0), (1, 1), (0, 0), (0, 0))))
    check(lambda y: relay.strided_slice(y, begin=[0, 8], end=[1, 32]))
    check(lambda y: relay.sum(y, axis=[1, 2], keepdims=True))
