/* Passage — the shape and data movement ops of ops.def (issue 5), as TVM
 * v0.19 defines them in src/relay/op/tensor/transform.cc: the family table
 * and the ops that only reinterpret or permute a single tensor (reshape,
 * transpose, squeeze, expand_dims, broadcast_to, tile, repeat, reverse,
 * shape_of, ndarray_size). The others live in transform_*.c. */
#include <stdio.h>
#include "ops/transform.h"

/* Helpers ----------------------------------------------------------------------- */

/* Kernels whose output holds the input's elements in the same order (reshape,
 * squeeze, expand_dims) share the input's bytes (tensors are immutable). */
static psg_status same_bytes_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                                    psgi_value **out) {
  (void)nargs;
  return psgi_kernel_view(call, psgi_value_as_tensor(args[0]), out_type, out);
}

/* a * b of two dims (unknown if either is); false when it overflows int64. */
static bool mul_dims(int64_t a, int64_t b, int64_t *out) {
  if (a == PSG_DIM_UNKNOWN || b == PSG_DIM_UNKNOWN) return *out = PSG_DIM_UNKNOWN, true;
  return psgi_checked_mul(a, b, out);
}

/* reshape ------------------------------------------------------------------------ */

/* TVM's InferNewShape: positive values are dims, 0 copies the input dim at
 * the same position (a literal 0 with allowzero), -1 is inferred, -2 copies
 * the remaining input dims, -3 merges two input dims, -4 splits one input dim
 * into the next two values (one of which may be -1). */
static psg_status reshape_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *x;
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &x);
  if (st) return st;
  int64_t ns[PSG_MAX_RANK * 2], o[PSG_MAX_RANK];
  int nn, no = 0, src = 0, infer = -1;
  /* Dims copied by 0 and -2 leave the -1 inference (TVM's used_input_dims),
   * so an unknown copied dim does not make the inferred one unknown. */
  bool used_in[PSG_MAX_RANK] = {0}, used_out[PSG_MAX_RANK + 1] = {0}; /* +1: PUSH checks the rank */
  if ((st = psgi_tf_ints(call, "newshape", ns, PSG_MAX_RANK * 2, &nn))) return st;
  /* contrib_reverse_reshape: the same codes read from the right (TVM's
   * InferNewShape with reverse: both shapes reversed, and the result). */
  bool reverse = !strcmp(psgi_op_table[call->op].name, "contrib_reverse_reshape");
  if (reverse) {
    int64_t rd[PSG_MAX_RANK];
    for (int i = 0; i < nn / 2; i++) {
      int64_t v = ns[i];
      ns[i] = ns[nn - 1 - i], ns[nn - 1 - i] = v;
    }
    for (int i = 0; i < x->n; i++) rd[i] = x->dims[x->n - 1 - i];
    if ((st = psgi_rel_make(call, rd, x->n, x->dtype, &x))) return st;
  }
  bool allowzero = psgi_attr_bool(call->attrs, "allowzero", false);
  /* The texts of x's shape and of newshape, formatted only for an error
   * message (reshape is typed thousands of times per pipeline). */
  char a_buf[256], b_buf[256];
#define X_TEXT psgi_shape_str(x, a_buf, sizeof a_buf)
#define NEWSHAPE_TEXT psgi_tf_list_str(ns, nn, b_buf, sizeof b_buf)
#define TOO_LARGE()                                                                                                    \
  psgi_op_fail(call, PSG_ERR_TYPE, "reshape: newshape %s has more elements than fit in 64 bits", NEWSHAPE_TEXT)
