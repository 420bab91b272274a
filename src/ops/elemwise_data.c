/* Passage — kernels of the elementwise family that move or make data rather
 * than compute (issue 5): where, clip, cast, copy, the *_like fills, zeros,
 * ones, full and arange. One element conversion (C's casts, made total:
 * NaN and out-of-range floats saturate) serves cast and every fill. */
#include <math.h>
#include <string.h>
#include "ops/elemwise.h"

static bool is_unsigned(int dtype) { return dtype >= PSG_DTYPE_UINT8 && dtype <= PSG_DTYPE_UINT64; }

/* Element si of s (dtype sd) converted into element di of d (dtype dd).
 * Integers stay exact through int64; an integer becomes a float32 in one
 * rounding (not via double). */
static void convert(int sd, const void *s, size_t si, int dd, void *d, size_t di) {
  bool sf = psg_dtype_is_float(sd), df = psg_dtype_is_float(dd);
  if (sf) {
    psgi_store_f(dd, d, di, psgi_load_f(sd, s, si));
  } else if (!df) {
    psgi_store_i(dd, d, di, psgi_load_i(sd, s, si));
  } else {
    int64_t v = psgi_load_i(sd, s, si);
    bool u = sd == PSG_DTYPE_UINT64;
    if (psgi_dtype_class(dd) == PSGI_CLASS_F32)
      psgi_store_f(dd, d, di, u ? (float)(uint64_t)v : (float)v);
    else
      psgi_store_f(dd, d, di, u ? (double)(uint64_t)v : (double)v);
  }
}

PSGI_KERNEL_DECL(cast) {
  (void)nargs;
  *out = NULL;
  psg_tensor *a = psgi_value_as_tensor(args[0]), *t;
  void *o;
  psg_status st = psgi_kernel_alloc(call, out_type, &t, &o);
  if (st) return st;
  size_t n = (size_t)psgi_numel(out_type->dims, out_type->n);
  for (size_t i = 0; i < n; i++) convert(a->dtype, a->data, i, out_type->dtype, o, i);
  return psgi_kernel_result(call, t, out);
}

PSGI_KERNEL_DECL(copy) {
  (void)nargs;
  *out = NULL;
  psg_tensor *a = psgi_value_as_tensor(args[0]), *t;
  void *o;
  psg_status st = psgi_kernel_alloc(call, out_type, &t, &o);
  if (st) return st;
  if (a->nbytes) memcpy(o, a->data, a->nbytes);
  return psgi_kernel_result(call, t, out);
}

PSGI_KERNEL_DECL(where) {
  (void)nargs;
  *out = NULL;
  psg_tensor *c = psgi_value_as_tensor(args[0]), *x = psgi_value_as_tensor(args[1]),
             *y = psgi_value_as_tensor(args[2]), *t;
  const psg_type *ins[3] = {psg_tensor_type(call->ctx, c), psg_tensor_type(call->ctx, x),
                            psg_tensor_type(call->ctx, y)};
  if (!ins[0] || !ins[1] || !ins[2]) return psgi_nomem(call->ctx);
  void *o;
  psg_status st = psgi_kernel_alloc(call, out_type, &t, &o);
  if (st) return st;
  size_t sz = psg_dtype_size(out_type->dtype);
  psgi_bcast_iter it;
  psgi_bcast_init(&it, out_type->dims, out_type->n, ins, 3);
  /* Selection copies bytes: exact for every dtype, NaN payloads included. */
  if (it.numel) do {
      bool take_x = psgi_load_i(c->dtype, c->data, (size_t)it.off[0]) != 0;
      const char *src = take_x ? (const char *)x->data + (size_t)it.off[1] * sz
                               : (const char *)y->data + (size_t)it.off[2] * sz;
      memcpy((char *)o + (size_t)it.out_off * sz, src, sz);
    } while (psgi_bcast_next(&it));
  return psgi_kernel_result(call, t, out);
}

