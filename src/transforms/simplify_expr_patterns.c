/* Passage — SimplifyExpr's multi-node patterns (see simplify_expr.h):
 * decomposed HardSwish into one canonical form, decomposed layer
 * normalization into nn.layer_norm, and transposes folded into the flags of
 * the matmuls they feed. Every node built carries its type; a pattern whose
 * intermediate values have other users is left alone (rewriting it would
 * compute them twice). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "ops/kernel_util.h"
#include "ops/op_impl.h"
#include "transforms/simplify_expr.h"

/* By op table index (rules test every call): no name compared. */
static bool is_call_of(const psg_expr *e, size_t op) { return psgi_call_op_id(e) == (ptrdiff_t)op; }

static psg_expr *arg(const psg_expr *call, int i) { return call->kids[1 + i]; }

/* A one-element floating constant equal to `v` (to float32 precision). */
static bool scalar_is(const psg_expr *e, double v) {
  if (!e || e->kind != PSG_EXPR_CONSTANT) return false;
  const psg_tensor *t = e->u.constant;
  if (!psg_dtype_is_float(t->dtype) || psg_tensor_numel(t) != 1) return false;
  double x = psgi_load_f(t->dtype, t->data, 0);
  return fabs(x - v) <= 1e-6 * (fabs(v) > 1 ? fabs(v) : 1);
}

static bool rank0(const psg_expr *e) { return e->kind == PSG_EXPR_CONSTANT && psg_tensor_ndim(e->u.constant) == 0; }

/* `call` is a binary op with a scalar constant `v` on either side (or only
 * on the right when `right_only`); the other operand, or NULL. */
static psg_expr *other_than(const psg_expr *call, size_t op, double v, bool right_only) {
  if (!is_call_of(call, op) || call->nkids != 3) return NULL;
  if (scalar_is(arg(call, 1), v)) return arg(call, 0);
  if (!right_only && scalar_is(arg(call, 0), v)) return arg(call, 1);
  return NULL;
}

static bool clip_is(const psg_expr *e, double lo, double hi) {
  return is_call_of(e, PSGI_OP_clip) && psgi_attr_float(e->u.attrs, "a_min", NAN) == lo &&
         psgi_attr_float(e->u.attrs, "a_max", NAN) == hi;
}

/* HardSwish ------------------------------------------------------------------- */

/* clip(x + 3, 0, 6): x, or NULL. */
static psg_expr *gate6(const psg_expr *e) {
  return clip_is(e, 0, 6) ? other_than(arg(e, 0), PSGI_OP_add, 3, false) : NULL;
}

/* A gate in [0, 1]: clip(x / 6 + 1/2, 0, 1) (HardSigmoid with alpha 1/6) or
 * clip(x + 3, 0, 6) / 6. Its x, or NULL. */
static psg_expr *gate1(const simplifier *s, const psg_expr *e) {
  if (clip_is(e, 0, 1)) {
    psg_expr *y = other_than(arg(e, 0), PSGI_OP_add, 0.5, false), *x;
    if (!y || psgi_simplify_users(s, y) != 1) return NULL;
    if ((x = other_than(y, PSGI_OP_multiply, 1.0 / 6, false))) return x;
    return other_than(y, PSGI_OP_divide, 6, true);
  }
  psg_expr *g = other_than(e, PSGI_OP_divide, 6, true);
  if (!g) g = other_than(e, PSGI_OP_multiply, 1.0 / 6, false);
  return g && psgi_simplify_users(s, g) == 1 ? gate6(g) : NULL;
}

/* multiply(x, gate) in either order with gate(x): x, or NULL. */
static psg_expr *times_gate(const simplifier *s, const psg_expr *m, bool unit, const psg_expr **gate) {
  if (!is_call_of(m, PSGI_OP_multiply) || m->nkids != 3) return NULL;
  for (int side = 0; side < 2; side++) {
    psg_expr *x = arg(m, side), *g = arg(m, 1 - side);
    psg_expr *gx = unit ? gate1(s, g) : gate6(g);
    if (gx && gx == x && psgi_simplify_users(s, g) == 1) {
      *gate = g;
      return x;
    }
  }
  return NULL;
}

