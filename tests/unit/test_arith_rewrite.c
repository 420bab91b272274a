/* Passage — the rewrite-rule simplifier (psg_arith_rewrite_simplify): one
 * case per rule of src/tir/arith/rules.c, and the rules that need facts
 * (bounds from psg_arith_bind, conditions in scope). */
#include "arith_check.h"

static psg_tir_expr *x, *y, *z, *i, *j, *n;

static void test_add_rules(void) {
  CHECK_STR(RS(ADD(x, IC(0))), "x");
  CHECK_STR(RS(ADD(IC(0), x)), "x");
  CHECK_STR(RS(ADD(IC(3), x)), "(x + 3)");                   /* constant to the right */
  CHECK_STR(RS(ADD(ADD(x, IC(3)), IC(4))), "(x + 7)");
  CHECK_STR(RS(ADD(SUB(x, IC(3)), IC(4))), "(x + 1)");
  CHECK_STR(RS(ADD(SUB(IC(3), x), IC(4))), "(7 - x)");
  CHECK_STR(RS(ADD(x, x)), "(x * 2)");
  CHECK_STR(RS(ADD(SUB(x, y), y)), "x");
  CHECK_STR(RS(ADD(y, SUB(x, y))), "x");
  CHECK_STR(RS(ADD(MUL(x, IC(3)), MUL(x, IC(4)))), "(x * 7)");
  CHECK_STR(RS(ADD(MUL(x, IC(3)), x)), "(x * 4)");
  CHECK_STR(RS(ADD(x, MUL(x, IC(3)))), "(x * 4)");
  CHECK_STR(RS(ADD(x, y)), "(x + y)");
  /* a common non-constant factor is taken out (TVM), in any factor order */
  CHECK_STR(RS(ADD(MUL(x, y), MUL(x, z))), "(x * (y + z))");
  CHECK_STR(RS(ADD(MUL(y, x), MUL(z, x))), "(x * (y + z))");
  CHECK_STR(RS(ADD(MUL(y, x), MUL(x, z))), "(x * (y + z))");
  CHECK_STR(RS(ADD(MUL(x, IC(4)), MUL(y, IC(4)))), "((x * 4) + (y * 4))"); /* constants stay */
  /* floats: x + 0.0 is x (TVM), x + x stays */
  psg_tir_expr *f = VARD("f", "float32");
  CHECK_STR(RS(ADD(f, FC("float32", 0))), "f");
  CHECK_STR(RS(MUL(f, FC("float32", 1))), "f");
  CHECK_STR(RS(ADD(f, f)), "(f + f)");
  /* TVM's TryConstFold on a float constant operand: 0.0 + x, x - 0.0,
   * 1.0 * x, x / 1.0 are x; 0.0 * x, x * 0.0, 0.0 / x, 0.0 // x are 0.0 (even
   * though x may be NaN); 0.0 - x, x / 0.0 and float modulo stay. */
  psg_tir_expr *z0 = FC("float32", 0), *one = FC("float32", 1);
  CHECK_STR(RS(ADD(z0, f)), "f");
  CHECK_STR(RS(SUB(f, z0)), "f");
  CHECK_STR(RS(MUL(one, f)), "f");
  CHECK_STR(RS(TDIV(f, one)), "f");
  CHECK_STR(RS(FDIV(f, one)), "f");
  CHECK_STR(RS(MUL(z0, f)), "0");
  CHECK_STR(RS(MUL(f, z0)), "0");
  CHECK_STR(RS(TDIV(z0, f)), "0");
  CHECK_STR(RS(FDIV(z0, f)), "0");
  CHECK_STR(RS(SUB(z0, f)), "(0 - f)");
  CHECK_STR(RS(TDIV(f, z0)), "T.Div(f, 0)");
  CHECK_STR(RS(FMOD(f, one)), "(f % 1)");
  /* ints: 0 / x, 0 // x, 0 % x are 0; x % 1 is 0 */
  CHECK_STR(RS(TDIV(IC(0), x)), "0");
  CHECK_STR(RS(FMOD(IC(0), x)), "0");
  CHECK_STR(RS(TMOD(x, IC(1))), "0");
}

