"""Verify-each and reproducers from Python (issue 19; docs/pass-infra.md):
PassContext config testing.verify_each / testing.reproducer /
testing.local_reproducer, passage.transform.Reproducer to read a reproducer
back and replay it. The seeded-bug passes (passage.testing.
register_seeded_bug_passes) run in child interpreters only, so no other test
ever sees them in the registry (one of them crashes by SIGSEGV)."""

import signal

import passage
from passage.transform import PassContext, Reproducer

from conftest import example_module, run_seeded_child

SRC = '''#[version = "0.0.5"]
def @main(%x: Tensor[(3), float32], %y: Tensor[(3), float32]) {
  %0 = add(%x, %y);
  %1 = multiply(%0, %y);
  subtract(%1, %x)
}
'''
WRONG = ("after pass 'testing.BreakTypes': in @main, subtract(...) has type Tensor[(1, 3), float32] "
         "but InferType gives Tensor[(3), float32]")


def child(body, tmp_path):
    """Runs `body` in a fresh interpreter with the seeded passes registered;
    (returncode, stdout, stderr)."""
    return run_seeded_child(body, tmp_path, SRC, "from passage.transform import PassContext, Reproducer, parse_pipeline")


def test_config_options_registered():
    keys = PassContext.list_configs()
    assert keys["testing.verify_each"]["type"] == "IntImm"
    assert keys["testing.reproducer"]["type"] == "runtime.String"
    assert keys["testing.local_reproducer"]["type"] == "IntImm"
    assert not any(name.startswith("testing.") for name in passage.transform.list_passes())


def test_verify_each_passes_standard_pipeline():
    mod = example_module()
    with PassContext(opt_level=3, config={"testing.verify_each": True}):
        out = passage.transform.parse_pipeline("O3")(mod)
    assert out is not None


def test_verify_each_catches_wrong_type(tmp_path):
    rc, out, err = child('''
        mod = passage.parse(SRC)
        try:  # without the verifier: the function, not the node
            with PassContext(config={"testing.verify_each": False}):
                parse_pipeline("InferType,testing.BreakTypes")(mod)
        except passage.error.PassError as e:
            print("OFF", "after pass" in e.diagnostic.message, "the function is annotated" in e.diagnostic.message)
        try:
            with PassContext(config={"testing.verify_each": True}):
                parse_pipeline("InferType,testing.BreakTypes")(mod)
        except passage.error.PassError as e:
            print("ERR", e.diagnostic.message)
        ''', tmp_path)
    assert rc == 0, err
    assert out.strip().splitlines() == ["OFF False True", "ERR " + WRONG]


def test_reproducer_replays_same_error(tmp_path):
    rc, out, err = child('''
        mod = passage.parse(SRC)
        cfg = {"testing.verify_each": True, "testing.reproducer": "r.relay"}
        for local in (False, True):
            cfg["testing.local_reproducer"] = local
            try:
                with PassContext(opt_level=3, config=cfg):
                    parse_pipeline("InferType,FoldConstant,testing.BreakTypes")(mod)
            except passage.error.PassError as e:
                first = e.diagnostic.message
            r = Reproducer("r.relay")
            try:
                r.run()
            except passage.error.PassError as e:
                print(r.pipeline, r.pass_context.opt_level, e.diagnostic.message == first, first)
        ''', tmp_path)
    assert rc == 0, err
    assert out.splitlines() == ["sequential(InferType,FoldConstant,testing.BreakTypes) 3 True " + WRONG,
                                "testing.BreakTypes 3 True " + WRONG]


def test_reproducer_written_on_crash(tmp_path):
    rc, out, err = child('''
        mod = passage.parse(SRC)
        with PassContext(config={"testing.reproducer": "crash.relay"}):
            parse_pipeline("InferType,testing.Crash")(mod)
        print("not reached")
        ''', tmp_path)
    assert rc != 0 and "not reached" not in out
    assert rc == -signal.SIGSEGV or "AddressSanitizer" in err  # a sanitizer reports the re-raised signal
    assert "passage: SIGSEGV in pass 'testing.Crash'; reproducer written to crash.relay" in err
    text = (tmp_path / "crash.relay").read_text()
    assert text.startswith("// passage reproducer 1\n// crashed: SIGSEGV in pass 'testing.Crash'\n"
                           "// pipeline: sequential(InferType,testing.Crash)\n")
    r = Reproducer(tmp_path / "crash.relay")
    assert r.pipeline == "sequential(InferType,testing.Crash)"
    assert "def @main" in r.mod.astext()
