/* Passage — SimplifyExpr's arithmetic rewrites from TVM's simplify_expr.cc
 * (see simplify_expr.h): a full/ones/zeros operand of a broadcasting op into
 * its scalar fill value, and the constants of two adjacent adds or
 * multiplies combined, computed here (TVM folds them on the spot too).
 * TVM's SimplifyRSqrt (n / sqrt(x) -> n * rsqrt(x)) and SwitchAddMultiply
 * ((x + c1) * c2 -> x * c2 + c1 * c2) are left out because they change the
 * exports of real models, SimplifyAdd (x + x -> x * 2) because the pipeline
 * would no longer be idempotent (docs/design.md). */
#include "interp/interp_internal.h"
#include "ops/op_impl.h"
#include "transforms/simplify_expr.h"

/* By op table index (rules test every call): no name compared. */
static bool is_call_of(const psg_expr *e, size_t op) { return psgi_call_op_id(e) == (ptrdiff_t)op; }

static psg_expr *arg(const psg_expr *call, int i) { return call->kids[1 + i]; }

static bool is_constant(const psg_expr *e) { return e && e->kind == PSG_EXPR_CONSTANT; }

/* The scalar a fill call stands for: full's constant fill value, or 1 / 0 of
 * `dtype` for ones / zeros (and their *_like forms). NULL when `e` is none. */
static psg_expr *fill_scalar(psgi_built *b, const psg_expr *e, int dtype) {
  if (is_call_of(e, PSGI_OP_full) && e->nkids == 2) return is_constant(arg(e, 0)) ? arg(e, 0) : NULL;
  if (is_call_of(e, PSGI_OP_full_like) && e->nkids == 3) return is_constant(arg(e, 1)) ? arg(e, 1) : NULL;
  if (is_call_of(e, PSGI_OP_ones) || is_call_of(e, PSGI_OP_ones_like)) return psgi_build_scalar(b, dtype, 1);
  if (is_call_of(e, PSGI_OP_zeros) || is_call_of(e, PSGI_OP_zeros_like)) return psgi_build_scalar(b, dtype, 0);
  return NULL;
}

static bool is_fill(const psg_expr *e) {
  return is_call_of(e, PSGI_OP_full) || is_call_of(e, PSGI_OP_full_like) || is_call_of(e, PSGI_OP_ones) ||
         is_call_of(e, PSGI_OP_ones_like) || is_call_of(e, PSGI_OP_zeros) || is_call_of(e, PSGI_OP_zeros_like);
}

psg_expr *psgi_simplify_full_elementwise(psgi_built *b, const psg_expr *now) {
  const psg_type *t = now->checked_type;
  if (now->nkids != 3 || !t || t->kind != PSG_TYPE_TENSOR || now->kids[0]->kind != PSG_EXPR_OP) return NULL;
  const psgi_op_impl *impl = psgi_op_impl_get(now->kids[0]->u.op);
  if (!impl || impl->pattern != PSGI_PATTERN_BROADCAST) return NULL;
  for (int side = 0; side < 2; side++) {
    psg_expr *full = arg(now, side), *x = arg(now, 1 - side);
    /* Only when x alone gives the result's shape (the fill broadcasts into it). */
    if (!is_fill(full) || psgi_type_of(x) != t) continue;
    psg_expr *v = fill_scalar(b, full, t->dtype);
    if (!v) continue;
    psg_expr *args[2];
    args[side] = v;
    args[1 - side] = x;
    psg_expr *out = psgi_build_op_call_typed(b, now->kids[0]->u.op, args, 2, now->u.attrs);
    return out && out->checked_type == t ? out : NULL;
  }
  return NULL;
}

/* `op(c1, c2)` evaluated now: a constant, or NULL (b->status set on a failure
 * other than the op refusing its operands). */
static psg_expr *fold(psgi_built *b, size_t op, const psg_expr *c1, const psg_expr *c2) {
  psgi_value *args[2] = {NULL, NULL}, *v = NULL;
  char msg[160];
  psg_status st = psgi_value_from_constant(b->ctx, c1, &args[0]);
  if (!st) st = psgi_value_from_constant(b->ctx, c2, &args[1]);
  if (!st) st = psgi_eval_op(b->ctx, op, NULL, args, 2, &v, msg, sizeof msg);
  psg_expr *c = NULL;
  if (!st) st = psgi_value_to_expr(b->ctx, v, b->span, &c);
  psgi_value_release(v);
  psgi_value_release(args[0]);
  psgi_value_release(args[1]);
  if (st == PSG_ERR_NOMEM && !b->status) b->status = st;
  if (st || !c) return NULL;
  bool tensor = c->kind == PSG_EXPR_CONSTANT;
  if (!tensor || !PSGI_VEC_PUSH(b->ctx, &b->exprs, c)) {
    psg_expr_release(c);
    if (!b->status && tensor) b->status = psgi_nomem(b->ctx);
    return NULL;
  }
  const psg_type *ty = psg_tensor_type(b->ctx, c->u.constant);
  if (ty) psgi_expr_set_final_type(c, ty);
  return ty ? c : NULL;
}

/* `op(op(x, c1), c2)` (either order at each level) with x not a constant:
 * op(x, c1 op c2), when the inner call has no other user. */
psg_expr *psgi_simplify_adjacent_constants(psgi_built *b, const simplifier *s, const psg_expr *now) {
  ptrdiff_t id = psgi_call_op_id(now);
  if ((id != PSGI_OP_add && id != PSGI_OP_multiply) || now->nkids != 3) return NULL;
  size_t op = (size_t)id;
  for (int side = 0; side < 2; side++) {
    psg_expr *inner = arg(now, side), *c2 = arg(now, 1 - side);
    if (!is_constant(c2) || !is_call_of(inner, op) || inner->nkids != 3) continue;
    if (psgi_simplify_users(s, inner) != 1) continue;
    for (int k = 0; k < 2; k++) {
      psg_expr *x = arg(inner, k), *c1 = arg(inner, 1 - k);
      if (!is_constant(c1) || is_constant(x)) continue;
      psg_expr *c = fold(b, op, c1, c2);
      psg_expr *out = c ? psgi_build_op_call_typed(b, op, (psg_expr *[]){x, c}, 2, NULL) : NULL;
      /* Only when the result keeps its type (broadcasting of c1 with c2 may not). */
      return out && out->checked_type == now->checked_type ? out : NULL;
    }
  }
  return NULL;
}
