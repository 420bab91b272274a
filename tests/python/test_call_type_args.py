"""Call.type_args derived from checked types and Var.vid (passage.ir;
docs/design.md "type_args"): what TVM's test_type_infer.py checks of them
(test_type_args, test_type_arg_infer, test_free_expr), in our words."""

import passage
from passage import relay


def test_op_call_type_args_are_argument_types():
    x = relay.var("x", shape=(10, 10))
    y = relay.var("y", shape=(1, 10))
    z = relay.add(x, y)
    assert z.type_args == []  # nothing checked yet
    mod = relay.transform.InferType()(passage.IRModule.from_expr(z))
    assert mod["main"].body.type_args == [relay.TensorType((10, 10), "float32"),
                                          relay.TensorType((1, 10), "float32")]


def test_polymorphic_call_type_args_instantiate_type_params():
    mod = relay.fromtext("""
#[version = "0.0.5"]
def @id[A](%x: A) -> A {
  %x
}
def @pair[A, B](%a: A, %b: (A, B)) -> B {
  %b.1
}
def @main(%f: float32, %i: int32) -> int32 {
  %0 = @id(%f);
  @pair(%0, (%f, %i))
}
""")
    body = mod["main"].body
    assert body.type_args == [relay.scalar_type("float32"), relay.scalar_type("int32")]
    assert body.args[0].type_args == [relay.scalar_type("float32")]
    # A monomorphic callee has none.
    fn = relay.Function([relay.var("v", shape=(2,))], relay.const(1.0))
    call = relay.Call(fn, [relay.const([1.0, 2.0])])
    typed = relay.transform.InferType()(passage.IRModule.from_expr(call))["main"].body
    assert typed.type_args == []


def test_vid_follows_the_variable():
    x = relay.var("x", "float32")
    y = relay.add(x, x)
    typed = relay.transform.InferType()(passage.IRModule.from_expr(y))["main"].body
    assert x.vid.same_as(typed.args[0].vid) and x.vid == typed.args[0].vid
    assert hash(x.vid) == hash(typed.args[0].vid)
    assert x.vid.name_hint == "x"
    other = relay.var("x", "float32")
    assert not x.vid.same_as(other.vid)
