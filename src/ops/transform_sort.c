/* Passage — argsort and topk (TVM's ArgsortRel and TopKRel in
 * src/relay/op/algorithm/). Both sort every lane along the axis with a stable
 * merge sort, so equal values keep their original order, as TVM's
 * std::stable_sort does; NaN sorts above every number. */
#include <stdio.h>
#include "ops/transform.h"

/* One lane's values: integers are compared as integers so that int64 stays
 * exact. */
typedef struct lane {
  bool is_float;
  const double *f;
  const int64_t *i;
} lane;

/* a < b in the order NaN > +inf. */
static bool less(const lane *l, int64_t a, int64_t b) {
  if (!l->is_float) return l->i[a] < l->i[b];
  double x = l->f[a], y = l->f[b];
  if (y != y) return x == x;
  return x < y;
}

/* Whether b must come before a (strictly), for the requested direction. */
static bool before(const lane *l, bool ascend, int64_t b, int64_t a) { return ascend ? less(l, b, a) : less(l, a, b); }

/* Bottom-up stable merge sort of the positions 0..n-1 into `order`. */
static void sort_lane(const lane *l, bool ascend, int64_t n, int64_t *order, int64_t *tmp) {
  for (int64_t i = 0; i < n; i++) order[i] = i;
  for (int64_t w = 1; w < n; w *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * w) {
      int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, a = lo, b = mid, k = lo;
      while (a < mid && b < hi) tmp[k++] = before(l, ascend, order[b], order[a]) ? order[b++] : order[a++];
      while (a < mid) tmp[k++] = order[a++];
      while (b < hi) tmp[k++] = order[b++];
    }
    memcpy(order, tmp, (size_t)n * sizeof *order);
  }
}

typedef struct sort_params {
  int axis, dtype;
  bool ascend;
  int64_t k; /* topk: elements kept per lane (< 1: all) */
  int ret;   /* topk: RET_BOTH, RET_VALUES or RET_INDICES */
} sort_params;

enum { RET_BOTH, RET_VALUES, RET_INDICES };

static psg_status sort_params_get(psgi_op_call *call, const psg_type *x, bool topk, sort_params *p) {
  psg_status st = psgi_tf_axis(call, psgi_attr_int(call->attrs, "axis", -1), x->n, &p->axis);
  if (st) return st;
  p->dtype = psgi_tf_dtype_attr(call, "dtype", PSG_DTYPE_INT32);
  if (p->dtype == PSG_DTYPE_INVALID)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: unknown dtype '%s'", psgi_tf_name(call),
                        psgi_attr_str(call->attrs, "dtype", ""));
  p->ascend = psgi_attr_bool(call->attrs, "is_ascend", !topk);
  p->k = psgi_attr_int(call->attrs, "k", 1);
  const char *ret = psgi_attr_str(call->attrs, "ret_type", "both");
  p->ret = strcmp(ret, "both") == 0      ? RET_BOTH
           : strcmp(ret, "values") == 0  ? RET_VALUES
           : strcmp(ret, "indices") == 0 ? RET_INDICES
                                         : -1;
  if (topk && p->ret < 0)
    return psgi_op_fail(call, PSG_ERR_TYPE, "topk: ret_type must be \"both\", \"values\" or \"indices\", got \"%s\"",
                        ret);
  int64_t d = x->dims[p->axis];
  if (topk && d != PSG_DIM_UNKNOWN && p->k > d)
    return psgi_op_fail(call, PSG_ERR_TYPE, "topk: k=%lld exceeds the extent %lld of axis %d", (long long)p->k,
                        (long long)d, p->axis);
  return PSG_OK;
}

psg_status psgi_argsort_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *x;
  sort_params p;
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &x);
  if (st || (st = sort_params_get(call, x, false, &p))) return st;
  return psgi_rel_make(call, x->dims, x->n, p.dtype, out);
}

psg_status psgi_topk_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *x, *v, *i;
  sort_params p;
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &x);
  if (st || (st = sort_params_get(call, x, true, &p))) return st;
  int64_t o[PSG_MAX_RANK];
  memcpy(o, x->dims, (size_t)x->n * sizeof *o);
  if (p.k >= 1) o[p.axis] = p.k;
  if ((st = psgi_rel_make(call, o, x->n, x->dtype, &v)) || (st = psgi_rel_make(call, o, x->n, p.dtype, &i))) return st;
  if (p.ret == RET_VALUES)
    *out = v;
  else if (p.ret == RET_INDICES)
    *out = i;
  else {
    const psg_type *f[2] = {v, i};
    st = psg_type_tuple(call->ctx, f, 2, out);
  }
  return st;
}

