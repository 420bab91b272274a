"""Shared set-up for the Python frontend tests: import the package from the
source tree (python/) unless it is installed, and check after every test that
no Passage object leaked (the library's live-object counter)."""

import gc
import os
import sys

import pytest

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(_ROOT, "python"))

import passage  # noqa: E402
from passage import relay  # noqa: E402


def _settle():
    gc.collect()
    return passage.live_objects()


@pytest.fixture(autouse=True)
def no_leaks(request):
    """Every test must give back every object it made: the thread's default
    PassContext keeps no instruments, and the live count returns to where it
    was."""
    before = _settle()
    yield
    # pytest keeps the test's fixture values in item.funcargs until after the
    # last teardown; the test is over, so they are dropped before counting.
    for name in list(getattr(request.node, "funcargs", {})):
        if name != "no_leaks":
            request.node.funcargs[name] = None
    cur = passage.transform.PassContext.current()
    stray = cur.instruments
    if stray:
        cur.override_instruments(None)
    del cur
    after = _settle()
    for _ in range(3):  # finalizers may free more on a later round
        if after == before:
            break
        after = _settle()
    assert not stray, "test left instruments on the default PassContext"
    assert after == before, "leaked %d Passage objects" % (after - before)


def example_module():
    """tvm-behavior §6.2's test model: x, y, z: T[3,4] f32;
    e1 = x + y; e2 = x - z; (e1 * (e1 / e2)) + e2."""
    x, y, z = [relay.var(n, shape=(3, 4), dtype="float32") for n in "xyz"]
    e1 = relay.add(x, y)
    e2 = relay.subtract(x, z)
    body = relay.add(relay.multiply(e1, relay.divide(e1, e2)), e2)
    return passage.IRModule({relay.GlobalVar("main"): relay.Function([x, y, z], body)})


@pytest.fixture
def mod():
    return example_module()


def run_seeded_child(body, tmp_path, src, imports):
    """Runs `body` in a fresh interpreter with the seeded-bug passes registered
    (passage.testing.register_seeded_bug_passes, so that no other test sees them
    in the registry), `imports` done and SRC = `src`: (returncode, stdout, stderr)."""
    import subprocess, sys, textwrap
    script = "import passage, passage.testing\n%s\npassage.testing.register_seeded_bug_passes()\nSRC = %r\n" % (
        imports, src)
    script += textwrap.dedent(body)
    path = tmp_path / "child.py"
    path.write_text(script)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    r = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env, cwd=str(tmp_path))
    return r.returncode, r.stdout, r.stderr
