/* Passage — the helpers every op family shares: dtype-generic element access,
 * half/bfloat16 conversion, broadcasting for relations and kernels, and the
 * failure message of a relation or kernel (see kernel_util.h). */
#include <math.h>
#include <stdio.h>
#include "ops/kernel_util.h"

/* float16 / bfloat16 ---------------------------------------------------------- */

float psgi_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13); /* inf / NaN */
  } else if (exp) {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man) { /* subnormal: normalize */
    int e = -1;
    do {
      e++;
      man <<= 1;
    } while (!(man & 0x400));
    bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ff) << 13);
  } else {
    bits = sign;
  }
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

uint16_t psgi_float_to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
  uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) /* inf or NaN (keep a quiet NaN) */
    return sign | 0x7c00 | (absx > 0x7f800000u ? 0x200 : 0);
  if (absx >= 0x477ff000u) return sign | 0x7c00; /* rounds to >= 65520: inf */
  if (absx < 0x38800000u) {                        /* below the smallest normal half */
    if (absx < 0x33000000u) return sign;           /* below half the smallest subnormal */
    uint32_t man = (absx & 0x7fffff) | 0x800000;
    int shift = 126 - (int)(absx >> 23); /* 14..24 */
    uint32_t half = man >> shift, rem = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) half++;
    return sign | (uint16_t)half;
  }
  uint32_t half = ((absx >> 13) - (112u << 10)), rem = absx & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) half++;
  return sign | (uint16_t)half;
}

float psgi_bf16_to_float(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

uint16_t psgi_float_to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40); /* quiet NaN */
  x += 0x7fff + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}

/* Element access --------------------------------------------------------------- */

#define LOAD(T) { T v; memcpy(&v, (const char *)data + i * sizeof v, sizeof v); return v; }
#define STORE(T) { T t = (T)v; memcpy((char *)data + i * sizeof t, &t, sizeof t); return; }

double psgi_load_f(int dtype, const void *data, size_t i) {
  switch (dtype) {
  case PSG_DTYPE_FLOAT16: { uint16_t h; memcpy(&h, (const char *)data + 2 * i, 2); return psgi_half_to_float(h); }
  case PSG_DTYPE_BFLOAT16: { uint16_t h; memcpy(&h, (const char *)data + 2 * i, 2); return psgi_bf16_to_float(h); }
  case PSG_DTYPE_FLOAT32: LOAD(float)
  case PSG_DTYPE_FLOAT64: LOAD(double)
  case PSG_DTYPE_INT8: LOAD(int8_t)
  case PSG_DTYPE_INT16: LOAD(int16_t)
  case PSG_DTYPE_INT32: LOAD(int32_t)
  case PSG_DTYPE_INT64: LOAD(int64_t)
  case PSG_DTYPE_UINT8: LOAD(uint8_t)
  case PSG_DTYPE_UINT16: LOAD(uint16_t)
  case PSG_DTYPE_UINT32: LOAD(uint32_t)
  case PSG_DTYPE_UINT64: LOAD(uint64_t)
  case PSG_DTYPE_BOOL: { uint8_t b; memcpy(&b, (const char *)data + i, 1); return b != 0; }
  }
  return 0;
}

/* Float to integer conversion as C would do it, but defined for every input:
 * NaN becomes 0 and out-of-range values saturate (C leaves both undefined). */
static int64_t f2i(double v, double lo, double hi) {
  if (v != v) return 0;
  if (v <= lo) return (int64_t)lo;
  /* INT64_MAX as a double rounds up to 2^63, which (int64_t) cannot hold. */
  if (v >= hi) return hi >= 9223372036854775807.0 ? INT64_MAX : (int64_t)hi;
  return (int64_t)v;
}

static uint64_t f2u(double v) {
  if (v != v || v <= 0) return 0;
  if (v >= 18446744073709551615.0) return UINT64_MAX;
  return (uint64_t)v;
}

