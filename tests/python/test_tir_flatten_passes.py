"""tir.transform.FlattenBuffer(), StorageFlatten(cache_line_size,
create_bound_attributes=False) and NarrowDataType(target_bits) from Python,
with TVM's positional signatures, on modules written in TVMScript."""

import pytest

import passage
from passage import tir
from passage.script import tir as T, ir as I


@I.ir_module
class TwoD:
    @T.prim_func
    def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            B[i, j] = A[i, j] * T.float32(2)


def test_flatten_buffer():
    text = tir.transform.FlattenBuffer()(TwoD).script()
    assert "B_1[i * 8 + j] = A_1[i * 8 + j] * T.float32(2.0)" in text
    # the parameters keep their 2-d buffers
    assert 'def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):' in text


def test_storage_flatten_positional():
    assert passage.structural_equal(tir.transform.StorageFlatten(64)(TwoD), TwoD)  # not legacy TE

    @I.ir_module
    class Legacy:
        @T.prim_func
        def main(A: T.Buffer((4, 8), "float32")):
            T.func_attr({"from_legacy_te_schedule": True})
            for i, j in T.grid(4, 8):
                A[i, j] = T.float32(0)

    out = tir.transform.StorageFlatten(64, True)(Legacy).script()
    assert '"buffer_bound"' in out and "A_1[i * 8 + j] = T.float32(0.0)" in out
    with pytest.raises(passage.error.InvalidArgumentError, match="cache_line_size"):
        tir.transform.StorageFlatten(0)(Legacy)


def test_narrow_data_type_positional():
    @I.ir_module
    class Wide:
        @T.prim_func
        def main(A: T.Buffer((64,), "float32")):
            for i in range(T.int64(64)):
                A[i] = T.float32(1)

    assert "for i in range(64):" in tir.transform.NarrowDataType(32)(Wide).script()
    assert "T.int16(64)" in tir.transform.NarrowDataType(16)(Wide).script()
