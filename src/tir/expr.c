/* Passage — PrimExpr constructors (spec/tir.md §2): each checks the operand
 * dtypes TVM's constructors check and reports a located error naming the
 * node kind instead of aborting. */
#include <float.h>
#include <math.h>
#include "tir/tir_internal.h"

#define DT(t, b) psgi_tir_dtype_name((t), &(b))

psg_status psgi_tir_missing(psg_ctx *ctx, const psg_span *span, int kind, const char *what) {
  return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, kind, "%s is NULL", what);
}

psg_status psgi_tir_need_expr(psg_ctx *ctx, const psg_span *span, int kind, const psg_tir_node *n,
                            const char *what) {
  if (!n) return psgi_tir_missing(ctx, span, kind, what);
  if (!psgi_tir_is_expr_kind(n->kind))
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, kind, "%s must be an expression, not %s",
                         what, psg_tir_kind_name(n->kind));
  return PSG_OK;
}

static psg_status var_common(psg_ctx *ctx, int kind, const char *name, psg_tir_dtype dtype,
                             psg_tir_type *type, const psg_span *span, psg_tir_expr **out) {
  *out = NULL;
  psgi_tir_dtype_name_buf b1, b2;
  if (!psg_tir_dtype_is_valid(dtype))
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, kind, "invalid dtype for '%s'", name ? name : "");
  psg_tir_type *owned = NULL;
  psg_status st;
  if (type) {
    if (type->kind == PSG_TIR_PRIM_TYPE && type->dtype != dtype)
      return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, kind, "'%s' has dtype %s but type annotation %s",
                           name ? name : "", DT(dtype, b1), DT(type->dtype, b2));
    if (type->kind == PSG_TIR_POINTER_TYPE && !psg_tir_dtype_is_handle(dtype))
      return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, kind, "'%s' has a pointer type but dtype %s",
                           name ? name : "", DT(dtype, b1));
    if (type->kind == PSG_TIR_TUPLE_TYPE || !(type->kind == PSG_TIR_PRIM_TYPE || type->kind == PSG_TIR_POINTER_TYPE))
      return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, kind, "'%s' needs a PrimType or PointerType annotation",
                           name ? name : "");
    psg_tir_retain(type);
    owned = type;
  } else if ((st = psg_tir_prim_type_create(ctx, dtype, &owned)) != PSG_OK) {
    return st;
  }
  const char *n = psgi_intern(ctx, name ? name : "", name ? strlen(name) : 0);
  if (!n) {
    psg_tir_release(owned);
    return psgi_nomem(ctx);
  }
  if ((st = psgi_tir_new(ctx, kind, 0, span, out)) != PSG_OK) {
    psg_tir_release(owned);
    return st;
  }
  (*out)->dtype = dtype;
  (*out)->u.var.name = n;
  (*out)->u.var.type = owned;
  return PSG_OK;
}

psg_status psg_tir_var_create(psg_ctx *ctx, const char *name, psg_tir_dtype dtype,
                              psg_tir_type *type, const psg_span *span, psg_tir_expr **out) {
  return var_common(ctx, PSG_TIR_VAR, name, dtype, type, span, out);
}

psg_status psg_tir_size_var_create(psg_ctx *ctx, const char *name, psg_tir_dtype dtype,
                                   const psg_span *span, psg_tir_expr **out) {
  if (!psg_tir_dtype_is_int(dtype) && !psg_tir_dtype_is_uint(dtype)) {
    psgi_tir_dtype_name_buf b;
    *out = NULL;
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, PSG_TIR_SIZE_VAR, "'%s' must have an integer dtype, not %s",
                         name ? name : "", DT(dtype, b));
  }
  return var_common(ctx, PSG_TIR_SIZE_VAR, name, dtype, NULL, span, out);
}

psg_status psg_tir_pointer_var_create(psg_ctx *ctx, const char *name, psg_tir_dtype element,
                                      const char *scope, const psg_span *span, psg_tir_expr **out) {
  *out = NULL;
  psg_tir_type *prim, *ptr;
  psg_status st = psg_tir_prim_type_create(ctx, element, &prim);
  if (st) return st;
  st = psg_tir_pointer_type_create(ctx, prim, scope, &ptr);
  psg_tir_release(prim);
  if (st) return st;
  st = psg_tir_var_create(ctx, name, psg_tir_dtype_handle(), ptr, span, out);
  psg_tir_release(ptr);
  return st;
}

