"""passage.tir from Python, as TVM users write it: node constructors, the
operators with TVM's dtype matching and constant folding (tir/op.cc,
arith/const_fold.h), buffers, PrimFuncs, modules holding them,
structural equality and the well-formedness check."""

import pytest

import passage
from passage import tir


def test_operators_build_nodes():
    n = tir.Var("n", "int32")
    e = n + 1 < 4
    assert isinstance(e, tir.LT) and e.dtype == "bool"
    assert isinstance(e.a, tir.Add) and e.a.a.same_as(n) and e.a.b.value == 1
    assert isinstance(n - 2, tir.Sub) and isinstance(n * 3, tir.Mul)
    assert isinstance(n // 2, tir.FloorDiv) and isinstance(n % 2, tir.FloorMod)
    assert isinstance(tir.truncdiv(n, 2), tir.Div) and isinstance(tir.truncmod(n, 2), tir.Mod)
    assert isinstance(tir.min(n, 1), tir.Min) and isinstance(tir.max(n, 1), tir.Max)
    assert isinstance(n <= 1, tir.LE) and isinstance(n > 1, tir.GT) and isinstance(n >= 1, tir.GE)
    assert isinstance(3 - n, tir.Sub) and (3 - n).a.value == 3


def test_constant_folding_as_tvm():
    assert (tir.const(1) + 2).value == 3
    assert isinstance(tir.const(1) + 2, tir.IntImm)
    assert (tir.const(-7) // 2).value == -4 and (tir.const(-7) % 2).value == 1
    assert tir.truncdiv(-7, 2).value == -3 and tir.truncmod(-7, 2).value == -1
    assert (tir.const(2.5, "float32") * 2).value == 5.0
    assert (tir.const(3) < 4).value == 1 and (tir.const(3) < 4).dtype == "bool"
    # int32 arithmetic wraps as the generated code would.
    assert (tir.const(2**31 - 1) + 1).value == -2**31
    n = tir.Var("n", "int32")
    # The identities TryConstFold applies.
    assert (n + 0).same_as(n) and (0 + n).same_as(n) and (n - 0).same_as(n)
    assert (n * 1).same_as(n) and (n * 0).value == 0
    assert (n // 1).same_as(n) and (n % 1).value == 0
    lt = n < 2
    assert tir.all(True, lt).same_as(lt) and tir.any(False, lt).same_as(lt)
    assert tir.all(False, lt).value == 0 and tir.any(True, lt).value == 1
    with pytest.raises(passage.PassageError, match="division by zero"):
        n // 0
    with pytest.raises(passage.PassageError, match="division by zero"):
        tir.const(1) % 0


def test_dtype_matching_as_tvm():
    x64 = tir.Var("x", "int64")
    assert (x64 + 1).dtype == "int64" and (x64 + 1).b.dtype == "int64"
    n = tir.Var("n", "int32")
    f = n + 1.5
    assert f.dtype == "float32" and isinstance(f.a, tir.Cast)
    i8 = tir.Var("c", "int8")
    assert (i8 + n).dtype == "int32"
    u = tir.Var("u", "uint32")
    assert (u + n).dtype == "uint32"
    r = tir.Ramp(0, 1, 4) + 1
    assert r.dtype == "int32x4" and isinstance(r.b, tir.Broadcast)
    assert tir.const(3).astype("float32").value == 3.0
    assert isinstance(n.astype("float32"), tir.Cast)
    assert n.astype("int32").same_as(n)


def test_python_rules_of_tvm():
    n = tir.Var("n", "int32")
    with pytest.raises(RuntimeError, match="integer divisions"):
        n / 2
    with pytest.raises(ValueError, match="tir.all"):
        bool(n < 2)
    # == builds EQ where a node is wanted, compares identity in bool():
    # PrimExprs are dict keys.
    assert isinstance(tir.all(n == 1), tir.EQ)
    assert bool(n == n) and not bool(n == tir.Var("n", "int32"))
    assert {n: 1}[n] == 1
    assert isinstance(-n, tir.Mul)
    assert int(tir.Any()) == -1


def test_raw_constructors_do_not_fold():
    a = tir.Add(tir.const(1), tir.const(2))
    assert isinstance(a, tir.Add)
    with pytest.raises(passage.PassageError, match="dtype"):
        tir.Add(tir.Var("a", "int32"), tir.Var("b", "int64"))


def _inc_func(name_a="A", name_i="i"):
    A = tir.decl_buffer((16,), "float32", name=name_a)
    i = tir.Var(name_i, "int32")
    body = tir.For(i, 0, 16, tir.ForKind.SERIAL,
                   tir.BufferStore(A, A[i] + tir.const(1, "float32"), [i]))
    return tir.PrimFunc([A.data], body, buffer_map={A.data: A}), A


def test_buffers_and_prim_funcs():
    f, A = _inc_func()
    assert A.name == "A" and A.dtype == "float32" and [int(d) for d in A.shape] == [16]
    assert A.scope == "global" and A.elem_offset.value == 0
    assert f.params[0].same_as(A.data)
    assert list(f.buffer_map.values())[0].same_as(A)
    loop = f.body
    assert isinstance(loop, tir.For) and loop.kind == tir.ForKind.SERIAL
    assert int(loop.extent) == 16 and isinstance(loop.body, tir.BufferStore)
    g = f.with_attr("global_symbol", "inc")
    assert g.attrs["global_symbol"] == "inc" and f.attrs is None or "global_symbol" not in f.attrs
    assert tir.analysis.verify_well_formed(f)


def test_structural_equality_maps_vars_and_buffers():
    f1, _ = _inc_func("A", "i")
    f2, _ = _inc_func("B", "j")
    passage.assert_structural_equal(f1, f2)
    assert passage.structural_hash(f1) == passage.structural_hash(f2)
    A = tir.decl_buffer((16,), "float32", name="A")
    i = tir.Var("i", "int32")
    other = tir.PrimFunc([A.data], tir.For(i, 0, 16, tir.ForKind.SERIAL,
                                           tir.BufferStore(A, A[i] + tir.const(2, "float32"), [i])),
                         buffer_map={A.data: A})
    assert not passage.structural_equal(f1, other)
    with pytest.raises(ValueError, match="StructuralEqual"):
        passage.assert_structural_equal(f1, other)


def test_verify_well_formed_reports_the_node():
    A = tir.decl_buffer((4, 4), "float32", name="A")
    i = tir.Var("i", "int32")
    bad = tir.PrimFunc([A.data], tir.BufferStore(A, tir.const(0, "float32"), [i, 0]),
                       buffer_map={A.data: A})  # i is never defined
    assert not tir.analysis.verify_well_formed(bad, assert_mode=False)
    with pytest.raises(passage.PassageError, match="i"):
        tir.analysis.verify_well_formed(bad)


def test_module_holds_relay_functions_and_prim_funcs():
    from passage import relay
    f, _ = _inc_func()
    x = relay.var("x", shape=(2,))
    mod = passage.IRModule({"main": relay.Function([x], relay.abs(x)), "inc": f})
    assert isinstance(mod["inc"], tir.PrimFunc) and isinstance(mod["main"], relay.Function)
    assert [gv.name_hint for gv in mod.get_global_vars()] == ["main", "inc"]
    assert passage.IRModule.from_expr(f)["main"].same_as(f)
    g, _ = _inc_func("B", "j")
    mod["inc"] = g
    assert mod["inc"].same_as(g)


def test_intrinsics_are_calls():
    x = tir.Var("x", "float32")
    e = tir.exp(x)
    assert isinstance(e, tir.Call) and e.op.name == "tir.exp" and e.dtype == "float32"
    c = tir.if_then_else(x < 1, x, 2.0)
    assert c.op.name == "tir.if_then_else" and c.args[2].dtype == "float32"
    assert tir.if_then_else(True, x, 2.0).same_as(x)
    assert tir.call_extern("float32", "expf", x).args[0].value == "expf"
    with pytest.raises(ValueError):
        tir.Op("tir.nonexistent")
