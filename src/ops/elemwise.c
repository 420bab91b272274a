/* Passage — the elementwise family (issue 5): the scalar function of each
 * arithmetic, comparison and math op, the two drivers that map them over
 * tensors (binary with broadcasting, unary), and psgi_impls_elemwise, which
 * joins every elementwise and creation op to its relation and kernel. The
 * creation, cast and select kernels are in elemwise_data.c.
 *
 * Each op is written once per domain: float (float32, float16, bfloat16, so
 * float32 results match a float32 runtime bit for bit on the basic ops),
 * double (float64) and int64 with explicit wrap-around and traps (integers
 * and bool). <tgmath.h> lets one expression serve float and double. */
#include <tgmath.h>
#include "ops/elemwise.h"

/* Binary ------------------------------------------------------------------------ */

/* The integer form returns false on a trap (division by zero); `uns` says the
 * operands are unsigned (uint64 values above INT64_MAX arrive negative). */
typedef struct binop {
  float (*f32)(float, float);
  double (*f64)(double, double);
  bool (*i64)(int64_t a, int64_t b, bool uns, int64_t *r);
  /* float32 rows: o[j] = f32(a[j * xa], b[j * xb]) for j < m; NULL gives
   * the generic row calling f32 per element. */
  void (*row32)(float *o, const float *a, int64_t xa, const float *b, int64_t xb, int64_t m);
} binop;

#define FBIN(name, expr)                                              \
  static float name##_f32(float a, float b) { return (float)(expr); } \
  static double name##_f64(double a, double b) { return (expr); }

/* A float32 row with the op inlined (it vectorizes; the same IEEE operation
 * as name##_f32, so the same bits), specialized for the strides FoldConstant
 * meets: a scale or bias per channel (xb == 0), same shapes (1, 1). */
#define FROW(name)                                                                                  \
  static void name##_row32(float *o, const float *a, int64_t xa, const float *b, int64_t xb, int64_t m) { \
    if (xa == 1 && xb == 0) {                                                                       \
      float y = b[0];                                                                               \
      for (int64_t j = 0; j < m; j++) o[j] = name##_f32(a[j], y);                                   \
    } else if (xa == 1 && xb == 1) {                                                                \
      for (int64_t j = 0; j < m; j++) o[j] = name##_f32(a[j], b[j]);                                \
    } else if (xa == 0 && xb == 1) {                                                                \
      float x = a[0];                                                                               \
      for (int64_t j = 0; j < m; j++) o[j] = name##_f32(x, b[j]);                                   \
    } else {                                                                                        \
      for (int64_t j = 0; j < m; j++) o[j] = name##_f32(a[j * xa], b[j * xb]);                      \
    }                                                                                               \
  }

FBIN(add, a + b)
FBIN(sub, a - b)
FBIN(mul, a * b)
FBIN(div, a / b)
FROW(add)
FROW(sub)
FROW(mul)
FROW(div)
FBIN(pow, pow(a, b))
/* NaN propagates, as in NumPy and ONNX Max/Min. */
FBIN(max, a != a ? a : b != b ? b : a > b ? a : b)
FBIN(min, a != a ? a : b != b ? b : a < b ? a : b)
FBIN(floordiv, floor(a / b))
/* TVM's floormod for floats: a - floor(a / b) * b. */
FBIN(floormod, a - floor(a / b) * b)
FBIN(eq, a == b)
FBIN(ne, a != b)
FBIN(gt, a > b)
FBIN(ge, a >= b)
FBIN(lt, a < b)
FBIN(le, a <= b)
FBIN(and, a != 0 && b != 0)
/* Never called: the shifts' relation takes integers only. */
FBIN(shl, a * b)
FBIN(shr, a * b)
FBIN(or, a != 0 || b != 0)

