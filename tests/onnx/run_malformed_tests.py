#!/usr/bin/python3
"""Malformed and unsupported ONNX inputs (issue 6, STYLE rule 13): each
generated model must make `passage import` fail with exit status 1 and the
named diagnostic, never crash; plus --input-shape bindings of dynamic dims.
Models are built with python3-onnx's helpers in a temporary directory.
Run with /usr/bin/python3."""
import argparse, os, subprocess, sys, tempfile

import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def model(nodes, inputs, outputs, inits=(), opset=13):
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString()


def vi(name, shape, t=F):
    return helper.make_tensor_value_info(name, t, shape)


def relu_model():
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu_0")], [vi("x", [2, 3])], [vi("y", [2, 3])])


def bad_raw_init():
    w = TensorProto(name="w", data_type=F, dims=[2, 3], raw_data=np.zeros(5, np.float32).tobytes())
    return model([helper.make_node("Add", ["x", "w"], ["y"], name="add_0")], [vi("x", [2, 3])], [vi("y", [2, 3])], [w])


def bad_float_init():
    w = TensorProto(name="w", data_type=F, dims=[2, 3], float_data=[1.0, 2.0])
    return model([helper.make_node("Add", ["x", "w"], ["y"], name="add_0")], [vi("x", [2, 3])], [vi("y", [2, 3])], [w])


def if_model(cond_nodes, cond, inputs, then_nodes, then_out, else_nodes, else_out, inits=()):
    """If(cond) over x, each branch a graph of `*_nodes` whose output is named `*_out`."""
    thn = helper.make_graph(then_nodes, "then", [], [helper.make_empty_tensor_value_info(then_out)])
    els = helper.make_graph(else_nodes, "else", [], [helper.make_empty_tensor_value_info(else_out)])
    node = helper.make_node("If", [cond], ["y"], name="if_0", then_branch=thn, else_branch=els)
    return model(cond_nodes + [node], inputs, [helper.make_empty_tensor_value_info("y")], inits)


def if_ranks_runtime():
    # The condition is a graph input: both branches are converted and must agree.
    return if_model([], "c", [vi("x", [2, 3]), vi("c", [], TensorProto.BOOL)],
                    [helper.make_node("Identity", ["x"], ["t"])], "t",
                    [helper.make_node("Flatten", ["x"], ["e"], axis=0)], "e")


def if_ranks_static():
    # The condition comes from a static shape (x.shape[0] == 1): only the branch taken is
    # converted (the other, Flatten to (1, 3), does not have its rank 1).
    i64 = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)
    cond = [helper.make_node("Shape", ["x"], ["s"]), helper.make_node("Gather", ["s", "zero"], ["d0"]),
            helper.make_node("Equal", ["d0", "one"], ["c"])]
    return if_model(cond, "c", [vi("x", [1, 3])], [helper.make_node("Squeeze", ["x", "axes"], ["t"])], "t",
                    [helper.make_node("Flatten", ["x"], ["e"], axis=0)], "e",
                    [i64("zero", 0), i64("one", 1), i64("axes", [0])])


