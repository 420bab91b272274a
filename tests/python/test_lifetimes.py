"""Lifetimes: Python objects own C references, any finalization order is
safe, nothing leaks (checked here explicitly, and after every test by the
conftest fixture with the library's live-object counter)."""

import gc
import subprocess
import sys
import os

import passage
from passage import relay, transform
from passage.instrument import pass_instrument, PassTimingInstrument
from passage.transform import PassContext

from conftest import example_module


def _live():
    gc.collect()
    return passage.live_objects()


def test_objects_are_counted_and_released():
    base = _live()
    x = relay.var("x", shape=(2,))
    f = relay.Function([x], relay.abs(x))
    assert _live() > base
    del x, f
    assert _live() == base


def test_children_outlive_their_parents_and_vice_versa():
    base = _live()
    mod = example_module()
    body = mod["main"].body
    params = mod["main"].params
    del mod  # the module goes first; the nodes we hold stay valid
    gc.collect()
    assert body.op.name == "add" and params[0].name_hint == "x"
    assert "multiply" in body.astext()
    f = relay.Function(params, body)
    del params, body  # now the parent holds the children
    assert f.body.args[1].op.name == "subtract"
    del f
    assert _live() == base


def test_passes_and_contexts_in_any_order():
    base = _live()
    timing = PassTimingInstrument()

    @transform.module_pass(opt_level=0)
    def keep(mod, ctx):
        return mod

    seq = transform.Sequential([keep, relay.transform.InferType()])
    ctx = PassContext(instruments=[timing])
    with ctx:
        out = seq(example_module())
    del seq, keep  # the Sequential is gone but the rendering instrument is not
    assert "keep" in timing.render()
    del timing  # the context still holds the C instrument
    assert len(ctx.instruments) == 1 and "InferType" in ctx.instruments[0].render()
    del ctx
    del out
    assert _live() == base


def test_python_pass_releases_its_closure():
    import weakref

    class Payload:
        pass

    p = Payload()
    ref = weakref.ref(p)

    def body(mod, ctx, _p=p):
        return mod

    mp = transform.module_pass(body, opt_level=0)
    del p, body
    assert ref() is not None  # the pass keeps its function (and the closure) alive
    del mp
    gc.collect()
    assert ref() is None  # and gives it back when the pass dies


def test_instrument_lives_while_installed():
    events = []

    @pass_instrument
    class Recorder:
        def run_before_pass(self, mod, info):
            events.append(info.name)

    cur = PassContext.current()
    cur.override_instruments([Recorder()])  # no Python reference kept
    gc.collect()
    relay.transform.InferType()(example_module())
    assert events == ["InferType"]
    cur.override_instruments(None)


def test_interpreter_exit_with_live_objects():
    # Objects alive at exit, a pass installed on the default context and
    # instruments referenced only by C: the interpreter must exit cleanly.
    code = r"""
import passage
from passage import relay, transform
from passage.instrument import pass_instrument
x = relay.var("x", shape=(2,))
mod = passage.IRModule({relay.GlobalVar("main"): relay.Function([x], relay.abs(x))})
@transform.module_pass(opt_level=0)
def p(m, ctx):
    return m
@pass_instrument
class I:
    def run_after_pass(self, mod, info):
        pass
transform.PassContext.current().override_instruments([I()])
ctx = transform.PassContext(instruments=[I()])
ctx.__enter__()
mod = p(mod)
print("ok")
"""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(passage.__file__))]
                                        + [env.get("PYTHONPATH", "")])
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout == "ok\n"
    assert "Exception ignored" not in res.stderr and "Traceback" not in res.stderr
