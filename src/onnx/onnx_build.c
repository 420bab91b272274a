/* Passage ONNX frontend — building Relay calls with their types. The type of
 * each new call comes from its op's type relation through InferType
 * (psg_expr_infer_type on the call itself, which records the type on the node;
 * for arguments not typed that way, InferType on a one-node function over
 * parameters of the arguments' types), so inference costs O(1) per node and
 * the op registry's type relations stay the single source of truth. Values that
 * must be constant (Reshape's shape, Slice's starts) are folded on demand
 * with the interpreter. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "onnx_internal.h"

/* Runs InferType on fn() and returns the type of `body` (borrowed). */
static psg_status infer(onnx_imp *im, psg_expr *const *params, size_t np, psg_expr *body, const psg_type **out) {
  psg_ctx *ctx = im->ctx;
  psg_expr *fn = NULL, *gv = NULL;
  psg_module *m0 = NULL, *m1 = NULL, *typed = NULL;
  psg_pass *pass = NULL;
  *out = NULL;
  psg_status st = psg_function_create(ctx, params, np, body, NULL, NULL, NULL, &fn);
  if (!st) st = psg_global_var_create(ctx, "main", NULL, &gv);
  if (!st) st = psg_module_create(ctx, &m0);
  if (!st) st = psg_module_add(m0, gv, fn, &m1);
  if (!st) st = psg_pass_get(ctx, "InferType", NULL, &pass);
  if (!st) st = psg_pass_run(pass, m1, NULL, &typed);
  if (!st) {
    *out = psg_expr_checked_type(body);
    if (!*out) st = PSG_ERR_TYPE;
  }
  psg_pass_release(pass);
  psg_module_release(typed);
  psg_module_release(m1);
  psg_module_release(m0);
  psg_expr_release(gv);
  psg_expr_release(fn);
  return st;
}

/* The probe: the type of op(args...) from InferType on a one-node function
 * over parameters of the arguments' types (for arguments whose own nodes are
 * not typed, e.g. an If's result). */
static psg_status probe_type(onnx_imp *im, psg_expr *op, const oval *args, size_t n, psg_attrs *attrs, bool tuple,
                             const psg_type **out) {
  psg_ctx *ctx = im->ctx;
  psg_expr **params = psgi_calloc(ctx, psgi_mul_size(n + 1, sizeof *params)), *probe = NULL, *tparam = NULL;
  size_t np = 0;
  psg_status st = params ? PSG_OK : PSG_ERR_NOMEM;
  for (size_t i = 0; i < n && !st; i++)
    if (!(st = psg_var_create(ctx, "p", args[i].t, NULL, &params[i]))) np++;
  if (!st && tuple) {
    st = psg_tuple_create(ctx, params, n, NULL, &tparam);
    if (!st) st = psg_call_create(ctx, op, &tparam, 1, attrs, NULL, &probe);
  } else if (!st) {
    st = psg_call_create(ctx, op, params, n, attrs, NULL, &probe);
  }
  if (!st) st = infer(im, params, np, probe, out);
  psg_expr_release(probe);
  psg_expr_release(tparam);
  for (size_t i = 0; i < np; i++) psg_expr_release(params[i]);
  psgi_free(ctx, params);
  return st;
}

/* Builds op(args...) (or op((args...)) when `tuple`), typed. When every
 * argument's node is typed (constants, graph inputs, calls built here), the
 * call is typed in place with psg_expr_infer_type, so the type is recorded
 * on the node and the first InferType after import keeps the graph as it is;
 * otherwise the type comes from the probe and InferType finds it later. */
