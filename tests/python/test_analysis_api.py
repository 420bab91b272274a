"""TVM's Python API for kind checking, the call graph, type functors and
ObjectPath / get_first_structural_mismatch (issue 18): what TVM v0.19's
test_pass_check_kind, test_call_graph, test_type_functor, test_object_path
and test_container_structural_equal check, written for Passage."""

import pytest

import passage
from passage import relay
from passage.error import TVMError
from passage.ir.base import get_first_structural_mismatch
from passage.relay import TypeFunctor, TypeMutator, TypeVisitor
from passage.relay.analysis import CallGraph, check_kind
from passage.runtime import ObjectPath, ShapeTuple, convert, object_path

K = relay.TypeKind


# check_kind ---------------------------------------------------------------------------

def test_check_kind_of_well_kinded_types():
    tp = relay.TypeVar("tp")
    tt = relay.TensorType((1, 2, 3), "float32")
    ft = relay.FuncType([tp, tt], relay.TupleType([tp, tt]), [tp])
    assert check_kind(relay.TypeVar("s", K.ShapeVar)) == K.ShapeVar
    assert check_kind(relay.GlobalTypeVar("g", K.AdtHandle)) == K.AdtHandle
    assert check_kind(relay.TupleType([tp, ft, tt])) == K.Type
    assert check_kind(relay.RefType(relay.TupleType([relay.RefType(tt), relay.RefType(ft)]))) == K.Type
    rel = relay.TypeRelation(passage.ir.EnvFunc.get("tvm.relay.type_relation.Broadcast"), [ft, tt, tp], 2, None)
    assert check_kind(rel) == K.Constraint
    assert check_kind(relay.FuncType([tp], tt, [tp], [rel])) == K.Type


@pytest.mark.parametrize("make, where", [
    (lambda sv: relay.TupleType([sv]), "tuple member"),
    (lambda sv: relay.FuncType([sv], relay.TupleType([])), "function type parameter"),
    (lambda sv: relay.FuncType([], sv, [sv]), "function return type"),
    (lambda sv: relay.RefType(sv), "ref contents"),
    (lambda sv: relay.TupleType([relay.TensorType((1,)), relay.FuncType([], sv, [sv])]), "function return type"),
    (lambda sv: relay.TypeRelation(None, [sv], 1, None), "argument to type relation"),
    (lambda sv: relay.TypeCall(relay.GlobalTypeVar("v", K.Type), []), "type call function"),
])
def test_check_kind_errors_name_the_part(make, where):
    with pytest.raises(TVMError, match=where):
        check_kind(make(relay.TypeVar("sv", K.ShapeVar)))


def test_check_kind_function_constraint_must_be_well_kinded():
    tp, sv = relay.TypeVar("tp"), relay.TypeVar("sv", K.ShapeVar)
    rel = relay.TypeRelation(passage.ir.EnvFunc.get("tvm.relay.type_relation.Identity"), [sv], 1, None)
    ft = relay.FuncType([tp], tp, [tp, sv], [rel])
    assert ft.type_constraints == [rel]
    with pytest.raises(TVMError, match="argument to type relation"):
        check_kind(ft)


def test_check_kind_type_call_is_undefined_without_adt_definitions():
    call = relay.TypeCall(relay.GlobalTypeVar("List"), [relay.TupleType([])])
    with pytest.raises(TVMError, match="`List` is undefined"):
        check_kind(call, passage.IRModule())


def test_check_kind_type_call_of_a_module_adt_checks_its_arity():
    mod = passage.IRModule()
    pair = relay.GlobalTypeVar("Pair")
    a, b = relay.TypeVar("a"), relay.TypeVar("b")
    mod[pair] = relay.TypeData(pair, [a, b], [])
    two = relay.TypeCall(pair, [relay.TupleType([]), relay.scalar_type("int8")])
    assert check_kind(two, mod) == relay.TypeKind.Type
    with pytest.raises(TVMError, match="Expected 2 arguments"):
        check_kind(relay.TypeCall(pair, [relay.TupleType([])]), mod)
    with pytest.raises(TVMError, match="`Pair` is undefined"):
        check_kind(two)


# CallGraph ------------------------------------------------------------------------------

