"""`passage opt -O3 --lower`: the Relay graph after -O3 lowered by LowerTE and
TVM's TIR list (tir.default_pipeline). The lowered module holds the host
`main` calling PrimFuncs through call_lowered, and `passage run` gives the
unlowered module's outputs within the project tolerance
(|ours - ref| <= 1e-4 * max(|ref|, 1e-2))."""

import os
import subprocess

import numpy as np

import passage

PASSAGE = os.path.join(os.path.dirname(passage.library_path), "passage")

MODEL = '''#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 10, 10), float32], %w: Tensor[(8, 3, 3, 3), float32], %b: Tensor[(8), float32],
          %d: Tensor[(10, 128), float32]) {
  %0 = nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.relu(%1);
  %3 = nn.max_pool2d(%2, pool_size=[2, 2], strides=[1, 1], padding=[0, 0, 0, 0]);
  %4 = reshape(%3, newshape=[1, -1]);
  %5 = nn.dense(%4, %d, units=10);
  %6 = nn.softmax(%5);
  (%6, sigmoid(%5))
}
'''


def _passage(*args):
    done = subprocess.run([PASSAGE, *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _outputs(tmp_path, module, stem):
    _passage("run", str(module), "--random-inputs", "7", "-o", str(tmp_path / (stem + ".npy")))
    return [np.load(tmp_path / ("%s_%d.npy" % (stem, i))) for i in range(2)]


def test_lowered_model_keeps_its_outputs(tmp_path):
    src = tmp_path / "model.relay"
    src.write_text(MODEL)
    o3, low = tmp_path / "o3.relay", tmp_path / "low.relay"
    _passage("opt", str(src), "-O3", "-o", str(o3))
    _passage("opt", str(src), "-O3", "--lower", "-o", str(low))
    text = low.read_text()
    assert "call_lowered(@tvmgen_default_fused_nn_conv2d" in text
    assert text.count("@T.prim_func") >= 2
    assert "nn.conv2d(" not in text  # every op went into a PrimFunc
    for ref, got in zip(_outputs(tmp_path, o3, "ref"), _outputs(tmp_path, low, "low")):
        assert ref.shape == got.shape
        assert np.all(np.abs(got - ref) <= 1e-4 * np.maximum(np.abs(ref), 1e-2))


def _subscripts(line):
    """The index lists of the subscripts `name[...]` in one line (bracket-aware)."""
    out, i = [], 0
    while True:
        i = line.find("[", i)
        if i < 0:
            return out
        depth, j = 0, i
        while j < len(line):
            depth += {"[": 1, "]": -1}.get(line[j], 0)
            if depth == 0:
                break
            j += 1
        if i > 0 and (line[i - 1].isalnum() or line[i - 1] == "_"):
            out.append(line[i + 1:j])
        i += 1


def _top_level_commas(text):
    depth, n = 0, 0
    for ch in text:
        depth += ch in "([" and 1 or ch in ")]" and -1 or 0
        n += ch == "," and depth == 0
    return n


def test_lowered_prim_funcs_are_flat(tmp_path):
    # tir.default_pipeline flattens buffers (StorageFlatten on legacy-TE
    # functions): in the bodies, every access has one index.
    src = tmp_path / "model.relay"
    src.write_text(MODEL)
    text = _passage("opt", str(src), "-O3", "--lower")
    body = text[text.index("@T.prim_func"):]
    accesses = 0
    for line in body.splitlines():
        if line.lstrip().startswith(("def ", "T.func_attr", "@")) or "T.Buffer(" in line or "T.allocate(" in line:
            continue
        for index in _subscripts(line):
            accesses += 1
            assert _top_level_commas(index) == 0, line
    assert accesses > 10


def test_dump_pipeline_lists_tvms_order():
    out = _passage("opt", "--dump-pipeline", "-p", "lower")
    names = [line.split()[0] for line in out.splitlines() if line.startswith("    tir.")]
    assert names == ["tir.StorageFlatten", "tir.LowerOpaqueBlock", "tir.FlattenBuffer", "tir.NarrowDataType",
                     "tir.Simplify", "tir.LoopPartition", "tir.VectorizeLoop", "tir.InjectVirtualThread",
                     "tir.StorageRewrite", "tir.HoistIfThenElse", "tir.UnrollLoop", "tir.Simplify", "tir.RemoveNoOp",
                     "tir.CommonSubexprElimTIR"]
    assert "  LowerTE " in out
    # TVM's gate: the list is made under the context, without StorageRewrite when disabled
    gated = _passage("opt", "--dump-pipeline", "-p", "lower", "--config", "tir.disable_storage_rewrite=true")
    assert "tir.StorageRewrite" not in gated and "tir.HoistIfThenElse" in gated


def test_module_name_option_prefixes_the_functions(tmp_path):
    src = tmp_path / "model.relay"
    src.write_text(MODEL)
    text = _passage("opt", str(src), "-p", "sequential(FuseOps,LowerTE{module_name=\"test\"})")
    assert "@test_fused_nn_conv2d" in text