static psg_status build(onnx_imp *im, const char *opname, const oval *args, size_t n, psg_attrs *attrs, bool tuple,
                        oval *out) {
  psg_ctx *ctx = im->ctx;
  out->e = NULL;
  out->t = NULL;
  psg_expr *op = NULL, *real = NULL, *targ = NULL;
  psg_expr **real_args = psgi_alloc(ctx, psgi_mul_size(n + 1, sizeof *real_args));
  bool typed = true;
  psg_status st = real_args ? psg_op_get(ctx, opname, &op) : PSG_ERR_NOMEM;
  for (size_t i = 0; i < n && !st; i++) {
    if (!args[i].e || !args[i].t) {
      st = onnxi_fail(im, PSG_ERR_INTERNAL, "input %zu of %s has no type", i, opname);
      break;
    }
    real_args[i] = args[i].e;
    const psg_type *at = NULL;
    if (typed && (st = psg_expr_infer_type(args[i].e, &at)) == PSG_OK) typed = at == args[i].t;
  }
  psg_span sb;
  const psg_span *sp = onnxi_span(im, &sb);
  if (!st && tuple) {
    st = psg_tuple_create(ctx, real_args, n, sp, &targ);
    if (!st) st = psg_call_create(ctx, op, &targ, 1, attrs, sp, &real);
  } else if (!st) {
    st = psg_call_create(ctx, op, real_args, n, attrs, sp, &real);
  }
  if (!st && sp && im->span_node != im->node) { /* later spans of this node pass the interned name */
    psg_span got;
    psg_expr_span(real, &got);
    im->span_node = im->node, im->span_name = got.name;
  }
  const psg_type *t = NULL;
  psg_status ts = PSG_OK; /* typing: its failures are the node's type errors */
  if (!st && typed) {
    if (targ) ts = psg_expr_infer_type(targ, NULL);
    if (!ts) ts = psg_expr_infer_type(real, &t);
  }
  if (!st && !ts && !t) ts = probe_type(im, op, args, n, attrs, tuple, &t);
  st = st ? st : ts;
  if (ts && ts != PSG_ERR_NOMEM) {
    const psg_diag *d = psg_ctx_get_last_error(ctx);
    st = onnxi_fail(im, PSG_ERR_TYPE, "%s: %s", opname, d ? psg_diag_message(d) : "type error");
  }
  if (!st) {
    out->e = real;
    out->t = t;
    real = NULL;
  }
  psg_expr_release(real);
  psg_expr_release(targ);
  psg_expr_release(op);
  psgi_free(ctx, real_args);
  return st;
}

psg_status onnxi_call(onnx_imp *im, const char *op, const oval *args, size_t n, psg_attrs *attrs, oval *out) {
  return build(im, op, args, n, attrs, false, out);
}

psg_status onnxi_call_tuple(onnx_imp *im, const char *op, const oval *args, size_t n, psg_attrs *attrs, oval *out) {
  return build(im, op, args, n, attrs, true, out);
}

psg_status onnxi_unary(onnx_imp *im, const char *op, const oval *a, oval *out) {
  return build(im, op, a, 1, NULL, false, out);
}

psg_status onnxi_binary(onnx_imp *im, const char *op, const oval *a, const oval *b, oval *out) {
  oval args[2] = {*a, *b};
  return build(im, op, args, 2, NULL, false, out);
}

static psg_status with_attrs(onnx_imp *im, const char *op, const oval *a, onnx_ab *b, oval *out) {
  psg_attrs *attrs = NULL;
  psg_status st = onnxi_ab_finish(b, &attrs);
  if (!st) st = build(im, op, a, 1, attrs, false, out);
  psg_attrs_release(attrs);
  return st;
}

psg_status onnxi_reshape(onnx_imp *im, const oval *a, const int64_t *shape, int n, oval *out) {
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_ints(&b, "newshape", shape, n);
  return with_attrs(im, "reshape", a, &b, out);
}

psg_status onnxi_cast(onnx_imp *im, const oval *a, int dtype, oval *out) {
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_dtype(&b, "dtype", dtype);
  return with_attrs(im, "cast", a, &b, out);
}

