/* Passage — ops that join a tuple of tensors or split one into a tuple:
 * concatenate, stack, split (TVM's ConcatenateRel, StackRel, SplitRel).
 * Every piece is one strided copy into or out of the big tensor. */
#include <stdio.h>
#include "ops/transform.h"

/* The fields of a tuple argument, all tensors of one dtype and rank. */
static psg_status tuple_fields(psgi_op_call *call, const psg_type *arg, bool same_rank) {
  const char *op = psgi_tf_name(call);
  if (!arg || arg->kind != PSG_TYPE_TUPLE)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: the argument must be a tuple of tensors", op);
  if (arg->n == 0) return psgi_op_fail(call, PSG_ERR_TYPE, "%s: the tuple must not be empty", op);
  const psg_type *f0 = arg->fields[0];
  for (int i = 0; i < arg->n; i++) {
    const psg_type *f = arg->fields[i];
    if (!f || f->kind != PSG_TYPE_TENSOR)
      return psgi_op_fail(call, PSG_ERR_TYPE, "%s: field %d of the tuple is not a tensor", op, i);
    if (f->dtype != f0->dtype)
      return psgi_op_fail(call, PSG_ERR_TYPE, "%s: field %d has dtype %s but field 0 has %s", op, i,
                          psg_dtype_name(f->dtype), psg_dtype_name(f0->dtype));
    if (same_rank && f->n != f0->n)
      return psgi_op_fail(call, PSG_ERR_TYPE, "%s: field %d has rank %d but field 0 has rank %d", op, i, f->n, f0->n);
  }
  return PSG_OK;
}

/* Unifies dim d of every field except `skip` into o (unknown yields to known);
 * fails on two different known extents. */
static psg_status unify_dims(psgi_op_call *call, const psg_type *tup, int skip, int64_t *o) {
  const psg_type *f0 = tup->fields[0];
  for (int d = 0; d < f0->n; d++) {
    if (d == skip) continue;
    o[d] = PSG_DIM_UNKNOWN;
    for (int i = 0; i < tup->n; i++) {
      int64_t v = tup->fields[i]->dims[d];
      if (v == PSG_DIM_UNKNOWN) continue;
      if (o[d] != PSG_DIM_UNKNOWN && o[d] != v) {
        char a[256], b[256];
        return psgi_op_fail(call, PSG_ERR_TYPE, "%s: field %d has shape %s, which does not match %s%s",
                            psgi_tf_name(call), i, psgi_shape_str(tup->fields[i], a, sizeof a),
                            psgi_shape_str(f0, b, sizeof b), skip >= 0 ? " outside the axis" : "");
      }
      o[d] = v;
    }
  }
  return PSG_OK;
}

/* concatenate ------------------------------------------------------------------ */

psg_status psgi_concatenate_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *tup = args[0];
  int axis = 0;
  psg_status st = tuple_fields(call, tup, true);
  if (st || (st = psgi_tf_axis(call, psgi_attr_int(call->attrs, "axis", 0), tup->fields[0]->n, &axis))) return st;
  int64_t o[PSG_MAX_RANK];
  if ((st = unify_dims(call, tup, axis, o))) return st;
  o[axis] = 0;
  for (int i = 0; i < tup->n && o[axis] != PSG_DIM_UNKNOWN; i++) {
    int64_t v = tup->fields[i]->dims[axis];
    if (v == PSG_DIM_UNKNOWN)
      o[axis] = v;
    else if (!psgi_checked_add(o[axis], v, &o[axis]))
      return psgi_op_fail(call, PSG_ERR_TYPE, "concatenate: the sum of the %d fields' extents along axis %d overflows int64",
                          tup->n, axis);
  }
  return psgi_rel_make(call, o, tup->fields[0]->n, tup->fields[0]->dtype, out);
}

/* Copies every field into the output at its offset along `axis`; `stack`
 * views each field as having an extent-1 axis there. */
