/* Passage — SimplifyInference (tvm-behavior §6.8, §7.1): a function pass (opt
 * 0, required InferType) that rewrites normalization ops into elementary ops
 * for inference, exactly as TVM's InferenceSimplifier does:
 *   batch_norm(x, γ, β, μ, σ²).0 -> x * scale + shift, scale = γ / sqrt(σ² + ε),
 *                                   shift = β - μ * scale (expanded to the axis)
 *   dropout(x).0                 -> x
 *   layer_norm / instance_norm / group_norm / l2_normalize -> their formulas.
 * Only the projections are rewritten: a batch_norm whose mean or variance
 * output is also used stays for those uses. Types come from InferType. */
#include "ops/op_impl.h"
#include "transforms/builder.h"
#include "transforms/rewrite_inner.h"
#include "transforms/transforms.h"

static psg_expr *scalar_like(psgi_built *b, const psg_type *t, double v) { return psgi_build_scalar(b, t->dtype, v); }

/* Ops by op table index (PSGI_OP_*): every expansion builds several calls. */
static psg_expr *call1(psgi_built *b, size_t op, psg_expr *x) { return psgi_build_op_call(b, op, &x, 1, NULL); }

static psg_expr *call2(psgi_built *b, size_t op, psg_expr *x, psg_expr *y) {
  return psgi_build_op_call(b, op, (psg_expr *[]){x, y}, 2, NULL);
}

/* mean/sum over `axes` with keepdims. */
static psg_expr *reduce(psgi_built *b, size_t op, psg_expr *x, const int64_t *axes, size_t n) {
  psg_attrs *attrs = psgi_build_attrs(b, (const char *[]){"axis", "keepdims"},
                                      (psg_attr *[]){psgi_build_attr_ints(b, axes, n), psgi_build_attr_bool(b, true)}, 2);
  return attrs ? psgi_build_op_call(b, op, &x, 1, attrs) : NULL;
}

/* What one run keeps across rewrites: expand_dims attrs by num_newaxis (a
 * model's batch norms all expand alike; attrs are immutable and shared). */
typedef struct run_cache {
  psg_attrs *expand[PSG_MAX_RANK];
  psgi_rel_cache rel; /* the expansions' calls over the same types, typed once */
  size_t built;       /* nodes the expansions made: the result has about that many more */
} run_cache;

/* psgi_build_expand_to_axis with the run's cached attrs (axis 1, as it). */
static psg_expr *expand_to_axis(psgi_built *b, run_cache *rc, psg_expr *x, int ndim, int axis) {
  int extra = ndim - axis - 1;
  if (!x || extra <= 0) return x;
  if (!rc || extra >= PSG_MAX_RANK) return psgi_build_expand_to_axis(b, x, ndim, axis);
  if (!rc->expand[extra]) {
    psg_attrs *attrs = psgi_build_attrs(b, (const char *[]){"axis", "num_newaxis"},
                                        (psg_attr *[]){psgi_build_attr_int(b, 1), psgi_build_attr_int(b, extra)}, 2);
    if (!attrs) return NULL;
    psg_attrs_retain(attrs);
    rc->expand[extra] = attrs;
  }
  return psgi_build_op_call(b, PSGI_OP_expand_dims, &x, 1, rc->expand[extra]);
}

/* TVM's batch_norm expansion (simplify_inference.cc: BatchNormToInferUnpack). */
static psg_expr *expand_batch_norm(psgi_built *b, run_cache *rc, const psg_expr *bn, psg_expr *const *args,
                                   const psg_type *t) {
  const psg_attrs *a = bn->u.attrs;
  int axis = (int)psgi_attr_int(a, "axis", 1);
  if (axis < 0) axis += t->n;
  double eps = psgi_attr_float(a, "epsilon", 1e-5);
  psg_expr *x = args[0], *gamma = args[1], *beta = args[2], *mean = args[3], *var = args[4];
  psg_expr *std = call1(b, PSGI_OP_sqrt, call2(b, PSGI_OP_add, var, scalar_like(b, t, eps)));
  psg_expr *scale = call2(b, PSGI_OP_divide, scalar_like(b, t, 1.0), std);
  if (psgi_attr_bool(a, "scale", true)) scale = call2(b, PSGI_OP_multiply, scale, gamma);
  psg_expr *shift = call2(b, PSGI_OP_multiply, call1(b, PSGI_OP_negative, mean), scale);
  if (psgi_attr_bool(a, "center", true)) shift = call2(b, PSGI_OP_add, shift, beta);
  scale = expand_to_axis(b, rc, scale, t->n, axis);
  shift = expand_to_axis(b, rc, shift, t->n, axis);
  return call2(b, PSGI_OP_add, call2(b, PSGI_OP_multiply, x, scale), shift);
}

