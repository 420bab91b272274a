"""Passes from Python: tvm-behavior §6.1 (test_pass_manager.py) as our own
tests, plus the decorator rules of §4.5, the registry and pipelines."""

import pytest

import passage
from passage import relay, transform
from passage.transform import PassContext

from conftest import example_module


def _typed(func):
    """func as InferType leaves it (its return type written in), as TVM's
    tests compare a function pass's result (run_infer_type on both sides)."""
    return transform.InferType()(passage.IRModule.from_expr(func))["main"]


def _get_var_func():
    shape = (5, 10)
    tp = relay.TensorType(shape, "float32")
    x = relay.var("x", tp)
    gv = relay.GlobalVar("myAbs")
    func = relay.Function([x], relay.abs(x))
    return gv, func


def _module_with(*names_ops):
    funcs = {}
    for name, op in names_ops:
        x = relay.var("x", shape=(5, 10))
        y = relay.var("y", shape=(5, 10))
        funcs[relay.GlobalVar(name)] = relay.Function([x, y], op(x, y))
    return passage.IRModule(funcs)


def test_module_pass():
    mod = _module_with(("myAdd", relay.add))
    v_log = relay.GlobalVar("myLog")

    @transform.module_pass(opt_level=0, name="module_pass_test")
    def transform_fn(expr, ctx):
        gv, func = _get_var_func()
        new = passage.IRModule({gv: func})
        new.update(expr)
        return new

    assert isinstance(transform_fn, transform.ModulePass)
    assert transform_fn.info.name == "module_pass_test" and transform_fn.info.opt_level == 0
    assert "module_pass_test" in str(transform_fn)
    assert str(transform_fn) == "Run Module pass: module_pass_test at the optimization level 0"

    out = transform_fn(mod)
    assert sorted(gv.name_hint for gv in out.get_global_vars()) == ["myAbs", "myAdd"]
    gv, func = _get_var_func()
    typed = relay.transform.InferType()(passage.IRModule({gv: func}))
    assert passage.structural_equal(relay.transform.InferType()(out)["myAbs"], typed["myAbs"])
    assert "myAdd" in mod and "myAbs" not in mod  # the input is unchanged
    assert v_log.name_hint == "myLog"

    # The direct (non-decorator) form takes the function's name.
    def direct_transform(expr, ctx):
        return expr
    p = transform.module_pass(direct_transform, opt_level=3)
    assert p.info.name == "direct_transform" and p.info.opt_level == 3


def test_function_class_pass():
    @relay.transform.function_pass(opt_level=1)
    class TestReplaceFunc:
        """Replaces every function by a fixed one."""

        def __init__(self, new_func):
            self.new_func = new_func

        def transform_function(self, func, mod, ctx):
            return self.new_func

    x = relay.var("x", shape=(10, 20))
    f1 = relay.Function([x], x)
    fpass = TestReplaceFunc(f1)
    assert isinstance(TestReplaceFunc, type) and TestReplaceFunc.__doc__.startswith("Replaces")
    assert fpass.info.opt_level == 1 and fpass.info.name == "TestReplaceFunc"
    mod = passage.IRModule.from_expr(relay.log(relay.var("y", shape=(10, 20))))
    mod = fpass(mod)
    # the function pass ends with InferType: main is f1, typed
    assert passage.structural_equal(mod["main"], _typed(f1))
    assert not passage.structural_equal(mod["main"], relay.Function([x], relay.log(x)))
    assert str(mod["main"].checked_type) == "fn (Tensor[(10, 20), float32]) -> Tensor[(10, 20), float32]"


def test_function_pass():
    class DoubleVars(relay.ExprMutator):
        def visit_var(self, v):
            return relay.add(v, v)

    @transform.function_pass(opt_level=1, name="function_pass_test")
    def transform_fn(func, mod, ctx):
        return relay.Function(func.params, DoubleVars().visit(func.body))

    x = relay.var("x", shape=(5, 10))
    mod = passage.IRModule({relay.GlobalVar("myLog"): relay.Function([x], relay.log(x))})
    assert isinstance(transform_fn, transform.FunctionPass)
    assert "function_pass_test" in str(transform_fn)
    out = transform_fn(mod)
    expected = relay.Function([x], relay.log(relay.add(x, x)))
    assert passage.structural_equal(out["myLog"], _typed(expected))

    def direct_transform(func, mod, ctx):
        return func
    p = transform.function_pass(direct_transform, opt_level=0)
    assert p.info.name == "direct_transform"