psg_expr *psgi_simplify_hard_swish(psgi_built *b, const simplifier *s, const psg_expr *now) {
  const psg_type *t = now->checked_type;
  if (!t || t->kind != PSG_TYPE_TENSOR || !psg_dtype_is_float(t->dtype)) return NULL;
  const psg_expr *gate = NULL;
  psg_expr *x = NULL, *m;
  bool canonical = false;
  if ((m = other_than(now, PSGI_OP_divide, 6, true)) || (m = other_than(now, PSGI_OP_multiply, 1.0 / 6, false))) {
    if (psgi_simplify_users(s, m) != 1 || !(x = times_gate(s, m, false, &gate))) return NULL;
    const psg_expr *add = arg(gate, 0);
    canonical = is_call_of(now, PSGI_OP_divide) && rank0(arg(now, 1)) && arg(m, 0) == x && arg(add, 0) == x && rank0(arg(add, 1));
  } else if (!(x = times_gate(s, now, true, &gate))) {
    return NULL;
  }
  if (canonical || psgi_type_of(x) != t) return NULL;
  psg_attrs *clip = psgi_build_attrs(b, (const char *[]){"a_min", "a_max"},
                                     (psg_attr *[]){psgi_build_attr_float(b, 0), psgi_build_attr_float(b, 6)}, 2);
  psg_expr *c3 = psgi_build_scalar(b, t->dtype, 3), *c6 = psgi_build_scalar(b, t->dtype, 6);
  psg_expr *g = psgi_build_call_typed(b, "add", (psg_expr *[]){x, c3}, 2, NULL);
  g = clip ? psgi_build_call_typed(b, "clip", &g, 1, clip) : NULL;
  psg_expr *xm = psgi_build_call_typed(b, "multiply", (psg_expr *[]){x, g}, 2, NULL);
  return psgi_build_call_typed(b, "divide", (psg_expr *[]){xm, c6}, 2, NULL);
}

/* Layer normalization ------------------------------------------------------------ */

/* mean(x, axis=[a], keepdims=True) over one axis: x, and a in [0, rank). */
static psg_expr *mean_one_axis(const psg_expr *e, int *axis) {
  if (!is_call_of(e, PSGI_OP_mean) || !psgi_attr_bool(e->u.attrs, "keepdims", false) ||
      psgi_attr_bool(e->u.attrs, "exclude", false))
    return NULL;
  int64_t ax[PSG_MAX_RANK];
  const psg_type *xt = psgi_tensor_type_of(arg(e, 0));
  if (!xt || psgi_attr_ints(e->u.attrs, "axis", ax, PSG_MAX_RANK) != 1) return NULL;
  if (ax[0] < 0) ax[0] += xt->n;
  if (ax[0] < 0 || ax[0] >= xt->n) return NULL;
  *axis = (int)ax[0];
  return arg(e, 0);
}

/* A (c,) constant of `v` (built as a constant, not a call of ones/zeros, so
 * nothing is left for FoldConstant at levels that do not run it). */
static psg_expr *filled(psgi_built *b, double v, int64_t c, int dtype) {
  psg_tensor *t = NULL;
  psg_status st = psg_tensor_create(b->ctx, dtype, &c, 1, NULL, &t);
  if (st) {
    if (!b->status) b->status = st;
    return NULL;
  }
  for (int64_t i = 0; i < c && v != 0; i++) psgi_store_f(dtype, (void *)t->data, (size_t)i, v);
  psg_expr *e = psgi_build_constant(b, t);
  psg_tensor_release(t);
  return e;
}

static psg_expr *layer_norm(psgi_built *b, psg_expr *x, psg_expr *gamma, psg_expr *beta, int axis, double eps) {
  psg_attrs *a = psgi_build_attrs(b, (const char *[]){"axis", "epsilon", "center", "scale"},
                                  (psg_attr *[]){psgi_build_attr_int(b, axis), psgi_build_attr_float(b, eps),
                                                 psgi_build_attr_bool(b, true), psgi_build_attr_bool(b, true)}, 4);
  return a ? psgi_build_call_typed(b, "nn.layer_norm", (psg_expr *[]){x, gamma, beta}, 3, a) : NULL;
}

