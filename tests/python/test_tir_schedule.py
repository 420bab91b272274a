"""passage.tir.Schedule: TVM's tir.Schedule names and call shapes over our
stages (a block is the stores to one buffer, named after it). Each schedule
is checked against the exact TVMScript expected and, through the TIR
interpreter (`passage run`), against the outputs of the function it came
from; an illegal request raises ScheduleError and keeps the function."""
import os
import subprocess

import numpy as np
import pytest

import passage
from passage import tir

PASSAGE = os.path.join(os.path.dirname(passage.library_path), "passage")

MATMUL = '''# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 6), "float32"), B: T.Buffer((6, 10), "float32"), C: T.Buffer((8, 10), "float32")):
    for i, j, k in T.grid(8, 10, 6):
        if k == 0:
            C[i, j] = T.float32(0)
        C[i, j] = C[i, j] + A[i, k] * B[k, j]
'''

CHAIN = '''# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4, 16), "float32"), D: T.Buffer((4, 16), "float32")):
    B = T.allocate([64], "float32", "global")
    B_1 = T.Buffer((4, 16), data=B)
    C = T.allocate([64], "float32", "global")
    C_1 = T.Buffer((4, 16), data=C)
    for i, j in T.grid(4, 16):
        B_1[i, j] = A[i, j] + T.float32(1)
    for i, j in T.grid(4, 16):
        C_1[i, j] = T.max(B_1[i, j], T.float32(0))
    for i, j in T.grid(4, 16):
        D[i, j] = C_1[i, j] * T.float32(3)
'''


def _func(text):
    return passage.script.from_source(text)