#define PUSH(v)                                                                                                        \
  do {                                                                                                                 \
    if (no >= PSG_MAX_RANK)                                                                                            \
      return psgi_op_fail(call, PSG_ERR_TYPE, "reshape: newshape %s has more than %d dims", NEWSHAPE_TEXT,             \
                          PSG_MAX_RANK);                                                                               \
    o[no++] = (v);                                                                                                     \
  } while (0)
  for (int i = 0; i < nn; i++) {
    int64_t c = ns[i];
    if (c > 0 || (c == 0 && allowzero)) {
      PUSH(c);
      src++;
    } else if (c == 0) {
      if (src >= x->n)
        return psgi_op_fail(call, PSG_ERR_TYPE, "reshape: code 0 at position %d of %s has no dim of %s to copy", i,
                            NEWSHAPE_TEXT, X_TEXT);
      used_in[src] = used_out[no] = true;
      PUSH(x->dims[src++]);
    } else if (c == -1) {
      if (infer >= 0)
        return psgi_op_fail(call, PSG_ERR_TYPE, "reshape: newshape %s has more than one -1", NEWSHAPE_TEXT);
      infer = no;
      PUSH(1);
      src++;
    } else if (c == -2) {
      while (src < x->n) {
        used_in[src] = used_out[no] = true;
        PUSH(x->dims[src++]);
      }
    } else if (c == -3) {
      if (src + 1 >= x->n)
        return psgi_op_fail(call, PSG_ERR_TYPE, "reshape: code -3 at position %d of %s needs two dims of %s", i,
                            NEWSHAPE_TEXT, X_TEXT);
      int64_t merged;
      if (!mul_dims(x->dims[src], x->dims[src + 1], &merged)) return TOO_LARGE(); /* x's type fits: never */
      PUSH(merged);
      src += 2;
    } else if (c == -4) {
      if (i + 2 >= nn || src >= x->n)
        return psgi_op_fail(call, PSG_ERR_TYPE,
                            "reshape: code -4 at position %d of %s needs a dim of %s and two values", i, NEWSHAPE_TEXT,
                            X_TEXT);
      int64_t d = x->dims[src++], d1 = ns[i + 1], d2 = ns[i + 2];
      i += 2;
      if ((d1 == -1 && d2 == -1) || d1 < -1 || d2 < -1 || d1 == 0 || d2 == 0)
        return psgi_op_fail(call, PSG_ERR_TYPE, "reshape: code -4 of %s needs positive values or one -1",
                            NEWSHAPE_TEXT);
      if (d == PSG_DIM_UNKNOWN) {
        PUSH(d1 == -1 ? PSG_DIM_UNKNOWN : d1);
        PUSH(d2 == -1 ? PSG_DIM_UNKNOWN : d2);
        continue;
      }
      if (d1 == -1) d1 = d % d2 ? -1 : d / d2;
      if (d2 == -1) d2 = d % d1 ? -1 : d / d1;
      int64_t split;
      if (d1 < 0 || d2 < 0 || !psgi_checked_mul(d1, d2, &split) || split != d)
        return psgi_op_fail(call, PSG_ERR_TYPE, "reshape: cannot split dim %lld of %s as %s", (long long)d, X_TEXT,
                            NEWSHAPE_TEXT);
      PUSH(d1);
      PUSH(d2);
    } else {
      return psgi_op_fail(call, PSG_ERR_TYPE, "reshape: unsupported code %lld in newshape %s", (long long)c,
                          NEWSHAPE_TEXT);
    }
  }
#undef PUSH
  if (infer >= 0) {
    int64_t in_rest = 1, out_rest = 1;
    for (int i = 0; i < x->n && in_rest != PSG_DIM_UNKNOWN; i++)
      if (!used_in[i] && !mul_dims(in_rest, x->dims[i], &in_rest)) return TOO_LARGE(); /* x fits: never */
    for (int i = 0; i < no && out_rest != PSG_DIM_UNKNOWN; i++)
      if (!used_out[i] && i != infer && !mul_dims(out_rest, o[i], &out_rest)) return TOO_LARGE();
    if (in_rest == PSG_DIM_UNKNOWN || out_rest == PSG_DIM_UNKNOWN)
      o[infer] = PSG_DIM_UNKNOWN;
    else if (out_rest == 0 || in_rest % out_rest)
      return psgi_op_fail(call, PSG_ERR_TYPE, "reshape: cannot reshape %s into %s", X_TEXT, NEWSHAPE_TEXT);
    else
      o[infer] = in_rest / out_rest;
  }
  int64_t out_n = 1;
  bool out_known = true;
  for (int i = 0; i < no; i++) {
    if (o[i] == PSG_DIM_UNKNOWN)
      out_known = false;
    else if (!psgi_checked_mul(out_n, o[i], &out_n))
      return TOO_LARGE();
  }
  if (psg_type_is_static(x) && out_known && psgi_numel(x->dims, x->n) != out_n)
    return psgi_op_fail(call, PSG_ERR_TYPE, "reshape: cannot reshape %s into %s", X_TEXT, NEWSHAPE_TEXT);
  for (int i = 0; reverse && i < no / 2; i++) {
    int64_t v = o[i];
    o[i] = o[no - 1 - i], o[no - 1 - i] = v;
  }
  return psgi_rel_make(call, o, no, x->dtype, out);
}
#undef X_TEXT
#undef NEWSHAPE_TEXT
#undef TOO_LARGE

