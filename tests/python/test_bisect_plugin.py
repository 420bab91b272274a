"""Issue 19 items 3-5 from Python (docs/pass-infra.md, docs/pipeline.md):
testing.opt_bisect_limit in a PassContext, FixedPoint and
transform.load_pass_plugin with the example and test plugins (built next to
libpassage.so, in plugins/)."""

import os

import pytest

import passage
from passage import relay, transform
from passage.transform import PassContext

T = "Tensor[(2), float32]"
THREE = """#[version = "0.0.5"]
def @f1(%x: {T}) -> {T} {{ multiply(%x, 2f) }}
def @f2(%x: {T}) -> {T} {{ add(%x, 1f) }}
def @main(%x: {T}) -> {T} {{ @f2(@f1(%x)) }}
""".format(T=T)


def _plugin(name):
    d = os.path.join(os.path.dirname(passage._ffi.library_path), "plugins")
    path = os.path.join(d, "libpassage_%s.so" % name)
    if not os.path.exists(path):
        pytest.skip("plugin %s not built" % path)
    return path


@transform.function_pass(opt_level=0, name="SeededBug")
def _seeded_bug(func, mod, ctx):
    """add(x, y) becomes x: the miscompilation opt-bisect must find."""
    class Drop(relay.ExprMutator):
        def visit_call(self, call):
            new = super().visit_call(call)
            if getattr(new.op, "name", None) == "add":
                return new.args[0]
            return new
    return Drop().visit(func)


def _pipeline():
    return transform.Sequential([transform.InferType(), _seeded_bug, transform.SimplifyExpr()])


def test_opt_bisect_limit_config(capfd):
    mod = passage.parse(THREE)
    with PassContext(config={"testing.opt_bisect_limit": 1}):
        good = _pipeline()(mod)
    err = capfd.readouterr().err
    assert "BISECT: running essential pass InferType on module (never skipped)" in err
    assert "BISECT: running pass (1) SeededBug on @f1" in err
    assert "BISECT: NOT running pass (2) SeededBug on @f2" in err
    assert "add(" in good.astext()
    with PassContext(config={"testing.opt_bisect_limit": 2}):
        bad = _pipeline()(mod)
    assert "add(" not in bad.astext()
    capfd.readouterr()
    # -1 (the default): everything runs, nothing is printed.
    _pipeline()(mod)
    assert "BISECT" not in capfd.readouterr().err


def test_fixed_point():
    mod = passage.parse("""#[version = "0.0.5"]
def @main(%x: {T}) -> {T} {{ add(multiply(%x, multiply(1f, 1f)), 0f) }}
""".format(T=T))
    fp = transform.FixedPoint([transform.SimplifyExpr(), transform.FoldConstant()], max_iterations=4)
    assert isinstance(fp, transform.FixedPoint)
    assert fp.max_iterations == 4
    assert [p.info.name for p in fp.passes] == ["SimplifyExpr", "FoldConstant"]
    assert fp.to_pipeline() == "fixed_point(SimplifyExpr,FoldConstant){max_iterations=4}"
    again = transform.parse_pipeline(fp.to_pipeline())
    assert isinstance(again, transform.FixedPoint) and again.max_iterations == 4
    out = fp(mod)
    assert out["main"].body.astext().strip().endswith("%x")
    with pytest.raises(passage.PassError, match="max_iterations must be at least 1"):
        transform.FixedPoint([transform.SimplifyExpr()], max_iterations=0)


def test_fixed_point_cycle_and_limit():
    @transform.function_pass(opt_level=0, name="ToggleNegative")
    def toggle(func, mod, ctx):
        body = func.body
        if isinstance(body, relay.Call) and getattr(body.op, "name", None) == "negative":
            nb = body.args[0]
        else:
            nb = relay.negative(body)
        return relay.Function(func.params, nb, func.ret_type)

    mod = passage.parse("""#[version = "0.0.5"]
def @main(%x: {T}) -> {T} {{ %x }}
""".format(T=T))
    with pytest.raises(passage.PassError, match="a cycle of 2 iterations") as info:
        transform.FixedPoint(toggle)(mod)
    assert "after iteration 2 is the one of its input again" in str(info.value)

    @transform.function_pass(opt_level=0, name="Grow")
    def grow(func, mod, ctx):
        return relay.Function(func.params, relay.negative(func.body), func.ret_type)

    out = transform.FixedPoint(grow, max_iterations=3)(mod)  # a warning, and the last module
    assert out.astext().count("negative(") == 3


def test_load_pass_plugin():
    with pytest.raises(passage.PassError, match="not registered|SimplifyAddZero"):
        transform.get_pass("SimplifyAddZero")
    path = _plugin("example_plugin")
    transform.load_pass_plugin(path)
    assert ("example-add-zero", path) in transform.loaded_pass_plugins()
    mod = passage.parse("""#[version = "0.0.5"]
def @main(%x: {T}) -> {T} {{ add(multiply(%x, 3f), 0f) }}
""".format(T=T))
    out = transform.parse_pipeline("sequential(InferType,SimplifyAddZero)")(mod)
    text = out.astext()
    assert "add(" not in text and "multiply(%x, 3f" in text
    assert transform.get_pass("SimplifyAddZero").info.opt_level == 1


def test_load_pass_plugin_errors(tmp_path):
    with pytest.raises(passage.PassError, match="plugin ABI version 999, but this Passage loads version 2"):
        transform.load_pass_plugin(_plugin("bad_abi_plugin"))
    with pytest.raises(passage.PassError, match="exports no psg_get_pass_plugin_info"):
        transform.load_pass_plugin(_plugin("no_entry_plugin"))
    with pytest.raises(passage.PassError, match="cannot load pass plugin"):
        transform.load_pass_plugin(str(tmp_path / "missing.so"))
