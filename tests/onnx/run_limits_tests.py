#!/usr/bin/python3
"""The ONNX frontend's sizes and names (issue 13). Sizes: no fixed cap on a
node's inputs or outputs, in import or export (a 100-input Concat, a 70-input
Max, a 70-output If round-trip; they stopped at 64 before; 40 Ifs side by
side, which overflowed the support check's 64-graph stack), and the bounds
that remain are located errors naming node and limit: LSTM's 8 inputs (the
ONNX spec's) and subgraphs nested over 64 deep (branches convert by nested
calls).
Names: an exported model keeps the graph's input and output names; a module
without them (Relay text) gets "output" / "output_I"; a name that clashes
with another value falls back to the generated one, then gets _1, _2, ...
Every model is built with python3-onnx's helpers and run through the CLI.
Run with /usr/bin/python3."""
import argparse, os, subprocess, sys, tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
failed = 0


def check(ok, what):
    global failed
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    failed += not ok


def model(nodes, inputs, outputs, opset=13):
    g = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def vi(name, shape, t=F):
    return helper.make_tensor_value_info(name, t, shape)


def run(passage, args):
    p = subprocess.run([passage] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stderr.decode()


def opt(passage, tmp, m, name, level="-O0", suffix=".onnx", load=True):
    """Writes m (a ModelProto or Relay text), runs `passage opt` to ONNX; the exported
    model (True when not `load`) or None, and stderr."""
    src = os.path.join(tmp, name + suffix)
    if isinstance(m, str):
        open(src, "w").write(m)
    else:
        onnx.save(m, src)
    out = os.path.join(tmp, name + ".out.onnx")
    rc, err = run(passage, ["opt", src, level, "-o", out])
    return ((onnx.load(out) if load else True) if rc == 0 else None), err


def io(m):
    return [i.name for i in m.graph.input], [o.name for o in m.graph.output]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passage", required=True)
    passage = ap.parse_args().passage
    with tempfile.TemporaryDirectory() as tmp:
        # Sizes ---------------------------------------------------------------
        n = 100
        ins = ["x%d" % i for i in range(n)]
        m = model([helper.make_node("Concat", ins, ["y"], name="cat", axis=0)], [vi(x, [1, 2]) for x in ins], [vi("y", [n, 2])])
        got, err = opt(passage, tmp, m, "concat100")
        cat = [nd for nd in got.graph.node if nd.op_type == "Concat"] if got else []
        check(got is not None and len(cat) == 1 and len(cat[0].input) == n, "Concat of %d inputs imports and exports whole %s" % (n, err.strip()))

        n = 70
        ins = ["x%d" % i for i in range(n)]
        m = model([helper.make_node("Max", ins, ["y"], name="max")], [vi(x, [2]) for x in ins], [vi("y", [2])])
        got, err = opt(passage, tmp, m, "max70")
        check(got is not None and io(got)[0] == ins, "Max of %d inputs imports %s" % (n, err.strip()))

        outs = ["o%d" % i for i in range(n)]
        branch = lambda tag, op: helper.make_graph(
            [helper.make_node(op, ["x"], ["%s%d" % (tag, i)], name="%s%d" % (tag, i)) for i in range(n)], tag, [],
            [vi("%s%d" % (tag, i), [2]) for i in range(n)])
        m = model([helper.make_node("If", ["c"], outs, name="if70", then_branch=branch("t", "Relu"), else_branch=branch("e", "Neg"))],
                  [vi("c", [], TensorProto.BOOL), vi("x", [2])], [vi(o, [2]) for o in outs])
        got, err = opt(passage, tmp, m, "if70")
        ifs = [nd for nd in got.graph.node if nd.op_type == "If"] if got else []
        check(got is not None and len(ifs) == 1 and len(ifs[0].output) == n and io(got)[1] == outs,
              "If of %d outputs round-trips with its output names %s" % (n, err.strip()))

        x = helper.make_tensor_value_info("X", F, [1, 1, 2])
        lstm_in = ["X", "W", "R", "", "", "", "", "", "extra"]
        w = numpy_helper.from_array(np.zeros((1, 4, 2), np.float32), "W")
        r = numpy_helper.from_array(np.zeros((1, 4, 1), np.float32), "R")
        g = helper.make_graph([helper.make_node("LSTM", lstm_in, ["Y"], name="lstm9", hidden_size=1)], "g", [x, vi("extra", [1])],
                              [helper.make_empty_tensor_value_info("Y")], initializer=[w, r])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        got, err = opt(passage, tmp, m, "lstm9")
        check(got is None and "node 'lstm9' (LSTM): LSTM takes at most 8 inputs, not 9" in err, "LSTM with 9 inputs: %s" % err.strip())

        # 40 Ifs side by side (80 branch graphs: the support check's stack held 64).
        n = 40
        nodes = [helper.make_node("If", ["c"], ["y%d" % i], name="if%d" % i,
                                  then_branch=helper.make_graph([helper.make_node("Relu", ["x"], ["t%d" % i])], "t%d" % i, [], [vi("t%d" % i, [2])]),
                                  else_branch=helper.make_graph([helper.make_node("Neg", ["x"], ["e%d" % i])], "e%d" % i, [], [vi("e%d" % i, [2])]))
                 for i in range(n)]
        m = model(nodes, [vi("c", [], TensorProto.BOOL), vi("x", [2])], [vi("y%d" % i, [2]) for i in range(n)])
        got, err = opt(passage, tmp, m, "ifs40")
        check(got is not None and len([nd for nd in got.graph.node if nd.op_type == "If"]) == n, "%d Ifs side by side %s" % (n, err.strip()))

        # Ifs nested 65 deep: branches are converted by nested calls, so the depth is bounded.
        def nested(depth):
            g = None
            for d in range(depth, 0, -1):
                inner = [helper.make_node("If", ["c"], ["v%d" % d], name="if_d%d" % d, then_branch=g,
                                          else_branch=helper.make_graph([helper.make_node("Neg", ["x"], ["n%d" % d])], "e%d" % d, [], [vi("n%d" % d, [2])]))] \
                    if g else [helper.make_node("Relu", ["x"], ["v%d" % d])]
                g = helper.make_graph(inner, "g%d" % d, [], [vi("v%d" % d, [2])])
            return model([helper.make_node("If", ["c"], ["y"], name="if_top", then_branch=g,
                                           else_branch=helper.make_graph([helper.make_node("Neg", ["x"], ["n0"])], "e0", [], [vi("n0", [2])]))],
                         [vi("c", [], TensorProto.BOOL), vi("x", [2])], [vi("y", [2])])
        # (Python's protobuf cannot read a message nested this deep: only the status is checked.)
        got, err = opt(passage, tmp, nested(60), "nest60", load=False)
        check(got is not None, "Ifs nested 61 deep import and export %s" % err.strip())
        got, err = opt(passage, tmp, nested(66), "nest66")
        check(got is None and "(If): subgraphs nested more than 64 deep" in err, "Ifs nested 67 deep: %s" % err.strip())

        # Names ---------------------------------------------------------------
        m = model([helper.make_node("Relu", ["in.0"], ["sig:out"], name="r"), helper.make_node("Neg", ["in.0"], ["n/2"], name="n")],
                  [vi("in.0", [2])], [vi("sig:out", [2]), vi("n/2", [2])])
        for level in ("-O0", "-O3"):
            got, err = opt(passage, tmp, m, "names" + level, level)
            check(got is not None and io(got) == (["in.0"], ["sig:out", "n/2"]), "ONNX names kept at %s: %s" % (level, str(io(got)) if got else err))

        # A graph output that is a graph input: the output must be a value of its own.
        m = model([], [vi("x", [2])], [vi("x", [2])])
        got, err = opt(passage, tmp, m, "passthrough")
        check(got is not None and io(got) == (["x"], ["output"]), "an output named like an input falls back: %s" % (str(io(got)) if got else err))

        relay = '#[version = "0.0.5"]\ndef @main(%%x: Tensor[(2), float32]%s) {\n  %s\n}\n'
        got, err = opt(passage, tmp, relay % ("", "(nn.relu(%x), negative(%x))"), "relay2", suffix=".relay")
        check(got is not None and io(got) == (["x"], ["output_0", "output_1"]), "Relay text: generated output names: %s" % (str(io(got)) if got else err))

        got, err = opt(passage, tmp, relay % (", %output: Tensor[(2), float32]", "add(%x, %output)"), "relay_clash", suffix=".relay")
        check(got is not None and io(got) == (["x", "output"], ["output_1"]), "Relay text: 'output' taken by an input: %s" % (str(io(got)) if got else err))

        attrs = '#[version = "0.0.5"]\n#[attrs = {output_names=[%s]}]\n' + relay.split("\n", 1)[1]
        src = attrs % ('"a", "x"', "", "(nn.relu(%x), negative(%x))")
        got, err = opt(passage, tmp, src, "relay_named", suffix=".relay")
        check(got is not None and io(got) == (["x"], ["a", "output_1"]), "output_names, one taken by an input: %s" % (str(io(got)) if got else err))

        src = attrs % ('"y", "y"', "", "(nn.relu(%x), negative(%x))")
        got, err = opt(passage, tmp, src, "relay_twice", suffix=".relay")
        check(got is not None and io(got) == (["x"], ["y", "output_1"]), "output_names naming one twice: %s" % (str(io(got)) if got else err))

        src = attrs % ('"only"', "", "(nn.relu(%x), negative(%x))")
        got, err = opt(passage, tmp, src, "relay_short", suffix=".relay")
        check(got is not None and io(got) == (["x"], ["output_0", "output_1"]), "output_names of the wrong length is ignored: %s" % (str(io(got)) if got else err))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
