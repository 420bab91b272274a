"""passage.runtime: compiled models from Python, on the hand-written models
of tests/runtime/fixtures (the model ABI of include/passage/model_abi.h),
built here with the system compiler as `passage compile -o` builds."""

import os
import shutil
import struct
import subprocess

import numpy as np
import pytest

import passage
import passage.runtime

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "runtime", "fixtures")
CC = os.environ.get("CC", "cc")


def build(tmp_path, name, out=None):
    so = str(tmp_path / ((out or name) + ".so"))
    subprocess.run([CC, "-shared", "-fPIC", "-O1", "-I", os.path.join(ROOT, "include"),
                    os.path.join(FIXTURES, name + ".c"), "-o", so], check=True)
    return so


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory):
    if not shutil.which(CC):
        pytest.skip("no C compiler")
    d = tmp_path_factory.mktemp("compiled")
    libs = {n: build(d, n) for n in ("add", "params", "fail", "bad_abi", "not_model")}
    with open(d / "params.bin", "wb") as f:
        f.write(b"PSGFIXP1" + struct.pack("<8f", 1, 2, 3, 4, 0.5, 0.5, 0.5, 0.5))
    libs["dir"] = d
    return libs


X = np.arange(6, dtype=np.float32).reshape(2, 3)
Y = np.full((2, 3), 0.5, dtype=np.float32)


def test_metadata(fixtures):
    with passage.runtime.load(fixtures["add"]) as m:
        assert m.name == "add" and m.target == "c"
        assert m.inputs == [("x", (2, 3), "float32"), ("y", (2, 3), "float32")]
        assert m.outputs[0].name == "output0" and m.outputs[0].shape == (2, 3)
        assert m.kernels == ["tvmgen_default_fused_multiply", "tvmgen_default_fused_add"]
        assert m.kernel_ops == ["multiply", "add"]
        assert m.workspace_bytes == 24 and not m.uses_openmp


def test_call_positional_and_by_name(fixtures):
    m = passage.runtime.load(fixtures["add"])
    expect = X + 2 * Y
    np.testing.assert_array_equal(m(X, Y), expect)
    np.testing.assert_array_equal(m(y=Y, x=X), expect)
    np.testing.assert_array_equal(m(X, y=Y), expect)
    out = m.run(X, Y)
    assert isinstance(out, list) and len(out) == 1 and out[0].dtype == np.float32
    # Lists take the input's dtype.
    np.testing.assert_array_equal(m(X.tolist(), Y.tolist()), expect)
    m.close()
    with pytest.raises(ValueError, match="closed"):
        m(X, Y)


def test_several_outputs_and_params(fixtures):
    m = passage.runtime.load(fixtures["params"])
    y, count = m(np.array([1, -2, 3, 0], np.float32))
    np.testing.assert_array_equal(y, np.array([1.5, -3.5, 9.5, 0.5], np.float32))
    assert count.dtype == np.int64 and count.tolist() == [2]
    m.close()
    moved = str(fixtures["dir"] / "elsewhere.bin")
    shutil.copy(str(fixtures["dir"] / "params.bin"), moved)
    passage.runtime.load(fixtures["params"], params=moved).close()


def test_input_errors(fixtures):
    m = passage.runtime.load(fixtures["add"])
    with pytest.raises(passage.InvalidArgumentError, match=r"no value for input 'y' \(float32 \(2, 3\)\)"):
        m(X)
    with pytest.raises(passage.InvalidArgumentError, match="has no input named 'z'; did you mean"):
        m(X, z=Y)
    with pytest.raises(passage.InvalidArgumentError,
                       match=r"input 'y' must be float32 \(2, 3\), but float64 \(2, 3\) was given"):
        m(X, Y.astype(np.float64))
    with pytest.raises(passage.InvalidArgumentError, match=r"but float32 \(3, 2\) was given"):
        m(X, Y.reshape(3, 2))
    with pytest.raises(TypeError, match="takes 2 inputs, but 3 were given"):
        m(X, Y, Y)
    with pytest.raises(TypeError, match="by position and by name"):
        m(X, x=X)
    m.close()


def test_load_and_run_errors(fixtures, tmp_path):
    with pytest.raises(passage.InvalidArgumentError, match="is not a Passage model"):
        passage.runtime.load(fixtures["not_model"])
    with pytest.raises(passage.UnsupportedError, match="model ABI version 99; this Passage loads version 1"):
        passage.runtime.load(fixtures["bad_abi"])
    with pytest.raises(passage.PassError, match="as a compiled model"):
        passage.runtime.load(str(tmp_path / "none.so"))
    lone = str(tmp_path / "lone.so")
    shutil.copy(fixtures["params"], lone)
    with pytest.raises(passage.PassError, match=r"needs its parameters file .*lone\.bin \(40 bytes\)"):
        passage.runtime.load(lone)
    with passage.runtime.load(fixtures["fail"]) as m:
        np.testing.assert_array_equal(m(np.array([1, 2, 3])), [1, 2, 3])
        with pytest.raises(passage.InvalidArgumentError, match="failed with code 7"):
            m(np.array([-1, 2, 3]))
        with pytest.raises(passage.UnsupportedError, match="built without OpenMP"):
            m.set_num_threads(2)


def test_benchmark(fixtures):
    with passage.runtime.load(fixtures["add"]) as m:
        b = m.benchmark(runs=5, warmup=1)
        assert len(b["times_ms"]) == 5
        assert b["min_ms"] <= b["median_ms"] <= b["p90_ms"] <= b["max_ms"]
        p = m.benchmark(runs=3, inputs={"x": X}, profile=True)
        assert sorted(k[0] for k in p["kernels"]) == ["tvmgen_default_fused_add", "tvmgen_default_fused_multiply"]
        assert all(k[3] == 3 for k in p["kernels"])
        assert sorted(k[0] for k in p["op_kinds"]) == ["add", "multiply"]
        with pytest.raises(TypeError, match="no input named w"):
            m.benchmark(inputs={"w": X})


def test_compiled_small_cnn_matches_the_interpreter(tmp_path):
    """A real model through `passage compile -o`: the library's output next
    to the interpreter's on the same input."""
    cli = os.path.join(os.path.dirname(passage.library_path), "passage")
    probe = subprocess.run([cli, "compile", "--help"], capture_output=True) if os.path.exists(cli) else None
    if probe is None or probe.returncode != 0:
        pytest.skip("no passage compile next to the library")
    src = os.path.join(ROOT, "examples", "models", "small_cnn.relay")
    so = str(tmp_path / "cnn.so")
    subprocess.run([cli, "compile", src, "-o", so], check=True, capture_output=True)
    with passage.runtime.load(so) as m:
        (name, shape, dtype), = m.inputs
        x = np.random.default_rng(0).uniform(-1, 1, shape).astype(dtype)
        got = m(**{name: x})
        np.save(str(tmp_path / "x.npy"), x)
        subprocess.run([cli, "run", src, "--input", "%s=%s" % (name, tmp_path / "x.npy"), "-o",
                        str(tmp_path / "ref.npy")], check=True, capture_output=True)
        ref = np.load(str(tmp_path / "ref.npy"))
        assert got.shape == ref.shape and np.abs(got - ref).max() <= 1e-5
        b = m.benchmark(runs=3, profile=True)
        assert "nn.conv2d" in [k[0] for k in b["op_kinds"]]
