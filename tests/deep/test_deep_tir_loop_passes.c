/* Deep TIR loop passes (STYLE rule 9), run with `ulimit -s 1024`:
 * tir.UnrollLoop and tir.VectorizeLoop on a 10,000-deep loop nest inside a
 * vectorized loop, and VectorizeLoop on an expression chain of
 * PASSAGE_DEEP_N nodes, without overflowing a 1 MiB stack. */
#include "../unit/tir_build.h"
#include "deep_size.h"
#include "tir/transforms/tir_transforms.h"

enum { DEPTH = 10000, N = PASSAGE_DEEP_N };

/* for v in T.vectorized(4): for k0 in range(1): ... for k9999 in range(1):
 *     A[v] = A[v] + 1.0 */
static psg_tir_prim_func *deep_nest(psg_tir_buffer *A) {
  psg_tir_expr *v = tb_var("v", TB_I32);
  psg_tir_stmt *s = TB_STORE(A, tb_add(TB_LOAD(A, v), tb_f32(1)), v);
  for (int d = 0; d < DEPTH; d++) s = tb_for(tb_var("k", TB_I32), 1, s);
  s = tb_for_kind(v, tb_i32(0), tb_i32(4), PSG_TIR_FOR_VECTORIZED, s);
  return tb_func(&A, 1, NULL, 0, s);
}

/* The statement under n nested loops (0: none). */
static const psg_tir_node *innermost(const psg_tir_node *s, int *loops) {
  *loops = 0;
  while (psg_tir_kind(s) == PSG_TIR_FOR) {
    s = psg_tir_get_body(s);
    ++*loops;
  }
  return s;
}

static void test_deep_nest(void) {
  tb_init(check_ctx());
  psg_tir_buffer *A = TB_BUF("A", TB_F32, 16);
  psg_tir_prim_func *f = deep_nest(A), *g = NULL;
  int loops = -1;

  CHECK_OK(psgi_tir_vectorize_loop(TB.ctx, f, true, false, &g));
  const psg_tir_node *in = g ? innermost(psg_tir_get_body(g), &loops) : NULL;
  CHECK_EQ_INT(loops, DEPTH);
  CHECK(in && psg_tir_dtype_lanes(psg_tir_dtype_of(psg_tir_buffer_store_get_value(in))) == 4);
  CHECK_OK(psg_tir_verify_well_formed(g));
  psg_tir_release(g);

  CHECK_OK(psgi_tir_vectorize_loop(TB.ctx, f, false, false, &g));
  CHECK(g && psg_tir_for_kind(psg_tir_get_body(g)) == PSG_TIR_FOR_SERIAL);
  psg_tir_release(g);

  psgi_tir_unroll_cfg defaults = {0, 8, 0, true, false}, ones = {0, 8, 1, true, false};
  CHECK_OK(psgi_tir_unroll_loop(TB.ctx, f, &defaults, &g));
  CHECK(g == f); /* nothing to unroll */
  psg_tir_release(g);
  CHECK_OK(psgi_tir_unroll_loop(TB.ctx, f, &ones, &g)); /* every extent-1 loop goes */
  in = g ? innermost(psg_tir_get_body(g), &loops) : NULL;
  CHECK_EQ_INT(loops, 1);
  CHECK(in && psg_tir_kind(in) == PSG_TIR_BUFFER_STORE);
  CHECK_OK(psg_tir_verify_well_formed(g));
  psg_tir_release(g);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* for j in T.vectorized(4): A[j] = (((A[j] + 1) + 1) ... + 1), N adds. */
static void test_deep_expression(void) {
  tb_init(check_ctx());
  psg_tir_buffer *A = TB_BUF("A", TB_F32, 16);
  psg_tir_expr *j = tb_var("j", TB_I32), *e = TB_LOAD(A, j), *one = tb_f32(1);
  for (int k = 0; k < N; k++) e = tb_add(e, one);
  psg_tir_prim_func *f =
      tb_func(&A, 1, NULL, 0, tb_for_kind(j, tb_i32(0), tb_i32(4), PSG_TIR_FOR_VECTORIZED, TB_STORE(A, e, j))), *g = NULL;
  CHECK_OK(psgi_tir_vectorize_loop(TB.ctx, f, true, false, &g));
  CHECK(g && psg_tir_kind(psg_tir_get_body(g)) == PSG_TIR_BUFFER_STORE);
  CHECK(g && psg_tir_dtype_lanes(psg_tir_dtype_of(psg_tir_buffer_store_get_value(psg_tir_get_body(g)))) == 4);
  psg_tir_release(g);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

int main(void) {
  RUN_TEST(test_deep_nest);
  RUN_TEST(test_deep_expression);
  return check_finish();
}
