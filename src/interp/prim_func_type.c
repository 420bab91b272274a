/* Passage — the Relay type of a PrimFunc, for the Relay code that calls one
 * through call_lowered: InferType types its GlobalVar with it, and the
 * interpreter allocates the outputs from it. */
#include <stdio.h>
#include "interp/interp_internal.h"
#include "passage/tir_interp.h"

/* The tensor type of a param: its buffer's shape (a dim that is not an
 * integer literal is unknown) and dtype; a scalar param is a rank-0 tensor. */
static psg_status param_type(psg_ctx *ctx, const psg_tir_prim_func *f, size_t i, const psg_type **out, char *msg,
                             size_t msglen) {
  psg_tir_expr *p = psg_tir_prim_func_get_param(f, i);
  psg_tir_buffer *b = psg_tir_prim_func_get_param_buffer(f, p);
  psg_tir_dtype dt = psg_tir_dtype_of(b ? b : p);
  int dtype = psg_tir_dtype_to_tensor(dt);
  if (dtype == PSG_DTYPE_INVALID) {
    char name[32];
    psg_tir_dtype_str(dt, name, sizeof name);
    snprintf(msg, msglen, "parameter %zu has dtype %s, which no Relay tensor has", i, name);
    return PSG_ERR_UNSUPPORTED;
  }
  size_t ndim = b ? psg_tir_buffer_ndim(b) : 0;
  if (ndim > PSG_MAX_RANK) {
    snprintf(msg, msglen, "parameter %zu has rank %zu, above %d", i, ndim, PSG_MAX_RANK);
    return PSG_ERR_UNSUPPORTED;
  }
  int64_t dims[PSG_MAX_RANK];
  for (size_t d = 0; d < ndim; d++) {
    psg_tir_expr *e = psg_tir_buffer_get_shape(b, d);
    dims[d] = psg_tir_kind(e) == PSG_TIR_INT_IMM && psg_tir_int_imm_value(e) >= 0 ? psg_tir_int_imm_value(e)
                                                                                  : PSG_DIM_UNKNOWN;
  }
  return psg_type_tensor(ctx, dims, (int)ndim, dtype, out);
}

psg_status psgi_prim_func_type(psg_ctx *ctx, const psg_tir_prim_func *f, const psg_type **out, char *msg,
                               size_t msglen) {
  *out = NULL;
  msg[0] = 0;
  size_t n = psg_tir_prim_func_num_params(f);
  if (n > INT32_MAX) return PSG_ERR_UNSUPPORTED;
  const psg_type *small[16], **params = small, *unit = NULL;
  if (n > 16 && !(params = psgi_alloc(ctx, n * sizeof *params))) return psgi_nomem(ctx);
  psg_status st = psg_type_tuple(ctx, NULL, 0, &unit);
  for (size_t i = 0; i < n && !st; i++) st = param_type(ctx, f, i, &params[i], msg, msglen);
  if (!st) st = psg_type_func(ctx, params, (int)n, unit, out);
  if (params != small) psgi_free(ctx, params);
  return st;
}
