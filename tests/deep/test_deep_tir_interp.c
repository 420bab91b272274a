/* Deep TIR under a 1 MiB stack (STYLE rule 9, issue 15): the interpreter
 * runs a PASSAGE_DEEP_N-statement SeqStmt, a PASSAGE_DEEP_N-node expression
 * chain and a 10,000-deep loop nest without recursing. */
#include "../unit/tir_build.h"
#include "deep_size.h"

enum { N = PASSAGE_DEEP_N, NEST = 10000 };

static int32_t run_a0(psg_tir_prim_func *f) {
  int64_t one = 1;
  int32_t v = -1;
  psg_tensor *a = tb_tensor(PSG_DTYPE_INT32, &one, 1, NULL), **outs = NULL;
  CHECK_OK(tb_run(f, &a, 1, &outs));
  if (outs) v = ((const int32_t *)psg_tensor_data(outs[0]))[0];
  tb_free_outs(outs, 1);
  psg_tensor_release(a);
  return v;
}

static void test_long_seq(void) {
  tb_init(check_ctx());
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 1);
  psg_tir_expr *zero = tb_i32(0);
  psg_tir_stmt *inc = TB_STORE(A, tb_add(TB_LOAD(A, zero), tb_i32(1)), zero);
  psg_tir_stmt **stmts = malloc(sizeof *stmts * N);
  for (int i = 0; i < N; i++) stmts[i] = inc;
  psg_tir_prim_func *f = tb_func(&A, 1, NULL, 0, tb_seqv(stmts, N));
  free(stmts);
  CHECK_EQ_INT(run_a0(f), N);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static void test_expr_chain(void) {
  tb_init(check_ctx());
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 1);
  psg_tir_expr *zero = tb_i32(0), *one = tb_i32(1), *e = TB_LOAD(A, zero);
  for (int i = 0; i < N; i++) e = tb_add(e, one);
  CHECK_EQ_INT(run_a0(tb_func(&A, 1, NULL, 0, TB_STORE(A, e, zero))), N);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static void test_loop_nest(void) {
  tb_init(check_ctx());
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 1);
  psg_tir_expr *zero = tb_i32(0);
  psg_tir_stmt *s = TB_STORE(A, tb_add(TB_LOAD(A, zero), tb_i32(1)), zero);
  for (int i = 0; i < NEST; i++) {
    char name[24];
    snprintf(name, sizeof name, "i%d", i);
    s = tb_for(tb_var(name, TB_I32), i == NEST - 1 ? 3 : 1, s);
  }
  CHECK_EQ_INT(run_a0(tb_func(&A, 1, NULL, 0, s)), 3);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

int main(void) {
  RUN_TEST(test_long_seq);
  RUN_TEST(test_expr_chain);
  RUN_TEST(test_loop_nest);
  return check_finish();
}
