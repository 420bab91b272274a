#!/usr/bin/python3
"""Prints an ONNX file for FileCheck: the default-domain opset, then one
line per node (op type and its inputs, initializers shown as `init`), then
the number of initializers."""
import sys

import onnx

m = onnx.load(sys.argv[1])
onnx.checker.check_model(m)
inits = {t.name for t in m.graph.initializer}
print("opset", [o.version for o in m.opset_import if o.domain in ("", "ai.onnx")][0])
for n in m.graph.node:
    print(n.op_type, " ".join("init" if i in inits else ("-" if not i else "value") for i in n.input))
print("initializers", len(inits))
