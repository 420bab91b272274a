"""Relay's algebraic data types and references (issue 18): TypeData in a
module, Constructor, Match with its patterns, RefCreate/RefRead/RefWrite,
their text form (print -> parse -> structurally equal), InferType on them,
the Prelude and unmatched_cases (TVM's match exhaustion)."""
import pytest

import passage
from passage import relay
from passage.relay.analysis import unmatched_cases, free_vars
from passage.relay.prelude import Prelude

SEMVER = '#[version = "0.0.5"]\n'


def list_module():
    mod = passage.IRModule()
    lst = relay.GlobalTypeVar("List")
    a = relay.TypeVar("A")
    cons = relay.Constructor("Cons", [a, lst(a)], lst)
    nil = relay.Constructor("Nil", [], lst)
    mod[lst] = relay.TypeData(lst, [a], [cons, nil])
    return mod, lst, cons, nil


def roundtrip_mod(mod):
    text = mod.astext()
    back = passage.parse(text)
    passage.assert_structural_equal(back, mod)
    assert back.astext() == text
    return text


def test_type_data_in_module():
    mod, lst, cons, nil = list_module()
    assert mod.get_global_type_var("List").name_hint == "List"
    assert mod.get_constructor("Cons").name_hint == "Cons"
    td = mod[lst]
    assert [c.name_hint for c in td.constructors] == ["Cons", "Nil"]
    tags = [c.tag for c in td.constructors]  # consecutive, under the ADT's prefix
    assert tags[1] == tags[0] + 1 and tags[0] >> 24 != 0
    assert len(td.type_vars) == 1
    assert list(mod.type_definitions.keys())[0].name_hint == "List"
    _, c, n = mod.get_type("List")
    assert c.same_as(cons) and n.same_as(nil)
    with pytest.raises(ValueError):
        mod.get_constructor("Missing")


def test_type_definitions_print_as_tvm():
    mod, _, _, _ = list_module()
    assert mod.astext() == SEMVER + "type List[A] {\n  Cons(A, List[A]),\n  Nil,\n}\n"
    roundtrip_mod(mod)


def test_match_and_patterns_round_trip():
    mod, lst, cons, nil = list_module()
    a = relay.TypeVar("A")
    xs = relay.Var("xs", lst(a))
    rest = relay.Var("rest", lst(a))
    y = relay.Var("y")
    length = relay.GlobalVar("length")
    body = relay.Match(xs, [
        relay.Clause(relay.PatternConstructor(cons, [relay.PatternWildcard(), relay.PatternVar(rest)]),
                     relay.add(relay.const(1), length(rest))),
        relay.Clause(relay.PatternConstructor(nil), relay.const(0)),
    ])
    mod[length] = relay.Function([xs], body, relay.scalar_type("int32"), [a])
    tup = relay.Var("t")
    mod["main"] = relay.Function([tup], relay.Match(tup, [
        relay.Clause(relay.PatternTuple([relay.PatternVar(y), relay.PatternWildcard()]), y)], complete=False))
    text = roundtrip_mod(mod)
    assert "Cons(_, %rest: List[A]) => {" in text
    assert "match? (%t) {" in text and "(%y, _) => {" in text
    m = mod["length"].body
    assert m.complete and len(m.clauses) == 2
    lhs = m.clauses[0].lhs
    assert isinstance(lhs, relay.PatternConstructor) and lhs.constructor.same_as(cons)
    assert isinstance(lhs.patterns[0], relay.PatternWildcard)
    assert lhs.patterns[1].var.same_as(rest)
    # pattern variables are bound: the match has no free variable but xs
    assert [v.name_hint for v in free_vars(m)] == ["xs"]


def test_structural_equality_of_matches():
    _, lst, cons, nil = list_module()
    x = relay.Var("x")

    def build(name):
        v = relay.Var(name)
        return relay.Match(x, [relay.Clause(relay.PatternConstructor(cons, [relay.PatternVar(v),
                                                                            relay.PatternWildcard()]), v)])
    assert passage.ir.structural_equal(build("a"), build("b"))  # alpha-equivalent
    assert passage.ir.structural_hash(build("a")) == passage.ir.structural_hash(build("b"))
    other = relay.Match(x, [relay.Clause(relay.PatternConstructor(nil), x)])
    assert not passage.ir.structural_equal(build("a"), other)
    partial = relay.Match(x, build("a").clauses, complete=False)
    assert not passage.ir.structural_equal(build("a"), partial)