def test_module_class_pass():
    @transform.module_pass(opt_level=1)
    class TestPipeline:
        """Simple test function to replace one argument to another."""

        def __init__(self, new_mod, replace):
            self.new_mod = new_mod
            self.replace = replace

        def transform_module(self, mod, ctx):
            if self.replace:
                return self.new_mod
            return mod

    x = relay.var("x", shape=(10, 20))
    m1 = passage.IRModule.from_expr(relay.Function([x], x))
    m2 = passage.IRModule.from_expr(relay.Function([x], relay.log(x)))
    fpass = TestPipeline(m2, replace=True)
    assert fpass.info.name == "TestPipeline"
    mod3 = fpass(m1)
    assert mod3.same_as(m2)
    mod4 = TestPipeline(m2, replace=False)(m1)
    assert mod4.same_as(m1)


def test_pass_info():
    info = transform.PassInfo(opt_level=1, name="xyz")
    assert info.opt_level == 1 and info.name == "xyz" and info.required == []
    assert str(info) == ("The meta data of the pass - pass name: xyz, opt_level: 1, "
                         "required passes: []\n")
    info = transform.PassInfo(2, "abc", required=["InferType"])
    assert info.required == ["InferType"]


def test_decorator_errors():
    with pytest.raises(ValueError, match="Please provide opt_level for the module pass."):
        transform.module_pass(lambda m, c: m)
    with pytest.raises(ValueError, match="Please provide opt_level for the function pass."):
        transform.function_pass(lambda f, m, c: f)
    with pytest.raises(TypeError, match="Required is expected to be the type of list/tuple."):
        transform.module_pass(lambda m, c: m, opt_level=1, required="InferType")
    with pytest.raises(TypeError, match="pass_func must be a callable for Module pass"):
        transform.module_pass(opt_level=1)(3)
    with pytest.raises(TypeError, match="pass_func must be a callable for Function pass"):
        transform.function_pass(opt_level=1)(3)


def test_sequential_pass():
    mod = _module_with(("mySub", relay.subtract))
    seq = transform.Sequential(opt_level=1)
    assert seq.info.name == "sequential" and seq.info.opt_level == 1
    # an empty sequential returns the module unchanged
    out = seq(mod)
    assert out.same_as(mod)

    calls = []

    @transform.module_pass(opt_level=1)
    def mod_transform(m, ctx):
        calls.append("mod")
        gv, func = _get_var_func()
        new = passage.IRModule({gv: func})
        new.update(m)
        return new

    class DoubleVars(relay.ExprMutator):
        def visit_var(self, v):
            return relay.add(v, v)

    @transform.function_pass(opt_level=1)
    def func_transform(f, m, ctx):
        calls.append("func " + str(len(m)))
        return relay.Function(f.params, DoubleVars().visit(f.body))

    # only module passes, under required_pass
    with PassContext(required_pass=["mod_transform"]):
        out = transform.Sequential([mod_transform], opt_level=1)(mod)
    assert set(out.functions.keys()) != set() and "myAbs" in out and "mySub" in out

    # module and function passes together: every function of the new module
    # (also the one the module pass just added) is doubled
    calls.clear()
    with PassContext(opt_level=1):
        out = transform.Sequential([mod_transform, func_transform])(mod)
    assert calls == ["mod", "func 2", "func 2"]
    x = out["myAbs"].params[0]
    assert passage.structural_equal(out["myAbs"], _typed(relay.Function([x], relay.abs(relay.add(x, x)))))

    # PassEnabled: opt_level too low skips, disabled beats required
    calls.clear()
    with PassContext(opt_level=0):
        transform.Sequential([mod_transform])(mod)
    with PassContext(opt_level=3, required_pass=["mod_transform"], disabled_pass=["mod_transform"]):
        transform.Sequential([mod_transform])(mod)
    assert calls == []


def test_sequential_required_resolution():
    names = []

    @passage.instrument.pass_instrument
    class Recorder:
        def run_before_pass(self, mod, info):
            names.append(info.name)

    @transform.module_pass(opt_level=0, name="NeedsTypes", required=["InferType"])
    def needs_types(mod, ctx):
        assert mod["main"].body.checked_type is not None
        return mod

    with PassContext(instruments=[Recorder()]):
        transform.Sequential([needs_types])(example_module())
    assert names == ["sequential", "InferType", "NeedsTypes"]


def test_sequential_required_resolved_when_built():
    # Issue 13: an unknown required name fails when the Sequential is made,
    # naming both passes, even if the pass would be skipped by its level.
    @transform.module_pass(opt_level=3, name="NeedsMissing", required=["NoSuchPass"])
    def needs_missing(mod, ctx):
        return mod

    with pytest.raises(passage.PassError,
                       match="cannot use NoSuchPass to create the pass required by 'NeedsMissing'"):
        transform.Sequential([needs_missing])


