"""Instruments from Python: tvm-behavior §3 (call order and the seven error
cases) and the §6.2 / §6.3 catalogue, written as our own tests."""

import pytest

import passage
from passage import relay
from passage.instrument import (pass_instrument, PassInstrument, PassTimingInstrument,
                                PrintBeforeAll, PrintAfterAll, PassPrintingInstrument)
from passage.transform import PassContext

from conftest import example_module


def test_pass_timing_instrument():
    timing_inst = PassTimingInstrument()
    PassContext.current().override_instruments([timing_inst])
    mod = example_module()
    mod = relay.transform.InferType()(mod)
    mod = relay.transform.FoldConstant()(mod)
    mod = relay.transform.InferType()(mod)
    profiles = timing_inst.render()
    assert "InferType" in profiles and "FoldConstant" in profiles
    lines = profiles.splitlines()
    assert len(lines) >= 3  # FoldConstant may nest passes under it
    assert lines[0].startswith("InferType: ") and lines[0].endswith("%)")

    PassContext.current().override_instruments(None)
    timing_inst.reset()
    mod = relay.transform.InferType()(mod)
    assert timing_inst.render() == ""  # no longer installed: nothing recorded


def test_timing_profile_survives_scope_exit_and_nests():
    timing = PassTimingInstrument()
    seq = passage.transform.Sequential([relay.transform.InferType()], name="outer")
    with PassContext(instruments=[timing]):
        seq(example_module())
    text = timing.render()
    assert text.splitlines()[0].startswith("outer: ")
    assert text.splitlines()[1].startswith("\tInferType: ")
    tree = timing.render_json()
    assert tree[0]["name"] == "outer" and tree[0]["children"][0]["name"] == "InferType"


@pytest.mark.parametrize("style", ["decorator", "subclass"])
def test_custom_instrument(style):
    events = []
    if style == "decorator":
        @pass_instrument
        class MyTest:
            def enter_pass_ctx(self):
                events.append("enter ctx")

            def exit_pass_ctx(self):
                events.append("exit ctx")

            def run_before_pass(self, mod, info):
                events.append("run before " + info.name)

            def run_after_pass(self, mod, info):
                events.append("run after " + info.name)
    else:
        class MyTest(PassInstrument):
            def enter_pass_ctx(self):
                events.append("enter ctx")

            def exit_pass_ctx(self):
                events.append("exit ctx")

            def run_before_pass(self, mod, info):
                events.append("run before " + info.name)

            def run_after_pass(self, mod, info):
                events.append("run after " + info.name)

    inst = MyTest()
    assert inst.name == "MyTest"
    with PassContext(instruments=[inst]) as ctx:
        assert ctx.instruments == [inst]
        relay.transform.InferType()(example_module())
    assert events == ["enter ctx", "run before InferType", "run after InferType", "exit ctx"]


def test_only_overridden_methods_are_registered():
    calls = []

    class Probe(PassInstrument):
        def run_after_pass(self, mod, info):
            calls.append(info.name)

    p = Probe()
    assert p._overridden() == ["run_after_pass"]
    # should_run is not overridden, so it means "run": the pass runs.
    with PassContext(instruments=[p]):
        out = relay.transform.InferType()(example_module())
    assert calls == ["InferType"]
    assert out["main"].checked_type is not None


def test_pass_instrument_decorator_needs_a_class():
    with pytest.raises(TypeError, match="pi_cls must be a class"):
        pass_instrument(lambda: None)


def test_installing_a_non_instrument_is_a_type_error():
    class NotDecorated:
        def run_before_pass(self, mod, info):
            pass

    with pytest.raises(TypeError, match="not a PassInstrument"):
        PassContext(instruments=[NotDecorated()])


@pass_instrument
class PassesCounter:
    def __init__(self):
        self.run_before_count = 0
        self.run_after_count = 0

    def __clear(self):
        self.run_before_count = 0
        self.run_after_count = 0

    def enter_pass_ctx(self):
        self.__clear()

    def exit_pass_ctx(self):
        self.__clear()

    def run_before_pass(self, mod, info):
        self.run_before_count += 1

    def run_after_pass(self, mod, info):
        self.run_after_count += 1


@pass_instrument
class SkipPass:
    def __init__(self, skip_pass_name):
        self.skip_pass_name = skip_pass_name

    def should_run(self, mod, info):
        return self.skip_pass_name not in info.name


