/* Passage — the reduction op family (TVM src/relay/op/tensor/reduce.cc):
 * sum, mean, max, min, prod, argmax, argmin with TVM's ReduceRel/ArgReduceRel
 * axis rules (None or [] = every axis, negative axes, keepdims, exclude).
 * Float reductions accumulate in double, in row-major order over the reduced
 * axes, and round once when stored: deterministic, and within 1e-5 relative of
 * ONNX Runtime's float accumulation. Integers accumulate in int64 (wrapping). */
#include <math.h>
#include "ops/spatial.h"

enum { R_SUM, R_MEAN, R_MAX, R_MIN, R_PROD, R_ARGMAX, R_ARGMIN };

static int reduce_kind(const psgi_op_call *call) {
  const char *n = psgi_op_table[call->op].name;
  static const char *const names[] = {"sum", "mean", "max", "min", "prod", "argmax", "argmin"};
  for (int k = 0; k < 7; k++)
    if (!strcmp(n, names[k])) return k;
  return R_SUM;
}

/* Which axes of a rank-`ndim` input are reduced (GetReduceAxes). */
static psg_status reduce_axes(psgi_op_call *call, int ndim, bool *red) {
  const char *op = psgi_op_table[call->op].name;
  psg_attr *a = call->attrs ? psg_attrs_get(call->attrs, "axis") : NULL;
  int64_t axes[PSG_MAX_RANK];
  int n = 0;
  if (a && psg_attr_kind(a) != PSG_ATTR_NONE) {
    n = psgi_attr_ints(call->attrs, "axis", axes, PSG_MAX_RANK);
    if (n < 0) return psgi_op_fail(call, PSG_ERR_TYPE, "%s: axis must be an int or a list of ints", op);
  }
  bool exclude = psgi_attr_bool(call->attrs, "exclude", false);
  for (int i = 0; i < ndim; i++) red[i] = n == 0;
  if (n == 0) return PSG_OK; /* None and [] both mean every axis, as TVM */
  bool seen[PSG_MAX_RANK] = {0};
  for (int k = 0; k < n; k++) {
    int64_t ax = axes[k] < 0 ? axes[k] + ndim : axes[k];
    if (ax < 0 || ax >= ndim)
      return psgi_op_fail(call, PSG_ERR_TYPE, "%s: axis %lld is out of bounds for an input of rank %d", op,
                          (long long)axes[k], ndim);
    if (seen[ax]) return psgi_op_fail(call, PSG_ERR_TYPE, "%s: axis %lld is given twice", op, (long long)ax);
    seen[ax] = true;
  }
  for (int i = 0; i < ndim; i++) red[i] = seen[i] != exclude;
  return PSG_OK;
}

static psg_status reduce_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  *out = NULL;
  const char *op = psgi_op_table[call->op].name;
  if (nargs != 1) return psgi_op_fail(call, PSG_ERR_TYPE, "%s takes 1 argument, %zu given", op, nargs);
  const psg_type *t;
  bool red[PSG_MAX_RANK];
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &t);
  if (!st) st = reduce_axes(call, t->n, red);
  if (st) return st;
  int kind = reduce_kind(call);
  if (kind == R_ARGMAX || kind == R_ARGMIN) {
    /* The index is int32: the reduced extent must fit (ReduceShapeImpl). */
    double extent = 1;
    for (int i = 0; i < t->n; i++)
      if (red[i] && t->dims[i] != PSG_DIM_UNKNOWN) extent *= (double)t->dims[i];
    if (extent >= 2147483647.0)
      return psgi_op_fail(call, PSG_ERR_TYPE, "%s: the reduced extent %.0f does not fit the int32 index", op,
                          extent);
  }
  bool keepdims = psgi_attr_bool(call->attrs, "keepdims", false);
  int64_t dims[PSG_MAX_RANK];
  int n = 0;
  for (int i = 0; i < t->n; i++) {
    if (!red[i]) dims[n++] = t->dims[i];
    else if (keepdims) dims[n++] = 1;
  }
  int dtype = kind == R_ARGMAX || kind == R_ARGMIN ? PSG_DTYPE_INT32 : t->dtype;
  return psgi_rel_make(call, dims, n, dtype, out);
}

