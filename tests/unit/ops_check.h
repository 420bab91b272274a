/* Passage — helpers for op-family unit tests: build attributes and tensor
 * values, run a type relation or an op (type relation then kernel, through
 * psgi_eval_op), compare float outputs, and evaluate a parsed module with
 * psg_eval. Test-only; includes src/ internals. */
#ifndef PSG_TEST_OPS_CHECK_H
#define PSG_TEST_OPS_CHECK_H

#include <math.h>
#include <stdarg.h>
#include "check.h"
#include "interp/interp_internal.h"
#include "ops/kernel_util.h"

/* Attributes: ab_* calls collect key/values, ab_done makes the dictionary. */
typedef struct ab {
  psg_ctx *ctx;
  const char *keys[16];
  psg_attr *vals[16];
  size_t n;
} ab;

static inline ab ab_init(psg_ctx *ctx) {
  ab b;
  memset(&b, 0, sizeof b);
  b.ctx = ctx;
  return b;
}
static inline void ab_put(ab *b, const char *key, psg_attr *v) {
  b->keys[b->n] = key;
  b->vals[b->n++] = v;
}
static inline void ab_int(ab *b, const char *key, int64_t v) {
  psg_attr *a = NULL;
  psg_attr_int(b->ctx, v, &a);
  ab_put(b, key, a);
}
static inline void ab_float(ab *b, const char *key, double v) {
  psg_attr *a = NULL;
  psg_attr_float(b->ctx, v, &a);
  ab_put(b, key, a);
}
static inline void ab_bool(ab *b, const char *key, bool v) {
  psg_attr *a = NULL;
  psg_attr_bool(b->ctx, v, &a);
  ab_put(b, key, a);
}
static inline void ab_str(ab *b, const char *key, const char *s) {
  psg_attr *a = NULL;
  psg_attr_string(b->ctx, s, strlen(s), &a);
  ab_put(b, key, a);
}
/* A list of n ints. */
static inline void ab_ints(ab *b, const char *key, int n, ...) {
  psg_attr *items[8], *a = NULL;
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) psg_attr_int(b->ctx, va_arg(ap, int), &items[i]);
  va_end(ap);
  psg_attr_list(b->ctx, items, (size_t)n, &a);
  for (int i = 0; i < n; i++) psg_attr_release(items[i]);
  ab_put(b, key, a);
}
/* A list of n floats (passed as doubles). */
static inline void ab_floats(ab *b, const char *key, int n, ...) {
  psg_attr *items[8], *a = NULL;
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) psg_attr_float(b->ctx, va_arg(ap, double), &items[i]);
  va_end(ap);
  psg_attr_list(b->ctx, items, (size_t)n, &a);
  for (int i = 0; i < n; i++) psg_attr_release(items[i]);
  ab_put(b, key, a);
}
static inline psg_attrs *ab_done(ab *b) {
  psg_attrs *out = NULL;
  CHECK_OK(psg_attrs_create(b->ctx, b->keys, b->vals, b->n, &out));
  for (size_t i = 0; i < b->n; i++) psg_attr_release(b->vals[i]);
  b->n = 0;
  return out;
}

static inline size_t op_id(const char *name) {
  ptrdiff_t op = psgi_op_lookup(name, strlen(name));
  if (op < 0) {
    fprintf(stderr, "no op %s\n", name);
    exit(1);
  }
  return (size_t)op;
}

/* A tensor type from a dtype and dims (-1: unknown). */
static inline const psg_type *ty(psg_ctx *ctx, int dtype, int nd, ...) {
  int64_t dims[PSG_MAX_RANK];
  va_list ap;
  va_start(ap, nd);
  for (int i = 0; i < nd; i++) dims[i] = va_arg(ap, int);
  va_end(ap);
  const psg_type *t = NULL;
  CHECK_OK(psg_type_tensor(ctx, dims, nd, dtype, &t));
  return t;
}

/* Runs op's type relation; msg receives the failure reason. */
static inline psg_status rel(psg_ctx *ctx, const char *op, const psg_attrs *attrs, const psg_type **args, size_t n,
                      const psg_type **out, char *msg) {
  size_t id = op_id(op);
  const psgi_op_impl *impl = psgi_op_impl_get(id);
  *out = NULL;
  msg[0] = 0;
  if (!impl || !impl->type_rel) {
    fprintf(stderr, "op %s has no type relation\n", op);
    return PSG_ERR_UNSUPPORTED;
  }
  psgi_op_call call = {.ctx = ctx, .op = id, .attrs = attrs};
  psg_status st = impl->type_rel(&call, args, n, out);
  snprintf(msg, 512, "%s", call.msg);
  return st;
}

