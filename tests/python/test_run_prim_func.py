"""`passage run` on a PrimFunc: the TIR interpreter over .npy buffers,
checked against numpy. The outputs are the buffer parameters the function
stores into, in parameter order (OUT_0.npy, OUT_1.npy, ...)."""

import os
import subprocess

import numpy as np
import pytest

import passage

PASSAGE = os.path.join(os.path.dirname(passage.library_path), "passage")

MATMUL = '''# from tvm.script import tir as T

@T.prim_func
def matmul(A: T.Buffer((4, 3), "float32"), B: T.Buffer((3, 5), "float32"), C: T.Buffer((4, 5), "float32")):
    for i, j in T.grid(4, 5):
        C[i, j] = T.float32(0)
        for k in range(3):
            C[i, j] = C[i, j] + A[i, k] * B[k, j]
'''

TWO_OUTPUTS = '''# from tvm.script import tir as T

@T.prim_func
def split(x: T.handle, n: T.int32, Lo: T.Buffer((8,), "int32"), Hi: T.Buffer((8,), "int32")):
    X = T.match_buffer(x, (8,), "int32")
    for i in range(8):
        Lo[i] = T.min(X[i], n)
        Hi[i] = T.max(X[i], n) // 2
'''


def _run(tmp_path, source, name, arrays, *extra):
    src = tmp_path / name
    src.write_text(source)
    args = [PASSAGE, "run", str(src)]
    for key, value in arrays.items():
        path = tmp_path / (key + ".npy")
        np.save(path, value)
        args += ["--input", "%s=%s" % (key, path)]
    res = subprocess.run(args + list(extra), capture_output=True, text=True, timeout=60)
    return res


def test_matmul_matches_numpy(tmp_path):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 3)).astype("float32")
    b = rng.standard_normal((3, 5)).astype("float32")
    res = _run(tmp_path, MATMUL, "matmul.py", {"A": a, "B": b}, "-o", str(tmp_path / "c.npy"))
    assert res.returncode == 0, res.stderr
    np.testing.assert_allclose(np.load(tmp_path / "c.npy"), a @ b, rtol=1e-5, atol=1e-6)


def test_written_buffers_are_the_outputs(tmp_path):
    x = np.array([5, -3, 12, 7, 0, 9, 2, 30], "int32")
    n = np.array(6, "int32")
    res = _run(tmp_path, TWO_OUTPUTS, "split.py", {"x": x, "n": n}, "-o", str(tmp_path / "out.npy"))
    assert res.returncode == 0, res.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "out_0.npy"), np.minimum(x, 6))
    np.testing.assert_array_equal(np.load(tmp_path / "out_1.npy"), np.maximum(x, 6) // 2)
    assert not (tmp_path / "out_2.npy").exists()


def test_prim_func_in_a_mixed_file(tmp_path):
    text = '#[version = "0.0.5"]\ndef @main(%x: Tensor[(4, 3), float32]) {\n  %x\n}\n\n' + \
        MATMUL.split("\n", 2)[2]
    a, b = np.ones((4, 3), "float32"), np.full((3, 5), 2, "float32")
    res = _run(tmp_path, text, "m.relay", {"A": a, "B": b}, "--function", "matmul",
               "-o", str(tmp_path / "c.npy"))
    assert res.returncode == 0, res.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "c.npy"), a @ b)


@pytest.mark.parametrize("shape,dtype,message", [
    ((3, 4), "float32", "--input A=%s is float32 (3, 4), but buffer 'A' of @matmul is float32 (4, 3)"),
    ((4, 3), "float64", "--input A=%s is float64 (4, 3), but buffer 'A' of @matmul is float32 (4, 3)"),
])
def test_mismatch_is_a_located_error(tmp_path, shape, dtype, message):
    res = _run(tmp_path, MATMUL, "matmul.py", {"A": np.ones(shape, dtype), "B": np.ones((3, 5), "float32")})
    assert res.returncode == 1
    path = tmp_path / "A.npy"
    assert "matmul.py:4:12: error: " + message % path in res.stderr


ELIF_CHAIN = '''# from tvm.script import tir as T

@T.prim_func
def chain(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int32")):
    for i in range(8):
        if i < 2:
            B[i] = A[i]
        elif i < 4:
            B[i] = A[i] * 2
        elif i < 6:
            B[i] = A[i] * 3
        else:
            B[i] = 0
        A[i] = 1
    B[0] = B[0] + 1
'''


def test_elif_chain_runs_each_branch(tmp_path):
    # `elif` is `else:` + a nested `if`; the store after the chain runs for
    # every i, the one after the loop once.
    a = np.arange(10, 18, dtype="int32")
    res = _run(tmp_path, ELIF_CHAIN, "chain.py", {"A": a}, "-o", str(tmp_path / "out.npy"))
    assert res.returncode == 0, res.stderr
    want_b = np.where(np.arange(8) < 2, a, np.where(np.arange(8) < 4, a * 2, np.where(np.arange(8) < 6, a * 3, 0)))
    want_b[0] += 1
    np.testing.assert_array_equal(np.load(tmp_path / "out_0.npy"), np.ones(8, "int32"))
    np.testing.assert_array_equal(np.load(tmp_path / "out_1.npy"), want_b)
