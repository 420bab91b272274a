/* Passage — the normalization op family (TVM src/relay/op/nn/nn.cc):
 * nn.batch_norm (inference: the moving statistics), nn.layer_norm,
 * nn.instance_norm, nn.group_norm, nn.l2_normalize and nn.lrn. Statistics are
 * computed in double, two-pass (mean, then the mean squared deviation), in
 * row-major order: deterministic and stable. */
#include <math.h>
#include "ops/kernel_util.h"

static const char *opname(const psgi_op_call *call) { return psgi_op_table[call->op].name; }

static psg_status check_nargs(psgi_op_call *call, size_t nargs, size_t want) {
  if (nargs == want) return PSG_OK;
  return psgi_op_fail(call, PSG_ERR_TYPE, "%s takes %zu arguments, %zu given", opname(call), want, nargs);
}

/* A per-channel parameter must be 1-D of the channel extent and the data's
 * dtype (TVM assigns TensorType({data.shape[axis]}, data.dtype) to it). */
static psg_status check_param(psgi_op_call *call, const psg_type *const *args, size_t i, const char *name,
                              const psg_type *data, int axis) {
  const psg_type *p;
  psg_status st = psgi_rel_tensor_arg(call, args, i, &p);
  if (st) return st;
  int64_t c = data->dims[axis];
  bool ok = p->n == 1 && (p->dims[0] == c || p->dims[0] == PSG_DIM_UNKNOWN || c == PSG_DIM_UNKNOWN);
  if (!ok) {
    char b[128];
    if (c == PSG_DIM_UNKNOWN)
      return psgi_op_fail(call, PSG_ERR_TYPE, "%s: %s has shape %s but must be 1-D", opname(call), name,
                          psgi_shape_str(p, b, sizeof b));
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: %s has shape %s but channel axis %d has %lld", opname(call), name,
                        psgi_shape_str(p, b, sizeof b), axis, (long long)c);
  }
  if (p->dtype != data->dtype)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: %s has dtype %s but the data has %s", opname(call), name,
                        psg_dtype_name(p->dtype), psg_dtype_name(data->dtype));
  return PSG_OK;
}

static psg_status norm_axis(psgi_op_call *call, const psg_type *data, int64_t dflt, int *axis) {
  int64_t a = psgi_attr_int(call->attrs, "axis", dflt);
  int64_t n = a < 0 ? a + data->n : a;
  if (n < 0 || n >= data->n)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: axis %lld is out of range for rank %d", opname(call),
                        (long long)a, data->n);
  *axis = (int)n;
  return PSG_OK;
}

/* Relations ------------------------------------------------------------------ */

static psg_status batch_norm_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                 const psg_type **out) {
  *out = NULL;
  const psg_type *data, *vec, *fields[3];
  int axis = 0;
  static const char *const names[] = {"gamma", "beta", "moving_mean", "moving_var"};
  psg_status st = check_nargs(call, nargs, 5);
  if (!st) st = psgi_rel_tensor_arg(call, args, 0, &data);
  if (!st) st = norm_axis(call, data, 1, &axis);
  for (size_t i = 1; i < 5 && !st; i++) st = check_param(call, args, i, names[i - 1], data, axis);
  if (!st) st = psgi_rel_make(call, &data->dims[axis], 1, data->dtype, &vec);
  if (st) return st;
  fields[0] = data;
  fields[1] = fields[2] = vec;
  return psg_type_tuple(call->ctx, fields, 3, out);
}

