"""Validate-each from Python (issue 20 item 1; docs/pass-infra.md "Validate
each"): the TVM-style PassContext config testing.validate_each (N input sets)
with its seed, tolerances and given inputs. The seeded miscompiles
(passage.testing.register_seeded_bug_passes) run in child interpreters only,
so no other test sees them in the registry."""


import numpy as np

import passage
from passage.transform import PassContext

from conftest import example_module, run_seeded_child

SRC = '''#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(2, 3), float32]) {
  %0 = add(%x, %y);
  %1 = multiply(%0, 2f);
  subtract(%1, %x)
}
'''


def child(body, tmp_path):
    """Runs `body` in a fresh interpreter with the seeded passes registered;
    (returncode, stdout, stderr)."""
    return run_seeded_child(body, tmp_path, SRC, "from passage.transform import PassContext, parse_pipeline")


def test_config_options_registered():
    keys = PassContext.list_configs()
    assert keys["testing.validate_each"]["type"] == "IntImm"
    assert keys["testing.validate_each.seed"]["type"] == "IntImm"
    assert keys["testing.validate_each.rtol"]["type"] == "FloatImm"
    assert keys["testing.validate_each.reassoc_rtol"]["type"] == "FloatImm"
    assert keys["testing.validate_each.inputs"]["type"] == "Array"


def test_standard_pipeline_validates_clean():
    mod = example_module()
    with PassContext(opt_level=3, config={"testing.validate_each": 2}):
        out = passage.transform.parse_pipeline("O3")(mod)
    assert out is not None


def test_miscompile_caught(tmp_path):
    rc, out, err = child('''
        mod = passage.parse(SRC)
        with PassContext(config={"testing.validate_each": 0}):  # off: nothing notices
            parse_pipeline("InferType,testing.AddToSubtract")(mod)
        print("OFF ok")
        try:
            with PassContext(config={"testing.validate_each": 3, "testing.validate_each.seed": 5}):
                parse_pipeline("InferType,testing.AddToSubtract,FoldConstant")(mod)
        except passage.error.PassError as e:
            print("ERR", e.diagnostic.message)
        ''', tmp_path)
    assert rc == 0, err
    lines = out.strip().splitlines()
    assert lines[0] == "OFF ok"
    assert lines[1].startswith("ERR validate-each: after pass 'testing.AddToSubtract': @main output 0 on "
                               "validation input 0: max error ")
    assert "first differing element [0, 0]: " in lines[1] and lines[1].endswith("(the pass changed @main)")


def test_tolerances_and_given_inputs(tmp_path):
    x = tmp_path / "x.npy"
    np.save(str(x), np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
    rc, out, err = child('''
        mod = passage.parse(SRC)
        cfg = {"testing.validate_each": 1, "testing.validate_each.inputs": ["x=%s"]}
        for name, extra in (("testing.NudgeConstants", {}), ("testing.NudgeConstantsReassoc", {}),
                            ("testing.NudgeConstantsReassoc", {"testing.validate_each.reassoc_rtol": 0.1})):
            try:
                with PassContext(config=dict(cfg, **extra)):
                    parse_pipeline("InferType," + name)(mod)
                print(name, "ok")
            except passage.error.PassError as e:
                print(name, "tolerance 0.0001" in e.diagnostic.message, "for a reassociating pass" in e.diagnostic.message)
        ''' % x, tmp_path)
    assert rc == 0, err
    # (x + y) * 2.001 - x: the cancellation amplifies 5e-4 beyond 1e-3 too, within 0.1.
    assert out.strip().splitlines() == ["testing.NudgeConstants True False",
                                        "testing.NudgeConstantsReassoc False True",
                                        "testing.NudgeConstantsReassoc ok"]


def test_bad_config_values_refused():
    for cfg in ({"testing.validate_each": -1}, {"testing.validate_each.rtol": -1.0},
                {"testing.validate_each": "many"}):
        try:
            PassContext(config=cfg)
        except (passage.error.PassError, ValueError, TypeError):
            continue
        raise AssertionError("accepted %r" % cfg)
