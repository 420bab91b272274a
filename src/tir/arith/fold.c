/* Passage — constant folding of one TIR node with TVM's semantics: integer
 * arithmetic wraps at the dtype's width (computed in uint64, so no C
 * overflow), Div/Mod truncate and FloorDiv/FloorMod round down, a division
 * by zero stays as written, float32 results are rounded to float. float16
 * and bfloat16 are not folded (C11 has no exact rounding to them). */
#include <math.h>
#include "tir/arith/arith_internal.h"

psg_status psgi_arith_int(psg_ctx *ctx, psg_tir_dtype t, int64_t v, psg_tir_expr **out) {
  if (psg_tir_dtype_is_bool(t)) v = v != 0;
  return psg_tir_int_imm_create(ctx, t, psgi_arith_wrap(t, v), NULL, out);
}

psg_status psgi_arith_bool(psg_ctx *ctx, bool v, int lanes, psg_tir_expr **out) {
  psg_tir_expr *s;
  psg_status st = psg_tir_int_imm_create(ctx, psg_tir_dtype_bool(), v, NULL, &s);
  if (st || lanes == 1) {
    *out = st ? NULL : s;
    return st;
  }
  st = psg_tir_broadcast_create(ctx, s, lanes, NULL, out);
  psg_tir_release(s);
  return st;
}

static bool foldable_float(psg_tir_dtype t) {
  return psg_tir_dtype_code(t) == PSG_TIR_CODE_FLOAT && psg_tir_dtype_lanes(t) == 1 &&
         (psg_tir_dtype_bits(t) == 32 || psg_tir_dtype_bits(t) == 64);
}

static psg_status make_float(psg_ctx *ctx, psg_tir_dtype t, double v, psg_tir_expr **out) {
  if (psg_tir_dtype_bits(t) == 32) {
    if (isfinite(v) && fabs(v) > 3.4028234663852886e38) v = v > 0 ? INFINITY : -INFINITY;
    v = (double)(float)v;
  }
  return psg_tir_float_imm_create(ctx, t, v, NULL, out);
}

/* Integer binary kinds: false when not folded (division by zero). */
static bool fold_int(int kind, psg_tir_dtype t, int64_t x, int64_t y, int64_t *r) {
  uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
  bool u = psg_tir_dtype_is_uint(t) || psg_tir_dtype_is_bool(t);
  switch (kind) {
  case PSG_TIR_ADD: *r = (int64_t)(ux + uy); break;
  case PSG_TIR_SUB: *r = (int64_t)(ux - uy); break;
  case PSG_TIR_MUL: *r = (int64_t)(ux * uy); break;
  case PSG_TIR_DIV:
  case PSG_TIR_MOD:
  case PSG_TIR_FLOOR_DIV:
  case PSG_TIR_FLOOR_MOD:
    if (y == 0) return false;
    if (u) { /* uint64 values above INT64_MAX are stored negative */
      *r = (int64_t)(kind == PSG_TIR_DIV || kind == PSG_TIR_FLOOR_DIV ? ux / uy : ux % uy);
    } else if (y == -1) {
      *r = kind == PSG_TIR_DIV || kind == PSG_TIR_FLOOR_DIV ? (int64_t)(0 - ux) : 0;
    } else if (kind == PSG_TIR_DIV) *r = x / y;
    else if (kind == PSG_TIR_MOD) *r = x % y;
    else if (kind == PSG_TIR_FLOOR_DIV) *r = psgi_arith_floordiv(x, y);
    else *r = psgi_arith_floormod(x, y);
    break;
  case PSG_TIR_MIN: *r = u ? (ux < uy ? x : y) : (x < y ? x : y); break;
  case PSG_TIR_MAX: *r = u ? (ux > uy ? x : y) : (x > y ? x : y); break;
  case PSG_TIR_EQ: *r = x == y; return true;
  case PSG_TIR_NE: *r = x != y; return true;
  case PSG_TIR_LT: *r = u ? ux < uy : x < y; return true;
  case PSG_TIR_LE: *r = u ? ux <= uy : x <= y; return true;
  case PSG_TIR_GT: *r = u ? ux > uy : x > y; return true;
  case PSG_TIR_GE: *r = u ? ux >= uy : x >= y; return true;
  case PSG_TIR_AND: *r = x && y; return true;
  case PSG_TIR_OR: *r = x || y; return true;
  default: return false;
  }
  *r = psgi_arith_wrap(t, *r);
  return true;
}

/* Two float constants (TVM's TryConstFold): arithmetic for float32 (on the
 * operands rounded to float: computing in double and rounding once gives
 * float's result for + - * /) and float64; min, max and comparisons for
 * every float width (their result is an operand, exact). FloorDiv as
 * floor(x / y); a division by zero stays. */