/* layer_norm, instance_norm, group_norm: (data, gamma, beta) -> data's type. */
static psg_status affine_norm_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                  const psg_type **out) {
  *out = NULL;
  const psg_type *data;
  int axis = 0;
  bool layer = !strcmp(opname(call), "nn.layer_norm");
  psg_status st = check_nargs(call, nargs, 3);
  if (!st) st = psgi_rel_tensor_arg(call, args, 0, &data);
  if (st) return st;
  if (!strcmp(opname(call), "nn.instance_norm") && data->n <= 2)
    return psgi_op_fail(call, PSG_ERR_TYPE, "nn.instance_norm: the data must have rank > 2, not %d", data->n);
  if ((st = norm_axis(call, data, layer ? -1 : 1, &axis))) return st;
  if (!strcmp(opname(call), "nn.group_norm")) {
    int64_t g = psgi_attr_int(call->attrs, "num_groups", 0), c = data->dims[axis];
    if (g <= 0) return psgi_op_fail(call, PSG_ERR_TYPE, "nn.group_norm: num_groups must be positive, not %lld",
                                    (long long)g);
    if (c != PSG_DIM_UNKNOWN && c % g)
      return psgi_op_fail(call, PSG_ERR_TYPE, "nn.group_norm: %lld channels do not split into %lld groups",
                          (long long)c, (long long)g);
  }
  if (!(st = check_param(call, args, 1, "gamma", data, axis))) st = check_param(call, args, 2, "beta", data, axis);
  if (!st) *out = data;
  return st;
}

static psg_status identity_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                               const psg_type **out) {
  *out = NULL;
  const psg_type *data;
  psg_status st = check_nargs(call, nargs, 1);
  if (!st) st = psgi_rel_tensor_arg(call, args, 0, &data);
  if (st) return st;
  /* IdentityRel in TVM; the attributes are checked here so that a bad axis
   * is a type error rather than a kernel failure. */
  if (!strcmp(opname(call), "nn.lrn")) {
    int axis;
    if ((st = norm_axis(call, data, 1, &axis))) return st;
    if (psgi_attr_int(call->attrs, "size", 5) <= 0)
      return psgi_op_fail(call, PSG_ERR_TYPE, "nn.lrn: size must be positive");
  } else {
    int64_t axes[PSG_MAX_RANK];
    int n = psgi_attr_ints(call->attrs, "axis", axes, PSG_MAX_RANK);
    psg_attr *a = call->attrs ? psg_attrs_get(call->attrs, "axis") : NULL;
    if (n < 0 && a && psg_attr_kind(a) != PSG_ATTR_NONE)
      return psgi_op_fail(call, PSG_ERR_TYPE, "nn.l2_normalize: axis must be a list of ints");
    for (int k = 0; k < n; k++)
      if (axes[k] < -data->n || axes[k] >= data->n)
        return psgi_op_fail(call, PSG_ERR_TYPE, "nn.l2_normalize: axis %lld is out of range for rank %d",
                            (long long)axes[k], data->n);
  }
  *out = data;
  return PSG_OK;
}

/* Kernels --------------------------------------------------------------------
 * The statistics kernels see the data through a "view" shape (the data's own,
 * or for group_norm the channel axis split into (groups, channels/group)):
 * `kept[i]` says which view axes index a statistic (the others are reduced),
 * `chan[i]` which index gamma and beta. A broadcasting iterator over the view
 * with a stats operand (reduced axes stretched) and a parameter operand
 * (non-channel axes stretched) gives all three offsets at once. */
typedef struct norm_view {
  int n;
  int64_t dims[PSG_MAX_RANK];
  bool kept[PSG_MAX_RANK], chan[PSG_MAX_RANK];
} norm_view;

static psg_status view_types(psgi_op_call *call, const norm_view *v, int dtype, const psg_type *ts[3]) {
  int64_t sd[PSG_MAX_RANK], pd[PSG_MAX_RANK];
  for (int i = 0; i < v->n; i++) {
    sd[i] = v->kept[i] ? v->dims[i] : 1;
    pd[i] = v->chan[i] ? v->dims[i] : 1;
  }
  psg_status st = psgi_rel_make(call, v->dims, v->n, dtype, &ts[0]);
  if (!st) st = psgi_rel_make(call, sd, v->n, dtype, &ts[1]);
  if (!st) st = psgi_rel_make(call, pd, v->n, dtype, &ts[2]);
  return st;
}

