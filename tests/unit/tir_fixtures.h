/* Passage — small PrimFuncs built through the public TIR API for the TIR
 * unit tests. Each call makes fresh vars and buffers, so two calls give
 * structurally equal but distinct functions. */
#ifndef PSG_TEST_TIR_FIXTURES_H
#define PSG_TEST_TIR_FIXTURES_H

#include "check.h"

static inline psg_tir_expr *fx_i32(psg_ctx *ctx, int64_t v) {
  psg_tir_expr *e = NULL;
  CHECK_OK(psg_tir_int_imm_create(ctx, psg_tir_dtype_int32(), v, NULL, &e));
  return e;
}

static inline psg_tir_expr *fx_bin(psg_ctx *ctx, int kind, psg_tir_expr *a, psg_tir_expr *b) {
  psg_tir_expr *e = NULL;
  CHECK_OK(psg_tir_binary_create(ctx, kind, a, b, NULL, &e));
  return e;
}

/* def main(a: T.handle, n: T.int32):
 *     A = T.match_buffer(a, (n,), "float32")
 *     for i in range(n):
 *         x: T.int32 = i + 1
 *         A[i] = A[i] + T.float32(c)
 * with global_symbol "main". */
static inline psg_tir_prim_func *fx_add_const(psg_ctx *ctx, double c) {
  psg_tir_dtype I32 = psg_tir_dtype_int32(), F32 = psg_tir_dtype_float32();
  psg_tir_expr *a, *n, *i, *x, *cst, *zero = fx_i32(ctx, 0), *one = fx_i32(ctx, 1);
  CHECK_OK(psg_tir_var_create(ctx, "a", psg_tir_dtype_handle(), NULL, NULL, &a));
  CHECK_OK(psg_tir_var_create(ctx, "n", I32, NULL, NULL, &n));
  CHECK_OK(psg_tir_var_create(ctx, "i", I32, NULL, NULL, &i));
  CHECK_OK(psg_tir_var_create(ctx, "x", I32, NULL, NULL, &x));
  CHECK_OK(psg_tir_float_imm_create(ctx, F32, c, NULL, &cst));
  psg_tir_buffer *A = NULL;
  CHECK_OK(psg_tir_buffer_decl(ctx, "A", F32, &n, 1, NULL, NULL, &A));
  psg_tir_expr *ld = NULL, *sum = NULL, *ip1 = fx_bin(ctx, PSG_TIR_ADD, i, one);
  CHECK_OK(psg_tir_buffer_load_create(ctx, A, &i, 1, NULL, NULL, &ld));
  sum = fx_bin(ctx, PSG_TIR_ADD, ld, cst);
  psg_tir_stmt *st = NULL, *let = NULL, *loop = NULL;
  CHECK_OK(psg_tir_buffer_store_create(ctx, A, sum, &i, 1, NULL, NULL, &st));
  CHECK_OK(psg_tir_let_stmt_create(ctx, x, ip1, st, NULL, &let));
  CHECK_OK(psg_tir_for_create(ctx, i, zero, n, PSG_TIR_FOR_SERIAL, let, NULL, NULL, &loop));
  psg_attr *gs = NULL;
  psg_attrs *attrs = NULL;
  CHECK_OK(psg_attr_string(ctx, "main", 4, &gs));
  CHECK_OK(psg_attrs_create(ctx, (const char *[]){"global_symbol"}, &gs, 1, &attrs));
  psg_tir_prim_func *f = NULL;
  CHECK_OK(psg_tir_prim_func_create(ctx, (psg_tir_expr *[]){a, n}, 2, loop, NULL, (size_t[]){0}, &A, 1, attrs, NULL, &f));
  psg_attr_release(gs);
  psg_attrs_release(attrs);
  psg_tir_node *tmp[] = {a, n, i, x, cst, zero, one, A, ld, sum, ip1, st, let, loop};
  for (size_t k = 0; k < sizeof tmp / sizeof *tmp; k++) psg_tir_release(tmp[k]);
  return f;
}

#endif