void psgi_store_f(int dtype, void *data, size_t i, double v) {
  switch (dtype) {
  case PSG_DTYPE_FLOAT16: { uint16_t h = psgi_float_to_half((float)v); memcpy((char *)data + 2 * i, &h, 2); return; }
  case PSG_DTYPE_BFLOAT16: { uint16_t h = psgi_float_to_bf16((float)v); memcpy((char *)data + 2 * i, &h, 2); return; }
  case PSG_DTYPE_FLOAT32: STORE(float)
  case PSG_DTYPE_FLOAT64: STORE(double)
  case PSG_DTYPE_INT8: v = (double)f2i(v, INT8_MIN, INT8_MAX); STORE(int8_t)
  case PSG_DTYPE_INT16: v = (double)f2i(v, INT16_MIN, INT16_MAX); STORE(int16_t)
  case PSG_DTYPE_INT32: v = (double)f2i(v, INT32_MIN, INT32_MAX); STORE(int32_t)
  case PSG_DTYPE_INT64: { int64_t t = f2i(v, -9223372036854775808.0, 9223372036854775807.0);
                          memcpy((char *)data + i * 8, &t, 8); return; }
  case PSG_DTYPE_UINT8: v = (double)f2i(v, 0, UINT8_MAX); STORE(uint8_t)
  case PSG_DTYPE_UINT16: v = (double)f2i(v, 0, UINT16_MAX); STORE(uint16_t)
  case PSG_DTYPE_UINT32: v = (double)f2i(v, 0, UINT32_MAX); STORE(uint32_t)
  case PSG_DTYPE_UINT64: { uint64_t t = f2u(v); memcpy((char *)data + i * 8, &t, 8); return; }
  case PSG_DTYPE_BOOL: { uint8_t b = v != 0; memcpy((char *)data + i, &b, 1); return; }
  }
}

int64_t psgi_load_i(int dtype, const void *data, size_t i) {
  switch (dtype) {
  case PSG_DTYPE_INT64: LOAD(int64_t)
  case PSG_DTYPE_UINT64: { uint64_t v; memcpy(&v, (const char *)data + 8 * i, 8); return (int64_t)v; }
  case PSG_DTYPE_FLOAT16: case PSG_DTYPE_BFLOAT16: case PSG_DTYPE_FLOAT32: case PSG_DTYPE_FLOAT64:
    return f2i(psgi_load_f(dtype, data, i), -9223372036854775808.0, 9223372036854775807.0);
  default: return (int64_t)psgi_load_f(dtype, data, i); /* exact for <= 32-bit integers and bool */
  }
}

void psgi_store_i(int dtype, void *data, size_t i, int64_t v) {
  switch (dtype) {
  case PSG_DTYPE_INT8: STORE(int8_t)
  case PSG_DTYPE_INT16: STORE(int16_t)
  case PSG_DTYPE_INT32: STORE(int32_t)
  case PSG_DTYPE_INT64: STORE(int64_t)
  case PSG_DTYPE_UINT8: STORE(uint8_t)
  case PSG_DTYPE_UINT16: STORE(uint16_t)
  case PSG_DTYPE_UINT32: STORE(uint32_t)
  case PSG_DTYPE_UINT64: STORE(uint64_t)
  case PSG_DTYPE_BOOL: { uint8_t b = v != 0; memcpy((char *)data + i, &b, 1); return; }
  default: psgi_store_f(dtype, data, i, (double)v); return;
  }
}

#undef LOAD
#undef STORE

/* Failures ----------------------------------------------------------------------- */

psg_status psgi_op_fail(psgi_op_call *call, psg_status code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(call->msg, sizeof call->msg, fmt, ap);
  va_end(ap);
  return code;
}

const char *psgi_shape_str(const psg_type *t, char *buf, size_t len) {
  return psgi_dims_str(t->dims, t->n, buf, len);
}

const char *psgi_dims_str(const int64_t *dims, int ndim, char *buf, size_t len) {
  size_t at = 0;
  if (!len) return buf;
  buf[0] = 0;
#define PUT(...)                                          \
  do {                                                    \
    int k_ = snprintf(buf + at, len - at, __VA_ARGS__);   \
    if (k_ < 0 || (size_t)k_ >= len - at) return buf;     \
    at += (size_t)k_;                                     \
  } while (0)
  PUT("(");
  for (int i = 0; i < ndim; i++) {
    if (dims[i] == PSG_DIM_UNKNOWN) PUT("%s?", i ? ", " : "");
    else PUT("%s%lld", i ? ", " : "", (long long)dims[i]);
  }
  PUT(ndim == 1 ? ",)" : ")");
#undef PUT
  return buf;
}

/* Type relations ----------------------------------------------------------------- */

psg_status psgi_rel_tensor_arg(psgi_op_call *call, const psg_type *const *args, size_t i,
                               const psg_type **out) {
  *out = NULL;
  if (!args[i] || args[i]->kind != PSG_TYPE_TENSOR)
    return psgi_op_fail(call, PSG_ERR_TYPE, "argument %zu of '%s' must be a tensor", i,
                        psgi_op_call_name(call));
  *out = args[i];
  return PSG_OK;
}

psg_status psgi_norm_axis(psgi_op_call *call, int64_t axis, int ndim, int *out) {
  int64_t a = axis < 0 ? axis + ndim : axis;
  if (a < 0 || a >= ndim)
    return psgi_op_fail(call, PSG_ERR_TYPE, "axis %lld is out of range for rank %d", (long long)axis, ndim);
  *out = (int)a;
  return PSG_OK;
}

