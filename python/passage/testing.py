"""Passage — test helpers with tvm.testing's names, for tests of passes
written the way TVM's are: pytest parameters and fixtures, and
`CompareBeforeAfter`, which turns a class holding `before`, `transform` and
`expected` into a test that runs the transform and compares the result
structurally (or expects the exception class `expected` names).

    class TestRemoveIf(passage.testing.CompareBeforeAfter):
        transform = passage.tir.transform.Simplify()

        def before(A: T.Buffer(1, "int32")):
            if True:
                A[0] = 42

        def expected(A: T.Buffer(1, "int32")):
            A[0] = 42
"""

import inspect
import sys
import textwrap

import pytest

from .ir import IRModule, assert_structural_equal

__all__ = ["register_seeded_bug_passes", "parameter", "parameters", "fixture", "main", "CompareBeforeAfter", "enabled_targets",
           "assert_allclose", "uses_gpu"]


def assert_allclose(actual, desired, rtol=1e-7, atol=1e-7):
    """numpy's assert_allclose with TVM's defaults (rtol = atol = 1e-7); a
    Tensor or Constant is compared by its values, and the shapes must match
    exactly (no broadcasting)."""
    import numpy as np

    def arr(x):
        if hasattr(x, "data") and hasattr(x.data, "numpy"):   # a Constant
            x = x.data
        return x.numpy() if hasattr(x, "numpy") else np.asarray(x)
    a, d = arr(actual), arr(desired)
    np.testing.assert_equal(a.shape, d.shape)
    np.testing.assert_allclose(a, d, rtol=rtol, atol=atol, verbose=True)


def uses_gpu(func):
    """TVM's mark for a test that also runs on GPUs. Passage has no GPU
    targets, so the test runs as it is, on the host; `func.uses_gpu` records
    the mark."""
    func.uses_gpu = True
    return func


def parameter(*values, ids=None, by_dict=None):
    """A fixture taking each of `values` in turn (a parametrized test)."""
    if by_dict is not None:
        ids, values = list(by_dict.keys()), list(by_dict.values())

    # *_self: defined as a class attribute, the fixture is bound as a method
    @pytest.fixture(params=list(values), ids=ids)
    def as_fixture(*_self, request):
        return request.param

    return as_fixture


def parameters(*value_sets, ids=None):
    """Several fixtures that vary together: one tuple of values per case."""
    sets = list(value_sets)

    def make(i):
        @pytest.fixture(params=[s[i] for s in sets], ids=ids)
        def one(*_owner, request):
            return request.param
        return one

    return [make(i) for i in range(len(sets[0]))] if sets else []


def fixture(func=None, *, cache_return_value=False):
    """A pytest fixture (the result cache of TVM's is not needed here)."""
    if func is None:
        return lambda f: fixture(f, cache_return_value=cache_return_value)
    return pytest.fixture(func)


def enabled_targets():
    """TVM's (target, device) pairs to build for: none, Passage has no code
    generators."""
    return []


def parametrize_targets(*targets):
    """TVM's decorator that runs a test once per target. Passage has no
    targets (enabled_targets() is empty), so the test is skipped, with the
    targets it asked for in the reason."""
    def mark(func):
        return pytest.mark.skip(reason="needs the target(s) %s; Passage has no code generators"
                                % (", ".join(targets) or "of tvm.testing"))(func)
    if len(targets) == 1 and callable(targets[0]):
        func, targets = targets[0], ()
        return mark(func)
    return mark


def main():
    """Runs the calling test file under pytest (a test file's __main__)."""
    caller = inspect.stack()[1].filename
    sys.exit(pytest.main([caller] + sys.argv[1:]))


def _is_fixture(obj):
    return hasattr(obj, "_pytestfixturefunction") or type(obj).__name__ == "FixtureFunctionDefinition"


def _takes_self(func):
    try:
        params = list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return False
    return params[:1] == ["self"]


