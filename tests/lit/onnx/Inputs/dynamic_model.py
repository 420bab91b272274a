#!/usr/bin/python3
"""Writes, into the directory argv[1], for run_bind_inputs.test:
  dyn.onnx    x: float32 (N, 3) with N dynamic, s: int64 scalar;
              y = Reshape(x, Shape(x)) * Cast(s): importing it needs N
              ("the shape input must be a constant" otherwise);
  relu.onnx   x: float32 (N, 3); y = Relu(x): imports with N unknown;
and the arrays x.npy (2, 3), x_wide.npy (2, 4), x_f64.npy (2, 3) float64,
s.npy (a scalar 3)."""
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h

d = sys.argv[1]
x = h.make_tensor_value_info("x", T.FLOAT, ["N", 3])
nodes = [
    h.make_node("Shape", ["x"], ["sh"], name="shape"),
    h.make_node("Reshape", ["x", "sh"], ["r"], name="reshape"),
    h.make_node("Cast", ["s"], ["sf"], name="cast", to=T.FLOAT),
    h.make_node("Mul", ["r", "sf"], ["y"], name="mul"),
]
g = h.make_graph(nodes, "dyn", [x, h.make_tensor_value_info("s", T.INT64, [])],
                 [h.make_tensor_value_info("y", T.FLOAT, ["N", 3])])
m = h.make_model(g, opset_imports=[h.make_opsetid("", 14)])
onnx.checker.check_model(m)
onnx.save(m, d + "/dyn.onnx")
g = h.make_graph([h.make_node("Relu", ["x"], ["y"], name="relu")], "relu", [x],
                 [h.make_tensor_value_info("y", T.FLOAT, ["N", 3])])
m = h.make_model(g, opset_imports=[h.make_opsetid("", 14)])
onnx.checker.check_model(m)
onnx.save(m, d + "/relu.onnx")
np.save(d + "/x.npy", np.arange(6, dtype=np.float32).reshape(2, 3))
np.save(d + "/x_wide.npy", np.zeros((2, 4), np.float32))
np.save(d + "/x_f64.npy", np.zeros((2, 3), np.float64))
np.save(d + "/s.npy", np.array(3, np.int64))
