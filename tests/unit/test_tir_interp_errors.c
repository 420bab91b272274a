/* Passage — the TIR interpreter's failures: every one is a located
 * diagnostic and a status, never a crash or a hang: out-of-bounds loads and
 * stores (naming the buffer and the index), integer division by zero, a
 * failing AssertStmt (its message), a false tir.assume, an undefined var,
 * a float cast out of range, an unknown extern, wrong arguments, and the
 * budgets passage.interp.max_steps and passage.interp.max_bytes. */
#include "tir_build.h"

/* Runs f on `n` zero-filled int32 buffers of `shape`; expects failure
 * `code` with `frag` in the message. */
static void expect_fail_nd(psg_tir_prim_func *f, size_t n, const int64_t *shape, int nd, psg_status code,
                           const char *frag) {
  psg_tensor *args[4] = {0}, **outs = NULL;
  for (size_t i = 0; i < n; i++) args[i] = tb_tensor(PSG_DTYPE_INT32, shape, nd, NULL);
  CHECK_EQ_INT(tb_run(f, args, n, &outs), code);
  CHECK(outs == NULL);
  CHECK(tb_error_has(frag));
  for (size_t i = 0; i < n; i++) psg_tensor_release(args[i]);
}
static void expect_fail(psg_tir_prim_func *f, size_t n, psg_status code, const char *frag) {
  int64_t four = 4;
  expect_fail_nd(f, n, &four, 1, code, frag);
}

