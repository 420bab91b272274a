/* Passage — const_int_bound and modular_set (psg_arith_const_int_bound,
 * psg_arith_modular_set): the cases TVM's tests/python/arith check for
 * them, written again as our own, including +-inf ends and the facts from
 * bind and constraint scopes. */
#include "arith_check.h"

#define INF PSG_ARITH_POS_INF
#define NINF PSG_ARITH_NEG_INF

static void test_dtype_ranges(void) {
  CHECK_BOUND(VAR("x"), INT32_MIN, INT32_MAX);
  CHECK_BOUND(VARD("u", "uint8"), 0, 255);
  CHECK_BOUND(VARD("b", "int8"), -128, 127);
  CHECK_BOUND(VARD("l", "int64"), NINF, INF);
  psg_tir_expr *s = NULL;
  CHECK_OK(psg_tir_size_var_create(actx, "s", DT("int32"), NULL, &s));
  CHECK_BOUND(pooled(s), 0, INT32_MAX);
  CHECK_BOUND(IC(7), 7, 7);
  CHECK_BOUND(LT(VAR("p"), VAR("q")), 0, 1);
  CHECK_BOUND(VARD("f", "float32"), NINF, INF);
}

static void test_arith_bounds(void) {
  psg_tir_expr *x = VAR("x"), *y = VAR("y");
  BIND(x, -1, 5); /* [-1, 3] */
  BIND(y, 4, 7);  /* [4, 10] */
  CHECK_BOUND(ADD(x, y), 3, 13);
  CHECK_BOUND(SUB(x, y), -11, -1);
  CHECK_BOUND(MUL(x, y), -10, 30);
  CHECK_BOUND(MUL(x, IC(-2)), -6, 2);
  CHECK_BOUND(MIN(x, y), -1, 3);
  CHECK_BOUND(MAX(x, y), 4, 10);
  CHECK_BOUND(SEL(LT(x, y), x, y), -1, 10);
  CHECK_BOUND(FDIV(y, IC(3)), 1, 3);
  CHECK_BOUND(FDIV(x, IC(2)), -1, 1);
  CHECK_BOUND(TDIV(x, IC(2)), 0, 1);
  CHECK_BOUND(FMOD(x, IC(4)), 0, 3);
  CHECK_BOUND(FMOD(y, IC(20)), 4, 10);
  CHECK_BOUND(TMOD(x, IC(2)), -1, 1);
  CHECK_BOUND(FDIV(x, y), -1, 0);
  /* A divisor range holding 0 in its middle gives no bound. */
  CHECK_BOUND(FDIV(y, x), INT32_MIN, INT32_MAX);
  CHECK_BOUND(CAST("int8", y), 4, 10);
  CHECK_BOUND(CAST("int8", MUL(y, IC(100))), -128, 127);
}

static void test_infinite_ends(void) {
  psg_tir_expr *l = VARD("l", "int64"), *m = VARD("m", "int64");
  CHECK_OK(psg_arith_bind(an, l, ICD("int64", 0), ICD("int64", 8)));
  CHECK_BOUND(ADD(l, m), NINF, INF);
  CHECK_BOUND(MUL(l, ICD("int64", 2)), 0, 14);
  CHECK_BOUND(MAX(m, ICD("int64", 3)), 3, INF);
  CHECK_BOUND(MIN(m, ICD("int64", 3)), NINF, 3);
  CHECK_BOUND(FMOD(m, ICD("int64", 8)), 0, 7);
  CHECK_BOUND(FDIV(MAX(m, ICD("int64", 0)), ICD("int64", 4)), 0, INF);
  CHECK_BOUND(SUB(ICD("int64", 0), MAX(m, ICD("int64", 0))), NINF, 0);
  /* overflow of a finite bound saturates to infinity */
  CHECK_BOUND(MUL(MAX(m, ICD("int64", INT64_MAX / 2)), ICD("int64", 4)), INF, INF);
}