def test_refs_round_trip_and_type():
    x = relay.var("x", "float32")
    r = relay.Var("r")
    body = relay.Let(r, relay.RefCreate(x),
                     relay.Let(relay.Var("u"), relay.RefWrite(r, relay.const(1.0)), relay.RefRead(r)))
    mod = passage.IRModule.from_expr(relay.Function([x], body))
    text = roundtrip_mod(mod)
    assert "ref(%x)" in text and "ref_write(%r, 1f)" in text and "ref_read(%r)" in text
    typed = relay.transform.InferType()(mod)
    f32 = relay.scalar_type("float32")
    assert passage.ir.structural_equal(typed["main"].body.checked_type, f32)
    assert passage.ir.structural_equal(typed["main"].body.value.checked_type, relay.RefType(f32))


def test_infer_constructor_and_match_types():
    mod = passage.parse(SEMVER + """
type List[A] { Cons(A, List[A]), Nil }
def @single(%x: int32) -> List[int32] { Cons(%x, Nil) }
def @head_or(%xs: List[int32], %d: int32) -> int32 {
  match (%xs) { Cons(%h, _) => %h, Nil => %d }
}
""")
    typed = relay.transform.InferType()(mod)
    i32 = relay.scalar_type("int32")
    lst = typed.get_global_type_var("List")
    assert passage.ir.structural_equal(typed["single"].body.checked_type, lst(i32))
    h = typed["head_or"].body.clauses[0].lhs.patterns[0].var
    assert passage.ir.structural_equal(h.checked_type, i32)
    with pytest.raises(passage.PassTypeError, match="match clause 1 has another type"):
        relay.parse(SEMVER + """
type List[A] { Cons(A, List[A]), Nil }
def @f(%xs: List[int32]) { match (%xs) { Cons(%h, _) => %h, Nil => 0f } }
""")


def test_constructor_type_needs_its_type_data():
    lst = relay.GlobalTypeVar("List")
    nil = relay.Constructor("Nil", [], lst)
    mod = passage.IRModule.from_expr(relay.Function([], nil()))
    with pytest.raises(passage.PassTypeError, match="its type List is not defined in the module"):
        relay.transform.InferType()(mod)


def test_parser_errors():
    with pytest.raises(passage.ParseError, match="previously defined"):
        passage.parse(SEMVER + "type Ayy { Lmao }\ntype Lmao2 { Lmao }\n")
    with pytest.raises(passage.ParseError, match="defined twice"):
        passage.parse(SEMVER + "type A { X }\ntype A { Y }\n")
    with pytest.raises(passage.ParseError, match="external type may not have any constructors"):
        passage.parse(SEMVER + "extern type T[A] { C }\n")


def test_extern_and_empty_types():
    mod = passage.parse(SEMVER + "extern type T[A]\ntype E { }\n")
    assert [td.header.name_hint for td in mod.type_definitions.values()] == ["T", "E"]
    assert all(not td.constructors for td in mod.type_definitions.values())
    roundtrip_mod(mod)


def test_unmatched_cases():
    mod, lst, cons, nil = list_module()
    v = relay.Var("v")
    assert len(unmatched_cases(relay.Match(v, []))) == 1
    assert unmatched_cases(relay.Match(v, [relay.Clause(relay.PatternWildcard(), v)])) == []
    # Cons(_, Cons(_, _)) misses Nil and Cons(_, Nil)
    m = relay.Match(v, [relay.Clause(relay.PatternConstructor(cons, [
        relay.PatternWildcard(), relay.PatternConstructor(cons, [relay.PatternWildcard(), relay.PatternWildcard()])]), v)])
    missed = sorted(str(p) for p in unmatched_cases(m, mod))
    assert missed == ["Cons(_, Nil)", "Nil"]
    full = relay.Match(v, m.clauses + [relay.Clause(relay.PatternConstructor(cons, [
        relay.PatternWildcard(), relay.PatternConstructor(nil)]), v), relay.Clause(relay.PatternConstructor(nil), v)])
    assert unmatched_cases(full, mod) == []
    t = relay.Match(relay.Tuple([v, v]), [relay.Clause(relay.PatternTuple([relay.PatternVar(relay.Var("a")),
                                                                          relay.PatternWildcard()]), v)])
    assert unmatched_cases(t) == []


def test_prelude():
    mod = passage.IRModule()
    p = Prelude(mod)
    assert p.mod is mod
    assert p.cons.name_hint == "Cons" and p.nil.name_hint == "Nil" and p.some.name_hint == "Some"
    assert p.l.name_hint == "List" and p.tree.name_hint == "Tree"
    for name in ("map", "foldl", "foldr", "length", "hd", "tl", "nth", "concat", "filter", "zip", "rev"):
        assert getattr(p, name).name_hint == name
    typed = relay.transform.InferType()(mod)
    a = relay.TypeVar("A")
    want = relay.FuncType([p.l(a)], relay.scalar_type("int32"), [a])
    assert passage.ir.structural_equal(typed["length"].checked_type, want)
    mod.import_from_std("prelude.rly")  # a second import is a no-op
    assert len(mod.type_definitions) == 3
    mod.import_from_std("nat.rly")
    assert mod.get_constructor("succ").name_hint == "succ"