/* Wrapping arithmetic goes through uint64 (signed overflow is undefined). */
static bool add_i(int64_t a, int64_t b, bool uns, int64_t *r) {
  (void)uns;
  *r = (int64_t)((uint64_t)a + (uint64_t)b);
  return true;
}
static bool sub_i(int64_t a, int64_t b, bool uns, int64_t *r) {
  (void)uns;
  *r = (int64_t)((uint64_t)a - (uint64_t)b);
  return true;
}
static bool mul_i(int64_t a, int64_t b, bool uns, int64_t *r) {
  (void)uns;
  *r = (int64_t)((uint64_t)a * (uint64_t)b);
  return true;
}
/* C's truncating division, which is TVM's `divide` on integers. */
static bool div_i(int64_t a, int64_t b, bool uns, int64_t *r) {
  if (b == 0) return false;
  if (uns) *r = (int64_t)((uint64_t)a / (uint64_t)b);
  else if (b == -1) *r = (int64_t)(0 - (uint64_t)a); /* INT64_MIN / -1 wraps */
  else *r = a / b;
  return true;
}
static bool floordiv_i(int64_t a, int64_t b, bool uns, int64_t *r) {
  if (!div_i(a, b, uns, r)) return false;
  if (!uns && b != -1 && a % b != 0 && ((a < 0) != (b < 0))) (*r)--;
  return true;
}
static bool floormod_i(int64_t a, int64_t b, bool uns, int64_t *r) {
  if (b == 0) return false;
  if (uns) {
    *r = (int64_t)((uint64_t)a % (uint64_t)b);
  } else if (b == -1) {
    *r = 0; /* INT64_MIN % -1 is undefined in C */
  } else {
    int64_t m = a % b;
    *r = m != 0 && ((m < 0) != (b < 0)) ? m + b : m;
  }
  return true;
}
static bool pow_i(int64_t a, int64_t b, bool uns, int64_t *r) {
  if (!uns && b < 0) {
    /* 1 / a^-b truncated: only 1 and -1 survive; 0 is a division by zero. */
    if (a == 0) return false;
    *r = a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
    return true;
  }
  uint64_t base = (uint64_t)a, e = (uint64_t)b, acc = 1;
  while (e) {
    if (e & 1) acc *= base;
    base *= base;
    e >>= 1;
  }
  *r = (int64_t)acc;
  return true;
}
/* Shifts (integers only, by the relation): an amount outside [0, 64) shifts
 * everything out (TVM leaves it undefined); a narrower dtype wraps on store. */
static bool shl_i(int64_t a, int64_t b, bool uns, int64_t *r) {
  (void)uns;
  *r = b < 0 || b >= 64 ? 0 : (int64_t)((uint64_t)a << b);
  return true;
}
static bool shr_i(int64_t a, int64_t b, bool uns, int64_t *r) {
  if (uns) *r = b < 0 || b >= 64 ? 0 : (int64_t)((uint64_t)a >> b);
  else *r = b < 0 || b >= 64 ? (a < 0 ? -1 : 0) : a >> b; /* arithmetic, as TVM's >> on signed ints */
  return true;
}
static bool max_i(int64_t a, int64_t b, bool uns, int64_t *r) {
  *r = (uns ? (uint64_t)a > (uint64_t)b : a > b) ? a : b;
  return true;
}
static bool min_i(int64_t a, int64_t b, bool uns, int64_t *r) {
  *r = (uns ? (uint64_t)a < (uint64_t)b : a < b) ? a : b;
  return true;
}
static int cmp_i(int64_t a, int64_t b, bool uns) {
  if (uns) return (uint64_t)a < (uint64_t)b ? -1 : (uint64_t)a > (uint64_t)b;
  return a < b ? -1 : a > b;
}
#define CMP(name, test)                                               \
  static bool name##_i(int64_t a, int64_t b, bool uns, int64_t *r) { \
    int c = cmp_i(a, b, uns);                                         \
    *r = (test);                                                      \
    return true;                                                      \
  }
