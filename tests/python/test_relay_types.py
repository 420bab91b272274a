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
    assert isinstance(dyn.shape[0], relay.Any) and dyn.shape[1] == 4 and dyn.is_dynamic() and str(dyn) == "Tensor[(?, 4), float32]"
    assert relay.ty.TensorType is relay.TensorType and relay.ty.Any is relay.Any


def test_type_solver_from_python():
    solver = relay.analysis._ffi_api._test_type_solver()
    t0 = relay.TensorType((10, 20))
    t1, t2 = relay.IncompleteType(), relay.IncompleteType()
    rel = relay.ty.TypeRelation(passage.ir.EnvFunc.get("tvm.relay.type_relation.Broadcast"), [t0, t1, t2], 2)
    solver("AddConstraint")(rel)
    solver.AddConstraint(relay.ty.TypeRelation(passage.ir.EnvFunc.get("tvm.relay.type_relation.Identity"),
                                               [t1, relay.TensorType((10, 1, 1))], 1))
    assert solver.Solve()
    assert solver.Resolve(t2) == relay.TensorType((10, 10, 20))
    assert solver.Unify(relay.TupleType([t1, t0]), relay.TupleType([t1, t0])) == \
        relay.TupleType([relay.TensorType((10, 1, 1)), t0])
    try:
        solver.Unify(t0, relay.TensorType((10, 30)))
    except passage.error.PassError as e:
        assert "dimension 1 conflicts: 20 does not match 30" in str(e)
    else:
        raise AssertionError("a conflicting unification must fail")


def test_infer_type_fills_unannotated_parameters():
    x = relay.var("x", shape=(1, 3, 8, 8))
    w = relay.var("w")
    f = relay.Function([x, w], relay.nn.conv2d(x, w, channels=16, kernel_size=(3, 3)))
    mod = relay.transform.InferType()(passage.IRModule.from_expr(f))
    assert mod["main"].params[1].type_annotation == relay.TensorType((16, 3, 3, 3))
    assert mod["main"].checked_type == relay.FuncType(
        [relay.TensorType((1, 3, 8, 8)), relay.TensorType((16, 3, 3, 3))], relay.TensorType((1, 16, 6, 6)))
    assert f.checked_type == mod["main"].checked_type  # the function as given is typed too


def test_polymorphic_functions():
    a = relay.TypeVar("a")
    x = relay.Var("x", a)
    id_func = relay.Function([x], x, a, [a])
    assert id_func.type_params[0].same_as(a)
    b = relay.TypeVar("b")
    z = relay.Var("z", b)
    assert passage.ir.structural_equal(id_func, relay.Function([z], z, b, [b]))
    assert not passage.ir.structural_equal(id_func, relay.Function([z], z, b, []))
    # A call instantiates the type parameter; a function returning the
    # polymorphic one keeps its own.
    t = relay.TensorType((2,), "float32")
    y = relay.var("y", t)
    mod = relay.transform.InferType()(passage.IRModule.from_expr(
        relay.Function([y], relay.Tuple([relay.Call(id_func, [y]), relay.Call(id_func, [relay.const(1)])]))))
    assert mod["main"].body.checked_type == relay.TupleType([t, relay.TensorType((), "int32")])
    nested = relay.Function([], id_func, relay.FuncType([b], b), [b])
    mod = relay.transform.InferType()(passage.IRModule.from_expr(nested))
    assert mod["main"].checked_type == relay.FuncType([], relay.FuncType([b], b), [b])
    # A rigid type variable is not a tensor: the op relation says so.
    bad = relay.Function([x], relay.nn.relu(x), a, [a])
    try:
        relay.transform.InferType()(passage.IRModule.from_expr(bad))
    except passage.error.PassError as e:
        assert "nn.relu" in str(e)
    else:
        raise AssertionError("relu of a type variable must not type-check")


def test_incomplete_type_annotations_count_as_none():
    # relay.Var("c", relay.IncompleteType()) says nothing about c: a let takes
    # its value's type, a parameter is inferred (as TVM's InferType does).
    c, d = relay.Var("c", relay.IncompleteType()), relay.Var("d", relay.IncompleteType())
    body = relay.Let(c, relay.const(True), relay.Let(d, relay.If(c, relay.const(2), relay.const(3)), d))
    mod = relay.transform.InferType()(passage.IRModule.from_expr(body))
    assert mod["main"].body.checked_type == relay.TensorType((), "int32")
    data = relay.var("data", shape=(1, 4))
    w = relay.Var("w", relay.IncompleteType())
    mod = passage.IRModule.from_expr(relay.Function([data, w], relay.nn.dense(data, w, units=3)))
    ft = relay.transform.InferType()(mod)["main"].checked_type
    assert ft.arg_types[1] == relay.TensorType((3, 4), "float32")


def _infer(expr):
    return relay.transform.InferType()(passage.IRModule.from_expr(expr))["main"]


def test_recursive_let_function_without_annotation():
    # let %loop = fn (%i, %s) { if (%i < 10) { %loop(%i + 1, %s + %x) } else { %s } }
    # TVM infers %loop's type from the function and its recursive call.
    x = relay.var("x", shape=(2,))
    i = relay.var("i", shape=(), dtype="int32")
    s = relay.var("s", shape=(2,))
    loop = relay.var("while_loop")
    body = relay.If(i < relay.const(10, "int32"), loop(i + relay.const(1, "int32"), s + x), s)
    ret = relay.Let(loop, relay.Function([i, s], body),
                    loop(relay.const(0, "int32"), relay.zeros(shape=(2,), dtype="float32")))
    main = _infer(relay.Function([x], ret))
    t = relay.TensorType((2,), "float32")
    assert main.body.var.type_annotation == relay.FuncType([relay.TensorType((), "int32"), t], t)
    assert main.checked_type == relay.FuncType([t], t)


def test_broadcast_to_reads_a_constant_shape():
    # TVM's helper turns a Constant shape into the static attribute, so the
    # argmax after it types as on a static broadcast.
    x = relay.var("data", relay.TensorType((1, 1), "float32"))
    b = relay.op.broadcast_to(x, relay.const([1, 1], dtype="int32"))
    assert len(b.args) == 1 and list(b.attrs["shape"]) == [1, 1]
    main = _infer(relay.Function([x], relay.argmax(b, axis=[1])))
    assert main.checked_type == relay.FuncType([relay.TensorType((1, 1), "float32")],
                                               relay.TensorType((1,), "int32"))
    assert list(relay.broadcast_to(x, 3).attrs["shape"]) == [3]