/* out = (x - mean) / sqrt(var + eps) * gamma + beta over the view; gamma and
 * beta may be NULL (scale/center off). */
static psg_status stats_norm(psgi_op_call *call, const norm_view *v, const psg_tensor *x, const psg_tensor *gamma,
                             const psg_tensor *beta, double eps, const psg_type *out_type, psgi_value **out) {
  const psg_type *ts[3];
  psg_status st = view_types(call, v, x->dtype, ts);
  if (st) return st;
  int64_t nstat = psgi_numel(ts[1]->dims, v->n);
  double *mean = psgi_calloc(call->ctx, (size_t)(nstat ? nstat : 1) * 2 * sizeof *mean);
  if (!mean) return psgi_nomem(call->ctx);
  double *var = mean + nstat;
  int64_t per = nstat ? psgi_numel(v->dims, v->n) / nstat : 0;
  psgi_bcast_iter it;
  for (int pass = 0; pass < 2; pass++) {
    psgi_bcast_init(&it, v->dims, v->n, ts, 3);
    if (it.numel) do {
      double d = psgi_load_f(x->dtype, x->data, (size_t)it.off[0]);
      if (pass == 0) mean[it.off[1]] += d;
      else var[it.off[1]] += (d - mean[it.off[1]]) * (d - mean[it.off[1]]);
    } while (psgi_bcast_next(&it));
    for (int64_t k = 0; k < nstat; k++) {
      if (pass == 0) mean[k] /= (double)per;
      else var[k] /= (double)per;
    }
  }
  psg_tensor *t;
  void *o;
  if (!(st = psgi_kernel_alloc(call, out_type, &t, &o))) {
    psgi_bcast_init(&it, v->dims, v->n, ts, 3);
    if (it.numel) do {
      double d = psgi_load_f(x->dtype, x->data, (size_t)it.off[0]);
      double r = (d - mean[it.off[1]]) / sqrt(var[it.off[1]] + eps);
      if (gamma) r *= psgi_load_f(gamma->dtype, gamma->data, (size_t)it.off[2]);
      if (beta) r += psgi_load_f(beta->dtype, beta->data, (size_t)it.off[2]);
      psgi_store_f(out_type->dtype, o, (size_t)it.out_off, r);
    } while (psgi_bcast_next(&it));
    st = psgi_kernel_result(call, t, out);
  }
  psgi_free(call->ctx, mean);
  return st;
}

static void view_of(norm_view *v, const psg_tensor *x) {
  v->n = x->ndim;
  for (int i = 0; i < x->ndim; i++) v->dims[i] = x->shape[i], v->kept[i] = v->chan[i] = false;
}

static psg_status affine_norm_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                     const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  *out = NULL;
  const psg_tensor *x = psgi_value_as_tensor(args[0]);
  const char *op = opname(call);
  bool layer = !strcmp(op, "nn.layer_norm"), group = !strcmp(op, "nn.group_norm");
  int64_t a = psgi_attr_int(call->attrs, "axis", layer ? -1 : 1);
  int axis = (int)(a < 0 ? a + x->ndim : a);
  norm_view v;
  view_of(&v, x);
  if (layer) {
    /* TVM's layer_norm normalizes over the one axis `axis`. */
    for (int i = 0; i < v.n; i++) v.kept[i] = i != axis;
    v.chan[axis] = true;
  } else if (!group) { /* instance_norm: over every axis but the batch and the channel */
    v.kept[0] = v.kept[axis] = true;
    v.chan[axis] = true;
  } else { /* group_norm: split C into (G, C/G); reduce it and every axis after */
    int64_t g = psgi_attr_int(call->attrs, "num_groups", 1);
    if (x->ndim + 1 > PSG_MAX_RANK)
      return psgi_op_fail(call, PSG_ERR_UNSUPPORTED, "nn.group_norm: rank %d is too large", x->ndim);
    v.n = x->ndim + 1;
    for (int i = 0; i < v.n; i++) {
      int src = i <= axis ? i : i - 1;
      v.dims[i] = i == axis ? g : i == axis + 1 ? x->shape[axis] / g : x->shape[src];
      v.kept[i] = i <= axis;
      v.chan[i] = i == axis || i == axis + 1;
    }
  }
  bool center = psgi_attr_bool(call->attrs, "center", true), scale = psgi_attr_bool(call->attrs, "scale", true);
  return stats_norm(call, &v, x, scale ? psgi_value_as_tensor(args[1]) : NULL,
                    center ? psgi_value_as_tensor(args[2]) : NULL, psgi_attr_float(call->attrs, "epsilon", 1e-5),
                    out_type, out);
}