def test_print_ir(capsys):
    shape = (1, 2, 3)
    tp = relay.TensorType(shape, "float32")
    x = relay.var("x", tp)
    y = relay.add(x, x)
    y = relay.multiply(y, relay.const(2, "float32"))
    func = relay.Function([x], y)
    seq = transform.Sequential([relay.transform.InferType(), relay.transform.FoldConstant(),
                                transform.PrintIR(), relay.transform.DeadCodeElimination()])
    mod = passage.IRModule({relay.GlobalVar("main"): func})
    with PassContext(opt_level=3):
        mod = seq(mod)
    err = capsys.readouterr().err
    assert "PrintIR" in err and "multiply" in err


def test_print_debug_callback():
    counter = passage.instrument.PassTimingInstrument  # noqa: F841 (name check only)

    @passage.instrument.pass_instrument
    class PassCounter:
        def __init__(self):
            self.counts = 0

        def enter_pass_ctx(self):
            self.counts = 0

        def exit_pass_ctx(self):
            self.counts = 0

        def run_before_pass(self, module, info):
            self.counts += 1

        def get_counts(self):
            return self.counts

    pc = PassCounter()
    seq = transform.Sequential([relay.transform.InferType(), relay.transform.FoldConstant(),
                                relay.transform.DeadCodeElimination()])
    names = []

    @passage.instrument.pass_instrument
    class Names:
        def run_before_pass(self, module, info):
            names.append(info.name)

    with PassContext(opt_level=3, instruments=[pc, Names()]):
        assert pc.get_counts() == 0
        seq(example_module())
        # TVM counts 6: sequential, InferType, FoldConstant, the InferType
        # ending its function pass, DCE's required InferType, DCE. Ours:
        # FoldConstant is a module pass (no trailing InferType) and DCE's
        # required InferType is skipped because the module is exactly the one
        # InferType produced (docs/pass-infra.md).
        assert pc.get_counts() == 4
    assert pc.get_counts() == 0
    assert names == ["sequential", "InferType", "FoldConstant", "DeadCodeElimination"]


def test_sequential_with_scoping():
    # tvm-behavior §6.1 test_sequential_with_scoping, without AlterOpLayout
    # (not a Passage pass): FoldConstant then EliminateCommonSubexpr at opt 3.
    shape = (1, 2, 3)
    c_data = [1.0, 2.0, 3.0]
    tp = relay.TensorType(shape, "float32")

    def before():
        c = relay.const(c_data)
        x = relay.var("x", tp)
        y = relay.add(c, c)
        y = relay.multiply(y, relay.const(2, "float32"))
        y = relay.add(x, y)
        z = relay.add(y, c)
        z1 = relay.add(y, c)
        z2 = relay.add(z, z1)
        return relay.Function([x], z2)

    def expected():
        x = relay.var("x", tp)
        y = relay.add(x, relay.const([(a + a) * 2 for a in c_data]))
        z = relay.add(y, relay.const(c_data))
        z1 = relay.add(z, z)
        return relay.Function([x], z1)

    mod = passage.IRModule({relay.GlobalVar("main"): before()})
    seq = transform.Sequential([relay.transform.InferType(), relay.transform.FoldConstant(),
                                relay.transform.EliminateCommonSubexpr()])
    with PassContext(opt_level=3):
        mod = seq(mod)
    want = relay.transform.InferType()(passage.IRModule({relay.GlobalVar("main"): expected()}))
    passage.assert_structural_equal(mod["main"], want["main"])
    body = mod["main"].body
    assert body.args[0].same_as(body.args[1])  # z and z1 are one node now
    # at opt_level 2 EliminateCommonSubexpr (level 3) is skipped: z and z1
    # stay two nodes (structural equality does not see sharing, as in TVM)
    with PassContext(opt_level=2):
        mod2 = seq(passage.IRModule({relay.GlobalVar("main"): before()}))
    body2 = mod2["main"].body
    assert not body2.args[0].same_as(body2.args[1])
    assert passage.structural_equal(body2.args[0], body2.args[1])


def test_registered_passes_by_name():
    listed = transform.list_passes()
    for name in ("InferType", "FoldConstant", "PrintIR"):
        assert name in listed
        assert name in dir(relay.transform)
        p = getattr(relay.transform, name)()
        assert p.info.name == name
        assert transform.get_pass(name).info.name == name
    assert transform.get_pass("transform.FoldConstant").info.name == "FoldConstant"
    assert transform.get_pass("relay._transform.InferType").info.name == "InferType"
    with pytest.raises(passage.PassError, match="cannot use NoSuchPass to create the pass"):
        transform.get_pass("NoSuchPass")
    with pytest.raises(AttributeError):
        relay.transform.NoSuchPass


def test_pipeline_from_text():
    p = transform.parse_pipeline("sequential(InferType,FoldConstant)")
    assert isinstance(p, transform.Sequential)
    assert [c.info.name for c in p.passes] == ["InferType", "FoldConstant"]
    assert transform.parse_pipeline(p.to_pipeline()).to_pipeline() == p.to_pipeline()
    out = p(example_module())
    assert out["main"].body.checked_type.shape == (3, 4)
    with pytest.raises(passage.ParseError) as info:
        transform.parse_pipeline("sequential(InferType,")
    assert info.value.diagnostic is not None and info.value.col > 0


