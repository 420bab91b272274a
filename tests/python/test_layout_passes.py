"""ConvertLayout and structural equality as TVM's test_pass_convert_op_layout.py
checks them: layout attributes at their defaults compare equal to absent
ones, pools named in desired_layouts get out_layout, batch_norm /
l2_normalize axes follow a moved channel, conv2d_transpose converts."""

import passage
from passage import relay
from passage.relay import transform


def _run(f, passes):
    mod = passage.IRModule.from_expr(f)
    with passage.transform.PassContext(opt_level=3):
        return passage.transform.Sequential(passes)(mod)["main"]


def _typed(f):
    return _run(f, [transform.InferType()])


def _to_nchw(f):
    return _run(f, [transform.ConvertLayout({"nn.conv2d": ["NCHW", "default"]})])


def _nhwc_conv(x, w):
    return relay.nn.conv2d(x, w, channels=8, kernel_size=(3, 3), padding=(1, 1), data_layout="NHWC",
                           kernel_layout="HWIO")


def test_default_layout_attrs_equal_absent_ones():
    x, w = relay.var("x", shape=(1, 4, 8, 8)), relay.var("w", shape=(4, 4, 3, 3))
    plain = relay.nn.conv2d(x, w, kernel_size=(3, 3))
    spelled = relay.nn.conv2d(x, w, kernel_size=(3, 3), data_layout="NCHW", kernel_layout="OIHW", out_layout="")
    other = relay.nn.conv2d(relay.layout_transform(x, "NCHW", "NHWC"), w, kernel_size=(3, 3),
                            data_layout="NHWC")
    assert passage.ir.structural_equal(plain, spelled)
    assert passage.ir.structural_hash(plain) == passage.ir.structural_hash(spelled)
    assert not passage.ir.structural_equal(plain, other)
    pool = relay.nn.max_pool2d(x, pool_size=(2, 2))
    assert passage.ir.structural_equal(pool, relay.nn.max_pool2d(x, pool_size=(2, 2), layout="NCHW"))
    assert not passage.ir.structural_equal(pool, relay.nn.max_pool2d(x, pool_size=(2, 2), layout="NCHW",
                                                                     out_layout="NCHW"))


def test_pool_named_in_desired_layouts_gets_out_layout():
    x, w = relay.var("x", shape=(1, 8, 8, 4)), relay.var("w", shape=(3, 3, 4, 8))
    y = relay.nn.max_pool2d(relay.nn.relu(_nhwc_conv(x, w)), pool_size=(2, 2), layout="NHWC")
    got = _run(relay.Function([x, w], y),
               [transform.ConvertLayout({"nn.conv2d": ["NCHW", "default"], "nn.max_pool2d": ["NHWC"]})])
    assert got.body.attrs["out_layout"] == "NHWC"
    assert got.body.args[0].op.name == "layout_transform"


def test_batch_norm_and_l2_normalize_follow_the_channel():
    x, w = relay.var("x", shape=(1, 8, 8, 4)), relay.var("w", shape=(3, 3, 4, 8))
    g, b, m, v = (relay.var(n, shape=(8,)) for n in ("g", "b", "m", "v"))
    y = relay.nn.batch_norm(_nhwc_conv(x, w), g, b, m, v, axis=3)[0]
    y = relay.nn.l2_normalize(relay.nn.relu(y), eps=0.001, axis=[2, 3])
    got = _to_nchw(relay.Function([x, w, g, b, m, v], y))
    l2 = got.body.args[0]
    assert got.body.op.name == "layout_transform" and l2.op.name == "nn.l2_normalize"
    assert list(l2.attrs["axis"]) == [3, 1]
    bn = l2.args[0].args[0].tuple_value
    assert bn.op.name == "nn.batch_norm" and bn.attrs["axis"] == 1


def test_conv2d_transpose_converts_with_default_kernel():
    x, w = relay.var("x", shape=(1, 8, 8, 4)), relay.var("w", shape=(3, 3, 4, 4))
    y = relay.nn.conv2d_transpose(x, w, channels=4, kernel_size=(3, 3), padding=(1, 1), data_layout="NHWC",
                                  kernel_layout="HWIO")
    got = _run(relay.Function([x, w], y),
               [transform.ConvertLayout({"nn.conv2d_transpose": ["NCHW", "default"]})])
    xx, ww = relay.var("x", shape=(1, 8, 8, 4)), relay.var("w", shape=(3, 3, 4, 4))
    want = relay.nn.conv2d_transpose(relay.layout_transform(xx, "NHWC", "NCHW"),
                                     relay.layout_transform(ww, "HWIO", "IOHW"), channels=4, kernel_size=(3, 3),
                                     padding=(1, 1))
    want = relay.Function([xx, ww], relay.layout_transform(want, "NCHW", "NHWC"))
    passage.ir.assert_structural_equal(got, _typed(want))


