"""passage.tir.transform.InjectVirtualThread under TVM's name, on functions
built with tir.ir_builder as TVM's users build them (scope_attr over a
te.thread_axis, Buffer.access_ptr): how much each allocation grows with
and without sharing, an if keeping its else, the thread offset joining a
vector index; and `passage run` giving the same buffers before and after."""
import os
import subprocess

import numpy as np

import passage
from passage import te, tir

PASSAGE = os.path.join(os.path.dirname(passage.library_path), "passage")


def _inject(stmt):
    mod = passage.IRModule({"main": tir.PrimFunc([], stmt)})
    return tir.transform.InjectVirtualThread()(mod)["main"]


def _two_threads(tag):
    """for k: vthread x vthread over three scratch buffers; the third is
    written through an access_ptr by an extern call."""
    tx, ty = te.thread_axis(tag), te.thread_axis(tag)
    ib = tir.ir_builder.create()
    with ib.for_range(0, 10, name="k"):
        ib.scope_attr(tx, "virtual_thread", 3)
        ib.scope_attr(ty, "virtual_thread", 3)
        p = ib.allocate("int32", 5, name="P", scope="shared")
        q = ib.allocate("int32", 5, name="Q", scope="shared")
        r = ib.allocate("int32", 5, name="R", scope="shared")
        p[tx.var] = tx.var + 7
        q[ty.var] = ty.var * 2
        ib.emit(tir.call_extern("int32", "Work", p.asobject().access_ptr("r"), q.asobject().access_ptr("r"),
                                r.asobject().access_ptr("rw")))
    return ib.get()


def test_allocations_grow_per_thread_that_touches_them():
    shared = _two_threads("vthread")
    f = _inject(shared)
    p = f.body.body
    q, r = p.body, p.body.body
    # P depends on tx only, Q on ty only, R (written from both) on both
    assert [int(e) for e in p.extents] == [15]
    assert [int(e) for e in q.extents] == [15]
    assert [int(e) for e in r.extents] == [45]
    unshared = _inject(_two_threads("cthread"))
    p = unshared.body.body
    assert [int(e) for e in p.extents] == [45]
    assert [int(e) for e in p.body.extents] == [45]
    assert [int(e) for e in p.body.body.extents] == [45]
    assert "virtual_thread" not in unshared.script()


def test_context_id_is_the_thread_without_sharing():
    tx = te.thread_axis("cthread")
    ib = tir.ir_builder.create()
    ib.scope_attr(tx, "virtual_thread", 2)
    ib.emit(tir.call_extern("int32", "Use", tir.call_intrin("int32", "tir.tvm_context_id")))
    text = _inject(ib.get()).script()
    assert 'T.call_extern("int32", "Use", 0)' in text
    assert 'T.call_extern("int32", "Use", 1)' in text


def test_if_keeps_its_else_and_copies_inside():
    tx = te.thread_axis("vthread")
    ib = tir.ir_builder.create()
    a = ib.pointer("float32", name="A")
    with ib.for_range(0, 50, name="k") as k:
        ib.scope_attr(tx, "virtual_thread", 4)
        b = ib.allocate("float32", 64, name="B", scope="shared")
        with ib.if_scope(k < 3):
            b[k] = a[k * 4 + tx.var]
        with ib.else_scope():
            b[k] = a[k * 4 + tx.var] * 2.0
    seq = _inject(ib.get()).body.body.body
    assert seq.else_case is not None
    assert len(seq.then_case.seq) == 4 and len(seq.else_case.seq) == 4


def test_vector_offset_joins_the_ramp():
    f = passage.script.from_source("""
# from tvm.script import tir as T

@T.prim_func
def main():
    vt = T.env_thread("vthread")
    T.launch_thread(vt, 2)
    B_data = T.allocate([8], "int32", "shared")
    B = T.Buffer([8], "int32", data=B_data, scope="shared")
    B[0:8] = T.broadcast(vt, 8)
""")
    after = tir.transform.InjectVirtualThread()(passage.IRModule({"main": f}))["main"]
    store = after.body.body[1]
    assert isinstance(store.indices[0], tir.Ramp)  # one Ramp, not Ramp + Broadcast
    assert int(after.body.extents[0]) == 16


_RUN = """
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((24,), "int32"), C: T.Buffer((24,), "int32")):
    for i in range(2):
        vt = T.env_thread("vthread")
        with T.launch_thread(vt, 3):
            B_data = T.allocate([4], "int32", "local")
            B = T.Buffer((4,), "int32", data=B_data, scope="local")
            for j in range(4):
                B[j] = A[(i * 3 + vt) * 4 + j] + vt
            x: T.int32 = vt * 5 + i
            B[1] = B[2] * 3 + x
            for j in range(vt + 1):
                B[j % 4] = B[j % 4] + 2
            for j in range(4):
                C[(i * 3 + vt) * 4 + j] = B[j]
"""


def test_same_buffers_through_the_interpreter(tmp_path):
    src = tmp_path / "f.py"
    src.write_text(_RUN)
    after = tmp_path / "g.py"
    subprocess.run([PASSAGE, "opt", str(src), "-p", "tir.InjectVirtualThread", "-o", str(after)], check=True,
                   timeout=60)
    assert "virtual_thread" not in after.read_text() and "launch_thread" not in after.read_text()
    np.save(tmp_path / "a.npy", np.arange(24, dtype=np.int32) * 3)
    outs = []
    for f in (src, after):
        out = tmp_path / (f.stem + ".npy")
        subprocess.run([PASSAGE, "run", str(f), "--input", "A=%s" % (tmp_path / "a.npy"), "-o", str(out)],
                       check=True, timeout=60)
        outs.append(np.load(out))
    assert outs[0].any() and (outs[0] == outs[1]).all()