psg_status onnxi_transpose(onnx_imp *im, const oval *a, const int64_t *perm, int n, oval *out) {
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_ints(&b, "axes", perm, n);
  return with_attrs(im, "transpose", a, &b, out);
}

/* Whether `v` converts to an integer `dtype` without undefined behaviour:
 * not NaN and, truncated toward zero, inside the dtype's range (C leaves
 * other float-to-integer conversions undefined). Floats always fit. */
static bool fits_dtype(int dtype, double v) {
  double lo, hi; /* the open interval the value must lie in */
  switch (dtype) {
  case PSG_DTYPE_FLOAT16:
  case PSG_DTYPE_BFLOAT16:
  case PSG_DTYPE_FLOAT32:
  case PSG_DTYPE_FLOAT64: return true;
  case PSG_DTYPE_INT64: return v >= -9223372036854775808.0 && v < 9223372036854775808.0;
  case PSG_DTYPE_UINT64: return v > -1.0 && v < 18446744073709551616.0;
  case PSG_DTYPE_INT32: lo = INT32_MIN, hi = INT32_MAX; break;
  case PSG_DTYPE_INT16: lo = INT16_MIN, hi = INT16_MAX; break;
  case PSG_DTYPE_INT8: lo = INT8_MIN, hi = INT8_MAX; break;
  case PSG_DTYPE_UINT32: lo = 0, hi = UINT32_MAX; break;
  case PSG_DTYPE_UINT16: lo = 0, hi = UINT16_MAX; break;
  default: lo = 0, hi = UINT8_MAX; break; /* uint8, bool */
  }
  return v > lo - 1.0 && v < hi + 1.0; /* false for NaN */
}

psg_status onnxi_scalar(onnx_imp *im, int dtype, double v, oval *out) {
  psg_tensor *t = NULL;
  out->e = NULL;
  if (!fits_dtype(dtype, v))
    return onnxi_fail(im, PSG_ERR_TYPE, "the value %g does not fit the %s operand", v, psg_dtype_name(dtype));
  psg_status st = psg_tensor_create(im->ctx, dtype, NULL, 0, NULL, &t);
  if (st) return st;
  void *d = (void *)psg_tensor_data(t);
  switch (dtype) {
  case PSG_DTYPE_FLOAT32: *(float *)d = (float)v; break;
  case PSG_DTYPE_FLOAT64: *(double *)d = v; break;
  case PSG_DTYPE_INT64: *(int64_t *)d = (int64_t)v; break;
  case PSG_DTYPE_INT32: *(int32_t *)d = (int32_t)v; break;
  case PSG_DTYPE_INT16: *(int16_t *)d = (int16_t)v; break;
  case PSG_DTYPE_INT8: *(int8_t *)d = (int8_t)v; break;
  case PSG_DTYPE_UINT8:
  case PSG_DTYPE_BOOL: *(uint8_t *)d = (uint8_t)v; break;
  case PSG_DTYPE_UINT16: *(uint16_t *)d = (uint16_t)v; break;
  case PSG_DTYPE_UINT32: *(uint32_t *)d = (uint32_t)v; break;
  case PSG_DTYPE_UINT64: *(uint64_t *)d = (uint64_t)v; break;
  default:
    psg_tensor_release(t);
    return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "no scalar of dtype %s", psg_dtype_name(dtype));
  }
  st = onnxi_const_val(im, t, out);
  psg_tensor_release(t);
  return st;
}

psg_status onnxi_get_item(onnx_imp *im, const oval *tup, int i, oval *out) {
  out->t = NULL;
  if (!tup->t || psg_type_kind(tup->t) != PSG_TYPE_TUPLE || i >= psg_type_num_fields(tup->t))
    return onnxi_fail(im, PSG_ERR_INTERNAL, "no tuple field %d", i);
  psg_span sb;
  psg_status st = psg_tuple_get_item_create(im->ctx, tup->e, i, onnxi_span(im, &sb), &out->e);
  if (!st) out->t = psg_type_field(tup->t, i);
  if (!st) st = psg_expr_infer_type(out->e, NULL); /* typed when the tuple is */
  return st;
}

