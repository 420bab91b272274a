/* Passage — TIR lane arithmetic with TVM's semantics: two's complement
 * wrap-around computed on uint64 (no signed overflow in C), truncating
 * Div/Mod and flooring FloorDiv/FloorMod, casts as TVM's C code generator
 * emits them (with the undefined float->int cases refused), memory images of
 * every scalar dtype and the libm intrinsics. */
#include <math.h>
#include "interp/tir_eval_internal.h"
#include "ops/kernel_util.h"

int psgi_tir_lane_class(psg_tir_dtype t) {
  switch (psg_tir_dtype_code(t)) {
    case PSG_TIR_CODE_INT: return PSGI_TIR_SINT;
    case PSG_TIR_CODE_UINT: return PSGI_TIR_UINT;
    case PSG_TIR_CODE_FLOAT:
    case PSG_TIR_CODE_BFLOAT: return PSGI_TIR_FLOAT;
    default: return PSGI_TIR_HANDLE;
  }
}

int64_t psgi_tir_wrap(psg_tir_dtype t, uint64_t x) {
  int bits = psg_tir_dtype_bits(t);
  if (bits >= 64) return (int64_t)x;
  uint64_t mask = ((uint64_t)1 << bits) - 1;
  x &= mask;
  if (psgi_tir_lane_class(t) == PSGI_TIR_SINT && (x >> (bits - 1)) & 1) x |= ~mask; /* sign-extend */
  return (int64_t)x;
}

double psgi_tir_round_float(psg_tir_dtype t, double x) {
  switch (psg_tir_dtype_bits(t)) {
    case 64: return x;
    case 32: return (double)(float)x;
    default:
      if (psg_tir_dtype_code(t) == PSG_TIR_CODE_BFLOAT) return psgi_bf16_to_float(psgi_float_to_bf16((float)x));
      return psgi_half_to_float(psgi_float_to_half((float)x));
  }
}

