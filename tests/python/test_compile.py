"""passage.compile: psg_compile_* from Python (issue 17) -- a module or a
model file to C, to a loaded shared library, the side params file, and the
errors."""

import os
import shutil
import subprocess

import numpy as np
import pytest

import passage
from passage import relay

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CC = os.environ.get("CC", "cc")
NODE = "/usr/share/libonnx-testdata/data/node"

pytestmark = pytest.mark.skipif(not shutil.which(CC), reason="no C compiler")

W = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5) / 4


def dense_relu():
    x = relay.var("x", shape=(2, 4), dtype="float32")
    y = relay.nn.relu(relay.nn.dense(x, relay.const(W)) + relay.const(np.float32(0.25)))
    return passage.IRModule.from_expr(relay.Function([x], y))


def reference(x):
    return np.maximum(x @ W.T + np.float32(0.25), 0)


X = np.linspace(-2, 2, 8, dtype=np.float32).reshape(2, 4)


def test_output_is_a_loaded_model(tmp_path):
    m = passage.compile(dense_relu(), output=tmp_path / "m.so")
    assert isinstance(m, passage.runtime.CompiledModel)
    assert m.inputs == [("x", (2, 4), "float32")] and m.outputs[0].shape == (2, 3)
    assert m.target == "c -mcpu=native -num-threads=1 -vector-ext=1 -link-params=1"
    np.testing.assert_allclose(m(X), reference(X), rtol=1e-5, atol=1e-6)
    m.close()


def test_emit_c_returns_the_source_and_writes_it(tmp_path):
    src = passage.compile(dense_relu(), "c -vector-ext=0", emit_c=tmp_path / "k.c", name="k")
    assert isinstance(src, passage.compiler.CSource)
    with open(tmp_path / "k.c") as f:
        assert f.read() == src.source
    with open(tmp_path / "k.h") as f:
        assert f.read() == src.header
    assert "k_run(" in src.header and "k_info" in src.source
    assert src.target == "c -mcpu=native -num-threads=1 -vector-ext=0 -link-params=1"
    assert len(src.module_hash) == 16 and src.params is None
    assert src.stats["kernels"] >= 1 and src.stats["calls"] >= 1 and src.stats["constant_bytes"] >= W.nbytes
    # the generated C stands alone and is warning-free under -Wall -Wextra,
    # with scratch (dense's accumulator) and without (an elementwise kernel)
    x = relay.var("x", shape=(5,), dtype="float32")
    passage.compile(passage.IRModule.from_expr(relay.Function([x], relay.nn.relu(x))), emit_c=tmp_path / "e.c")
    for name in ("k", "e"):
        p = subprocess.run([CC, "-std=c99", "-O1", "-Wall", "-Wextra", "-Werror", "-c", str(tmp_path / (name + ".c")),
                            "-o", str(tmp_path / (name + ".o"))], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert p.returncode == 0, p.stdout.decode()


def test_same_module_hash_as_the_cli(tmp_path):
    relay_file = os.path.join(ROOT, "examples", "models", "small_cnn.relay")
    src = passage.compile(relay_file)
    cli = os.path.join(os.path.dirname(passage.library_path), "passage")
    if not os.path.exists(cli):
        pytest.skip("no passage CLI beside the library")
    subprocess.run([cli, "compile", relay_file, "--emit-c", str(tmp_path / "c.c")], check=True,
                   stderr=subprocess.PIPE)
    with open(tmp_path / "c.c") as f:
        assert f.read() == src.source


def test_params_file(tmp_path):
    src = passage.compile(dense_relu(), params_file=tmp_path / "unused.bin")
    assert src.params is not None and len(src.params) >= W.nbytes
    m = passage.compile(dense_relu(), output=tmp_path / "p.so", params_file=tmp_path / "p.bin")
    assert m.params_bytes == os.path.getsize(tmp_path / "p.bin") == len(src.params)
    np.testing.assert_allclose(m(X), reference(X), rtol=1e-5, atol=1e-6)
    m.close()


def test_opt_level_changes_the_pipeline():
    assert passage.compile(dense_relu(), opt_level=0).module_hash != passage.compile(dense_relu()).module_hash


@pytest.mark.skipif(not os.path.exists(os.path.join(NODE, "test_relu", "model.onnx")), reason="no libonnx-testdata")
def test_onnx_file(tmp_path):
    try:
        m = passage.compile(os.path.join(NODE, "test_relu", "model.onnx"), output=tmp_path / "r.so")
    except passage.UnsupportedError as e:
        if "libpassage_onnx" in str(e):
            pytest.skip(str(e))
        raise
    x = np.linspace(-1, 1, int(np.prod(m.inputs[0].shape)), dtype=np.float32).reshape(m.inputs[0].shape)
    np.testing.assert_array_equal(m(x), np.maximum(x, 0))
    m.close()


def test_errors(tmp_path):
    with pytest.raises(passage.InvalidArgumentError, match="vector-ext"):
        passage.compile(dense_relu(), "c -vector-ext=7")
    with pytest.raises(ValueError, match="input_shapes"):
        passage.compile(dense_relu(), input_shapes={"x": (2, 4)})
    with pytest.raises(passage.PassError):  # the C compiler is not there
        old = os.environ.get("CC")
        os.environ["CC"] = str(tmp_path / "no-such-cc")
        try:
            passage.compile(dense_relu(), output=tmp_path / "x.so")
        finally:
            if old is None:
                del os.environ["CC"]
            else:
                os.environ["CC"] = old