/* (x - mean) / sqrt(var + eps) over `axes`, then γ and β along `axis`. */
static psg_expr *normalize(psgi_built *b, psg_expr *x, psg_expr *gamma, psg_expr *beta, const psg_attrs *a,
                           const psg_type *t, const int64_t *axes, size_t naxes, int axis) {
  double eps = psgi_attr_float(a, "epsilon", 1e-5);
  psg_expr *centered = call2(b, PSGI_OP_subtract, x, reduce(b, PSGI_OP_mean, x, axes, naxes));
  psg_expr *var = reduce(b, PSGI_OP_mean, call2(b, PSGI_OP_multiply, centered, centered), axes, naxes);
  psg_expr *out = call2(b, PSGI_OP_divide, centered, call1(b, PSGI_OP_sqrt, call2(b, PSGI_OP_add, var, scalar_like(b, t, eps))));
  if (gamma && psgi_attr_bool(a, "scale", true))
    out = call2(b, PSGI_OP_multiply, out, psgi_build_expand_to_axis(b, gamma, t->n, axis));
  if (beta && psgi_attr_bool(a, "center", true))
    out = call2(b, PSGI_OP_add, out, psgi_build_expand_to_axis(b, beta, t->n, axis));
  return out;
}

static psg_expr *expand_layer_norm(psgi_built *b, const psg_expr *call, psg_expr *const *args, const psg_type *t) {
  int64_t axis = psgi_attr_int(call->u.attrs, "axis", -1);
  if (axis < 0) axis += t->n;
  return normalize(b, args[0], args[1], args[2], call->u.attrs, t, &axis, 1, (int)axis);
}

/* Instance norm: over every axis but the batch (0) and channel ones. */
static psg_expr *expand_instance_norm(psgi_built *b, const psg_expr *call, psg_expr *const *args, const psg_type *t) {
  int64_t axis = psgi_attr_int(call->u.attrs, "axis", 1), axes[PSG_MAX_RANK];
  if (axis < 0) axis += t->n;
  size_t n = 0;
  for (int i = 1; i < t->n; i++)
    if (i != axis) axes[n++] = i;
  return normalize(b, args[0], args[1], args[2], call->u.attrs, t, axes, n, (int)axis);
}

static psg_expr *reshape_to(psgi_built *b, psg_expr *x, const int64_t *dims, int n) {
  psg_attrs *attrs = psgi_build_attrs(b, (const char *[]){"newshape"}, (psg_attr *[]){psgi_build_attr_ints(b, dims, (size_t)n)}, 1);
  return attrs ? psgi_build_op_call(b, PSGI_OP_reshape, &x, 1, attrs) : NULL;
}

/* Group norm (TVM's GroupNormToInferUnpack): the channel axis split into
 * (groups, channels / groups), normalized over everything after the group
 * axis, reshaped back, then γ and β along the channel axis. Needs a static
 * shape (the reshapes are written out). */
static psg_expr *expand_group_norm(psgi_built *b, const psg_expr *call, psg_expr *const *args, const psg_type *t) {
  int64_t axis = psgi_attr_int(call->u.attrs, "axis", 1), groups = psgi_attr_int(call->u.attrs, "num_groups", 1);
  if (axis < 0) axis += t->n;
  if (axis < 0 || axis >= t->n || t->n + 1 > PSG_MAX_RANK || !psg_type_is_static(t) || groups < 1 ||
      t->dims[axis] % groups)
    return NULL; /* InferType rejected it already, or shapes are not known: keep the op */
  int64_t grouped[PSG_MAX_RANK], axes[PSG_MAX_RANK];
  int n = 0;
  size_t naxes = 0;
  for (int i = 0; i < t->n; i++) {
    if (i == axis) {
      grouped[n++] = groups;
      grouped[n++] = t->dims[i] / groups;
    } else {
      grouped[n++] = t->dims[i];
    }
  }
  for (int i = (int)axis + 1; i < n; i++) axes[naxes++] = i;
  /* No γ/β here: normalize reads only t's dtype. */
  psg_expr *normalized = normalize(b, reshape_to(b, args[0], grouped, n), NULL, NULL, call->u.attrs, t, axes,
                                   naxes, (int)axis);
  psg_expr *out = reshape_to(b, normalized, t->dims, t->n);
  if (psgi_attr_bool(call->u.attrs, "scale", true))
    out = call2(b, PSGI_OP_multiply, out, psgi_build_expand_to_axis(b, args[1], t->n, (int)axis));
  if (psgi_attr_bool(call->u.attrs, "center", true))
    out = call2(b, PSGI_OP_add, out, psgi_build_expand_to_axis(b, args[2], t->n, (int)axis));
  return out;
}

