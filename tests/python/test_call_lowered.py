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


PRIMITIVE = '''#[version = "0.0.5"]
def @main(%b: Tensor[(3, 4), int32]) -> Tensor[(3, 4), int32] {
  %0 = fn(%p : Tensor[(3, 4), int32], %q : Tensor[(3, 4), int32], Primitive=1) -> Tensor[(3, 4), int32] {
    multiply(%p, %q)
  };
  %0(%b, %b)
}
'''

EXTERN = '''#[version = "0.0.5"]
def @main(%b: Tensor[(3, 4), int32]) -> Tensor[(3, 4), int32] {
  @ext_mul(%b, %b)
}
def @ext_mul(%p : Tensor[(3, 4), int32], %q : Tensor[(3, 4), int32], Extern=1) -> Tensor[(3, 4), int32] {
  multiply(%p, %q)
}
'''


def _lower(text, name):
    mod = relay.transform.InferType()(passage.parse(text))
    return relay.transform.InferType()(relay.tec.LowerTE(name)(mod))


def test_relay_tec_lower_te_makes_a_named_prim_func():
    # TVM's Python name of the pass; the form its test_pass_lower_te.py checks.
    mod = _lower(PRIMITIVE, "m1")
    call = mod["main"].body
    assert call.op.name == "call_lowered"
    assert call.args[0].name_hint == "m1_fused_multiply"
    assert [f.name_hint for f in call.args[1].fields] == ["b", "b"]
    meta = call.attrs.metadata
    assert meta["relay_attrs"]["Primitive"] == 1
    assert meta["relay_attrs"].Primitive == 1  # TVM's DictAttrs read by attribute
    assert [g.name_hint for g in meta["all_prim_fn_vars"]] == ["m1_fused_multiply"]
    assert isinstance(mod["m1_fused_multiply"], tir.PrimFunc)


def test_relay_tec_lower_te_keeps_an_extern_function():
    mod = _lower(EXTERN, "m2")
    call = mod["main"].body
    assert call.op.name == "call_lowered" and call.args[0].name_hint == "ext_mul"
    assert call.attrs.metadata["relay_attrs"]["Extern"] == 1
    assert len(call.attrs.metadata["all_prim_fn_vars"]) == 0
    assert isinstance(mod["ext_mul"], relay.Function) and mod["ext_mul"].attrs["Extern"] == 1


def test_relay_tec_lower_te_refuses_a_compilation_config():
    import pytest
    with pytest.raises(passage.error.UnsupportedError, match="no compilation targets"):
        relay.tec.LowerTE("m3", object())
    # relay.parse takes TVM's init_module now (issue 18): an empty one adds nothing.
    passage.assert_structural_equal(relay.parse(PRIMITIVE, "from_string", passage.IRModule()),
                                    relay.parse(PRIMITIVE, "from_string", None, None))
