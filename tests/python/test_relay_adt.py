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
    assert [c.tag for c in td.constructors] == [0, 1]
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
