"""passage.tir.ir_builder (TVM's tvm.tir.ir_builder): statements built with
nested `with` scopes, checked node by node and against the same function
written in TVMScript, and run through tir.Simplify as TVM's pass tests do."""

import pytest

import passage
from passage import te, tir
from passage.script import tir as T
from passage.tir import ir_builder


def test_loops_ifs_lets_match_tvmscript():
    ib = ir_builder.create()
    n = te.var("n")
    A = ib.pointer("float32", name="A")
    with ib.for_range(0, n, name="i") as i:
        x = ib.let("x", i * 2)
        with ib.if_scope(i < 12):
            A[i] = A[x] + 1.0
        with ib.else_scope():
            A[i] = T.float32(0)
    func = tir.PrimFunc([A, n], ib.get())

    @T.prim_func(private=True)
    def expected(A: T.Buffer((1,), "float32"), n: T.int32):
        for i in range(n):
            x: T.int32 = i * 2
            if i < 12:
                A[i] = A[x] + T.float32(1.0)
            else:
                A[i] = T.float32(0)

    passage.assert_structural_equal(func, expected)


def test_for_range_names_dtypes_and_extent():
    ib = ir_builder.create()
    names = []
    for _ in range(5):
        with ib.for_range(0, 4) as v:
            names.append(v.name)
    assert names == ["i", "j", "k", "i_0", "i_1"]
    with ib.for_range(2, tir.IntImm("int64", 10), name="w", kind="unroll") as w:
        assert w.dtype == "int64"
        ib.emit(tir.Evaluate(w))
    seq = ib.get()
    loop = seq[5]
    assert isinstance(loop, tir.For) and loop.kind == tir.ForKind.UNROLLED
    passage.assert_structural_equal(loop.extent, tir.IntImm("int64", 10) - 2)
    assert isinstance(seq[0].body, tir.Evaluate)  # an empty scope holds Evaluate(0)
    with pytest.raises(ValueError, match="Unknown kind"):
        ib.for_range(0, 4, kind="sideways")
    with pytest.raises(NotImplementedError, match="loop_var dtype"):
        ib.for_range(0, tir.FloatImm("float32", 2.0))


def test_allocate_unravels_and_new_scope_bounds_it():
    ib = ir_builder.create()
    with ib.new_scope():
        B = ib.allocate("int32", (2, 3, 4), name="B", scope="local")
        i = te.var("i")
        B[i] = B[i] + 1
    ib.emit(tir.Evaluate(7))
    seq = ib.get()
    alloc = seq[0]
    assert isinstance(alloc, tir.Allocate) and alloc.dtype == "int32"
    assert [int(e) for e in alloc.extents] == [2, 3, 4]
    store = alloc.body
    assert isinstance(store, tir.BufferStore) and store.buffer.same_as(B.asobject())
    idx = [str(e) for e in store.indices]
    assert idx == ["(i // 12)", "((i % 12) // 4)", "((i % 12) % 4)"]
    assert isinstance(seq[1], tir.Evaluate)  # after the scope, outside the Allocate
    assert B.dtype == "int32"
    with pytest.raises(ValueError, match="data type does not match"):
        B[0] = tir.FloatImm("float32", 1.0)


def test_scope_attr_let_and_emit_wrap_the_rest():
    ib = ir_builder.create()
    ib.scope_attr("dev", "pragma_x", "on")
    ib.scope_attr(tir.StringImm("tx"), "thread_extent", 0)
    ib.emit(tir.call_extern("int32", "f", 1))
    ib.emit(lambda body: tir.AssertStmt(tir.const(True), tir.StringImm("m"), body))
    ib.emit(tir.Evaluate(2))
    attr = ib.get()
    assert isinstance(attr, tir.AttrStmt) and attr.attr_key == "pragma_x"
    inner = attr.body
    assert inner.attr_key == "thread_extent" and int(inner.value) == 1  # max(1, 0)
    seq = inner.body
    assert isinstance(seq[0], tir.Evaluate) and isinstance(seq[0].value, tir.Call)
    assert isinstance(seq[1], tir.AssertStmt) and isinstance(seq[1].body, tir.Evaluate)
    with pytest.raises(TypeError):
        ib.emit(3)