CMP(eq, c == 0)
CMP(ne, c != 0)
CMP(gt, c > 0)
CMP(ge, c >= 0)
CMP(lt, c < 0)
CMP(le, c <= 0)
static bool and_i(int64_t a, int64_t b, bool uns, int64_t *r) {
  (void)uns;
  *r = a != 0 && b != 0;
  return true;
}
static bool or_i(int64_t a, int64_t b, bool uns, int64_t *r) {
  (void)uns;
  *r = a != 0 || b != 0;
  return true;
}

static bool is_unsigned(int dtype) { return dtype >= PSG_DTYPE_UINT8 && dtype <= PSG_DTYPE_UINT64; }

/* float32 in, float32 out: dims whose strides allow it are merged, and the
 * innermost run is a tight loop (FoldConstant folds whole weight tensors). */
static void binary_f32(const psgi_bcast_iter *it, const float *a, const float *b, float *o, const binop *op) {
  float (*f)(float, float) = op->f32;
  int64_t d[PSG_MAX_RANK], sa[PSG_MAX_RANK], sb[PSG_MAX_RANK], idx[PSG_MAX_RANK];
  int n = 0;
  for (int i = 0; i < it->ndim; i++) {
    int64_t di = it->dims[i], ai = it->strides[0][i], bi = it->strides[1][i];
    if (di == 1) continue;
    if (n && sa[n - 1] == ai * di && sb[n - 1] == bi * di) {
      d[n - 1] *= di;
      sa[n - 1] = ai;
      sb[n - 1] = bi;
    } else {
      d[n] = di;
      sa[n] = ai;
      sb[n] = bi;
      idx[n++] = 0;
    }
  }
  if (n == 0) {
    o[0] = f(a[0], b[0]);
    return;
  }
  int last = n - 1;
  int64_t ia = 0, ib = 0, k = 0, m = d[last], xa = sa[last], xb = sb[last];
  for (;;) {
    if (op->row32) {
      op->row32(o + k, a + ia, xa, b + ib, xb, m);
    } else if (xa == 1 && xb == 0) {
      float y = b[ib];
      for (int64_t j = 0; j < m; j++) o[k + j] = f(a[ia + j], y);
    } else if (xa == 1 && xb == 1) {
      for (int64_t j = 0; j < m; j++) o[k + j] = f(a[ia + j], b[ib + j]);
    } else {
      for (int64_t j = 0; j < m; j++) o[k + j] = f(a[ia + j * xa], b[ib + j * xb]);
    }
    k += m;
    int i = last - 1;
    for (; i >= 0; i--) {
      ia += sa[i];
      ib += sb[i];
      if (++idx[i] < d[i]) break;
      ia -= sa[i] * d[i];
      ib -= sb[i] * d[i];
      idx[i] = 0;
    }
    if (i < 0) return;
  }
}

/* Maps op over the broadcast operands; the result is computed in the
 * operands' domain and stored in the output dtype (bool for comparisons). */
static psg_status binary_run(psgi_op_call *call, psgi_value *const *args, const psg_type *out_type,
                             psgi_value **out, const binop *op) {
  *out = NULL;
  psg_tensor *a = psgi_value_as_tensor(args[0]), *b = psgi_value_as_tensor(args[1]), *t;
  const int64_t *shapes[2] = {a->shape, b->shape};
  int ranks[2] = {a->ndim, b->ndim};
  void *o;
  /* Every element is written below, or the tensor is dropped. */
  psg_status st = psgi_kernel_alloc_raw(call, out_type, &t, &o);
  if (st) return st;
  int dt = a->dtype, odt = out_type->dtype, cls = psgi_dtype_class(dt);
  bool uns = is_unsigned(dt);
  psgi_bcast_iter it;
  psgi_bcast_init_shapes(&it, out_type->dims, out_type->n, shapes, ranks, 2);
  if (dt == PSG_DTYPE_FLOAT32 && odt == PSG_DTYPE_FLOAT32 && b->dtype == PSG_DTYPE_FLOAT32) {
    if (it.numel) binary_f32(&it, a->data, b->data, o, op);
    return psgi_kernel_result(call, t, out);
  }
  if (it.numel) do {
      size_t i = (size_t)it.off[0], j = (size_t)it.off[1], k = (size_t)it.out_off;
      if (cls == PSGI_CLASS_F32) {
        psgi_store_f(odt, o, k, op->f32((float)psgi_load_f(dt, a->data, i), (float)psgi_load_f(dt, b->data, j)));
      } else if (cls == PSGI_CLASS_F64) {
        psgi_store_f(odt, o, k, op->f64(psgi_load_f(dt, a->data, i), psgi_load_f(dt, b->data, j)));
      } else {
        int64_t r;
        if (!op->i64(psgi_load_i(dt, a->data, i), psgi_load_i(dt, b->data, j), uns, &r)) {
          psg_tensor_release(t);
          return psgi_op_fail(call, PSG_ERR_INVALID_ARGUMENT, "%s: integer division by zero",
                              psgi_op_table[call->op].name);
        }
        psgi_store_i(odt, o, k, r);
      }
    } while (psgi_bcast_next(&it));
  return psgi_kernel_result(call, t, out);
}