def _parse_function(func, check_well_formed):
    """An undecorated TVMScript function, parsed from its source."""
    from .script import from_source
    source = "@T.prim_func\n" + textwrap.dedent(inspect.getsource(func))
    return from_source(source, check_well_formed=check_well_formed)


class CompareBeforeAfter:
    """Base class of before/transform/expected tests (tvm.testing's).

    `before` (or `Before`) and `expected` (or `Expected`) may each be a
    PrimFunc or IRModule, an undecorated TVMScript function (parsed when the
    test runs, so a parse error fails one test, not the file), a class of
    such functions (an IRModule), a method taking only `self`, or a pytest
    fixture. `expected` may also be an exception class: the transform must
    raise it. `transform` is a Pass, a method returning one, or a fixture."""

    check_well_formed = True

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        for names, role in ((("before", "Before"), "before"), (("expected", "Expected"), "expected")):
            given = [n for n in names if n in cls.__dict__]
            if len(given) > 1:
                raise TypeError("%s defines both %s" % (cls.__name__, " and ".join(given)))
            if given:
                setattr(cls, role, cls._as_fixture(cls.__dict__[given[0]], role == "expected"))
        if "transform" in cls.__dict__:
            cls.transform = cls._transform_fixture(cls.__dict__["transform"])

    @classmethod
    def _as_fixture(cls, value, may_be_error):
        if _is_fixture(value):
            return value
        if may_be_error and inspect.isclass(value) and issubclass(value, Exception):
            error = value
            return pytest.fixture(lambda self: error)

        def build(self):
            if isinstance(value, IRModule) or type(value).__name__ == "PrimFunc":
                return value
            if inspect.isclass(value):
                funcs = {}
                for name, member in value.__dict__.items():
                    if name.startswith("_"):
                        continue
                    if type(member).__name__ == "PrimFunc":
                        funcs[name] = member.with_attr("global_symbol", name)
                    elif inspect.isfunction(member):
                        funcs[name] = _parse_function(member, self.check_well_formed).with_attr(
                            "global_symbol", name)
                return IRModule(funcs)
            if _takes_self(value):
                return value(self)
            return _parse_function(value, self.check_well_formed)

        return pytest.fixture(build)

    @classmethod
    def _transform_fixture(cls, value):
        if _is_fixture(value):
            return value
        if inspect.isfunction(value) and _takes_self(value):
            return pytest.fixture(lambda self: value(self))
        if inspect.isfunction(value):
            return pytest.fixture(lambda self: value())
        return pytest.fixture(lambda self: value)

    @staticmethod
    def _apply(transform, obj):
        """A PrimFunc goes through the pass as the `main` of a module and
        comes back alone; an IRModule goes through as it is."""
        if isinstance(obj, IRModule):
            return transform(obj)
        if type(obj).__name__ == "PrimFunc":
            return transform(IRModule({"main": obj}))["main"]
        raise TypeError("expected an IRModule or PrimFunc, got %r" % type(obj).__name__)

    def test_compare(self, before, expected, transform):
        if inspect.isclass(expected) and issubclass(expected, Exception):
            with pytest.raises(expected):
                after = self._apply(transform, before)
                pytest.fail("expected %s from the transform, which gave:\n%s"
                            % (expected.__name__, after.script()))
            return
        after = self._apply(transform, before)
        if type(after).__name__ == "PrimFunc" and type(expected).__name__ == "PrimFunc":
            # The functions' own names are not what is compared.
            after = after.with_attr("global_symbol", "main")
            expected = expected.with_attr("global_symbol", "main")
        assert_structural_equal(after, expected)


def register_seeded_bug_passes():
    """TEST ONLY: registers the seeded-bug passes of the verify-each and
    reproducer tests (psg_testing_register_seeded_bug_passes):
    testing.BreakTypes, testing.BreakPrimFunc and testing.Crash (SIGSEGV)."""
    from ._ffi import lib, CTX, call
    call(lib.psg_testing_register_seeded_bug_passes, CTX, what="register_seeded_bug_passes")
