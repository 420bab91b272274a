"""passage.reduce (issue 20 item 3, docs/pass-infra.md "Reducing a failing
case"): psg_reduce with a Python predicate, its errors, and an exception
raised by the predicate coming back at the call."""

import pytest

import passage
from passage import reduce as red

CHAIN = """#[version = "0.0.5"]
def @main(%x: Tensor[(4, 4), float32]) -> Tensor[(4, 4), float32] {
  %0 = add(%x, 1f);
  %1 = nn.relu(%0);
  %2 = nn.softmax(%1);
  %3 = multiply(%2, %0);
  tanh(%3)
}
"""


def test_reduce_module_and_pipeline():
    mod = passage.parse(CHAIN)
    seen = []

    def has_softmax(m, pipeline):
        seen.append(pipeline)
        return "nn.softmax(" in m.astext() and "FoldConstant" in pipeline

    out, pipeline = red.reduce(mod, "SimplifyExpr,sequential(FoldConstant,DeadCodeElimination)", has_softmax)
    assert pipeline == "FoldConstant"
    assert red.sizes(out)[0] == 1
    assert "nn.softmax(" in out.astext()
    assert red.sizes(mod)[0] == 5  # the input is left as it was
    assert len(seen) > 3


def test_keep_flags_and_verbose(capsys):
    mod = passage.parse(CHAIN)
    out, pipeline = red.reduce(mod, "SimplifyExpr", lambda m, p: "tanh(" in m.astext(), keep_pipeline=True,
                               verbose=True)
    assert pipeline == "SimplifyExpr"
    assert "tanh(" in out.astext()
    assert "passage reduce: done: 1 calls" in capsys.readouterr().err
    out, pipeline = red.reduce(mod, "SimplifyExpr", lambda m, p: True, keep_module=True)
    assert red.sizes(out) == red.sizes(mod)
    assert pipeline == "sequential()"


def test_not_interesting():
    mod = passage.parse(CHAIN)
    with pytest.raises(passage.InvalidArgumentError, match="not interesting"):
        red.reduce(mod, "", lambda m, p: False)


def test_predicate_exception():
    mod = passage.parse(CHAIN)
    calls = []

    def broken(m, p):
        calls.append(p)
        if len(calls) == 3:
            raise KeyError("from the predicate")
        return True

    with pytest.raises(KeyError, match="from the predicate"):
        red.reduce(mod, "SimplifyExpr,FoldConstant", broken)