def _graph_module():
    mod = passage.IRModule({})
    g0, g1 = relay.GlobalVar("g0"), relay.GlobalVar("g1")
    x0, y0 = relay.var("x0", shape=(2, 3)), relay.var("y0", shape=(2, 3))
    mod[g0] = relay.Function([x0, y0], x0 + y0)
    x1, y1 = relay.var("x1", shape=(2, 3)), relay.var("y1", shape=(2, 3))
    mod[g1] = relay.Function([x1, y1], g0(x1, y1))
    p0, p1 = relay.var("p0", shape=(2, 3)), relay.var("p1", shape=(2, 3))
    mod["main"] = relay.Function([p0, p1], g0(p0, p1) * g1(p0, p1) + g0(p1, p0))
    return mod, g0, g1


def test_call_graph_counts():
    mod, g0, g1 = _graph_module()
    cg = CallGraph(mod)
    passage.ir.assert_structural_equal(cg.module, mod)
    mod["later"] = relay.Function([], relay.Tuple([]))
    assert "later" not in [g.name_hint for g in cg.module.get_global_vars()]  # the module as it was
    assert cg.ref_count(g0) == 2          # from g1 and main, once each
    assert cg.ref_count("g1") == 1
    assert cg.ref_count("main") == 0
    assert cg.global_call_count("main") == 2
    assert cg.global_call_count(g1) == 1
    assert not cg.is_recursive("main")
    assert "#refs = 2" in cg.print_var(g0)
    assert "call site: <g1> calls g0" in cg.print_var("g1")
    text = str(cg)
    assert text.index("node: main") < text.index("node: g0") < text.index("node: g1")
    with pytest.raises(LookupError):
        cg.ref_count("nope")
    with pytest.raises(TypeError):
        cg.ref_count(3)


def test_call_graph_recursion():
    mod = passage.IRModule({})
    f = relay.GlobalVar("f")
    i = relay.var("i", shape=(), dtype="int32")
    mod[f] = relay.Function([i], relay.If(relay.equal(i, relay.const(0)), i, f(i - relay.const(1))),
                            ret_type=relay.TensorType((), "int32"))
    j = relay.var("j", shape=(), dtype="int32")
    mod["main"] = relay.Function([j], f(j))
    cg = CallGraph(mod)
    assert cg.is_recursive(f)
    assert cg.ref_count(f) == 2


# Type functors ---------------------------------------------------------------------------

def test_type_functors():
    tv = relay.TypeVar("tv")
    tt = relay.TensorType((1, 2, 3), "float32")
    rel = relay.TypeRelation(passage.ir.EnvFunc.get("tvm.relay.type_relation.Broadcast"), [tv, tt], 1, None)
    types = [tv, relay.IncompleteType(), tt, relay.FuncType([tt], tt, [tv]), relay.TupleType([relay.TupleType([])]),
             rel, relay.RefType(relay.TupleType([])), relay.GlobalTypeVar("g"),
             relay.TypeCall(relay.GlobalTypeVar("tc"), [relay.TupleType([])])]
    for t in types:
        with pytest.raises(NotImplementedError):
            TypeFunctor().visit(t)
        TypeVisitor().visit(t)
        copy = TypeMutator().visit(t)
        assert passage.ir.structural_equal(copy, t, map_free_vars=True)
    # Variables come back as new ones: equal only when free variables may pair.
    assert not passage.ir.structural_equal(TypeMutator().visit(tv), tv)

    class Count(TypeVisitor):
        def __init__(self):
            self.tensors = 0

        def visit_tensor_type(self, _):
            self.tensors += 1

    c = Count()
    c.visit(relay.FuncType([tt, relay.TupleType([tt])], relay.RefType(tt), [], [rel]))
    assert c.tensors == 4


def test_type_relation_structural_equality():
    bcast = passage.ir.EnvFunc.get("tvm.relay.type_relation.Broadcast")
    a, b = relay.TypeVar("a"), relay.TypeVar("b")
    tt = relay.TensorType((2,), "float32")
    eq = passage.ir.structural_equal
    assert eq(relay.TypeRelation(bcast, [a, tt], 1, None), relay.TypeRelation(bcast, [a, tt], 1, None))
    assert not eq(relay.TypeRelation(bcast, [a, tt], 1, None), relay.TypeRelation(bcast, [b, tt], 1, None))
    assert eq(relay.TypeRelation(bcast, [a, a], 1, None), relay.TypeRelation(bcast, [b, b], 1, None), True)
    assert not eq(relay.TypeRelation(bcast, [a, tt], 1, None), relay.TypeRelation(bcast, [a, tt], 2, None))


