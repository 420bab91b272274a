/* Passage — TIR operators with TVM's dtype matching and constant folding
 * (include/passage/tir_op.h). The rules follow TVM's tir/op/op.cc
 * (BinaryOpMatchTypes, cast, make_const) and arith/const_fold.h
 * (TryConstFold); the raw constructors stay in expr.c. */
#include <math.h>
#include "passage/tir_op.h"
#include "tir/tir_internal.h"

/* Immediates ----------------------------------------------------------------- */

static bool is_int_imm(const psg_tir_node *n) { return n && n->kind == PSG_TIR_INT_IMM; }
static bool is_float_imm(const psg_tir_node *n) { return n && n->kind == PSG_TIR_FLOAT_IMM; }
static bool int_is(const psg_tir_node *n, int64_t v) { return is_int_imm(n) && n->u.int_value == v; }
static bool float_is(const psg_tir_node *n, double v) { return is_float_imm(n) && n->u.float_value == v; }

/* `v` wrapped to the width of integer dtype t (two's complement; bool is
 * 0 or 1), computed on uint64_t so no step is undefined. */
static int64_t wrap_int(psg_tir_dtype t, uint64_t v) {
  int bits = psg_tir_dtype_bits(t);
  if (psg_tir_dtype_is_bool(t)) return v != 0;
  if (bits >= 64) return (int64_t)v;
  uint64_t mask = (UINT64_C(1) << bits) - 1;
  v &= mask;
  if (psg_tir_dtype_is_int(t) && (v >> (bits - 1)) & 1) v |= ~mask; /* sign-extend */
  return (int64_t)v;
}

psg_status psg_tir_make_const_int(psg_ctx *ctx, psg_tir_dtype dtype, int64_t value,
                                  const psg_span *span, psg_tir_expr **out) {
  *out = NULL;
  psg_tir_dtype scalar = psg_tir_dtype_with_lanes(dtype, 1);
  psg_tir_expr *e = NULL;
  psg_status st;
  if (psg_tir_dtype_is_float(scalar))
    st = psg_tir_float_imm_create(ctx, scalar, (double)value, span, &e);
  else if (psg_tir_dtype_is_int(scalar) || psg_tir_dtype_is_uint(scalar) || psg_tir_dtype_is_bool(scalar))
    st = psg_tir_int_imm_create(ctx, scalar, wrap_int(scalar, (uint64_t)value), span, &e);
  else
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, PSG_TIR_INT_IMM, "no constant of a handle dtype");
  if (st != PSG_OK) return st;
  if (psg_tir_dtype_lanes(dtype) == 1) {
    *out = e;
    return PSG_OK;
  }
  st = psg_tir_broadcast_create(ctx, e, psg_tir_dtype_lanes(dtype), span, out);
  psg_tir_release(e);
  return st;
}

psg_status psg_tir_make_const_float(psg_ctx *ctx, psg_tir_dtype dtype, double value,
                                    const psg_span *span, psg_tir_expr **out) {
  *out = NULL;
  psg_tir_dtype scalar = psg_tir_dtype_with_lanes(dtype, 1);
  if (!psg_tir_dtype_is_float(scalar)) {
    /* An int constant from a double: C leaves out-of-range conversions
     * undefined, so they are refused. */
    if (!(value >= -9223372036854775808.0 && value < 9223372036854775808.0))
      return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, PSG_TIR_INT_IMM,
                           "the value %g does not fit a 64-bit integer", value);
    return psg_tir_make_const_int(ctx, dtype, (int64_t)value, span, out);
  }
  psg_tir_expr *e = NULL;
  psg_status st = psg_tir_float_imm_create(ctx, scalar, value, span, &e);
  if (st != PSG_OK) return st;
  if (psg_tir_dtype_lanes(dtype) == 1) {
    *out = e;
    return PSG_OK;
  }
  st = psg_tir_broadcast_create(ctx, e, psg_tir_dtype_lanes(dtype), span, out);
  psg_tir_release(e);
  return st;
}