static psg_status join_kernel(psgi_op_call *call, psgi_value *const *args, const psg_type *out_type, int axis,
                              bool stack, psgi_value **out) {
  const psgi_value *tup = args[0];
  psg_tensor *t;
  void *data;
  psg_status st = psgi_kernel_alloc(call, out_type, &t, &data);
  if (st) return st;
  int64_t os[PSG_MAX_RANK], ds[PSG_MAX_RANK], ss[PSG_MAX_RANK];
  psgi_row_strides(t->shape, t->ndim, os);
  int64_t at = 0;
  for (size_t k = 0; k < tup->u.tuple.n; k++) {
    const psg_tensor *x = psgi_value_as_tensor(tup->u.tuple.items[k]);
    psgi_row_strides(x->shape, x->ndim, ss);
    for (int i = 0; i < x->ndim; i++) ds[i] = os[stack && i >= axis ? i + 1 : i];
    psgi_strided_copy(x->shape, x->ndim, psg_dtype_size(t->dtype), data, at * os[axis], ds, x->data, 0, ss);
    at += stack ? 1 : x->shape[axis];
  }
  return psgi_kernel_result(call, t, out);
}

psg_status psgi_concatenate_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                                   psgi_value **out) {
  (void)nargs;
  int axis = 0;
  psg_status st = psgi_tf_axis(call, psgi_attr_int(call->attrs, "axis", 0), out_type->n, &axis);
  return st ? st : join_kernel(call, args, out_type, axis, false, out);
}

/* stack --------------------------------------------------------------------------- */

static psg_status stack_axis(psgi_op_call *call, int rank, int *axis) {
  int64_t a = psgi_attr_int(call->attrs, "axis", 0);
  if (a < -rank - 1 || a > rank)
    return psgi_op_fail(call, PSG_ERR_TYPE, "stack: axis %lld is out of range for rank %d (expected %d..%d)",
                        (long long)a, rank, -rank - 1, rank);
  *axis = (int)(a < 0 ? a + rank + 1 : a);
  return PSG_OK;
}

psg_status psgi_stack_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *tup = args[0];
  int axis = 0;
  psg_status st = tuple_fields(call, tup, true);
  if (st || (st = stack_axis(call, tup->fields[0]->n, &axis))) return st;
  int64_t u[PSG_MAX_RANK], o[PSG_MAX_RANK];
  int rank = tup->fields[0]->n;
  if (rank + 1 > PSG_MAX_RANK)
    return psgi_op_fail(call, PSG_ERR_TYPE, "stack: the result would have rank %d (limit %d)", rank + 1, PSG_MAX_RANK);
  if ((st = unify_dims(call, tup, -1, u))) return st;
  for (int i = 0, j = 0; i <= rank; i++) o[i] = i == axis ? tup->n : u[j++];
  return psgi_rel_make(call, o, rank + 1, tup->fields[0]->dtype, out);
}

psg_status psgi_stack_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                             psgi_value **out) {
  (void)nargs;
  int axis = 0;
  psg_status st = stack_axis(call, out_type->n - 1, &axis);
  return st ? st : join_kernel(call, args, out_type, axis, true, out);
}

/* split ----------------------------------------------------------------------------- */

enum { MAX_PARTS = 65536 };

/* The split points along the axis: `sections` equal parts (an int attr) or
 * the given ascending indices (a list). Writes at most max points. */
static psg_status split_points(psgi_op_call *call, const psg_type *x, int *axis, int64_t *pts, int max, int *n,
                               int64_t *sections) {
  psg_status st = psgi_tf_axis(call, psgi_attr_int(call->attrs, "axis", 0), x->n, axis);
  if (st) return st;
  psg_attr *v = psg_attrs_get(call->attrs, "indices_or_sections");
  *sections = 0;
  *n = 0;
  if (v && psg_attr_kind(v) == PSG_ATTR_INT) {
    *sections = psg_attr_get_int(v);
    if (*sections < 1 || *sections > max)
      return psgi_op_fail(call, PSG_ERR_TYPE, "split: sections must be in 1..%d, got %lld", MAX_PARTS,
                          (long long)*sections);
    int64_t d = x->dims[*axis];
    if (d != PSG_DIM_UNKNOWN && d % *sections)
      return psgi_op_fail(call, PSG_ERR_TYPE, "split: extent %lld of axis %d is not divisible into %lld sections",
                          (long long)d, *axis, (long long)*sections);
    return PSG_OK;
  }
  if (!v || psg_attr_kind(v) != PSG_ATTR_LIST ||
      (*n = psgi_attr_ints(call->attrs, "indices_or_sections", pts, max - 1)) < 0)
    return psgi_op_fail(call, PSG_ERR_TYPE, "split: indices_or_sections must be an int or a list of at most %d ints",
                        MAX_PARTS - 1);
  int64_t prev = 0, d = x->dims[*axis];
  char b[256];
  for (int i = 0; i < *n; i++) {
    if (pts[i] <= prev)
      return psgi_op_fail(call, PSG_ERR_TYPE, "split: indices %s must be positive and strictly ascending",
                          psgi_tf_list_str(pts, *n, b, sizeof b));
    prev = pts[i];
  }
  if (d != PSG_DIM_UNKNOWN && prev >= d)
    return psgi_op_fail(call, PSG_ERR_TYPE, "split: indices %s must be below the extent %lld of axis %d",
                        psgi_tf_list_str(pts, *n, b, sizeof b), (long long)d, *axis);
  return PSG_OK;
}

