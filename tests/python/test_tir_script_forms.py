"""TVMScript forms TVM v0.19's parser rewrites as it reads them (the node
kinds behind what tests/lit/tir/script_forms.test prints), spans on every
parsed node (file:line:col, outside structural equality and hashing), and
the tvm.script.ir_module alias."""

import pytest

import passage
from passage import tir
from passage.ir import structural_equal, structural_hash
from passage.script import from_source, ir_module
from passage.script import tir as T


def _parse(body, params='A: T.Buffer((16,), "float32"), n: T.int32', filename="forms.py"):
    src = "@T.prim_func\ndef main(%s):\n" % params + "".join("    %s\n" % line for line in body)
    return from_source(src, filename=filename, check_well_formed=False)


def test_decl_buffer_without_data_is_allocate_over_decl_buffer():
    f = _parse(["B = T.decl_buffer((16,), \"float32\")", "B[0] = A[0]"])
    alloc = f.body
    assert isinstance(alloc, tir.Allocate)
    assert isinstance(alloc.body, tir.DeclBuffer)
    buf = alloc.body.buffer
    assert buf.data.same_as(alloc.buffer_var)
    assert [int(e) for e in alloc.extents] == [16] and alloc.dtype == "float32"
    assert "B = T.decl_buffer((16,))" in f.script()


def test_decl_buffer_with_data_is_decl_buffer_alone():
    f = _parse(["with T.decl_buffer((16,), \"float32\") as B:",
                "    C = T.decl_buffer((16,), \"float32\", data=B.data)",
                "    C[0] = A[0]"])
    assert isinstance(f.body, tir.Allocate)
    inner = f.body.body.body
    assert isinstance(inner, tir.DeclBuffer)
    assert inner.buffer.data.same_as(f.body.buffer_var)


def test_binding_last_in_its_block_gets_evaluate_zero():
    # TVM's builder gives `x: T.int32 = e` with nothing after it the body
    # T.evaluate(0).
    f = _parse(["if n < 2:", "    r: T.int32 = n + 1"])
    let = f.body.then_case
    assert isinstance(let, tir.LetStmt) and let.var.name == "r"
    assert isinstance(let.body, tir.Evaluate) and int(let.body.value) == 0
    with pytest.raises(passage.error.ParseError, match="expected a statement"):
        _parse(["with T.LetStmt(n) as r:", "    pass"])


def test_int_broadcast_literal_matches_a_float_vector():
    # T.if_then_else(c, <float32x4>, T.Broadcast(0, 4)): the int literal is
    # cast, as TVM's BinaryOpMatchTypes does.
    f = _parse(["A[T.Ramp(0, 1, 4)] = T.if_then_else(n > 0, A[T.Ramp(0, 1, 4)], T.Broadcast(0, 4))"])
    other = f.body.value.args[2]
    assert isinstance(other, tir.Broadcast) and other.dtype == "float32x4"
    assert isinstance(other.value, tir.FloatImm) and float(other.value) == 0.0


def test_lane_mask_takes_its_dtype_first_and_vload_a_trailing_comma():
    # TVM's T.get_active_lane_mask(dtype, base, limit) forwards its dtype;
    # A.vload([...], predicate=p,) ends with a comma as Python allows.
    f = _parse(["A[T.Ramp(0, 1, 4)] = A.vload([T.Ramp(0, 1, 4)],",
                "    predicate=T.get_active_lane_mask(\"uint1x4\", 0, n),",
                ")"])
    load = f.body.value
    assert isinstance(load, tir.BufferLoad)
    mask = load.predicate
    assert isinstance(mask, tir.Call) and mask.op.name == "tir.get_active_lane_mask"
    assert mask.dtype == "boolx4" and len(mask.args) == 2  # uint1 is bool


def test_allocate_takes_dtype_as_keyword():
    # TVM's T.allocate(extents, dtype, scope) may name its dtype.
    kw = _parse(["B_data = T.allocate([4], dtype=\"int8\", scope=\"local\")",
                 "B = T.Buffer((4,), \"int8\", data=B_data, scope=\"local\")",
                 "B[0] = T.int8(1)"])
    pos = _parse(["B_data = T.allocate([4], \"int8\", \"local\")",
                  "B = T.Buffer((4,), \"int8\", data=B_data, scope=\"local\")",
                  "B[0] = T.int8(1)"])
    assert isinstance(kw.body, tir.Allocate) and kw.body.dtype == "int8"
    assert structural_equal(kw, pos)