psg_status psgi_broadcast_dims(psgi_op_call *call, const psg_type *const *ts, size_t n,
                               int64_t *dims, int *ndim) {
  int rank = 0;
  for (size_t k = 0; k < n; k++)
    if (ts[k]->n > rank) rank = ts[k]->n;
  for (int i = 0; i < rank; i++) dims[i] = 1;
  for (size_t k = 0; k < n; k++) {
    const psg_type *t = ts[k];
    for (int j = 0; j < t->n; j++) {
      int i = rank - t->n + j;
      int64_t d = t->dims[j], have = dims[i];
      if (d == 1) continue;
      if (have == 1) {
        dims[i] = d;
      } else if (d == PSG_DIM_UNKNOWN) {
        /* keep the known extent: a well-typed program must match it */
      } else if (have == PSG_DIM_UNKNOWN) {
        dims[i] = d;
      } else if (have != d) {
        char a[128], b[128];
        /* Name the first operand that disagrees and the one before it. */
        return psgi_op_fail(call, PSG_ERR_TYPE, "cannot broadcast %s and %s",
                            psgi_shape_str(ts[k ? k - 1 : 0], a, sizeof a), psgi_shape_str(t, b, sizeof b));
      }
    }
  }
  *ndim = rank;
  return PSG_OK;
}

psg_status psgi_rel_make(psgi_op_call *call, const int64_t *dims, int ndim, int dtype, const psg_type **out) {
  if (ndim >= 0 && ndim <= PSG_MAX_RANK && !psgi_shape_fits(dims, ndim, psg_dtype_size(dtype))) {
    char buf[PSG_MAX_RANK * 22 + 3];
    return psgi_op_fail(call, PSG_ERR_TYPE, "'%s' would produce shape %s of %s, more than INT64_MAX bytes",
                        psgi_op_call_name(call), psgi_dims_str(dims, ndim, buf, sizeof buf),
                        psg_dtype_name(dtype));
  }
  psg_status st = psg_type_tensor(call->ctx, dims, ndim, dtype, out);
  if (st == PSG_ERR_INVALID_ARGUMENT)
    return psgi_op_fail(call, PSG_ERR_TYPE, "'%s' would produce an invalid tensor type (rank %d)",
                        psgi_op_call_name(call), ndim);
  return st;
}

/* Kernels ------------------------------------------------------------------------ */

psg_tensor *psgi_value_as_tensor(const psgi_value *v) {
  return v && v->kind == PSGI_VALUE_TENSOR ? v->u.tensor : NULL;
}

/* The result limit of the call (psgi_op_call.limit_key) against a static
 * tensor type t: PSG_OK, or PSG_ERR_UNSUPPORTED with the sizes in the message. */
static psg_status within_limit(psgi_op_call *call, const psg_type *t) {
  if (!call->limit_key) return PSG_OK;
  int64_t n = (int64_t)psg_dtype_size(t->dtype);
  bool fits = true;
  for (int i = 0; i < t->n && fits; i++) fits = psgi_checked_mul(n, t->dims[i], &n);
  if (fits && (uint64_t)n <= call->max_result_bytes) return PSG_OK;
  char shape[PSG_MAX_RANK * 22 + 3];
  psgi_dims_str(t->dims, t->n, shape, sizeof shape);
  if (!fits)
    return psgi_op_fail(call, PSG_ERR_UNSUPPORTED, "the result, %s of shape %s, has more than 2^63 bytes, over the %llu bytes left of %s",
                        psg_dtype_name(t->dtype), shape, (unsigned long long)call->max_result_bytes, call->limit_key);
  return psgi_op_fail(call, PSG_ERR_UNSUPPORTED, "the result, %s of shape %s, needs %lld bytes, over the %llu bytes left of %s",
                      psg_dtype_name(t->dtype), shape, (long long)n, (unsigned long long)call->max_result_bytes,
                      call->limit_key);
}

psg_status psgi_kernel_alloc(psgi_op_call *call, const psg_type *t, psg_tensor **out, void **data) {
  *out = NULL;
  *data = NULL;
  if (!t || t->kind != PSG_TYPE_TENSOR || !psg_type_is_static(t))
    return psgi_op_fail(call, PSG_ERR_UNSUPPORTED, "'%s' cannot be evaluated on a tensor of unknown shape",
                        psgi_op_call_name(call));
  psg_status lim = within_limit(call, t);
  if (lim) return lim;
  psg_status st = psg_tensor_create(call->ctx, t->dtype, t->dims, t->n, NULL, out);
  if (st) return st == PSG_ERR_NOMEM ? st : psgi_op_fail(call, st, "cannot allocate the result of '%s'",
                                                         psgi_op_call_name(call));
  *data = (void *)(*out)->data; /* private until the kernel hands it over */
  return PSG_OK;
}

