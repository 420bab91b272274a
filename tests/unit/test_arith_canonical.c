/* Passage — the canonical simplifier of index expressions
 * (psg_arith_canonical_simplify), psg_arith_simplify, can_prove and
 * can_prove_equal: sums of products with constant coefficients,
 * floordiv/floormod of sums split with bounds (TVM's canonical_simplify of
 * (i*16 + j) // 16 with j in [0, 16) is i). */
#include "arith_check.h"

static void test_sums(void) {
  psg_tir_expr *x = VAR("x"), *y = VAR("y"), *z = VAR("z");
  CHECK_STR(CS(SUB(ADD(ADD(MUL(x, IC(4)), MUL(y, IC(2))), MUL(x, IC(3))), MUL(y, IC(2)))), "(x * 7)");
  CHECK_STR(CS(SUB(ADD(x, y), ADD(y, x))), "0");
  CHECK_STR(CS(ADD(MUL(ADD(x, IC(2)), IC(3)), SUB(y, MUL(x, IC(3))))), "(y + 6)");
  CHECK_STR(CS(SUB(IC(5), MUL(x, IC(2)))), "(5 - (x * 2))");
  /* TVM's normal form: positive terms, a positive constant, then what is
   * subtracted; negative terms alone are subtracted from 0 */
  CHECK_STR(CS(ADD(SUB(IC(3), y), x)), "((x + 3) - y)");
  CHECK_STR(CS(SUB(ADD(SUB(IC(0), y), x), IC(4))), "((x - y) - 4)");
  CHECK_STR(CS(SUB(IC(0), x)), "(0 - x)");
  /* a lone scaled term keeps its product, whatever the sign (TVM's
   * SplitExpr normalizes to x * -3; a SumExpr of one negative term is 0 - x) */
  CHECK_STR(CS(MUL(x, IC(-3))), "(x * -3)");
  CHECK_STR(CS(MUL(x, IC(-1))), "(x * -1)");
  CHECK_STR(CS(MUL(MUL(x, IC(2)), IC(-1))), "(x * -2)");
  CHECK_STR(CS(MUL(ADD(x, y), IC(-1))), "((0 - x) - y)");
  /* A product of non-constant factors: the factors in order, then the
   * constants (TVM's MulAndNormalize; a flattened 32 x n x n shape). */
  CHECK_STR(CS(MUL(MUL(IC(32), x), x)), "((x * x) * 32)");
  CHECK_STR(CS(MUL(MUL(x, IC(4)), MUL(y, IC(2)))), "((x * y) * 8)");
  CHECK_STR(CS(MUL(x, MUL(y, x))), "((x * y) * x)");
  CHECK_STR(CS(MUL(ADD(x, IC(1)), y)), "((x + 1) * y)");
  CHECK_STR(CS(MUL(MUL(x, y), IC(3))), "((x * y) * 3)");
  /* floormod(k * x, c), k | c: floormod(x, c / k) * k (TVM's SplitModConst) */
  CHECK_STR(CS(FMOD(SUB(IC(0), x), IC(2))), "((x % -2) * -1)");
  CHECK_STR(CS(FMOD(MUL(x, IC(2)), IC(8))), "((x % 4) * 2)");
  /* truncdiv of a sum c divides exactly needs no sign (TVM) */
  CHECK_STR(CS(TDIV(ADD(MUL(x, IC(2)), MUL(y, IC(4))), IC(2))), "(x + (y * 2))");
  CHECK_STR(CS(TDIV(ADD(IC(16), MUL(IC(48), x)), IC(16))), "((x * 3) + 1)");
  CHECK_STR(CS(TMOD(ADD(IC(16), MUL(IC(48), x)), IC(16))), "0");
  /* floormod(floormod(x, c1), c) with c | c1 */
  CHECK_STR(CS(FMOD(FMOD(x, IC(32)), IC(16))), "(x % 16)");
  CHECK_STR(CS(FMOD(FMOD(ADD(x, IC(24524)), IC(24528)), IC(16))), "((x + 12) % 16)");
  CHECK_STR(CS(FMOD(FMOD(x, IC(24)), IC(16))), "((x % 24) % 16)");
  CHECK_STR(CS(FMOD(SUB(FMOD(ADD(x, IC(4)), IC(24528)), IC(24512)), IC(16))), "((x + 4) % 16)");
  CHECK_STR(CS(FMOD(ADD(MUL(FMOD(x, IC(8)), IC(3)), y), IC(4))), "(((x * 3) + y) % 4)");
  CHECK_STR(CS(ADD(SUB(z, x), SUB(x, z))), "0");
  CHECK_STR(CS(ADD(MUL(x, y), MUL(x, y))), "((x * y) * 2)");
}

