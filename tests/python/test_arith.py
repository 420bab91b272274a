"""passage.arith.Analyzer with TVM's Python API (tvm.arith), and the plain
TIR pieces of passage.te and passage.ir.Range that TVM's arith tests build
expressions with. The checks follow what TVM's tests/python/arith/ checks,
on our own expressions."""

import pytest

import passage
import passage.testing
from passage import arith, ir, te, tir
from passage.arith import ConstIntBound

NEG_INF, POS_INF = ConstIntBound.NEG_INF, ConstIntBound.POS_INF


def _bound(b):
    return (b.min_value, b.max_value)


def test_bounds_of_dtypes():
    ana = arith.Analyzer()
    assert _bound(ana.const_int_bound(te.var("a", "int8"))) == (-128, 127)
    assert _bound(ana.const_int_bound(te.var("a", "uint8"))) == (0, 255)
    assert _bound(ana.const_int_bound(te.var("a", "int64"))) == (NEG_INF, POS_INF)
    assert (NEG_INF, POS_INF) == (-(1 << 63), (1 << 63) - 1)


def test_bind_range_and_bounds():
    ana = arith.Analyzer()
    i, j = te.var("i"), te.var("j")
    ana.bind(i, ir.Range(0, 16))
    ana.bind(j, ir.Range.from_min_extent(2, 3))
    assert _bound(ana.const_int_bound(i * 2 + j)) == (2, 34)
    assert _bound(ana.const_int_bound(tir.floordiv(i, 4))) == (0, 3)
    assert ana.const_int_bound(i) == ConstIntBound(0, 15)


def test_update_sets_the_bound_and_refuses_a_second_one():
    ana = arith.Analyzer()
    n = te.var("n", "int64")
    ana.update(n, ConstIntBound(0, POS_INF))
    assert _bound(ana.const_int_bound(n * 2 + 1)) == (1, POS_INF)
    ana.update(n, ConstIntBound(0, POS_INF))  # the same bound again is fine
    with pytest.raises(ValueError, match="different const bound"):
        ana.update(n, ConstIntBound(1, 10))
    ana.update(n, ConstIntBound(1, 10), override=True)
    assert _bound(ana.const_int_bound(n)) == (1, 10)
    k = te.var("k")
    ana.update(k, ConstIntBound(-9, 11))
    assert _bound(ana.const_int_bound(te.min(k, 10))) == (-9, 10)


def test_modular_set():
    ana = arith.Analyzer()
    x, y = te.var("x"), te.var("y")
    m = ana.modular_set(x * 4 + 2)
    assert (m.coeff, m.base) == (4, 2)
    m = ana.modular_set(tir.floormod(x * 128 + y * 4, 256))
    assert (m.coeff, m.base) == (4, 0)
    m = ana.modular_set(x + y)
    assert (m.coeff, m.base) == (1, 0)
    assert repr(m) == "ModularSet(coeff=1, base=0)"