# ObjectPath and get_first_structural_mismatch ------------------------------------------

def test_object_path_steps():
    root = ObjectPath.root()
    assert isinstance(root, object_path.RootPath) and str(root) == "<root>" and len(root) == 1
    assert root.parent is None
    assert ObjectPath.root("base") != root and ObjectPath.root("base") == ObjectPath.root("base")
    p = root.attr("foo").array_index(5)
    assert isinstance(p, object_path.ArrayIndexPath) and str(p) == "<root>.foo[5]" and len(p) == 3
    assert p.parent == root.attr("foo") and p.get_prefix(1) == root and p.get_prefix(3) == p
    assert root.attr("foo").is_prefix_of(p) and not p.is_prefix_of(root.attr("foo"))
    assert not root.attr("bar").is_prefix_of(p)
    assert str(root.attr(None)) == "<root>.<unknown attribute>"
    assert isinstance(root.attr(None), object_path.UnknownAttributeAccessPath)
    assert str(root.missing_array_element(2)) == "<root>[<missing element #2>]"
    assert str(root.map_value("k")) == '<root>["k"]'
    assert str(root.missing_map_entry()) == "<root>[<missing entry>]"
    assert root.array_index(3) != root.missing_array_element(3)
    with pytest.raises(IndexError, match="at least 1"):
        p.get_prefix(0)
    with pytest.raises(IndexError, match="longer than the path"):
        p.get_prefix(4)
    with pytest.raises(ValueError):
        ObjectPath()


@pytest.mark.parametrize("a, b, pa, pb", [
    ([1, 2, 3], [1, 4, 3], ObjectPath.root().array_index(1), ObjectPath.root().array_index(1)),
    ([1, 3, 4], [1, 2, 3, 4], ObjectPath.root().array_index(1), ObjectPath.root().array_index(1)),
    ([1, 2], [1, 2, 3], ObjectPath.root().missing_array_element(2), ObjectPath.root().array_index(2)),
    (dict(a=3, b=4), dict(a=3, b=5), ObjectPath.root().map_value("b"), ObjectPath.root().map_value("b")),
    (dict(a=3), dict(a=3, c=5), ObjectPath.root().missing_map_entry(), ObjectPath.root().map_value("c")),
])
def test_first_structural_mismatch(a, b, pa, pb):
    assert get_first_structural_mismatch(convert(a), convert(b)) == (pa, pb)
    assert get_first_structural_mismatch(convert(b), convert(a)) == (pb, pa)


def test_first_structural_mismatch_of_relay_expressions():
    x, y = relay.var("x", shape=(2,)), relay.var("y", shape=(2,))
    a = relay.Function([x], relay.add(x, relay.const(1.0)))
    b = relay.Function([y], relay.add(y, relay.const(2.0)))
    path = ObjectPath.root().attr("body").attr("args").array_index(1)
    assert get_first_structural_mismatch(a, b) == (path, path)
    assert get_first_structural_mismatch(a, relay.Function([y], relay.add(y, relay.const(1.0)))) is None
    # Sharing counts: add(s, s) is not add(s, add(x, x)) (Relay compares graphs).
    s = relay.add(x, x)
    here = ObjectPath.root().attr("args").array_index(1)
    assert get_first_structural_mismatch(relay.add(s, s), relay.add(s, relay.add(x, x))) == (here, here)
    assert get_first_structural_mismatch(relay.add(x, x), relay.add(y, y), map_free_vars=True) is None


def test_first_structural_mismatch_equal_containers():
    assert get_first_structural_mismatch(convert([1, 2]), convert([1, 2])) is None
    assert get_first_structural_mismatch(ShapeTuple([1, 2]), ShapeTuple([1, 2])) is None
    assert get_first_structural_mismatch(convert({"a": True}), convert({"a": True})) is None
    assert get_first_structural_mismatch(convert([True]), convert([1])) is not None  # bool is not int32


# Smaller API pieces: Span, DataType, JSON of types, containers, DictAttrs ---------------