#define BINARY_ROW(op, fns, row)                                                                     \
  static const binop op##_fns = {fns##_f32, fns##_f64, fns##_i, row};                                \
  static psg_status op##_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,           \
                                const psg_type *out_type, psgi_value **out) {                        \
    (void)nargs;                                                                                     \
    return binary_run(call, args, out_type, out, &op##_fns);                                         \
  }
#define BINARY(op, fns) BINARY_ROW(op, fns, NULL)
BINARY_ROW(add, add, add_row32)
BINARY_ROW(subtract, sub, sub_row32)
BINARY_ROW(multiply, mul, mul_row32)
BINARY_ROW(divide, div, div_row32)
BINARY(power, pow)
BINARY(maximum, max)
BINARY(minimum, min)
BINARY(floor_divide, floordiv)
BINARY(floor_mod, floormod)
BINARY(equal, eq)
BINARY(not_equal, ne)
BINARY(greater, gt)
BINARY(greater_equal, ge)
BINARY(less, lt)
BINARY(less_equal, le)
BINARY(logical_and, and)
BINARY(logical_or, or)
BINARY(left_shift, shl)
BINARY(right_shift, shr)

/* Broadcasting of two integer tensors (TVM's shifts are integer ops). */
static psg_status shift_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  psg_status st = psgi_rel_broadcast(call, args, nargs, out);
  if (!st && (psg_dtype_is_float((*out)->dtype) || (*out)->dtype == PSG_DTYPE_BOOL))
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: needs integer operands, not %s", psgi_op_table[call->op].name,
                        psg_dtype_name((*out)->dtype));
  return st;
}

/* Unary ------------------------------------------------------------------------- */

/* i64 NULL: integers are computed in double and stored back (sqrt of an
 * int32 tensor truncates, as a cast of the float result would). */
typedef struct unop {
  float (*f32)(float);
  double (*f64)(double);
  int64_t (*i64)(int64_t x, bool uns);
} unop;

#define FUN(name, expr)                                       \
  static float name##_f32(float x) { return (float)(expr); } \
  static double name##_f64(double x) { return (expr); }

FUN(sqrt, sqrt(x))
FUN(rsqrt, 1 / sqrt(x))
FUN(exp, exp(x))
FUN(log, log(x))
FUN(neg, -x)
FUN(abs, fabs(x))
FUN(sign, x > 0 ? 1 : x < 0 ? -1 : x) /* keeps -0 and NaN */
FUN(sigmoid, 1 / (1 + exp(-x)))
FUN(tanh, tanh(x))
FUN(erf, erf(x))
FUN(floor, floor(x))
FUN(ceil, ceil(x))
FUN(round, nearbyint(x)) /* the default rounding mode: half to even */
FUN(trunc, trunc(x))
FUN(isnan, x != x)
FUN(not, x == 0)