def test_post_order_visit_sees_each_node_once_children_first():
    x, w = relay.var("x", shape=(1, 8, 8, 4)), relay.var("w", shape=(3, 3, 4, 8))
    g, b, m, v = (relay.var(n, shape=(8,)) for n in ("g", "b", "m", "v"))
    y = relay.nn.batch_norm(_nhwc_conv(x, w), g, b, m, v, axis=3)[0]
    got = _to_nchw(relay.Function([x, w, g, b, m, v], y))
    seen = []
    relay.analysis.post_order_visit(got, seen.append)
    assert isinstance(seen[-1], relay.Function)
    names = [n.name for n in seen if isinstance(n, passage.ir.Op)]
    assert names.count("layout_transform") == 1  # the op node is shared: visited once
    back = [n for n in seen if isinstance(n, relay.Call) and n.op.name == "layout_transform"
            and n.attrs["src_layout"] == "NCHW"]
    assert len(back) == 1 and back[0].attrs["dst_layout"] == "NHWC"
    pos = {id(n): i for i, n in enumerate(seen)}
    assert all(pos[id(a)] < pos[id(c)] for c in seen if isinstance(c, relay.Call) for a in c.args if id(a) in pos)


def test_layer_norm_strided_slice_and_transpose_follow_the_layout():
    x, w = relay.var("x", shape=(1, 8, 8, 4)), relay.var("w", shape=(3, 3, 4, 8))
    g, b = relay.var("g", shape=(8,)), relay.var("b", shape=(8,))
    y = relay.nn.layer_norm(_nhwc_conv(x, w), g, b, axis=3)
    y = relay.strided_slice(y, begin=[0, 1], end=[1, -1, 6], strides=[1, 2])
    y = relay.transpose(y, axes=[0, 3, 1, 2])
    got = _to_nchw(relay.Function([x, w, g, b], y))
    assert got.body.op.name == "transpose" and list(got.body.attrs["axes"]) == [0, 1, 2, 3]
    sl = got.body.args[0]
    assert list(sl.attrs["begin"]) == [0, 0, 1, 0] and list(sl.attrs["end"]) == [1, 8, -1, 6]
    assert list(sl.attrs["strides"]) == [1, 1, 2, 1]
    assert sl.args[0].op.name == "nn.layer_norm" and sl.args[0].attrs["axis"] == 1


def test_resize2d_takes_size_first_and_converts():
    x = relay.var("x", shape=(1, 2, 4, 4))
    y = relay.image.resize2d(x, (8, 8))
    assert list(y.attrs["size"]) == [8, 8]
    got = _run(relay.Function([x], y), [transform.ConvertLayout({"image.resize2d": ["NHWC"]})])
    assert got.body.op.name == "layout_transform" and got.body.args[0].attrs["layout"] == "NHWC"


def test_pad_value_defaults_to_a_zero_constant():
    x = relay.var("x", shape=(1, 2, 4, 4))
    y = relay.nn.pad(x, pad_width=((0, 0), (0, 0), (1, 1), (1, 1)))
    assert len(y.args) == 2 and y.args[1].data.numpy() == 0
    assert str(_typed(relay.Function([x], y)).body.checked_type) == "Tensor[(1, 2, 6, 6), float32]"


def test_layout_config_skips_listed_conv_layers():
    x = relay.var("x", shape=(1, 8, 8, 4))
    w1, w2 = relay.var("w1", shape=(3, 3, 4, 8)), relay.var("w2", shape=(3, 3, 8, 8))
    y = relay.nn.relu(_nhwc_conv(x, w1))
    y = relay.nn.conv2d(y, w2, channels=8, kernel_size=(3, 3), padding=(1, 1), data_layout="NHWC",
                        kernel_layout="HWIO")
    f = relay.Function([x, w1, w2], y)
    with transform.LayoutConfig(skip_layers=[0]) as cfg:
        got = _to_nchw(f)
        assert cfg.skip_counter == 2
    assert relay.op.get("nn.conv2d").get_attr("FTVMConvertOpLayout") is None  # removed on exit
    second = got.body.args[0]
    assert second.op.name == "nn.conv2d" and second.attrs["data_layout"] == "NCHW"
    relu = second.args[0].args[0]
    first = relu.args[0]
    assert relu.op.name == "nn.relu" and first.attrs["data_layout"] == "NHWC"
    whole = _to_nchw(f)  # without the block both convert: one transform in, one out
    assert whole.body.args[0].op.name == "nn.conv2d" and whole.body.args[0].args[0].op.name == "nn.relu"