static void test_sub_rules(void) {
  CHECK_STR(RS(SUB(x, x)), "0");
  CHECK_STR(RS(SUB(x, IC(0))), "x");
  CHECK_STR(RS(SUB(ADD(x, IC(3)), x)), "3");
  CHECK_STR(RS(SUB(ADD(MUL(x, IC(4)), y), ADD(y, MUL(x, IC(4))))), "0");
  CHECK_STR(RS(SUB(ADD(x, y), y)), "x");
  CHECK_STR(RS(SUB(ADD(x, y), x)), "y");
  CHECK_STR(RS(SUB(x, ADD(x, y))), "(0 - y)");
  CHECK_STR(RS(SUB(ADD(x, IC(5)), IC(2))), "(x + 3)");
  CHECK_STR(RS(SUB(SUB(x, IC(5)), IC(2))), "(x - 7)");
  CHECK_STR(RS(SUB(IC(10), ADD(x, IC(3)))), "(7 - x)");
  CHECK_STR(RS(SUB(MUL(x, IC(5)), MUL(x, IC(2)))), "(x * 3)");
  psg_tir_expr *f = VARD("f", "float32");
  CHECK_STR(RS(SUB(f, f)), "(f - f)"); /* NaN - NaN is not 0 */
}

static void test_mul_rules(void) {
  CHECK_STR(RS(MUL(x, IC(1))), "x");
  CHECK_STR(RS(MUL(x, IC(0))), "0");
  CHECK_STR(RS(MUL(IC(4), x)), "(x * 4)");
  CHECK_STR(RS(MUL(MUL(x, IC(4)), IC(3))), "(x * 12)");
  CHECK_STR(RS(MUL(ADD(x, IC(2)), IC(3))), "((x * 3) + 6)");
}

static void test_div_mod_rules(void) {
  CHECK_STR(RS(FDIV(x, IC(1))), "x");
  CHECK_STR(RS(FMOD(x, IC(1))), "0");
  CHECK_STR(RS(FDIV(MUL(x, IC(8)), IC(4))), "(x * 2)");
  CHECK_STR(RS(FMOD(MUL(x, IC(8)), IC(4))), "0");
  CHECK_STR(RS(FDIV(MUL(x, IC(2)), IC(8))), "(x // 4)");
  CHECK_STR(RS(FDIV(ADD(MUL(x, IC(8)), y), IC(4))), "((x * 2) + (y // 4))");
  CHECK_STR(RS(FMOD(ADD(MUL(x, IC(8)), y), IC(4))), "(y % 4)");
  CHECK_STR(RS(FDIV(ADD(x, IC(8)), IC(4))), "((x // 4) + 2)");
  CHECK_STR(RS(FMOD(ADD(x, IC(8)), IC(4))), "(x % 4)");
  CHECK_STR(RS(TDIV(MUL(x, IC(8)), IC(4))), "(x * 2)");
  /* trunc division is not split when the sign is unknown */
  CHECK_STR(RS(TDIV(ADD(x, IC(8)), IC(4))), "T.Div((x + 8), 4)");
  /* With bounds: the value within one period. */
  psg_arith_scope sc = {0, 0};
  CHECK_OK(psg_arith_enter_constraint(an, AND(LE(IC(0), i), LT(i, IC(16))), &sc));
  CHECK_STR(RS(FDIV(i, IC(16))), "0");
  CHECK_STR(RS(FMOD(i, IC(16))), "i");
  CHECK_STR(RS(TDIV(i, IC(16))), "0");
  CHECK_STR(RS(TMOD(i, IC(16))), "i");
  CHECK_STR(RS(FDIV(ADD(i, IC(32)), IC(16))), "2");
  CHECK_STR(RS(FMOD(ADD(i, IC(32)), IC(16))), "i");
  CHECK_STR(RS(FDIV(SUB(i, IC(16)), IC(16))), "-1");
  psg_arith_exit_constraint(an, &sc);
  CHECK_STR(RS(FDIV(i, IC(16))), "(i // 16)");
  /* modular set: 6*x + 3 is odd */
  CHECK_STR(RS(FMOD(ADD(MUL(x, IC(6)), IC(3)), IC(3))), "0");
  /* quotient * divisor + remainder of one division is the dividend (TVM's
   * rewrite rule; a lowered reshape writes x // 96 * 96 + x % 96) */
  CHECK_STR(RS(ADD(MUL(FDIV(x, IC(96)), IC(96)), FMOD(x, IC(96)))), "x");
  CHECK_STR(RS(ADD(FMOD(x, IC(96)), MUL(FDIV(x, IC(96)), IC(96)))), "x");
  CHECK_STR(RS(ADD(MUL(FDIV(x, y), y), FMOD(x, y))), "x");
  CHECK_STR(RS(ADD(MUL(y, FDIV(x, y)), FMOD(x, y))), "x");
  CHECK_STR(RS(ADD(FMOD(x, y), MUL(y, FDIV(x, y)))), "x");
  CHECK_STR(RS(ADD(MUL(TDIV(x, IC(8)), IC(8)), TMOD(x, IC(8)))), "x");
  CHECK_STR(RS(ADD(MUL(TDIV(x, y), y), TMOD(x, y))), "((T.Div(x, y) * y) + T.truncmod(x, y))"); /* TVM: constant only */
  /* different dividends, divisors or division kinds stay */
  CHECK_STR(RS(ADD(MUL(FDIV(x, IC(96)), IC(96)), FMOD(y, IC(96)))), "(((x // 96) * 96) + (y % 96))");
  CHECK_STR(RS(ADD(MUL(FDIV(x, IC(96)), IC(48)), FMOD(x, IC(48)))), "(((x // 96) * 48) + (x % 48))");
  CHECK_STR(RS(ADD(MUL(TDIV(x, IC(8)), IC(8)), FMOD(x, IC(8)))), "((T.Div(x, 8) * 8) + (x % 8))");
}