def test_scope_attr_on_a_pointer_names_its_buffer():
    # TVM's BufferVar is an ObjectGeneric: as an AttrStmt node it is its Buffer.
    ib = ir_builder.create()
    ptr = ib.pointer("float32", name="P", scope="global")
    ib.scope_attr(ptr, "storage_scope", "global")
    ptr[0] = ptr[0] + 1.0
    attr = ib.get()
    assert isinstance(attr, tir.AttrStmt) and attr.attr_key == "storage_scope"
    assert isinstance(attr.node, tir.Buffer) and attr.node.same_as(ptr.asobject())
    assert isinstance(attr.body, tir.BufferStore)


def test_thread_var_bound_twice_with_other_extents_is_an_error():
    # TVM binds a thread var for the whole function; tir.Simplify (and so
    # tir.HoistIfThenElse, which ends with it) refuses a second, different extent.
    def build(inner_extent):
        ib = ir_builder.create()
        out = ib.pointer("float32", name="out")
        tx = te.thread_axis("threadIdx.x")
        ib.scope_attr(tx, "thread_extent", 16)
        with ib.for_range(0, 4, name="i") as i:
            ib.scope_attr(tx, "thread_extent", inner_extent)
            with ib.if_scope(tx < 2):
                out[i * 16 + tx] = 1.0
        return passage.IRModule.from_expr(tir.PrimFunc([out], ib.get()))

    for p in (tir.transform.Simplify(), tir.transform.HoistIfThenElse()):
        p(build(16))  # the same extent again is fine
        with pytest.raises(passage.error.PassError, match="threadIdx.x.*different extent"):
            p(build(17))


def test_while_and_else_errors():
    ib = ir_builder.create()
    it = ib.allocate("int32", (1,), name="it", scope="local")
    with ib.while_loop(it[0] < 10):
        it[0] = it[0] + 1
    with pytest.raises(RuntimeError, match="else_scope can only follow an if_scope"):
        ib.else_scope()
    with ib.if_scope(it[0] == 10):
        ib.emit(tir.Evaluate(0))
    with ib.else_scope():
        ib.emit(tir.Evaluate(1))
    with pytest.raises(RuntimeError, match="else_scope can only follow an if_scope"):
        ib.else_scope()  # the if already has an else
    body = ib.get()
    assert isinstance(body, tir.Allocate)
    assert isinstance(body.body[0], tir.While) and isinstance(body.body[1], tir.IfThenElse)
    assert body.body[1].else_case is not None


def test_get_inside_a_scope_is_an_error():
    ib = ir_builder.create()
    scope = ib.for_range(0, 4)
    scope.__enter__()
    with pytest.raises(RuntimeError, match="inside construction scope"):
        ib.get()


def test_buffer_ptr_and_simplify_as_tvm_tests_use_it():
    buf = tir.decl_buffer((16,), "float32", name="A")
    ib = ir_builder.create()
    A = ib.buffer_ptr(buf)
    n = te.size_var("n")
    with ib.for_range(0, n, name="i") as i:
        with ib.if_scope(ib.likely(i < 12)):
            A[i] = A[i] * 2.0
    body = tir.LetStmt(n, 10, ib.get())
    func = tir.PrimFunc([A, n], body)
    assert list(func.buffer_map.values())[0].same_as(buf)
    mod = passage.IRModule.from_expr(func)
    out = tir.transform.Simplify()(mod)["main"].body
    # n = 10 is substituted, and i < 12 is proved for i < 10
    assert isinstance(out, tir.For) and int(out.extent) == 10
    assert isinstance(out.body, tir.BufferStore)
