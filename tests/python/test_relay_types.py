"""Relay's type kinds from Python (TVM's relay.TypeVar, IncompleteType,
GlobalTypeVar, TypeCall, RefType, FuncType with type parameters, Any):
`==` is structural equality, type parameters compare by position, and
every variable is fresh."""

from passage import relay
import passage


def test_type_vars_are_fresh_and_named():
    a, a2 = relay.TypeVar("A"), relay.TypeVar("A")
    assert a == a and a != a2 and not a.same_as(a2)
    assert a.name_hint == "A" and a.kind == relay.TypeKind.Type
    assert passage.ir.structural_equal(a, a2, map_free_vars=True)
    assert relay.TypeVar("S", relay.TypeKind.ShapeVar).kind == relay.TypeKind.ShapeVar
    i1, i2 = relay.IncompleteType(), relay.IncompleteType()
    assert i1 != i2 and str(i1) == "?"
    g = relay.GlobalTypeVar("List")
    assert g.kind == relay.TypeKind.AdtHandle and str(g) == "List"


def test_polymorphic_func_types_compare_by_position():
    a, b = relay.TypeVar("a"), relay.TypeVar("b")
    fa = relay.FuncType([a], a, [a])
    fb = relay.FuncType([b], b, [b])
    assert fa == fb and hash(fa) == hash(fb) and not fa.same_as(fb)
    assert fa.type_params[0].same_as(a) and fa.arg_types[0].same_as(a) and fa.ret_type.same_as(a)
    assert str(fa) == "fn [a](a) -> a"
    assert relay.FuncType([a, b], a, [a, b]) != relay.FuncType([a, b], b, [a, b])
    t = relay.TensorType((2, 3))
    assert relay.FuncType([t], t) == relay.FuncType([relay.TensorType((2, 3))], t)
    assert relay.FuncType([t], t).type_params == []


def test_type_call_ref_and_any():
    g = relay.GlobalTypeVar("List")
    t = relay.TensorType((3,), "int32")
    c = relay.TypeCall(g, [t])
    assert c == g(t) and c.func.same_as(g) and c.args == [t] and str(c) == "List[Tensor[(3,), int32]]"
    r = relay.RefType(t)
    assert r.value == t and r == relay.RefType(relay.TensorType((3,), "int32")) and r != relay.RefType(c)
    dyn = relay.TensorType((relay.Any(), 4))
    assert dyn.shape == (-1, 4) and dyn.is_dynamic() and str(dyn) == "Tensor[(?, 4), float32]"
    assert relay.ty.TensorType is relay.TensorType and relay.ty.Any is relay.Any
