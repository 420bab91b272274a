"""passage.tir.transform.UnrollLoop / VectorizeLoop under TVM's names: the
tir.UnrollLoop config of the current PassContext, the enable_vectorize option
and the tir.disable_vectorize config."""
import passage
from passage import tir
from passage.transform import PassContext

_NEST = """
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "int32")):
    for i in range(2):
        for j in range(3):
            A[i * 3 + j] = i + j
"""

_VEC = """
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for j in T.vectorized(4):
        A[j] = B[j] + T.float32(1)
"""


def _mod(text):
    return passage.IRModule({"main": passage.script.from_source(text)})


def test_unroll_loop_reads_the_config():
    mod = _mod(_NEST)
    assert isinstance(tir.transform.UnrollLoop()(mod)["main"].body, tir.For)
    with PassContext(config={"tir.UnrollLoop": {"auto_max_step": 6}}):
        body = tir.transform.UnrollLoop()(mod)["main"].body
    assert isinstance(body, tir.SeqStmt) and len(body) == 6
    with PassContext(config={"tir.UnrollLoop": {"auto_max_step": 6, "explicit_unroll": False}}):
        body = tir.transform.UnrollLoop()(mod)["main"].body
    assert isinstance(body, tir.For) and body.kind == tir.ForKind.UNROLLED


def test_vectorize_loop_option_and_config():
    mod = _mod(_VEC)
    body = tir.transform.VectorizeLoop()(mod)["main"].body
    assert isinstance(body, tir.BufferStore) and isinstance(body.indices[0], tir.Ramp)
    off = tir.transform.VectorizeLoop(False)(mod)["main"].body
    assert isinstance(off, tir.For) and off.kind == tir.ForKind.SERIAL
    with PassContext(config={"tir.disable_vectorize": True}):
        off = tir.transform.VectorizeLoop()(mod)["main"].body
    assert isinstance(off, tir.For) and off.kind == tir.ForKind.SERIAL