static psg_status keep(psg_tir_expr *e, psg_tir_expr **out) {
  psg_tir_retain(e);
  *out = e;
  return PSG_OK;
}

/* Cast ---------------------------------------------------------------------- */

psg_status psg_tir_op_cast(psg_ctx *ctx, psg_tir_dtype dtype, psg_tir_expr *a, const psg_span *span,
                           psg_tir_expr **out) {
  *out = NULL;
  psg_status st = psgi_tir_need_expr(ctx, span, PSG_TIR_CAST, a, "value");
  if (st != PSG_OK) return st;
  if (!psg_tir_dtype_is_valid(dtype))
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, PSG_TIR_CAST, "invalid target dtype");
  if (a->dtype == dtype) return keep(a, out);
  int lanes = psg_tir_dtype_lanes(dtype);
  if (lanes > 1 && psg_tir_dtype_lanes(a->dtype) == 1) {
    psg_tir_expr *elem = NULL;
    if ((st = psg_tir_op_cast(ctx, psg_tir_dtype_with_lanes(dtype, 1), a, span, &elem)) != PSG_OK) return st;
    st = psg_tir_broadcast_create(ctx, elem, lanes, span, out);
    psg_tir_release(elem);
    return st;
  }
  if (lanes == 1 && is_int_imm(a)) return psg_tir_make_const_int(ctx, dtype, a->u.int_value, span, out);
  if (lanes == 1 && is_float_imm(a)) return psg_tir_make_const_float(ctx, dtype, a->u.float_value, span, out);
  return psg_tir_cast_create(ctx, dtype, a, span, out);
}

/* Dtype matching (BinaryOpMatchTypes) --------------------------------------- */

/* Replaces *x (owned) by op(*x). */
static psg_status replace(psg_status st, psg_tir_expr **x, psg_tir_expr *nx) {
  if (st != PSG_OK) return st;
  psg_tir_release(*x);
  *x = nx;
  return PSG_OK;
}

static psg_status cast_to(psg_ctx *ctx, psg_tir_dtype t, psg_tir_expr **x, const psg_span *span) {
  psg_tir_expr *nx = NULL;
  psg_status st = psg_tir_op_cast(ctx, t, *x, span, &nx);
  return replace(st, x, nx);
}

/* *a and *b are owned references, rewritten to one dtype. */
static psg_status match_types(psg_ctx *ctx, int kind, psg_tir_expr **a, psg_tir_expr **b,
                              const psg_span *span) {
  if ((*a)->dtype == (*b)->dtype) return PSG_OK;
  int la = psg_tir_dtype_lanes((*a)->dtype), lb = psg_tir_dtype_lanes((*b)->dtype);
  psg_status st;
  if (la != lb && (la == 1 || lb == 1)) {
    psg_tir_expr **scalar = la == 1 ? a : b, *x = NULL;
    st = psg_tir_broadcast_create(ctx, *scalar, la == 1 ? lb : la, span, &x);
    if ((st = replace(st, scalar, x)) != PSG_OK) return st;
  }
  psg_tir_dtype ta = (*a)->dtype, tb = (*b)->dtype;
  psgi_tir_dtype_name_buf n1, n2;
  if (psg_tir_dtype_lanes(ta) != psg_tir_dtype_lanes(tb))
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, kind, "cannot match type %s vs %s",
                         psgi_tir_dtype_name(ta, &n1), psgi_tir_dtype_name(tb, &n2));
  if (ta == tb) return PSG_OK;
  bool fa = psg_tir_dtype_is_float(ta), fb = psg_tir_dtype_is_float(tb);
  bool ia = psg_tir_dtype_is_int(ta), ib = psg_tir_dtype_is_int(tb);
  bool ua = psg_tir_dtype_is_uint(ta) || psg_tir_dtype_is_bool(ta);
  bool ub = psg_tir_dtype_is_uint(tb) || psg_tir_dtype_is_bool(tb);
  int ba = psg_tir_dtype_bits(ta), bb = psg_tir_dtype_bits(tb);
  if (fa && fb) return ba < bb ? cast_to(ctx, tb, a, span) : cast_to(ctx, ta, b, span);
  if (!fa && fb && !psg_tir_dtype_is_handle(ta)) return cast_to(ctx, tb, a, span);
  if (fa && !fb && !psg_tir_dtype_is_handle(tb)) return cast_to(ctx, ta, b, span);
  if ((ia && ib) || (ua && ub)) return ba < bb ? cast_to(ctx, tb, a, span) : cast_to(ctx, ta, b, span);
  if ((ia && ub) || (ua && ib)) {
    if (ba < bb) return cast_to(ctx, tb, a, span);
    if (ba > bb) return cast_to(ctx, ta, b, span);
    return ua ? cast_to(ctx, ta, b, span) : cast_to(ctx, tb, a, span);
  }
  return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, kind, "cannot match type %s vs %s",
                       psgi_tir_dtype_name(ta, &n1), psgi_tir_dtype_name(tb, &n2));
}

