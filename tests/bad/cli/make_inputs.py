#!/usr/bin/python3
"""Writes the binary inputs of the cli corpus (cases.txt) into this folder:
small .npy and .onnx files, good and broken. Run it again after changing it;
its outputs are committed so the corpus needs no numpy or onnx to run."""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def npy(array):
    import io
    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


def main():
    good = npy(np.ones(2, np.float32))
    write("good2.npy", good)
    write("empty.npy", b"")
    write("bad_magic.npy", b"\x93NUMPX\x01\x00" + b" " * 56)
    write("truncated_header.npy", good[:20])
    write("truncated_data.npy", good[:-4])
    write("complex.npy", npy(np.ones(2, np.complex64)))
    write("wrong_shape.npy", npy(np.ones(3, np.float32)))
    write("int32.npy", npy(np.ones(2, np.int32)))
    write("fortran.npy", npy(np.asfortranarray(np.ones((2, 3), np.float32))))
    write("unicode.npy", npy(np.array(["a", "bcd"])))

    node = helper.make_node("Add", ["x", "x"], ["y"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    data = model.SerializeToString()
    write("good.onnx", data)
    write("truncated.onnx", data[: len(data) // 2])
    write("empty.onnx", b"")
    write("garbage.onnx", b"\x08\x07\x12\x04junk\x3a\xff\xff\xff\xff\x0f")
    dyn = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
                            [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])])
    write("dynamic.onnx", helper.make_model(dyn, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString())


if __name__ == "__main__":
    main()