static psg_status batch_norm_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                    const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  *out = NULL;
  const psg_tensor *x = psgi_value_as_tensor(args[0]), *gamma = psgi_value_as_tensor(args[1]),
                   *beta = psgi_value_as_tensor(args[2]), *mean = psgi_value_as_tensor(args[3]),
                   *var = psgi_value_as_tensor(args[4]);
  int64_t a = psgi_attr_int(call->attrs, "axis", 1);
  int axis = (int)(a < 0 ? a + x->ndim : a);
  double eps = psgi_attr_float(call->attrs, "epsilon", 1e-5);
  bool center = psgi_attr_bool(call->attrs, "center", true), scale = psgi_attr_bool(call->attrs, "scale", true);
  const psg_type *dt = out_type->fields[0];
  int64_t inner = psgi_numel(x->shape + axis + 1, x->ndim - axis - 1), c = x->shape[axis];
  psg_tensor *t;
  void *o;
  psg_status st = psgi_kernel_alloc(call, dt, &t, &o);
  if (st) return st;
  int64_t numel = psgi_numel(x->shape, x->ndim);
  for (int64_t i = 0; i < numel; i++) {
    size_t ch = (size_t)((i / inner) % c);
    double r = (psgi_load_f(x->dtype, x->data, (size_t)i) - psgi_load_f(mean->dtype, mean->data, ch)) /
               sqrt(psgi_load_f(var->dtype, var->data, ch) + eps);
    if (scale) r *= psgi_load_f(gamma->dtype, gamma->data, ch);
    if (center) r += psgi_load_f(beta->dtype, beta->data, ch);
    psgi_store_f(dt->dtype, o, (size_t)i, r);
  }
  /* Inference: the statistics returned are the moving ones, unchanged. */
  psgi_value *items[3] = {NULL, args[3], args[4]};
  if ((st = psgi_kernel_result(call, t, &items[0]))) return st;
  st = psgi_value_tuple(call->ctx, items, 3, out);
  psgi_value_release(items[0]);
  return st;
}

static psg_status l2_normalize_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                      const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  *out = NULL;
  const psg_tensor *x = psgi_value_as_tensor(args[0]);
  norm_view v;
  view_of(&v, x);
  int64_t axes[PSG_MAX_RANK];
  psg_attr *aa = call->attrs ? psg_attrs_get(call->attrs, "axis") : NULL;
  int n = aa && psg_attr_kind(aa) != PSG_ATTR_NONE ? psgi_attr_ints(call->attrs, "axis", axes, PSG_MAX_RANK) : -1;
  /* None reduces every axis; an explicit [] none (topi's sum over no axis). */
  for (int i = 0; i < v.n; i++) v.kept[i] = n >= 0;
  for (int k = 0; k < n; k++) v.kept[axes[k] < 0 ? axes[k] + v.n : axes[k]] = false;
  const psg_type *ts[3];
  psg_status st = view_types(call, &v, x->dtype, ts);
  if (st) return st;
  int64_t nstat = psgi_numel(ts[1]->dims, v.n);
  double *ss = psgi_calloc(call->ctx, (size_t)(nstat ? nstat : 1) * sizeof *ss);
  if (!ss) return psgi_nomem(call->ctx);
  double eps = psgi_attr_float(call->attrs, "eps", 0);
  psgi_bcast_iter it;
  psgi_bcast_init(&it, v.dims, v.n, ts, 2);
  if (it.numel) do {
    double d = psgi_load_f(x->dtype, x->data, (size_t)it.off[0]);
    ss[it.off[1]] += d * d;
  } while (psgi_bcast_next(&it));
  psg_tensor *t;
  void *o;
  if (!(st = psgi_kernel_alloc(call, out_type, &t, &o))) {
    psgi_bcast_init(&it, v.dims, v.n, ts, 2);
    if (it.numel) do {
      double d = psgi_load_f(x->dtype, x->data, (size_t)it.off[0]);
      psgi_store_f(out_type->dtype, o, (size_t)it.out_off, d / sqrt(fmax(ss[it.off[1]], eps)));
    } while (psgi_bcast_next(&it));
    st = psgi_kernel_result(call, t, out);
  }
  psgi_free(call->ctx, ss);
  return st;
}