static void test_min_max_rules(void) {
  CHECK_STR(RS(MIN(x, x)), "x");
  CHECK_STR(RS(MAX(IC(3), x)), "T.max(3, x)"); /* TVM keeps a constant where it is written */
  CHECK_STR(RS(MIN(ADD(x, IC(1)), ADD(x, IC(4)))), "(x + 1)");
  CHECK_STR(RS(MAX(ADD(x, IC(1)), ADD(x, IC(4)))), "(x + 4)");
  CHECK_STR(RS(MIN(MIN(x, IC(4)), IC(2))), "T.min(x, 2)");
  CHECK_STR(RS(MAX(MAX(x, IC(4)), IC(2))), "T.max(x, 4)");
  BIND(j, 0, 8);
  CHECK_STR(RS(MIN(j, IC(8))), "j");
  CHECK_STR(RS(MAX(j, IC(0))), "j");
  CHECK_STR(RS(MIN(j, IC(4))), "T.min(j, 4)");
}

static void test_compare_rules(void) {
  CHECK_STR(RS(EQ(x, x)), "True");
  CHECK_STR(RS(LE(x, x)), "True");
  CHECK_STR(RS(LT(x, x)), "False");
  CHECK_STR(RS(GT(x, y)), "(y < x)");          /* TVM's direction */
  CHECK_STR(RS(GE(x, y)), "(y <= x)");
  CHECK_STR(RS(LT(IC(3), x)), "(3 < x)");
  CHECK_STR(RS(EQ(IC(3), x)), "(x == 3)");
  CHECK_STR(RS(LT(ADD(x, IC(3)), IC(10))), "(x < 7)");
  CHECK_STR(RS(LT(SUB(x, IC(3)), IC(10))), "(x < 13)");
  CHECK_STR(RS(LT(x, ADD(x, IC(1)))), "True");
  CHECK_STR(RS(EQ(MUL(x, IC(2)), IC(1))), "False"); /* modular set */
  CHECK_STR(RS(NE(MUL(x, IC(2)), ADD(MUL(y, IC(4)), IC(1)))), "True");
  BIND(i, 0, 16);
  CHECK_STR(RS(LT(i, IC(16))), "True");
  CHECK_STR(RS(LT(i, IC(15))), "(i < 15)");
  CHECK_STR(RS(GE(i, IC(0))), "True");
  CHECK_STR(RS(LT(ADD(MUL(i, IC(16)), j), IC(256))), "True"); /* j in [0, 8) */
}

static void test_logic_rules(void) {
  psg_tir_expr *c = LT(x, y), *d = LT(y, z);
  CHECK_STR(RS(AND(c, c)), "(x < y)");
  CHECK_STR(RS(OR(c, c)), "(x < y)");
  CHECK_STR(RS(AND(c, NOT(c))), "False");
  CHECK_STR(RS(OR(NOT(c), c)), "True");
  CHECK_STR(RS(AND(TRUE_(), d)), "(y < z)");
  CHECK_STR(RS(OR(TRUE_(), d)), "True");
  CHECK_STR(RS(NOT(NOT(c))), "(x < y)");
  CHECK_STR(RS(NOT(LT(x, y))), "(y <= x)");
  CHECK_STR(RS(NOT(LE(x, y))), "(y < x)");
  CHECK_STR(RS(NOT(EQ(x, y))), "(x != y)");
  CHECK_STR(RS(NOT(AND(c, d))), "((y <= x) or (z <= y))");
  CHECK_STR(RS(AND(LT(x, IC(4)), LE(IC(4), x))), "False");
  CHECK_STR(RS(OR(LT(x, IC(4)), LE(IC(4), x))), "True");
}