/* Is t a scalar int (8, 16, 32, 64 bits), uint (8, 16, 32, 64) or bool
 * (uint 1)? psg_tir_dtype_is_valid with one lane and those codes, read off
 * the encoding (code | bits << 8 | lanes << 16) without the calls: every
 * constant the simplifier makes passes here. */
static bool scalar_int_dtype(psg_tir_dtype t) {
  unsigned code = t & 0xff, bits = t >> 8 & 0xff;
  if (t >> 16 != 1 || (code != PSG_TIR_CODE_INT && code != PSG_TIR_CODE_UINT)) return false;
  return bits == 8 || bits == 16 || bits == 32 || bits == 64 || (bits == 1 && code == PSG_TIR_CODE_UINT);
}

psg_status psg_tir_int_imm_create(psg_ctx *ctx, psg_tir_dtype dtype, int64_t value,
                                  const psg_span *span, psg_tir_expr **out) {
  *out = NULL;
  psgi_tir_dtype_name_buf b;
  int bits = (int)(dtype >> 8 & 0xff);
  if (!scalar_int_dtype(dtype))
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, PSG_TIR_INT_IMM,
                         "dtype must be a scalar int, uint or bool, not %s", DT(dtype, b));
  bool fits;
  if ((dtype & 0xff) == PSG_TIR_CODE_INT)
    fits = bits == 64 || (value >= -(INT64_C(1) << (bits - 1)) && value < (INT64_C(1) << (bits - 1)));
  else
    fits = value >= 0 && (bits == 64 || value < (INT64_C(1) << bits));
  if (!fits)
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, PSG_TIR_INT_IMM, "value %lld does not fit %s",
                         (long long)value, DT(dtype, b));
  psg_status st = psgi_tir_new(ctx, PSG_TIR_INT_IMM, 0, span, out);
  if (st) return st;
  (*out)->dtype = dtype;
  (*out)->u.int_value = value;
  return PSG_OK;
}

psg_status psg_tir_float_imm_create(psg_ctx *ctx, psg_tir_dtype dtype, double value,
                                    const psg_span *span, psg_tir_expr **out) {
  *out = NULL;
  psgi_tir_dtype_name_buf b;
  if (!psg_tir_dtype_is_valid(dtype) || psg_tir_dtype_lanes(dtype) != 1 || !psg_tir_dtype_is_float(dtype))
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, PSG_TIR_FLOAT_IMM, "dtype must be a scalar float, not %s",
                         DT(dtype, b));
  /* TVM's FloatImm: finite values must be representable in the dtype. */
  double limit = psg_tir_dtype_bits(dtype) == 64 ? DBL_MAX
                 : psg_tir_dtype_code(dtype) == PSG_TIR_CODE_BFLOAT ? 3.38953139e38
                 : psg_tir_dtype_bits(dtype) == 32 ? FLT_MAX : 65504.0;
  if (isfinite(value) && fabs(value) > limit)
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, PSG_TIR_FLOAT_IMM, "value %g is out of range for %s",
                         value, DT(dtype, b));
  psg_status st = psgi_tir_new(ctx, PSG_TIR_FLOAT_IMM, 0, span, out);
  if (st) return st;
  (*out)->dtype = dtype;
  (*out)->u.float_value = value;
  return PSG_OK;
}

psg_status psg_tir_string_imm_create(psg_ctx *ctx, const char *s, size_t len,
                                     const psg_span *span, psg_tir_expr **out) {
  *out = NULL;
  if (!s && len) return psgi_tir_missing(ctx, span, PSG_TIR_STRING_IMM, "the string");
  const char *v = psgi_intern(ctx, s ? s : "", len);
  if (!v) return psgi_nomem(ctx);
  psg_status st = psgi_tir_new(ctx, PSG_TIR_STRING_IMM, 0, span, out);
  if (st) return st;
  (*out)->dtype = psg_tir_dtype_handle();
  (*out)->u.str.s = v;
  (*out)->u.str.len = len;
  return PSG_OK;
}