psg_status psgi_kernel_alloc_raw(psgi_op_call *call, const psg_type *t, psg_tensor **out, void **data) {
  *out = NULL;
  *data = NULL;
  if (!t || t->kind != PSG_TYPE_TENSOR || !psg_type_is_static(t))
    return psgi_op_fail(call, PSG_ERR_UNSUPPORTED, "'%s' cannot be evaluated on a tensor of unknown shape",
                        psgi_op_call_name(call));
  psg_status lim = within_limit(call, t);
  if (lim) return lim;
  psg_status st = psgi_tensor_alloc(call->ctx, t->dtype, t->dims, t->n, out);
  if (st) return st == PSG_ERR_NOMEM ? st : psgi_op_fail(call, st, "cannot allocate the result of '%s'",
                                                         psgi_op_call_name(call));
  *data = (void *)(*out)->data;
  return PSG_OK;
}

psg_status psgi_kernel_view(psgi_op_call *call, psg_tensor *x, const psg_type *t, psgi_value **out) {
  *out = NULL;
  if (!t || t->kind != PSG_TYPE_TENSOR || !psg_type_is_static(t) || t->dtype != x->dtype)
    return psgi_op_fail(call, PSG_ERR_UNSUPPORTED, "'%s' cannot be evaluated on a tensor of unknown shape",
                        psgi_op_call_name(call));
  psg_tensor *v;
  psg_status st = psgi_tensor_view(call->ctx, x, t->dims, t->n, &v);
  if (st) return st == PSG_ERR_NOMEM ? st : psgi_op_fail(call, st, "cannot allocate the result of '%s'",
                                                         psgi_op_call_name(call));
  return psgi_kernel_result(call, v, out);
}

psg_status psgi_kernel_result(psgi_op_call *call, psg_tensor *t, psgi_value **out) {
  psg_status st = psgi_value_tensor(call->ctx, t, out);
  psg_tensor_release(t);
  return st;
}

int64_t psgi_numel(const int64_t *dims, int ndim) {
  int64_t n = 1;
  for (int i = 0; i < ndim; i++) n *= dims[i];
  return n;
}

void psgi_row_strides(const int64_t *dims, int ndim, int64_t *strides) {
  int64_t s = 1;
  for (int i = ndim - 1; i >= 0; i--) {
    strides[i] = s;
    s *= dims[i];
  }
}

void psgi_bcast_init_shapes(psgi_bcast_iter *it, const int64_t *out_dims, int ndim, const int64_t *const *shapes,
                            const int *ranks, int nops) {
  /* Only what the iteration reads is set: the first ndim entries of each
   * array, nops operands (the iterator is sizable, and kernels on small
   * constants make one per call). */
  it->ndim = ndim;
  it->nops = nops;
  it->out_off = 0;
  memcpy(it->dims, out_dims, (size_t)ndim * sizeof *out_dims);
  memset(it->idx, 0, (size_t)ndim * sizeof *it->idx);
  it->numel = psgi_numel(out_dims, ndim);
  for (int k = 0; k < nops; k++) {
    it->off[k] = 0;
    for (int i = 0; i < ndim - ranks[k]; i++) it->strides[k][i] = 0; /* leading dims the operand lacks */
    int64_t s = 1;
    for (int j = ranks[k] - 1; j >= 0; j--) {
      int i = ndim - ranks[k] + j;
      it->strides[k][i] = shapes[k][j] == 1 ? 0 : s; /* a stretched dim does not advance */
      s *= shapes[k][j];
    }
  }
}

void psgi_bcast_init(psgi_bcast_iter *it, const int64_t *out_dims, int ndim, const psg_type *const *ins,
                     int nops) {
  const int64_t *shapes[PSGI_BCAST_MAX_OPS];
  int ranks[PSGI_BCAST_MAX_OPS];
  for (int k = 0; k < nops; k++) {
    shapes[k] = ins[k]->dims;
    ranks[k] = ins[k]->n;
  }
  psgi_bcast_init_shapes(it, out_dims, ndim, shapes, ranks, nops);
}

bool psgi_bcast_next(psgi_bcast_iter *it) {
  if (++it->out_off >= it->numel) return false;
  for (int i = it->ndim - 1; i >= 0; i--) {
    for (int k = 0; k < it->nops; k++) it->off[k] += it->strides[k][i];
    if (++it->idx[i] < it->dims[i]) return true;
    for (int k = 0; k < it->nops; k++) it->off[k] -= it->strides[k][i] * it->dims[i];
    it->idx[i] = 0;
  }
  return false;
}