static bool fold_float(int kind, psg_tir_dtype t, double x, double y, double *r) {
  bool arith = foldable_float(t);
  if (arith && psg_tir_dtype_bits(t) == 32) x = (float)x, y = (float)y;
  switch (kind) {
  case PSG_TIR_ADD: *r = x + y; return arith;
  case PSG_TIR_SUB: *r = x - y; return arith;
  case PSG_TIR_MUL: *r = x * y; return arith;
  case PSG_TIR_DIV:
  case PSG_TIR_FLOOR_DIV:
    if (y == 0 || !arith) return false;
    *r = x / y;
    if (psg_tir_dtype_bits(t) == 32) *r = (float)*r;
    if (kind == PSG_TIR_FLOOR_DIV) *r = floor(*r);
    return true;
  case PSG_TIR_MIN: *r = x < y ? x : y; return true;
  case PSG_TIR_MAX: *r = x > y ? x : y; return true;
  case PSG_TIR_EQ: *r = x == y; return true;
  case PSG_TIR_NE: *r = x != y; return true;
  case PSG_TIR_LT: *r = x < y; return true;
  case PSG_TIR_LE: *r = x <= y; return true;
  case PSG_TIR_GT: *r = x > y; return true;
  case PSG_TIR_GE: *r = x >= y; return true;
  default: return false;
  }
}

static psg_status fold_cast(psg_ctx *ctx, psg_tir_expr *e, psg_tir_expr **out) {
  psg_tir_expr *v = e->kids[0];
  psg_tir_dtype t = e->dtype;
  if (psg_tir_dtype_lanes(t) != 1) return PSG_OK;
  if (v->kind == PSG_TIR_INT_IMM) {
    int64_t x = v->u.int_value;
    if (psg_tir_dtype_is_int(t) || psg_tir_dtype_is_uint(t) || psg_tir_dtype_is_bool(t))
      return psgi_arith_int(ctx, t, x, out);
    bool unsig = psg_tir_dtype_is_uint(v->dtype);
    if (foldable_float(t)) return make_float(ctx, t, unsig ? (double)(uint64_t)x : (double)x, out);
    return PSG_OK;
  }
  if (v->kind == PSG_TIR_FLOAT_IMM && foldable_float(v->dtype)) {
    double x = v->u.float_value;
    if (foldable_float(t)) return make_float(ctx, t, x, out);
    if (psg_tir_dtype_is_bool(t)) return psgi_arith_int(ctx, t, x != 0, out);
    psg_arith_bound b = psgi_arith_dtype_bound(t);
    double tx = trunc(x);
    /* Only values the target holds (C leaves the others undefined). */
    if (isfinite(tx) && tx >= (double)b.min && tx < (double)b.max && tx > -9.2e18 && tx < 9.2e18)
      return psgi_arith_int(ctx, t, (int64_t)tx, out);
  }
  return PSG_OK;
}

/* The folded node, or NULL in *out when nothing folds. */
static psg_status fold_node(psg_ctx *ctx, psg_tir_expr *e, psg_tir_expr **out) {
  *out = NULL;
  if (!psgi_arith_may_fold(e)) return PSG_OK;
  int k = e->kind;
  if (k == PSG_TIR_CAST) return fold_cast(ctx, e, out);
  if (k == PSG_TIR_NOT) {
    psg_tir_expr *v = e->kids[0];
    if (v->kind == PSG_TIR_INT_IMM) return psgi_arith_bool(ctx, !v->u.int_value, 1, out);
    return PSG_OK;
  }
  if (k < PSG_TIR_ADD || k > PSG_TIR_OR) return PSG_OK;
  psg_tir_expr *x = e->kids[0], *y = e->kids[1];
  if (x->kind == PSG_TIR_INT_IMM && y->kind == PSG_TIR_INT_IMM) {
    int64_t r;
    if (!fold_int(k, x->dtype, x->u.int_value, y->u.int_value, &r)) return PSG_OK;
    return psgi_arith_int(ctx, e->dtype, r, out);
  }
  if (x->kind == PSG_TIR_FLOAT_IMM && y->kind == PSG_TIR_FLOAT_IMM) {
    double r;
    if (!fold_float(k, x->dtype, x->u.float_value, y->u.float_value, &r)) return PSG_OK;
    if (psg_tir_dtype_is_bool(e->dtype)) return psgi_arith_bool(ctx, r != 0, 1, out);
    return make_float(ctx, e->dtype, r, out);
  }
  return PSG_OK;
}