/* Folding (TryConstFold) ------------------------------------------------------ */

static int64_t floordiv64(int64_t a, int64_t b) {
  if (b == -1) return (int64_t)(0 - (uint64_t)a); /* INT64_MIN / -1 wraps */
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}
static int64_t floormod64(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

/* Both operands int immediates of dtype t (already matched). Sets *done. */
static psg_status fold_ints(psg_ctx *ctx, int kind, psg_tir_dtype t, int64_t x, int64_t y,
                            const psg_span *span, psg_tir_expr **out, bool *done) {
  uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
  bool is_unsigned = psg_tir_dtype_is_uint(t) || psg_tir_dtype_is_bool(t);
  int64_t r;
  *done = true;
  switch (kind) {
  case PSG_TIR_ADD: r = wrap_int(t, ux + uy); break;
  case PSG_TIR_SUB: r = wrap_int(t, ux - uy); break;
  case PSG_TIR_MUL: r = wrap_int(t, ux * uy); break;
  case PSG_TIR_DIV: case PSG_TIR_MOD: case PSG_TIR_FLOOR_DIV: case PSG_TIR_FLOOR_MOD:
    if (y == 0)
      return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, kind, "division by zero");
    if (is_unsigned && psg_tir_dtype_bits(t) == 64) {
      r = (int64_t)(kind == PSG_TIR_DIV || kind == PSG_TIR_FLOOR_DIV ? ux / uy : ux % uy);
    } else if (kind == PSG_TIR_DIV) {
      r = y == -1 ? wrap_int(t, 0 - ux) : x / y;
    } else if (kind == PSG_TIR_MOD) {
      r = y == -1 ? 0 : x % y;
    } else if (kind == PSG_TIR_FLOOR_DIV) {
      r = wrap_int(t, (uint64_t)floordiv64(x, y));
    } else {
      r = floormod64(x, y);
    }
    break;
  case PSG_TIR_MIN: r = is_unsigned ? (int64_t)(ux < uy ? ux : uy) : (x < y ? x : y); break;
  case PSG_TIR_MAX: r = is_unsigned ? (int64_t)(ux > uy ? ux : uy) : (x > y ? x : y); break;
  case PSG_TIR_EQ: return psg_tir_int_imm_create(ctx, psg_tir_dtype_bool(), x == y, span, out);
  case PSG_TIR_NE: return psg_tir_int_imm_create(ctx, psg_tir_dtype_bool(), x != y, span, out);
  case PSG_TIR_LT: return psg_tir_int_imm_create(ctx, psg_tir_dtype_bool(), is_unsigned ? ux < uy : x < y, span, out);
  case PSG_TIR_LE: return psg_tir_int_imm_create(ctx, psg_tir_dtype_bool(), is_unsigned ? ux <= uy : x <= y, span, out);
  case PSG_TIR_GT: return psg_tir_int_imm_create(ctx, psg_tir_dtype_bool(), is_unsigned ? ux > uy : x > y, span, out);
  case PSG_TIR_GE: return psg_tir_int_imm_create(ctx, psg_tir_dtype_bool(), is_unsigned ? ux >= uy : x >= y, span, out);
  case PSG_TIR_AND: return psg_tir_int_imm_create(ctx, psg_tir_dtype_bool(), x && y, span, out);
  case PSG_TIR_OR: return psg_tir_int_imm_create(ctx, psg_tir_dtype_bool(), x || y, span, out);
  default: *done = false; return PSG_OK;
  }
  return psg_tir_int_imm_create(ctx, t, r, span, out);
}

