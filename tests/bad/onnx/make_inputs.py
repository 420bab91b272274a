#!/usr/bin/python3
"""Writes the hostile ONNX inputs of tests/bad/onnx/cases.txt (issue 14):
tiny models, each built to reach one fault of the importer. Run by hand
after editing (the outputs are committed, each well under 1 KiB):
    /usr/bin/python3 tests/bad/onnx/make_inputs.py tests/bad/onnx
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

OPSET = [helper.make_opsetid("", 13)]


def model(nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, "bad", inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=OPSET, producer_name="passage-bad")
    m.ir_version = 8
    return m


def vinfo(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def constant_of_shape(shape, add):
    """ConstantOfShape(shape) (+ x when `add`): the result is huge."""
    nodes = [helper.make_node("ConstantOfShape", ["s"], ["c"], name="cos")]
    ins = []
    out = "c"
    if add:
        nodes.append(helper.make_node("Add", ["c", "x"], ["y"], name="add"))
        ins = [vinfo("x", TensorProto.FLOAT, [1])]
        out = "y"
    return model(nodes, ins, [vinfo(out, TensorProto.FLOAT, None)], [ints("s", shape)])


def folded_huge():
    """A huge ConstantOfShape reduced to Reshape's shape input: folding it at
    import would materialize the big tensor."""
    nodes = [
        helper.make_node("ConstantOfShape", ["s"], ["c"], name="cos",
                         value=numpy_helper.from_array(np.array([1], dtype=np.int64), "v")),
        helper.make_node("ReduceMax", ["c"], ["m"], name="max", keepdims=0),
        helper.make_node("Unsqueeze", ["m", "ax"], ["m1"], name="unsq"),
        helper.make_node("Reshape", ["x", "m1"], ["y"], name="reshape"),
    ]
    return model(nodes, [vinfo("x", TensorProto.FLOAT, [1])], [vinfo("y", TensorProto.FLOAT, None)],
                 [ints("s", [100000, 100000]), ints("ax", [0])])


def reduce_float_folded():
    """Reshape's shape from ReduceMax of a float constant, folded at import."""
    nodes = [
        helper.make_node("ConstantOfShape", ["s"], ["c"], name="cos",
                         value=numpy_helper.from_array(np.array([1.5], dtype=np.float32), "v")),
        helper.make_node("ReduceMax", ["c"], ["m"], name="max", keepdims=1),
        helper.make_node("Cast", ["m"], ["mi"], name="cast", to=TensorProto.INT64),
        helper.make_node("Reshape", ["x", "mi"], ["y"], name="reshape"),
    ]
    return model(nodes, [vinfo("x", TensorProto.FLOAT, [1])], [vinfo("y", TensorProto.FLOAT, None)],
                 [ints("s", [2])])


def gemm_int8(beta):
    nodes = [helper.make_node("Gemm", ["a", "b", "c"], ["y"], name="gemm", beta=beta)]
    ins = [vinfo("a", TensorProto.INT8, [2, 2]), vinfo("b", TensorProto.INT8, [2, 2]),
           vinfo("c", TensorProto.INT8, [2, 2])]
    return model(nodes, ins, [vinfo("y", TensorProto.INT8, [2, 2])])


def resize_scales(scale):
    scales = numpy_helper.from_array(np.array([1, 1, scale, 1], dtype=np.float32), "scales")
    roi = numpy_helper.from_array(np.zeros([0], dtype=np.float32), "roi")
    nodes = [helper.make_node("Resize", ["x", "roi", "scales"], ["y"], name="resize")]
    return model(nodes, [vinfo("x", TensorProto.FLOAT, [1, 1, 2, 2])], [vinfo("y", TensorProto.FLOAT, None)],
                 [roi, scales])


def gather(index):
    nodes = [helper.make_node("Gather", ["x", "i"], ["y"], name="gather", axis=0)]
    return model(nodes, [vinfo("x", TensorProto.FLOAT, [3])], [vinfo("y", TensorProto.FLOAT, None)],
                 [ints("i", [0, index])])


def split(dim, nout, sizes=None, dtype=TensorProto.FLOAT):
    ins = ["x"] + (["split"] if sizes is not None else [])
    outs = ["y%d" % i for i in range(nout)]
    nodes = [helper.make_node("Split", ins, outs, name="split", axis=0)]
    inits = [ints("split", sizes)] if sizes is not None else []
    return model(nodes, [vinfo("x", dtype, [dim])], [vinfo(o, dtype, None) for o in outs], inits)


def lstm_huge_state():
    """An LSTM whose declared batch and hidden size make a 4 TB zero state."""
    nodes = [helper.make_node("LSTM", ["x", "w", "r"], ["y"], name="lstm", hidden_size=1000000)]
    ins = [vinfo("x", TensorProto.FLOAT, [1, 1000000, 1]), vinfo("w", TensorProto.FLOAT, [1, 4000000, 1]),
           vinfo("r", TensorProto.FLOAT, [1, 4000000, 1000000])]
    return model(nodes, ins, [vinfo("y", TensorProto.FLOAT, None)])