static double shortest(double v);

/* The decomposed normalization: divide(d, sqrt(add(mean(d * d | d ** 2), eps)))
 * with d = subtract(x, mean(x)), all over one axis. */
static psg_expr *normalization(psgi_built *b, const simplifier *s, const psg_expr *now) {
  if (!is_call_of(now, PSGI_OP_divide)) return NULL;
  psg_expr *d = arg(now, 0), *sq = arg(now, 1);
  if (!is_call_of(sq, PSGI_OP_sqrt) || !is_call_of(d, PSGI_OP_subtract) || psgi_simplify_users(s, sq) != 1) return NULL;
  psg_expr *ve = arg(sq, 0), *v = NULL, *eps = NULL;
  if (!is_call_of(ve, PSGI_OP_add) || psgi_simplify_users(s, ve) != 1) return NULL;
  for (int side = 0; side < 2 && !v; side++)
    if (arg(ve, side)->kind == PSG_EXPR_CONSTANT && psg_tensor_numel(arg(ve, side)->u.constant) == 1)
      eps = arg(ve, side), v = arg(ve, 1 - side);
  int a1, a2;
  psg_expr *p = v ? mean_one_axis(v, &a2) : NULL;
  if (!p || psgi_simplify_users(s, v) != 1 || psgi_simplify_users(s, p) != 1) return NULL;
  bool squares = (is_call_of(p, PSGI_OP_multiply) && arg(p, 0) == d && arg(p, 1) == d) ||
                 (is_call_of(p, PSGI_OP_power) && arg(p, 0) == d && scalar_is(arg(p, 1), 2));
  psg_expr *mu = arg(d, 1), *x = arg(d, 0);
  /* d's users: the divide and the square (d * d counts twice). */
  if (psgi_simplify_users(s, d) != (is_call_of(p, PSGI_OP_multiply) ? 3u : 2u)) return NULL;
  if (!squares || mean_one_axis(mu, &a1) != x || a1 != a2 || psgi_simplify_users(s, mu) != 1) return NULL;
  const psg_type *t = psgi_tensor_type_of(x);
  if (!t || t != now->checked_type || !psg_dtype_is_float(t->dtype) || t->dims[a1] < 0) return NULL;
  double e = psgi_load_f(eps->u.constant->dtype, eps->u.constant->data, 0);
  if (!(e >= 0)) return NULL;
  if (eps->u.constant->dtype == PSG_DTYPE_FLOAT32) e = shortest(e);
  psg_expr *gamma = filled(b, 1, t->dims[a1], t->dtype), *beta = filled(b, 0, t->dims[a1], t->dtype);
  return layer_norm(b, x, gamma, beta, a1, e);
}

/* The shortest decimal that reads back as the float32 `v` (1e-05, not
 * 9.999999747378752e-06: the attribute is a double). */
static double shortest(double v) {
  /* One significant digit (1e-05, 1e-12: the usual epsilons) without the
   * printf and strtod code: c * 10^k computed with an exact power of ten is
   * the double strtod gives for "ce<k>" (one correctly rounded operation),
   * and a one-digit decimal that reads back as v is the one %.1g prints
   * (two of them are a tenth apart, far more than a float's spacing). */
  static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (v == 0) return v;
  if (v > 0 && v < 1e23) {
    int k0 = 0; /* about floor(log10(v)), without libm (its first call is dear) */
    for (double x = v; x >= 10; x /= 10) k0++;
    for (double x = v; x < 1 && k0 > -24; x *= 10) k0--;
    for (int k = k0 - 1; k <= k0 + 1; k++) {
      if (k < -22 || k > 22) continue;
      for (int c = 1; c <= 9; c++) {
        double d = k < 0 ? c / p10[-k] : c * p10[k];
        if ((float)d == (float)v) return d;
      }
    }
  }
  char buf[32];
  for (int digits = 1; digits <= 9; digits++) {
    snprintf(buf, sizeof buf, "%.*g", digits, v);
    double d = strtod(buf, NULL);
    if ((float)d == (float)v) return d;
  }
  return v;
}