static psg_status fold_floats(psg_ctx *ctx, int kind, psg_tir_dtype t, double x, double y,
                              const psg_span *span, psg_tir_expr **out, bool *done) {
  double r;
  *done = true;
  switch (kind) {
  case PSG_TIR_ADD: r = x + y; break;
  case PSG_TIR_SUB: r = x - y; break;
  case PSG_TIR_MUL: r = x * y; break;
  case PSG_TIR_DIV:
    if (y == 0) return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, kind, "division by zero");
    r = x / y;
    break;
  case PSG_TIR_MIN: r = x < y ? x : y; break;
  case PSG_TIR_MAX: r = x > y ? x : y; break;
  case PSG_TIR_EQ: return psg_tir_int_imm_create(ctx, psg_tir_dtype_bool(), x == y, span, out);
  case PSG_TIR_NE: return psg_tir_int_imm_create(ctx, psg_tir_dtype_bool(), x != y, span, out);
  case PSG_TIR_LT: return psg_tir_int_imm_create(ctx, psg_tir_dtype_bool(), x < y, span, out);
  case PSG_TIR_LE: return psg_tir_int_imm_create(ctx, psg_tir_dtype_bool(), x <= y, span, out);
  case PSG_TIR_GT: return psg_tir_int_imm_create(ctx, psg_tir_dtype_bool(), x > y, span, out);
  case PSG_TIR_GE: return psg_tir_int_imm_create(ctx, psg_tir_dtype_bool(), x >= y, span, out);
  default: *done = false; return PSG_OK;
  }
  return psg_tir_float_imm_create(ctx, t, r, span, out);
}

/* The identities TryConstFold applies with one immediate operand; *pick is
 * the operand (or a new zero) that is the result, NULL when none applies. */
static psg_status fold_identity(psg_ctx *ctx, int kind, psg_tir_expr *a, psg_tir_expr *b,
                                const psg_span *span, psg_tir_expr **out) {
  *out = NULL;
  bool ints = !psg_tir_dtype_is_float(a->dtype);
  switch (kind) {
  case PSG_TIR_ADD:
    if (int_is(a, 0) || float_is(a, 0)) return keep(b, out);
    if (int_is(b, 0) || float_is(b, 0)) return keep(a, out);
    break;
  case PSG_TIR_SUB:
    if (int_is(b, 0) || float_is(b, 0)) return keep(a, out);
    break;
  case PSG_TIR_MUL:
    if (int_is(a, 1) || float_is(a, 1)) return keep(b, out);
    if (int_is(a, 0) || float_is(a, 0)) return keep(a, out);
    if (int_is(b, 1) || float_is(b, 1)) return keep(a, out);
    if (int_is(b, 0) || float_is(b, 0)) return keep(b, out);
    break;
  case PSG_TIR_DIV: case PSG_TIR_FLOOR_DIV:
    if (int_is(b, 0) || float_is(b, 0))
      return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, kind, "division by zero");
    if (int_is(a, 0) || float_is(a, 0)) return keep(a, out);
    if (int_is(b, 1) || float_is(b, 1)) return keep(a, out);
    break;
  case PSG_TIR_MOD: case PSG_TIR_FLOOR_MOD:
    if (int_is(b, 0)) return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, kind, "division by zero");
    if (ints && int_is(a, 0)) return keep(a, out);
    if (ints && int_is(b, 1)) return psg_tir_make_const_int(ctx, a->dtype, 0, span, out);
    break;
  case PSG_TIR_AND:
    if (is_int_imm(a)) return keep(a->u.int_value ? b : a, out);
    if (is_int_imm(b)) return keep(b->u.int_value ? a : b, out);
    break;
  case PSG_TIR_OR:
    if (is_int_imm(a)) return keep(a->u.int_value ? a : b, out);
    if (is_int_imm(b)) return keep(b->u.int_value ? b : a, out);
    break;
  default: break;
  }
  return PSG_OK;
}

