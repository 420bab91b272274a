"""TVM's Relay text syntax (issue 18): infix operators, sequences, (let ...),
free_var, type shorthands, relay.parse_expr, relay.parse with init_module and
init_meta_table, and the printer's TVM forms (expression astext, free_var
lines, `/* ty=T */` after InferType, let values printed once). Every
construct round-trips: print -> parse -> structurally equal (free variables
paired, as TVM's tests compare) and prints the same text again."""
import numpy as np
import pytest

import passage
from passage import relay

SEMVER = '#[version = "0.0.5"]\n'


def roundtrip_expr(e):
    text = e.astext()
    back = relay.parse_expr(text)
    passage.ir.assert_structural_equal(back, e, map_free_vars=True)
    assert back.astext() == text
    return text


def roundtrip_mod(m):
    text = m.astext()
    back = passage.parse(text)
    passage.assert_structural_equal(back, m)
    if "/* ty=" in text:  # types are not text: they come back by InferType
        back = relay.transform.InferType()(back)
    assert back.astext() == text
    return text


def c(v, dtype="int32"):
    return relay.const(v, dtype)


@pytest.mark.parametrize("sym,name", [
    ("*", "multiply"), ("/", "divide"), ("+", "add"), ("-", "subtract"), ("<", "less"),
    ("<=", "less_equal"), (">", "greater"), (">=", "greater_equal"), ("==", "equal"), ("!=", "not_equal")])
def test_each_infix_operator_builds_its_call(sym, name):
    e = relay.parse_expr("1 %s 2" % sym)
    passage.assert_structural_equal(e, getattr(relay, name)(c(1), c(2)))
    assert roundtrip_expr(e) == SEMVER + "%s(1, 2)" % name


def test_precedence_and_left_associativity():
    same = [("1 * 1 + 1", "(1 * 1) + 1"), ("1 * 1 + 1 < 1 == 1", "(((1 * 1) + 1) < 1) == 1"),
            ("1 == 1 < 1 + 1 * 1", "1 == (1 < (1 + (1 * 1)))"), ("8 - 4 - 2", "(8 - 4) - 2"),
            ("8 / 4 * 2", "(8 / 4) * 2"), ("1 != 2 == 3", "(1 != 2) == 3")]
    for a, b in same:
        passage.assert_structural_equal(relay.parse_expr(a), relay.parse_expr(b))
    assert not passage.ir.structural_equal(relay.parse_expr("1 * 1 + 1"), relay.parse_expr("1 * (1 + 1)"))
    e = relay.parse_expr("8 - 4 - 2")
    assert e.op.name == "subtract" and e.args[0].op.name == "subtract"
    roundtrip_expr(relay.parse_expr("1 * 1 + 1 < 1 == 1"))


def test_minus_signs_before_a_number_negate_in_turn():
    for text, v in [("-5", -5), ("--10", 10), ("---10", -10), ("-05", -5), ("--1.5f", 1.5)]:
        assert relay.parse_expr(text).data.numpy().item() == v
    # "-1" directly after an operand is a literal, as in TVM: the error says so.
    with pytest.raises(passage.ParseError, match="minus sign before a digit"):
        passage.parse(SEMVER + "def @f(%x: int32) {\n  %x -1\n}\n")
    passage.assert_structural_equal(relay.parse_expr("let %x = 3; %x - 1"),
                                    relay.parse_expr("let %x = 3; subtract(%x, 1)"))


def test_int_literal_widths():
    assert relay.parse_expr("2147483647").data.dtype == "int32"
    e = relay.parse_expr("2147483648")
    assert e.data.dtype == "int64" and e.data.numpy().item() == 2147483648
    assert relay.parse_expr("-42i").data.dtype == "int32"
    with pytest.raises(passage.error.DiagnosticError):
        relay.parse_expr("2147483648i32")
    roundtrip_expr(e)


def test_float16_scalar_prints_inline():
    for v in (3.0, -0.5, 65504.0, 6e-08):
        e = c(v, "float16")
        text = roundtrip_expr(e)
        assert "meta" not in text and text.endswith("f16")


