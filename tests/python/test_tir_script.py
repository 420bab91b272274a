"""TVMScript from Python, as TVM users write it: @T.prim_func functions and
@I.ir_module classes parsed from their source by the C parser, with the
closure and global values they read (ints, floats, dtype strings, captured
Vars and expressions, Buffers, op = T.Add aliases); script() through the C
printer and back; located parse errors; tir.transform.prim_func_pass and
the registered TIR passes by name."""

import inspect

import pytest

import passage
from passage import tir
from passage.script import tir as T, ir as I

EXTENT = 16
DTYPE = "float32"


def _line_of(marker):
    """The line of this file holding `marker` (for located errors)."""
    src = inspect.getsource(inspect.getmodule(_line_of)).splitlines()
    return 1 + next(i for i, line in enumerate(src) if marker in line and "_line_of" not in line)


def test_prim_func_from_source():
    @T.prim_func
    def add_one(A: T.Buffer((16,), "float32"), n: T.int32):
        for i in range(16):
            A[i] = A[i] + T.float32(1)

    assert isinstance(add_one, tir.PrimFunc)
    assert [p.name for p in add_one.params] == ["A", "n"]
    assert add_one.attrs["global_symbol"] == "add_one"
    buf = add_one.buffer_map[add_one.params[0]]
    assert buf.dtype == "float32" and [int(d) for d in buf.shape] == [16]
    loop = add_one.body
    assert isinstance(loop, tir.For) and int(loop.extent) == 16
    assert isinstance(loop.body, tir.BufferStore)


def test_globals_and_closure_literals():
    m = 8
    scale = 2.5

    @T.prim_func
    def f(A: T.Buffer((m,), DTYPE)):
        for i in range(m):
            A[i] = A[i] * scale + T.Cast(DTYPE, m)

    buf = f.buffer_map[f.params[0]]
    assert buf.dtype == "float32" and int(buf.shape[0]) == 8
    assert int(f.body.extent) == 8
    value = f.body.body.value
    assert isinstance(value, tir.Add) and isinstance(value.a, tir.Mul)
    assert value.a.b.value == 2.5 and value.a.b.dtype == "float32"
    assert isinstance(value.b, tir.Cast) and value.b.value.value == 8


def test_closure_values_of_other_kinds():
    neg = -3
    flag = True
    dtype = "int64"

    @T.prim_func
    def f(A: T.Buffer((4,), dtype)):
        if flag:
            A[0] = T.int64(neg)

    assert f.buffer_map[f.params[0]].dtype == "int64"
    assert isinstance(f.body, tir.IfThenElse) and f.body.condition.value == 1
    assert f.body.then_case.value.value == -3


def test_captured_var_is_the_same_object():
    n = tir.Var("n", "int32")
    bound = n * 2 + 1

    @T.prim_func(check_well_formed=False)
    def f(A: T.Buffer((16,), "int32")):
        A[0] = n
        A[1] = bound

    first, second = f.body.seq if hasattr(f.body, "seq") else list(f.body)
    assert first.value.same_as(n)
    assert second.value.same_as(bound)