def _run(tmp_path, func, tag):
    src = tmp_path / (tag + ".py")
    src.write_text(func.script())
    out = tmp_path / (tag + ".npy")
    res = subprocess.run([PASSAGE, "run", str(src), "--random-inputs", "11", "-o", str(out)],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return np.load(out)


def _same_outputs(tmp_path, before, sch):
    np.testing.assert_array_equal(_run(tmp_path, before, "before"), _run(tmp_path, sch.func, "after"))


def _body(func):
    text = func.script()
    return text[text.index("def main"):]


def test_register_tiled_matmul(tmp_path):
    f = _func(MATMUL)
    sch = tir.Schedule(f)
    C = sch.get_block("C")
    assert C == tir.BlockRV("C")
    i, j, k = sch.get_loops(C)
    io, ii = sch.split(i, factors=[None, 4])
    jo, ji = sch.split(j, [2, None])
    sch.reorder(io, jo, k, ii, ji)
    assert sch.decompose_reduction(C, k) == C
    sch.vectorize(ji)
    sch.parallel(io)
    sch.annotate(io, "pragma_auto_unroll_max_step", 16)
    assert _body(sch.func) == '''def main(A: T.Buffer((8, 6), "float32"), B: T.Buffer((6, 10), "float32"), C: T.Buffer((8, 10), "float32")):
    for i_0 in T.parallel(2, annotations={"pragma_auto_unroll_max_step": 16}):
        for j_0 in range(2):
            for i_1_init, j_1_init in T.grid(4, 5):
                C[i_0 * 4 + i_1_init, j_0 * 5 + j_1_init] = T.float32(0.0)
            for k, i_1 in T.grid(6, 4):
                for j_1 in T.vectorized(5):
                    C[i_0 * 4 + i_1, j_0 * 5 + j_1] = C[i_0 * 4 + i_1, j_0 * 5 + j_1] + A[i_0 * 4 + i_1, k] * B[k, j_0 * 5 + j_1]
'''
    assert isinstance(sch.mod, passage.IRModule)
    assert passage.ir.structural_equal(sch.mod["main"], sch.func)
    _same_outputs(tmp_path, f, sch)


def test_inline_chain_and_fuse(tmp_path):
    f = _func(CHAIN)
    sch = tir.Schedule(passage.IRModule({"main": f}))
    sch.compute_inline(sch.get_block("B_1"))
    sch.reverse_compute_inline(sch.get_block("D"))
    loops = sch.get_loops(sch.get_block("D"))
    fused = sch.fuse(*loops)
    assert fused.var.name == "i_j_fused"
    assert _body(sch.func) == '''def main(A: T.Buffer((4, 16), "float32"), D: T.Buffer((4, 16), "float32")):
    for i_j_fused in range(64):
        D[i_j_fused // 16, i_j_fused % 16] = T.max(A[i_j_fused // 16, i_j_fused % 16] + T.float32(1.0), T.float32(0.0)) * T.float32(3.0)
'''
    _same_outputs(tmp_path, f, sch)


def test_compute_at_and_cache_write(tmp_path):
    f = _func(CHAIN)
    sch = tir.Schedule(f)
    D = sch.get_block("D")
    i, j = sch.get_loops(D)
    jo, ji = sch.split(j, [None, 8])
    sch.compute_at(sch.get_block("C_1"), jo)
    sch.compute_at(sch.get_block("B_1"), jo)
    cache = sch.cache_write(D, 0, "local")
    assert cache.name == "D_local"
    assert [l.var.name for l in sch.get_loops(cache)] == ["i", "j_0", "j_1"]
    assert [l.var.name for l in sch.get_loops(D)] == ["i", "j_0", "ax0", "ax1"]
    _same_outputs(tmp_path, f, sch)
    text = sch.func.script()
    assert 'D_local = T.allocate([4, 16], "float32", "local")' in text
    assert "for j in range(8):\n            B_1[i, j + j_0 * 8] = A[i, j + j_0 * 8] + T.float32(1.0)" in text
    assert "for ax0, ax1 in T.grid(1, 8):\n            D[i, ax1 + j_0 * 8] = D_local_1[i, ax1 + j_0 * 8]" in text


def test_loop_handles_follow_the_function():
    sch = tir.Schedule(_func(MATMUL))
    i, j, k = sch.get_loops("C")
    sch.reorder(k, i)
    assert [l.var.name for l in sch.get_loops("C")] == ["k", "j", "i"]
    assert sch.get_loops("C")[0] == k
    sch.unroll(j)
    assert "for j in T.unroll(10):" in sch.func.script()


@pytest.mark.parametrize("apply, message", [
    (lambda s, l: s.parallel(l[2]), "loop 'k' is a reduction loop of block 'C'"),
    (lambda s, l: s.split(l[0], [None, None]), "at most one factor may be None"),
    (lambda s, l: s.split(l[0], [2, 2]), "less than the extent 8"),
    (lambda s, l: s.fuse(l[1], l[0]), "is not the whole body"),
    (lambda s, l: s.compute_inline(s.get_block("C")), "has 2 stores"),
    (lambda s, l: s.compute_at(s.get_block("C"), l[0]), "writes a function parameter"),
    (lambda s, l: s.cache_write(s.get_block("C"), 1, "local"), "index 1 out of range"),
    (lambda s, l: s.get_block("Z"), "no block 'Z'"),
    (lambda s, l: s.annotate(s.get_block("C"), "k", 1), "annotate one of its loops"),
])
def test_errors_keep_the_function(apply, message):
    sch = tir.Schedule(_func(MATMUL))
    loops = sch.get_loops(sch.get_block("C"))
    before = sch.func
    with pytest.raises(tir.ScheduleError, match=message):
        apply(sch, loops)
    assert sch.func.same_as(before)


def test_copy_goes_its_own_way():
    sch = tir.Schedule(_func(MATMUL))
    i, j, k = sch.get_loops("C")
    other = sch.copy()
    other.unroll(k)
    assert "T.unroll" in other.func.script() and "T.unroll" not in sch.func.script()
    sch.vectorize(j)
    assert "T.vectorized" not in other.func.script()


def test_split_of_a_replaced_loop_is_an_error():
    sch = tir.Schedule(_func(MATMUL))
    i = sch.get_loops("C")[0]
    sch.split(i, [2, 4])
    with pytest.raises(tir.ScheduleError, match="no loop over 'i'"):
        sch.split(i, [2, 4])


def test_decompose_reduction_of_the_legacy_form():
    legacy = MATMUL.replace("    for i, j, k in T.grid(8, 10, 6):\n        if k == 0:\n            C[i, j] = T.float32(0)\n"
                            "        C[i, j] = C[i, j] + A[i, k] * B[k, j]\n",
                            "    for i, j in T.grid(8, 10):\n        C[i, j] = T.float32(0)\n        for k in range(6):\n"
                            "            C[i, j] = C[i, j] + A[i, k] * B[k, j]\n")
    sch = tir.Schedule(_func(legacy))
    with pytest.raises(tir.ScheduleError, match="decomposed already"):
        sch.decompose_reduction("C", sch.get_loops("C")[0])