/* A constant or call (ones, zeros) of every element `v`. */
static bool all_of(const psg_expr *e, double v) {
  if (is_call_of(e, v == 1 ? PSGI_OP_ones : PSGI_OP_zeros)) return true;
  if (!e || e->kind != PSG_EXPR_CONSTANT) return false;
  int64_t n = psg_tensor_numel(e->u.constant);
  for (int64_t i = 0; i < n; i++)
    if (psgi_load_f(e->u.constant->dtype, e->u.constant->data, (size_t)i) != v) return false;
  return n > 0;
}

/* `g` as the (C,) vector along `axis` of a rank-r value, or NULL when it
 * broadcasts any other way. */
static psg_expr *per_axis(psgi_built *b, psg_expr *g, int r, int axis, int64_t c, int dtype) {
  const psg_type *gt = psgi_tensor_type_of(g);
  if (!gt || gt->dtype != dtype || gt->n > r || gt->n < r - axis) return NULL;
  for (int i = 0; i < gt->n; i++)
    if (gt->dims[i] != (i == gt->n - (r - axis) ? c : 1)) return NULL;
  if (gt->n == 1) return g;
  psg_attrs *a = psgi_build_attrs(b, (const char *[]){"newshape"}, (psg_attr *[]){psgi_build_attr_ints(b, &c, 1)}, 1);
  return a ? psgi_build_call_typed(b, "reshape", &g, 1, a) : NULL;
}

psg_expr *psgi_simplify_layer_norm(psgi_built *b, const simplifier *s, const psg_expr *now) {
  psg_expr *out = normalization(b, s, now);
  if (out || b->status) return out;
  bool mul = is_call_of(now, PSGI_OP_multiply);
  if ((!mul && !is_call_of(now, PSGI_OP_add)) || now->nkids != 3 || !now->checked_type) return NULL;
  for (int side = 0; side < 2; side++) {
    psg_expr *ln = arg(now, side), *v = arg(now, 1 - side);
    if (!is_call_of(ln, PSGI_OP_nn_layer_norm) || psgi_simplify_users(s, ln) != 1 || ln->checked_type != now->checked_type ||
        !psgi_attr_bool(ln->u.attrs, "center", true) || !psgi_attr_bool(ln->u.attrs, "scale", true) ||
        !all_of(arg(ln, 2), 0) || (mul && !all_of(arg(ln, 1), 1)))
      continue;
    const psg_type *t = now->checked_type;
    int axis = (int)psgi_attr_int(ln->u.attrs, "axis", -1);
    if (axis < 0) axis += t->n;
    if (axis < 0 || axis >= t->n || t->dims[axis] < 0) return NULL;
    psg_expr *vec = per_axis(b, v, t->n, axis, t->dims[axis], t->dtype);
    if (!vec) return NULL;
    return layer_norm(b, arg(ln, 0), mul ? vec : arg(ln, 1), mul ? arg(ln, 2) : vec, axis,
                      psgi_attr_float(ln->u.attrs, "epsilon", 1e-5));
  }
  return NULL;
}

/* Matmul transposes --------------------------------------------------------------- */

/* transpose(y) swapping exactly the last two of `rank` axes: y, or NULL. */
static psg_expr *swaps_last_two(const psg_expr *e, int rank) {
  if (!is_call_of(e, PSGI_OP_transpose) || rank < 2) return NULL;
  int64_t ax[PSG_MAX_RANK];
  int n = psgi_attr_ints(e->u.attrs, "axes", ax, PSG_MAX_RANK);
  if (n == 0 && rank == 2) return arg(e, 0); /* None: reversed */
  if (n != rank) return NULL;
  for (int i = 0; i < rank; i++) {
    int64_t a = ax[i] < 0 ? ax[i] + rank : ax[i];
    if (a != (i == rank - 2 ? rank - 1 : i == rank - 1 ? rank - 2 : i)) return NULL;
  }
  return arg(e, 0);
}

