#!/usr/bin/python3
"""Writes conv1d.onnx (argv[1]: the directory) for names_conv1d.test: two
1-D Convs ("conv_a", "conv_b") on the same input. Each imports as
reshape -> conv2d -> reshape; -O3 merges the two input reshapes into one, so
the merged reshape is read by its own group's Conv and by the other's."""
import sys

import numpy as np
import onnx
import onnx.numpy_helper
from onnx import TensorProto as T
from onnx import helper as h

rng = np.random.RandomState(0)
Wa = onnx.numpy_helper.from_array(rng.randn(4, 2, 3).astype(np.float32), "Wa")
Wb = onnx.numpy_helper.from_array(rng.randn(4, 2, 3).astype(np.float32), "Wb")
nodes = [
    h.make_node("Conv", ["x", "Wa"], ["a"], name="conv_a"),
    h.make_node("Conv", ["x", "Wb"], ["b"], name="conv_b"),
    h.make_node("Add", ["a", "b"], ["y"], name="sum"),
]
g = h.make_graph(nodes, "conv1d", [h.make_tensor_value_info("x", T.FLOAT, [1, 2, 16])],
                 [h.make_tensor_value_info("y", T.FLOAT, [1, 4, 14])], [Wa, Wb])
m = h.make_model(g, opset_imports=[h.make_opsetid("", 14)])
onnx.checker.check_model(m)
onnx.save(m, sys.argv[1] + "/conv1d.onnx")