def test_simplifiers():
    ana = arith.Analyzer()
    x, y = te.var("x"), te.var("y")
    ana.bind(y, ir.Range(0, 4))
    passage.assert_structural_equal(ana.canonical_simplify((x * 4 + y) // 4), x)
    passage.assert_structural_equal(ana.simplify(tir.floormod(x * 4 + y, 4)), y)
    passage.assert_structural_equal(ana.rewrite_simplify(x + y - y), x)
    passage.assert_structural_equal(ana.canonical_simplify(x * 2 + x), x * 3)
    # a flattened index split and joined again
    i, j = te.var("i", "int64"), te.var("j", "int64")
    ana.bind(i, ir.Range(0, 8))
    ana.bind(j, ir.Range(0, 3))
    flat = i * 3 + j
    passage.assert_structural_equal(ana.simplify(tir.floordiv(flat, 3) * 3 + tir.floormod(flat, 3)), flat)
    # Python numbers become constants
    passage.assert_structural_equal(ana.simplify(3), tir.const(3))


def test_constraint_scope_nests_and_ends():
    ana = arith.Analyzer()
    x = te.var("x")
    with ana.constraint_scope(x > 4):
        assert ana.can_prove(x >= 5)
        assert ana.const_int_bound(x).min_value == 5
        with ana.constraint_scope(x < 8):
            assert ana.can_prove(x <= 7)
        assert not ana.can_prove(x <= 7)
    assert not ana.can_prove(x >= 5)
    assert ana.const_int_bound(x).min_value == -(1 << 31)


def test_can_prove_and_can_prove_equal():
    ana = arith.Analyzer()
    x = te.var("x")
    assert ana.can_prove(x == x)
    assert ana.can_prove(x < x + 1)
    assert not ana.can_prove(x < 10)
    assert ana.can_prove(x * 2 + 1 > x * 2, arith.ProofStrength.SYMBOLIC_BOUND)
    assert ana.can_prove_equal(x * 2 + x, x * 3)
    assert not ana.can_prove_equal(x, x + 1)
    assert ana.can_prove(True)
    assert not ana.can_prove(False)


def test_bind_to_a_value():
    ana = arith.Analyzer()
    x = te.var("x")
    ana.bind(x, 7)
    passage.assert_structural_equal(ana.simplify(x + 1), tir.const(8))


def test_extensions():
    ana = arith.Analyzer()
    assert ana.enabled_extensions == arith.Extension.NoExtensions
    ana.enabled_extensions = arith.Extension.TransitivelyProveInequalities
    assert ana.enabled_extensions == arith.Extension.TransitivelyProveInequalities
    ana.enabled_extensions = arith.Extension.ComparisonOfProductAndSum
    assert ana.enabled_extensions == arith.Extension.ComparisonOfProductAndSum


def test_comparison_of_product_and_sum():
    """(A + B) * C against (A * B) * D for positive A, B, C, D in bounds:
    proved only with the extension on (TVM's TestComparisonOfProductAndSum,
    our own values)."""
    a, b = te.var("a"), te.var("b")
    assert isinstance(a * b, ir.PrimExpr)  # tvm.ir.PrimExpr, as TVM's tests check preconditions
    ana = arith.Analyzer()
    facts = tir.all(a > 0, b > 0, a < 100, b < 100)
    with ana.constraint_scope(facts):
        assert not ana.can_prove(a * b < (a + b) * 100)
        ana.enabled_extensions = arith.Extension.ComparisonOfProductAndSum
        assert ana.can_prove(a * b < (a + b) * 100)
        assert ana.can_prove((b + a) * 100 > a * b)
        assert ana.can_prove(a * b * 3 < (a + b) * 300)
        assert not ana.can_prove(a * b < (a + b) * 10)  # a = b = 99: 9801 > 1980
        assert not ana.can_prove(a * b > (a + b) * 100)
    with ana.constraint_scope(tir.all(a > 0, b > 0)):
        assert not ana.can_prove(a * b < (a + b) * 100)  # no upper bounds


def test_bind_needs_a_var():
    ana = arith.Analyzer()
    with pytest.raises(TypeError):
        ana.bind(te.var("x") + 1, ir.Range(0, 4))
    with pytest.raises(TypeError):
        ana.update(te.var("x"), (0, 4))


def test_range():
    n = te.var("n")
    assert int(ir.Range(8).min) == 0 and int(ir.Range(8).extent) == 8
    passage.assert_structural_equal(ir.Range(0, n).extent, n)
    passage.assert_structural_equal(ir.Range(2, n).extent, n - 2)
    r = ir.Range.from_min_extent(n, 4)
    assert r.min.same_as(n) and int(r.extent) == 4
    assert ir.Range(0, 4) == ir.Range.from_min_extent(0, 4)


def test_te_scalars():
    v = te.var()
    assert v.name == "tindex" and v.dtype == "int32"
    s = te.size_var("m", "int64")
    assert isinstance(s, tir.SizeVar) and s.dtype == "int64"
    c = te.const(3)
    assert isinstance(c, tir.IntImm) and c.dtype == "int32" and c.value == 3
    assert te.const(1.5, "float32").dtype == "float32"
    assert te.floordiv is tir.floordiv and te.min is tir.min


def test_bit_operators_and_call_intrin():
    x, z = te.var("x"), te.var("z", "int64")
    shr = x >> 1
    assert isinstance(shr, tir.Call) and shr.op.name == "tir.shift_right" and shr.dtype == "int32"
    assert (z << 2).dtype == "int64" and (z << 2).args[1].dtype == "int64"
    assert (x & 7).op.name == "tir.bitwise_and"
    assert (3 | x).op.name == "tir.bitwise_or" and (x ^ x).op.name == "tir.bitwise_xor"
    assert (~x).op.name == "tir.bitwise_not"
    c = tir.call_intrin("int32", "tir.clz", x)
    assert c.op.name == "tir.clz" and c.dtype == "int32"
    ana = arith.Analyzer()
    ana.bind(x, ir.Range(0, 16))
    assert _bound(ana.const_int_bound(x)) == (0, 15)


def test_ramp_stride_takes_the_base_dtype():
    r = tir.Ramp(tir.IntImm("int64", 0), 1, 4)
    assert r.stride.dtype == "int64"


def test_tvm_error_is_the_base_error():
    assert passage.error.TVMError is passage.error.PassError


class TestClassParameter:
    """passage.testing.parameter as a class attribute (TVM's tests do this)."""
    value = passage.testing.parameter(1, 2)

    def test_value(self, value):
        assert value in (1, 2)