psg_status psg_arith_const_fold(psg_ctx *ctx, psg_tir_expr *e, psg_tir_expr **out) {
  *out = NULL;
  if (!e || !psgi_tir_is_expr_kind(e->kind))
    return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL,
                         "arith: const_fold needs an expression");
  psg_status st = fold_node(ctx, e, out);
  if (!st && !*out) {
    psg_tir_retain(e);
    *out = e;
  }
  return st;
}

/* The operand kind(x, y) equals by an identity that needs no facts, as
 * TVM's TryConstFold has them, borrowed, or NULL. *zero is set when the
 * result is a new 0 (x % 1, x mod 1). For an int constant c (scalar):
 * x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1, x // 1 are x; 0 * x, x * 0,
 * 0 / x, 0 // x, 0 % x, floormod(0, x) are the 0. For a float constant, the
 * same for + - * / // (TVM folds 0.0 * x to 0.0 and 0.0 / x to 0.0 although
 * x may be NaN or infinite); not 0.0 - x, and no float % at all. */
psg_tir_expr *psgi_arith_identity(int kind, psg_tir_expr *x, psg_tir_expr *y, bool *zero) {
  *zero = false;
  if (kind == PSG_TIR_NOT || !y) return NULL;
  /* every identity below needs a constant operand */
  if (x->kind != PSG_TIR_INT_IMM && x->kind != PSG_TIR_FLOAT_IMM && y->kind != PSG_TIR_INT_IMM &&
      y->kind != PSG_TIR_FLOAT_IMM)
    return NULL;
  if ((kind == PSG_TIR_AND || kind == PSG_TIR_OR) && psg_tir_dtype_lanes(x->dtype) == 1) {
    int64_t c;
    bool is_and = kind == PSG_TIR_AND;
    if (psgi_arith_is_int(x, &c)) return (c != 0) == is_and ? y : x;
    if (psgi_arith_is_int(y, &c)) return (c != 0) == is_and ? x : y;
    return NULL;
  }
  bool ints = psgi_arith_is_index_dtype(x->dtype);
  bool floats = psg_tir_dtype_is_float(x->dtype) && psg_tir_dtype_lanes(x->dtype) == 1;
  if (!ints && !floats) return NULL;
  bool is_div = kind == PSG_TIR_DIV || kind == PSG_TIR_FLOOR_DIV;
  bool is_mod = kind == PSG_TIR_MOD || kind == PSG_TIR_FLOOR_MOD;
  if (floats && is_mod) return NULL;
  /* The value of a constant operand (int or float, by the dtype). */
  double cx = 0, cy = 0;
  bool kx = ints ? x->kind == PSG_TIR_INT_IMM : x->kind == PSG_TIR_FLOAT_IMM;
  bool ky = ints ? y->kind == PSG_TIR_INT_IMM : y->kind == PSG_TIR_FLOAT_IMM;
  if (kx) cx = ints ? (double)x->u.int_value : x->u.float_value;
  if (ky) cy = ints ? (double)y->u.int_value : y->u.float_value;
  if (kx && cx == 0 && kind == PSG_TIR_ADD) return y;
  if (kx && cx == 1 && kind == PSG_TIR_MUL) return y;
  if (kx && cx == 0 && (kind == PSG_TIR_MUL || is_div || is_mod)) return x;
  if (ky && cy == 0 && (kind == PSG_TIR_ADD || kind == PSG_TIR_SUB)) return x;
  if (ky && cy == 1 && (kind == PSG_TIR_MUL || is_div)) return x;
  if (ky && cy == 0 && kind == PSG_TIR_MUL) return y;
  if (ky && cy == 1 && is_mod) *zero = true;
  return NULL;
}

/* Builds kind(x, y) (NOT: y NULL), folded, with the identities above. */
psg_status psgi_arith_mk(psg_ctx *ctx, int kind, psg_tir_expr *x, psg_tir_expr *y, psg_tir_expr **out) {
  *out = NULL;
  bool zero;
  psg_tir_expr *keep = psgi_arith_identity(kind, x, y, &zero);
  if (zero) return psgi_arith_int(ctx, x->dtype, 0, out);
  if (keep) {
    psg_tir_retain(keep);
    *out = keep;
    return PSG_OK;
  }
  psg_tir_expr *n;
  psg_status st = kind == PSG_TIR_NOT ? psg_tir_not_create(ctx, x, NULL, &n)
                                      : psg_tir_binary_create(ctx, kind, x, y, NULL, &n);
  if (st) return st;
  psg_tir_expr *f;
  if ((st = fold_node(ctx, n, &f))) {
    psg_tir_release(n);
    return st;
  }
  if (f) {
    psg_tir_release(n);
    n = f;
  }
  *out = n;
  return PSG_OK;
}