static void test_select_cast_call(void) {
  CHECK_STR(RS(SEL(TRUE_(), x, y)), "x");
  CHECK_STR(RS(SEL(LT(IC(3), IC(2)), x, y)), "y");
  CHECK_STR(RS(SEL(LT(x, y), z, z)), "z");
  CHECK_STR(RS(CAST("int32", x)), "x");
  CHECK_STR(RS(CAST("int64", ADD(IC(2), IC(3)))), "5");
  psg_tir_expr *args[3] = {LT(IC(1), IC(2)), x, y}, *call = NULL;
  CHECK_OK(psg_tir_call_create(actx, DT("int32"), "tir.if_then_else", args, 3, NULL, &call));
  CHECK_STR(RS(pooled(call)), "x");
  psg_tir_expr *lk = NULL, *la[1] = {TRUE_()};
  CHECK_OK(psg_tir_call_create(actx, DT("bool"), "tir.likely", la, 1, NULL, &lk));
  CHECK_STR(RS(pooled(lk)), "True");
}

static void test_constraint_scopes(void) {
  psg_arith_scope outer = {0, 0}, inner = {0, 0};
  CHECK_OK(psg_arith_enter_constraint(an, LT(n, IC(5)), &outer));
  CHECK_STR(RS(LT(n, IC(10))), "True");
  CHECK_STR(RS(LT(n, IC(5))), "True"); /* the fact itself */
  CHECK_STR(RS(LE(IC(5), n)), "False");
  CHECK_OK(psg_arith_enter_constraint(an, EQ(n, IC(2)), &inner));
  CHECK_STR(RS(ADD(n, IC(1))), "(n + 1)"); /* a var pinned by a fact stays a var (TVM) */
  CHECK_STR(RS(EQ(ADD(n, IC(1)), IC(3))), "True");
  psg_arith_exit_constraint(an, &inner);
  CHECK_STR(RS(ADD(n, IC(1))), "(n + 1)");
  psg_arith_exit_constraint(an, &outer);
  CHECK_STR(RS(LT(n, IC(10))), "(n < 10)");
  /* a var vs var condition is remembered as a whole */
  CHECK_OK(psg_arith_enter_constraint(an, EQ(x, n), &outer));
  CHECK_STR(RS(EQ(x, n)), "True");
  CHECK_STR(RS(NE(x, n)), "False");
  psg_arith_exit_constraint(an, &outer);
  CHECK_STR(RS(EQ(x, n)), "(x == n)");
}

static void test_known_offsets_and_branches(void) {
  psg_arith_scope sc = {0, 0};
  psg_tir_expr *p = VAR("p"), *q = VAR("q");
  CHECK_OK(psg_arith_enter_constraint(an, LT(p, q), &sc));
  CHECK_STR(RS(LT(p, ADD(q, IC(1)))), "True");   /* p < q gives p < q + 1 */
  CHECK_STR(RS(LE(q, p)), "False");
  CHECK_STR(RS(LE(ADD(p, IC(1)), q)), "True");
  CHECK_STR(RS(LT(ADD(p, IC(1)), q)), "((p + 1) < q)");
  psg_arith_exit_constraint(an, &sc);
  CHECK_STR(RS(LT(p, ADD(q, IC(1)))), "(p < (q + 1))");
  /* select: each branch knows the condition (or its negation) */
  CHECK_STR(RS(SEL(LT(p, IC(5)), MIN(p, IC(5)), MAX(p, IC(5)))), "p");
  /* tir.if_then_else(c, 0, max(0, if_then_else(c, 0, q))): the inner one goes (TVM's TestNestedIfElimination) */
  psg_tir_expr *c = AND(EQ(p, IC(1)), LE(IC(6), q));
  psg_tir_expr *in_args[3] = {c, IC(0), q}, *inner = NULL, *outer = NULL;
  CHECK_OK(psg_tir_call_create(actx, DT("int32"), "tir.if_then_else", in_args, 3, NULL, &inner));
  psg_tir_expr *out_args[3] = {c, IC(0), MAX(IC(0), pooled(inner))};
  CHECK_OK(psg_tir_call_create(actx, DT("int32"), "tir.if_then_else", out_args, 3, NULL, &outer));
  psg_tir_expr *r = NULL;
  CHECK_OK(psg_arith_rewrite_simplify(an, pooled(outer), &r));
  pooled(r);
  CHECK_STR(show(psg_tir_call_get_arg(r, 2)), "T.max(0, q)");
  /* a known condition decides if_then_else and likely */
  CHECK_OK(psg_arith_enter_constraint(an, LT(p, IC(12)), &sc));
  psg_tir_expr *a3[3] = {LT(p, IC(12)), IC(1), IC(2)}, *ite = NULL;
  CHECK_OK(psg_tir_call_create(actx, DT("int32"), "tir.if_then_else", a3, 3, NULL, &ite));
  CHECK_STR(RS(pooled(ite)), "1");
  psg_arith_exit_constraint(an, &sc);
}