static void test_out_of_bounds(void) {
  tb_init(check_ctx());
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 4), *B = TB_BUF("B", TB_I32, 2, 2);
  psg_tir_expr *i = tb_var("i", TB_I32);
  /* A[i] for i in 0..5: the store at 4 is out of bounds. */
  expect_fail(tb_func(&A, 1, NULL, 0, tb_for(i, 5, TB_STORE(A, i, i))), 1, PSG_ERR_INVALID_ARGUMENT,
              "BufferStore: index [4] of buffer 'A' is out of bounds (element 4; its memory 'A' holds 4)");
  expect_fail(tb_func(&A, 1, NULL, 0, TB_STORE(A, TB_LOAD(A, tb_i32(-1)), tb_i32(0))), 1, PSG_ERR_INVALID_ARGUMENT,
              "BufferLoad: index [-1] of buffer 'A'");
  /* B is 2x2 over 4 ints: B[1, 2] is element 4. */
  expect_fail_nd(tb_func(&B, 1, NULL, 0, TB_STORE(B, tb_i32(1), tb_i32(1), tb_i32(2))), 1, (int64_t[]){2, 2}, 2,
                 PSG_ERR_INVALID_ARGUMENT, "index [1, 2] of buffer 'B' is out of bounds (element 4;");
  /* A vector store whose last lane is past the end; the predicate masks it off in the second. */
  psg_tir_expr *r = tb_ramp(tb_i32(1), tb_i32(1), 4);
  expect_fail(tb_func(&A, 1, NULL, 0, TB_STORE(A, tb_bcast(tb_i32(1), 4), r)), 1, PSG_ERR_INVALID_ARGUMENT,
              "index [4] of buffer 'A'");
  /* Select evaluates both branches: the guard does not protect the load. */
  psg_tir_expr *sel = tb_select(tb_lt(tb_i32(5), tb_i32(4)), TB_LOAD(A, tb_i32(5)), tb_i32(0));
  expect_fail(tb_func(&A, 1, NULL, 0, TB_STORE(A, sel, tb_i32(0))), 1, PSG_ERR_INVALID_ARGUMENT,
              "BufferLoad: index [5]");
  /* A huge index does not overflow into bounds. */
  psg_tir_expr *big = tb_int(TB_I64, INT64_MAX / 2);
  psg_tir_buffer *L = TB_BUF("L", TB_I32, 4, 4);
  expect_fail_nd(tb_func(&L, 1, NULL, 0, TB_STORE(L, tb_i32(1), big, big)), 1, (int64_t[]){4, 4}, 2,
                 PSG_ERR_INVALID_ARGUMENT, "is out of bounds (element -1;");
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static void test_masked_lanes_are_not_accessed(void) {
  tb_init(check_ctx());
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 4);
  psg_tir_expr *r = tb_ramp(tb_i32(2), tb_i32(1), 4);
  psg_tir_expr *mask = tb_lt(r, tb_bcast(tb_i32(4), 4));
  psg_tir_prim_func *f = tb_func(&A, 1, NULL, 0, tb_storep(A, tb_add(tb_loadp(A, &r, 1, mask), tb_bcast(tb_i32(7), 4)), &r, 1, mask));
  int64_t four = 4;
  psg_tensor *a = tb_tensor(PSG_DTYPE_INT32, &four, 1, NULL), **outs = NULL;
  CHECK_OK(tb_run(f, &a, 1, &outs));
  if (outs) CHECK_EQ_INT(((const int32_t *)psg_tensor_data(outs[0]))[3], 7);
  tb_free_outs(outs, 1);
  psg_tensor_release(a);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static void test_division_by_zero(void) {
  tb_init(check_ctx());
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 4);
  static const int kinds[] = {PSG_TIR_DIV, PSG_TIR_MOD, PSG_TIR_FLOOR_DIV, PSG_TIR_FLOOR_MOD};
  static const char *names[] = {"Div: integer division by zero", "Mod: integer division by zero",
                                "FloorDiv: integer division by zero", "FloorMod: integer division by zero"};
  for (int k = 0; k < 4; k++)
    expect_fail(tb_func(&A, 1, NULL, 0, TB_STORE(A, tb_bin(kinds[k], tb_i32(1), TB_LOAD(A, tb_i32(0))), tb_i32(0))), 1,
                PSG_ERR_INVALID_ARGUMENT, names[k]);
  /* Float division by zero is IEEE: no error. */
  psg_tir_buffer *F = TB_BUF("F", TB_F32, 1);
  psg_tir_prim_func *f = tb_func(&F, 1, NULL, 0, TB_STORE(F, tb_bin(PSG_TIR_DIV, tb_f32(1), tb_f32(0)), tb_i32(0)));
  int64_t one = 1;
  psg_tensor *t = tb_tensor(PSG_DTYPE_FLOAT32, &one, 1, NULL), **outs = NULL;
  CHECK_OK(tb_run(f, &t, 1, &outs));
  if (outs) CHECK(((const float *)psg_tensor_data(outs[0]))[0] > 1e38f);
  tb_free_outs(outs, 1);
  psg_tensor_release(t);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static void test_assert_assume_undefined(void) {
  tb_init(check_ctx());
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 4);
  psg_tir_expr *x = tb_var("x", TB_I32);
  expect_fail(tb_func(&A, 1, NULL, 0, tb_assert(tb_lt(TB_LOAD(A, tb_i32(0)), tb_i32(0)), "A[0] must be negative",
                                                 TB_STORE(A, tb_i32(1), tb_i32(0)))),
              1, PSG_ERR_INVALID_ARGUMENT, "AssertStmt: A[0] must be negative");
  expect_fail(tb_func(&A, 1, NULL, 0, tb_eval(TB_CALL(TB_I32, "tir.assume", tb_lt(TB_LOAD(A, tb_i32(0)), tb_i32(0))))),
              1, PSG_ERR_INVALID_ARGUMENT, "Call: the assumption is false");
  expect_fail(tb_func(&A, 1, NULL, 0, TB_STORE(A, x, tb_i32(0))), 1, PSG_ERR_INVALID_ARGUMENT,
              "Var: 'x' is used where it is not defined");
  expect_fail(tb_func(&A, 1, NULL, 0, TB_STORE(A, tb_cast(TB_I32, tb_f32(3e9)), tb_i32(0))), 1,
              PSG_ERR_INVALID_ARGUMENT, "Cast: float32 value 3e+09 does not fit int32");
  psg_tir_buffer *F = TB_BUF("F", TB_F32, 4);
  expect_fail(tb_func(&A, 1, NULL, 0, tb_eval(TB_CALL(TB_F32, "tir.call_extern", tb_str("my_kernel"), tb_f32(1)))), 1,
              PSG_ERR_UNSUPPORTED, "'my_kernel' is not a libm function");
  expect_fail(tb_func(&A, 1, NULL, 0, TB_STORE(A, TB_CALL(TB_I32, "tir.shift_left", tb_i32(1), tb_i32(32)), tb_i32(0))),
              1, PSG_ERR_INVALID_ARGUMENT, "shift by 32 is out of range");
  /* The buffer's data is not bound: a DeclBuffer with no Allocate. */
  expect_fail(tb_func(&A, 1, NULL, 0, tb_decl(F, TB_STORE(F, tb_f32(1), tb_i32(0)))), 1, PSG_ERR_INVALID_ARGUMENT,
              "the data 'F' of buffer 'F' is not defined here");
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static void test_wrong_arguments(void) {
  tb_init(check_ctx());
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 4);
  psg_tir_prim_func *f = tb_func(&A, 1, NULL, 0, TB_STORE(A, tb_i32(1), tb_i32(0)));
  int64_t three = 3, four = 4;
  psg_tensor *t = tb_tensor(PSG_DTYPE_INT32, &three, 1, NULL), **outs = NULL;
  CHECK_EQ_INT(tb_run(f, &t, 1, &outs), PSG_ERR_INVALID_ARGUMENT);
  CHECK(tb_error_has("argument 0: dim 0 of buffer 'A' is 4, the tensor gives 3"));
  psg_tensor_release(t);
  t = tb_tensor(PSG_DTYPE_FLOAT32, &four, 1, NULL);
  CHECK_EQ_INT(tb_run(f, &t, 1, &outs), PSG_ERR_INVALID_ARGUMENT);
  CHECK(tb_error_has("argument 0: buffer 'A' has dtype int32, the tensor float32"));
  CHECK_EQ_INT(tb_run(f, &t, 0, &outs), PSG_ERR_INVALID_ARGUMENT);
  CHECK(tb_error_has("the function takes 1 arguments, given 0"));
  psg_tensor_release(t);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* Sets a limit on a new PassContext entered for the duration of a run. */