def test_well_formed():
    from passage.relay.analysis import well_formed
    x = relay.Var("x")
    v = relay.const(10)
    let = relay.Let(x, v, x)
    assert well_formed(x) and well_formed(let)
    assert not well_formed(relay.Let(x, v, let))           # x bound twice
    assert not well_formed(relay.Tuple([let, relay.Let(x, v, x)]))
    assert well_formed(relay.Tuple([let, let]))             # one node, shared
    assert not well_formed(relay.Tuple([let, x]))           # x used outside its let
    _, lst, cons, nil = list_module()
    y = relay.Var("y")
    one = relay.Clause(relay.PatternConstructor(cons, [relay.PatternVar(y), relay.PatternWildcard()]), y)
    other = relay.Clause(relay.PatternVar(y), y)
    assert well_formed(relay.Match(nil(), [one]))
    assert not well_formed(relay.Match(nil(), [one, other]))  # y bound by two clauses


def test_pattern_arity_is_a_type_error():
    mod, lst, cons, nil = list_module()
    xs = relay.Var("xs", lst(relay.scalar_type("int32")))
    bad = relay.Match(xs, [relay.Clause(relay.PatternConstructor(cons, [relay.PatternWildcard()]), relay.const(0))])
    mod["main"] = relay.Function([xs], bad)
    with pytest.raises(passage.PassTypeError, match="constructor Cons takes 2 fields, the pattern has 1"):
        relay.transform.InferType()(mod)


def test_expr_visitor_and_mutator_walk_adts():
    mod = passage.parse(SEMVER + """
type List[A] { Cons(A, List[A]), Nil }
def @main(%x: float32) -> float32 {
  %0 = ref(%x);
  let %u = ref_write(%0, 1f);
  match (Cons(ref_read(%0), Nil)) { Cons(%h, _) => %h, Nil => 2f }
}
""")

    class Count(relay.ExprVisitor):
        def __init__(self):
            super().__init__()
            self.kinds = []

        def visit_match(self, m):
            self.kinds.append("match")
            super().visit_match(m)

        def visit_constructor(self, c):
            self.kinds.append(c.name_hint)

        def visit_ref_write(self, r):
            self.kinds.append("ref_write")
            super().visit_ref_write(r)

    c = Count()
    c.visit(mod["main"].body)
    assert sorted(c.kinds) == ["Cons", "Nil", "match", "ref_write"]

    class Bump(relay.ExprMutator):
        def visit_constant(self, k):
            return relay.const(9.0)

    out = Bump().visit(mod["main"].body)
    text = out.astext()
    assert "ref_write(%0, 9f)" in text and "Nil => {" in text and "9f" in text
    assert Bump().visit(mod["main"].body.body.data.op).name_hint == "Cons"


def test_adt_names_where_tvm_code_imports_them():
    # TVM code reaches the prelude as an attribute of relay and the
    # reference nodes through relay.expr.
    assert relay.prelude.Prelude is Prelude
    r = relay.expr.RefCreate(relay.const(1.0))
    read = relay.expr.RefRead(r)
    write = relay.expr.RefWrite(r, relay.const(2.0))
    assert isinstance(read, relay.RefRead) and isinstance(write, relay.RefWrite)
    assert relay.expr.RefCreate is relay.RefCreate


def test_gradient_std_file():
    # Our gradient.rly has TVM's names: GradCell with Raw / One / Zero and
    # the three functions over it, with tuple patterns; it type-checks and
    # round-trips.
    mod = passage.IRModule()
    mod.import_from_std("gradient.rly")
    gc, raw, one, zero = mod.get_type("GradCell")
    assert [c.name_hint for c in (raw, one, zero)] == ["Raw", "One", "Zero"]
    typed = relay.transform.InferType()(mod)
    t = relay.TypeVar("T")
    want = relay.FuncType([relay.FuncType([t, t], t), gc(t), gc(t)], gc(t), [t])
    for name in ("MultiplyGradCell", "AddGradCell"):
        assert passage.ir.structural_equal(typed[name].checked_type, want)
    passage.assert_structural_equal(passage.parse(mod.astext()), mod)
    mod.import_from_std("gradient.rly")  # a second import is a no-op
    assert len(mod.type_definitions) == 1


