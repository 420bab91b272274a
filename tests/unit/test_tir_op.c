/* Passage — TIR operators (include/passage/tir_op.h): TVM's dtype matching
 * and constant folding, the wrap-around of folded integers, and the errors
 * (division by zero, unmatched dtypes) without leaks. */
#include "check.h"
#include "passage/tir_op.h"

static psg_tir_dtype I8, I32, I64, U32, F32, BOOL;

static psg_tir_expr *imm(psg_ctx *ctx, psg_tir_dtype t, int64_t v) {
  psg_tir_expr *e;
  CHECK_OK(psg_tir_int_imm_create(ctx, t, v, NULL, &e));
  return e;
}

static psg_tir_expr *var(psg_ctx *ctx, const char *name, psg_tir_dtype t) {
  psg_tir_expr *e;
  CHECK_OK(psg_tir_var_create(ctx, name, t, NULL, NULL, &e));
  return e;
}

/* op(a, b), releasing a and b. */
static psg_tir_expr *bin(psg_ctx *ctx, int kind, psg_tir_expr *a, psg_tir_expr *b) {
  psg_tir_expr *e = NULL;
  CHECK_OK(psg_tir_op_binary(ctx, kind, a, b, NULL, &e));
  psg_tir_release(a);
  psg_tir_release(b);
  return e;
}

static void check_int(psg_tir_expr *e, psg_tir_dtype t, int64_t v) {
  CHECK_EQ_INT(psg_tir_kind(e), PSG_TIR_INT_IMM);
  CHECK_EQ_INT(psg_tir_dtype_of(e), t);
  CHECK_EQ_INT(psg_tir_int_imm_value(e), v);
  psg_tir_release(e);
}

static void test_folding(void) {
  psg_ctx *ctx = check_ctx();
  check_int(bin(ctx, PSG_TIR_ADD, imm(ctx, I32, 1), imm(ctx, I32, 2)), I32, 3);
  check_int(bin(ctx, PSG_TIR_FLOOR_DIV, imm(ctx, I32, -7), imm(ctx, I32, 2)), I32, -4);
  check_int(bin(ctx, PSG_TIR_FLOOR_MOD, imm(ctx, I32, -7), imm(ctx, I32, 2)), I32, 1);
  check_int(bin(ctx, PSG_TIR_DIV, imm(ctx, I32, -7), imm(ctx, I32, 2)), I32, -3);
  check_int(bin(ctx, PSG_TIR_MOD, imm(ctx, I32, -7), imm(ctx, I32, 2)), I32, -1);
  check_int(bin(ctx, PSG_TIR_FLOOR_MOD, imm(ctx, I32, 7), imm(ctx, I32, -2)), I32, -1);
  /* Wrap-around to the dtype's width, never C overflow. */
  check_int(bin(ctx, PSG_TIR_ADD, imm(ctx, I32, INT32_MAX), imm(ctx, I32, 1)), I32, INT32_MIN);
  check_int(bin(ctx, PSG_TIR_MUL, imm(ctx, I64, INT64_MAX), imm(ctx, I64, 2)), I64, -2);
  check_int(bin(ctx, PSG_TIR_FLOOR_DIV, imm(ctx, I64, INT64_MIN), imm(ctx, I64, -1)), I64, INT64_MIN);
  check_int(bin(ctx, PSG_TIR_MOD, imm(ctx, I64, INT64_MIN), imm(ctx, I64, -1)), I64, 0);
  check_int(bin(ctx, PSG_TIR_SUB, imm(ctx, I8, -128), imm(ctx, I8, 1)), I8, 127);
  /* Unsigned comparisons and min. */
  check_int(bin(ctx, PSG_TIR_LT, imm(ctx, U32, 1), imm(ctx, U32, 4000000000)), BOOL, 1);
  check_int(bin(ctx, PSG_TIR_MIN, imm(ctx, I32, -3), imm(ctx, I32, 2)), I32, -3);
  check_int(bin(ctx, PSG_TIR_GE, imm(ctx, I32, -3), imm(ctx, I32, 2)), BOOL, 0);
  psg_tir_expr *f;
  CHECK_OK(psg_tir_make_const_float(ctx, F32, 2.5, NULL, &f));
  psg_tir_expr *g = bin(ctx, PSG_TIR_MUL, f, imm(ctx, I32, 2)); /* the int becomes float32 */
  CHECK_EQ_INT(psg_tir_kind(g), PSG_TIR_FLOAT_IMM);
  CHECK(psg_tir_float_imm_value(g) == 5.0);
  psg_tir_release(g);
  CHECK_CTX_CLEAN(ctx);
}

