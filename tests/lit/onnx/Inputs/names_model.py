#!/usr/bin/python3
"""Writes small ONNX models with named nodes for names.test (argv[1]: the
directory). names.onnx: a Conv with bias, a Relu, a second Conv equal to the
first (CSE merges them at -O3), an Add named like a generated name
("Relu_2"), a HardSwish (decomposed on import, one node again on export), a
LayerNormalization over axis 1 (decomposed, stays several nodes), an If on a
graph input whose then-branch holds a node named like a main-graph node
("my_relu") and an unnamed node. bad.onnx: an Add whose inputs do not
broadcast."""
import os
import sys

import numpy as np
import onnx
import onnx.numpy_helper
from onnx import TensorProto as T
from onnx import helper as h

out = sys.argv[1]
rng = np.random.RandomState(0)
W = rng.randn(4, 3, 3, 3).astype(np.float32)
B = np.arange(4).astype(np.float32)
then_g = h.make_graph([h.make_node("Relu", ["ln"], ["t"], name="my_relu"),
                       h.make_node("Sigmoid", ["t"], ["t2"])], "then",
                      [], [h.make_tensor_value_info("t2", T.FLOAT, None)])
else_g = h.make_graph([h.make_node("Neg", ["ln"], ["e"], name="br_neg")], "else",
                      [], [h.make_tensor_value_info("e", T.FLOAT, None)])
nodes = [
    h.make_node("Conv", ["x", "W", "B"], ["c"], name="my_conv", pads=[1, 1, 1, 1]),
    h.make_node("Relu", ["c"], ["r"], name="my_relu"),
    h.make_node("Conv", ["x", "W", "B"], ["c2"], name="dup_conv", pads=[1, 1, 1, 1]),
    h.make_node("Add", ["r", "c2"], ["a"], name="Relu_2"),
    h.make_node("HardSwish", ["a"], ["hs"], name="my_hs"),
    h.make_node("LayerNormalization", ["hs", "g", "b2"], ["ln"], name="my_ln", axis=1),
    h.make_node("If", ["cond"], ["y"], name="my_if", then_branch=then_g, else_branch=else_g),
]
g = h.make_graph(nodes, "g",
                 [h.make_tensor_value_info("x", T.FLOAT, [1, 3, 8, 8]), h.make_tensor_value_info("cond", T.BOOL, [])],
                 [h.make_tensor_value_info("y", T.FLOAT, None)],
                 [onnx.numpy_helper.from_array(W, "W"), onnx.numpy_helper.from_array(B, "B"),
                  onnx.numpy_helper.from_array(np.ones((4, 8, 8), np.float32), "g"),
                  onnx.numpy_helper.from_array(np.zeros((4, 8, 8), np.float32), "b2")])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), os.path.join(out, "names.onnx"))

bad = h.make_graph([h.make_node("Add", ["a", "b"], ["y"], name="bad_add")], "bad",
                   [h.make_tensor_value_info("a", T.FLOAT, [2, 3]), h.make_tensor_value_info("b", T.FLOAT, [4, 5])],
                   [h.make_tensor_value_info("y", T.FLOAT, None)])
onnx.save(h.make_model(bad, opset_imports=[h.make_opsetid("", 14)]), os.path.join(out, "bad.onnx"))
