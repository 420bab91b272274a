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
  CHECK_EQ_INT(psg_arith_set_extensions(an, 8), PSG_ERR_UNSUPPORTED);
  const psg_diag *d = psg_ctx_get_last_error(actx);
  CHECK(d && strstr(psg_diag_message(d), "0x8 are not implemented"));
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

int main(void) {
  arith_begin();
  RUN_TEST(test_update_bound);
  RUN_TEST(test_extensions);
  arith_end();
  return check_finish();
}