static void test_identities(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_expr *n = var(ctx, "n", I32), *e;
  struct { int kind; int64_t c; bool left; int expect; } cases[] = {
    {PSG_TIR_ADD, 0, false, 1}, {PSG_TIR_ADD, 0, true, 1},  {PSG_TIR_SUB, 0, false, 1},
    {PSG_TIR_MUL, 1, false, 1}, {PSG_TIR_MUL, 1, true, 1},  {PSG_TIR_MUL, 0, false, 0},
    {PSG_TIR_FLOOR_DIV, 1, false, 1}, {PSG_TIR_DIV, 1, false, 1}, {PSG_TIR_FLOOR_MOD, 1, false, 0},
    {PSG_TIR_SUB, 0, true, -1},  /* 0 - n stays a Sub */
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    psg_tir_expr *c = imm(ctx, I32, cases[i].c);
    CHECK_OK(psg_tir_op_binary(ctx, cases[i].kind, cases[i].left ? c : n, cases[i].left ? n : c, NULL, &e));
    if (cases[i].expect == 1) CHECK(e == n);
    else if (cases[i].expect == 0) CHECK(psg_tir_kind(e) == PSG_TIR_INT_IMM && psg_tir_int_imm_value(e) == 0);
    else CHECK_EQ_INT(psg_tir_kind(e), cases[i].kind);
    psg_tir_release(e);
    psg_tir_release(c);
  }
  /* true && x is x; false || x is x; false && x is false. */
  psg_tir_expr *lt = bin(ctx, PSG_TIR_LT, (psg_tir_retain(n), n), imm(ctx, I32, 4));
  psg_tir_expr *t = imm(ctx, BOOL, 1), *fl = imm(ctx, BOOL, 0);
  CHECK_OK(psg_tir_op_binary(ctx, PSG_TIR_AND, t, lt, NULL, &e));
  CHECK(e == lt);
  psg_tir_release(e);
  CHECK_OK(psg_tir_op_binary(ctx, PSG_TIR_OR, fl, lt, NULL, &e));
  CHECK(e == lt);
  psg_tir_release(e);
  CHECK_OK(psg_tir_op_binary(ctx, PSG_TIR_AND, lt, fl, NULL, &e));
  CHECK(e == fl);
  psg_tir_release(e);
  CHECK_OK(psg_tir_op_not(ctx, t, NULL, &e));
  CHECK(psg_tir_kind(e) == PSG_TIR_INT_IMM && psg_tir_int_imm_value(e) == 0);
  psg_tir_release(e);
  psg_tir_release(t);
  psg_tir_release(fl);
  psg_tir_release(lt);
  psg_tir_release(n);
  CHECK_CTX_CLEAN(ctx);
}