def test_pass_context_fields_and_config():
    ctx = PassContext(opt_level=3, required_pass="FastMath", disabled_pass=["A", "B"],
                      config={"testing.immutable_module": True})
    assert ctx.opt_level == 3
    assert ctx.required_pass == ["FastMath"]  # a bare string is one name
    assert ctx.disabled_pass == ["A", "B"]
    assert ctx.config == {"testing.immutable_module": True}
    assert "opt_level: 3" in str(ctx)
    with pytest.raises(AttributeError, match="inavlid-opt"):
        PassContext(config={"inavlid-opt": True})
    with pytest.raises(AttributeError, match="testing.immutable_module"):
        PassContext(config={"testing.immutable_module": "yes please"})


def test_current_context_scoping():
    outer = PassContext.current()
    assert PassContext.current() == outer  # one stable default per thread
    with PassContext(opt_level=1) as a:
        assert PassContext.current() == a
        with PassContext(opt_level=3) as b:
            assert PassContext.current() == b and PassContext.current().opt_level == 3
        assert PassContext.current() == a
    assert PassContext.current() == outer
    with pytest.raises(passage.PassError):
        a.__exit__(None, None, None)  # not entered: an error, nothing popped
    assert PassContext.current() == outer


def test_prim_func_pass_decorator():
    seen = []

    @transform.prim_func_pass(opt_level=0, name="PrimNoop")
    def prim(func, mod, ctx):
        seen.append(func)
        return func

    assert isinstance(prim, transform.PrimFuncPass)
    assert prim.info.name == "PrimNoop"
    m = example_module()
    out = prim(m)
    assert seen == []  # Relay functions are not PrimFuncs: untouched
    assert passage.structural_equal(out, m)

    @transform.prim_func_pass(opt_level=2)
    class ClassPrim:
        def transform_function(self, func, mod, ctx):
            return func

    assert isinstance(ClassPrim(), transform.PrimFuncPass) and ClassPrim().info.opt_level == 2


def test_passes_registered_later_appear_by_name():
    # Register a C-level pass through the public C API after import, as
    # another component would; its TVM-style constructor appears at once.
    import ctypes
    from passage import _ffi

    assert "LateAddedPass" not in dir(relay.transform)
    made = []

    def ctor(c, options, user, out):
        @transform.module_pass(opt_level=1, name="LateAddedPass")
        def late(mod, ctx):
            made.append("ran")
            return mod
        out[0] = late.__dict__.pop("_ptr")  # hand the reference over to C
        return 0

    CTOR = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                            ctypes.POINTER(ctypes.c_void_p))
    cb = _ffi.immortal(CTOR(ctor))
    register = _ffi.lib.psg_pass_register
    register.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int,
                         ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char_p, CTOR,
                         ctypes.c_void_p]
    assert register(_ffi.CTX, b"LateAddedPass", 1, 1, None, 0, None, b"registered by a test",
                    cb, None) == 0

    assert "LateAddedPass" in dir(relay.transform)
    assert transform.list_passes()["LateAddedPass"]["help"] == "registered by a test"
    p = relay.transform.LateAddedPass()
    assert isinstance(p, transform.ModulePass) and p.info.name == "LateAddedPass"
    m = example_module()
    assert p(m).same_as(m) and made == ["ran"]
    assert transform.get_pass("transform.LateAddedPass").info.name == "LateAddedPass"
    assert transform.parse_pipeline("LateAddedPass").info.name == "LateAddedPass"


def test_pass_config_dict_option():
    # tvm-behavior §2.7 (test_node_reflection.test_pass_config)
    ctx = PassContext(config={"tir.UnrollLoop": {"auto_max_step": 10}})
    cfg = ctx.config["tir.UnrollLoop"]
    assert cfg["auto_max_step"] == 10 and cfg["explicit_unroll"] is True  # default filled in
    with pytest.raises(AttributeError, match="invalid"):
        PassContext(config={"tir.UnrollLoop": {"invalid": 1}})
    with pytest.raises(AttributeError):
        PassContext(config={"tir.UnrollLoop": 1})
    with pytest.raises(AttributeError, match="is None"):
        PassContext(config={"tir.UnrollLoop": None})
    assert PassContext.list_configs()["relay.backend.use_auto_scheduler"]["type"] == "IntImm"


def test_immutable_module_config_with_python_pass():
    @transform.module_pass(opt_level=0)
    def rebuilds(mod, ctx):
        new = passage.IRModule()
        new.update(mod)
        return new

    with PassContext(config={"testing.immutable_module": True}):
        out = rebuilds(example_module())
    assert "main" in out