def clip_f16(bounds):
    """Clip on float16, its bounds absent or float16 initializers."""
    ins = ["x", "lo", "hi"] if bounds else ["x"]
    inits = [numpy_helper.from_array(np.array(-1.5, dtype=np.float16), "lo"),
             numpy_helper.from_array(np.array(2.5, dtype=np.float16), "hi")] if bounds else []
    nodes = [helper.make_node("Clip", ins, ["y"], name="clip")]
    return model(nodes, [vinfo("x", TensorProto.FLOAT16, [3])], [vinfo("y", TensorProto.FLOAT16, [3])], inits)


def clip_bf16(bounds):
    """Clip on bfloat16, its bounds absent or bfloat16 initializers (-1.5, 2.5)."""
    ins = ["x", "lo", "hi"] if bounds else ["x"]
    inits = [helper.make_tensor("lo", TensorProto.BFLOAT16, [], b"\xc0\xbf", raw=True),
             helper.make_tensor("hi", TensorProto.BFLOAT16, [], b"\x20\x40", raw=True)] if bounds else []
    nodes = [helper.make_node("Clip", ins, ["y"], name="clip")]
    return model(nodes, [vinfo("x", TensorProto.BFLOAT16, [3])], [vinfo("y", TensorProto.BFLOAT16, [3])], inits)


def conv(op, w_shape, **attrs):
    """A Conv or ConvTranspose on a 1x1x3x3 input, its spatial attributes given."""
    nodes = [helper.make_node(op, ["x", "w"], ["y"], name=op.lower(), **attrs)]
    ins = [vinfo("x", TensorProto.FLOAT, [1, 1, 3, 3]), vinfo("w", TensorProto.FLOAT, w_shape)]
    return model(nodes, ins, [vinfo("y", TensorProto.FLOAT, None)])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    files = {
        "cos_2e9_add.onnx": constant_of_shape([2000000000], True),
        "cos_1e5x1e5.onnx": constant_of_shape([100000, 100000], False),
        "cos_folded.onnx": folded_huge(),
        # found by fuzz_onnx: an empty result with a dim no initializer may have
        # was exported as such an initializer, and the export did not import
        "cos_huge_empty.onnx": constant_of_shape([844424930231968, 0], False),
        # found by fuzz_onnx: folding a float max/min cast the float extreme
        # to int64 (undefined; clang's UBSan in fuzz.onnx, which seeds this folder)
        "reducemax_float_folded.onnx": reduce_float_folded(),
        "gemm_int8_beta.onnx": gemm_int8(8192.0),
        "gemm_int8_nan.onnx": gemm_int8(float("nan")),
        "gemm_int8_ok.onnx": gemm_int8(2.0),
        "resize_nan_scale.onnx": resize_scales(float("nan")),
        "resize_huge_scale.onnx": resize_scales(1e30),
        "gather_oob.onnx": gather(3),
        "gather_neg_oob.onnx": gather(-4),
        "gather_neg_ok.onnx": gather(-3),
        "lstm_huge_state.onnx": lstm_huge_state(),
        # found by fuzz_onnx: float16 Clip exported its bounds as float bits
        # cut to 16 (NaN), and float16 bounds did not import
        "clip_f16.onnx": clip_f16(False),
        "clip_f16_bounds.onnx": clip_f16(True),
        # found by fuzz_onnx: bfloat16 Clip bounds were exported as a float's
        # low half, and bfloat16 bounds did not import
        "clip_bf16.onnx": clip_bf16(False),
        "clip_bf16_bounds.onnx": clip_bf16(True),
        "split_too_many.onnx": split(2, 3),
        "split_uneven.onnx": split(3, 2),
        "split_ok.onnx": split(4, 2),
        "split_sizes_bad.onnx": split(3, 2, [1, 3]),
        "split_sizes_count.onnx": split(3, 2, [1, 1, 1]),
        "split_sizes_ok.onnx": split(3, 2, [1, 2]),
        # found by fuzz_onnx: the equal part size (d + n - 1) / n overflowed
        "split_huge_axis.onnx": split(2 ** 63 - 2, 4, dtype=TensorProto.INT8),
        # found by fuzz_onnx's structure-aware mutator: spatial attribute
        # arithmetic overflowed int64 (UB) instead of failing
        "convt_huge_strides.onnx": conv("ConvTranspose", [1, 2, 3, 3], strides=[2 ** 62, 2 ** 62],
                                        output_shape=[10, 8]),
        "convt_huge_group.onnx": conv("ConvTranspose", [1, 2, 3, 3], group=2 ** 62),
        "convt_neg_output_shape.onnx": conv("ConvTranspose", [1, 2, 3, 3], output_shape=[-1, 5]),
        "convt_output_shape_ok.onnx": conv("ConvTranspose", [1, 2, 3, 3], strides=[3, 2], output_shape=[10, 8]),
        # found by fuzz_onnx: weight channels * group overflowed int64 in the
        # type relation's channel check (UBSan, signed overflow)
        "conv_huge_group.onnx": conv("Conv", [1, 2, 3, 3], group=2 ** 63 - 2),
        "conv_same_huge_dilation.onnx": conv("Conv", [1, 1, 3, 3], auto_pad="SAME_UPPER",
                                             dilations=[2 ** 62, 1]),
    }
    for name, m in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(m.SerializeToString())


if __name__ == "__main__":
    main()
