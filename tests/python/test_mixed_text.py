"""A module holding Relay functions and PrimFuncs as one text
(docs/text-format.md, "Relay and TIR in one file"): str(), script() and
astext() print it, passage.parse / relay.parse / relay.fromtext read it, a
Relay call names the PrimFunc's GlobalVar, errors inside a PrimFunc block are
located in the text."""

import pytest

import passage
from passage import relay, tir
from passage.script import tir as T

MIXED = '''#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32], %y: Tensor[(4), float32]) {
  @vadd(%x, %y)
}

@T.prim_func
def vadd(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    for i in range(4):
        C[i] = A[i] + B[i]
'''


@pytest.mark.parametrize("reader", [passage.parse, relay.parse, relay.fromtext])
def test_mixed_text_round_trips(reader):
    mod = reader(MIXED)
    assert isinstance(mod["vadd"], tir.PrimFunc)
    assert isinstance(mod["main"], relay.Function)
    assert [g.name_hint for g in mod.get_global_vars()] == ["main", "vadd"]
    assert str(mod) == MIXED
    assert mod.script() == MIXED
    assert mod.astext() == MIXED
    passage.assert_structural_equal(passage.parse(str(mod)), mod)


def test_relay_call_names_the_prim_func_global():
    mod = passage.parse(MIXED)
    call = mod["main"].body
    assert call.op.same_as(mod.get_global_var("vadd"))


def test_module_built_in_python_prints_mixed():
    @T.prim_func
    def double(A: T.Buffer((2,), "int32")):
        for i in range(2):
            A[i] = A[i] * 2

    x = relay.var("x", shape=(2,), dtype="int32")
    mod = passage.IRModule({relay.GlobalVar("main"): relay.Function([x], x)})
    mod[relay.GlobalVar("double")] = double
    text = str(mod)
    assert text.startswith('#[version = "0.0.5"]\ndef @main(')
    assert "\n@T.prim_func\ndef double(A: T.Buffer((2,), \"int32\")):\n" in text
    passage.assert_structural_equal(passage.parse(text), mod)


def test_error_in_block_is_located_in_the_file():
    bad = MIXED.replace("A[i] + B[i]", "A[i] + D[i]")
    with pytest.raises(passage.ParseError) as info:
        relay.fromtext(bad, "mixed.relay")
    # line 9 of the text, column of 'D'
    assert "mixed.relay:9:23: error: undefined name 'D'" in str(info.value)


def test_relay_and_tir_errors_in_one_parse():
    bad = MIXED.replace("@vadd(%x, %y)", "@vadd(%x, %w)").replace("A[i] + B[i]", "A[i] + D[i]")
    with pytest.raises(passage.ParseError) as info:
        passage.parse(bad, "two.relay")
    found = [str(d) for d in info.value.diagnostics]
    assert any("two.relay:3:13: error: undefined variable %w" in d for d in found)
    assert any("two.relay:9:23: error: undefined name 'D'" in d for d in found)
