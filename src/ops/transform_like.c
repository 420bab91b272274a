/* Passage — the *_like ops of TVM v0.19 (src/relay/op/tensor/transform.cc):
 * an op whose result takes its shape or dtype from a second argument
 * (cast_like, reshape_like, broadcast_to_like, collapse_sum_like) and
 * collapse_sum_to, which sums a broadcast value back down to a shape.
 * SimplifyExpr turns each *_like form into the explicit one when the shape
 * is static. Their table is joined into the transform family (op_impl.c). */
#include "ops/elemwise.h"
#include "ops/transform.h"

/* cast_like -------------------------------------------------------------------------- */

static psg_status cast_like_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *x, *like;
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &x);
  if (!st) st = psgi_rel_tensor_arg(call, args, 1, &like);
  return st ? st : psgi_rel_make(call, x->dims, x->n, like->dtype, out);
}

/* reshape_like ----------------------------------------------------------------------- */

/* [begin, end) of a rank-n shape from the attrs (negative: from the end; an
 * absent or None end: n). */
static psg_status dim_range(psgi_op_call *call, const char *bkey, const char *ekey, int n, int *b, int *e) {
  int64_t bv = psgi_attr_int(call->attrs, bkey, 0);
  int64_t ev = psgi_tf_attr_is_none(call, ekey) ? n : psgi_attr_int(call->attrs, ekey, n);
  if (bv < 0) bv += n;
  if (ev < 0) ev += n;
  if (bv < 0 || ev > n || bv > ev)
    return psgi_op_fail(call, PSG_ERR_TYPE, "reshape_like: [%s, %s) is not a range of the %d dims", bkey, ekey, n);
  *b = (int)bv, *e = (int)ev;
  return PSG_OK;
}

static psg_status reshape_like_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                   const psg_type **out) {
  (void)nargs;
  const psg_type *x, *like;
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &x);
  if (!st) st = psgi_rel_tensor_arg(call, args, 1, &like);
  int lb, le, rb, re;
  if (!st) st = dim_range(call, "lhs_begin", "lhs_end", x->n, &lb, &le);
  if (!st) st = dim_range(call, "rhs_begin", "rhs_end", like->n, &rb, &re);
  if (st) return st;
  int64_t dims[PSG_MAX_RANK];
  int n = 0;
  if (lb + (re - rb) + (x->n - le) > PSG_MAX_RANK)
    return psgi_op_fail(call, PSG_ERR_TYPE, "reshape_like: the result has more than %d dims", PSG_MAX_RANK);
  for (int i = 0; i < lb; i++) dims[n++] = x->dims[i];
  for (int i = rb; i < re; i++) dims[n++] = like->dims[i];
  for (int i = le; i < x->n; i++) dims[n++] = x->dims[i];
  if (psg_type_is_static(x)) {
    bool known = true;
    for (int i = 0; i < n; i++) known &= dims[i] != PSG_DIM_UNKNOWN;
    char a[256], b[256];
    if (known && psgi_numel(dims, n) != psgi_numel(x->dims, x->n))
      return psgi_op_fail(call, PSG_ERR_TYPE, "reshape_like: cannot reshape %s into %s", psgi_shape_str(x, a, sizeof a),
                          psgi_dims_str(dims, n, b, sizeof b));
  }
  return psgi_rel_make(call, dims, n, x->dtype, out);
}

static psg_status view_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                              psgi_value **out) {
  (void)nargs;
  return psgi_kernel_view(call, psgi_value_as_tensor(args[0]), out_type, out);
}

/* broadcast_to_like, collapse_sum_like, collapse_sum_to -------------------------------- */

/* Whether `small` broadcasts to `big` (right-aligned, 1 stretches). */
static bool broadcasts(const int64_t *small, int sn, const int64_t *big, int bn) {
  if (sn > bn) return false;
  for (int i = 0; i < sn; i++) {
    int64_t s = small[i], b = big[bn - sn + i];
    if (s != 1 && s != b && s != PSG_DIM_UNKNOWN && b != PSG_DIM_UNKNOWN) return false;
  }
  return true;
}