static void test_bind_and_scopes(void) {
  psg_tir_expr *i = VAR("i"), *j = VAR("j"), *n = VAR("n");
  BIND(i, 0, 16);
  BIND(j, 0, 16);
  CHECK_BOUND(ADD(MUL(i, IC(16)), j), 0, 255);
  CHECK_BOUND(FDIV(ADD(MUL(i, IC(16)), j), IC(16)), 0, 15);
  psg_arith_scope sc = {0, 0};
  CHECK_OK(psg_arith_enter_constraint(an, AND(LT(i, IC(5)), LE(IC(2), i)), &sc));
  CHECK_BOUND(i, 2, 4);
  CHECK_OK(psg_arith_bind(an, n, IC(0), ADD(i, IC(1)))); /* n in [0, i] within the scope */
  CHECK_BOUND(n, 0, 4);
  psg_arith_exit_constraint(an, &sc);
  CHECK_BOUND(i, 0, 15);
  CHECK_BOUND(n, INT32_MIN, INT32_MAX);
  /* not (i < 10) */
  CHECK_OK(psg_arith_enter_constraint(an, NOT(LT(i, IC(10))), &sc));
  CHECK_BOUND(i, 10, 15);
  psg_arith_exit_constraint(an, &sc);
  /* x > e, e < x, x == e */
  CHECK_OK(psg_arith_enter_constraint(an, AND(GT(n, IC(3)), GE(IC(9), n)), &sc));
  CHECK_BOUND(n, 4, 9);
  psg_arith_exit_constraint(an, &sc);
  CHECK_OK(psg_arith_enter_constraint(an, EQ(n, ADD(i, IC(100))), &sc));
  CHECK_BOUND(n, 100, 115);
  psg_arith_exit_constraint(an, &sc);
  /* bind_value: a let */
  CHECK_OK(psg_arith_bind_value(an, n, FMOD(j, IC(4))));
  CHECK_BOUND(n, 0, 3);
}

/* A var bound again in nested scopes reads its newest fact, and leaving a
 * scope gives back the one before (the facts are found through an index by
 * var, which a scope's exit must restore); thousands of vars bound for the
 * rest of a walk each keep their own. */
static void test_rebind_in_scopes(void) {
  psg_tir_expr *v = VAR("v"), *w = VAR("w");
  psg_arith_scope outer = {0, 0}, mid = {0, 0}, inner = {0, 0};
  CHECK_OK(psg_arith_enter_constraint(an, GE(v, IC(-5)), &outer));
  CHECK_BOUND(v, -5, INT32_MAX);
  BIND(v, 0, 100);
  CHECK_BOUND(v, 0, 99);
  CHECK_OK(psg_arith_enter_constraint(an, LT(v, IC(50)), &mid));
  BIND(w, 0, 10);
  CHECK_BOUND(v, 0, 49);
  CHECK_OK(psg_arith_enter_constraint(an, GE(v, IC(10)), &inner));
  BIND(w, 3, 2);
  CHECK_BOUND(v, 10, 49);
  CHECK_BOUND(w, 3, 4);
  psg_arith_exit_constraint(an, &inner);
  CHECK_BOUND(v, 0, 49);
  CHECK_BOUND(w, 0, 9);
  psg_arith_exit_constraint(an, &mid);
  CHECK_BOUND(v, 0, 99);
  CHECK_BOUND(w, INT32_MIN, INT32_MAX);
  psg_arith_exit_constraint(an, &outer);
  CHECK_BOUND(v, INT32_MIN, INT32_MAX);

  enum { NV = 5000 };
  static psg_tir_expr *vs[NV];
  CHECK_OK(psg_arith_enter_constraint(an, GE(v, IC(0)), &outer));
  for (int k = 0; k < NV; k++) BIND(vs[k] = VAR("k"), k, k + 1); /* [k, 2k] */
  for (int k = 0; k < NV; k += 499) CHECK_BOUND(vs[k], k, 2 * k);
  BIND(vs[7], 9, 2); /* the newest fact: [9, 10] within [7, 14] */
  CHECK_BOUND(vs[7], 9, 10);
  CHECK_BOUND(vs[8], 8, 16);
  psg_arith_exit_constraint(an, &outer);
  CHECK_BOUND(vs[7], INT32_MIN, INT32_MAX);
  CHECK_BOUND(vs[NV - 1], INT32_MIN, INT32_MAX);
}