def test_disable_pass():
    names = []

    @pass_instrument
    class CustomPI:
        def should_run(self, mod, info):
            return "InferType" in info.name

        def run_before_pass(self, mod, info):
            names.append(info.name)

    mod = example_module()
    with PassContext(instruments=[CustomPI()]):
        out = relay.transform.FoldConstant()(mod)
        assert out.same_as(mod)  # skipped: the very same module comes back
        relay.transform.InferType()(mod)
        relay.transform.DeadCodeElimination()(mod)
    assert names == ["InferType"]


def test_multiple_instrument():
    names = []

    @pass_instrument
    class Recorder:
        def run_before_pass(self, mod, info):
            names.append(info.name)

    mod = example_module()
    with PassContext(instruments=[SkipPass("FoldConstant"), SkipPass("DeadCode"), Recorder()]):
        relay.transform.FoldConstant()(mod)
        relay.transform.InferType()(mod)
        relay.transform.DeadCodeElimination()(mod)
    assert names == ["InferType"]


def test_required_pass_bypasses_should_run():
    names = []

    @pass_instrument
    class Recorder:
        def should_run(self, mod, info):
            return False

        def run_before_pass(self, mod, info):
            names.append(info.name)

    with PassContext(required_pass=["InferType"], instruments=[Recorder()]):
        relay.transform.InferType()(example_module())
        relay.transform.FoldConstant()(example_module())
    assert names == ["InferType"]


def test_instrument_pass_counts():
    counter = PassesCounter()
    seq = passage.transform.Sequential([relay.transform.InferType(), relay.transform.FoldConstant(),
                                        relay.transform.DeadCodeElimination()])
    with PassContext(opt_level=3, instruments=[counter]):
        assert counter.run_before_count == 0
        seq(example_module())
        assert counter.run_before_count == counter.run_after_count != 0
    assert counter.run_before_count == counter.run_after_count == 0


def test_list_pass_configs():
    configs = PassContext.list_configs()
    assert len(configs) > 0
    assert configs["testing.immutable_module"]["type"] == "IntImm"


def _events_instrument(events, idx, broken=None):
    """An instrument recording '%idx <event>' and raising in `broken`."""

    class PI:
        def enter_pass_ctx(self):
            events.append("%%%d enter" % idx)
            if broken == "enter":
                raise RuntimeError("Just a dummy error")

        def exit_pass_ctx(self):
            events.append("%%%d exit" % idx)
            if broken == "exit":
                raise RuntimeError("Just a dummy error")

        def should_run(self, mod, info):
            events.append("%%%d should_run" % idx)
            if broken == "should_run":
                raise RuntimeError("Just a dummy error")
            return True

        def run_before_pass(self, mod, info):
            events.append("%%%d run_before" % idx)
            if broken == "run_before":
                raise RuntimeError("Just a dummy error")

        def run_after_pass(self, mod, info):
            events.append("%%%d run_after" % idx)
            if broken == "run_after":
                raise RuntimeError("Just a dummy error")

    PI.__name__ = "PI%d" % idx
    return pass_instrument(PI)()


def test_instrument_call_sequence():
    events = []

    @passage.transform.module_pass(opt_level=2)
    def transform1(mod, ctx):
        events.append("transform1 pass")
        return mod

    @passage.transform.module_pass(opt_level=2)
    def transform2(mod, ctx):
        events.append("transform2 pass")
        return mod

    mod = example_module()
    with PassContext(instruments=[_events_instrument(events, 1), _events_instrument(events, 2)]):
        transform1(mod)
        transform2(mod)
    assert events == [
        "%1 enter", "%2 enter",
        "%1 should_run", "%2 should_run", "%1 run_before", "%2 run_before",
        "transform1 pass", "%1 run_after", "%2 run_after",
        "%1 should_run", "%2 should_run", "%1 run_before", "%2 run_before",
        "transform2 pass", "%1 run_after", "%2 run_after",
        "%1 exit", "%2 exit"]


# The seven error cases of §3.3–§3.6 ---------------------------------------------------

def test_enter_pass_ctx_exception():
    events = []
    pi1 = _events_instrument(events, 1)
    pi2 = _events_instrument(events, 2, broken="enter")
    pi3 = _events_instrument(events, 3)
    ctx = PassContext(instruments=[pi1, pi2, pi3])
    with pytest.raises(RuntimeError, match="Just a dummy error"):
        with ctx:
            events.append("body")  # never reached
    assert events == ["%1 enter", "%2 enter", "%1 exit"]
    cur = PassContext.current()
    assert cur != ctx  # never pushed
    assert cur.instruments == []
    assert ctx.instruments == []  # cleared


def test_enter_pass_ctx_exception_global():
    events = []
    cur = PassContext.current()
    with pytest.raises(RuntimeError, match="Just a dummy error"):
        cur.override_instruments([_events_instrument(events, 1, broken="enter")])
    assert events == ["%1 enter"]
    assert PassContext.current().instruments == []


