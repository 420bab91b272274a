/* Passage — TVM's SideEffect for the TIR passes: the ops whose calls only
 * compute a value (or read memory) are pure; every other call may have an
 * effect. */
#include "tir/transforms/tir_transforms.h"

static bool is_pure_op(uint32_t op) {
  switch (op) {
    case PSGI_TIR_OP_if_then_else:
    case PSGI_TIR_OP_likely:
    case PSGI_TIR_OP_reinterpret:
    case PSGI_TIR_OP_call_pure_extern:
    case PSGI_TIR_OP_address_of:
    case PSGI_TIR_OP_isnullptr:
    case PSGI_TIR_OP_shift_left:
    case PSGI_TIR_OP_shift_right:
    case PSGI_TIR_OP_bitwise_and:
    case PSGI_TIR_OP_bitwise_or:
    case PSGI_TIR_OP_bitwise_xor:
    case PSGI_TIR_OP_bitwise_not:
    case PSGI_TIR_OP_popcount:
    case PSGI_TIR_OP_clz: return true;
    default: /* the math intrinsics */
      return psgi_tir_ops[op].rule == PSGI_TIR_RULE_FLOAT_SAME || psgi_tir_ops[op].rule == PSGI_TIR_RULE_FLOAT_PRED;
  }
}

static int stop_at_effect(psg_tir_visitor *v, const psg_tir_node *n) {
  if (n->kind == PSG_TIR_CALL && !is_pure_op(n->u.op)) {
    *(bool *)v->user = true;
    return PSG_VISIT_ABORT;
  }
  return PSG_VISIT_CONTINUE;
}

psg_status psgi_tir_has_side_effect(psg_ctx *ctx, const psg_tir_node *e, bool *out) {
  *out = false;
  psg_tir_visitor v = {stop_at_effect, NULL, out};
  return psg_tir_visit(ctx, &v, e);
}

static int stop_at_read(psg_tir_visitor *v, const psg_tir_node *n) {
  if ((n->kind == PSG_TIR_CALL && !is_pure_op(n->u.op)) || n->kind == PSG_TIR_BUFFER_LOAD) {
    *(bool *)v->user = false;
    return PSG_VISIT_ABORT;
  }
  return PSG_VISIT_CONTINUE;
}

psg_status psgi_tir_is_pure(psg_ctx *ctx, const psg_tir_node *e, bool *out) {
  *out = true;
  psg_tir_visitor v = {stop_at_read, NULL, out};
  return psg_tir_visit(ctx, &v, e);
}