/* A node of `kind` over `n` operands (already checked), with `dtype`. */
static psg_status make(psg_ctx *ctx, int kind, psg_tir_dtype dtype, psg_tir_node *const *kids,
                       size_t n, const psg_span *span, psg_tir_expr **out) {
  psg_status st = psgi_tir_new(ctx, kind, n, span, out);
  if (st) return st;
  (*out)->dtype = dtype;
  for (size_t i = 0; i < n; i++) psgi_tir_set_kid(*out, i, kids[i]);
  return PSG_OK;
}

psg_status psg_tir_cast_create(psg_ctx *ctx, psg_tir_dtype dtype, psg_tir_expr *value,
                               const psg_span *span, psg_tir_expr **out) {
  *out = NULL;
  psgi_tir_dtype_name_buf b1, b2;
  psg_status st = psgi_tir_need_expr(ctx, span, PSG_TIR_CAST, value, "the value");
  if (st) return st;
  if (!psg_tir_dtype_is_valid(dtype))
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, PSG_TIR_CAST, "invalid target dtype");
  if (psg_tir_dtype_lanes(dtype) != psg_tir_dtype_lanes(value->dtype))
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, PSG_TIR_CAST, "cannot cast %s to %s: lanes differ",
                         DT(value->dtype, b1), DT(dtype, b2));
  return make(ctx, PSG_TIR_CAST, dtype, &value, 1, span, out);
}

psg_status psg_tir_binary_create(psg_ctx *ctx, int kind, psg_tir_expr *a, psg_tir_expr *b,
                                 const psg_span *span, psg_tir_expr **out) {
  *out = NULL;
  psgi_tir_dtype_name_buf b1, b2;
  if (kind < PSG_TIR_ADD || kind > PSG_TIR_OR)
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, kind, "not a binary node kind");
  psg_status st;
  if ((st = psgi_tir_need_expr(ctx, span, kind, a, "operand a")) || (st = psgi_tir_need_expr(ctx, span, kind, b, "operand b")))
    return st;
  if (a->dtype != b->dtype)
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, kind, "operands have different dtypes %s and %s",
                         DT(a->dtype, b1), DT(b->dtype, b2));
  psg_tir_dtype t = a->dtype;
  if (kind <= PSG_TIR_MAX) {
    if (psg_tir_dtype_is_bool(t) || psg_tir_dtype_is_handle(t))
      return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, kind, "arithmetic on %s operands", DT(t, b1));
  } else if (kind <= PSG_TIR_GE) {
    if (psg_tir_dtype_is_handle(t))
      return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, kind, "comparison of handle operands");
    t = psg_tir_dtype_with_lanes(psg_tir_dtype_bool(), psg_tir_dtype_lanes(t));
  } else if (!psg_tir_dtype_is_bool(t)) {
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, kind, "operands must be bool, not %s", DT(t, b1));
  }
  psg_tir_node *kids[2] = {a, b};
  return make(ctx, kind, t, kids, 2, span, out);
}

psg_status psg_tir_not_create(psg_ctx *ctx, psg_tir_expr *a, const psg_span *span, psg_tir_expr **out) {
  *out = NULL;
  psgi_tir_dtype_name_buf b;
  psg_status st = psgi_tir_need_expr(ctx, span, PSG_TIR_NOT, a, "the operand");
  if (st) return st;
  if (!psg_tir_dtype_is_bool(a->dtype))
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, PSG_TIR_NOT, "operand must be bool, not %s", DT(a->dtype, b));
  return make(ctx, PSG_TIR_NOT, a->dtype, &a, 1, span, out);
}