def test_func_type_constraints_compare_under_its_type_params():
    bcast = passage.ir.EnvFunc.get("tvm.relay.type_relation.Broadcast")
    ident = passage.ir.EnvFunc.get("tvm.relay.type_relation.Identity")
    t = relay.TensorType((1, 2), "float32")

    def ft(func, n_inputs=1):
        a, s = relay.TypeVar("a"), relay.TypeVar("s", K.ShapeVar)
        return relay.FuncType([t], a, [a, s], [relay.TypeRelation(func, [a, s], n_inputs, None)])
    assert ft(bcast) == ft(bcast)                 # parameters renamed: equal
    assert ft(bcast) != ft(ident)
    assert ft(bcast) != ft(bcast, 2)
    assert ft(bcast) != relay.FuncType([t], relay.TypeVar("a"), [relay.TypeVar("a")])


def test_span_fields_in_tvm_order():
    sp = relay.Span(None, 1, 2, 3, 4)
    assert (sp.source_name, sp.line, sp.end_line, sp.column, sp.end_column) == (None, 1, 2, 3, 4)
    assert sp == relay.Span(None, 1, 2, 3, 4) and sp != relay.Span("f", 1, 2, 3, 4)
    assert isinstance(sp, relay.base.Span)
    back = passage.ir.load_json(passage.ir.save_json(sp))
    assert back == sp and back is not sp


def test_data_type():
    assert passage.DataType("float32x4").itemsize() == 16
    assert passage.DataType("uint8").itemsize() == 1
    assert passage.DataType("bool").bits == 1
    assert str(passage.DataType("int8x4")) == "int8x4" and passage.DataType("int8") == "int8"
    with pytest.raises(ValueError):
        passage.DataType("int32xvscalex4")
    assert relay.TensorType((), "float").dtype == "float32"   # TVM's shorthand


def test_type_json_round_trip_keeps_variables_and_constraints():
    a = relay.TypeVar("a")
    rel = relay.TypeRelation(passage.ir.EnvFunc.get("tvm.relay.type_relation.Broadcast"), [a, a], 1,
                             passage.ir.make_node("DictAttrs", n=1))
    for t in [a, relay.TupleType([a, relay.FuncType([], relay.TupleType([]))]),
              relay.FuncType([a], a, [a], [rel]), relay.RefType(relay.TensorType((2, None), "int8"))]:
        back = passage.ir.load_json(passage.ir.save_json(t))
        assert passage.ir.structural_equal(back, t, map_free_vars=True)
    back = passage.ir.load_json(passage.ir.save_json(relay.TupleType([a, a])))
    assert back.fields[0].same_as(back.fields[1]) and not back.fields[0].same_as(a)
    with pytest.raises(passage.error.TVMError):
        relay.TensorType("xx", "xx")


def test_structural_equal_of_containers_and_dict_attrs():
    eq = passage.ir.structural_equal
    d0 = passage.ir.make_node("DictAttrs", x=1, y=[10, 20])
    assert isinstance(d0, passage.ir.DictAttrs) and d0.x.value == 1 and d0["y"][1].value == 20
    assert eq(d0, passage.ir.make_node("DictAttrs", y=[10, 20], x=1))
    assert not eq(d0, passage.ir.make_node("DictAttrs", x=1, y=None))
    assert not eq({"x": 1}, convert(1)) and not eq([1, 2], convert(1))
    assert eq(convert("xy\x01z"), passage.ir.load_json(passage.ir.save_json(convert("xy\x01z"))))
    assert eq([convert(1), "a"], (convert(1), "a")) and not eq([convert(1)], [convert(2)])
    assert not eq(True, 1)


def test_frontend_infer_type_and_op_const():
    import numpy as np
    from passage.relay.frontend.common import infer_type
    c = relay.op.const(np.array((1, 1)).astype("int32"), dtype="int64")
    assert infer_type(c).checked_type.dtype == "int64"
    x = relay.var("x", shape=(2, 3))
    assert infer_type(x + x).checked_type == relay.TensorType((2, 3), "float32")
    fn = infer_type(relay.Function([x], x))
    assert isinstance(fn, relay.Function) and fn.checked_type.ret_type == relay.TensorType((2, 3), "float32")
    assert relay.op.const(1, dtype="int8").data.numpy().dtype == np.int8