/* Operators ------------------------------------------------------------------- */

psg_status psg_tir_op_binary(psg_ctx *ctx, int kind, psg_tir_expr *a, psg_tir_expr *b,
                             const psg_span *span, psg_tir_expr **out) {
  *out = NULL;
  if (kind < PSG_TIR_ADD || kind > PSG_TIR_OR)
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, kind, "not a binary operator kind");
  psg_status st = psgi_tir_need_expr(ctx, span, kind, a, "a");
  if (st == PSG_OK) st = psgi_tir_need_expr(ctx, span, kind, b, "b");
  if (st != PSG_OK) return st;
  psg_tir_retain(a);
  psg_tir_retain(b);
  if (kind == PSG_TIR_AND || kind == PSG_TIR_OR) {
    /* Logical operators take bools; TVM casts nothing here. */
  } else {
    st = match_types(ctx, kind, &a, &b, span);
  }
  if (st == PSG_OK) {
    bool done = false;
    if (is_int_imm(a) && is_int_imm(b))
      st = fold_ints(ctx, kind, a->dtype, a->u.int_value, b->u.int_value, span, out, &done);
    else if (is_float_imm(a) && is_float_imm(b))
      st = fold_floats(ctx, kind, a->dtype, a->u.float_value, b->u.float_value, span, out, &done);
    if (st == PSG_OK && !done) st = fold_identity(ctx, kind, a, b, span, out);
    if (st == PSG_OK && !*out) st = psg_tir_binary_create(ctx, kind, a, b, span, out);
  }
  psg_tir_release(a);
  psg_tir_release(b);
  return st;
}

psg_status psg_tir_op_not(psg_ctx *ctx, psg_tir_expr *a, const psg_span *span, psg_tir_expr **out) {
  *out = NULL;
  psg_status st = psgi_tir_need_expr(ctx, span, PSG_TIR_NOT, a, "a");
  if (st != PSG_OK) return st;
  if (is_int_imm(a) && psg_tir_dtype_is_bool(a->dtype))
    return psg_tir_int_imm_create(ctx, a->dtype, !a->u.int_value, span, out);
  return psg_tir_not_create(ctx, a, span, out);
}

psg_status psg_tir_op_neg(psg_ctx *ctx, psg_tir_expr *a, const psg_span *span, psg_tir_expr **out) {
  *out = NULL;
  psg_status st = psgi_tir_need_expr(ctx, span, PSG_TIR_SUB, a, "a");
  if (st != PSG_OK) return st;
  if (is_int_imm(a)) return psg_tir_make_const_int(ctx, a->dtype, (int64_t)(0 - (uint64_t)a->u.int_value), span, out);
  if (is_float_imm(a)) return psg_tir_float_imm_create(ctx, a->dtype, -a->u.float_value, span, out);
  psg_tir_expr *zero = NULL;
  if ((st = psg_tir_make_const_int(ctx, a->dtype, 0, span, &zero)) != PSG_OK) return st;
  st = psg_tir_binary_create(ctx, PSG_TIR_SUB, zero, a, span, out);
  psg_tir_release(zero);
  return st;
}
