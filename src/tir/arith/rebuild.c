/* Passage — a PrimExpr rebuilt with new operands (the simplifier's
 * post-order walk): the kind's own constructor, the span kept. */
#include "tir/arith/arith_internal.h"

psg_status psgi_arith_rebuild(psg_tir_expr *e, psg_tir_expr *const *k, psg_tir_expr **out) {
  psg_ctx *ctx = e->ctx;
  const psg_span *sp = &e->span;
  int kind = e->kind;
  if (kind >= PSG_TIR_ADD && kind <= PSG_TIR_OR) return psg_tir_binary_create(ctx, kind, k[0], k[1], sp, out);
  switch (kind) {
  case PSG_TIR_CAST: return psg_tir_cast_create(ctx, e->dtype, k[0], sp, out);
  case PSG_TIR_NOT: return psg_tir_not_create(ctx, k[0], sp, out);
  case PSG_TIR_SELECT: return psg_tir_select_create(ctx, k[0], k[1], k[2], sp, out);
  case PSG_TIR_RAMP: return psg_tir_ramp_create(ctx, k[0], k[1], psg_tir_dtype_lanes(e->dtype), sp, out);
  case PSG_TIR_BROADCAST: return psg_tir_broadcast_create(ctx, k[0], psg_tir_dtype_lanes(e->dtype), sp, out);
  case PSG_TIR_LET: return psg_tir_let_create(ctx, k[0], k[1], k[2], sp, out);
  case PSG_TIR_BUFFER_LOAD: {
    size_t n = psgi_tir_num_indices(e);
    psg_tir_expr *pred = e->flags & PSGI_TIR_HAS_PRED ? k[e->nkids - 1] : NULL;
    return psg_tir_buffer_load_create(ctx, k[0], k + 1, n, pred, sp, out);
  }
  case PSG_TIR_CALL:
    return psg_tir_call_create(ctx, e->dtype, psgi_tir_ops[e->u.op].name, k, e->nkids, sp, out);
  default:
    psg_tir_retain(e);
    *out = e;
    return PSG_OK;
  }
}