/* 1 if `e` uses no Var (a constant subgraph), 0 if it does (or is not a
 * small shape computation: over 100000 nodes), -1 when out of memory.
 * *largest (when not NULL) gets the bytes of the largest typed tensor the
 * subgraph computes. Iterative; a shared node is looked at once. */
static int is_closed(psg_ctx *ctx, const psg_expr *root, int64_t *largest) {
  PSGI_VEC(const psg_expr *) stack = {0};
  psgi_map seen;
  psgi_map_init(&seen, ctx);
  int closed = PSGI_VEC_PUSH(ctx, &stack, root) ? 1 : -1;
  while (closed > 0 && stack.len) {
    const psg_expr *e = stack.data[--stack.len];
    bool fresh = false;
    if (!psgi_map_put_ptr(&seen, e, &fresh)) closed = -1;
    else if (seen.len > 100000) closed = 0;
    if (closed <= 0 || !fresh) continue;
    int64_t bytes = largest ? onnxi_type_bytes(psg_expr_checked_type(e)) : -1;
    if (largest && bytes > *largest) *largest = bytes;
    int k = psg_expr_kind(e);
    if (k == PSG_EXPR_VAR || k == PSG_EXPR_FUNCTION || k == PSG_EXPR_IF || k == PSG_EXPR_LET) closed = 0;
    size_t nk = psg_expr_num_children(e);
    for (size_t i = 0; closed > 0 && i < nk; i++)
      if (!PSGI_VEC_PUSH(ctx, &stack, psg_expr_get_child(e, i))) closed = -1;
  }
  PSGI_VEC_FREE(ctx, &stack);
  psgi_map_fini(&seen);
  return closed;
}

int onnxi_is_constant(onnx_imp *im, const oval *v) {
  if (!v->e || !v->t || psg_type_kind(v->t) != PSG_TYPE_TENSOR) return 0;
  return psg_expr_kind(v->e) == PSG_EXPR_CONSTANT ? 1 : is_closed(im->ctx, v->e, NULL);
}

psg_status onnxi_const_tensor(onnx_imp *im, const oval *v, const char *what, psg_tensor **out) {
  *out = NULL;
  if (psg_expr_kind(v->e) == PSG_EXPR_CONSTANT) {
    *out = psg_constant_get_tensor(v->e);
    psg_tensor_retain(*out);
    return PSG_OK;
  }
  int64_t largest = onnxi_type_bytes(v->t);
  int closed = psg_type_kind(v->t) == PSG_TYPE_TENSOR ? is_closed(im->ctx, v->e, &largest) : 0;
  if (closed < 0) return PSG_ERR_NOMEM;
  if (!closed)
    return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "%s must be a constant (computed from initializers and static shapes)",
                      what);
  /* Folding materializes every intermediate: refuse a subgraph with one
   * larger than a constant may be. */
  if (largest > im->max_constant_bytes)
    return onnxi_fail(im, PSG_ERR_UNSUPPORTED,
                      "cannot compute %s at import time: it needs a tensor of %lld bytes (more than the %lld-byte "
                      "limit of one constant)",
                      what, (long long)largest, (long long)im->max_constant_bytes);
  psg_ctx *ctx = im->ctx;
  psg_expr *fn = NULL, *gv = NULL;
  psg_module *m0 = NULL, *m1 = NULL;
  psg_tensor **outs = NULL;
  size_t nouts = 0;
  psg_status st = psg_function_create(ctx, NULL, 0, v->e, NULL, NULL, NULL, &fn);
  if (!st) st = psg_global_var_create(ctx, "main", NULL, &gv);
  if (!st) st = psg_module_create(ctx, &m0);
  if (!st) st = psg_module_add(m0, gv, fn, &m1);
  if (!st) st = psg_eval(ctx, m1, "main", NULL, 0, &outs, &nouts);
  if (!st && nouts == 1) {
    *out = outs[0];
    outs[0] = NULL;
  } else if (!st) {
    st = PSG_ERR_INTERNAL;
  }
  if (st && st != PSG_ERR_NOMEM) st = onnxi_fail(im, st, "cannot compute %s at import time", what);
  for (size_t i = 0; i < nouts; i++) psg_tensor_release(outs[i]);
  psg_free(outs);
  psg_module_release(m1);
  psg_module_release(m0);
  psg_expr_release(gv);
  psg_expr_release(fn);
  return st;
}

