/* Passage — SimplifyExpr's cast and clip rewrites from TVM's simplify_expr.cc
 * (see simplify_expr.h): consecutive casts whose first one widens, casts
 * after a clip whose range every one of them holds, and a clip whose range
 * holds its dtype's. Widening follows TVM's loose order int < uint < float
 * (int32 -> float32 counts as widening there, so it does here). */
#include <float.h>
#include <math.h>
#include "ops/op_impl.h"
#include "transforms/simplify_expr.h"

/* By op table index (rules test every call): no name compared. */
static bool is_call_of(const psg_expr *e, size_t op) { return psgi_call_op_id(e) == (ptrdiff_t)op; }

static psg_expr *arg(const psg_expr *call, int i) { return call->kids[1 + i]; }

/* TVM's type code of a dtype: int 0, uint 1 (bool too), float 2, bfloat 4. */
static int type_code(int dtype) {
  if (dtype == PSG_DTYPE_BFLOAT16) return 4;
  if (psg_dtype_is_float(dtype)) return 2;
  if (dtype == PSG_DTYPE_BOOL || (dtype >= PSG_DTYPE_UINT8 && dtype <= PSG_DTYPE_UINT64)) return 1;
  return 0;
}

static int bits(int dtype) { return dtype == PSG_DTYPE_BOOL ? 1 : (int)psg_dtype_size(dtype) * 8; }

/* Whether a cast from `from` to `to` keeps at least the precision (TVM's IsWidenCast). */
static bool widen_cast(int from, int to) {
  int cf = type_code(from), ct = type_code(to);
  if (cf == ct && bits(from) <= bits(to)) return true;
  if (cf == 4 || ct == 4) return false; /* a bfloat16 cast never goes */
  return cf < ct && bits(from) <= bits(to);
}

/* The range of values of a dtype. */
static void dtype_range(int dtype, double *lo, double *hi) {
  switch (dtype) {
  case PSG_DTYPE_FLOAT16: *lo = -65504.0, *hi = 65504.0; return;
  case PSG_DTYPE_BFLOAT16: *lo = -3.38953139e38, *hi = 3.38953139e38; return;
  case PSG_DTYPE_FLOAT32: *lo = -FLT_MAX, *hi = FLT_MAX; return;
  case PSG_DTYPE_FLOAT64: *lo = -DBL_MAX, *hi = DBL_MAX; return;
  case PSG_DTYPE_BOOL: *lo = 0, *hi = 1; return;
  default: break;
  }
  int n = bits(dtype); /* 2^n in double: no shift of a 64-bit integer by 63 or 64 */
  if (type_code(dtype) == 1) *lo = 0, *hi = ldexp(1.0, n) - 1;
  else *lo = -ldexp(1.0, n - 1), *hi = ldexp(1.0, n - 1) - 1;
}

static int dtype_of(const psg_expr *e) {
  const psg_type *t = psgi_tensor_type_of(e);
  return t ? t->dtype : PSG_DTYPE_INVALID;
}

static psg_expr *cast_to(psgi_built *b, psg_expr *x, int dtype) {
  psg_attrs *a = psgi_build_attrs(b, (const char *[]){"dtype"}, (psg_attr *[]){psgi_build_attr_dtype(b, dtype)}, 1);
  return a ? psgi_build_call_typed(b, "cast", &x, 1, a) : NULL;
}

psg_expr *psgi_simplify_consecutive_cast(psgi_built *b, const psg_expr *now) {
  if (!is_call_of(now, PSGI_OP_cast) || !is_call_of(arg(now, 0), PSGI_OP_cast) || !now->checked_type) return NULL;
  psg_expr *inner = arg(now, 0), *data = arg(inner, 0);
  int from = dtype_of(data), mid = dtype_of(inner), to = dtype_of(now);
  if (!from || !mid || !to || !widen_cast(from, mid)) return NULL; /* a narrowing cast stays */
  if (from == to) return psgi_type_of(data) == now->checked_type ? data : NULL;
  psg_expr *out = cast_to(b, data, to);
  return out && out->checked_type == now->checked_type ? out : NULL;
}

/* cast(...cast(clip(x))): the casts whose dtype holds the clip's range go;
 * a final cast to the result's dtype is added when the last kept one (or the
 * clip) has another. */
psg_expr *psgi_simplify_clip_casts(psgi_built *b, const psg_expr *now) {
  if (!is_call_of(now, PSGI_OP_cast) || !now->checked_type) return NULL;
  const psg_expr *casts[16];
  int n = 0;
  const psg_expr *e = now;
  while (is_call_of(e, PSGI_OP_cast) && n < 16) casts[n++] = e, e = arg(e, 0);
  if (!is_call_of(e, PSGI_OP_clip)) return NULL;
  psg_expr *clip = (psg_expr *)e, *res = clip;
  double a_min = psgi_attr_float(clip->u.attrs, "a_min", 0), a_max = psgi_attr_float(clip->u.attrs, "a_max", 0);
  bool keep[16];
  int kept = 0, last = dtype_of(clip);
  for (int i = n - 1; i >= 0; i--) { /* innermost first */
    double lo, hi;
    dtype_range(dtype_of(casts[i]), &lo, &hi);
    keep[i] = !(a_max <= hi && a_min >= lo);
    if (keep[i]) kept++, last = dtype_of(casts[i]);
  }
  bool extra = last != now->checked_type->dtype;
  if (kept + extra >= n) return NULL; /* nothing would go */
  for (int i = n - 1; i >= 0; i--)
    if (keep[i]) res = cast_to(b, res, dtype_of(casts[i]));
  if (extra) res = cast_to(b, res, now->checked_type->dtype);
  return res && res->checked_type == now->checked_type ? res : NULL;
}

psg_expr *psgi_simplify_clip(const psg_expr *now) {
  if (!is_call_of(now, PSGI_OP_clip) || !now->checked_type || now->checked_type->kind != PSG_TYPE_TENSOR) return NULL;
  double lo, hi;
  dtype_range(now->checked_type->dtype, &lo, &hi);
  double a_min = psgi_attr_float(now->u.attrs, "a_min", 0), a_max = psgi_attr_float(now->u.attrs, "a_max", 0);
  psg_expr *x = arg(now, 0);
  return a_max >= hi && a_min <= lo && psgi_type_of(x) == now->checked_type ? x : NULL;
}