CASES = [
    # name, bytes (or callable), extra args, expected substring
    ("empty", lambda: b"", [], "empty file"),
    ("garbage", lambda: b"\xff\xff\xff\xff\x0f not a model", [], "not a valid ONNX ModelProto"),
    ("truncated", lambda: relu_model()[:-7], [], "not a valid ONNX ModelProto"),
    ("raw initializer size", bad_raw_init, [], "initializer 'w': raw_data has 20 bytes, but float32 of 6 elements needs 24"),
    ("typed initializer size", bad_float_init, [], "initializer 'w' has 2 stored elements, but its shape needs 6"),
    ("dangling input", lambda: model([helper.make_node("Relu", ["nope"], ["y"], name="relu_0")], [vi("x", [2])], [vi("y", [2])]),
     [], "node 'relu_0' (Relu): input 'nope' is not produced by any node, initializer or graph input"),
    ("dangling output", lambda: model([helper.make_node("Relu", ["x"], ["y"], name="relu_0")], [vi("x", [2])], [vi("z", [2])]),
     [], "graph output 'z' is not produced"),
    # found by fuzz_onnx: a converter's result for a node without outputs leaked
    ("node without outputs", lambda: model([helper.make_node("Gemm", ["a", "b"], [], name="gm")], [vi("a", [3, 6]), vi("b", [6, 4])], [vi("y", [3, 4])]),
     [], "graph output 'y' is not produced"),
    ("cycle", lambda: model([helper.make_node("Relu", ["b"], ["a"], name="r1"), helper.make_node("Neg", ["a"], ["b"], name="r2")],
                            [vi("x", [2])], [vi("a", [2])]), [], "is part of a cycle"),
    ("duplicate output", lambda: model([helper.make_node("Relu", ["x"], ["y"], name="r1"), helper.make_node("Neg", ["x"], ["y"], name="r2")],
                                       [vi("x", [2])], [vi("y", [2])]), [], "output 'y' is already defined"),
    ("unknown opset", lambda: model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", [2])], [vi("y", [2])], opset=99),
     [], "unknown opset 99 (supported: 1 to 18)"),
    ("unsupported ops, all at once", lambda: model([helper.make_node("Foo", ["x"], ["a"], name="f"), helper.make_node("Bar", ["a"], ["b"], name="g"),
                                                   helper.make_node("Relu", ["b"], ["y"], name="r", weird=3)],
                                                  [vi("x", [2])], [vi("y", [2])]),
     [], ["unsupported operator Foo", "unsupported operator Bar", "node 'r' (Relu): unsupported attribute 'weird'"]),
    ("mixed dtypes", lambda: model([helper.make_node("Add", ["x", "i"], ["y"], name="add_1")], [vi("x", [2]), vi("i", [2], TensorProto.INT64)], [vi("y", [2])]),
     [], "node 'add_1' (Add): inputs have different element types (float32 and int64)"),
    ("shape error", lambda: model([helper.make_node("Add", ["x", "z"], ["y"], name="add_2")], [vi("x", [2, 3]), vi("z", [4, 5])], [vi("y", [2])]),
     [], "node 'add_2' (Add)"),
    ("non-constant reshape", lambda: model([helper.make_node("Reshape", ["x", "s"], ["y"], name="rs")], [vi("x", [6]), vi("s", [2], TensorProto.INT64)], [vi("y", [2, 3])]),
     [], "node 'rs' (Reshape): the shape input must be a constant"),
    ("3-D conv", lambda: model([helper.make_node("Conv", ["x", "w"], ["y"], name="c3")], [vi("x", [1, 1, 4, 4, 4]), vi("w", [1, 1, 2, 2, 2])], [vi("y", [1])]),
     [], "node 'c3' (Conv): Conv of rank 5 is not supported"),
    ("dynamic dim without binding", lambda: model([helper.make_node("Flatten", ["x"], ["y"], name="fl", axis=2)], [vi("x", ["N", 3, 4])], [vi("y", [None, None])]),
     [], "node 'fl' (Flatten): Flatten at axis 2 needs static leading dims"),
    ("binding of wrong rank", lambda: model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", ["N", 3])], [vi("y", ["N", 3])]),
     ["--input-shape", "x=1,3,5"], "--input-shape gives 'x' rank 3, but the model says 2"),
    ("binding that contradicts", lambda: model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", ["N", 3])], [vi("y", ["N", 3])]),
     ["--input-shape", "x=2,4"], "dim 1 = 4, but the model says 3"),
    ("binding of no input", lambda: relu_model(), ["--input-shape", "q=1"], "--input-shape 'q=1' names no graph input"),
    ("If branches of different ranks, runtime condition", if_ranks_runtime, [],
     "node 'if_0' (If): output 0 is (2, 3) float32 in then_branch but (1, 6) float32 in else_branch, "
     "and the condition depends on graph inputs"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passage", required=True)
    args = ap.parse_args()
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, make, extra, expect in CASES:
            path = os.path.join(tmp, name.replace(" ", "_").replace(",", "") + ".onnx")
            with open(path, "wb") as f:
                f.write(make())
            p = subprocess.run([args.passage, "import", path] + extra, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            err = p.stderr.decode(errors="replace")
            wants = expect if isinstance(expect, list) else [expect]
            ok = p.returncode == 1 and all(w in err for w in wants)
            print("%-4s %s%s" % ("ok" if ok else "FAIL", name, "" if ok else "\n  rc=%d stderr: %s" % (p.returncode, err.strip())))
            failed += not ok
        # A dynamic dim bound on the command line: the imported type shows it.
        path = os.path.join(tmp, "dyn.onnx")
        with open(path, "wb") as f:
            f.write(model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", ["N", 3])], [vi("y", ["N", 3])]))
        p = subprocess.run([args.passage, "import", path, "--input-shape", "x=5,3"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        ok = p.returncode == 0 and b"Tensor[(5, 3), float32]" in p.stdout
        p2 = subprocess.run([args.passage, "import", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        ok2 = p2.returncode == 0 and b"Tensor[(?, 3), float32]" in p2.stdout
        print("%-4s dynamic dim bound by --input-shape" % ("ok" if ok else "FAIL"))
        print("%-4s dynamic dim left unknown where the op allows" % ("ok" if ok2 else "FAIL"))
        if not ok2:
            print(p2.stdout.decode(), p2.stderr.decode())
        failed += (not ok) + (not ok2)
        # If on a condition known from static shapes: the branch taken only, no Relay If.
        path = os.path.join(tmp, "if_static.onnx")
        with open(path, "wb") as f:
            f.write(if_ranks_static())
        p = subprocess.run([args.passage, "import", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        ok = p.returncode == 0 and b"squeeze(%x, axis=[0])" in p.stdout and b"if (" not in p.stdout
        print("%-4s If on a static-shape condition imports the branch taken" % ("ok" if ok else "FAIL"))
        if not ok:
            print(p.stdout.decode(), p.stderr.decode())
        failed += not ok
        # A runtime condition over branches (?, 3) and (2, 3): one Relay If, typed (?, 3).
        path = os.path.join(tmp, "if_join.onnx")
        with open(path, "wb") as f:
            f.write(if_model([], "c", [vi("x", ["N", 3]), vi("c", [], TensorProto.BOOL)],
                             [helper.make_node("Identity", ["x"], ["t"])], "t", [helper.make_node("Identity", ["k"], ["e"])], "e",
                             [numpy_helper.from_array(np.ones((2, 3), np.float32), "k")]))
        p = subprocess.run([args.passage, "import", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        ok = p.returncode == 0 and b"if (%c)" in p.stdout
        print("%-4s If on a runtime condition, branches (?, 3) and (2, 3)" % ("ok" if ok else "FAIL"))
        if not ok:
            print(p.stdout.decode(), p.stderr.decode())
        failed += not ok
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
