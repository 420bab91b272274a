/* Passage — constant folding of TIR (psg_arith_const_fold): TVM's
 * semantics for every foldable kind, wrap-around at the dtype's width
 * without C undefined behaviour, trunc vs floor division, and what is left
 * unfolded (division by zero, float16, out-of-range float -> int). */
#include "arith_check.h"

static void test_int_arith_wraps(void) {
  CHECK_STR(FOLD(ADD(IC(2), IC(3))), "5");
  CHECK_STR(FOLD(ADD(IC(INT32_MAX), IC(1))), "-2147483648");
  CHECK_STR(FOLD(SUB(IC(INT32_MIN), IC(1))), "2147483647");
  CHECK_STR(FOLD(MUL(IC(65536), IC(65536))), "0");
  CHECK_STR(FOLD(ADD(ICD("int8", 127), ICD("int8", 1))), "-128");
  CHECK_STR(FOLD(ADD(ICD("uint8", 200), ICD("uint8", 100))), "44");
  CHECK_STR(FOLD(SUB(ICD("uint8", 0), ICD("uint8", 1))), "255");
  CHECK_STR(FOLD(MUL(ICD("int64", INT64_MAX), ICD("int64", 2))), "-2");
  CHECK_STR(FOLD(ADD(ICD("int64", INT64_MAX), ICD("int64", 1))), "-9223372036854775808");
}

static void test_division_kinds(void) {
  CHECK_STR(FOLD(TDIV(IC(-7), IC(2))), "-3");
  CHECK_STR(FOLD(TMOD(IC(-7), IC(2))), "-1");
  CHECK_STR(FOLD(FDIV(IC(-7), IC(2))), "-4");
  CHECK_STR(FOLD(FMOD(IC(-7), IC(2))), "1");
  CHECK_STR(FOLD(FDIV(IC(7), IC(-2))), "-4");
  CHECK_STR(FOLD(FMOD(IC(7), IC(-2))), "-1");
  CHECK_STR(FOLD(TDIV(IC(7), IC(-2))), "-3");
  CHECK_STR(FOLD(TMOD(IC(7), IC(-2))), "1");
  /* INT_MIN / -1 wraps instead of trapping. */
  CHECK_STR(FOLD(TDIV(ICD("int64", INT64_MIN), ICD("int64", -1))), "-9223372036854775808");
  CHECK_STR(FOLD(FDIV(IC(INT32_MIN), IC(-1))), "-2147483648");
  CHECK_STR(FOLD(TMOD(ICD("int64", INT64_MIN), ICD("int64", -1))), "0");
  /* Division by zero is not folded. */
  CHECK_STR(FOLD(TDIV(IC(7), IC(0))), "T.Div(7, 0)");
  CHECK_STR(FOLD(FMOD(IC(7), IC(0))), "(7 % 0)");
  CHECK_STR(FOLD(TDIV(FC("float32", 1), FC("float32", 0))), "T.Div(1, 0)");
  /* unsigned: values compare and divide as unsigned */
  CHECK_STR(FOLD(TDIV(ICD("uint8", 250), ICD("uint8", 7))), "35");
  CHECK_STR(FOLD(GT(ICD("uint8", 200), ICD("uint8", 100))), "True");
}

static void test_min_max_compare_logic(void) {
  CHECK_STR(FOLD(MIN(IC(3), IC(-4))), "-4");
  CHECK_STR(FOLD(MAX(IC(3), IC(-4))), "3");
  CHECK_STR(FOLD(LT(IC(3), IC(4))), "True");
  CHECK_STR(FOLD(GE(IC(3), IC(4))), "False");
  CHECK_STR(FOLD(EQ(IC(3), IC(3))), "True");
  CHECK_STR(FOLD(NE(IC(3), IC(3))), "False");
  CHECK_STR(FOLD(AND(TRUE_(), ICD("bool", 0))), "False");
  CHECK_STR(FOLD(OR(TRUE_(), ICD("bool", 0))), "True");
  CHECK_STR(FOLD(NOT(TRUE_())), "False");
  CHECK_STR(FOLD(LE(FC("float32", 1.5), FC("float32", 1.5))), "True");
}

static void test_float(void) {
  /* float32 results are rounded to float. */
  psg_tir_expr *r = NULL;
  CHECK_OK(psg_arith_const_fold(actx, ADD(FC("float32", 0.1), FC("float32", 0.2)), &r));
  CHECK(psg_tir_float_imm_value(r) == (double)(0.1f + 0.2f));
  pooled(r);
  CHECK_OK(psg_arith_const_fold(actx, ADD(FC("float64", 0.1), FC("float64", 0.2)), &r));
  CHECK(psg_tir_float_imm_value(r) == 0.1 + 0.2);
  pooled(r);
  CHECK_STR(FOLD(MUL(FC("float32", 2.5), FC("float32", 4))), "10");
  CHECK_STR(FOLD(MUL(FC("float32", 3e38), FC("float32", 10))), "inf");
  /* float16 arithmetic is left alone; its min, max and comparisons fold
   * (TVM: the result is an operand). */
  CHECK_STR(FOLD(ADD(FC("float16", 1), FC("float16", 2))), "(1 + 2)");
  CHECK_STR(FOLD(MAX(FC("float16", 1), FC("float16", 2))), "2");
  CHECK_STR(FOLD(LT(FC("float16", 1), FC("float16", 2))), "True");
  /* floor division of floats rounds down; by zero it stays */
  CHECK_STR(FOLD(FDIV(FC("float32", 7), FC("float32", -2))), "-4");
  CHECK_STR(FOLD(FDIV(FC("float64", 7), FC("float64", 0))), "(7 // 0)");
}

static void test_cast(void) {
  CHECK_STR(FOLD(CAST("int8", IC(300))), "44");
  CHECK_STR(FOLD(CAST("uint8", IC(-1))), "255");
  CHECK_STR(FOLD(CAST("bool", IC(7))), "True");
  CHECK_STR(FOLD(CAST("int32", FC("float32", -2.7))), "-2");
  CHECK_STR(FOLD(CAST("float32", IC(3))), "3");
  CHECK_STR(FOLD(CAST("float64", ICD("uint64", INT64_MAX))), "9.22337204e+18");
  /* A float outside the target's range stays a cast (C leaves it undefined). */
  CHECK_STR(FOLD(CAST("int32", FC("float32", 3e9))), "T.Cast(\"int32\", 3e+09)");
  CHECK_STR(FOLD(CAST("int64", FC("float64", 1e300))), "T.Cast(\"int64\", 1e+300)");
}

static void test_not_foldable(void) {
  psg_tir_expr *x = VAR("x");
  CHECK_STR(FOLD(ADD(x, IC(1))), "(x + 1)");
  psg_tir_expr *r = NULL;
  CHECK_EQ_INT(psg_arith_const_fold(actx, NULL, &r), PSG_ERR_INVALID_ARGUMENT);
  CHECK(r == NULL);
}

int main(void) {
  arith_begin();
  RUN_TEST(test_int_arith_wraps);
  RUN_TEST(test_division_kinds);
  RUN_TEST(test_min_max_compare_logic);
  RUN_TEST(test_float);
  RUN_TEST(test_cast);
  RUN_TEST(test_not_foldable);
  arith_end();
  return check_finish();
}