/* transpose ---------------------------------------------------------------------- */

/* The permutation of a transpose (axes None or empty: reversed). */
static psg_status transpose_perm(psgi_op_call *call, int ndim, int *perm) {
  int64_t axes[PSG_MAX_RANK];
  int n;
  psg_status st = psgi_tf_ints(call, "axes", axes, PSG_MAX_RANK, &n);
  if (st) return st;
  if (psgi_tf_attr_is_none(call, "axes")) { /* only None reverses: TVM rejects [] for rank > 0 */
    for (int i = 0; i < ndim; i++) perm[i] = ndim - 1 - i;
    return PSG_OK;
  }
  bool seen[PSG_MAX_RANK] = {0}, ok = n == ndim;
  for (int i = 0; i < n && ok; i++) {
    int64_t a = axes[i] < 0 ? axes[i] + ndim : axes[i];
    ok = a >= 0 && a < ndim && !seen[a];
    if (ok) seen[a] = true, perm[i] = (int)a;
  }
  if (!ok) {
    char b[256];
    return psgi_op_fail(call, PSG_ERR_TYPE, "transpose: axes %s is not a permutation of 0..%d",
                        psgi_tf_list_str(axes, n, b, sizeof b), ndim - 1);
  }
  return PSG_OK;
}

static psg_status transpose_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *x;
  int perm[PSG_MAX_RANK];
  int64_t o[PSG_MAX_RANK];
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &x);
  if (st || (st = transpose_perm(call, x->n, perm))) return st;
  for (int i = 0; i < x->n; i++) o[i] = x->dims[perm[i]];
  return psgi_rel_make(call, o, x->n, x->dtype, out);
}

static psg_status transpose_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                                   psgi_value **out) {
  (void)nargs;
  const psg_tensor *x = psgi_tf_arg(args, 0);
  int perm[PSG_MAX_RANK];
  int64_t is[PSG_MAX_RANK], ss[PSG_MAX_RANK], os[PSG_MAX_RANK];
  psg_status st = transpose_perm(call, x->ndim, perm);
  if (st) return st;
  psg_tensor *t;
  void *data;
  if ((st = psgi_kernel_alloc_raw(call, out_type, &t, &data))) return st;
  psgi_row_strides(x->shape, x->ndim, is);
  psgi_row_strides(t->shape, t->ndim, os);
  for (int i = 0; i < x->ndim; i++) ss[i] = is[perm[i]];
  psgi_strided_copy(t->shape, t->ndim, psg_dtype_size(x->dtype), data, 0, os, x->data, 0, ss);
  return psgi_kernel_result(call, t, out);
}

/* squeeze and expand_dims -------------------------------------------------------- */