psg_status psg_tir_select_create(psg_ctx *ctx, psg_tir_expr *cond, psg_tir_expr *t, psg_tir_expr *f,
                                 const psg_span *span, psg_tir_expr **out) {
  *out = NULL;
  psgi_tir_dtype_name_buf b1, b2;
  psg_status st;
  if ((st = psgi_tir_need_expr(ctx, span, PSG_TIR_SELECT, cond, "the condition")) ||
      (st = psgi_tir_need_expr(ctx, span, PSG_TIR_SELECT, t, "the true value")) ||
      (st = psgi_tir_need_expr(ctx, span, PSG_TIR_SELECT, f, "the false value")))
    return st;
  if (t->dtype != f->dtype)
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, PSG_TIR_SELECT, "values have different dtypes %s and %s",
                         DT(t->dtype, b1), DT(f->dtype, b2));
  int cl = psg_tir_dtype_lanes(cond->dtype);
  if (!psg_tir_dtype_is_bool(cond->dtype) || (cl != 1 && cl != psg_tir_dtype_lanes(t->dtype)))
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, PSG_TIR_SELECT,
                         "condition must be bool (scalar or with the values' lanes), not %s",
                         DT(cond->dtype, b1));
  psg_tir_node *kids[3] = {cond, t, f};
  return make(ctx, PSG_TIR_SELECT, t->dtype, kids, 3, span, out);
}

psg_status psg_tir_ramp_create(psg_ctx *ctx, psg_tir_expr *base, psg_tir_expr *stride, int lanes,
                               const psg_span *span, psg_tir_expr **out) {
  *out = NULL;
  psgi_tir_dtype_name_buf b1, b2;
  psg_status st;
  if ((st = psgi_tir_need_expr(ctx, span, PSG_TIR_RAMP, base, "the base")) ||
      (st = psgi_tir_need_expr(ctx, span, PSG_TIR_RAMP, stride, "the stride")))
    return st;
  if (psg_tir_dtype_lanes(base->dtype) != 1 || base->dtype != stride->dtype ||
      !(psg_tir_dtype_is_int(base->dtype) || psg_tir_dtype_is_uint(base->dtype)))
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, PSG_TIR_RAMP,
                         "base and stride must be scalar integers of one dtype, not %s and %s",
                         DT(base->dtype, b1), DT(stride->dtype, b2));
  if (lanes < 2 || lanes > PSG_TIR_MAX_LANES)
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, PSG_TIR_RAMP, "lanes %d is not in [2, %d]",
                         lanes, PSG_TIR_MAX_LANES);
  psg_tir_node *kids[2] = {base, stride};
  return make(ctx, PSG_TIR_RAMP, psg_tir_dtype_with_lanes(base->dtype, lanes), kids, 2, span, out);
}

psg_status psg_tir_broadcast_create(psg_ctx *ctx, psg_tir_expr *value, int lanes, const psg_span *span,
                                    psg_tir_expr **out) {
  *out = NULL;
  psgi_tir_dtype_name_buf b;
  psg_status st = psgi_tir_need_expr(ctx, span, PSG_TIR_BROADCAST, value, "the value");
  if (st) return st;
  if (psg_tir_dtype_lanes(value->dtype) != 1)
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, PSG_TIR_BROADCAST, "value must be a scalar, not %s",
                         DT(value->dtype, b));
  if (lanes < 2 || lanes > PSG_TIR_MAX_LANES)
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, PSG_TIR_BROADCAST, "lanes %d is not in [2, %d]",
                         lanes, PSG_TIR_MAX_LANES);
  return make(ctx, PSG_TIR_BROADCAST, psg_tir_dtype_with_lanes(value->dtype, lanes), &value, 1, span, out);
}

psg_status psgi_tir_check_binding(psg_ctx *ctx, const psg_span *span, int kind, psg_tir_node *var,
                                  psg_tir_node *value) {
  psgi_tir_dtype_name_buf b1, b2;
  if (!var) return psgi_tir_missing(ctx, span, kind, "the var");
  if (!psgi_tir_is_var_kind(var->kind))
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, kind, "must bind a Var, not %s",
                         psg_tir_kind_name(var->kind));
  psg_status st = psgi_tir_need_expr(ctx, span, kind, value, "the value");
  if (st) return st;
  if (var->dtype != value->dtype)
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, kind, "var '%s' has dtype %s but its value %s",
                         var->u.var.name, DT(var->dtype, b1), DT(value->dtype, b2));
  return PSG_OK;
}

