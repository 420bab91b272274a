"""passage.num_threads from Python (docs/pass-infra.md "Threads"): built-in
function passes give the serial result on threads, and a Python function or
prim-func pass runs on the calling thread alone (its callback holds the
GIL; Python passes are not declared concurrent)."""

import threading

import passage
from passage import relay, transform
from passage.transform import PassContext

N = 32


def many_functions():
    text = '#[version = "0.0.5"]\n'
    for i in range(N):
        text += ("def @f%d(%%x: Tensor[(%d, 4), float32]) {\n  %%0 = add(1f, 2f);\n"
                 "  multiply(add(%%x, %%0), %d.5f)\n}\n" % (i, i % 5 + 1, i))
    return relay.fromtext(text)


def run(passes, threads, mod):
    with PassContext(opt_level=3, config={"passage.num_threads": threads}):
        return transform.Sequential(passes)(mod)


def test_builtin_function_passes_on_threads_match_serial():
    mod = many_functions()
    passes = [transform.InferType(), transform.FoldConstant(), transform.SimplifyExpr()]
    serial = run(passes, 1, mod)
    for threads in (2, 4, 0):
        assert run(passes, threads, mod).astext() == serial.astext()
    assert "add(1f, 2f)" not in serial.astext()


def test_python_function_pass_stays_on_the_calling_thread():
    seen = set()

    @transform.function_pass(opt_level=0, name="RecordThread")
    def record(func, mod, ctx):
        seen.add(threading.get_ident())
        return func

    mod = many_functions()
    out = run([record], 4, mod)
    assert seen == {threading.get_ident()}
    assert out.astext() == transform.InferType()(mod).astext()


def test_num_threads_is_a_registered_option():
    with PassContext(config={"passage.num_threads": 3}) as ctx:
        assert int(ctx.config["passage.num_threads"]) == 3
    try:
        PassContext(config={"passage.num_threads": -1})
    except Exception as e:  # a count: negative values are refused
        assert "passage.num_threads" in str(e)
    else:
        raise AssertionError("a negative thread count was accepted")
