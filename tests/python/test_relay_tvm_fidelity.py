"""What TVM's own Relay pass tests check (issue 18, items 5 and 6), as our
own tests: SimplifyExpr's TVM rewrites, graph structural equality, the new
ops' Python names, ConvertLayout's positional argument, pool defaults."""

import passage
from passage import relay


def _opt(expr, p):
    mod = passage.IRModule.from_expr(expr)
    mod = relay.transform.InferType()(mod)
    return p(mod)["main"].body


def _typed(expr):
    return _opt(expr, relay.transform.InferType())


def test_zeros_like_identity_and_concretize():
    x = relay.var("x", shape=(2, 3))
    assert passage.ir.structural_equal(_opt(relay.zeros_like(x) + x, relay.transform.SimplifyExpr()),
                                       _typed(x))
    got = _opt(relay.ones_like(x), relay.transform.SimplifyExpr())
    assert passage.ir.structural_equal(got, _typed(relay.ones((2, 3), "float32")))
    got = _opt(relay.cast_like(x, relay.var("y", shape=(4,), dtype="int8")), relay.transform.SimplifyExpr())
    assert passage.ir.structural_equal(got, _typed(relay.cast(x, "int8")))


def test_full_elementwise_keeps_broadcast():
    x = relay.var("x", shape=(3,))
    grow = x * relay.ones((2, 3), "float32")  # x alone is not the result's shape
    assert passage.ir.structural_equal(_opt(grow, relay.transform.SimplifyExpr()), _typed(grow))
    same = x - relay.full(relay.const(2.0), (3,), "float32")
    assert passage.ir.structural_equal(_opt(same, relay.transform.SimplifyExpr()), _typed(x - relay.const(2.0)))


def test_graph_structural_equal():
    x = relay.var("x")
    y0 = relay.add(x, x)
    z0 = relay.add(y0, y0)
    y1 = relay.add(x, x)
    z1 = relay.add(y1, y1)
    z3 = relay.add(relay.add(x, x), relay.add(x, x))
    assert passage.ir.structural_equal(z0, z1)
    assert passage.ir.structural_hash(z0) == passage.ir.structural_hash(z1)
    assert not passage.ir.structural_equal(z0, z3)
    assert passage.ir.structural_hash(z0) != passage.ir.structural_hash(z3)


def test_reverse_reshape_name_and_type():
    x = relay.var("x", shape=(2, 3, 4))
    t = _typed(relay.reverse_reshape(x, newshape=(-1, 0))).checked_type
    assert tuple(int(d) for d in t.shape) == (6, 4)


def test_convert_layout_positional():
    x = relay.var("x", shape=(1, 3, 8, 8))
    w = relay.var("w", shape=(4, 3, 3, 3))
    f = relay.Function([x, w], relay.nn.conv2d(x, w, kernel_size=(3, 3)))
    mod = relay.transform.InferType()(passage.IRModule.from_expr(f))
    out = relay.transform.ConvertLayout({"nn.conv2d": ["NHWC", "default"]})(mod)
    assert 'data_layout="NHWC"' in str(out)


def test_max_pool2d_default_pool_size():
    x = relay.var("x", shape=(1, 2, 5, 5))
    t = _typed(relay.nn.max_pool2d(x)).checked_type
    assert tuple(int(d) for d in t.shape) == (1, 2, 5, 5)