/* TVM's max(min(x, a_max), a_min) with both bounds cast to the tensor's
 * dtype (a_min wins when the bounds cross); NaN stays NaN. A bool is the
 * integer type uint1: its bounds saturate to [0, 1] and truncate, so a
 * clip whose range holds [0, 1] is the identity, as SimplifyExpr assumes
 * (C's bool conversion would turn a_min=-1 into true). */
PSGI_KERNEL_DECL(clip) {
  (void)nargs;
  *out = NULL;
  psg_tensor *a = psgi_value_as_tensor(args[0]), *t;
  double lo = psgi_attr_float(call->attrs, "a_min", -INFINITY), hi = psgi_attr_float(call->attrs, "a_max", INFINITY);
  void *o;
  psg_status st = psgi_kernel_alloc(call, out_type, &t, &o);
  if (st) return st;
  int dt = a->dtype, cls = psgi_dtype_class(dt);
  size_t n = (size_t)psgi_numel(out_type->dims, out_type->n);
  if (cls == PSGI_CLASS_INT) {
    uint64_t scratch[2];
    psgi_store_f(dt, scratch, 0, lo);
    psgi_store_f(dt, scratch, 1, hi);
    int64_t ilo = psgi_load_i(dt, scratch, 0), ihi = psgi_load_i(dt, scratch, 1);
    if (dt == PSG_DTYPE_BOOL) ilo = lo >= 1, ihi = hi >= 1;
    bool u = is_unsigned(dt);
    for (size_t i = 0; i < n; i++) {
      int64_t x = psgi_load_i(dt, a->data, i);
      if (u ? (uint64_t)x > (uint64_t)ihi : x > ihi) x = ihi;
      if (u ? (uint64_t)x < (uint64_t)ilo : x < ilo) x = ilo;
      psgi_store_i(dt, o, i, x);
    }
  } else if (cls == PSGI_CLASS_F32) {
    float flo = (float)lo, fhi = (float)hi;
    for (size_t i = 0; i < n; i++) {
      float x = (float)psgi_load_f(dt, a->data, i);
      x = x > fhi ? fhi : x;
      psgi_store_f(dt, o, i, x < flo ? flo : x);
    }
  } else {
    for (size_t i = 0; i < n; i++) {
      double x = psgi_load_f(dt, a->data, i);
      x = x > hi ? hi : x;
      psgi_store_f(dt, o, i, x < lo ? lo : x);
    }
  }
  return psgi_kernel_result(call, t, out);
}

/* A tensor of type `type` whose every element is element 0 of `src`
 * (dtype sd) converted. */
static psg_status fill(psgi_op_call *call, const psg_type *type, int sd, const void *src, psgi_value **out) {
  *out = NULL;
  psg_tensor *t;
  void *o;
  psg_status st = psgi_kernel_alloc(call, type, &t, &o);
  if (st) return st;
  size_t n = (size_t)psgi_numel(type->dims, type->n), sz = psg_dtype_size(type->dtype);
  if (n) convert(sd, src, 0, type->dtype, o, 0);
  for (size_t i = 1; i < n; i++) memcpy((char *)o + i * sz, o, sz);
  return psgi_kernel_result(call, t, out);
}

static const int64_t zero = 0, one = 1;

PSGI_KERNEL_DECL(zeros_like) {
  (void)args, (void)nargs;
  return fill(call, out_type, PSG_DTYPE_INT64, &zero, out);
}
PSGI_KERNEL_DECL(ones_like) {
  (void)args, (void)nargs;
  return fill(call, out_type, PSG_DTYPE_INT64, &one, out);
}
PSGI_KERNEL_DECL(zeros) {
  (void)args, (void)nargs;
  return fill(call, out_type, PSG_DTYPE_INT64, &zero, out);
}
PSGI_KERNEL_DECL(ones) {
  (void)args, (void)nargs;
  return fill(call, out_type, PSG_DTYPE_INT64, &one, out);
}
PSGI_KERNEL_DECL(full_like) {
  (void)nargs;
  psg_tensor *v = psgi_value_as_tensor(args[1]);
  return fill(call, out_type, v->dtype, v->data, out);
}
PSGI_KERNEL_DECL(full) {
  (void)nargs;
  psg_tensor *v = psgi_value_as_tensor(args[0]);
  return fill(call, out_type, v->dtype, v->data, out);
}

