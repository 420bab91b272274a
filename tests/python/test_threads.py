"""Python passes and instruments from several threads, each thread with its
own PassContext stack: events, results and exceptions stay per thread."""

import threading

import pytest

import passage
from passage import relay, transform
from passage.instrument import pass_instrument
from passage.transform import PassContext

from conftest import example_module

N_THREADS = 4
ROUNDS = 10


def _worker(idx, results):
    try:
        events = []

        @pass_instrument
        class Recorder:
            def enter_pass_ctx(self):
                events.append("enter")

            def exit_pass_ctx(self):
                events.append("exit")

            def run_before_pass(self, mod, info):
                events.append(info.name)

        @transform.function_pass(opt_level=1, name="Thread%d" % idx)
        def tag(func, mod, ctx):
            assert PassContext.current().opt_level == idx % 3 + 1
            return relay.Function(func.params, relay.abs(func.body))

        @transform.module_pass(opt_level=0, name="Fail%d" % idx)
        def fail(mod, ctx):
            raise LookupError("thread %d" % idx)

        outs = []
        for _ in range(ROUNDS):
            with PassContext(opt_level=idx % 3 + 1, instruments=[Recorder()]) as ctx:
                assert PassContext.current() == ctx
                outs.append(transform.Sequential([tag])(example_module()))
                try:
                    fail(example_module())
                except LookupError as e:
                    assert str(e) == "thread %d" % idx and e.pass_name == "Fail%d" % idx
                else:
                    raise AssertionError("no exception")
        results[idx] = (events, [o["main"].body.op.name for o in outs],
                        PassContext.current().opt_level)
    except BaseException as e:  # reported by the main thread
        results[idx] = e


def test_passes_and_instruments_from_threads():
    results = {}
    threads = [threading.Thread(target=_worker, args=(i, results)) for i in range(N_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    for i in range(N_THREADS):
        r = results.get(i)
        if isinstance(r, BaseException):
            raise r
        events, ops, default_level = r
        one_round = ["enter", "sequential", "Thread%d" % i, "InferType", "Fail%d" % i, "exit"]
        assert events == one_round * ROUNDS
        assert ops == ["abs"] * ROUNDS
        assert default_level == 2  # each thread's default context is untouched


def test_context_entered_on_one_thread_is_invisible_on_another():
    seen = {}
    ctx = PassContext(opt_level=0)
    with ctx:
        t = threading.Thread(target=lambda: seen.setdefault("cur", PassContext.current().opt_level))
        t.start()
        t.join()
        assert PassContext.current() == ctx
    assert seen["cur"] == 2


def test_a_new_thread_never_inherits_a_dead_threads_default_context():
    # pthread_t values are reused: the default context must die with its thread.
    @pass_instrument
    class Marker:
        pass

    def install():
        PassContext.current().override_instruments([Marker()])
        seen["a"] = len(PassContext.current().instruments)

    def look():
        cur = PassContext.current()
        seen["b"] = (len(cur.instruments), cur.opt_level, cur.config)

    seen = {}
    for _ in range(3):
        a = threading.Thread(target=install)
        a.start()
        a.join()
        b = threading.Thread(target=look)
        b.start()
        b.join()
        assert seen == {"a": 1, "b": (0, 2, {})}