def test_sequence_is_a_let_of_an_unnamed_variable():
    e = relay.parse_expr("(); ()")
    assert isinstance(e, relay.Let) and e.var.name_hint == ""
    passage.ir.assert_structural_equal(e, relay.Let(relay.var("_"), relay.Tuple([]), relay.Tuple([])))
    assert roundtrip_expr(e) == SEMVER + "let %v = ();\n()"


def test_let_in_parentheses_and_graph_bindings():
    e = relay.parse_expr("%0 = (let %x = 1; %x + %x); (%0, %0)")
    assert isinstance(e, relay.Tuple) and e.fields[0].same_as(e.fields[1])
    text = roundtrip_expr(e)
    assert text == SEMVER + "%0 = (\n  let %x = 1;\n  add(%x, %x)\n);\n(%0, %0)"
    # The old block form still reads.
    passage.ir.assert_structural_equal(relay.parse_expr("%0 = { let %x = 1; %x + %x }; (%0, %0)"), e)


def test_let_variable_is_in_scope_in_its_value():
    # TVM binds the variable first: a recursive closure.
    e = relay.parse_expr("let %f = fn (%n: int32) -> int32 { %f(%n - 1) }; %f")
    assert e.value.body.op.same_as(e.var)
    roundtrip_expr(e)


def test_free_var_and_its_printing():
    e = relay.parse_expr("free_var %x: float32; %x((%x,).0, %x)")
    x = e.op
    assert isinstance(x, relay.Var) and x.name_hint == "x" and e.args[1].same_as(x)
    text = roundtrip_expr(e)
    assert text.startswith(SEMVER + "free_var %x: float32;\n")
    a = relay.var("a", shape=(2,))
    b = relay.var("b")
    f = relay.Function([b], relay.add(a, b))
    # First used inside the fn body: declared there, as TVM prints it.
    text = roundtrip_expr(relay.Tuple([f, a]))
    assert "  free_var %a: Tensor[(2), float32];\n  add(%a, %b)" in text


def test_type_shorthands_and_underscore():
    e = relay.parse_expr("let %x: (int, float, uint, bool) = (1, 1f, 1u32, True); let %y: _ = %x; %y")
    t = e.var.type_annotation
    assert [f.dtype for f in t.fields] == ["int32", "float32", "uint32", "bool"]
    assert all(len(f.shape) == 0 for f in t.fields)
    assert e.body.var.type_annotation is None
    roundtrip_expr(e)


def test_nested_block_comments():
    passage.assert_structural_equal(relay.parse_expr("/* a /* b */ c */ ()"), relay.Tuple([]))
    with pytest.raises(passage.ParseError, match="unterminated"):
        relay.parse_expr("/* a /* b */ ()")


def test_expression_astext_and_str_forms():
    x = relay.var("x", shape=(2,))
    e = relay.add(x, relay.const(np.array([1.0, 2.0], "float32")))
    text = e.astext()
    assert text.startswith(SEMVER + "free_var %x: Tensor[(2), float32];\nadd(%x, meta[relay.Constant][0])\n#[metadata]")
    assert str(e) == "free_var %x: Tensor[(2), float32];\nadd(%x, meta[relay.Constant][0])"
    roundtrip_expr(e)


def test_call_arguments_print_before_the_callee():
    # TVM's test_call_node_order.
    x, y = relay.var("x"), relay.var("y")
    prog = relay.Call(relay.Function([x], x), [relay.Call(relay.Function([y], y), [c(1)])])
    assert roundtrip_expr(prog) == SEMVER + (
        "%0 = fn (%y) {\n  %y\n};\n%1 = %0(1);\n%2 = fn (%x) {\n  %x\n};\n%2(%1)")


def test_let_value_used_elsewhere_prints_once():
    # TVM's test_let_inlining.
    tup = relay.Tuple([c(0), c(0)])
    x = relay.var("x")
    assert roundtrip_expr(relay.Let(x, tup, tup)) == SEMVER + "%0 = (0, 0);\nlet %x = %0;\n%0"
    assert roundtrip_expr(relay.Let(x, tup, x)) == SEMVER + "let %x = (0, 0);\n%x"