static void test_div_mod_of_sums(void) {
  psg_tir_expr *i = VAR("i"), *j = VAR("j"), *x = VAR("x"), *y = VAR("y");
  BIND(i, 0, 16);
  BIND(j, 0, 16);
  psg_tir_expr *flat = ADD(MUL(i, IC(16)), j);
  CHECK_STR(CS(FDIV(flat, IC(16))), "i");
  CHECK_STR(CS(FMOD(flat, IC(16))), "j");
  CHECK_STR(CS(TDIV(flat, IC(16))), "i");
  CHECK_STR(CS(TMOD(flat, IC(16))), "j");
  CHECK_STR(CS(ADD(MUL(FDIV(flat, IC(16)), IC(16)), FMOD(flat, IC(16)))), "((i * 16) + j)");
  CHECK_STR(CS(FDIV(ADD(MUL(x, IC(4)), IC(3)), IC(2))), "((x * 2) + 1)");
  CHECK_STR(CS(FDIV(ADD(MUL(x, IC(6)), y), IC(3))), "((x * 2) + (y // 3))");
  CHECK_STR(CS(FMOD(ADD(MUL(x, IC(6)), y), IC(3))), "(y % 3)");
  /* (j + 16 * 3 + 1) // 16 = 3 + (j + 1) // 16: j + 1 spans two periods */
  CHECK_STR(CS(FDIV(ADD(j, IC(49)), IC(16))), "(((j + 1) // 16) + 3)");
  /* trunc division of a sum that may be negative is left alone */
  CHECK_STR(CS(TDIV(ADD(MUL(x, IC(16)), j), IC(16))), "T.Div(((x * 16) + j), 16)");
  /* 2-D to 1-D and back */
  psg_tir_expr *k = VAR("k");
  BIND(k, 0, 4);
  psg_tir_expr *idx = ADD(MUL(ADD(MUL(i, IC(16)), j), IC(4)), k);
  CHECK_STR(CS(FDIV(idx, IC(4))), "((i * 16) + j)");
  CHECK_STR(CS(FMOD(FDIV(idx, IC(4)), IC(16))), "j");
  CHECK_STR(CS(FDIV(idx, IC(64))), "i");
}

static void test_prove(void) {
  psg_tir_expr *i = VAR("i"), *j = VAR("j"), *x = VAR("x");
  BIND(i, 0, 16);
  BIND(j, 0, 16);
  psg_tir_expr *flat = ADD(MUL(i, IC(16)), j);
  CHECK(psg_arith_can_prove(an, LT(flat, IC(256))));
  CHECK(!psg_arith_can_prove(an, LT(flat, IC(255))));
  CHECK(psg_arith_can_prove(an, EQ(FDIV(flat, IC(16)), i)));
  CHECK(psg_arith_can_prove(an, LE(IC(0), flat)));
  CHECK(psg_arith_can_prove_equal(an, FDIV(flat, IC(16)), i));
  CHECK(psg_arith_can_prove_equal(an, MUL(x, IC(2)), ADD(x, x)));
  CHECK(!psg_arith_can_prove_equal(an, MUL(x, IC(2)), ADD(x, IC(2))));
  CHECK(psg_arith_can_prove_equal(an, x, x));
  CHECK(!psg_arith_can_prove(an, LT(x, IC(3))));
  CHECK(!psg_arith_can_prove(an, NULL));
  CHECK(psg_arith_expr_equal(ADD(x, IC(1)), ADD(x, IC(1))));
  CHECK(!psg_arith_expr_equal(ADD(x, IC(1)), ADD(x, IC(2))));
  CHECK(!psg_arith_expr_equal(ADD(x, IC(1)), ADD(VAR("x"), IC(1)))); /* vars by identity */
}

static void test_simplify_pipeline(void) {
  psg_tir_expr *i = VAR("i"), *j = VAR("j");
  BIND(i, 0, 4);
  BIND(j, 0, 8);
  /* rewrite, canonical, rewrite: the min goes once the sum is canonical */
  CHECK_STR(SS(MIN(FDIV(ADD(MUL(i, IC(8)), j), IC(8)), IC(4))), "i");
  CHECK_STR(SS(LT(ADD(MUL(i, IC(8)), j), IC(32))), "True");
  CHECK_STR(SS(SEL(LT(i, IC(4)), i, j)), "i");
}

static void test_term_limit(void) {
  /* A sum of more than PSG_ARITH_MAX_TERMS distinct terms keeps its shape
   * (each part simplified) and is still correct. */
  psg_tir_expr *sum = IC(0), *first = NULL;
  char name[16];
  for (int t = 0; t < PSG_ARITH_MAX_TERMS + 6; t++) {
    snprintf(name, sizeof name, "v%d", t);
    psg_tir_expr *v = VAR(name);
    if (!first) first = v;
    sum = ADD(sum, v);
  }
  psg_tir_expr *r = NULL;
  CHECK_OK(psg_arith_canonical_simplify(an, SUB(sum, first), &r));
  pooled(r);
  CHECK(r != NULL);
  CHECK_STR(CS(SUB(ADD(first, IC(1)), first)), "1");
}

int main(void) {
  arith_begin();
  RUN_TEST(test_sums);
  RUN_TEST(test_div_mod_of_sums);
  RUN_TEST(test_prove);
  RUN_TEST(test_simplify_pipeline);
  RUN_TEST(test_term_limit);
  arith_end();
  return check_finish();
}