/* Kept and reduced axes of the input with their extents and strides: the
 * kernel walks the output in row-major order (the kept axes, as the output
 * stores them whether or not keepdims) and, for each output element, the
 * reduced axes in row-major order. */
typedef struct reduce_walk {
  int nk, nr;
  int64_t kdim[PSG_MAX_RANK], kstride[PSG_MAX_RANK];
  int64_t rdim[PSG_MAX_RANK], rstride[PSG_MAX_RANK];
  int64_t rcount; /* elements per output element */
} reduce_walk;

static void walk_init(reduce_walk *w, const psg_tensor *in, const bool *red) {
  int64_t strides[PSG_MAX_RANK];
  psgi_row_strides(in->shape, in->ndim, strides);
  w->nk = w->nr = 0;
  w->rcount = 1;
  for (int i = 0; i < in->ndim; i++) {
    if (red[i]) {
      w->rdim[w->nr] = in->shape[i];
      w->rstride[w->nr++] = strides[i];
      w->rcount *= in->shape[i];
    } else {
      w->kdim[w->nk] = in->shape[i];
      w->kstride[w->nk++] = strides[i];
    }
  }
}

/* Advances an odometer over dims[0..n) and the matching offset; false after
 * the last index. */
static bool odo_next(int n, const int64_t *dims, const int64_t *strides, int64_t *idx, int64_t *off) {
  for (int i = n - 1; i >= 0; i--) {
    *off += strides[i];
    if (++idx[i] < dims[i]) return true;
    *off -= strides[i] * dims[i];
    idx[i] = 0;
  }
  return false;
}

static int64_t int_extreme(int dtype, bool highest) {
  if (dtype == PSG_DTYPE_INT64) return highest ? INT64_MAX : INT64_MIN;
  if (dtype == PSG_DTYPE_UINT64) return highest ? -1 : 0; /* all ones, as stored */
  return (int64_t)(highest ? psgi_dtype_highest(dtype) : psgi_dtype_lowest(dtype));
}