static psg_status squeeze_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *x;
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &x);
  if (st) return st;
  int64_t axes[PSG_MAX_RANK], o[PSG_MAX_RANK];
  int n, no = 0;
  bool drop[PSG_MAX_RANK] = {0};
  if ((st = psgi_tf_ints(call, "axis", axes, PSG_MAX_RANK, &n))) return st;
  if (psgi_tf_attr_is_none(call, "axis")) {
    /* Only dims known to be 1 go: an unknown dim may not be 1 at run time. */
    for (int i = 0; i < x->n; i++) drop[i] = x->dims[i] == 1;
  }
  for (int i = 0; i < n; i++) {
    int a;
    if ((st = psgi_tf_axis(call, axes[i], x->n, &a))) return st;
    if (x->dims[a] != 1 && x->dims[a] != PSG_DIM_UNKNOWN) {
      char s[256];
      return psgi_op_fail(call, PSG_ERR_TYPE, "squeeze: cannot squeeze axis %d of %s: its extent is %lld, not 1", a,
                          psgi_shape_str(x, s, sizeof s), (long long)x->dims[a]);
    }
    drop[a] = true;
  }
  for (int i = 0; i < x->n; i++)
    if (!drop[i]) o[no++] = x->dims[i];
  return psgi_rel_make(call, o, no, x->dtype, out);
}

static psg_status expand_dims_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *x;
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &x);
  if (st) return st;
  int64_t axis = psgi_attr_int(call->attrs, "axis", 0), k = psgi_attr_int(call->attrs, "num_newaxis", 1);
  if (axis < -x->n - 1 || axis > x->n)
    return psgi_op_fail(call, PSG_ERR_TYPE, "expand_dims: axis %lld is out of range for rank %d (expected %d..%d)",
                        (long long)axis, x->n, -x->n - 1, x->n);
  if (k < 0)
    return psgi_op_fail(call, PSG_ERR_TYPE, "expand_dims: num_newaxis must be non-negative, got %lld", (long long)k);
  if (x->n + k > PSG_MAX_RANK)
    return psgi_op_fail(call, PSG_ERR_TYPE, "expand_dims: the result would have rank %lld (limit %d)",
                        (long long)(x->n + k), PSG_MAX_RANK);
  if (axis < 0) axis += x->n + 1;
  int64_t o[PSG_MAX_RANK];
  int no = 0;
  for (int i = 0; i < axis; i++) o[no++] = x->dims[i];
  for (int64_t i = 0; i < k; i++) o[no++] = 1;
  for (int i = (int)axis; i < x->n; i++) o[no++] = x->dims[i];
  return psgi_rel_make(call, o, no, x->dtype, out);
}

/* broadcast_to, tile, repeat, reverse ------------------------------------------- */

static psg_status broadcast_to_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                   const psg_type **out) {
  (void)nargs;
  const psg_type *x;
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &x);
  if (st) return st;
  int64_t shape[PSG_MAX_RANK];
  int n;
  if ((st = psgi_tf_ints(call, "shape", shape, PSG_MAX_RANK, &n))) return st;
  bool ok = n >= x->n;
  for (int i = 0; i < n && ok; i++) ok = shape[i] >= 0;
  for (int j = 0; j < x->n && ok; j++) {
    int64_t d = x->dims[j], s = shape[n - x->n + j];
    ok = d == 1 || d == s || d == PSG_DIM_UNKNOWN;
  }
  if (!ok) {
    char a[256], b[256];
    return psgi_op_fail(call, PSG_ERR_TYPE, "broadcast_to: cannot broadcast %s to %s", psgi_shape_str(x, a, sizeof a),
                        psgi_tf_list_str(shape, n, b, sizeof b));
  }
  return psgi_rel_make(call, shape, n, x->dtype, out);
}

psg_status psgi_broadcast_to_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                    const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  const psg_tensor *x = psgi_tf_arg(args, 0);
  /* Nothing stretched (only leading 1s added): the same bytes. */
  if (out_type && out_type->kind == PSG_TYPE_TENSOR && psg_type_is_static(out_type) &&
      psgi_numel(out_type->dims, out_type->n) == psgi_numel(x->shape, x->ndim))
    return psgi_kernel_view(call, psgi_value_as_tensor(args[0]), out_type, out);
  psg_tensor *t;
  void *data;
  psg_status st = psgi_kernel_alloc_raw(call, out_type, &t, &data);
  if (st) return st;
  int64_t is[PSG_MAX_RANK], ss[PSG_MAX_RANK], os[PSG_MAX_RANK];
  int lead = t->ndim - x->ndim;
  psgi_row_strides(x->shape, x->ndim, is);
  psgi_row_strides(t->shape, t->ndim, os);
  /* A stretched axis reads the same element again: stride 0. */
  for (int i = 0; i < t->ndim; i++) ss[i] = i < lead || x->shape[i - lead] == 1 ? 0 : is[i - lead];
  psgi_strided_copy(t->shape, t->ndim, psg_dtype_size(x->dtype), data, 0, os, x->data, 0, ss);
  return psgi_kernel_result(call, t, out);
}

