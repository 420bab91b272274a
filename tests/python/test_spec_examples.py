"""The examples of spec/pass-infra.md ("Python Frontend"), verbatim with
`tvm` renamed to `passage` (the TestReplaceFunc example has its
`transform_function` indented into `__init__` by a typo in the doc; here it
is a method, as the decorator requires)."""

import passage
from passage import relay, transform


def test_abs_module_pass_example():
    @relay.transform.module_pass(opt_level=2)
    def transform(mod, ctx):
        tp = relay.TensorType((10,), "float32")
        x = relay.var("x", tp)
        gv = relay.GlobalVar("abs")
        func = relay.Function([x], relay.abs(x))
        new_mod = passage.IRModule({gv: func})
        new_mod.update(mod)
        return new_mod

    module_pass = transform
    assert isinstance(module_pass, transform.ModulePass)
    assert module_pass.info.opt_level == 2

    mod = passage.IRModule()
    mod = module_pass(mod)

    assert [gv.name_hint for gv in mod.get_global_vars()] == ["abs"]
    assert isinstance(mod["abs"].body, relay.Call)
    assert mod["abs"].body.op.name == "abs"


def test_replace_func_function_pass_example():
    @relay.transform.function_pass(opt_level=1)
    class TestReplaceFunc:
        def __init__(self, new_func):
            self.new_func = new_func

        def transform_function(self, func, mod, ctx):
            # Just for demo purposes
            # Transform func to new_func
            return self.new_func

    x = relay.var("x", shape=(10, 20))
    f1 = relay.Function([x], x)
    f2 = relay.Function([x], relay.log(x))
    # fpass is now a special pass that replaces every
    # function to f1
    fpass = TestReplaceFunc(f1)
    y = relay.var("y", shape=(10, 20))
    input_mod = passage.IRModule({relay.GlobalVar("main"): relay.Function([y], relay.log(y)),
                                  relay.GlobalVar("other"): f2})
    # Now every function in input_mod is replaced by f1
    res_mod = fpass(input_mod)

    assert fpass.info.name == "TestReplaceFunc" and fpass.info.opt_level == 1
    assert isinstance(fpass, transform.FunctionPass)
    assert fpass.new_func.same_as(f1)  # attribute lookup falls back to the instance
    # (the function pass's trailing InferType writes f1's return type in)
    typed_f1 = transform.InferType()(passage.IRModule.from_expr(f1))["main"]
    for gv, func in res_mod.functions.items():
        assert passage.structural_equal(func, typed_f1), gv.name_hint
    assert passage.structural_equal(input_mod["main"].body, relay.log(y))  # input untouched


def test_override_instruments_example():
    @passage.instrument.pass_instrument
    class Counter:
        def __init__(self):
            self.names = []

        def run_before_pass(self, mod, info):
            self.names.append(info.name)

        def get_result(self):
            return self.names

    pass_inst = Counter()
    pass_seq = transform.Sequential([relay.transform.InferType()])
    mod = passage.IRModule({relay.GlobalVar("main"):
                            relay.Function([relay.var("a", shape=(2,))], relay.const(1.0))})

    cur_pass_ctx = passage.transform.PassContext.current()
    # override PassInstrument instances
    cur_pass_ctx.override_instruments([pass_inst])
    mod = pass_seq(mod)
    result = pass_inst.get_result()
    cur_pass_ctx.override_instruments(None)

    assert result == ["sequential", "InferType"]