/* x / sqrt(max(sum(x², axes), eps)). */
static psg_expr *expand_l2_normalize(psgi_built *b, const psg_expr *call, psg_expr *const *args, const psg_type *t) {
  int64_t axes[PSG_MAX_RANK];
  int n = psgi_attr_ints(call->u.attrs, "axis", axes, PSG_MAX_RANK);
  if (n <= 0) return NULL; /* TVM requires the axes */
  double eps = psgi_attr_float(call->u.attrs, "eps", 1e-12);
  psg_expr *x = args[0];
  psg_expr *sq = reduce(b, PSGI_OP_sum, call2(b, PSGI_OP_multiply, x, x), axes, (size_t)n);
  return call2(b, PSGI_OP_divide, x, call1(b, PSGI_OP_sqrt, call2(b, PSGI_OP_maximum, sq, scalar_like(b, t, eps))));
}

/* The rewritten arguments of a rewritten call (children after the callee). */
static psg_expr *const *args_of(const psg_expr *call) { return (psg_expr *const *)call->kids + 1; }

static psg_status finish(psgi_built *b, run_cache *rc, psg_expr *result, psg_expr *fallback, psg_expr **out) {
  psg_status st = b->status;
  if (!st && result) {
    rc->built += b->exprs.len;
    *out = psgi_built_keep(b, result);
    psg_expr_release(fallback);
  } else {
    *out = fallback; /* nothing to rewrite (or an untyped input): keep the call */
  }
  psgi_built_fini(b);
  if (st) {
    psg_expr_release(*out);
    *out = NULL;
  }
  return st;
}

static psg_status simplify_projection(psgi_rewriter *m, const psg_expr *e, psg_expr **out) {
  const psg_expr *orig = e->kids[0], *now = (*out)->kids[0];
  ptrdiff_t op = psgi_call_op_id(orig);
  if (op < 0 || e->u.index != 0 || now->kind != PSG_EXPR_CALL) return PSG_OK;
  if (op == PSGI_OP_nn_dropout) {
    psg_expr *x = args_of(now)[0];
    psg_expr_retain(x);
    psg_expr_release(*out);
    *out = x;
    return PSG_OK;
  }
  const psg_type *t = psgi_tensor_type_of(orig->kids[1]);
  if (op != PSGI_OP_nn_batch_norm || !t) return PSG_OK;
  psgi_built b;
  psgi_built_init(&b, m->ctx, psgi_expr_span_ref(e));
  b.final_types = true; /* the expansions read the types of the originals only */
  run_cache *rc = m->user;
  b.rel_cache = &rc->rel;
  return finish(&b, rc, expand_batch_norm(&b, rc, orig, args_of(now), t), *out, out);
}

static psg_status simplify_call(psgi_rewriter *m, const psg_expr *e, psg_expr **out) {
  psg_expr *(*expand)(psgi_built *, const psg_expr *, psg_expr *const *, const psg_type *) = NULL;
  switch (psgi_call_op_id(e)) {
  case PSGI_OP_nn_layer_norm: expand = expand_layer_norm; break;
  case PSGI_OP_nn_instance_norm: expand = expand_instance_norm; break;
  case PSGI_OP_nn_group_norm: expand = expand_group_norm; break;
  case PSGI_OP_nn_l2_normalize: expand = expand_l2_normalize; break;
  default: return PSG_OK;
  }
  const psg_type *t = e->nkids > 1 ? psgi_tensor_type_of(e->kids[1]) : NULL;
  if (!t) return PSG_OK;
  psgi_built b;
  psgi_built_init(&b, m->ctx, psgi_expr_span_ref(e));
  b.final_types = true; /* the expansions read the types of the originals only */
  run_cache *rc = m->user;
  b.rel_cache = &rc->rel;
  return finish(&b, rc, expand(&b, e, args_of(*out), t), *out, out);
}

static psg_status simplify(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)pc;
  (void)user;
  static const psgi_rewrite_fn visit[PSG_EXPR_KIND_COUNT] = {[PSG_EXPR_TUPLE_GET_ITEM] = simplify_projection,
                                                             [PSG_EXPR_CALL] = simplify_call};
  run_cache rc;
  memset(&rc, 0, sizeof rc);
  psg_status st = psgi_rewrite_function_inner(func, mod, visit, &rc, out);
  /* The walk noted the nodes it met on the result; the next pass's walk
   * meets the expansions' nodes too: sized for those, its memo does not
   * regrow (psgi_expr_size_hint). */
  if (!st && *out != func) psgi_expr_note_size(*out, psgi_expr_size_hint(*out) + rc.built);
  for (int i = 0; i < PSG_MAX_RANK; i++) psg_attrs_release(rc.expand[i]);
  psgi_rel_cache_fini(&rc.rel);
  return st;
}

const psg_pass_decl psgi_pass_simplify_inference = {
    .name = "SimplifyInference",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 0,
    .required = psgi_required_infer_type,
    .help = "batch_norm, dropout, layer/instance norm, l2_normalize into elementary ops",
    .needs = PSG_PROP_TYPED,
    .function = simplify,
    .cacheable = true,
    .flags = PSG_PASS_FLAG_REASSOCIATES, /* validate-each: normalizations become elementary ops in another order */
};