def test_captured_buffer():
    B = tir.decl_buffer((4,), "float32", name="B")

    @T.prim_func(check_well_formed=False)
    def f(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = B[i]

    store = f.body.body
    assert store.value.buffer.same_as(B)


@pytest.mark.parametrize("op, node", [(T.Add, tir.Add), (T.Sub, tir.Sub), (T.Max, tir.Max),
                                      (tir.Mul, tir.Mul), (T.FloorMod, tir.FloorMod)])
def test_op_alias(op, node):
    @T.prim_func
    def f(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):
        for i in range(4):
            A[i] = op(A[i], B[i])

    assert isinstance(f.body.body.value, node)


def test_keyword_named_like_a_closure_value():
    dtype = "int8"
    shape = 4

    @T.prim_func
    def f(A: T.Buffer(shape, dtype=dtype)):
        T.evaluate(0)

    assert f.buffer_map[f.params[0]].dtype == "int8"


def test_private_and_unchecked():
    @T.prim_func(private=True, check_well_formed=False)
    def f(A: T.Buffer((4,), "float32")):
        T.evaluate(0)

    assert f.attrs is None or "global_symbol" not in f.attrs
    assert f.script().splitlines()[2] == "@T.prim_func(private=True)"


def test_script_round_trip():
    n = 12

    @T.prim_func
    def f(A: T.Buffer((n, 4), "float32"), B: T.Buffer((n,), "float32")):
        for i, j in T.grid(n, 4):
            B[i] = T.max(B[i], A[i, j] * T.float32(0.5))

    text = f.script()
    assert text.startswith("# from tvm.script import tir as T\n\n@T.prim_func\ndef f(")
    assert "for i, j in T.grid(12, 4):" in text
    again = passage.script.from_source(text)
    assert passage.structural_equal(again, f)
    assert passage.structural_hash(again) == passage.structural_hash(f)
    assert str(f) == text


def test_ir_module_class():
    @I.ir_module
    class Module:
        @T.prim_func
        def first(A: T.Buffer((EXTENT,), "float32")):
            for i in range(EXTENT):
                A[i] = T.float32(0)

        @T.prim_func(private=True)
        def second(A: T.Buffer((2,), "int32")):
            A[0] = 1

    assert isinstance(Module, passage.IRModule) and len(Module) == 2
    assert isinstance(Module["first"], tir.PrimFunc)
    assert int(Module["first"].body.extent) == 16
    text = Module.script()
    assert text.startswith("# from tvm.script import ir as I\n# from tvm.script import tir as T\n")
    assert "    @T.prim_func(private=True)\n    def second(" in text
    again = passage.script.from_source(text)
    assert passage.structural_equal(again, Module)


def test_from_source_extra_vars_and_check():
    text = "@T.prim_func\ndef main(A: T.Buffer((k,), dt)):\n    A[0] = A[0] + w\n"
    w = tir.Var("w", "float32")
    f = passage.script.from_source(text, extra_vars={"k": 3, "dt": "float32", "w": w},
                                   check_well_formed=False)
    assert int(f.buffer_map[f.params[0]].shape[0]) == 3
    assert f.body.value.b.same_as(w)
    with pytest.raises(passage.PassError):  # w is free: not well formed
        passage.script.from_source(text, extra_vars={"k": 3, "dt": "float32", "w": w})


def test_unsupported_values_stay_undefined():
    thing = object()

    with pytest.raises(passage.ParseError, match="undefined name 'thing'"):
        @T.prim_func
        def f(A: T.Buffer((4,), "float32")):
            A[0] = thing


def test_errors_point_at_the_python_line():
    with pytest.raises(passage.ParseError) as info:
        @T.prim_func
        def f(A: T.Buffer((4,), "float32")):
            A[0] = A[0] + nowhere_defined  # the error line
    err = info.value
    assert err.file == __file__
    assert err.line == _line_of("nowhere_defined  # the error line")
    with open(__file__) as f:
        file_line = f.read().splitlines()[err.line - 1]
    assert err.col == file_line.index("nowhere_defined") + 1  # the file's column, not the dedented one
    assert "undefined name 'nowhere_defined'" in str(err)
    assert "\n  %s\n" % file_line in str(err)  # the quoted line as in the file, caret under the name
    assert str(err).endswith("\n  " + " " * (err.col - 1) + "^")


def test_t_names_outside_a_parse():
    assert str(T.int32) == "int32" and T.float32 == "float32"
    c = T.int64(5)
    assert isinstance(c, tir.IntImm) and c.dtype == "int64" and c.value == 5
    b = T.Buffer((4, 4), "int8")
    assert isinstance(b, tir.Buffer) and b.dtype == "int8"
    assert T.Add is T.Add and T.handle is not None


def test_prim_func_pass_on_function_and_class():
    @I.ir_module
    class Module:
        @T.prim_func
        def a(A: T.Buffer((4,), "int32")):
            A[0] = 1

        @T.prim_func
        def b(A: T.Buffer((4,), "int32")):
            A[1] = 2

    seen = []

    @tir.transform.prim_func_pass(opt_level=0, name="Tag")
    def tag(func, mod, ctx):
        seen.append(func.attrs["global_symbol"])
        return func.with_attr("tagged", 1)

    assert isinstance(tag, tir.transform.PrimFuncPass) and tag.info.name == "Tag"
    out = tag(Module)
    assert seen == ["a", "b"]
    assert all(out[g].attrs["tagged"] == 1 for g in ("a", "b"))

    @tir.transform.prim_func_pass(opt_level=1)
    class DropB:
        def transform_function(self, func, mod, ctx):
            return None if func.attrs["global_symbol"] == "b" else func

    out = DropB()(Module)
    assert len(out) == 1 and "a" in out

    @tir.transform.prim_func_pass(opt_level=0)
    def bad(func, mod, ctx):
        return 3

    with pytest.raises(TypeError, match="not a tir.PrimFunc"):
        bad(Module)


def test_registered_tir_passes_by_name():
    @I.ir_module
    class Module:
        @T.prim_func
        def main(A: T.Buffer((4,), "int32")):
            T.evaluate(0)
            A[0] = 1

    out = tir.transform.RemoveNoOp()(Module)
    assert "T.evaluate(0)" not in out.script() and "A[0] = 1" in out.script()
    assert passage.structural_equal(tir.transform.ConvertSSA()(Module), Module)
    for name in ("Simplify", "RemoveNoOp", "ConvertSSA"):
        assert callable(getattr(tir.transform, name))
    with pytest.raises(AttributeError):
        tir.transform.NoSuchPass


class TestPrimFuncInAPlainClass:
    """A @T.prim_func in a class that is no @I.ir_module is parsed at once
    (as TVM's tests write `before` / `expected` members)."""

    @T.prim_func
    def before(A: T.Buffer((2,), "int32")):
        A[0] = 1

    def test_parsed(self):
        assert isinstance(self.before, tir.PrimFunc)


def test_free_vars_print_and_map_on_reparse():
    src = ("@T.prim_func\n"
           "def main(A: T.Buffer((4,), \"int32\")):\n"
           "    n = T.int32()\n"
           "    for i in range(4):\n"
           "        A[i] = n\n")
    # Not well formed (n is never bound), as in TVM: parse without the check.
    f = passage.script.from_source(src, check_well_formed=False)
    text = f.script()
    assert "    n = T.int32()\n" in text
    g = passage.script.from_source(text, check_well_formed=False)
    # A re-parsed copy has its own free var n: equal only when free vars map.
    assert not passage.ir.structural_equal(f, g)
    assert passage.ir.structural_equal(f, g, map_free_vars=True)
    passage.ir.assert_structural_equal(f, g, map_free_vars=True)
    with pytest.raises(ValueError, match="free vars 'n' and 'n' differ"):
        passage.ir.assert_structural_equal(f, g)
    # Relay too, since issue 18 (it raised NotImplementedError before).
    x, y = passage.relay.var("x", shape=(2,)), passage.relay.var("y", shape=(2,))
    assert not passage.ir.structural_equal(x, y)
    assert passage.ir.structural_equal(x, y, map_free_vars=True)


def test_tvm_call_forms_and_zero_dim_buffer():
    # TVM's spellings: dtype= dropped by op wrappers, forwarded by
    # call_extern/reinterpret, T.cast(value, dtype), shape=, A[()], -> None;
    # a closure dtype string works wherever a dtype string does.
    @T.prim_func
    def forms(a: T.handle, B: T.Buffer(4, "int32"), x: T.int32) -> None:
        A = T.match_buffer(a, shape=(), dtype="float32")
        A[()] = T.if_then_else(x < 2, 1.0, 2.0, dtype=DTYPE)
        B[0] = T.call_extern("f", x, dtype="int32")
        B[1] = T.cast(A[()], "int32")
        B[2] = T.cast(T.float32(2.5), dtype="int32")

    A = forms.buffer_map[forms.params[0]]
    assert list(A.shape) == [] and A.dtype == "float32"
    store = forms.body.seq[0]
    assert isinstance(store, tir.BufferStore) and list(store.indices) == []
    assert store.value.dtype == "float32" and store.value.op.name == "tir.if_then_else"
    ext = forms.body.seq[1].value
    assert ext.dtype == "int32" and ext.op.name == "tir.call_extern" and ext.args[0].value == "f"
    assert isinstance(forms.body.seq[2].value, tir.Cast)
    folded = forms.body.seq[3].value
    assert isinstance(folded, tir.IntImm) and folded.value == 2
    assert type(forms.ret_type).__name__ == "VoidType"  # as without an annotation


def test_arithmetic_folds_as_tvm_operators():
    @T.prim_func
    def folds(B: T.Buffer(4, "int64"), x: T.int32, n: T.int64):
        B[0] = T.int64(1) + 2
        B[1] = n + 0
        B[2] = n + x
        B[3] = -n

    v = [s.value for s in folds.body.seq]
    assert isinstance(v[0], tir.IntImm) and v[0].value == 3 and v[0].dtype == "int64"
    assert v[1].same_as(folds.params[2])
    assert isinstance(v[2], tir.Add) and isinstance(v[2].b, tir.Cast) and v[2].b.dtype == "int64"
    assert isinstance(v[3], tir.Mul) and v[3].b.value == -1


def test_captured_equality_is_a_node():
    # `i == k` of PrimExprs is an EqualOp (bool() is identity); captured, it
    # reads as the EQ node, as in TVM.
    i, k = tir.Var("i", "int32"), tir.Var("k", "int32")
    cond, ne = i == k, i != k

    @T.prim_func(check_well_formed=False)
    def func(A: T.Buffer(2, "bool")):
        A[0] = cond
        A[1] = ne

    assert isinstance(func.body.seq[0].value, tir.EQ) and isinstance(func.body.seq[1].value, tir.NE)
