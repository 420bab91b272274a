"""passage.testing: CompareBeforeAfter runs a transform on `before` and
compares with `expected` (or expects the exception class it names);
parameter() parametrizes. These classes are themselves the tests."""

import pytest

import passage
import passage.testing
from passage import tir
from passage.script import tir as T


class TestSimplifyRemovesProvedIf(passage.testing.CompareBeforeAfter):
    transform = tir.transform.Simplify()

    def before(A: T.Buffer((16,), "int32")):
        for i in range(16):
            if i < 16:
                A[i] = 42

    def expected(A: T.Buffer((16,), "int32")):
        for i in range(16):
            A[i] = 42


class TestRemoveNoOpAsMethod(passage.testing.CompareBeforeAfter):
    def transform(self):
        return tir.transform.RemoveNoOp()

    def before(A: T.Buffer((4,), "int32")):
        T.evaluate(0)
        A[0] = 1

    def expected(A: T.Buffer((4,), "int32")):
        A[0] = 1


class TestExpectedError(passage.testing.CompareBeforeAfter):
    transform = tir.transform.RemoveNoOp()
    expected = TypeError

    def before(self):
        return 42  # neither a PrimFunc nor an IRModule


class TestTwoFunctionsAsModule(passage.testing.CompareBeforeAfter):
    transform = tir.transform.Simplify()

    class before:
        def f(A: T.Buffer((4,), "int32")):
            for i in range(1):
                A[i] = 1

        def g(B: T.Buffer((4,), "int32")):
            B[0] = 2

    class expected:
        def f(A: T.Buffer((4,), "int32")):
            A[0] = 1

        def g(B: T.Buffer((4,), "int32")):
            B[0] = 2


extent = passage.testing.parameter(1, 4)


def test_parameter(extent):
    assert extent in (1, 4)


class TestParameterInClass:
    # a class attribute: pytest hands the fixture the test's instance first
    width = passage.testing.parameter(2, 8)

    def test_param(self, width):
        assert width in (2, 8)


def test_mismatch_is_reported():
    class Bad(passage.testing.CompareBeforeAfter):
        transform = tir.transform.RemoveNoOp()

        def before(A: T.Buffer((4,), "int32")):
            A[0] = 1

        def expected(A: T.Buffer((4,), "int32")):
            A[0] = 2
    inst = Bad()
    before = passage.script.from_source(
        "@T.prim_func\ndef before(A: T.Buffer((4,), \"int32\")):\n    A[0] = 1\n")
    expected = passage.script.from_source(
        "@T.prim_func\ndef expected(A: T.Buffer((4,), \"int32\")):\n    A[0] = 2\n")
    with pytest.raises(ValueError, match="StructuralEqual"):
        inst.test_compare(before, expected, tir.transform.RemoveNoOp())