static void test_vectors(void) {
  psg_tir_expr *b1 = NULL, *b2 = NULL, *r1 = NULL;
  CHECK_OK(psg_tir_broadcast_create(actx, ADD(IC(1), IC(0)), 4, NULL, &b1));
  CHECK_OK(psg_tir_broadcast_create(actx, IC(2), 4, NULL, &b2));
  CHECK_OK(psg_tir_ramp_create(actx, x, IC(1), 4, NULL, &r1));
  pooled(b1), pooled(b2), pooled(r1);
  psg_tir_expr *r = NULL;
  CHECK_OK(psg_arith_rewrite_simplify(an, ADD(b1, b2), &r));
  pooled(r);
  CHECK_EQ_INT(psg_tir_kind(r), PSG_TIR_BROADCAST);
  CHECK_STR(show(psg_tir_get_value(r)), "3");
  CHECK_OK(psg_arith_rewrite_simplify(an, ADD(r1, b2), &r));
  pooled(r);
  CHECK_EQ_INT(psg_tir_kind(r), PSG_TIR_RAMP);
  CHECK_STR(show(psg_tir_ramp_get_base(r)), "(x + 2)");
}

/* A comparison the facts do not decide becomes the narrowest one they allow
 * (TVM's most restrictive conditional). */
static void test_narrowed_comparisons(void) {
  psg_arith_scope sc;
  CHECK_OK(psg_arith_enter_constraint(an, LE(y, IC(7)), &sc));
  CHECK_STR(RS(LE(IC(7), y)), "(y == 7)");  /* y <= 7 and 7 <= y */
  CHECK_STR(RS(NE(y, IC(7))), "(y < 7)");
  CHECK_STR(RS(GE(y, IC(7))), "(y == 7)");
  psg_arith_exit_constraint(an, &sc);
  CHECK_STR(RS(LE(IC(7), y)), "(7 <= y)");  /* nothing known: kept */
  CHECK_OK(psg_arith_enter_constraint(an, NE(y, z), &sc));
  CHECK_STR(RS(LE(z, y)), "(z < y)");
  CHECK_STR(RS(EQ(z, y)), "False");
  psg_arith_exit_constraint(an, &sc);
  CHECK_OK(psg_arith_enter_constraint(an, LE(z, y), &sc));
  CHECK_STR(RS(LE(y, z)), "(y == z)");
  CHECK_STR(RS(NE(y, z)), "(z < y)");
  psg_arith_exit_constraint(an, &sc);
  /* not (y < z + 4) known: y < z + 2 is false; x < y or x == y is x <= y */
  CHECK_OK(psg_arith_enter_constraint(an, NOT(LT(y, ADD(z, IC(4)))), &sc));
  CHECK_STR(RS(OR(LT(y, ADD(z, IC(2))), LT(x, y))), "(x < y)");
  psg_arith_exit_constraint(an, &sc);
  CHECK_STR(RS(OR(LT(x, y), EQ(x, y))), "(x <= y)");
}

static void test_errors(void) {
  psg_tir_expr *r = NULL;
  CHECK_EQ_INT(psg_arith_rewrite_simplify(an, NULL, &r), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_arith_bind(an, IC(1), IC(0), IC(4)), PSG_ERR_INVALID_ARGUMENT);
}

int main(void) {
  arith_begin();
  x = VAR("x"), y = VAR("y"), z = VAR("z"), i = VAR("i"), j = VAR("j"), n = VAR("n");
  RUN_TEST(test_add_rules);
  RUN_TEST(test_sub_rules);
  RUN_TEST(test_mul_rules);
  RUN_TEST(test_div_mod_rules);
  RUN_TEST(test_min_max_rules);
  RUN_TEST(test_compare_rules);
  RUN_TEST(test_logic_rules);
  RUN_TEST(test_select_cast_call);
  RUN_TEST(test_constraint_scopes);
  RUN_TEST(test_known_offsets_and_branches);
  RUN_TEST(test_vectors);
  RUN_TEST(test_narrowed_comparisons);
  RUN_TEST(test_errors);
  arith_end();
  return check_finish();
}