static int64_t floor_div(int64_t a, int64_t b) {
  /* a == INT64_MIN, b == -1 wraps (the caller wraps the uint64 result). */
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

static int64_t floor_mod(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

static bool int_binary(int kind, psg_tir_dtype t, int64_t a, int64_t b, psgi_tir_lane *out) {
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b, r;
  switch (kind) {
    case PSG_TIR_ADD: r = ua + ub; break;
    case PSG_TIR_SUB: r = ua - ub; break;
    case PSG_TIR_MUL: r = ua * ub; break;
    case PSG_TIR_DIV:
      if (b == 0) return false;
      r = b == -1 ? 0 - ua : (uint64_t)(a / b);
      break;
    case PSG_TIR_MOD:
      if (b == 0) return false;
      r = b == -1 ? 0 : (uint64_t)(a % b);
      break;
    case PSG_TIR_FLOOR_DIV:
      if (b == 0) return false;
      r = (uint64_t)floor_div(a, b);
      break;
    case PSG_TIR_FLOOR_MOD:
      if (b == 0) return false;
      r = (uint64_t)floor_mod(a, b);
      break;
    case PSG_TIR_MIN: r = a < b ? ua : ub; break;
    case PSG_TIR_MAX: r = a > b ? ua : ub; break;
    default: return false;
  }
  out->i = psgi_tir_wrap(t, r);
  return true;
}

static bool uint_binary(int kind, psg_tir_dtype t, uint64_t a, uint64_t b, psgi_tir_lane *out) {
  uint64_t r;
  switch (kind) {
    case PSG_TIR_ADD: r = a + b; break;
    case PSG_TIR_SUB: r = a - b; break;
    case PSG_TIR_MUL: r = a * b; break;
    case PSG_TIR_DIV:
    case PSG_TIR_FLOOR_DIV:
      if (b == 0) return false;
      r = a / b;
      break;
    case PSG_TIR_MOD:
    case PSG_TIR_FLOOR_MOD:
      if (b == 0) return false;
      r = a % b;
      break;
    case PSG_TIR_MIN: r = a < b ? a : b; break;
    case PSG_TIR_MAX: r = a > b ? a : b; break;
    default: return false;
  }
  out->i = psgi_tir_wrap(t, r);
  return true;
}

static double float_binary(int kind, double a, double b) {
  switch (kind) {
    case PSG_TIR_ADD: return a + b;
    case PSG_TIR_SUB: return a - b;
    case PSG_TIR_MUL: return a * b;
    case PSG_TIR_DIV: return a / b;
    case PSG_TIR_MOD: return fmod(a, b);
    case PSG_TIR_FLOOR_DIV: return floor(a / b);
    case PSG_TIR_FLOOR_MOD: return a - floor(a / b) * b;
    case PSG_TIR_MIN: return a < b ? a : b; /* as the C code generator's min */
    default: return a > b ? a : b;
  }
}

static bool compare(int kind, int cls, psgi_tir_lane a, psgi_tir_lane b) {
  int c; /* -1, 0, 1; 2 when unordered (a NaN) */
  if (cls == PSGI_TIR_FLOAT)
    c = a.f < b.f ? -1 : a.f > b.f ? 1 : a.f == b.f ? 0 : 2;
  else if (cls == PSGI_TIR_SINT)
    c = a.i < b.i ? -1 : a.i > b.i;
  else
    c = a.u < b.u ? -1 : a.u > b.u;
  switch (kind) {
    case PSG_TIR_EQ: return c == 0;
    case PSG_TIR_NE: return c != 0;
    case PSG_TIR_LT: return c == -1;
    case PSG_TIR_LE: return c == -1 || c == 0;
    case PSG_TIR_GT: return c == 1;
    default: return c == 1 || c == 0;
  }
}

bool psgi_tir_binary_lane(int kind, psg_tir_dtype t, psgi_tir_lane a, psgi_tir_lane b, psgi_tir_lane *out) {
  int cls = psgi_tir_lane_class(t);
  if (kind >= PSG_TIR_EQ && kind <= PSG_TIR_GE) {
    out->u = compare(kind, cls, a, b);
    return true;
  }
  if (kind == PSG_TIR_AND || kind == PSG_TIR_OR) {
    out->u = kind == PSG_TIR_AND ? (a.u && b.u) : (a.u || b.u);
    return true;
  }
  if (cls == PSGI_TIR_FLOAT) {
    out->f = psgi_tir_round_float(t, float_binary(kind, a.f, b.f));
    return true;
  }
  if (cls == PSGI_TIR_SINT) return int_binary(kind, t, a.i, b.i, out);
  return uint_binary(kind, t, a.u, b.u, out);
}

bool psgi_tir_cast_lane(psg_tir_dtype from, psg_tir_dtype to, psgi_tir_lane x, psgi_tir_lane *out) {
  int fc = psgi_tir_lane_class(from), tc = psgi_tir_lane_class(to);
  if (psg_tir_dtype_is_bool(to)) {
    out->u = fc == PSGI_TIR_FLOAT ? x.f != 0 : x.u != 0;
    return true;
  }
  if (tc == PSGI_TIR_FLOAT) {
    double d = fc == PSGI_TIR_FLOAT ? x.f : fc == PSGI_TIR_SINT ? (double)x.i : (double)x.u;
    out->f = psgi_tir_round_float(to, d);
    return true;
  }
  if (tc == PSGI_TIR_HANDLE || fc == PSGI_TIR_HANDLE) {
    out->u = x.u;
    return fc == tc;
  }
  if (fc != PSGI_TIR_FLOAT) { /* integer to integer: keep the low bits */
    out->i = psgi_tir_wrap(to, x.u);
    return true;
  }
  /* Float to integer truncates toward zero; outside the target's range
   * (or NaN) it is undefined in C, so it is refused. */
  double d = trunc(x.f);
  int bits = psg_tir_dtype_bits(to);
  if (tc == PSGI_TIR_SINT) {
    double lo = -ldexp(1.0, bits - 1), hi = ldexp(1.0, bits - 1);
    if (!(d >= lo && d < hi)) return false;
    out->i = (int64_t)d;
  } else {
    if (!(d >= 0 && d < ldexp(1.0, bits))) return false;
    out->u = (uint64_t)d;
  }
  return true;
}

size_t psgi_tir_scalar_bytes(psg_tir_dtype t) {
  int bits = psg_tir_dtype_bits(t);
  return bits < 8 ? 1 : (size_t)bits / 8;
}

uint64_t psgi_tir_lane_bits(psg_tir_dtype t, psgi_tir_lane x) {
  if (psgi_tir_lane_class(t) != PSGI_TIR_FLOAT) {
    int bits = psg_tir_dtype_bits(t);
    return bits >= 64 ? x.u : x.u & (((uint64_t)1 << bits) - 1);
  }
  switch (psg_tir_dtype_bits(t)) {
    case 64: {
      uint64_t b;
      memcpy(&b, &x.f, 8);
      return b;
    }
    case 32: {
      float f = (float)x.f;
      uint32_t b;
      memcpy(&b, &f, 4);
      return b;
    }
    default:
      return psg_tir_dtype_code(t) == PSG_TIR_CODE_BFLOAT ? psgi_float_to_bf16((float)x.f)
                                                           : psgi_float_to_half((float)x.f);
  }
}

psgi_tir_lane psgi_tir_lane_from_bits(psg_tir_dtype t, uint64_t bits) {
  psgi_tir_lane r;
  if (psgi_tir_lane_class(t) != PSGI_TIR_FLOAT) {
    r.i = psgi_tir_wrap(t, bits);
    if (psg_tir_dtype_is_bool(t)) r.u = bits != 0;
    return r;
  }
  switch (psg_tir_dtype_bits(t)) {
    case 64: memcpy(&r.f, &bits, 8); break;
    case 32: {
      uint32_t b = (uint32_t)bits;
      float f;
      memcpy(&f, &b, 4);
      r.f = f;
      break;
    }
    default:
      r.f = psg_tir_dtype_code(t) == PSG_TIR_CODE_BFLOAT ? psgi_bf16_to_float((uint16_t)bits)
                                                          : psgi_half_to_float((uint16_t)bits);
  }
  return r;
}

/* Memory is little-endian, as psg_tensor's. */
void psgi_tir_store_lane(psg_tir_dtype t, void *p, psgi_tir_lane x) {
  uint64_t bits = psgi_tir_lane_bits(t, x);
  uint8_t *b = p;
  for (size_t i = 0, n = psgi_tir_scalar_bytes(t); i < n; i++) b[i] = (uint8_t)(bits >> (8 * i));
}

psgi_tir_lane psgi_tir_load_lane(psg_tir_dtype t, const void *p) {
  const uint8_t *b = p;
  uint64_t bits = 0;
  for (size_t i = 0, n = psgi_tir_scalar_bytes(t); i < n; i++) bits |= (uint64_t)b[i] << (8 * i);
  return psgi_tir_lane_from_bits(t, bits);
}

/* Math ------------------------------------------------------------------------ */
static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static double rsqrt(double x) { return 1.0 / sqrt(x); }
static double exp10_(double x) { return pow(10.0, x); }
static double ldexp_(double x, double e) {
  /* The exponent is an integer in a float; clamp it so the int conversion is defined. */
  double c = e > 100000 ? 100000 : e < -100000 ? -100000 : e;
  return ldexp(x, (int)c);
}
static double is_nan(double x) { return isnan(x) ? 1 : 0; }
static double is_inf(double x) { return isinf(x) ? 1 : 0; }
static double is_finite(double x) { return isfinite(x) ? 1 : 0; }

typedef struct math_entry {
  const char *name; /* the tir.* name without "tir." (NULL: a libm name only) */
  const char *c32, *c64; /* the libm names call_extern may use */
  psgi_tir_math1 f1;
  psgi_tir_math2 f2;
  bool pred;
} math_entry;

/* TVM's round is nearbyint (halfway cases to even), like its LLVM lowering. */
static const math_entry math_table[] = {
    {"exp", "expf", "exp", exp, NULL, false},         {"exp2", "exp2f", "exp2", exp2, NULL, false},
    {"exp10", "exp10f", "exp10", exp10_, NULL, false}, {"log", "logf", "log", log, NULL, false},
    {"log2", "log2f", "log2", log2, NULL, false},     {"log10", "log10f", "log10", log10, NULL, false},
    {"log1p", "log1pf", "log1p", log1p, NULL, false}, {"sqrt", "sqrtf", "sqrt", sqrt, NULL, false},
    {"rsqrt", NULL, NULL, rsqrt, NULL, false},        {"tanh", "tanhf", "tanh", tanh, NULL, false},
    {"sigmoid", NULL, NULL, sigmoid, NULL, false},    {"erf", "erff", "erf", erf, NULL, false},
    {"pow", "powf", "pow", NULL, pow, false},         {"fabs", "fabsf", "fabs", fabs, NULL, false},
    {"floor", "floorf", "floor", floor, NULL, false}, {"ceil", "ceilf", "ceil", ceil, NULL, false},
    {"round", NULL, NULL, nearbyint, NULL, false},
    {NULL, "roundf", "round", round, NULL, false}, /* C's round: halfway cases away from zero */
    {"nearbyint", "nearbyintf", "nearbyint", nearbyint, NULL, false},
    {"trunc", "truncf", "trunc", trunc, NULL, false}, {"sin", "sinf", "sin", sin, NULL, false},
    {"cos", "cosf", "cos", cos, NULL, false},         {"tan", "tanf", "tan", tan, NULL, false},
    {"asin", "asinf", "asin", asin, NULL, false},     {"acos", "acosf", "acos", acos, NULL, false},
    {"atan", "atanf", "atan", atan, NULL, false},     {"atan2", "atan2f", "atan2", NULL, atan2, false},
    {"sinh", "sinhf", "sinh", sinh, NULL, false},     {"cosh", "coshf", "cosh", cosh, NULL, false},
    {"asinh", "asinhf", "asinh", asinh, NULL, false}, {"acosh", "acoshf", "acosh", acosh, NULL, false},
    {"atanh", "atanhf", "atanh", atanh, NULL, false}, {"fmod", "fmodf", "fmod", NULL, fmod, false},
    {"copysign", "copysignf", "copysign", NULL, copysign, false},
    {"hypot", "hypotf", "hypot", NULL, hypot, false}, {"ldexp", "ldexpf", "ldexp", NULL, ldexp_, false},
    {"nextafter", "nextafterf", "nextafter", NULL, nextafter, false},
    {"isnan", NULL, NULL, is_nan, NULL, true},        {"isinf", NULL, NULL, is_inf, NULL, true},
    {"isfinite", NULL, NULL, is_finite, NULL, true},
};

bool psgi_tir_math_find(const char *name, int *nargs, psgi_tir_math1 *f1, psgi_tir_math2 *f2,
                        bool *is_pred) {
  for (size_t i = 0; i < sizeof math_table / sizeof *math_table; i++) {
    const math_entry *m = &math_table[i];
    if (!(m->name && strcmp(m->name, name) == 0) && !(m->c32 && strcmp(m->c32, name) == 0) &&
        !(m->c64 && strcmp(m->c64, name) == 0))
      continue;
    *nargs = m->f1 ? 1 : 2;
    *f1 = m->f1;
    *f2 = m->f2;
    *is_pred = m->pred;
    return true;
  }
  return false;
}