/* tile pads the shorter of the shape and reps with leading 1s. */
static psg_status tile_reps(psgi_op_call *call, int ndim, int64_t *reps, int *rank) {
  int64_t r[PSG_MAX_RANK];
  int n;
  psg_status st = psgi_tf_ints(call, "reps", r, PSG_MAX_RANK, &n);
  if (st) return st;
  for (int i = 0; i < n; i++)
    if (r[i] <= 0) {
      char b[256];
      return psgi_op_fail(call, PSG_ERR_TYPE, "tile: reps must be positive, got %s",
                          psgi_tf_list_str(r, n, b, sizeof b));
    }
  *rank = n > ndim ? n : ndim;
  for (int i = 0; i < *rank; i++) reps[i] = i < *rank - n ? 1 : r[i - (*rank - n)];
  return PSG_OK;
}

static psg_status tile_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *x;
  int64_t reps[PSG_MAX_RANK], o[PSG_MAX_RANK];
  int rank;
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &x);
  if (st || (st = tile_reps(call, x->n, reps, &rank))) return st;
  for (int i = 0; i < rank; i++)
    if (!mul_dims(i < rank - x->n ? 1 : x->dims[i - (rank - x->n)], reps[i], &o[i])) {
      char a[256], b[256];
      return psgi_op_fail(call, PSG_ERR_TYPE, "tile: %s tiled by reps %s has more elements than fit in 64 bits",
                          psgi_shape_str(x, a, sizeof a), psgi_tf_list_str(reps, rank, b, sizeof b));
    }
  return psgi_rel_make(call, o, rank, x->dtype, out);
}

/* The output seen as (rep, element) pairs per axis: one copy of 2*rank dims. */
static psg_status tile_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                              psgi_value **out) {
  (void)nargs;
  const psg_tensor *x = psgi_tf_arg(args, 0);
  int64_t reps[PSG_MAX_RANK], is[PSG_MAX_RANK], os[PSG_MAX_RANK];
  int64_t vd[PSGI_COPY_MAX_RANK], vds[PSGI_COPY_MAX_RANK], vss[PSGI_COPY_MAX_RANK];
  int rank;
  psg_status st = tile_reps(call, x->ndim, reps, &rank);
  if (st) return st;
  psg_tensor *t;
  void *data;
  if ((st = psgi_kernel_alloc_raw(call, out_type, &t, &data))) return st;
  psgi_row_strides(x->shape, x->ndim, is);
  psgi_row_strides(t->shape, t->ndim, os);
  int lead = rank - x->ndim;
  for (int i = 0; i < rank; i++) {
    int64_t d = i < lead ? 1 : x->shape[i - lead];
    vd[2 * i] = reps[i];
    vd[2 * i + 1] = d;
    vds[2 * i] = d * os[i];
    vds[2 * i + 1] = os[i];
    vss[2 * i] = 0;
    vss[2 * i + 1] = i < lead ? 0 : is[i - lead];
  }
  psgi_strided_copy(vd, 2 * rank, psg_dtype_size(x->dtype), data, 0, vds, x->data, 0, vss);
  return psgi_kernel_result(call, t, out);
}

static psg_status repeat_params(psgi_op_call *call, int ndim, int64_t *repeats, int *axis) {
  *repeats = psgi_attr_int(call->attrs, "repeats", 1);
  if (*repeats < 1)
    return psgi_op_fail(call, PSG_ERR_TYPE, "repeat: repeats must be at least 1, got %lld", (long long)*repeats);
  return psgi_tf_axis(call, psgi_attr_int(call->attrs, "axis", 0), ndim, axis);
}