psg_status onnxi_const_ints(onnx_imp *im, const oval *v, const char *what, int64_t *out, int cap, int *n) {
  psg_tensor *t = NULL;
  *n = 0;
  psg_status st = onnxi_const_tensor(im, v, what, &t);
  if (st) return st;
  int64_t cnt = psg_tensor_numel(t);
  const void *d = psg_tensor_data(t);
  int dt = psg_tensor_dtype(t);
  if (psg_tensor_ndim(t) > 1) st = onnxi_fail(im, PSG_ERR_TYPE, "%s must be 1-D", what);
  else if (cnt > cap) st = onnxi_fail(im, PSG_ERR_UNSUPPORTED, "%s has %lld values (at most %d)", what, (long long)cnt, cap);
  else if (dt != PSG_DTYPE_INT64 && dt != PSG_DTYPE_INT32)
    st = onnxi_fail(im, PSG_ERR_TYPE, "%s must be int64 or int32, not %s", what, psg_dtype_name(dt));
  for (int64_t i = 0; !st && i < cnt; i++) out[i] = dt == PSG_DTYPE_INT64 ? ((const int64_t *)d)[i] : ((const int32_t *)d)[i];
  if (!st) *n = (int)cnt;
  psg_tensor_release(t);
  return st;
}

/* The value of IEEE binary16 bits. */
static double half_value(uint16_t h) {
  int e = (h >> 10) & 0x1f;
  double m = h & 0x3ff, v;
  if (e == 0x1f) v = m ? NAN : INFINITY;
  else if (e == 0) v = ldexp(m, -24);
  else v = ldexp(m + 1024, e - 25);
  return h & 0x8000 ? -v : v;
}

psg_status onnxi_const_double(onnx_imp *im, const oval *v, const char *what, double *out) {
  psg_tensor *t = NULL;
  psg_status st = onnxi_const_tensor(im, v, what, &t);
  if (st) return st;
  const void *d = psg_tensor_data(t);
  if (psg_tensor_numel(t) != 1) {
    st = onnxi_fail(im, PSG_ERR_TYPE, "%s must have one element", what);
  } else {
    switch (psg_tensor_dtype(t)) {
    case PSG_DTYPE_FLOAT32: *out = *(const float *)d; break;
    case PSG_DTYPE_FLOAT64: *out = *(const double *)d; break;
    case PSG_DTYPE_FLOAT16: *out = half_value(*(const uint16_t *)d); break;
    case PSG_DTYPE_BFLOAT16: { /* the upper half of a float */
      uint32_t bits = (uint32_t)*(const uint16_t *)d << 16;
      float f;
      memcpy(&f, &bits, 4);
      *out = f;
      break;
    }
    case PSG_DTYPE_INT64: *out = (double)*(const int64_t *)d; break;
    case PSG_DTYPE_INT32: *out = *(const int32_t *)d; break;
    case PSG_DTYPE_INT8: *out = *(const int8_t *)d; break;
    case PSG_DTYPE_UINT8: *out = *(const uint8_t *)d; break;
    default: st = onnxi_fail(im, PSG_ERR_UNSUPPORTED, "%s has unsupported dtype %s", what, psg_dtype_name(psg_tensor_dtype(t)));
    }
  }
  psg_tensor_release(t);
  return st;
}
