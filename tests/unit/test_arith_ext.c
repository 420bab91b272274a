/* Passage — psg_arith_update_bound (a var's bound set outright, infinite
 * ends included, replacing what binds and constraints knew, undone by the
 * enclosing scope's exit) and psg_arith_set_extensions (the three extensions
 * the analyzer has; the other is refused). */
#include "arith_check.h"

#define INF PSG_ARITH_POS_INF
#define NINF PSG_ARITH_NEG_INF

static void test_update_bound(void) {
  psg_tir_expr *x = VARD("x", "int64"), *y = VAR("y");
  psg_arith_bound b = {0, INF};
  CHECK_OK(psg_arith_update_bound(an, x, b));
  CHECK_BOUND(x, 0, INF);
  CHECK_BOUND(ADD(MUL(x, ICD("int64", 2)), ICD("int64", 1)), 1, INF);
  /* a later update replaces, it does not intersect */
  psg_arith_bound wide = {-5, 5};
  CHECK_OK(psg_arith_update_bound(an, x, wide));
  CHECK_BOUND(x, -5, 5);
  /* scoped: the constraint's exit drops the update made inside it */
  psg_arith_scope s;
  CHECK_OK(psg_arith_enter_constraint(an, LT(y, IC(100)), &s));
  psg_arith_bound narrow = {3, 4};
  CHECK_OK(psg_arith_update_bound(an, y, narrow));
  CHECK_BOUND(ADD(y, IC(1)), 4, 5);
  psg_arith_exit_constraint(an, &s);
  CHECK_BOUND(y, INT32_MIN, INT32_MAX);
  /* not a var, or min > max */
  psg_arith_bound bad = {2, 1};
  CHECK_EQ_INT(psg_arith_update_bound(an, y, bad), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_arith_update_bound(an, ADD(y, IC(1)), b), PSG_ERR_INVALID_ARGUMENT);
  psg_ctx_clear_diags(actx);
}

static void test_extensions(void) {
  CHECK_OK(psg_arith_set_extensions(an, PSG_ARITH_EXT_TRANSITIVE | PSG_ARITH_EXT_BOOLEAN_BRANCHES));
  CHECK_OK(psg_arith_set_extensions(an, 0));
  CHECK_OK(psg_arith_set_extensions(an, PSG_ARITH_EXT_PRODUCT_SUM));
  CHECK_OK(psg_arith_set_extensions(an, 0));
  CHECK_EQ_INT(psg_arith_set_extensions(an, 16), PSG_ERR_UNSUPPORTED);
  const psg_diag *d = psg_ctx_get_last_error(actx);
  CHECK(d && strstr(psg_diag_message(d), "0x10 are not implemented"));
  psg_ctx_clear_diags(actx);
  /* transitive: a < b and b < c prove a < c only with the extension */
  psg_tir_expr *a = VAR("a"), *b2 = VAR("b"), *c = VAR("c");
  psg_arith_scope s1, s2;
  CHECK_OK(psg_arith_enter_constraint(an, LT(a, b2), &s1));
  CHECK_OK(psg_arith_enter_constraint(an, LT(b2, c), &s2));
  bool without = psg_arith_can_prove(an, LT(a, c));
  CHECK_OK(psg_arith_set_extensions(an, PSG_ARITH_EXT_TRANSITIVE));
  CHECK(psg_arith_can_prove(an, LT(a, c)));
  CHECK(!without);
  CHECK_OK(psg_arith_set_extensions(an, 0));
  psg_arith_exit_constraint(an, &s2);
  psg_arith_exit_constraint(an, &s1);
  /* and of ors: an OR over an AND is distributed only with the extension;
   * two groups differing in one term merge */
  psg_tir_expr *or_and = OR(EQ(a, IC(1)), AND(EQ(b2, IC(2)), EQ(c, IC(3))));
  psg_tir_expr *merge = AND(OR(EQ(a, IC(0)), EQ(c, IC(20))), OR(EQ(a, IC(0)), NE(c, IC(30))));
  CHECK_STR(RS(or_and), "((a == 1) or ((b == 2) and (c == 3)))");
  CHECK_OK(psg_arith_set_extensions(an, PSG_ARITH_EXT_AND_OF_ORS));
  CHECK_STR(RS(or_and), "(((a == 1) or (b == 2)) and ((a == 1) or (c == 3)))");
  CHECK_STR(RS(merge), "((a == 0) or (c == 20))");
  CHECK_OK(psg_arith_set_extensions(an, 0));
  CHECK_STR(RS(merge), "(((a == 0) or (c == 20)) and ((a == 0) or (c != 30)))");
}

