/* Passage — gathering by index tensors: take (TVM's TakeRel, topi take with
 * modes "clip", "wrap" and "fast", and batch_dims) and gather_nd
 * (GatherNDRel). Each gathered piece is a contiguous row, copied whole. */
#include <stdio.h>
#include "ops/transform.h"

static bool is_int_dtype(int dtype) {
  return dtype != PSG_DTYPE_BOOL && !psg_dtype_is_float(dtype) && dtype != PSG_DTYPE_INVALID;
}

static psg_status index_arg(psgi_op_call *call, const psg_type *const *args, const psg_type **x, const psg_type **idx) {
  psg_status st = psgi_rel_tensor_arg(call, args, 0, x);
  if (st || (st = psgi_rel_tensor_arg(call, args, 1, idx))) return st;
  if (!is_int_dtype((*idx)->dtype))
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: indices must be integers, got %s", psgi_tf_name(call),
                        psg_dtype_name((*idx)->dtype));
  return PSG_OK;
}

/* The leading `n` dims of two shapes agree (unknown matches anything). */
static bool same_lead(const int64_t *a, const int64_t *b, int n) {
  for (int i = 0; i < n; i++)
    if (a[i] != b[i] && a[i] != PSG_DIM_UNKNOWN && b[i] != PSG_DIM_UNKNOWN) return false;
  return true;
}

/* take ----------------------------------------------------------------------------- */

enum { MODE_CLIP, MODE_WRAP, MODE_FAST };

typedef struct take_params {
  bool flat; /* axis None: index the flattened data */
  int axis, batch_dims, mode;
} take_params;

static psg_status take_params_get(psgi_op_call *call, const psg_type *x, const psg_type *idx, take_params *p) {
  const char *mode = psgi_attr_str(call->attrs, "mode", "clip");
  p->mode = strcmp(mode, "clip") == 0   ? MODE_CLIP
            : strcmp(mode, "wrap") == 0 ? MODE_WRAP
            : strcmp(mode, "fast") == 0 ? MODE_FAST
                                        : -1;
  if (p->mode < 0)
    return psgi_op_fail(call, PSG_ERR_TYPE, "take: mode must be \"clip\", \"wrap\" or \"fast\", got \"%s\"", mode);
  p->flat = psgi_tf_attr_is_none(call, "axis");
  p->axis = p->batch_dims = 0;
  if (p->flat) return PSG_OK;
  psg_status st = psgi_tf_axis(call, psgi_attr_int(call->attrs, "axis", 0), x->n, &p->axis);
  if (st) return st;
  int64_t bd = psgi_attr_int(call->attrs, "batch_dims", 0);
  if (bd < 0) bd += idx->n;
  if (bd < 0 || bd > idx->n || bd > p->axis)
    return psgi_op_fail(call, PSG_ERR_TYPE,
                        "take: batch_dims %lld must be within the indices rank %d and at most axis %d",
                        (long long)psgi_attr_int(call->attrs, "batch_dims", 0), idx->n, p->axis);
  p->batch_dims = (int)bd;
  if (!same_lead(x->dims, idx->dims, p->batch_dims)) {
    char a[256], b[256];
    return psgi_op_fail(call, PSG_ERR_TYPE, "take: the %d batch dims of data %s and indices %s differ", p->batch_dims,
                        psgi_shape_str(x, a, sizeof a), psgi_shape_str(idx, b, sizeof b));
  }
  return PSG_OK;
}

psg_status psgi_take_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *x, *idx;
  take_params p;
  psg_status st = index_arg(call, args, &x, &idx);
  if (st || (st = take_params_get(call, x, idx, &p))) return st;
  if (p.flat) return psgi_rel_make(call, idx->dims, idx->n, x->dtype, out);
  int64_t o[PSG_MAX_RANK];
  int no = 0;
  if (x->n - 1 + idx->n - p.batch_dims > PSG_MAX_RANK)
    return psgi_op_fail(call, PSG_ERR_TYPE, "take: the result would have rank above %d", PSG_MAX_RANK);
  for (int i = 0; i < p.axis; i++) o[no++] = x->dims[i];
  for (int i = p.batch_dims; i < idx->n; i++) o[no++] = idx->dims[i];
  for (int i = p.axis + 1; i < x->n; i++) o[no++] = x->dims[i];
  return psgi_rel_make(call, o, no, x->dtype, out);
}

/* The index actually read for `v` on an axis of extent n, or -1 when out of
 * range in "fast" mode (TVM reads out of bounds there; we refuse). */
static int64_t fix_index(int mode, int64_t v, int64_t n) {
  switch (mode) {
  case MODE_CLIP: return v < 0 ? 0 : v >= n ? n - 1 : v;
  case MODE_WRAP: return ((v % n) + n) % n;
  default: return v < 0 || v >= n ? -1 : v;
  }
}

