/* Passage — type relations of the elementwise and creation ops (issue 5):
 * TVM v0.19's BroadcastRel and friends, with messages that say which op and
 * which operands disagree. Unknown dims propagate through broadcasting. */
#include <string.h>
#include "ops/elemwise.h"

static const char *op_name(const psgi_op_call *call) { return psgi_op_call_name(call); }

int psgi_dtype_class(int dtype) {
  switch (dtype) {
  case PSG_DTYPE_FLOAT16:
  case PSG_DTYPE_BFLOAT16:
  case PSG_DTYPE_FLOAT32: return PSGI_CLASS_F32;
  case PSG_DTYPE_FLOAT64: return PSGI_CLASS_F64;
  default: return PSGI_CLASS_INT;
  }
}

psg_status psgi_rel_nargs(psgi_op_call *call, size_t nargs, size_t want) {
  if (nargs == want) return PSG_OK;
  return psgi_op_fail(call, PSG_ERR_TYPE, "'%s' takes %zu argument%s, got %zu", op_name(call), want,
                      want == 1 ? "" : "s", nargs);
}

psg_status psgi_rel_dtype_attr(psgi_op_call *call, const char *key, int dflt, int *out) {
  *out = dflt;
  psg_attr *a = call->attrs ? psg_attrs_get(call->attrs, key) : NULL;
  if (!a || psg_attr_kind(a) == PSG_ATTR_NONE) return PSG_OK;
  if (psg_attr_kind(a) == PSG_ATTR_DTYPE) {
    *out = psg_attr_get_dtype(a);
    return PSG_OK;
  }
  if (psg_attr_kind(a) == PSG_ATTR_STRING) {
    const char *s = psg_attr_get_string(a);
    if (!*s) return PSG_OK; /* TVM's "void" dtype: unset */
    int d = psg_dtype_from_name(s, strlen(s));
    if (d) {
      *out = d;
      return PSG_OK;
    }
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: unknown dtype '%s'", op_name(call), s);
  }
  return psgi_op_fail(call, PSG_ERR_TYPE, "%s: attribute '%s' must be a dtype", op_name(call), key);
}

/* The tensor types of all arguments, after the count check. */
static psg_status tensor_args(psgi_op_call *call, const psg_type *const *args, size_t nargs, size_t want,
                              const psg_type **ts) {
  psg_status st = psgi_rel_nargs(call, nargs, want);
  for (size_t i = 0; i < want && !st; i++) st = psgi_rel_tensor_arg(call, args, i, &ts[i]);
  return st;
}

static psg_status broadcast(psgi_op_call *call, const psg_type *const *args, size_t nargs, bool to_bool,
                            const psg_type **out) {
  *out = NULL;
  const psg_type *ts[2];
  psg_status st = tensor_args(call, args, nargs, 2, ts);
  if (st) return st;
  if (ts[0]->dtype != ts[1]->dtype)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: dtypes %s and %s differ", op_name(call),
                        psg_dtype_name(ts[0]->dtype), psg_dtype_name(ts[1]->dtype));
  /* Types are interned: equal operand types, or a scalar and a tensor,
   * broadcast to the one (or the tensor's) type as it is. */
  if (!to_bool && (ts[0] == ts[1] || ts[1]->n == 0 || ts[0]->n == 0)) {
    *out = ts[1]->n == 0 ? ts[0] : ts[1];
    return PSG_OK;
  }
  int64_t dims[PSG_MAX_RANK];
  int nd;
  if ((st = psgi_broadcast_dims(call, ts, 2, dims, &nd))) return st;
  return psgi_rel_make(call, dims, nd, to_bool ? PSG_DTYPE_BOOL : ts[0]->dtype, out);
}

psg_status psgi_rel_broadcast(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                              const psg_type **out) {
  return broadcast(call, args, nargs, false, out);
}

psg_status psgi_rel_broadcast_cmp(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                  const psg_type **out) {
  return broadcast(call, args, nargs, true, out);
}

psg_status psgi_rel_identity(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                             const psg_type **out) {
  *out = NULL;
  const psg_type *t;
  psg_status st = tensor_args(call, args, nargs, 1, &t);
  if (!st) *out = t;
  return st;
}

psg_status psgi_rel_unary_bool(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                               const psg_type **out) {
  *out = NULL;
  const psg_type *t;
  psg_status st = tensor_args(call, args, nargs, 1, &t);
  return st ? st : psgi_rel_make(call, t->dims, t->n, PSG_DTYPE_BOOL, out);
}

