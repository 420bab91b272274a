/* Passage — SimplifyExpr: a dropped unit axis moved past elementwise ops
 * (see simplify_expr.h). The ONNX importer runs 1-D convolutions as conv2d
 * on (N, C, 1, L) with the unit axis dropped after each one and put back
 * before the next; the elementwise ops between them (bias, residual add,
 * relu) then sit between a squeeze and an expand_dims. Moving the squeeze
 * below them, rewrite by rewrite (children first), brings it next to the
 * expand_dims, and the reshape-chain rule cancels the pair. A move never
 * adds a node: through a one-operand op only when the squeeze has no other
 * user, through a binary op when both operands drop the same axis (one
 * squeeze instead of two) or the other is a constant (reshaped here). */
#include <stdlib.h>
#include "ops/op_impl.h"
#include "transforms/simplify_expr.h"

/* By op table index (rules test every call): no name compared. */
static bool is_call_of(const psg_expr *e, size_t op) { return psgi_call_op_id(e) == (ptrdiff_t)op; }

static psg_expr *arg(const psg_expr *call, int i) { return call->kids[1 + i]; }

/* A squeeze whose static result is its static operand with one unit axis
 * removed: the operand, and that axis (the first that fits). Reshapes are
 * left to the reshape-chain rules (moving them would only reorder). */
static psg_expr *drops_unit_axis(const psg_expr *e, int *axis) {
  if (!is_call_of(e, PSGI_OP_squeeze) || e->nkids != 2) return NULL;
  const psg_type *t = psgi_tensor_type_of(e), *xt = psgi_tensor_type_of(arg(e, 0));
  if (!t || !xt || !psg_type_is_static(t) || !psg_type_is_static(xt) || xt->n != t->n + 1 || t->dtype != xt->dtype)
    return NULL;
  for (int a = 0; a < xt->n; a++) {
    if (xt->dims[a] != 1) continue;
    bool fits = true;
    for (int i = 0; i < t->n && fits; i++) fits = t->dims[i] == xt->dims[i < a ? i : i + 1];
    if (fits) {
      *axis = a;
      return arg(e, 0);
    }
  }
  return NULL;
}

static const size_t binary_ops[] = {PSGI_OP_add,          PSGI_OP_subtract,      PSGI_OP_multiply,  PSGI_OP_divide,
                                    PSGI_OP_power,        PSGI_OP_maximum,       PSGI_OP_minimum,   PSGI_OP_floor_divide,
                                    PSGI_OP_floor_mod,    PSGI_OP_equal,         PSGI_OP_not_equal, PSGI_OP_greater,
                                    PSGI_OP_greater_equal, PSGI_OP_less,         PSGI_OP_less_equal, PSGI_OP_logical_and,
                                    PSGI_OP_logical_or};

static bool is_binary(const psg_expr *e) {
  if (e->nkids != 3) return false;
  for (size_t i = 0; i < sizeof binary_ops / sizeof *binary_ops; i++)
    if (is_call_of(e, binary_ops[i])) return true;
  return false;
}

/* An elementwise op of one tensor whose attributes name no axis. */
static bool is_unary(const psg_expr *e) {
  if (e->nkids != 2 || e->kind != PSG_EXPR_CALL || e->kids[0]->kind != PSG_EXPR_OP) return false;
  const psgi_op_impl *impl = psgi_op_impl_get(e->kids[0]->u.op);
  return impl && impl->pattern == PSGI_PATTERN_ELEMWISE && !psg_attrs_get(e->u.attrs, "axis") &&
         !psg_attrs_get(e->u.attrs, "axes");
}

static void release_tensor(void *t) { psg_tensor_release(t); }

/* Constant `c` broadcasting against a rank-r value, for the value with a unit
 * axis inserted at `axis`: c with a unit axis at the matching place (its
 * data shared), or c itself when its axes all lie after it. */
static psg_expr *lift_constant(psgi_built *b, psg_expr *c, int r, int axis) {
  psg_tensor *t = c->u.constant;
  int rc = psg_tensor_ndim(t), at = axis - (r - rc);
  if (rc > r) return NULL;
  if (at < 0) return c;
  int64_t dims[PSG_MAX_RANK];
  if (rc + 1 > PSG_MAX_RANK) return NULL;
  for (int i = 0, j = 0; i <= rc; i++) dims[i] = i == at ? 1 : psg_tensor_dim(t, j++);
  psg_tensor *u = NULL;
  psg_tensor_retain(t);
  psg_status st = psg_tensor_wrap(b->ctx, psg_tensor_dtype(t), dims, rc + 1, psg_tensor_data(t), release_tensor, t, &u);
  if (st) {
    psg_tensor_release(t);
    if (!b->status) b->status = st;
    return NULL;
  }
  psg_expr *e = psgi_build_constant(b, u);
  psg_tensor_release(u);
  return e;
}