static psg_pass_context *enter_limit(const char *key, int64_t v) {
  psg_pass_context *pc = NULL;
  psg_attr *a = NULL;
  CHECK_OK(psg_pass_context_create(TB.ctx, &pc));
  CHECK_OK(psg_attr_int(TB.ctx, v, &a));
  CHECK_OK(psg_pass_context_set_config(pc, key, a));
  psg_attr_release(a);
  CHECK_OK(psg_pass_context_enter(pc));
  return pc;
}
static void exit_limit(psg_pass_context *pc) {
  CHECK_OK(psg_pass_context_exit(pc));
  psg_pass_context_release(pc);
}

static void test_budgets(void) {
  tb_init(check_ctx());
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 4);
  /* while A[0] < 1: no change: runs forever without the step budget. */
  psg_tir_prim_func *spin =
      tb_func(&A, 1, NULL, 0, tb_while(tb_lt(TB_LOAD(A, tb_i32(0)), tb_i32(1)), tb_eval(tb_i32(0))));
  psg_pass_context *pc = enter_limit("passage.interp.max_steps", 1000);
  expect_fail(spin, 1, PSG_ERR_UNSUPPORTED, "While: more than 1000 loop iterations (the limit passage.interp.max_steps)");
  /* 10 x 100 iterations fit in 1000; 10 x 101 do not. */
  psg_tir_expr *i = tb_var("i", TB_I32), *j = tb_var("j", TB_I32);
  psg_tir_prim_func *fits = tb_func(&A, 1, NULL, 0, tb_for(i, 10, tb_for(j, 99, tb_eval(tb_i32(0)))));
  int64_t four = 4;
  psg_tensor *t = tb_tensor(PSG_DTYPE_INT32, &four, 1, NULL), **outs = NULL;
  CHECK_OK(tb_run(fits, &t, 1, &outs));
  tb_free_outs(outs, 1);
  psg_tensor_release(t);
  expect_fail(tb_func(&A, 1, NULL, 0, tb_for(i, 10, tb_for(j, 100, tb_eval(tb_i32(0))))), 1, PSG_ERR_UNSUPPORTED,
              "For: more than 1000 loop iterations");
  exit_limit(pc);

  /* Scratch: 2 x 64 int32 live at once is 512 bytes. */
  psg_tir_buffer *S = TB_BUF("S", TB_I32, 64), *T = TB_BUF("T", TB_I32, 64);
  psg_tir_prim_func *two = tb_func(&A, 1, NULL, 0, tb_alloc(S, tb_alloc(T, TB_STORE(T, tb_i32(1), tb_i32(63)))));
  psg_tir_prim_func *seq = tb_func(&A, 1, NULL, 0, TB_SEQ(tb_alloc(S, tb_eval(tb_i32(0))), tb_alloc(T, tb_eval(tb_i32(0)))));
  pc = enter_limit("passage.interp.max_bytes", 300);
  expect_fail(two, 1, PSG_ERR_UNSUPPORTED, "Allocate: allocating 256 bytes for 'T' exceeds passage.interp.max_bytes (300, 256 in use)");
  t = tb_tensor(PSG_DTYPE_INT32, &four, 1, NULL);
  CHECK_OK(tb_run(seq, &t, 1, &outs)); /* one after the other: freed in between */
  tb_free_outs(outs, 1);
  psg_tensor_release(t);
  exit_limit(pc);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* Out of memory at every allocation of a run: a status, never a crash or
 * a leak; once no allocation fails the result is right. */