/* ComparisonOfProductAndSum: x * y < (x + y) * 2048 for 0 < x < 2048 and
 * y > 0 (TVM's first case), only with the extension; D negative flips. */
static void test_product_and_sum(void) {
  psg_tir_expr *x = VAR("x"), *y = VAR("y");
  psg_arith_scope s;
  CHECK_OK(psg_arith_enter_constraint(an, AND(AND(GT(x, IC(0)), GT(y, IC(0))), LT(x, IC(2048))), &s));
  psg_tir_expr *lt = LT(MUL(x, y), MUL(ADD(x, y), IC(2048)));
  CHECK(!psg_arith_can_prove(an, lt));
  CHECK_OK(psg_arith_set_extensions(an, PSG_ARITH_EXT_PRODUCT_SUM));
  CHECK(psg_arith_can_prove(an, lt));
  CHECK(psg_arith_can_prove(an, GT(MUL(ADD(y, x), IC(2048)), MUL(x, y))));
  /* negated: -(x*y) > -((x+y)*2048), written with a negative D and C */
  CHECK(psg_arith_can_prove(an, GT(MUL(MUL(x, y), IC(-1)), MUL(ADD(x, y), IC(-2048)))));
  CHECK(!psg_arith_can_prove(an, LT(MUL(x, y), MUL(ADD(x, y), IC(16)))));
  CHECK_OK(psg_arith_set_extensions(an, 0));
  psg_arith_exit_constraint(an, &s);
  /* y unbounded above and x too: not provable */
  CHECK_OK(psg_arith_enter_constraint(an, AND(GT(x, IC(0)), GT(y, IC(0))), &s));
  CHECK_OK(psg_arith_set_extensions(an, PSG_ARITH_EXT_PRODUCT_SUM));
  CHECK(!psg_arith_can_prove(an, lt));
  CHECK_OK(psg_arith_set_extensions(an, 0));
  psg_arith_exit_constraint(an, &s);
}

/* floormod(i, -2) == 0 known (canonical's form of floormod(0 - i, 2) == 0):
 * i is even, so floormod(i, 2) == 0 and floormod(i + 1, 2) == 1. */
static void test_modular_fact(void) {
  psg_tir_expr *i = VAR("i");
  psg_arith_scope s;
  CHECK(!psg_arith_can_prove(an, EQ(FMOD(i, IC(2)), IC(0))));
  CHECK_OK(psg_arith_enter_constraint(an, EQ(FMOD(i, IC(-2)), IC(0)), &s));
  CHECK(psg_arith_can_prove(an, EQ(FMOD(i, IC(2)), IC(0))));
  CHECK(psg_arith_can_prove(an, EQ(FMOD(ADD(i, IC(1)), IC(2)), IC(1))));
  CHECK(psg_arith_can_prove(an, EQ(FMOD(i, IC(-2)), IC(0))));
  psg_arith_modset m;
  CHECK_OK(psg_arith_modular_set(an, i, &m));
  CHECK(m.coeff == 2 && m.base == 0);
  psg_arith_exit_constraint(an, &s);
  CHECK(!psg_arith_can_prove(an, EQ(FMOD(i, IC(2)), IC(0))));
  /* floormod(j, 4) == 3: j is odd */
  psg_tir_expr *j = VAR("j");
  CHECK_OK(psg_arith_enter_constraint(an, EQ(FMOD(j, IC(4)), IC(3)), &s));
  CHECK(psg_arith_can_prove(an, EQ(FMOD(j, IC(2)), IC(1))));
  psg_arith_exit_constraint(an, &s);
  CHECK_STR(SS(EQ(MUL(FMOD(i, IC(-2)), IC(-1)), IC(0))), "((i % -2) == 0)");
}

int main(void) {
  arith_begin();
  RUN_TEST(test_update_bound);
  RUN_TEST(test_extensions);
  RUN_TEST(test_product_and_sum);
  RUN_TEST(test_modular_fact);
  arith_end();
  return check_finish();
}
