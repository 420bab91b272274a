"""Errors (STYLE rule 7): a Python exception inside a pass or instrument
comes out at the call site as the same object with the pass name added,
after the C side unwound the instruments; C-side failures raise PassError
subclasses carrying the diagnostic with its location; the library prints
nothing."""

import pytest

import passage
from passage import relay, transform
from passage.instrument import pass_instrument
from passage.transform import PassContext

from conftest import example_module


class MyError(Exception):
    pass


def test_pass_exception_is_the_same_object_with_pass_name():
    raised = []

    @transform.module_pass(opt_level=0, name="Exploding")
    def exploding(mod, ctx):
        e = MyError("kaboom")
        raised.append(e)
        raise e

    with pytest.raises(MyError) as info:
        exploding(example_module())
    assert info.value is raised[0]
    assert info.value.pass_name == "Exploding"
    assert "in pass 'Exploding'" in info.value.__notes__
    cause = info.value.__cause__
    assert isinstance(cause, passage.PassError)
    assert "MyError: kaboom" in str(cause)
    assert cause.pass_name == "Exploding"
    # the user's own frame is in the traceback
    import traceback
    assert "raise e" in "".join(traceback.format_tb(info.value.__traceback__))
    del raised[:]


def test_nested_pass_exception_names_every_pass():
    @transform.function_pass(opt_level=0, name="Inner")
    def inner(func, mod, ctx):
        raise MyError("deep")

    @transform.module_pass(opt_level=0, name="Outer")
    def outer(mod, ctx):
        return inner(mod)

    with pytest.raises(MyError, match="deep") as info:
        transform.Sequential([outer])(example_module())
    assert info.value.__notes__ == ["in pass 'Inner'", "in pass 'Outer'"]


def test_pass_can_catch_inner_exception_and_continue():
    @transform.module_pass(opt_level=0)
    def failing(mod, ctx):
        raise MyError("inner")

    @transform.module_pass(opt_level=0)
    def tolerant(mod, ctx):
        try:
            failing(mod)
        except MyError:
            return mod
        raise AssertionError("not reached")

    m = example_module()
    assert tolerant(m).same_as(m)


def test_instrument_exception_names_the_pass():
    @pass_instrument
    class Broken:
        def run_before_pass(self, mod, info):
            raise ValueError("bad instrument")

    with pytest.raises(ValueError, match="bad instrument") as info:
        with PassContext(instruments=[Broken()]):
            relay.transform.InferType()(example_module())
    assert info.value.pass_name == "InferType"


def test_base_exceptions_propagate_too():
    @transform.module_pass(opt_level=0)
    def interrupted(mod, ctx):
        raise KeyboardInterrupt()

    with pytest.raises(KeyboardInterrupt):
        interrupted(example_module())


def test_wrong_return_types_are_type_errors():
    @transform.module_pass(opt_level=0, name="ReturnsNone")
    def returns_none(mod, ctx):
        return None

    @transform.function_pass(opt_level=0, name="ReturnsModule")
    def returns_module(func, mod, ctx):
        return mod

    with pytest.raises(TypeError, match="ReturnsNone"):
        returns_none(example_module())
    with pytest.raises(TypeError, match="ReturnsModule"):
        returns_module(example_module())


def test_function_pass_free_variable_is_a_pass_error():
    @transform.function_pass(opt_level=0, name="LeaksVar")
    def leaks(func, mod, ctx):
        stray = relay.var("stray", shape=(3, 4))
        return relay.Function([], stray)

    with pytest.raises(passage.PassError) as info:
        leaks(example_module())
    assert "stray" in str(info.value)
    assert info.value.pass_name == "LeaksVar"


def test_parse_error_has_location():
    text = '#[version = "0.0.5"]\ndef @main(%x: Tensor[(2), float32]) {\n  add(%x, )\n}\n'
    with pytest.raises(passage.ParseError) as info:
        passage.parse(text, "model.relay")
    err = info.value
    assert err.file == "model.relay" and err.line == 3 and err.col > 0
    assert str(err).startswith("model.relay:3:")
    assert "^" in str(err)  # the caret line
    assert err.diagnostics and err.diagnostics[0].line == 3


def test_type_error_from_infer_type():
    x = relay.var("x", shape=(3, 4))
    y = relay.var("y", shape=(5, 6))
    mod = passage.IRModule({relay.GlobalVar("main"): relay.Function([x, y], relay.add(x, y))})
    with pytest.raises(passage.PassError) as info:
        relay.transform.InferType()(mod)
    assert isinstance(info.value, TypeError)
    assert info.value.pass_name == "InferType"


def test_unknown_op_and_bad_arguments():
    with pytest.raises(passage.NotFoundError):
        relay.op.get("no_such_op")
    with pytest.raises(passage.InvalidArgumentError):
        relay.TupleGetItem(relay.Tuple([]), -1)


def test_library_prints_nothing(capfd):
    @transform.module_pass(opt_level=0)
    def boom(mod, ctx):
        raise MyError("quiet")

    with pytest.raises(MyError):
        boom(example_module())
    with pytest.raises(passage.ParseError):
        passage.parse("def @main( {")
    with pytest.raises(passage.PassError):
        transform.get_pass("Nope")
    out, err = capfd.readouterr()
    assert out == "" and err == ""