def test_exit_pass_ctx_exception():
    events = []
    pi1 = _events_instrument(events, 1)
    pi2 = _events_instrument(events, 2, broken="exit")
    pi3 = _events_instrument(events, 3)
    ctx = PassContext(instruments=[pi1, pi2, pi3])
    with pytest.raises(RuntimeError, match="Just a dummy error"):
        with ctx:
            pass
    assert events == ["%1 enter", "%2 enter", "%3 enter", "%1 exit", "%2 exit"]
    assert PassContext.current() != ctx  # popped
    assert ctx.instruments == [] and PassContext.current().instruments == []


def test_exit_pass_ctx_exception_global():
    events = []
    cur = PassContext.current()
    cur.override_instruments([_events_instrument(events, 1, broken="exit")])
    assert events == ["%1 enter"]
    with pytest.raises(RuntimeError, match="Just a dummy error"):
        cur.override_instruments(None)
    assert events == ["%1 enter", "%1 exit"]
    assert PassContext.current().instruments == []


def test_pass_exception():
    events = []

    @passage.transform.module_pass(opt_level=2)
    def transform(mod, ctx):
        events.append("transform pass")
        raise RuntimeError("Just a dummy error")

    class PI:
        def enter_pass_ctx(self):
            events.append("enter_pass_ctx")

        def exit_pass_ctx(self):
            events.append("exit_pass_ctx")

        def should_run(self, mod, info):
            events.append("should_run")
            return True

        def run_before_pass(self, mod, info):
            events.append("run_before_pass")

        def run_after_pass(self, mod, info):
            events.append("run_after_pass")

    with pytest.raises(RuntimeError, match="Just a dummy error"):
        with PassContext(instruments=[pass_instrument(PI)()]):
            transform(example_module())
    assert events == ["enter_pass_ctx", "should_run", "run_before_pass", "transform pass",
                      "exit_pass_ctx"]


def _run_with_broken(where):
    events = []

    @passage.transform.module_pass(opt_level=2)
    def transform(mod, ctx):
        events.append("transform pass")
        return mod

    with pytest.raises(RuntimeError, match="Just a dummy error"):
        with PassContext(instruments=[_events_instrument(events, 1, broken=where),
                                      _events_instrument(events, 2)]):
            transform(example_module())
    return events


def test_should_run_exception():
    assert _run_with_broken("should_run") == [
        "%1 enter", "%2 enter", "%1 should_run", "%1 exit", "%2 exit"]


def test_run_before_exception():
    assert _run_with_broken("run_before") == [
        "%1 enter", "%2 enter", "%1 should_run", "%2 should_run", "%1 run_before",
        "%1 exit", "%2 exit"]


def test_run_after_exception():
    assert _run_with_broken("run_after") == [
        "%1 enter", "%2 enter", "%1 should_run", "%2 should_run", "%1 run_before",
        "%2 run_before", "transform pass", "%1 run_after", "%1 exit", "%2 exit"]


def test_run_after_pass_failed_hook():
    seen = []

    class OnFailure(PassInstrument):
        def run_after_pass_failed(self, mod, info):
            seen.append((info.name, mod.same_as(m)))

    @passage.transform.module_pass(opt_level=0, name="Boom")
    def boom(mod, ctx):
        raise KeyError("boom")

    m = example_module()
    with PassContext(instruments=[OnFailure()]):
        with pytest.raises(KeyError):
            boom(m)
    assert seen == [("Boom", True)]  # sees the unchanged input


# §6.3: the printing instruments --------------------------------------------------------

def test_print_all_passes(capsys):
    with PassContext(opt_level=3, instruments=[PrintBeforeAll(), PrintAfterAll()]):
        passage.transform.Sequential([relay.transform.InferType()])(example_module())
    out = capsys.readouterr().out
    assert "Before Running Pass:" in out and "After Running Pass:" in out
    assert "pass name: InferType" in out and "pass name: sequential" in out
    assert "subtract(%x, %z)" in out


def test_pass_printing_instrument(capsys):
    inst = PassPrintingInstrument(print_before_pass_names=["FoldConstant"],
                                  print_after_pass_names=["InferType"])
    with PassContext(instruments=[inst]):
        mod = relay.transform.InferType()(example_module())
        relay.transform.FoldConstant()(mod)
        relay.transform.DeadCodeElimination()(mod)
    out = capsys.readouterr().out
    assert "Print IR after: InferType" in out and "Print IR before: FoldConstant" in out
    assert "Print IR before: InferType" not in out and "DeadCodeElimination" not in out