static int64_t neg_i(int64_t x, bool uns) {
  (void)uns;
  return (int64_t)(0 - (uint64_t)x);
}
static int64_t abs_i(int64_t x, bool uns) { return !uns && x < 0 ? neg_i(x, uns) : x; }
static int64_t sign_i(int64_t x, bool uns) { return uns ? x != 0 : (x > 0) - (x < 0); }
static int64_t same_i(int64_t x, bool uns) {
  (void)uns;
  return x;
}
static int64_t isnan_i(int64_t x, bool uns) {
  (void)x, (void)uns;
  return 0;
}
static int64_t not_i(int64_t x, bool uns) {
  (void)uns;
  return x == 0;
}

static psg_status unary_run(psgi_op_call *call, psgi_value *const *args, const psg_type *out_type,
                            psgi_value **out, const unop *op) {
  *out = NULL;
  psg_tensor *a = psgi_value_as_tensor(args[0]), *t;
  void *o;
  /* Every element is written below. */
  psg_status st = psgi_kernel_alloc_raw(call, out_type, &t, &o);
  if (st) return st;
  int dt = a->dtype, odt = out_type->dtype, cls = psgi_dtype_class(dt);
  bool uns = is_unsigned(dt);
  if (cls == PSGI_CLASS_INT && !op->i64) cls = PSGI_CLASS_F64;
  size_t n = (size_t)psgi_numel(out_type->dims, out_type->n);
  if (dt == PSG_DTYPE_FLOAT32 && odt == PSG_DTYPE_FLOAT32) {
    const float *x = a->data;
    float *y = o;
    for (size_t i = 0; i < n; i++) y[i] = op->f32(x[i]);
    return psgi_kernel_result(call, t, out);
  }
  for (size_t i = 0; i < n; i++) {
    if (cls == PSGI_CLASS_F32) psgi_store_f(odt, o, i, op->f32((float)psgi_load_f(dt, a->data, i)));
    else if (cls == PSGI_CLASS_F64) psgi_store_f(odt, o, i, op->f64(psgi_load_f(dt, a->data, i)));
    else psgi_store_i(odt, o, i, op->i64(psgi_load_i(dt, a->data, i), uns));
  }
  return psgi_kernel_result(call, t, out);
}