static psg_status reduce_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                                psgi_value **out) {
  (void)nargs;
  *out = NULL;
  const psg_tensor *in = psgi_value_as_tensor(args[0]);
  bool red[PSG_MAX_RANK];
  psg_status st = reduce_axes(call, in->ndim, red);
  if (st) return st;
  int kind = reduce_kind(call);
  const char *op = psgi_op_table[call->op].name;
  reduce_walk w;
  walk_init(&w, in, red);
  bool is_arg = kind == R_ARGMAX || kind == R_ARGMIN;
  bool fl = psg_dtype_is_float(in->dtype);
  if (w.rcount == 0 && is_arg && psgi_numel(w.kdim, w.nk) > 0)
    return psgi_op_fail(call, PSG_ERR_INVALID_ARGUMENT, "%s over an empty extent has no index", op);
  if (w.rcount == 0 && kind == R_MEAN && !fl && psgi_numel(w.kdim, w.nk) > 0)
    return psgi_op_fail(call, PSG_ERR_INVALID_ARGUMENT, "integer mean over an empty extent divides by zero");
  psg_tensor *t;
  void *o;
  if ((st = psgi_kernel_alloc(call, out_type, &t, &o))) return st;
  bool last = psgi_attr_bool(call->attrs, "select_last_index", false);
  int64_t numel = psgi_numel(w.kdim, w.nk);
  int64_t kidx[PSG_MAX_RANK] = {0}, ridx[PSG_MAX_RANK], base = 0;
  const void *d = in->data;
  for (int64_t oi = 0; oi < numel; oi++) {
    memset(ridx, 0, sizeof ridx);
    int64_t off = base, pos = 0, best_pos = 0;
    double facc = kind == R_PROD ? 1 : kind == R_MAX || kind == R_ARGMAX ? -INFINITY : INFINITY;
    uint64_t iacc = kind == R_PROD ? 1 : 0;
    int64_t ibest = 0;
    if (kind == R_SUM || kind == R_MEAN) facc = 0;
    /* An empty max/min gives TVM's init value, the dtype's extreme. */
    if (kind == R_MAX) facc = psgi_dtype_lowest(in->dtype), ibest = fl ? 0 : int_extreme(in->dtype, false);
    if (kind == R_MIN) facc = psgi_dtype_highest(in->dtype), ibest = fl ? 0 : int_extreme(in->dtype, true);
    if (w.rcount) do {
      if (fl) {
        double v = psgi_load_f(in->dtype, d, (size_t)off);
        switch (kind) {
        case R_SUM: case R_MEAN: facc += v; break;
        case R_PROD: facc *= v; break;
        /* NaN wins a max/min, as in NumPy and ONNX Runtime. */
        case R_MAX: if (pos == 0 || ((v > facc || isnan(v)) && !isnan(facc))) facc = v; break;
        case R_MIN: if (pos == 0 || ((v < facc || isnan(v)) && !isnan(facc))) facc = v; break;
        case R_ARGMAX: case R_ARGMIN: {
          bool better = pos == 0 || isnan(v) || (kind == R_ARGMAX ? v > facc : v < facc) || (last && v == facc);
          if (better && !isnan(facc)) facc = v, best_pos = pos;
          break;
        }
        }
      } else {
        int64_t v = psgi_load_i(in->dtype, d, (size_t)off);
        switch (kind) {
        case R_SUM: case R_MEAN: iacc += (uint64_t)v; break;
        case R_PROD: iacc *= (uint64_t)v; break;
        case R_MAX: if (pos == 0 || v > ibest) ibest = v; break;
        case R_MIN: if (pos == 0 || v < ibest) ibest = v; break;
        case R_ARGMAX: case R_ARGMIN: {
          bool better = pos == 0 || (kind == R_ARGMAX ? v > ibest : v < ibest) || (last && v == ibest);
          if (better) ibest = v, best_pos = pos;
          break;
        }
        }
      }
      pos++;
    } while (odo_next(w.nr, w.rdim, w.rstride, ridx, &off));
    if (is_arg) {
      psgi_store_i(PSG_DTYPE_INT32, o, (size_t)oi, best_pos);
    } else if (fl) {
      psgi_store_f(out_type->dtype, o, (size_t)oi, kind == R_MEAN ? facc / (double)w.rcount : facc);
    } else if (kind == R_MAX || kind == R_MIN) {
      psgi_store_i(out_type->dtype, o, (size_t)oi, ibest);
    } else {
      int64_t v = (int64_t)iacc;
      if (kind == R_MEAN) v /= w.rcount; /* truncating, as TVM's integer divide of the sum */
      psgi_store_i(out_type->dtype, o, (size_t)oi, v);
    }
    odo_next(w.nk, w.kdim, w.kstride, kidx, &base);
  }
  return psgi_kernel_result(call, t, out);
}

const psgi_op_impl psgi_impls_reduce[] = {
    {"sum", reduce_rel, reduce_kernel, false, PSGI_PATTERN_COMM_REDUCE},
    {"mean", reduce_rel, reduce_kernel, false, PSGI_PATTERN_COMM_REDUCE},
    {"max", reduce_rel, reduce_kernel, false, PSGI_PATTERN_COMM_REDUCE},
    {"min", reduce_rel, reduce_kernel, false, PSGI_PATTERN_COMM_REDUCE},
    {"prod", reduce_rel, reduce_kernel, false, PSGI_PATTERN_COMM_REDUCE},
    {"argmax", reduce_rel, reduce_kernel, false, PSGI_PATTERN_COMM_REDUCE},
    {"argmin", reduce_rel, reduce_kernel, false, PSGI_PATTERN_COMM_REDUCE},
    {NULL, NULL, NULL, false, 0},
};