def test_checked_types_print_as_tvm_comments():
    c1 = c(1)
    m = relay.transform.InferType()(passage.IRModule.from_expr(relay.add(c1, c1)))
    text = m.astext()
    assert text.count("/* ty=int32 */") == 3  # TVM's test_optional_info
    x, y = relay.var("x", "float32"), relay.var("y", "float32")
    z = relay.add(x, y)
    mod = passage.IRModule()
    mod["myf"] = relay.Function([x, y], relay.add(z, z))
    mod = relay.transform.InferType()(mod)
    for t in (mod.astext(), str(mod)):
        assert "def @myf(%x: float32 /* ty=float32 */, %y: float32 /* ty=float32 */)" in t
        assert "%0 = add(%x, %y) /* ty=float32 */;" in t
        assert "add(%0, %0) /* ty=float32 */" in t
    passage.assert_structural_equal(passage.parse(mod.astext()), mod)
    # Without types nothing is added; the C default and the CLI never add them.
    # (checked types live on the nodes, as in TVM: fresh ones have none)
    assert "ty=" not in passage.IRModule.from_expr(relay.add(c(1), c(1))).astext()


def test_relay_parse_type_checks_like_tvm():
    mod = relay.parse(SEMVER + "def @main(%x: Tensor[(2), float32]) {\n  %x * 2f\n}\n")
    assert mod["main"].body.checked_type == relay.TensorType((2,), "float32")
    with pytest.raises(passage.error.PassTypeError):
        relay.parse(SEMVER + "def @main(%x: Tensor[(2), float32], %y: Tensor[(3), float32]) {\n  %x + %y\n}\n")


def test_relay_parse_into_init_module_with_meta_table():
    # TVM's test_init_module_and_metatable.
    data = np.arange(6, dtype="float32").reshape(2, 3)
    table = {"relay.Constant": [relay.const(data)]}
    init = relay.fromtext(SEMVER + "def @f(%y: Tensor[(2, 3), float32]) -> Tensor[(2, 3), float32] {\n"
                                   "  negative(%y)\n}\n")
    mod = relay.parse(SEMVER + "def @main(%x: Tensor[(2, 3), float32]) {\n"
                               "  add(@f(%x), meta[relay.Constant][0])\n}\n", "from_string", init, table)
    assert [g.name_hint for g in mod.get_global_vars()] == ["f", "main"]
    assert mod["main"].body.args[0].op.same_as(mod.get_global_var("f"))
    np.testing.assert_array_equal(mod["main"].body.args[1].data.numpy(), data)
    roundtrip_mod(mod)
    # A def of a name init has replaces it in place.
    mod2 = relay.parse(SEMVER + "def @f(%y: Tensor[(2, 3), float32]) {\n  %y\n}\n", "s", init)
    assert [g.name_hint for g in mod2.get_global_vars()] == ["f"]
    assert isinstance(mod2["f"].body, relay.Var)
    # init itself is unchanged.
    assert init["f"].body.op.name == "negative"
    with pytest.raises(passage.ParseError, match="defined twice"):
        relay.parse(SEMVER + "def @f() { 1 }\ndef @f() { 2 }\n", "s", init)
    with pytest.raises(passage.error.UnsupportedError, match="relay.Constant"):
        relay.parse(SEMVER + "def @main() { 1 }\n", "s", None, {"tir.SizeVar": []})


def test_parse_expr_errors_are_located():
    with pytest.raises(passage.error.DiagnosticError) as info:
        relay.parse_expr("let %x = 1;\n%x + * 2")
    assert "string:2:6" in str(info.value) and "expected an expression" in str(info.value)
    with pytest.raises(passage.ParseError, match="expected the end of the expression"):
        relay.parse_expr("1 2")
    with pytest.raises(passage.ParseError, match="undefined variable %x"):
        relay.parse_expr("if (True) { let %x = (); () } else { %x }")


