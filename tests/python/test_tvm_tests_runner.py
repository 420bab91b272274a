"""tools/tvm-tests/run.py: the drop rule (departure 104) and the test counting,
on sources written here."""

import importlib.util
import os
import textwrap

import pytest

_RUN = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "tvm-tests", "run.py")
spec = importlib.util.spec_from_file_location("tvm_tests_run", _RUN)
run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run)

SOURCE = textwrap.dedent('''\
    import tvm
    import tvm.topi.testing
    from tvm import relay, topi
    from tvm.relay.backend import Executor
    from tvm.relay import (op,
                           create_executor, transform)
    dev = tvm.device("llvm", 0)

    @pytest.mark.skipif(tvm.target.codegen.llvm_version_major() < 17, reason="x")
    def test_sme():
        pass

    def test_plain():
        assert relay and op and transform

    class TestGroup:
        def test_a(self):
            pass
''')


def test_drop_statements_removes_only_the_listed_names():
    out = run.drop_statements(SOURCE, ["tvm.topi", "tvm.relay.backend", "tvm.relay.create_executor"],
                              ["dev", "test_sme"])
    assert "import tvm\n" in out and "from tvm import relay\n" in out
    assert "from tvm.relay import op, transform\n" in out
    assert "topi" not in out and "Executor" not in out and "create_executor" not in out
    assert "dev =" not in out and "test_sme" not in out and "skipif" not in out
    assert "def test_plain" in out and "class TestGroup" in out
    # Line numbers are kept, so tracebacks still point at TVM's lines.
    assert len(out.splitlines()) == len(SOURCE.splitlines())
    compile(out, "<dropped>", "exec")


def test_a_drop_that_matches_nothing_stops_the_run():
    with pytest.raises(SystemExit, match="matches nothing"):
        run.drop_statements(SOURCE, ["tvm.contrib"], [])
    with pytest.raises(SystemExit, match="matches nothing"):
        run.drop_statements(SOURCE, [], ["no_such_def"])


def test_static_tests_and_scope_patterns(tmp_path):
    assert run.static_tests(SOURCE, "relay/t.py") == [
        "relay/t.py::test_sme", "relay/t.py::test_plain", "relay/t.py::TestGroup::test_a"]
    lst = tmp_path / "scope.txt"
    lst.write_text("relay/t.py::test_sme | a target\n"
                   "drop-def relay/t.py test_sme | a target\n"
                   "relay/u.py::* | Relax\n")
    scope = run.Scope(str(lst))
    assert scope.reason("relay/t.py::test_sme[param]") == "a target"
    assert scope.reason("relay/u.py::anything") == "Relax"
    assert scope.reason("relay/t.py::test_plain") is None
    assert scope.defs == {"relay/t.py": ["test_sme"]}
    rows = run.classify([("relay/t.py::test_sme", "dropped", ""),
                         ("relay/t.py::test_plain", "passed", ""),
                         ("relay/t.py::TestGroup::test_a", "xfail", ""),
                         ("relay/t.py::test_b", "failed", "E")], scope)
    assert [len(rows[k]) for k in ("passed", "failed", "scope", "skipped")] == [2, 1, 1, 0]
    lst.write_text("relay/t.py::test_x\n")
    with pytest.raises(SystemExit, match="no reason"):
        run.Scope(str(lst))