static psg_expr *squeeze_axis(psgi_built *b, psg_expr *x, int axis) {
  int64_t a = axis;
  psg_attrs *attrs = psgi_build_attrs(b, (const char *[]){"axis"}, (psg_attr *[]){psgi_build_attr_ints(b, &a, 1)}, 1);
  return attrs ? psgi_build_call_typed(b, "squeeze", &x, 1, attrs) : NULL;
}

/* transpose(squeeze(x, a), perm) -> squeeze(transpose(x, perm'), a) with the
 * unit axis kept at place a. */
static psg_expr *through_transpose(psgi_built *b, const psg_expr *now, psg_expr *x, int a) {
  const psg_type *t = now->checked_type;
  int r = t->n;
  int64_t perm[PSG_MAX_RANK], lifted[PSG_MAX_RANK];
  int n = psgi_attr_ints(now->u.attrs, "axes", perm, PSG_MAX_RANK);
  if (n < 0 || (n && n != r) || r + 1 > PSG_MAX_RANK) return NULL;
  /* A swap of the last two axes is the reshape-through rule's (moving the
   * squeeze would hide it from that rule, which removes more). */
  bool swap = r >= 2;
  for (int i = 0; i < r && swap && n; i++) {
    int64_t p = perm[i] < 0 ? perm[i] + r : perm[i];
    swap = p == (i == r - 2 ? r - 1 : i == r - 1 ? r - 2 : i);
  }
  if (swap && (n || r == 2)) return NULL;
  for (int i = 0, j = 0; i <= r; i++) {
    if (i == a) {
      lifted[i] = a;
      continue;
    }
    int64_t p = n ? perm[j] : r - 1 - j;
    if (p < 0) p += r;
    if (p < 0 || p >= r) return NULL;
    lifted[i] = p < a ? p : p + 1;
    j++;
  }
  psg_attrs *attrs =
      psgi_build_attrs(b, (const char *[]){"axes"}, (psg_attr *[]){psgi_build_attr_ints(b, lifted, (size_t)r + 1)}, 1);
  psg_expr *y = attrs ? psgi_build_call_typed(b, "transpose", &x, 1, attrs) : NULL;
  return y ? squeeze_axis(b, y, a) : NULL;
}

psg_expr *psgi_simplify_squeeze_sink(psgi_built *b, const simplifier *s, const psg_expr *now) {
  const psg_type *t = now->checked_type;
  if (!t || t->kind != PSG_TYPE_TENSOR || !psg_type_is_static(t) || now->kind != PSG_EXPR_CALL) return NULL;
  bool transpose = is_call_of(now, PSGI_OP_transpose) && now->nkids == 2;
  if (!transpose && !is_unary(now) && !is_binary(now)) return NULL;
  int nargs = (int)now->nkids - 1, axis = -1, squeezed = 0, shared = 0;
  psg_expr *lifted[2] = {NULL, NULL};
  for (int i = 0; i < nargs; i++) {
    int a;
    psg_expr *x = drops_unit_axis(arg(now, i), &a);
    const psg_type *at = psgi_tensor_type_of(arg(now, i));
    if (x && at->n == t->n && (axis < 0 || a == axis)) {
      axis = a;
      lifted[i] = x;
      squeezed++;
      shared += psgi_simplify_users(s, arg(now, i)) != 1;
    }
  }
  if (!squeezed || shared >= squeezed) return NULL; /* at least one squeeze goes */
  if (transpose) {
    psg_expr *out = through_transpose(b, now, lifted[0], axis);
    return out && out->checked_type == t ? out : NULL;
  }
  for (int i = 0; i < nargs; i++) {
    if (lifted[i]) continue;
    psg_expr *c = arg(now, i);
    if (c->kind != PSG_EXPR_CONSTANT || !(lifted[i] = lift_constant(b, c, t->n, axis))) return NULL;
  }
  psg_expr *y = psgi_build_op_call_typed(b, now->kids[0]->u.op, lifted, (size_t)nargs, now->u.attrs);
  psg_expr *out = y ? squeeze_axis(b, y, axis) : NULL;
  return out && out->checked_type == t ? out : NULL;
}