static void test_oom(void) {
  for (long k = 1; k < 400; k++) {
    check_alloc al = {0, 0};
    psg_ctx *ctx = check_ctx_with(&al);
    if (!ctx) continue;
    tb_init(ctx);
    psg_tir_buffer *A = TB_BUF("A", TB_I32, 4), *S = TB_BUF("S", TB_I32, 4);
    psg_tir_expr *i = tb_var("i", TB_I32), *x = tb_var("x", TB_I32);
    psg_tir_stmt *body = tb_alloc(
        S, tb_for(i, 4, TB_SEQ(TB_STORE(S, tb_let(x, i, tb_mul(x, x)), i), TB_STORE(A, TB_LOAD(S, i), i))));
    psg_tir_prim_func *f = tb_func(&A, 1, NULL, 0, body);
    int64_t four = 4;
    psg_tensor *t = tb_tensor(PSG_DTYPE_INT32, &four, 1, NULL), **outs = NULL;
    al.fail_at = al.calls + k;
    psg_status st = tb_run(f, &t, 1, &outs);
    bool reached = al.calls >= al.fail_at;
    al.fail_at = 0;
    if (!st) {
      CHECK_EQ_INT(((const int32_t *)psg_tensor_data(outs[0]))[3], 9);
      tb_free_outs(outs, 1);
    } else {
      CHECK_EQ_INT(st, PSG_ERR_NOMEM);
    }
    psg_tensor_release(t);
    tb_fini();
    CHECK_CTX_CLEAN(ctx);
    if (!reached) break; /* every allocation of the run has failed once */
  }
}

int main(void) {
  RUN_TEST(test_out_of_bounds);
  RUN_TEST(test_masked_lanes_are_not_accessed);
  RUN_TEST(test_division_by_zero);
  RUN_TEST(test_assert_assume_undefined);
  RUN_TEST(test_wrong_arguments);
  RUN_TEST(test_budgets);
  RUN_TEST(test_oom);
  return check_finish();
}