psg_status psgi_split_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *x;
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &x);
  if (st) return st;
  if (x->n == 0) return psgi_op_fail(call, PSG_ERR_TYPE, "split: cannot split a scalar");
  /* Room for as many parts as the attr asks for (split_points checks it). */
  psg_attr *ios = psg_attrs_get(call->attrs, "indices_or_sections");
  int64_t want = !ios                                 ? 1
                 : psg_attr_kind(ios) == PSG_ATTR_INT ? psg_attr_get_int(ios)
                                                      : (int64_t)psg_attr_list_len(ios) + 1;
  size_t cap = want < 1 ? 1 : want > MAX_PARTS ? MAX_PARTS : (size_t)want;
  int64_t *pts = psgi_alloc(call->ctx, cap * sizeof *pts);
  const psg_type **fields = psgi_alloc(call->ctx, cap * sizeof *fields);
  if (!pts || !fields) {
    st = psgi_nomem(call->ctx);
    goto done;
  }
  int axis, n;
  int64_t sections, o[PSG_MAX_RANK], d;
  if ((st = split_points(call, x, &axis, pts, (int)cap, &n, &sections))) goto done;
  memcpy(o, x->dims, (size_t)x->n * sizeof *o);
  d = x->dims[axis];
  int parts = sections ? (int)sections : n + 1;
  for (int i = 0; i < parts && !st; i++) {
    if (sections)
      o[axis] = d == PSG_DIM_UNKNOWN ? d : d / sections;
    else if (i < n)
      o[axis] = pts[i] - (i ? pts[i - 1] : 0);
    else
      o[axis] = d == PSG_DIM_UNKNOWN ? d : d - (n ? pts[n - 1] : 0);
    st = psgi_rel_make(call, o, x->n, x->dtype, &fields[i]);
  }
  if (!st) st = psg_type_tuple(call->ctx, fields, parts, out);
done:
  psgi_free(call->ctx, pts);
  psgi_free(call->ctx, fields);
  return st;
}

psg_status psgi_split_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                             psgi_value **out) {
  (void)nargs;
  const psg_tensor *x = psgi_tf_arg(args, 0);
  int axis = 0;
  psg_status st = psgi_tf_axis(call, psgi_attr_int(call->attrs, "axis", 0), x->ndim, &axis);
  if (st) return st;
  size_t n = (size_t)out_type->n;
  psgi_value **items = psgi_calloc(call->ctx, n * sizeof *items);
  if (!items) return psgi_nomem(call->ctx);
  int64_t is[PSG_MAX_RANK], os[PSG_MAX_RANK], at = 0;
  psgi_row_strides(x->shape, x->ndim, is);
  for (size_t k = 0; k < n && !st; k++) {
    psg_tensor *t;
    void *data;
    if ((st = psgi_kernel_alloc(call, out_type->fields[k], &t, &data))) break;
    psgi_row_strides(t->shape, t->ndim, os);
    psgi_strided_copy(t->shape, t->ndim, psg_dtype_size(x->dtype), data, 0, os, x->data, at * is[axis], is);
    at += t->shape[axis];
    st = psgi_kernel_result(call, t, &items[k]);
  }
  if (!st) st = psgi_value_tuple(call->ctx, items, n, out);
  for (size_t k = 0; k < n; k++) psgi_value_release(items[k]);
  psgi_free(call->ctx, items);
  return st;
}