static psg_status repeat_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *x;
  int64_t r, o[PSG_MAX_RANK];
  int axis = 0;
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &x);
  if (st || (st = repeat_params(call, x->n, &r, &axis))) return st;
  memcpy(o, x->dims, (size_t)x->n * sizeof *o);
  if (!mul_dims(o[axis], r, &o[axis])) {
    char a[256];
    return psgi_op_fail(call, PSG_ERR_TYPE, "repeat: %s repeated %lld times has more elements than fit in 64 bits",
                        psgi_shape_str(x, a, sizeof a), (long long)r);
  }
  return psgi_rel_make(call, o, x->n, x->dtype, out);
}

/* The axis seen as (element, copy) pairs: the copy index does not move the
 * source. */
static psg_status repeat_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                                psgi_value **out) {
  (void)nargs;
  const psg_tensor *x = psgi_tf_arg(args, 0);
  int64_t r, is[PSG_MAX_RANK], os[PSG_MAX_RANK], vd[PSGI_COPY_MAX_RANK], vds[PSGI_COPY_MAX_RANK],
      vss[PSGI_COPY_MAX_RANK];
  int axis, n = 0;
  psg_status st = repeat_params(call, x->ndim, &r, &axis);
  if (st) return st;
  psg_tensor *t;
  void *data;
  if ((st = psgi_kernel_alloc_raw(call, out_type, &t, &data))) return st;
  psgi_row_strides(x->shape, x->ndim, is);
  psgi_row_strides(t->shape, t->ndim, os);
  for (int i = 0; i < x->ndim; i++) {
    vd[n] = x->shape[i];
    vds[n] = i == axis ? r * os[i] : os[i];
    vss[n++] = is[i];
    if (i == axis) vd[n] = r, vds[n] = os[i], vss[n++] = 0;
  }
  psgi_strided_copy(vd, n, psg_dtype_size(x->dtype), data, 0, vds, x->data, 0, vss);
  return psgi_kernel_result(call, t, out);
}

static psg_status reverse_axis(psgi_op_call *call, int ndim, int *axis) {
  return psgi_tf_axis(call, psgi_attr_int(call->attrs, "axis", 0), ndim, axis);
}

static psg_status reverse_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *x;
  int axis = 0;
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &x);
  if (st || (st = reverse_axis(call, x->n, &axis))) return st;
  *out = x;
  return PSG_OK;
}

static psg_status reverse_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                                 psgi_value **out) {
  (void)nargs;
  const psg_tensor *x = psgi_tf_arg(args, 0);
  int64_t is[PSG_MAX_RANK], ss[PSG_MAX_RANK];
  int axis = 0;
  psg_status st = reverse_axis(call, x->ndim, &axis);
  if (st) return st;
  psg_tensor *t;
  void *data;
  if ((st = psgi_kernel_alloc_raw(call, out_type, &t, &data))) return st;
  psgi_row_strides(x->shape, x->ndim, is);
  memcpy(ss, is, sizeof ss);
  ss[axis] = -is[axis];
  int64_t start = x->shape[axis] ? (x->shape[axis] - 1) * is[axis] : 0;
  psgi_strided_copy(x->shape, x->ndim, psg_dtype_size(x->dtype), data, 0, is, x->data, start, ss);
  return psgi_kernel_result(call, t, out);
}

/* shape_of, ndarray_size ---------------------------------------------------------- */

static psg_status int_dtype(psgi_op_call *call, int *dtype) {
  *dtype = psgi_tf_dtype_attr(call, "dtype", PSG_DTYPE_INT32);
  if (*dtype == PSG_DTYPE_INVALID)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: unknown dtype '%s'", psgi_tf_name(call),
                        psgi_attr_str(call->attrs, "dtype", ""));
  return PSG_OK;
}

static psg_status shape_of_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  (void)nargs;
  const psg_type *x;
  int dtype;
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &x);
  if (st || (st = int_dtype(call, &dtype))) return st;
  int64_t n = x->n;
  return psgi_rel_make(call, &n, 1, dtype, out);
}

/* A rank-0 argument gives an empty 1-d tensor (TVM's folder produces an
 * uninitialized scalar there; tvm-behavior §8.7.6). */
