/* Passage — TVM's SeqStmt::Flatten over a list of statements (the
 * statements UnrollLoop and LoopPartition make in place of one loop). */
#include "tir/transforms/tir_transforms.h"

psg_status psgi_tir_seq_flatten(psg_ctx *ctx, psg_tir_node *const *items, size_t n, const psg_span *sp,
                                psg_tir_node **out) {
  PSGI_VEC(psg_tir_node *) flat = {0};
  PSGI_VEC(const psg_tir_node *) todo = {0};
  psg_status st = PSG_OK;
  for (size_t i = n; i-- > 0 && !st;)
    if (!PSGI_VEC_PUSH(ctx, &todo, items[i])) st = psgi_nomem(ctx);
  while (!st && todo.len) {
    const psg_tir_node *s = todo.data[--todo.len];
    if (s->kind == PSG_TIR_SEQ_STMT) {
      for (size_t i = s->nkids; i-- > 0 && !st;)
        if (!PSGI_VEC_PUSH(ctx, &todo, s->kids[i])) st = psgi_nomem(ctx);
    } else if (!(s->kind == PSG_TIR_EVALUATE && s->kids[0]->kind == PSG_TIR_INT_IMM && s->kids[0]->u.int_value == 0)) {
      if (!PSGI_VEC_PUSH(ctx, &flat, (psg_tir_node *)s)) st = psgi_nomem(ctx);
    }
  }
  if (!st) {
    if (flat.len == 0) {
      psg_tir_node *zero = NULL;
      st = psg_tir_int_imm_create(ctx, psg_tir_dtype_int32(), 0, sp, &zero);
      if (!st) st = psg_tir_evaluate_create(ctx, zero, sp, out);
      psg_tir_release(zero);
    } else if (flat.len == 1) {
      psg_tir_retain(*out = flat.data[0]);
    } else {
      st = psg_tir_seq_stmt_create(ctx, flat.data, flat.len, sp, out);
    }
  }
  PSGI_VEC_FREE(ctx, &flat);
  PSGI_VEC_FREE(ctx, &todo);
  return st;
}