/* Sorts every lane of x along p->axis and writes the first `keep` positions:
 * the sorted values into vals (if not NULL) and their indices into idxs (if
 * not NULL), both laid out as x with the axis cut to `keep`. */
static psg_status sort_all(psgi_op_call *call, const psg_tensor *x, const sort_params *p, int64_t keep, void *vals,
                           void *idxs) {
  int64_t O = psgi_numel(x->shape, p->axis), A = x->shape[p->axis];
  int64_t Q = psgi_numel(x->shape + p->axis + 1, x->ndim - p->axis - 1);
  size_t esize = psg_dtype_size(x->dtype), n = (size_t)(A ? A : 1);
  lane l = {psg_dtype_is_float(x->dtype), NULL, NULL};
  int64_t *order = psgi_alloc(call->ctx, n * sizeof *order), *tmp = psgi_alloc(call->ctx, n * sizeof *tmp);
  void *keys = psgi_alloc(call->ctx, n * 8);
  psg_status st = PSG_OK;
  if (!order || !tmp || !keys) {
    st = psgi_nomem(call->ctx);
    goto done;
  }
  l.f = keys;
  l.i = keys;
  for (int64_t o = 0; o < O; o++)
    for (int64_t q = 0; q < Q; q++) {
      int64_t base = o * A * Q + q, obase = o * keep * Q + q;
      for (int64_t a = 0; a < A; a++) {
        size_t at = (size_t)(base + a * Q);
        if (l.is_float)
          ((double *)keys)[a] = psgi_load_f(x->dtype, x->data, at);
        else
          ((int64_t *)keys)[a] = psgi_load_i(x->dtype, x->data, at);
      }
      sort_lane(&l, p->ascend, A, order, tmp);
      for (int64_t a = 0; a < keep; a++) {
        size_t to = (size_t)(obase + a * Q);
        if (vals)
          memcpy((char *)vals + to * esize, (const char *)x->data + (size_t)(base + order[a] * Q) * esize, esize);
        if (idxs) psgi_store_i(p->dtype, idxs, to, order[a]);
      }
    }
done:
  psgi_free(call->ctx, order);
  psgi_free(call->ctx, tmp);
  psgi_free(call->ctx, keys);
  return st;
}

psg_status psgi_argsort_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                               psgi_value **out) {
  (void)nargs;
  const psg_tensor *x = psgi_tf_arg(args, 0);
  const psg_type *xt = psgi_value_type(call->ctx, args[0]);
  sort_params p;
  if (!xt) return psgi_nomem(call->ctx);
  psg_status st = sort_params_get(call, xt, false, &p);
  if (st) return st;
  psg_tensor *t;
  void *data;
  if ((st = psgi_kernel_alloc(call, out_type, &t, &data))) return st;
  if ((st = sort_all(call, x, &p, x->shape[p.axis], NULL, data))) {
    psg_tensor_release(t);
    return st;
  }
  return psgi_kernel_result(call, t, out);
}

psg_status psgi_topk_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                            psgi_value **out) {
  (void)nargs;
  const psg_tensor *x = psgi_tf_arg(args, 0);
  const psg_type *xt = psgi_value_type(call->ctx, args[0]);
  sort_params p;
  if (!xt) return psgi_nomem(call->ctx);
  psg_status st = sort_params_get(call, xt, true, &p);
  if (st) return st;
  const psg_type *vt = p.ret == RET_BOTH ? out_type->fields[0] : out_type;
  const psg_type *it = p.ret == RET_BOTH ? out_type->fields[1] : out_type;
  psg_tensor *v = NULL, *i = NULL;
  void *vd = NULL, *id = NULL;
  psgi_value *items[2] = {NULL, NULL};
  if (p.ret != RET_INDICES && (st = psgi_kernel_alloc(call, vt, &v, &vd))) goto fail;
  if (p.ret != RET_VALUES && (st = psgi_kernel_alloc(call, it, &i, &id))) goto fail;
  if ((st = sort_all(call, x, &p, p.k >= 1 ? p.k : x->shape[p.axis], vd, id))) goto fail;
  if (p.ret == RET_VALUES) return psgi_kernel_result(call, v, out);
  if (p.ret == RET_INDICES) return psgi_kernel_result(call, i, out);
  st = psgi_kernel_result(call, v, &items[0]);
  v = NULL;
  if (st) goto fail;
  st = psgi_kernel_result(call, i, &items[1]);
  i = NULL;
  if (!st) st = psgi_value_tuple(call->ctx, items, 2, out);
fail:
  psg_tensor_release(v);
  psg_tensor_release(i);
  psgi_value_release(items[0]);
  psgi_value_release(items[1]);
  return st;
}