psg_status psg_tir_let_create(psg_ctx *ctx, psg_tir_expr *var, psg_tir_expr *value, psg_tir_expr *body,
                              const psg_span *span, psg_tir_expr **out) {
  *out = NULL;
  psg_status st;
  if ((st = psgi_tir_check_binding(ctx, span, PSG_TIR_LET, var, value)) ||
      (st = psgi_tir_need_expr(ctx, span, PSG_TIR_LET, body, "the body")))
    return st;
  psg_tir_node *kids[3] = {var, value, body};
  return make(ctx, PSG_TIR_LET, body->dtype, kids, 3, span, out);
}

psg_status psgi_tir_access_dtype(psg_ctx *ctx, const psg_span *span, int kind, psg_tir_node *buffer,
                                 psg_tir_node *const *indices, size_t n, psg_tir_node *predicate,
                                 psg_tir_dtype *out) {
  psgi_tir_dtype_name_buf b1, b2;
  if (!buffer) return psgi_tir_missing(ctx, span, kind, "the buffer");
  if (buffer->kind != PSG_TIR_BUFFER)
    return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, span, kind, "needs a Buffer, not %s",
                         psg_tir_kind_name(buffer->kind));
  if (n && !indices) return psgi_tir_missing(ctx, span, kind, "the index array");
  int lanes = 1;
  for (size_t i = 0; i < n; i++) {
    psg_status st = psgi_tir_need_expr(ctx, span, kind, indices[i], "an index");
    if (st) return st;
    psg_tir_dtype t = indices[i]->dtype;
    if (!psg_tir_dtype_is_int(t) && !psg_tir_dtype_is_uint(t))
      return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, kind, "index %zu of buffer '%s' has dtype %s, not an integer",
                           i, buffer->u.buf.name, DT(t, b1));
    if (psg_tir_dtype_lanes(t) > 1 && i + 1 < n)
      return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, kind,
                           "only the last index of buffer '%s' may be a vector (index %zu is %s)",
                           buffer->u.buf.name, i, DT(t, b1));
    if (i + 1 == n) lanes = psg_tir_dtype_lanes(t);
  }
  int64_t total = (int64_t)lanes * psg_tir_dtype_lanes(buffer->dtype);
  psg_tir_dtype dt = total <= PSG_TIR_MAX_LANES ? psg_tir_dtype_with_lanes(buffer->dtype, (int)total) : 0;
  if (!dt)
    return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, kind, "access to buffer '%s' has too many lanes",
                         buffer->u.buf.name);
  if (predicate) {
    psg_status st = psgi_tir_need_expr(ctx, span, kind, predicate, "the predicate");
    if (st) return st;
    if (predicate->dtype != psg_tir_dtype_with_lanes(psg_tir_dtype_bool(), (int)total))
      return psgi_tir_fail(ctx, PSG_ERR_TYPE, span, kind, "predicate has dtype %s, expected %s",
                           DT(predicate->dtype, b1),
                           DT(psg_tir_dtype_with_lanes(psg_tir_dtype_bool(), (int)total), b2));
  }
  *out = dt;
  return PSG_OK;
}

psg_status psg_tir_buffer_load_create(psg_ctx *ctx, psg_tir_buffer *buffer, psg_tir_expr *const *indices,
                                      size_t n, psg_tir_expr *predicate, const psg_span *span,
                                      psg_tir_expr **out) {
  *out = NULL;
  psg_tir_dtype dt;
  psg_status st = psgi_tir_access_dtype(ctx, span, PSG_TIR_BUFFER_LOAD, buffer, indices, n, predicate, &dt);
  if (st) return st;
  size_t nk = 1 + n + (predicate ? 1 : 0);
  if ((st = psgi_tir_new(ctx, PSG_TIR_BUFFER_LOAD, nk, span, out)) != PSG_OK) return st;
  (*out)->dtype = dt;
  psgi_tir_set_kid(*out, 0, buffer);
  for (size_t i = 0; i < n; i++) psgi_tir_set_kid(*out, 1 + i, indices[i]);
  if (predicate) {
    psgi_tir_set_kid(*out, 1 + n, predicate);
    (*out)->flags |= PSGI_TIR_HAS_PRED;
  }
  return PSG_OK;
}
