"""The resource limits of issue 14 from Python: passage.max_constant_bytes set
in a PassContext's config keeps FoldConstant from materializing a larger
constant (the call stays, with a warning); the limits are listed with
their readers."""

from passage import relay
from passage.ir import Call, Constant
from passage.transform import PassContext

import passage


def _folded_body(config):
    one = relay.const([1.0] * 4, "float32")  # 16 bytes
    func = relay.Function([], relay.add(one, one))
    mod = passage.IRModule({relay.GlobalVar("main"): func})
    seq = passage.transform.Sequential([relay.transform.InferType(), relay.transform.FoldConstant()])
    with PassContext(opt_level=3, config=config):
        return seq(mod)["main"].body


def test_fold_respects_max_constant_bytes():
    assert isinstance(_folded_body({}), Constant)
    assert isinstance(_folded_body({"passage.max_constant_bytes": 16}), Constant)
    assert isinstance(_folded_body({"passage.max_constant_bytes": 15}), Call)


def test_limits_are_listed_with_their_readers():
    configs = PassContext.list_configs()
    assert configs["relay.interp.max_call_depth"]["read_by"] == "the interpreter (psg_eval)"
    assert configs["passage.interp.max_bytes"]["read_by"] == (
        "the interpreter (psg_eval), the TIR interpreter (psg_tir_eval)")
    assert configs["passage.interp.max_steps"]["read_by"] == "the TIR interpreter (psg_tir_eval)"
    assert configs["passage.max_constant_bytes"]["read_by"] == "FoldConstant, the ONNX importer"
