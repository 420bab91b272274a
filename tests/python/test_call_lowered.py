"""call_lowered in Python (docs/lowering.md): the lowered form of TVM's
test_pass_lower_te.py reads back with its GlobalVar attribute values and
is typed by the PrimFunc."""

import passage
from passage import relay, tir

LOWERED = '''#[version = "0.0.5"]
def @main(%a: Tensor[(5, 7), float32]) -> Tensor[(5, 7), float32] {
  %0 = (%a, %a);
  call_lowered(@test_fused_add, %0, metadata={relay_attrs={Primitive=1}, all_prim_fn_vars=[@test_fused_add]})
}

@T.prim_func
def test_fused_add(p0: T.Buffer((5, 7), "float32"), p1: T.Buffer((5, 7), "float32"), T_add: T.Buffer((5, 7), "float32")):
    for ax0, ax1 in T.grid(5, 7):
        T_add[ax0, ax1] = p0[ax0, ax1] + p1[ax0, ax1]
'''


def test_call_lowered_attrs_read_as_tvm_writes_them():
    mod = passage.parse(LOWERED)
    assert str(mod) == LOWERED
    call = mod["main"].body
    assert call.op.name == "call_lowered"
    assert len(call.args) == 2
    assert call.args[0].name_hint == "test_fused_add"
    assert [f.name_hint for f in call.args[1].fields] == ["a", "a"]
    meta = call.attrs.metadata
    assert meta["relay_attrs"]["Primitive"] == 1
    assert [g.name_hint for g in meta["all_prim_fn_vars"]] == ["test_fused_add"]
    assert isinstance(mod["test_fused_add"], tir.PrimFunc)


def test_call_lowered_is_typed_by_the_prim_func():
    mod = relay.transform.InferType()(passage.parse(LOWERED))
    assert str(mod["main"].body.checked_type) == "Tensor[(5, 7), float32]"