psg_status psgi_take_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                            psgi_value **out) {
  (void)nargs;
  const psg_tensor *x = psgi_tf_arg(args, 0), *idx = psgi_tf_arg(args, 1);
  const psg_type *xt = psgi_value_type(call->ctx, args[0]), *it = psgi_value_type(call->ctx, args[1]);
  take_params p;
  if (!xt || !it) return psgi_nomem(call->ctx);
  psg_status st = take_params_get(call, xt, it, &p);
  if (st) return st;
  /* data as (B, P, A, Q), indices as (B, I), out as (B, P, I, Q) */
  int64_t B = 1, P = 1, A, I = 1, Q = 1;
  if (p.flat) {
    A = psgi_numel(x->shape, x->ndim);
    I = psgi_numel(idx->shape, idx->ndim);
  } else {
    for (int i = 0; i < p.batch_dims; i++) B *= x->shape[i];
    for (int i = p.batch_dims; i < p.axis; i++) P *= x->shape[i];
    A = x->shape[p.axis];
    for (int i = p.batch_dims; i < idx->ndim; i++) I *= idx->shape[i];
    for (int i = p.axis + 1; i < x->ndim; i++) Q *= x->shape[i];
  }
  if (A == 0 && B * I > 0)
    return psgi_op_fail(call, PSG_ERR_INVALID_ARGUMENT, "take: cannot take from an axis of extent 0");
  psg_tensor *t;
  void *data;
  if ((st = psgi_kernel_alloc(call, out_type, &t, &data))) return st;
  size_t esize = psg_dtype_size(x->dtype), row = (size_t)Q * esize;
  if (!row) return psgi_kernel_result(call, t, out); /* empty rows: nothing to read */
  char *dst = data;
  const char *src = x->data;
  for (int64_t b = 0; b < B; b++)
    for (int64_t q = 0; q < P; q++)
      for (int64_t i = 0; i < I; i++) {
        int64_t v = psgi_load_i(idx->dtype, idx->data, (size_t)(b * I + i)), k = fix_index(p.mode, v, A);
        if (k < 0) {
          psg_tensor_release(t);
          return psgi_op_fail(call, PSG_ERR_INVALID_ARGUMENT,
                              "take: index %lld is out of range for extent %lld (mode \"fast\")", (long long)v,
                              (long long)A);
        }
        memcpy(dst + (size_t)(((b * P + q) * I + i) * Q) * esize, src + (size_t)(((b * P + q) * A + k) * Q) * esize,
               row);
      }
  return psgi_kernel_result(call, t, out);
}

/* gather_nd ---------------------------------------------------------------------- */

/* indices (M, Y...) address the M dims of data after batch_dims; the output
 * is Y... followed by the data dims that are not addressed. */
psg_status psgi_gather_nd_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *x, *idx;
  psg_status st = index_arg(call, args, &x, &idx);
  if (st) return st;
  if (idx->n < 1 || idx->dims[0] == PSG_DIM_UNKNOWN)
    return psgi_op_fail(call, PSG_ERR_TYPE, "gather_nd: indices need a known first dim (the index depth)");
  int64_t m = idx->dims[0], bd = psgi_attr_int(call->attrs, "batch_dims", 0);
  int64_t rank = psgi_attr_int(call->attrs, "index_rank", m);
  if (!psgi_tf_attr_is_none(call, "index_rank") && rank != m)
    return psgi_op_fail(call, PSG_ERR_TYPE, "gather_nd: index_rank %lld does not match the first dim %lld of indices",
                        (long long)rank, (long long)m);
  if (bd < 0 || bd > idx->n - 1 || m + bd > x->n)
    return psgi_op_fail(call, PSG_ERR_TYPE,
                        "gather_nd: %lld index dims after %lld batch dims do not fit data of rank %d", (long long)m,
                        (long long)bd, x->n);
  if (!same_lead(x->dims, idx->dims + 1, (int)bd))
    return psgi_op_fail(call, PSG_ERR_TYPE, "gather_nd: the batch dims of data and indices differ");
  int64_t o[PSG_MAX_RANK];
  int no = 0;
  if (idx->n - 1 + x->n - (m + bd) > PSG_MAX_RANK)
    return psgi_op_fail(call, PSG_ERR_TYPE, "gather_nd: the result would have rank above %d", PSG_MAX_RANK);
  for (int i = 1; i < idx->n; i++) o[no++] = idx->dims[i];
  for (int64_t i = m + bd; i < x->n; i++) o[no++] = x->dims[i];
  return psgi_rel_make(call, o, no, x->dtype, out);
}

psg_status psgi_gather_nd_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                                 psgi_value **out) {
  (void)nargs;
  const psg_tensor *x = psgi_tf_arg(args, 0), *idx = psgi_tf_arg(args, 1);
  int m = (int)idx->shape[0], bd = (int)psgi_attr_int(call->attrs, "batch_dims", 0);
  int64_t xs[PSG_MAX_RANK], Y = psgi_numel(idx->shape + 1, idx->ndim - 1);
  int64_t inner_y = psgi_numel(idx->shape + 1 + bd, idx->ndim - 1 - bd); /* Y per batch */
  int64_t T = psgi_numel(x->shape + bd + m, x->ndim - bd - m);           /* elements per row */
  psgi_row_strides(x->shape, x->ndim, xs);
  int64_t batch_stride = bd ? xs[bd - 1] : 0;
  psg_tensor *t;
  void *data;
  psg_status st = psgi_kernel_alloc(call, out_type, &t, &data);
  if (st) return st;
  size_t esize = psg_dtype_size(x->dtype);
  for (int64_t y = 0; y < Y && T > 0; y++) {
    int64_t off = inner_y ? (y / inner_y) * batch_stride : 0;
    for (int j = 0; j < m; j++) {
      int64_t v = psgi_load_i(idx->dtype, idx->data, (size_t)(j * Y + y)), d = x->shape[bd + j];
      if (v < -d || v >= d) {
        psg_tensor_release(t);
        return psgi_op_fail(call, PSG_ERR_INVALID_ARGUMENT, "gather_nd: index %lld is out of range for extent %lld",
                            (long long)v, (long long)d);
      }
      off += (v < 0 ? v + d : v) * xs[bd + j];
    }
    memcpy((char *)data + (size_t)(y * T) * esize, (const char *)x->data + (size_t)off * esize, (size_t)T * esize);
  }
  return psgi_kernel_result(call, t, out);
}