@pytest.mark.parametrize("head", ["range(0, n)", "T.serial(0, n)", "range(n)"])
def test_loop_from_zero_has_extent_n(head):
    f = _parse(["for i in %s:" % head, "    A[i] = T.float32(0)"])
    loop = f.body
    assert isinstance(loop, tir.For)
    assert int(loop.min) == 0 and loop.extent.same_as(f.params[1])
    assert "for i in range(n):" in f.script()


def test_loop_extent_is_simplified():
    f = _parse(["for i in range(2, n + 2):", "    A[i] = T.float32(0)"])
    assert f.body.extent.same_as(f.params[1])


def test_ceildiv_and_meta_var():
    f = _parse(["B[0] = T.ceildiv(n, 4)", "m = T.meta_var(n * 2)", "B[1] = m", "B[2] = T.ceildiv(10, 4)"],
               params='B: T.Buffer((16,), "int32"), n: T.int32')
    s0, s1, s2 = list(f.body)
    assert isinstance(s0.value, tir.FloorDiv) and int(s0.value.b) == 4
    assert isinstance(s1.value, tir.Mul)  # the meta_var's value, no LetStmt
    assert isinstance(s2.value, tir.IntImm) and int(s2.value) == 3


def test_store_value_cast_to_buffer_dtype():
    f = _parse(["A[0] = n", "A[1] = 2"])
    s0, s1 = list(f.body)
    assert isinstance(s0.value, tir.Cast) and s0.value.dtype == "float32"
    assert isinstance(s1.value, tir.FloatImm) and s1.value.dtype == "float32"


def test_handle_in_body_declares_pointer_var():
    f = _parse(['p = T.handle("float32", "shared")', "T.evaluate(p)"])
    v = f.body.value
    assert isinstance(v, tir.Var) and v.name == "p"
    assert v.type_annotation.storage_scope == "shared"
    assert v.type_annotation.element_type.dtype == "float32"


def test_every_parsed_node_has_a_span():
    f = _parse(["for i in range(n):", "    A[i] = A[i] + T.float32(1)"], filename="spans.py")
    loop = f.body
    store = loop.body
    assert (loop.span.file, loop.span.line, loop.span.col) == ("spans.py", 3, 5)
    assert (store.span.line, store.span.col) == (4, 9)
    add = store.value
    assert add.span.line == 4 and add.span.col == 21  # the operator
    assert add.a.span.line == 4 and add.a.span.col == 16  # A[i] on the right
    assert loop.loop_var.span.col == 9


def test_spans_take_no_part_in_equality_or_hash():
    a = _parse(["for i in range(n):", "    A[i] = T.float32(1)"], filename="a.py")
    b = from_source('\n\n@T.prim_func\ndef main(A: T.Buffer((16,), "float32"),   n: T.int32):\n'
                    '        for i in range(n):\n                A[i] = T.float32(1)\n', filename="b.py")
    assert a.body.span.line != b.body.span.line
    assert structural_equal(a, b)
    assert structural_hash(a) == structural_hash(b)


def test_verifier_error_is_located():
    with pytest.raises(Exception, match=r"k\.py:4:5: error: verify_well_formed: in @main: variable 'p'"):
        from_source('@T.prim_func\ndef main(A: T.Buffer((16,), "float32")):\n'
                    '    p = T.handle("float32")\n    D = T.Buffer((4,), data=p)\n    D[0] = T.float32(1)\n',
                    filename="k.py")


def test_ir_module_alias():
    import passage.script
    assert passage.script.ir_module is ir_module

    @ir_module
    class Mod:
        @T.prim_func
        def f(A: T.Buffer((4,), "float32")):
            A[0] = T.float32(1)

    assert [gv.name_hint for gv in Mod.get_global_vars()] == ["f"]
