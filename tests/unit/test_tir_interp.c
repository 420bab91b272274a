/* Passage — the reference TIR interpreter (include/passage/tir_interp.h):
 * each statement and expression kind run on small buffers with the values
 * TVM's semantics give (truncating vs flooring division, wrap-around,
 * casts, vectors with predicates, lazy if_then_else), buffers with strides,
 * offsets and aliases, symbolic shapes bound from the arguments. The
 * failures (out of bounds, division by zero, assert, budgets) are in
 * test_tir_interp_errors.c. */
#include <math.h>
#include "tir_build.h"

/* Runs f on one int32 buffer `A` of n elements (zero-filled) and copies the
 * result into out. */
static void run_i32(psg_tir_prim_func *f, int64_t n, int32_t *out) {
  psg_tensor *a = tb_tensor(PSG_DTYPE_INT32, &n, 1, NULL), **outs = NULL;
  CHECK_OK(tb_run(f, &a, 1, &outs));
  if (outs) memcpy(out, psg_tensor_data(outs[0]), (size_t)n * 4);
  tb_free_outs(outs, 1);
  psg_tensor_release(a);
}

static void test_elementwise_2d(void) {
  tb_init(check_ctx());
  psg_tir_buffer *A = TB_BUF("A", TB_F32, 4, 8), *B = TB_BUF("B", TB_F32, 4, 8), *C = TB_BUF("C", TB_F32, 4, 8);
  psg_tir_expr *i = tb_var("i", TB_I32), *j = tb_var("j", TB_I32);
  psg_tir_stmt *body = tb_for(i, 4, tb_for(j, 8, TB_STORE(C, tb_add(TB_LOAD(A, i, j), TB_LOAD(B, i, j)), i, j)));
  psg_tir_prim_func *f = tb_func((psg_tir_buffer *[]){A, B, C}, 3, NULL, 0, body);
  float a[32], b[32];
  for (int k = 0; k < 32; k++) a[k] = (float)k * 0.5f, b[k] = 100.0f - (float)k;
  int64_t shape[2] = {4, 8};
  psg_tensor *args[3] = {tb_tensor(PSG_DTYPE_FLOAT32, shape, 2, a), tb_tensor(PSG_DTYPE_FLOAT32, shape, 2, b),
                         tb_tensor(PSG_DTYPE_FLOAT32, shape, 2, NULL)};
  psg_tensor **outs = NULL;
  CHECK_OK(tb_run(f, args, 3, &outs));
  if (outs) {
    const float *c = psg_tensor_data(outs[2]);
    int bad = 0;
    for (int k = 0; k < 32; k++) bad += c[k] != a[k] + b[k];
    CHECK_EQ_INT(bad, 0);
    CHECK(psg_tensor_equal(outs[0], args[0])); /* inputs read only */
    CHECK_EQ_INT(((const float *)psg_tensor_data(args[2]))[5], 0); /* the argument is never written */
  }
  tb_free_outs(outs, 3);
  for (int k = 0; k < 3; k++) psg_tensor_release(args[k]);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* A[k] = op(a, b) for the int32 pairs below. */
static void test_integer_division(void) {
  tb_init(check_ctx());
  static const int32_t pairs[][2] = {{7, 2}, {-7, 2}, {7, -2}, {-7, -2}, {INT32_MIN, -1}};
  static const int kinds[] = {PSG_TIR_DIV, PSG_TIR_MOD, PSG_TIR_FLOOR_DIV, PSG_TIR_FLOOR_MOD};
  /* TVM: Div/Mod truncate (C's / and %), FloorDiv/FloorMod floor (Python's // and %). */
  static const int32_t want[5][4] = {
      {3, 1, 3, 1}, {-3, -1, -4, 1}, {-3, 1, -4, -1}, {3, -1, 3, -1}, {INT32_MIN, 0, INT32_MIN, 0}};
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 20);
  psg_tir_stmt *stores[20];
  for (int p = 0; p < 5; p++)
    for (int k = 0; k < 4; k++)
      stores[p * 4 + k] = TB_STORE(A, tb_bin(kinds[k], tb_i32(pairs[p][0]), tb_i32(pairs[p][1])), tb_i32(p * 4 + k));
  psg_tir_prim_func *f = tb_func(&A, 1, NULL, 0, tb_seqv(stores, 20));
  int32_t out[20] = {0};
  run_i32(f, 20, out);
  for (int p = 0; p < 5; p++)
    for (int k = 0; k < 4; k++) {
      if (out[p * 4 + k] != want[p][k]) fprintf(stderr, "  pair %d kind %d: %d\n", p, k, out[p * 4 + k]);
      CHECK_EQ_INT(out[p * 4 + k], want[p][k]);
    }
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static void test_wraparound_and_minmax(void) {
  tb_init(check_ctx());
  psg_tir_dtype i8 = psg_tir_dtype_make(PSG_TIR_CODE_INT, 8, 1), u8 = psg_tir_dtype_make(PSG_TIR_CODE_UINT, 8, 1);
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 8);
  psg_tir_stmt *body = TB_SEQ(
      TB_STORE(A, tb_add(tb_i32(INT32_MAX), tb_i32(1)), tb_i32(0)),                  /* wraps to INT32_MIN */
      TB_STORE(A, tb_mul(tb_i32(65536), tb_i32(65536)), tb_i32(1)),                  /* 2^32 wraps to 0 */
      TB_STORE(A, tb_cast(TB_I32, tb_add(tb_int(i8, 127), tb_int(i8, 2))), tb_i32(2)), /* int8: -127 */
      TB_STORE(A, tb_cast(TB_I32, tb_bin(PSG_TIR_SUB, tb_int(u8, 1), tb_int(u8, 2))), tb_i32(3)), /* uint8: 255 */
      TB_STORE(A, tb_bin(PSG_TIR_MIN, tb_i32(-3), tb_i32(2)), tb_i32(4)),
      TB_STORE(A, tb_bin(PSG_TIR_MAX, tb_i32(-3), tb_i32(2)), tb_i32(5)),
      TB_STORE(A, tb_cast(TB_I32, tb_bin(PSG_TIR_FLOOR_DIV, tb_int(u8, 200), tb_int(u8, 7))), tb_i32(6)),
      TB_STORE(A, tb_cast(TB_I32, tb_bin(PSG_TIR_LT, tb_int(u8, 200), tb_int(u8, 7))), tb_i32(7)));
  psg_tir_prim_func *f = tb_func(&A, 1, NULL, 0, body);
  int32_t out[8] = {0};
  run_i32(f, 8, out);
  CHECK_EQ_INT(out[0], INT32_MIN);
  CHECK_EQ_INT(out[1], 0);
  CHECK_EQ_INT(out[2], -127);
  CHECK_EQ_INT(out[3], 255);
  CHECK_EQ_INT(out[4], -3);
  CHECK_EQ_INT(out[5], 2);
  CHECK_EQ_INT(out[6], 28);
  CHECK_EQ_INT(out[7], 0); /* unsigned compare: 200 < 7 is false */
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static void test_casts_and_floats(void) {
  tb_init(check_ctx());
  psg_tir_dtype i8 = psg_tir_dtype_make(PSG_TIR_CODE_INT, 8, 1);
  psg_tir_dtype f16 = psg_tir_dtype_make(PSG_TIR_CODE_FLOAT, 16, 1);
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 6), *F = TB_BUF("F", TB_F32, 6);
  psg_tir_stmt *body = TB_SEQ(
      TB_STORE(A, tb_cast(TB_I32, tb_f32(-2.75)), tb_i32(0)),          /* truncates toward zero */
      TB_STORE(A, tb_cast(TB_I32, tb_cast(i8, tb_i32(300))), tb_i32(1)), /* low bits: 44 */
      TB_STORE(A, tb_cast(TB_I32, tb_cast(TB_BOOL, tb_f32(0.5))), tb_i32(2)),
      TB_STORE(A, TB_CALL(TB_I32, "tir.reinterpret", tb_f32(1.0)), tb_i32(3)),
      TB_STORE(A, tb_cast(TB_I32, tb_bin(PSG_TIR_FLOOR_DIV, tb_f32(-7), tb_f32(2))), tb_i32(4)),
      TB_STORE(A, tb_cast(TB_I32, tb_bin(PSG_TIR_FLOOR_MOD, tb_f32(-7), tb_f32(2))), tb_i32(5)),
      TB_STORE(F, tb_bin(PSG_TIR_DIV, tb_f32(1), tb_f32(3)), tb_i32(0)),
      TB_STORE(F, tb_cast(TB_F32, tb_cast(f16, tb_f32(1.0009765625 + 0.0001))), tb_i32(1)), /* rounds to f16 */
      TB_STORE(F, TB_CALL(TB_F32, "tir.exp", tb_f32(1)), tb_i32(2)),
      TB_STORE(F, TB_CALL(TB_F32, "tir.call_extern", tb_str("sqrtf"), tb_f32(2)), tb_i32(3)),
      TB_STORE(F, TB_CALL(TB_F32, "tir.round", tb_f32(2.5)), tb_i32(4)), /* half to even */
      TB_STORE(F, TB_CALL(TB_F32, "tir.sigmoid", tb_f32(0)), tb_i32(5)));
  psg_tir_prim_func *f = tb_func((psg_tir_buffer *[]){A, F}, 2, NULL, 0, body);
  int64_t n = 6;
  psg_tensor *args[2] = {tb_tensor(PSG_DTYPE_INT32, &n, 1, NULL), tb_tensor(PSG_DTYPE_FLOAT32, &n, 1, NULL)};
  psg_tensor **outs = NULL;
  CHECK_OK(tb_run(f, args, 2, &outs));
  if (outs) {
    const int32_t *a = psg_tensor_data(outs[0]);
    const float *x = psg_tensor_data(outs[1]);
    CHECK_EQ_INT(a[0], -2);
    CHECK_EQ_INT(a[1], 44);
    CHECK_EQ_INT(a[2], 1);
    CHECK_EQ_INT(a[3], 0x3f800000);
    CHECK_EQ_INT(a[4], -4);
    CHECK_EQ_INT(a[5], 1);
    CHECK(x[0] == 1.0f / 3.0f);
    CHECK(x[1] == 1.0009765625f);
    CHECK(x[2] == (float)exp(1.0));
    CHECK(x[3] == sqrtf(2.0f));
    CHECK(x[4] == 2.0f);
    CHECK(x[5] == 0.5f);
  }
  tb_free_outs(outs, 2);
  psg_tensor_release(args[0]);
  psg_tensor_release(args[1]);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* A[0:4] = B[0:8:2] + broadcast(1), predicated; B loaded with a mask. */
static void test_vectors(void) {
  tb_init(check_ctx());
  psg_tir_dtype i32x4 = psg_tir_dtype_with_lanes(TB_I32, 4), boolx4 = psg_tir_dtype_with_lanes(TB_BOOL, 4);
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 8), *B = TB_BUF("B", TB_I32, 8);
  psg_tir_expr *ramp2 = tb_ramp(tb_i32(0), tb_i32(2), 4), *ramp1 = tb_ramp(tb_i32(4), tb_i32(1), 4);
  /* mask: lanes where the ramp index < 6 (lanes 0..1 of 4,5,6,7). */
  psg_tir_expr *mask = tb_lt(ramp1, tb_bcast(tb_i32(6), 4));
  (void)i32x4;
  (void)boolx4;
  psg_tir_stmt *body = TB_SEQ(
      TB_STORE(A, tb_add(TB_LOAD(B, ramp2), tb_bcast(tb_i32(1), 4)), tb_ramp(tb_i32(0), tb_i32(1), 4)),
      tb_storep(A, tb_loadp(B, &ramp1, 1, mask), &ramp1, 1, mask));
  psg_tir_prim_func *f = tb_func((psg_tir_buffer *[]){A, B}, 2, NULL, 0, body);
  int64_t n = 8;
  int32_t b[8] = {10, 11, 12, 13, 14, 15, 16, 17};
  psg_tensor *args[2] = {tb_tensor(PSG_DTYPE_INT32, &n, 1, NULL), tb_tensor(PSG_DTYPE_INT32, &n, 1, b)};
  psg_tensor **outs = NULL;
  CHECK_OK(tb_run(f, args, 2, &outs));
  if (outs) {
    const int32_t *a = psg_tensor_data(outs[0]);
    static const int32_t want[8] = {11, 13, 15, 17, 14, 15, 0, 0};
    for (int k = 0; k < 8; k++) CHECK_EQ_INT(a[k], want[k]);
  }
  tb_free_outs(outs, 2);
  psg_tensor_release(args[0]);
  psg_tensor_release(args[1]);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* if_then_else evaluates only the branch taken: the guarded load never
 * reads past the end. Select, Let, LetStmt, IfThenElse, likely, assume,
 * And/Or short-circuit on scalars. */
static void test_control_exprs(void) {
  tb_init(check_ctx());
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 4), *B = TB_BUF("B", TB_I32, 4);
  psg_tir_expr *i = tb_var("i", TB_I32), *x = tb_var("x", TB_I32), *y = tb_var("y", TB_I32);
  psg_tir_expr *ip1 = tb_add(i, tb_i32(1));
  psg_tir_expr *guarded = TB_CALL(TB_I32, "tir.if_then_else", tb_lt(ip1, tb_i32(4)), TB_LOAD(B, ip1), tb_i32(-1));
  psg_tir_expr *cond = tb_bin(PSG_TIR_AND, tb_lt(ip1, tb_i32(4)), tb_lt(tb_i32(0), TB_LOAD(B, ip1)));
  psg_tir_stmt *loop = tb_for(
      i, 4,
      TB_SEQ(TB_STORE(A, guarded, i),
             tb_if(TB_CALL(TB_BOOL, "tir.likely", cond),
                   TB_STORE(A, tb_add(TB_LOAD(A, i), tb_let(x, tb_i32(100), tb_mul(x, tb_i32(2)))), i), NULL),
             tb_eval(TB_CALL(TB_I32, "tir.assume", tb_lt(i, tb_i32(4))))));
  psg_tir_stmt *body =
      TB_SEQ(loop, tb_let_stmt(y, tb_select(tb_lt(tb_i32(1), tb_i32(2)), tb_i32(7), tb_i32(8)),
                               tb_attr("pragma_test", tb_i32(1), TB_STORE(B, y, tb_i32(0)))));
  psg_tir_prim_func *f = tb_func((psg_tir_buffer *[]){A, B}, 2, NULL, 0, body);
  int64_t n = 4;
  int32_t b[4] = {5, 0, 6, 9};
  psg_tensor *args[2] = {tb_tensor(PSG_DTYPE_INT32, &n, 1, NULL), tb_tensor(PSG_DTYPE_INT32, &n, 1, b)};
  psg_tensor **outs = NULL;
  CHECK_OK(tb_run(f, args, 2, &outs));
  if (outs) {
    const int32_t *a = psg_tensor_data(outs[0]), *bo = psg_tensor_data(outs[1]);
    CHECK_EQ_INT(a[0], 0);   /* B[1] = 0: not > 0 */
    CHECK_EQ_INT(a[1], 206); /* B[2] = 6, + 200 */
    CHECK_EQ_INT(a[2], 209);
    CHECK_EQ_INT(a[3], -1);
    CHECK_EQ_INT(bo[0], 7);
  }
  tb_free_outs(outs, 2);
  psg_tensor_release(args[0]);
  psg_tensor_release(args[1]);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* Allocate + DeclBuffer scratch, While, and every For kind run as serial. */
static void test_allocate_while_loops(void) {
  tb_init(check_ctx());
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 4), *T = TB_BUF("T", TB_I32, 4);
  psg_tir_buffer *N = TB_BUF("N", TB_I32, 1);
  psg_tir_expr *i = tb_var("i", TB_I32), *j = tb_var("j", TB_I32), *k = tb_var("k", TB_I32);
  psg_tir_expr *zero = tb_i32(0);
  psg_tir_stmt *fill = tb_for_kind(i, zero, tb_i32(4), PSG_TIR_FOR_VECTORIZED, TB_STORE(T, tb_mul(i, i), i));
  psg_tir_stmt *copy = tb_for_kind(j, zero, tb_i32(4), PSG_TIR_FOR_PARALLEL, TB_STORE(A, TB_LOAD(T, j), j));
  psg_tir_stmt *bump = tb_for_kind(k, tb_i32(1), tb_i32(2), PSG_TIR_FOR_UNROLLED,
                                   TB_STORE(A, tb_add(TB_LOAD(A, k), tb_i32(1000)), k)); /* k = 1, 2 */
  /* while N[0] < 10: N[0] = N[0] + 3 */
  psg_tir_stmt *w = tb_while(tb_lt(TB_LOAD(N, zero), tb_i32(10)), TB_STORE(N, tb_add(TB_LOAD(N, zero), tb_i32(3)), zero));
  psg_tir_stmt *body = TB_SEQ(tb_alloc(T, tb_decl(T, TB_SEQ(fill, copy))), bump, w,
                              tb_for(tb_var("e", TB_I32), 0, TB_STORE(A, tb_i32(-5), zero)));
  psg_tir_prim_func *f = tb_func((psg_tir_buffer *[]){A, N}, 2, NULL, 0, body);
  int64_t n = 4, one = 1;
  psg_tensor *args[2] = {tb_tensor(PSG_DTYPE_INT32, &n, 1, NULL), tb_tensor(PSG_DTYPE_INT32, &one, 1, NULL)};
  psg_tensor **outs = NULL;
  CHECK_OK(tb_run(f, args, 2, &outs));
  if (outs) {
    const int32_t *a = psg_tensor_data(outs[0]);
    CHECK_EQ_INT(a[0], 0);
    CHECK_EQ_INT(a[1], 1001);
    CHECK_EQ_INT(a[2], 1004);
    CHECK_EQ_INT(a[3], 9);
    CHECK_EQ_INT(((const int32_t *)psg_tensor_data(outs[1]))[0], 12);
  }
  tb_free_outs(outs, 2);
  psg_tensor_release(args[0]);
  psg_tensor_release(args[1]);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* A 2x3 view with strides (1, 2) and elem_offset 1 over the same data as a
 * flat buffer of 8: the transposed view writes where the flat one reads. */
static void test_strides_offset_alias(void) {
  psg_ctx *ctx = check_ctx();
  tb_init(ctx);
  psg_tir_buffer *F = TB_BUF("F", TB_I32, 8);
  psg_tir_buffer *V;
  psg_tir_expr *sh[2] = {tb_i32(2), tb_i32(3)}, *st[2] = {tb_i32(1), tb_i32(2)};
  psg_tir_buffer_desc d = {0};
  d.name = "V";
  d.data = psg_tir_buffer_get_data(F);
  d.dtype = TB_I32;
  d.shape = sh;
  d.ndim = 2;
  d.strides = st;
  d.nstrides = 2;
  d.elem_offset = tb_i32(1);
  V = tb_keep(psg_tir_buffer_create(ctx, &d, NULL, &V), &V);
  psg_tir_expr *i = tb_var("i", TB_I32), *j = tb_var("j", TB_I32);
  /* V[i, j] = i * 10 + j, at F[1 + i + 2 j]. */
  psg_tir_stmt *body = tb_for(i, 2, tb_for(j, 3, TB_STORE(V, tb_add(tb_mul(i, tb_i32(10)), j), i, j)));
  psg_tir_prim_func *f = tb_func(&F, 1, NULL, 0, body);
  int32_t out[8] = {0};
  run_i32(f, 8, out);
  static const int32_t want[8] = {0, 0, 10, 1, 11, 2, 12, 0};
  for (int k = 0; k < 8; k++) CHECK_EQ_INT(out[k], want[k]);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* A: Buffer((n,)) binds n from the tensor; a scalar parameter `s`. */
static void test_symbolic_shape_and_scalar(void) {
  tb_init(check_ctx());
  psg_tir_expr *n = tb_var("n", TB_I32), *s = tb_var("s", TB_I32), *i = tb_var("i", TB_I32);
  psg_tir_buffer *A;
  A = tb_keep(psg_tir_buffer_decl(TB.ctx, "A", TB_I32, &n, 1, NULL, NULL, &A), &A);
  psg_tir_stmt *body = tb_for_kind(i, tb_i32(0), n, PSG_TIR_FOR_SERIAL, TB_STORE(A, tb_mul(i, s), i));
  psg_tir_prim_func *f = tb_func(&A, 1, &s, 1, body);
  int64_t len = 5;
  int32_t three = 3;
  psg_tensor *args[2] = {tb_tensor(PSG_DTYPE_INT32, &len, 1, NULL), tb_tensor(PSG_DTYPE_INT32, NULL, 0, &three)};
  psg_tensor **outs = NULL;
  CHECK_OK(tb_run(f, args, 2, &outs));
  if (outs) {
    const int32_t *a = psg_tensor_data(outs[0]);
    CHECK_EQ_INT(a[4], 12);
    CHECK(outs[1] == args[1]);
  }
  tb_free_outs(outs, 2);
  psg_tensor_release(args[0]);
  psg_tensor_release(args[1]);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

int main(void) {
  RUN_TEST(test_elementwise_2d);
  RUN_TEST(test_integer_division);
  RUN_TEST(test_wraparound_and_minmax);
  RUN_TEST(test_casts_and_floats);
  RUN_TEST(test_vectors);
  RUN_TEST(test_control_exprs);
  RUN_TEST(test_allocate_while_loops);
  RUN_TEST(test_strides_offset_alias);
  RUN_TEST(test_symbolic_shape_and_scalar);
  return check_finish();
}