static void test_modular_set(void) {
  psg_tir_expr *x = VAR("x"), *y = VAR("y");
  CHECK_MOD(IC(5), 0, 5);
  CHECK_MOD(x, 1, 0);
  CHECK_MOD(ADD(MUL(x, IC(4)), IC(2)), 4, 2);
  CHECK_MOD(MUL(ADD(MUL(x, IC(4)), IC(2)), IC(3)), 12, 6);
  CHECK_MOD(ADD(MUL(x, IC(6)), MUL(y, IC(4))), 2, 0);
  CHECK_MOD(SUB(MUL(x, IC(6)), IC(1)), 6, 5);
  CHECK_MOD(FDIV(ADD(MUL(x, IC(8)), IC(4)), IC(4)), 2, 1);
  CHECK_MOD(FMOD(ADD(MUL(x, IC(6)), IC(1)), IC(4)), 2, 1);
  CHECK_MOD(FMOD(ADD(MUL(x, IC(8)), IC(5)), IC(4)), 0, 1);
  CHECK_MOD(MIN(MUL(x, IC(4)), ADD(MUL(y, IC(6)), IC(2))), 2, 0);
  CHECK_MOD(SEL(LT(x, y), MUL(x, IC(9)), ADD(MUL(y, IC(6)), IC(3))), 3, 0);
  CHECK_MOD(MUL(x, y), 1, 0);
  /* a var pinned to one value is that value */
  BIND(y, 7, 1);
  CHECK_MOD(y, 0, 7);
  /* overflow gives up rather than wrapping */
  psg_tir_expr *l = VARD("l", "int64");
  CHECK_MOD(MUL(MUL(l, ICD("int64", INT64_MAX)), ICD("int64", 4)), 1, 0);
}

/* TVM's ConstIntBound of shifts, bitwise and, and int(ceil(log2(x))). */
static void test_intrinsic_bounds(void) {
  psg_tir_expr *i = VAR("i"), *r = NULL;
  CHECK_OK(psg_arith_bind(an, i, IC(0), IC(16)));
  psg_tir_expr *sl[2] = {IC(3), i}, *neg[2] = {SUB(IC(0), i), IC(4)}, *band[2] = {VAR("q"), IC(12)};
  CHECK_OK(psg_tir_call_create(actx, DT("int32"), "tir.shift_left", sl, 2, NULL, &r));
  CHECK_BOUND(pooled(r), 3, 3 << 15);
  /* a possibly negative operand: nothing is claimed */
  CHECK_OK(psg_tir_call_create(actx, DT("int32"), "tir.shift_left", neg, 2, NULL, &r));
  CHECK_BOUND(pooled(r), INT32_MIN, INT32_MAX);
  CHECK_OK(psg_tir_call_create(actx, DT("int32"), "tir.bitwise_and", band, 2, NULL, &r));
  CHECK_BOUND(pooled(r), 0, 12);
  /* int(ceil(log2(float64(i + 1000)))) for i in [0, 16) is 10 */
  psg_tir_expr *arg = CAST("float64", ADD(i, IC(1000))), *lg = NULL, *cl = NULL;
  CHECK_OK(psg_tir_call_create(actx, DT("float64"), "tir.log2", &arg, 1, NULL, &lg));
  CHECK_OK(psg_tir_call_create(actx, DT("float64"), "tir.ceil", (psg_tir_expr *[]){pooled(lg)}, 1, NULL, &cl));
  CHECK_BOUND(CAST("int32", pooled(cl)), 10, 10);
}

int main(void) {
  arith_begin();
  RUN_TEST(test_dtype_ranges);
  RUN_TEST(test_arith_bounds);
  RUN_TEST(test_infinite_ends);
  RUN_TEST(test_bind_and_scopes);
  RUN_TEST(test_rebind_in_scopes);
  RUN_TEST(test_modular_set);
  RUN_TEST(test_intrinsic_bounds);
  arith_end();
  return check_finish();
}