#define UNARY(op, fns, ints)                                                                         \
  static const unop op##_fns = {fns##_f32, fns##_f64, ints};                                         \
  static psg_status op##_kernel(psgi_op_call *call, psgi_value *const *args, size_t nargs,           \
                                const psg_type *out_type, psgi_value **out) {                        \
    (void)nargs;                                                                                     \
    return unary_run(call, args, out_type, out, &op##_fns);                                          \
  }
UNARY(sqrt, sqrt, NULL)
UNARY(rsqrt, rsqrt, NULL)
UNARY(exp, exp, NULL)
UNARY(log, log, NULL)
UNARY(negative, neg, neg_i)
UNARY(abs, abs, abs_i)
UNARY(sign, sign, sign_i)
UNARY(sigmoid, sigmoid, NULL)
UNARY(tanh, tanh, NULL)
UNARY(erf, erf, NULL)
UNARY(floor, floor, same_i)
UNARY(ceil, ceil, same_i)
UNARY(round, round, same_i)
UNARY(trunc, trunc, same_i)
UNARY(isnan, isnan, isnan_i)
UNARY(logical_not, not, not_i)

/* The table ---------------------------------------------------------------------- */

enum { EW = PSGI_PATTERN_ELEMWISE, BC = PSGI_PATTERN_BROADCAST, INJ = PSGI_PATTERN_INJECTIVE };

/* The fast_* variants are TVM's approximations; the reference kernels give
 * the exact function, which is within the approximations' error bounds. */
const psgi_op_impl psgi_impls_elemwise[] = {
    {"add", psgi_rel_broadcast, add_kernel, false, BC},
    {"subtract", psgi_rel_broadcast, subtract_kernel, false, BC},
    {"multiply", psgi_rel_broadcast, multiply_kernel, false, BC},
    {"divide", psgi_rel_broadcast, divide_kernel, false, BC},
    {"power", psgi_rel_broadcast, power_kernel, false, BC},
    {"maximum", psgi_rel_broadcast, maximum_kernel, false, BC},
    {"minimum", psgi_rel_broadcast, minimum_kernel, false, BC},
    {"floor_divide", psgi_rel_broadcast, floor_divide_kernel, false, BC},
    {"floor_mod", psgi_rel_broadcast, floor_mod_kernel, false, BC},
    {"equal", psgi_rel_broadcast_cmp, equal_kernel, false, BC},
    {"not_equal", psgi_rel_broadcast_cmp, not_equal_kernel, false, BC},
    {"greater", psgi_rel_broadcast_cmp, greater_kernel, false, BC},
    {"greater_equal", psgi_rel_broadcast_cmp, greater_equal_kernel, false, BC},
    {"less", psgi_rel_broadcast_cmp, less_kernel, false, BC},
    {"less_equal", psgi_rel_broadcast_cmp, less_equal_kernel, false, BC},
    {"logical_and", psgi_rel_broadcast, logical_and_kernel, false, BC},
    {"logical_or", psgi_rel_broadcast, logical_or_kernel, false, BC},
    {"logical_not", psgi_rel_identity, logical_not_kernel, false, EW},
    {"left_shift", shift_rel, left_shift_kernel, false, BC},
    {"right_shift", shift_rel, right_shift_kernel, false, BC},
    {"where", psgi_rel_where, psgi_kernel_where, false, BC},
    {"sqrt", psgi_rel_identity, sqrt_kernel, false, EW},
    {"rsqrt", psgi_rel_identity, rsqrt_kernel, false, EW},
    {"exp", psgi_rel_identity, exp_kernel, false, EW},
    {"fast_exp", psgi_rel_identity, exp_kernel, false, EW},
    {"log", psgi_rel_identity, log_kernel, false, EW},
    {"negative", psgi_rel_identity, negative_kernel, false, EW},
    {"abs", psgi_rel_identity, abs_kernel, false, EW},
    {"sign", psgi_rel_identity, sign_kernel, false, EW},
    {"sigmoid", psgi_rel_identity, sigmoid_kernel, false, EW},
    {"tanh", psgi_rel_identity, tanh_kernel, false, EW},
    {"fast_tanh", psgi_rel_identity, tanh_kernel, false, EW},
    {"erf", psgi_rel_identity, erf_kernel, false, EW},
    {"fast_erf", psgi_rel_identity, erf_kernel, false, EW},
    {"floor", psgi_rel_identity, floor_kernel, false, EW},
    {"ceil", psgi_rel_identity, ceil_kernel, false, EW},
    {"round", psgi_rel_identity, round_kernel, false, EW},
    {"trunc", psgi_rel_identity, trunc_kernel, false, EW},
    {"isnan", psgi_rel_unary_bool, isnan_kernel, false, EW},
    {"clip", psgi_rel_identity, psgi_kernel_clip, false, EW},
    {"cast", psgi_rel_cast, psgi_kernel_cast, false, EW},
    {"copy", psgi_rel_identity, psgi_kernel_copy, false, EW},
    {"zeros_like", psgi_rel_identity, psgi_kernel_zeros_like, false, EW},
    {"ones_like", psgi_rel_identity, psgi_kernel_ones_like, false, EW},
    {"full_like", psgi_rel_full_like, psgi_kernel_full_like, false, EW},
    {"zeros", psgi_rel_init, psgi_kernel_zeros, false, EW},
    {"ones", psgi_rel_init, psgi_kernel_ones, false, EW},
    {"full", psgi_rel_full, psgi_kernel_full, false, EW},
    {"arange", psgi_rel_arange, psgi_kernel_arange, false, INJ},
    {NULL, NULL, NULL, false, 0},
};