def test_constructor_tags_are_prefixed_and_consecutive():
    mods = []
    for _ in range(2):
        mod = passage.IRModule()
        Prelude(mod).mod.import_from_std("nat.rly")
        mods.append(mod)
    prefixes = set()
    for name in ("List", "Option", "nat", "Tree"):
        ctors1, ctors2 = mods[0].get_type(name)[1:], mods[1].get_type(name)[1:]
        for i, (c1, c2) in enumerate(zip(ctors1, ctors2)):
            assert c1.tag == c2.tag and c1.tag - i == ctors1[0].tag and c1.tag - i != 0
            found = mods[1].get_constructor(c1.tag)
            assert found.same_as(c2) and found.name_hint == c1.name_hint
        prefixes.add(ctors1[0].tag >> 24)
    assert all(1 <= p <= 127 for p in prefixes)
    with pytest.raises(ValueError):
        mods[0].get_constructor(0)


def test_pattern_and_type_data_structural_equal_and_hash():
    mod, lst, cons, nil = list_module()
    x, y = relay.Var("x"), relay.Var("y")
    a = relay.PatternConstructor(cons, [relay.PatternWildcard(), relay.PatternVar(x)])
    b = relay.PatternConstructor(cons, [relay.PatternWildcard(), relay.PatternVar(y)])
    c = relay.PatternConstructor(cons, [relay.PatternVar(y), relay.PatternWildcard()])
    assert passage.ir.structural_equal(a, b)  # pattern variables are definitions
    assert passage.ir.structural_hash(a) == passage.ir.structural_hash(b)
    assert not passage.ir.structural_equal(a, c)
    assert passage.ir.structural_hash(a) != passage.ir.structural_hash(c)
    assert not passage.ir.structural_equal(relay.Var("v"), relay.PatternVar(x))
    td = relay.TypeData(relay.GlobalTypeVar("td"), [relay.TypeVar("tv")], [])
    again = relay.TypeData(relay.GlobalTypeVar("td"), [relay.TypeVar("other")], [])
    other = relay.TypeData(relay.GlobalTypeVar("te"), [relay.TypeVar("tv")], [])
    assert passage.ir.structural_equal(td, again)
    assert passage.ir.structural_hash(td) == passage.ir.structural_hash(again)
    assert not passage.ir.structural_equal(td, other)


def test_match_vars_in_binding_order():
    from passage.relay.analysis import bound_vars, all_vars
    mod, lst, cons, nil = list_module()
    x, y, z, v = relay.Var("x"), relay.Var("y"), relay.Var("z"), relay.Var("v")
    m = relay.Match(nil(), [
        relay.Clause(relay.PatternConstructor(nil), relay.Let(v, z, v)),
        relay.Clause(relay.PatternConstructor(cons, [relay.PatternVar(x), relay.PatternVar(y)]), cons(x, y)),
    ])
    assert [w.name_hint for w in bound_vars(m)] == ["v", "x", "y"]
    assert [w.name_hint for w in all_vars(m)] == ["v", "z", "x", "y"]
    assert [w.name_hint for w in free_vars(m)] == ["z"]


def test_prelude_has_tvms_other_list_functions():
    p = Prelude()
    p.mod.import_from_std("nat.rly")
    typed = relay.transform.InferType()(p.mod)
    a, b, c = relay.TypeVar("A"), relay.TypeVar("B"), relay.TypeVar("C")
    step = relay.FuncType([a, b], relay.TupleType([a, c]))
    want = relay.FuncType([step, a, p.l(b)], relay.TupleType([a, p.l(c)]), [a, b, c])
    for name in ("map_accuml", "map_accumr"):
        assert passage.ir.structural_equal(typed[name].checked_type, want)
    for name in ("iterate", "unfoldr", "unfoldl"):
        assert getattr(p, name).name_hint == name
    nat = p.mod.get_global_type_var("nat")
    assert passage.ir.structural_equal(typed["nat_double"].checked_type,
                                       relay.FuncType([nat()], nat()))


def test_infer_type_annotates_pattern_variables():
    # TVM's Resolver writes a pattern variable's type as its annotation, so a
    # program built without it equals the text that spells it.
    mod, lst, cons, nil = list_module()
    a = relay.TypeVar("A")
    xs, rest = relay.Var("xs", lst(a)), relay.Var("rest")
    length = relay.GlobalVar("length")
    body = relay.Match(xs, [
        relay.Clause(relay.PatternConstructor(cons, [relay.PatternWildcard(), relay.PatternVar(rest)]),
                     relay.add(relay.const(1), length(rest))),
        relay.Clause(relay.PatternConstructor(nil), relay.const(0))])
    mod[length] = relay.Function([xs], body, relay.scalar_type("int32"), [a])
    typed = relay.transform.InferType()(mod)
    assert "Cons(_, %rest: List[A])" in typed.astext()
    spelled = passage.parse(typed.astext())
    passage.ir.assert_structural_equal(spelled, typed)
    assert rest.type_annotation is None  # the input is not changed