psg_status psgi_rel_where(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                          const psg_type **out) {
  *out = NULL;
  const psg_type *ts[3];
  psg_status st = tensor_args(call, args, nargs, 3, ts);
  if (st) return st;
  if (ts[0]->dtype != PSG_DTYPE_BOOL)
    return psgi_op_fail(call, PSG_ERR_TYPE, "where: the condition must be bool, not %s",
                        psg_dtype_name(ts[0]->dtype));
  if (ts[1]->dtype != ts[2]->dtype)
    return psgi_op_fail(call, PSG_ERR_TYPE, "where: dtypes %s and %s of the two branches differ",
                        psg_dtype_name(ts[1]->dtype), psg_dtype_name(ts[2]->dtype));
  int64_t dims[PSG_MAX_RANK];
  int nd;
  if ((st = psgi_broadcast_dims(call, ts, 3, dims, &nd))) return st;
  return psgi_rel_make(call, dims, nd, ts[1]->dtype, out);
}

psg_status psgi_rel_cast(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                         const psg_type **out) {
  *out = NULL;
  const psg_type *t;
  int dtype;
  psg_status st = tensor_args(call, args, nargs, 1, &t);
  if (!st) st = psgi_rel_dtype_attr(call, "dtype", PSG_DTYPE_INVALID, &dtype);
  if (st) return st;
  if (!dtype) return psgi_op_fail(call, PSG_ERR_TYPE, "cast: the dtype attribute is missing");
  return psgi_rel_make(call, t->dims, t->n, dtype, out);
}

static psg_status scalar_fill(psgi_op_call *call, const psg_type *fill) {
  if (fill->n == 0) return PSG_OK;
  return psgi_op_fail(call, PSG_ERR_TYPE, "%s: the fill value must be a scalar, not rank %d", op_name(call),
                      fill->n);
}

psg_status psgi_rel_full_like(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                              const psg_type **out) {
  *out = NULL;
  const psg_type *ts[2];
  psg_status st = tensor_args(call, args, nargs, 2, ts);
  if (!st) st = scalar_fill(call, ts[1]);
  if (!st) *out = ts[0];
  return st;
}

psg_status psgi_rel_shape_attr(psgi_op_call *call, int64_t *dims, int *nd) {
  int n = psgi_attr_ints(call->attrs, "shape", dims, PSG_MAX_RANK);
  if (n < 0) return psgi_op_fail(call, PSG_ERR_TYPE, "%s: the shape attribute must be a list of ints", op_name(call));
  for (int i = 0; i < n; i++)
    if (dims[i] < 0)
      return psgi_op_fail(call, PSG_ERR_TYPE, "%s: dimension %d of the shape is negative (%lld)", op_name(call), i,
                          (long long)dims[i]);
  *nd = n;
  return PSG_OK;
}

psg_status psgi_rel_init(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                         const psg_type **out) {
  (void)args;
  *out = NULL;
  int64_t dims[PSG_MAX_RANK];
  int nd, dtype;
  psg_status st = psgi_rel_nargs(call, nargs, 0);
  if (!st) st = psgi_rel_shape_attr(call, dims, &nd);
  if (!st) st = psgi_rel_dtype_attr(call, "dtype", PSG_DTYPE_FLOAT32, &dtype);
  return st ? st : psgi_rel_make(call, dims, nd, dtype, out);
}

psg_status psgi_rel_full(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                         const psg_type **out) {
  *out = NULL;
  const psg_type *fill;
  int64_t dims[PSG_MAX_RANK];
  int nd, dtype;
  psg_status st = tensor_args(call, args, nargs, 1, &fill);
  if (!st) st = scalar_fill(call, fill);
  if (!st) st = psgi_rel_shape_attr(call, dims, &nd);
  if (!st) st = psgi_rel_dtype_attr(call, "dtype", fill->dtype, &dtype);
  return st ? st : psgi_rel_make(call, dims, nd, dtype, out);
}

psg_status psgi_rel_arange(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                           const psg_type **out) {
  static const char *const names[3] = {"start", "stop", "step"};
  *out = NULL;
  const psg_type *ts[3];
  int dtype;
  psg_status st = tensor_args(call, args, nargs, 3, ts);
  if (!st) st = psgi_rel_dtype_attr(call, "dtype", ts[0]->dtype, &dtype);
  if (st) return st;
  /* TVM assigns all three the scalar type of the dtype attribute. */
  for (int i = 0; i < 3; i++)
    if (ts[i]->n != 0 || ts[i]->dtype != dtype)
      return psgi_op_fail(call, PSG_ERR_TYPE, "arange: %s must be a scalar of dtype %s", names[i], psg_dtype_name(dtype));
  int64_t len = PSG_DIM_UNKNOWN;
  return psgi_rel_make(call, &len, 1, dtype, out);
}