psg_expr *psgi_simplify_matmul_transpose(psgi_built *b, const psg_expr *now) {
  bool batch = is_call_of(now, PSGI_OP_nn_batch_matmul);
  if ((!batch && !is_call_of(now, PSGI_OP_nn_matmul)) || now->nkids != 3 || !now->checked_type) return NULL;
  static const char *const flag[2] = {"transpose_a", "transpose_b"};
  psg_expr *ops[2] = {arg(now, 0), arg(now, 1)};
  psg_attrs *attrs = now->u.attrs;
  bool changed = false;
  psg_attrs_retain(attrs);
  for (int i = 0; i < 2; i++) {
    const psg_type *ot = psgi_tensor_type_of(ops[i]);
    psg_expr *y = ot ? swaps_last_two(ops[i], ot->n) : NULL;
    if (!y || !psgi_tensor_type_of(y)) continue;
    psg_attr *v = NULL;
    psg_attrs *next = NULL;
    bool cur = psgi_attr_bool(attrs, flag[i], batch && i == 1);
    psg_status st = psg_attr_bool(b->ctx, !cur, &v);
    if (!st) st = psg_attrs_with(b->ctx, attrs, flag[i], v, &next);
    psg_attr_release(v);
    if (st) {
      if (!b->status) b->status = st;
      break;
    }
    psg_attrs_release(attrs);
    attrs = next;
    ops[i] = y;
    changed = true;
  }
  psg_expr *out = NULL;
  if (changed && !b->status) {
    if (!PSGI_VEC_PUSH(b->ctx, &b->attrs, attrs)) {
      b->status = psgi_nomem(b->ctx);
      psg_attrs_release(attrs);
      return NULL;
    }
    out = psgi_build_call_typed(b, batch ? "nn.batch_matmul" : "nn.matmul", ops, 2, attrs);
    return out && out->checked_type == now->checked_type ? out : NULL;
  }
  psg_attrs_release(attrs);
  return NULL;
}

/* Reshapes around row-wise ops ---------------------------------------------------- */

static bool reshape_like(const psg_expr *e) {
  return is_call_of(e, PSGI_OP_reshape) || is_call_of(e, PSGI_OP_squeeze) || is_call_of(e, PSGI_OP_expand_dims) ||
         is_call_of(e, PSGI_OP_nn_batch_flatten);
}