static void test_matching(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_expr *n = var(ctx, "n", I32), *x = var(ctx, "x", I64), *c = var(ctx, "c", I8);
  psg_tir_expr *u = var(ctx, "u", U32), *e;
  /* int64 var + int32 immediate: the immediate is remade as int64. */
  psg_tir_expr *one32 = imm(ctx, I32, 1);
  CHECK_OK(psg_tir_op_binary(ctx, PSG_TIR_ADD, x, one32, NULL, &e));
  CHECK_EQ_INT(psg_tir_dtype_of(e), I64);
  CHECK_EQ_INT(psg_tir_kind(psg_tir_get_b(e)), PSG_TIR_INT_IMM);
  CHECK_EQ_INT(psg_tir_dtype_of(psg_tir_get_b(e)), I64);
  psg_tir_release(one32);
  psg_tir_release(e);
  /* int8 + int32: the narrow side is cast. */
  CHECK_OK(psg_tir_op_binary(ctx, PSG_TIR_ADD, c, n, NULL, &e));
  CHECK_EQ_INT(psg_tir_dtype_of(e), I32);
  CHECK_EQ_INT(psg_tir_kind(psg_tir_get_a(e)), PSG_TIR_CAST);
  psg_tir_release(e);
  /* int32 vs uint32 of one width: unsigned wins. */
  CHECK_OK(psg_tir_op_binary(ctx, PSG_TIR_ADD, u, n, NULL, &e));
  CHECK_EQ_INT(psg_tir_dtype_of(e), U32);
  psg_tir_release(e);
  /* int + float: the int is cast to the float. */
  psg_tir_expr *f;
  CHECK_OK(psg_tir_make_const_float(ctx, F32, 1.5, NULL, &f));
  CHECK_OK(psg_tir_op_binary(ctx, PSG_TIR_ADD, n, f, NULL, &e));
  CHECK_EQ_INT(psg_tir_dtype_of(e), F32);
  CHECK_EQ_INT(psg_tir_kind(psg_tir_get_a(e)), PSG_TIR_CAST);
  psg_tir_release(e);
  /* A scalar meets a vector: broadcast. */
  psg_tir_expr *zero = imm(ctx, I32, 0), *one = imm(ctx, I32, 1), *ramp;
  CHECK_OK(psg_tir_ramp_create(ctx, zero, one, 4, NULL, &ramp));
  CHECK_OK(psg_tir_op_binary(ctx, PSG_TIR_ADD, ramp, n, NULL, &e));
  CHECK_EQ_INT(psg_tir_dtype_lanes(psg_tir_dtype_of(e)), 4);
  CHECK_EQ_INT(psg_tir_kind(psg_tir_get_b(e)), PSG_TIR_BROADCAST);
  psg_tir_release(e);
  /* Cast folds immediates and keeps same-dtype values. */
  CHECK_OK(psg_tir_op_cast(ctx, F32, one, NULL, &e));
  CHECK(psg_tir_kind(e) == PSG_TIR_FLOAT_IMM && psg_tir_float_imm_value(e) == 1.0);
  psg_tir_release(e);
  CHECK_OK(psg_tir_op_cast(ctx, I32, n, NULL, &e));
  CHECK(e == n);
  psg_tir_release(e);
  CHECK_OK(psg_tir_make_const_int(ctx, psg_tir_dtype_with_lanes(I32, 4), 3, NULL, &e));
  CHECK_EQ_INT(psg_tir_kind(e), PSG_TIR_BROADCAST);
  psg_tir_release(e);
  psg_tir_expr *objs[] = {n, x, c, u, f, zero, one, ramp};
  for (size_t i = 0; i < sizeof objs / sizeof *objs; i++) psg_tir_release(objs[i]);
  CHECK_CTX_CLEAN(ctx);
}

static void test_errors(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_expr *n = var(ctx, "n", I32), *zero = imm(ctx, I32, 0), *e = NULL;
  CHECK_EQ_INT(psg_tir_op_binary(ctx, PSG_TIR_FLOOR_DIV, n, zero, NULL, &e), PSG_ERR_INVALID_ARGUMENT);
  CHECK(e == NULL);
  CHECK(strstr(psg_diag_message(psg_ctx_get_last_error(ctx)), "division by zero"));
  CHECK_EQ_INT(psg_tir_op_binary(ctx, PSG_TIR_MOD, zero, zero, NULL, &e), PSG_ERR_INVALID_ARGUMENT);
  /* Lanes that cannot match. */
  psg_tir_expr *r4, *r8, *one = imm(ctx, I32, 1);
  CHECK_OK(psg_tir_ramp_create(ctx, zero, one, 4, NULL, &r4));
  CHECK_OK(psg_tir_ramp_create(ctx, zero, one, 8, NULL, &r8));
  CHECK_EQ_INT(psg_tir_op_binary(ctx, PSG_TIR_ADD, r4, r8, NULL, &e), PSG_ERR_TYPE);
  CHECK(strstr(psg_diag_message(psg_ctx_get_last_error(ctx)), "int32x4 vs int32x8"));
  CHECK_EQ_INT(psg_tir_op_binary(ctx, PSG_TIR_SELECT, n, n, NULL, &e), PSG_ERR_INVALID_ARGUMENT);
  psg_tir_expr *objs[] = {n, zero, one, r4, r8};
  for (size_t i = 0; i < sizeof objs / sizeof *objs; i++) psg_tir_release(objs[i]);
  psg_ctx_clear_diags(ctx);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  I8 = psg_tir_dtype_make(PSG_TIR_CODE_INT, 8, 1);
  I32 = psg_tir_dtype_int32();
  I64 = psg_tir_dtype_int64();
  U32 = psg_tir_dtype_make(PSG_TIR_CODE_UINT, 32, 1);
  F32 = psg_tir_dtype_float32();
  BOOL = psg_tir_dtype_bool();
  RUN_TEST(test_folding);
  RUN_TEST(test_identities);
  RUN_TEST(test_matching);
  RUN_TEST(test_errors);
  return check_finish();
}