static psg_status broadcast_to_like_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                        const psg_type **out) {
  (void)nargs;
  const psg_type *x, *like;
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &x);
  if (!st) st = psgi_rel_tensor_arg(call, args, 1, &like);
  if (st) return st;
  char a[256], b[256];
  if (!broadcasts(x->dims, x->n, like->dims, like->n))
    return psgi_op_fail(call, PSG_ERR_TYPE, "broadcast_to_like: cannot broadcast %s to %s",
                        psgi_shape_str(x, a, sizeof a), psgi_shape_str(like, b, sizeof b));
  return psgi_rel_make(call, like->dims, like->n, x->dtype, out);
}

/* The result of summing x down to `dims` (which must broadcast back to x). */
static psg_status collapse_to(psgi_op_call *call, const psg_type *x, const int64_t *dims, int n, const psg_type **out) {
  char a[256], b[256];
  if (!broadcasts(dims, n, x->dims, x->n))
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: %s does not broadcast to %s", psgi_tf_name(call),
                        psgi_dims_str(dims, n, a, sizeof a), psgi_shape_str(x, b, sizeof b));
  return psgi_rel_make(call, dims, n, x->dtype, out);
}

static psg_status collapse_sum_like_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                        const psg_type **out) {
  (void)nargs;
  const psg_type *x, *like;
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &x);
  if (!st) st = psgi_rel_tensor_arg(call, args, 1, &like);
  return st ? st : collapse_to(call, x, like->dims, like->n, out);
}

static psg_status collapse_sum_to_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                      const psg_type **out) {
  (void)nargs;
  const psg_type *x;
  int64_t dims[PSG_MAX_RANK];
  int n;
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &x);
  if (!st) st = psgi_tf_ints(call, "shape", dims, PSG_MAX_RANK, &n);
  return st ? st : collapse_to(call, x, dims, n, out);
}

/* Every element of x added into the element of the result it broadcasts
 * from (floats summed in double, integers in int64, in x's row order). */
static psg_status collapse_sum_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                      const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  const psg_tensor *x = psgi_tf_arg(args, 0);
  int n = out_type->n, lead = x->ndim - n;
  int64_t total = psgi_numel(out_type->dims, n), os[PSG_MAX_RANK], idx[PSG_MAX_RANK] = {0};
  psgi_row_strides(out_type->dims, n, os);
  bool is_float = psg_dtype_is_float(x->dtype);
  double *fs = NULL;
  int64_t *is = NULL;
  if (is_float ? !(fs = psgi_calloc(call->ctx, (size_t)total * sizeof *fs + 1))
               : !(is = psgi_calloc(call->ctx, (size_t)total * sizeof *is + 1)))
    return psgi_nomem(call->ctx);
  int64_t numel = psgi_numel(x->shape, x->ndim);
  for (int64_t i = 0; i < numel; i++) {
    int64_t o = 0;
    for (int a = lead; a < x->ndim; a++)
      if (out_type->dims[a - lead] != 1) o += idx[a] * os[a - lead];
    if (is_float) fs[o] += psgi_load_f(x->dtype, x->data, (size_t)i);
    else is[o] += psgi_load_i(x->dtype, x->data, (size_t)i);
    for (int a = x->ndim - 1; a >= 0 && ++idx[a] == x->shape[a]; a--) idx[a] = 0;
  }
  psg_tensor *t;
  void *data;
  psg_status st = psgi_kernel_alloc(call, out_type, &t, &data);
  for (int64_t i = 0; !st && i < total; i++) {
    if (is_float) psgi_store_f(t->dtype, data, (size_t)i, fs[i]);
    else psgi_store_i(t->dtype, data, (size_t)i, is[i]);
  }
  psgi_free(call->ctx, fs);
  psgi_free(call->ctx, is);
  return st ? st : psgi_kernel_result(call, t, out);
}

const psgi_op_impl psgi_impls_transform_like[] = {
    {"cast_like", cast_like_rel, psgi_kernel_cast, false, PSGI_PATTERN_ELEMWISE},
    {"reshape_like", reshape_like_rel, view_kernel, false, PSGI_PATTERN_INJECTIVE},
    {"broadcast_to_like", broadcast_to_like_rel, psgi_broadcast_to_kernel, false, PSGI_PATTERN_BROADCAST},
    {"collapse_sum_like", collapse_sum_like_rel, collapse_sum_kernel, false, PSGI_PATTERN_COMM_REDUCE},
    {"collapse_sum_to", collapse_sum_to_rel, collapse_sum_kernel, false, PSGI_PATTERN_COMM_REDUCE},
    {NULL, NULL, NULL, false, 0},
};