def test_type_parameters_round_trip():
    text = SEMVER + ("def @id[A](%x: A) -> A {\n  %x\n}\n\n"
                     "def @main(%y: int32, %g: fn [B](B) -> B, %r: ref(float32)) -> int32 {\n"
                     "  %0 = @id(%y);\n  %1 = fn [C](%z: C) -> C {\n    %z\n  };\n  %1(%0)\n}\n")
    mod = passage.parse(text)
    assert mod.astext() == text
    f = mod["id"]
    assert len(f.type_params) == 1 and f.params[0].type_annotation.same_as(f.type_params[0])
    roundtrip_mod(mod)
    typed = relay.parse(text)  # InferType instantiates @id at int32
    assert "@id(%y) /* ty=int32 */" in typed.astext()
    roundtrip_mod(typed)
    e = relay.parse_expr("let %f: fn [A](A, (A, int)) -> A = fn [B](%x: B, %y: (B, int)) -> B { %x }; %f")
    assert "fn [A](A, (A, int32)) -> A = fn [B](%x: B, %y: (B, int32)) -> B {" in roundtrip_expr(e)
    with pytest.raises(passage.ParseError, match="given twice"):
        relay.parse_expr("fn [A, A](%x: A) { %x }")


def test_slash_names_and_infinite_attributes_round_trip():
    # TVM's tokenizer reads '/' inside a name and `inff` as an infinity; its
    # printer writes an infinite float attribute so (test_tokenize_inf).
    x = relay.var("base/x", shape=(3, 4))
    y = relay.var("base/y", shape=(3, 4))
    e = relay.add(relay.clip(x, -np.inf, np.inf), y)
    text = roundtrip_expr(e)
    assert "%base/x" in text and "%base/y" in text
    assert "a_min=-inff, a_max=inff" in text
    mod = passage.IRModule.from_expr(relay.Function([x, y], e))
    roundtrip_mod(relay.transform.AnnotateSpans()(mod))
    with pytest.raises(passage.error.UnsupportedError, match="NaN"):
        relay.clip(x, float("nan"), 1.0).astext()


def test_call_attrs_type_key_and_none_attributes():
    # TVM prints a call of a function with its attributes' node type, and
    # every field of an op's attributes (`units=None` of a dense without
    # units): both read back equal to the graph built without them.
    shape = (2, 4)
    x0 = relay.var("data", shape=shape)
    w0 = relay.var("weight", shape=shape)
    sub = relay.Function([x0, w0], relay.nn.relu(relay.nn.dense(x0, w0)))
    p0, p1 = relay.var("p0", shape=shape), relay.var("p1", shape=shape)
    attrs = passage.ir.make_node("attrs.TestAttrs", name="func_call_attrs")
    mod = passage.IRModule.from_expr(relay.Function([p0, p1], relay.Call(sub, [p0, p1], attrs=attrs)))
    text = SEMVER + """
    def @main(%p0: Tensor[(2, 4), float32], %p1: Tensor[(2, 4), float32]) {
      %1 = fn (%data: Tensor[(2, 4), float32], %weight: Tensor[(2, 4), float32]) {
        %0 = nn.dense(%data, %weight, units=None);
        nn.relu(%0)
      };
      %1(%p0, %p1, name="func_call_attrs", attrs_type_key="attrs.TestAttrs")
    }
    """
    parsed = passage.parse(text)
    passage.ir.assert_structural_equal(parsed, mod, map_free_vars=True)
    assert passage.ir.structural_hash(parsed) == passage.ir.structural_hash(mod)
    assert "attrs_type_key" not in parsed.astext()
    # None stands for the op's null default only: units=2 still differs.
    units = relay.parse_expr("free_var %a; free_var %b; nn.dense(%a, %b, units=2)")
    none = relay.parse_expr("free_var %a; free_var %b; nn.dense(%a, %b, units=None)")
    assert not passage.ir.structural_equal(units, none, map_free_vars=True)


def test_tensor_type_shape_gives_any_for_unknown_dims():
    mod = passage.parse(SEMVER + "type my_dtype {\n  my_cons(Tensor[(?, 1), uint16]),\n}\n")
    (gtv, data), = mod.type_definitions.items()
    shape = data.constructors[0].inputs[0].shape
    assert isinstance(shape[0], passage.tir.Any) and shape[1] == 1
    t = relay.TensorType((relay.Any(), 3))
    assert t.is_dynamic() and str(t) == "Tensor[(?, 3), float32]"
    assert not relay.TensorType((2, 3)).is_dynamic() and relay.TensorType((2, 3)).shape == (2, 3)