/* topi.nn.lrn: x / (bias + alpha * sum(x^2 over the window) / size)^beta, the
 * window [c - size/2, c - size/2 + size) along `axis`, zero outside. */
static psg_status lrn_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                             psgi_value **out) {
  (void)nargs;
  *out = NULL;
  const psg_tensor *x = psgi_value_as_tensor(args[0]);
  int64_t a = psgi_attr_int(call->attrs, "axis", 1), size = psgi_attr_int(call->attrs, "size", 5);
  int axis = (int)(a < 0 ? a + x->ndim : a);
  double bias = psgi_attr_float(call->attrs, "bias", 2), alpha = psgi_attr_float(call->attrs, "alpha", 1e-4),
         beta = psgi_attr_float(call->attrs, "beta", 0.75);
  int64_t inner = psgi_numel(x->shape + axis + 1, x->ndim - axis - 1), c = x->shape[axis];
  psg_tensor *t;
  void *o;
  psg_status st = psgi_kernel_alloc(call, out_type, &t, &o);
  if (st) return st;
  int64_t numel = psgi_numel(x->shape, x->ndim);
  for (int64_t i = 0; i < numel; i++) {
    int64_t ch = (i / inner) % c, base = i - ch * inner, lo = ch - size / 2;
    double sq = 0;
    for (int64_t k = lo < 0 ? 0 : lo; k < lo + size && k < c; k++) {
      double d = psgi_load_f(x->dtype, x->data, (size_t)(base + k * inner));
      sq += d * d;
    }
    double d = psgi_load_f(x->dtype, x->data, (size_t)i);
    psgi_store_f(out_type->dtype, o, (size_t)i, d / pow(bias + alpha * sq / (double)size, beta));
  }
  return psgi_kernel_result(call, t, out);
}

/* Patterns as TVM registers them: batch_norm and l2_normalize
 * out-elemwise-fusable, lrn opaque, and the three without a TOpPattern
 * (layer/instance/group norm) opaque by default. */
const psgi_op_impl psgi_impls_norm[] = {
    {"nn.batch_norm", batch_norm_rel, batch_norm_kernel, false, PSGI_PATTERN_OUT_ELEMWISE_FUSABLE},
    {"nn.layer_norm", affine_norm_rel, affine_norm_kernel, false, PSGI_PATTERN_OPAQUE},
    {"nn.instance_norm", affine_norm_rel, affine_norm_kernel, false, PSGI_PATTERN_OPAQUE},
    {"nn.group_norm", affine_norm_rel, affine_norm_kernel, false, PSGI_PATTERN_OPAQUE},
    {"nn.l2_normalize", identity_rel, l2_normalize_kernel, false, PSGI_PATTERN_OUT_ELEMWISE_FUSABLE},
    {"nn.lrn", identity_rel, lrn_kernel, false, PSGI_PATTERN_OPAQUE},
    {NULL, NULL, NULL, false, 0},
};