/* True when `t` is a tensor type with dtype and dims (-1: unknown). */
static inline bool type_is(const psg_type *t, int dtype, int nd, ...) {
  if (!t || psg_type_kind(t) != PSG_TYPE_TENSOR || psg_type_dtype(t) != dtype || psg_type_ndim(t) != nd) return false;
  va_list ap;
  va_start(ap, nd);
  bool ok = true;
  for (int i = 0; i < nd; i++) ok &= psg_type_dim(t, i) == (int64_t)va_arg(ap, int);
  va_end(ap);
  return ok;
}

#define CHECK_MSG(msg, sub)                                                           \
  do {                                                                               \
    check_count++;                                                                   \
    if (!strstr((msg), (sub))) {                                                     \
      fprintf(stderr, "%s:%d: message \"%s\" lacks \"%s\"\n", __FILE__, __LINE__,    \
              (msg), (sub));                                                         \
      check_failures++;                                                              \
    }                                                                                \
  } while (0)

/* A tensor value of dtype from doubles (converted to the dtype). */
static inline psgi_value *val(psg_ctx *ctx, int dtype, const int64_t *dims, int nd, const double *data) {
  psg_tensor *t = NULL;
  CHECK_OK(psg_tensor_create(ctx, dtype, dims, nd, NULL, &t));
  int64_t n = psgi_numel(dims, nd);
  for (int64_t i = 0; i < n; i++) psgi_store_f(dtype, (void *)t->data, (size_t)i, data[i]);
  psgi_value *v = NULL;
  CHECK_OK(psgi_value_tensor(ctx, t, &v));
  psg_tensor_release(t);
  return v;
}
static inline psgi_value *valf(psg_ctx *ctx, const int64_t *dims, int nd, const double *data) {
  return val(ctx, PSG_DTYPE_FLOAT32, dims, nd, data);
}

/* Runs op on values; returns the result (NULL on failure, msg set). */
static inline psgi_value *run_op(psg_ctx *ctx, const char *op, const psg_attrs *attrs, psgi_value **args, size_t n,
                          char *msg) {
  psgi_value *out = NULL;
  msg[0] = 0;
  psg_status st = psgi_eval_op(ctx, op_id(op), attrs, args, n, &out, msg, 512);
  if (st && !msg[0]) snprintf(msg, 512, "%s", psg_status_str(st));
  return st ? NULL : out;
}

/* Checks a tensor's shape and float contents against want (tolerance tol,
 * relative to max(1, |want|)). */
static inline bool tensor_close(const psg_tensor *t, const int64_t *dims, int nd, const double *want, double tol,
                         const char *what) {
  if (!t) {
    fprintf(stderr, "%s: no tensor\n", what);
    return false;
  }
  if (t->ndim != nd || (nd && memcmp(t->shape, dims, (size_t)nd * sizeof *dims))) {
    fprintf(stderr, "%s: shape differs\n", what);
    return false;
  }
  bool ok = true;
  int64_t n = psgi_numel(dims, nd);
  for (int64_t i = 0; i < n; i++) {
    double got = psgi_load_f(t->dtype, t->data, (size_t)i), w = want[i];
    double scale = fabs(w) > 1 ? fabs(w) : 1;
    if (got != w && !(fabs(got - w) <= tol * scale) && !(isnan(w) && isnan(got))) {
      fprintf(stderr, "%s: element %lld is %.9g, want %.9g\n", what, (long long)i, got, w);
      ok = false;
    }
  }
  return ok;
}
#define CHECK_TENSOR(v, dims, nd, want, tol) CHECK(tensor_close(psgi_value_as_tensor(v), dims, nd, want, tol, #v))

/* Parses `text`, evaluates @main on the inputs and returns the outputs
 * (flattened; *n set), or NULL after printing the diagnostics. */
static inline psg_tensor **eval_text(psg_ctx *ctx, const char *text, psg_tensor *const *inputs, size_t nin, size_t *n) {
  psg_module *m = NULL;
  psg_tensor **outs = NULL;
  *n = 0;
  if (psg_module_parse(ctx, text, strlen(text), "test.relay", &m) ||
      psg_eval(ctx, m, "main", inputs, nin, &outs, n)) {
    for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
    outs = NULL;
  }
  psg_module_release(m);
  return outs;
}

static inline void free_outputs(psg_tensor **outs, size_t n) {
  for (size_t i = 0; i < n; i++) psg_tensor_release(outs[i]);
  psg_free(outs);
}

#endif