static psg_status shape_of_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs, const psg_type *out_type,
                                  psgi_value **out) {
  (void)nargs;
  const psg_tensor *x = psgi_tf_arg(args, 0);
  psg_tensor *t;
  void *data;
  psg_status st = psgi_kernel_alloc(call, out_type, &t, &data);
  if (st) return st;
  for (int i = 0; i < x->ndim; i++) psgi_store_i(t->dtype, data, (size_t)i, x->shape[i]);
  return psgi_kernel_result(call, t, out);
}

static psg_status ndarray_size_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs,
                                   const psg_type **out) {
  (void)nargs;
  const psg_type *x;
  int dtype;
  psg_status st = psgi_rel_tensor_arg(call, args, 0, &x);
  if (st || (st = int_dtype(call, &dtype))) return st;
  return psgi_rel_make(call, NULL, 0, dtype, out);
}

/* A rank-0 argument has one element (TVM's folder says 0; §8.7.6). */
static psg_status ndarray_size_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,
                                      const psg_type *out_type, psgi_value **out) {
  (void)nargs;
  const psg_tensor *x = psgi_tf_arg(args, 0);
  psg_tensor *t;
  void *data;
  psg_status st = psgi_kernel_alloc(call, out_type, &t, &data);
  if (st) return st;
  psgi_store_i(t->dtype, data, 0, psgi_numel(x->shape, x->ndim));
  return psgi_kernel_result(call, t, out);
}

/* The family table ------------------------------------------------------------------ */

const psgi_op_impl psgi_impls_transform[] = {
    {"reshape", reshape_rel, same_bytes_kernel, false, PSGI_PATTERN_INJECTIVE},
    {"contrib_reverse_reshape", reshape_rel, same_bytes_kernel, false, PSGI_PATTERN_INJECTIVE},
    {"transpose", transpose_rel, transpose_kernel, false, PSGI_PATTERN_INJECTIVE},
    {"squeeze", squeeze_rel, same_bytes_kernel, false, PSGI_PATTERN_INJECTIVE},
    {"expand_dims", expand_dims_rel, same_bytes_kernel, false, PSGI_PATTERN_BROADCAST},
    {"concatenate", psgi_concatenate_rel, psgi_concatenate_kernel, false, PSGI_PATTERN_INJECTIVE},
    {"stack", psgi_stack_rel, psgi_stack_kernel, false, PSGI_PATTERN_INJECTIVE},
    {"split", psgi_split_rel, psgi_split_kernel, false, PSGI_PATTERN_INJECTIVE},
    {"strided_slice", psgi_strided_slice_rel, psgi_strided_slice_kernel, false, PSGI_PATTERN_INJECTIVE},
    {"take", psgi_take_rel, psgi_take_kernel, false, PSGI_PATTERN_INJECTIVE},
    {"gather_nd", psgi_gather_nd_rel, psgi_gather_nd_kernel, false, PSGI_PATTERN_INJECTIVE},
    {"broadcast_to", broadcast_to_rel, psgi_broadcast_to_kernel, false, PSGI_PATTERN_BROADCAST},
    {"tile", tile_rel, tile_kernel, false, PSGI_PATTERN_BROADCAST},
    {"repeat", repeat_rel, repeat_kernel, false, PSGI_PATTERN_BROADCAST},
    {"reverse", reverse_rel, reverse_kernel, false, PSGI_PATTERN_INJECTIVE},
    {"layout_transform", psgi_layout_transform_rel, psgi_layout_transform_kernel, false, PSGI_PATTERN_INJECTIVE},
    {"shape_of", shape_of_rel, shape_of_kernel, false, PSGI_PATTERN_OPAQUE},
    {"ndarray_size", ndarray_size_rel, ndarray_size_kernel, false, PSGI_PATTERN_INJECTIVE},
    {"argsort", psgi_argsort_rel, psgi_argsort_kernel, false, PSGI_PATTERN_OPAQUE},
    {"topk", psgi_topk_rel, psgi_topk_kernel, false, PSGI_PATTERN_OPAQUE},
    {NULL, NULL, NULL, false, 0},
};