static bool same_dims(const psg_type *a, const psg_type *b) {
  if (!a || !b || a->kind != PSG_TYPE_TENSOR || b->kind != PSG_TYPE_TENSOR || a->n != b->n) return false;
  for (int i = 0; i < a->n; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

/* Whether `f` (one user) computes each element from the same element of its
 * tensor operand alone (elementwise ops, a binary op with a rank-0 constant)
 * or each row from the same row (softmax over the last axis, when x, y and
 * the result agree on the last axis). The tensor operand's index, or -1. */
static int rowwise(const psg_expr *f, const psg_type *x, const psg_type *y, const psg_type *out) {
  if (!f || f->kind != PSG_EXPR_CALL || f->kids[0]->kind != PSG_EXPR_OP) return -1;
  const psgi_op_impl *impl = psgi_op_impl_get(f->kids[0]->u.op);
  if (!impl) return -1;
  if (impl->pattern == PSGI_PATTERN_ELEMWISE && f->nkids == 2) return 0;
  if ((impl->pattern == PSGI_PATTERN_ELEMWISE || impl->pattern == PSGI_PATTERN_BROADCAST) && f->nkids == 3)
    for (int side = 0; side < 2; side++)
      if (arg(f, 1 - side)->kind == PSG_EXPR_CONSTANT && rank0(arg(f, 1 - side))) return side;
  /* A transpose of the last two axes, per matrix: reshapes that keep both. */
  if (is_call_of(f, PSGI_OP_transpose) && f->nkids == 2 && y->n >= 2 && swaps_last_two(f, y->n) && x->n >= 2 &&
      out->n >= 2 && x->dims[x->n - 2] == y->dims[y->n - 2] && x->dims[x->n - 1] == y->dims[y->n - 1] &&
      out->dims[out->n - 2] == y->dims[y->n - 1] && out->dims[out->n - 1] == y->dims[y->n - 2])
    return 0;
  if ((is_call_of(f, PSGI_OP_nn_softmax) || is_call_of(f, PSGI_OP_nn_log_softmax)) && f->nkids == 2) {
    int64_t axis = psgi_attr_int(f->u.attrs, "axis", -1);
    if (axis < 0) axis += y->n;
    if (axis == y->n - 1 && x->n && out->n && x->dims[x->n - 1] == y->dims[y->n - 1] &&
        out->dims[out->n - 1] == y->dims[y->n - 1])
      return 0;
  }
  return -1;
}

psg_expr *psgi_simplify_reshape_through(psgi_built *b, const simplifier *s, const psg_expr *now) {
  const psg_type *t = now->checked_type;
  if (!reshape_like(now) || !t || t->kind != PSG_TYPE_TENSOR || !psg_type_is_static(t)) return NULL;
  psg_expr *f = arg(now, 0);
  if (psgi_simplify_users(s, f) != 1) return NULL;
  const psg_type *ft = psgi_tensor_type_of(f);
  if (!ft || f->kind != PSG_EXPR_CALL || f->nkids < 2 || f->nkids > 3) return NULL;
  int k = f->nkids == 3 && arg(f, 0)->kind == PSG_EXPR_CONSTANT ? 1 : 0;
  psg_expr *y = arg(f, k), *x = reshape_like(y) ? arg(y, 0) : NULL;
  const psg_type *xt = psgi_tensor_type_of(x), *yt = psgi_tensor_type_of(y);
  if (!xt || !yt || psgi_simplify_users(s, y) != 1 || rowwise(f, xt, yt, t) != k) return NULL;
  /* Elementwise: the op keeps the shape (no broadcasting against the constant). */
  if (!is_call_of(f, PSGI_OP_transpose) && !same_dims(yt, ft)) return NULL;
  /* op(reshape(x) to the final shape, before a transpose), or op(x) when x has it. */
  bool swap = is_call_of(f, PSGI_OP_transpose);
  int64_t dims[PSG_MAX_RANK];
  memcpy(dims, t->dims, (size_t)t->n * sizeof *dims);
  if (swap) dims[t->n - 2] = t->dims[t->n - 1], dims[t->n - 1] = t->dims[t->n - 2];
  bool same = xt->n == t->n && !memcmp(xt->dims, dims, (size_t)t->n * sizeof *dims);
  psg_expr *r = x;
  if (!same) { /* in x's own dtype (the op may be a cast) */
    psg_attrs *a = psgi_build_attrs(b, (const char *[]){"newshape"},
                                    (psg_attr *[]){psgi_build_attr_ints(b, dims, (size_t)t->n)}, 1);
    r = a ? psgi_build_call_typed(b, "reshape", &x, 1, a) : NULL;
  }
  if (!r) return NULL;
  psg_attrs *attrs = f->u.attrs;
  if (swap) {
    int64_t axes[PSG_MAX_RANK];
    for (int i = 0; i < t->n; i++) axes[i] = i == t->n - 2 ? t->n - 1 : i == t->n - 1 ? t->n - 2 : i;
    attrs = psgi_build_attrs(b, (const char *[]){"axes"}, (psg_attr *[]){psgi_build_attr_ints(b, axes, (size_t)t->n)}, 1);
    if (!attrs) return NULL;
  }
  if (is_call_of(f, PSGI_OP_nn_softmax) || is_call_of(f, PSGI_OP_nn_log_softmax)) {
    psg_attr *ax = psgi_build_attr_int(b, t->n - 1);
    psg_attrs *na = NULL;
    psg_status st = ax ? psg_attrs_with(b->ctx, attrs, "axis", ax, &na) : PSG_ERR_NOMEM;
    psg_attr_release(ax);
    if (!st && !PSGI_VEC_PUSH(b->ctx, &b->attrs, na)) {
      psg_attrs_release(na);
      st = psgi_nomem(b->ctx);
    }
    if (st) {
      if (!b->status) b->status = st;
      return NULL;
    }
    attrs = na;
  }
  psg_expr *args[2] = {arg(f, 0), f->nkids == 3 ? arg(f, 1) : NULL};
  args[k] = r;
  psg_expr *out = psgi_build_op_call_typed(b, f->kids[0]->u.op, args, (size_t)(f->nkids - 1), attrs);
  return out && out->checked_type == t ? out : NULL;
}