/* TVM's arange length is an int32: ceil((stop - start) / step). */
enum { ARANGE_MAX = INT32_MAX };

/* Element count of an integer range, exact for the whole int64/uint64 span
 * (differences are taken in uint64). */
static psg_status int_range_len(psgi_op_call *call, int dt, int64_t a, int64_t b, int64_t s, int64_t *len) {
  if (s == 0) return psgi_op_fail(call, PSG_ERR_INVALID_ARGUMENT, "arange: step is zero");
  bool u = is_unsigned(dt), up = u || s > 0;
  bool nonempty = up ? (u ? (uint64_t)b > (uint64_t)a : b > a) : a > b;
  if (!nonempty) {
    *len = 0;
    return PSG_OK;
  }
  uint64_t diff = up ? (uint64_t)b - (uint64_t)a : (uint64_t)a - (uint64_t)b;
  uint64_t step = up ? (uint64_t)s : 0 - (uint64_t)s;
  uint64_t n = (diff - 1) / step + 1;
  if (n > ARANGE_MAX) return psgi_op_fail(call, PSG_ERR_INVALID_ARGUMENT, "arange: %llu elements are too many", (unsigned long long)n);
  *len = (int64_t)n;
  return PSG_OK;
}

static psg_status float_range_len(psgi_op_call *call, double c, double s, int64_t *len) {
  if (s == 0) return psgi_op_fail(call, PSG_ERR_INVALID_ARGUMENT, "arange: step is zero");
  if (!(c > 0)) { /* empty, NaN included */
    *len = 0;
    return PSG_OK;
  }
  if (c > ARANGE_MAX) return psgi_op_fail(call, PSG_ERR_INVALID_ARGUMENT, "arange: %g elements are too many", c);
  *len = (int64_t)c;
  return PSG_OK;
}

PSGI_KERNEL_DECL(arange) {
  (void)nargs;
  *out = NULL;
  psg_tensor *ts[3] = {psgi_value_as_tensor(args[0]), psgi_value_as_tensor(args[1]), psgi_value_as_tensor(args[2])};
  int dt = out_type->dtype, cls = psgi_dtype_class(dt);
  int64_t ia[3] = {0, 0, 0}, len = 0;
  double fa[3] = {0, 0, 0};
  for (int k = 0; k < 3; k++) {
    if (cls == PSGI_CLASS_INT) ia[k] = psgi_load_i(ts[k]->dtype, ts[k]->data, 0);
    else fa[k] = psgi_load_f(ts[k]->dtype, ts[k]->data, 0);
  }
  psg_status st;
  if (cls == PSGI_CLASS_INT) st = int_range_len(call, dt, ia[0], ia[1], ia[2], &len);
  else if (cls == PSGI_CLASS_F32) st = float_range_len(call, ceilf(((float)fa[1] - (float)fa[0]) / (float)fa[2]), fa[2], &len);
  else st = float_range_len(call, ceil((fa[1] - fa[0]) / fa[2]), fa[2], &len);
  if (st) return st;
  /* The relation could not know the length; the value fixes it. */
  const psg_type *type;
  if ((st = psgi_rel_make(call, &len, 1, dt, &type))) return st;
  psg_tensor *t;
  void *o;
  if ((st = psgi_kernel_alloc(call, type, &t, &o))) return st;
  for (int64_t i = 0; i < len; i++) {
    size_t k = (size_t)i;
    if (cls == PSGI_CLASS_INT) psgi_store_i(dt, o, k, (int64_t)((uint64_t)ia[0] + (uint64_t)i * (uint64_t)ia[2]));
    else if (cls == PSGI_CLASS_F32) psgi_store_f(dt, o, k, (float)fa[0] + (float)i * (float)fa[2]);
    else psgi_store_f(dt, o, k, fa[0] + (double)i * fa[2]);
  }
  return psgi_kernel_result(call, t, out);
}
