/* Unit tests for the shape and data movement ops (src/ops/transform*.c):
 * type relations (shapes, dtypes, unknown dims, error messages), kernels
 * against hand-computed values, TVM's fusion patterns, and an end-to-end run
 * of a parsed module through psg_eval. */
#include <math.h>
#include <stdarg.h>
#include "check.h"
#include "interp/interp_internal.h"
#include "ops/kernel_util.h"
#include "ops/transform.h"

enum { F32 = PSG_DTYPE_FLOAT32, I32 = PSG_DTYPE_INT32, I64 = PSG_DTYPE_INT64 };
enum { U = -1 }; /* an unknown dim in a shape string */

static psg_ctx *ctx; /* one per test; checked clean at the end of each */
static char msg[512];

/* Types ------------------------------------------------------------------------ */

/* "2,?,4" (or "" for a scalar) as a tensor type. */
static const psg_type *ty(int dtype, const char *shape) {
  int64_t d[PSG_MAX_RANK];
  int n = 0;
  for (const char *p = shape; *p;) {
    if (*p == '?')
      d[n++] = PSG_DIM_UNKNOWN, p++;
    else
      d[n++] = strtoll(p, (char **)&p, 10);
    if (*p == ',') p++;
  }
  const psg_type *t = NULL;
  CHECK_OK(psg_type_tensor(ctx, d, n, dtype, &t));
  return t;
}

static const psg_type *tup(int n, ...) {
  const psg_type *f[8], *t = NULL;
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) f[i] = va_arg(ap, const psg_type *);
  va_end(ap);
  CHECK_OK(psg_type_tuple(ctx, f, n, &t));
  return t;
}

/* "float32(2, ?)" or "(int32(1,), int32(2,))". */
static const char *tstr(const psg_type *t) {
  static char bufs[4][512];
  static int k;
  char *b = bufs[k++ % 4];
  if (!t) return "(null)";
  if (t->kind == PSG_TYPE_TENSOR) {
    char s[256];
    snprintf(b, 512, "%s%s", psg_dtype_name(t->dtype), psgi_shape_str(t, s, sizeof s));
    return b;
  }
  size_t at = (size_t)snprintf(b, 512, "(");
  for (int i = 0; i < t->n; i++) {
    char s[256], s2[300];
    snprintf(s2, sizeof s2, "%s%s%s", i ? ", " : "", psg_dtype_name(t->fields[i]->dtype),
             psgi_shape_str(t->fields[i], s, sizeof s));
    at += (size_t)snprintf(b + at, 512 - at, "%s", s2);
  }
  snprintf(b + at, 512 - at, ")");
  return b;
}

/* Attributes --------------------------------------------------------------------
 * A(key, value, ..., NULL) with values from the helpers below (consumed). */
static psg_attr *I(int64_t v) {
  psg_attr *a = NULL;
  CHECK_OK(psg_attr_int(ctx, v, &a));
  return a;
}
static psg_attr *S(const char *s) {
  psg_attr *a = NULL;
  CHECK_OK(psg_attr_string(ctx, s, strlen(s), &a));
  return a;
}
static psg_attr *D(int dtype) {
  psg_attr *a = NULL;
  CHECK_OK(psg_attr_dtype(ctx, dtype, &a));
  return a;
}
static psg_attr *B(bool v) {
  psg_attr *a = NULL;
  CHECK_OK(psg_attr_bool(ctx, v, &a));
  return a;
}
static psg_attr *NONE(void) {
  psg_attr *a = NULL;
  CHECK_OK(psg_attr_none(ctx, &a));
  return a;
}
/* "1,-1,2" (or "") as a list of ints. */
static psg_attr *L(const char *ints) {
  psg_attr *items[64] = {0}, *a = NULL;
  size_t n = 0;
  for (const char *p = ints; *p;) {
    items[n++] = I(strtoll(p, (char **)&p, 10));
    if (*p == ',') p++;
  }
  CHECK_OK(psg_attr_list(ctx, items, n, &a));
  for (size_t i = 0; i < n; i++) psg_attr_release(items[i]);
  return a;
}

static psg_attrs *A(const char *key, ...) {
  const char *keys[16];
  psg_attr *vals[16];
  size_t n = 0;
  va_list ap;
  va_start(ap, key);
  for (const char *k = key; k; k = va_arg(ap, const char *)) {
    keys[n] = k;
    vals[n++] = va_arg(ap, psg_attr *);
  }
  va_end(ap);
  psg_attrs *out = NULL;
  CHECK_OK(psg_attrs_create(ctx, keys, vals, n, &out));
  for (size_t i = 0; i < n; i++) psg_attr_release(vals[i]);
  return out;
}

/* Relations --------------------------------------------------------------------- */

static size_t op_id(const char *name) {
  ptrdiff_t op = psgi_op_lookup(name, strlen(name));
  CHECK(op >= 0);
  return op < 0 ? 0 : (size_t)op;
}

/* Runs op's relation on nargs types (attrs consumed); msg gets the reason. */
static psg_status rel(const char *op, psg_attrs *attrs, const psg_type **out, int nargs, ...) {
  const psg_type *args[4];
  va_list ap;
  va_start(ap, nargs);
  for (int i = 0; i < nargs; i++) args[i] = va_arg(ap, const psg_type *);
  va_end(ap);
  const psgi_op_impl *impl = psgi_op_impl_get(op_id(op));
  *out = NULL;
  msg[0] = 0;
  psg_status st = PSG_ERR_UNSUPPORTED;
  if (impl && impl->type_rel) {
    psgi_op_call call = {.ctx = ctx, .op = op_id(op), .attrs = attrs};
    st = impl->type_rel(&call, args, (size_t)nargs, out);
    memcpy(msg, call.msg, sizeof msg);
  }
  psg_attrs_release(attrs);
  return st;
}

#define REL_OK(expect, op, attrs, ...)                                                                                 \
  do {                                                                                                                 \
    const psg_type *o_;                                                                                                \
    psg_status st_ = rel(op, attrs, &o_, __VA_ARGS__);                                                                 \
    if (st_) fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, op, msg);                                   \
    CHECK_OK(st_);                                                                                                     \
    CHECK_STR(tstr(o_), expect);                                                                                       \
  } while (0)

#define REL_ERR(sub, op, attrs, ...)                                                                                   \
  do {                                                                                                                 \
    const psg_type *o_;                                                                                                \
    CHECK_EQ_INT(rel(op, attrs, &o_, __VA_ARGS__), PSG_ERR_TYPE);                                                      \
    check_count++;                                                                                                     \
    if (!strstr(msg, sub)) {                                                                                           \
      fprintf(stderr, "%s:%d: message \"%s\" lacks \"%s\"\n", __FILE__, __LINE__, msg, sub);                           \
      check_failures++;                                                                                                \
    }                                                                                                                  \
  } while (0)

/* Kernels ----------------------------------------------------------------------- */

/* A tensor value of `shape` holding data[] converted to dtype. */
static psgi_value *V(int dtype, const char *shape, const double *data) {
  const psg_type *t = ty(dtype, shape);
  psg_tensor *x = NULL;
  CHECK_OK(psg_tensor_create(ctx, dtype, t->dims, t->n, NULL, &x));
  int64_t n = psgi_numel(t->dims, t->n);
  for (int64_t i = 0; i < n; i++) psgi_store_f(dtype, (void *)x->data, (size_t)i, data[i]);
  psgi_value *v = NULL;
  CHECK_OK(psgi_value_tensor(ctx, x, &v));
  psg_tensor_release(x);
  return v;
}

/* 0, 1, 2, ... as a float32 value. */
static psgi_value *iota(const char *shape) {
  double d[256];
  for (int i = 0; i < 256; i++) d[i] = i;
  return V(F32, shape, d);
}

static psgi_value *tuple_of(int n, ...) {
  psgi_value *items[8], *v = NULL;
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) items[i] = va_arg(ap, psgi_value *);
  va_end(ap);
  CHECK_OK(psgi_value_tuple(ctx, items, (size_t)n, &v));
  for (int i = 0; i < n; i++) psgi_value_release(items[i]);
  return v;
}

/* Evaluates op (relation then kernel) on values (args consumed, attrs consumed). */
static psgi_value *eval(const char *op, psg_attrs *attrs, int nargs, ...) {
  psgi_value *args[4], *out = NULL;
  va_list ap;
  va_start(ap, nargs);
  for (int i = 0; i < nargs; i++) args[i] = va_arg(ap, psgi_value *);
  va_end(ap);
  msg[0] = 0;
  psg_status st = psgi_eval_op(ctx, op_id(op), attrs, args, (size_t)nargs, &out, msg, sizeof msg);
  if (st) out = NULL;
  for (int i = 0; i < nargs; i++) psgi_value_release(args[i]);
  psg_attrs_release(attrs);
  return out;
}

/* Checks that v (released here) is a tensor of type `type` holding `want`. */
static void check_tensor(int line, psgi_value *v, const char *type, const double *want, int n) {
  check_count++;
  const psg_tensor *t = psgi_value_as_tensor(v);
  if (!t) {
    fprintf(stderr, "%s:%d: no tensor result (%s)\n", __FILE__, line, msg);
    check_failures++;
    psgi_value_release(v);
    return;
  }
  const char *got = tstr(psg_tensor_type(ctx, t));
  bool ok = strcmp(got, type) == 0 && psg_tensor_numel(t) == n;
  for (int i = 0; ok && i < n; i++) ok = psgi_load_f(t->dtype, t->data, (size_t)i) == want[i];
  if (!ok) {
    fprintf(stderr, "%s:%d: got %s [", __FILE__, line, got);
    for (int64_t i = 0; i < psg_tensor_numel(t) && i < 32; i++)
      fprintf(stderr, "%s%g", i ? ", " : "", psgi_load_f(t->dtype, t->data, (size_t)i));
    fprintf(stderr, "], want %s\n", type);
    check_failures++;
  }
  psgi_value_release(v);
}

#define VALS(...) ((const double[]){__VA_ARGS__}), (int)(sizeof((const double[]){__VA_ARGS__}) / sizeof(double))
#define CHECK_T(v, type, ...) check_tensor(__LINE__, (v), (type), VALS(__VA_ARGS__))

/* Field i of a tuple value (borrowed). */
static psgi_value *field(psgi_value *v, size_t i) {
  CHECK(v && v->kind == PSGI_VALUE_TUPLE && i < v->u.tuple.n);
  if (!v || v->kind != PSGI_VALUE_TUPLE || i >= v->u.tuple.n) return NULL;
  psgi_value_retain(v->u.tuple.items[i]);
  return v->u.tuple.items[i];
}

#define EVAL_ERR(sub, v)                                                                                               \
  do {                                                                                                                 \
    psgi_value *v_ = (v);                                                                                              \
    CHECK(v_ == NULL);                                                                                                 \
    psgi_value_release(v_);                                                                                            \
    check_count++;                                                                                                     \
    if (!strstr(msg, sub)) {                                                                                           \
      fprintf(stderr, "%s:%d: message \"%s\" lacks \"%s\"\n", __FILE__, __LINE__, msg, sub);                           \
      check_failures++;                                                                                                \
    }                                                                                                                  \
  } while (0)

/* Tests ------------------------------------------------------------------------- */

static void test_registry(void) {
  ctx = check_ctx();
  static const char *ops[] = {"reshape",      "transpose",    "squeeze",       "expand_dims", "concatenate",
                              "stack",        "split",        "strided_slice", "take",        "gather_nd",
                              "broadcast_to", "tile",         "repeat",        "reverse",     "layout_transform",
                              "shape_of",     "ndarray_size", "argsort",       "topk"};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
    const psgi_op_impl *impl = psgi_op_impl_get(op_id(ops[i]));
    CHECK(impl && impl->type_rel && impl->kernel && !impl->stateful);
  }
  /* TVM's TOpPattern registrations */
  CHECK_EQ_INT(psgi_op_impl_get(op_id("reshape"))->pattern, PSGI_PATTERN_INJECTIVE);
  CHECK_EQ_INT(psgi_op_impl_get(op_id("concatenate"))->pattern, PSGI_PATTERN_INJECTIVE);
  CHECK_EQ_INT(psgi_op_impl_get(op_id("expand_dims"))->pattern, PSGI_PATTERN_BROADCAST);
  CHECK_EQ_INT(psgi_op_impl_get(op_id("tile"))->pattern, PSGI_PATTERN_BROADCAST);
  CHECK_EQ_INT(psgi_op_impl_get(op_id("shape_of"))->pattern, PSGI_PATTERN_OPAQUE);
  CHECK_EQ_INT(psgi_op_impl_get(op_id("ndarray_size"))->pattern, PSGI_PATTERN_INJECTIVE);
  CHECK_EQ_INT(psgi_op_impl_get(op_id("topk"))->pattern, PSGI_PATTERN_OPAQUE);
  CHECK_CTX_CLEAN(ctx);
}

static void test_reshape(void) {
  ctx = check_ctx();
  const psg_type *x = ty(F32, "2,3,4");
  /* TVM's documented examples of the special codes */
  REL_OK("float32(6, 1, 4)", "reshape", A("newshape", L("6,1,-1"), NULL), 1, x);
  REL_OK("float32(3, 1, 8)", "reshape", A("newshape", L("3,-1,8"), NULL), 1, x);
  REL_OK("float32(24,)", "reshape", A("newshape", L("-1"), NULL), 1, x);
  REL_OK("float32(2, 3, 4)", "reshape", A("newshape", L("2,0,0"), NULL), 1, x);
  REL_OK("float32(2, 12)", "reshape", A("newshape", L("0,-1"), NULL), 1, x);
  REL_OK("float32(2, 3, 4)", "reshape", A("newshape", L("-2"), NULL), 1, x);
  REL_OK("float32(2, 3, 4, 1, 1)", "reshape", A("newshape", L("2,-2,1,1"), NULL), 1, x);
  REL_OK("float32(6, 4)", "reshape", A("newshape", L("-3,4"), NULL), 1, x);
  REL_OK("float32(2, 12)", "reshape", A("newshape", L("0,-3"), NULL), 1, x);
  REL_OK("float32(6, 4)", "reshape", A("newshape", L("-3,-2"), NULL), 1, x);
  REL_OK("float32(1, 2, 3, 4)", "reshape", A("newshape", L("-4,1,2,-2"), NULL), 1, x);
  REL_OK("float32(2, 1, 3, 4)", "reshape", A("newshape", L("2,-4,-1,3,-2"), NULL), 1, x);
  REL_OK("float32(6, 20)", "reshape", A("newshape", L("-3,-3"), NULL), 1, ty(F32, "2,3,4,5"));
  /* allowzero: 0 is a dim, not "copy" */
  REL_OK("float32(4, 0)", "reshape", A("newshape", L("4,0"), "allowzero", B(true), NULL), 1, ty(F32, "0,4"));
  REL_ERR("cannot reshape (0, 4) into (4, 0)", "reshape", A("newshape", L("4,0"), NULL), 1, ty(F32, "0,4"));
  /* unknown dims: copied ones stay out of the -1 inference */
  REL_OK("float32(?, 12)", "reshape", A("newshape", L("0,-1"), NULL), 1, ty(F32, "?,3,4"));
  REL_OK("float32(?, 12)", "reshape", A("newshape", L("-1,12"), NULL), 1, ty(F32, "?,3,4"));
  REL_OK("float32(?, 4)", "reshape", A("newshape", L("-3,4"), NULL), 1, ty(F32, "?,3,4"));
  /* errors */
  REL_ERR("reshape: cannot reshape (2, 3) into (4, 2)", "reshape", A("newshape", L("4,2"), NULL), 1, ty(F32, "2,3"));
  REL_ERR("cannot reshape (2, 3) into (-1, 4)", "reshape", A("newshape", L("-1,4"), NULL), 1, ty(F32, "2,3"));
  REL_ERR("more than one -1", "reshape", A("newshape", L("-1,-1"), NULL), 1, ty(F32, "2,3"));
  REL_ERR("unsupported code -5", "reshape", A("newshape", L("-5"), NULL), 1, ty(F32, "2,3"));
  REL_ERR("cannot split dim 3", "reshape", A("newshape", L("-4,2,2,-2"), NULL), 1, ty(F32, "3,2"));
  REL_ERR("argument 0 of 'reshape' must be a tensor", "reshape", A("newshape", L("-1"), NULL), 1, tup(1, ty(F32, "2")));
  /* kernel: the element order is kept */
  CHECK_T(eval("reshape", A("newshape", L("3,-1"), NULL), 1, iota("2,3")), "float32(3, 2)", 0, 1, 2, 3, 4, 5);
  CHECK_T(eval("reshape", A("newshape", L("-1"), NULL), 1, V(I64, "2,2", (const double[]){-7, 8, 9, 10})), "int64(4,)",
          -7, 8, 9, 10);
  CHECK_CTX_CLEAN(ctx);
}

static void test_transpose(void) {
  ctx = check_ctx();
  REL_OK("float32(4, 3, 2)", "transpose", NULL, 1, ty(F32, "2,3,4"));
  REL_OK("float32(4, 3, 2)", "transpose", A("axes", NONE(), NULL), 1, ty(F32, "2,3,4"));
  REL_OK("float32(2, 4, 3)", "transpose", A("axes", L("0,2,1"), NULL), 1, ty(F32, "2,3,4"));
  REL_OK("float32(4, 2, 3)", "transpose", A("axes", L("-1,0,1"), NULL), 1, ty(F32, "2,3,4"));
  REL_OK("int32(3, ?)", "transpose", A("axes", L("1,0"), NULL), 1, ty(I32, "?,3"));
  REL_ERR("transpose: axes (0, 0) is not a permutation of 0..1", "transpose", A("axes", L("0,0"), NULL), 1,
          ty(F32, "2,3"));
  REL_ERR("axes (0,) is not a permutation of 0..1", "transpose", A("axes", L("0"), NULL), 1, ty(F32, "2,3"));
  REL_ERR("transpose: axes () is not a permutation of 0..1", "transpose", A("axes", L(""), NULL), 1, ty(F32, "2,3"));
  REL_OK("float32()", "transpose", A("axes", L(""), NULL), 1, ty(F32, ""));
  REL_ERR("axes (0, 2) is not a permutation", "transpose", A("axes", L("0,2"), NULL), 1, ty(F32, "2,3"));
  /* rank 4, NHWC -> NCHW: out[0,c,h,w] = in[0,h,w,c] = 6h + 3w + c */
  CHECK_T(eval("transpose", A("axes", L("0,3,1,2"), NULL), 1, iota("1,2,2,3")), "float32(1, 3, 2, 2)", 0, 3, 6, 9, 1, 4,
          7, 10, 2, 5, 8, 11);
  CHECK_T(eval("transpose", NULL, 1, iota("2,3")), "float32(3, 2)", 0, 3, 1, 4, 2, 5);
  CHECK_CTX_CLEAN(ctx);
}

/* Transposing copies go through square tiles (psgi_strided_copy): every
 * element lands where the index formula says, for element sizes with and
 * without a fixed-size path, extents that are not multiples of the tile, and
 * outer axes around the transposed pair; also through the transpose op. */
static void test_transpose_tiled(void) {
  static const struct {
    int nd;
    int64_t dims[4];
    int perm[4];
  } cases[] = {
      {2, {120, 333}, {1, 0}},          {2, {8, 8}, {1, 0}},         {2, {33, 65}, {1, 0}},
      {3, {3, 40, 50}, {0, 2, 1}},      {3, {40, 3, 50}, {2, 1, 0}}, {3, {17, 9, 70}, {2, 0, 1}},
      {4, {2, 3, 31, 45}, {0, 3, 1, 2}}, {4, {9, 2, 10, 12}, {3, 1, 2, 0}}, {2, {7, 300}, {1, 0}},
  };
  static const size_t esizes[] = {1, 2, 3, 4, 8};
  int bad = 0;
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    int nd = cases[c].nd;
    int64_t n = psgi_numel(cases[c].dims, nd), is[4], od[4], os[4], ss[4];
    psgi_row_strides(cases[c].dims, nd, is);
    for (int i = 0; i < nd; i++) {
      od[i] = cases[c].dims[cases[c].perm[i]];
      ss[i] = is[cases[c].perm[i]];
    }
    psgi_row_strides(od, nd, os);
    for (size_t e = 0; e < sizeof esizes / sizeof *esizes; e++) {
      size_t es = esizes[e];
      unsigned char *src = malloc((size_t)n * es), *dst = malloc((size_t)n * es);
      for (int64_t i = 0; i < n * (int64_t)es; i++) src[i] = (unsigned char)(i * 131 + i / 251);
      memset(dst, 0xee, (size_t)n * es);
      psgi_strided_copy(od, nd, es, dst, 0, os, src, 0, ss);
      for (int64_t k = 0; k < n; k++) {
        int64_t rest = k, from = 0;
        for (int i = 0; i < nd; i++) {
          from += rest / os[i] * ss[i];
          rest %= os[i];
        }
        if (memcmp(dst + k * (int64_t)es, src + from * (int64_t)es, es) != 0) bad++;
      }
      free(src);
      free(dst);
    }
  }
  CHECK_EQ_INT(bad, 0);
  /* The op: a (2, 40, 24) -> (24, 2, 40) float32 transpose. */
  ctx = check_ctx();
  static double d[2 * 40 * 24];
  for (int i = 0; i < 2 * 40 * 24; i++) d[i] = i;
  psgi_value *r = eval("transpose", A("axes", L("2,0,1"), NULL), 1, V(F32, "2,40,24", d));
  const psg_tensor *t = psgi_value_as_tensor(r);
  CHECK(t && psg_tensor_numel(t) == 2 * 40 * 24);
  int wrong = 0;
  for (int k = 0; t && k < 24; k++)
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 40; j++)
        if (psgi_load_f(t->dtype, t->data, (size_t)(k * 80 + i * 40 + j)) != i * 960 + j * 24 + k) wrong++;
  CHECK_EQ_INT(wrong, 0);
  psgi_value_release(r);
  CHECK_CTX_CLEAN(ctx);
}

static void test_squeeze_expand_dims(void) {
  ctx = check_ctx();
  REL_OK("float32(3,)", "squeeze", NULL, 1, ty(F32, "1,3,1"));
  REL_OK("float32(3,)", "squeeze", A("axis", NONE(), NULL), 1, ty(F32, "1,3,1"));
  REL_OK("float32(3, 1)", "squeeze", A("axis", L("0"), NULL), 1, ty(F32, "1,3,1"));
  REL_OK("float32(1, 3)", "squeeze", A("axis", L("-1"), NULL), 1, ty(F32, "1,3,1"));
  REL_OK("float32(?,)", "squeeze", NULL, 1, ty(F32, "?,1"));
  REL_OK("float32(1,)", "squeeze", A("axis", L("0"), NULL), 1, ty(F32, "?,1"));
  REL_ERR("squeeze: cannot squeeze axis 1 of (1, 3, 1): its extent is 3, not 1", "squeeze", A("axis", L("1"), NULL), 1,
          ty(F32, "1,3,1"));
  REL_ERR("squeeze: axis 3 is out of range for rank 3", "squeeze", A("axis", L("3"), NULL), 1, ty(F32, "1,3,1"));
  CHECK_T(eval("squeeze", NULL, 1, iota("1,3,1")), "float32(3,)", 0, 1, 2);

  REL_OK("float32(2, 1, 3)", "expand_dims", A("axis", I(1), NULL), 1, ty(F32, "2,3"));
  REL_OK("float32(2, 3, 1)", "expand_dims", A("axis", I(-1), NULL), 1, ty(F32, "2,3"));
  REL_OK("float32(1, 1, 2, 3)", "expand_dims", A("axis", I(0), "num_newaxis", I(2), NULL), 1, ty(F32, "2,3"));
  REL_OK("float32(?, 3)", "expand_dims", A("axis", I(0), "num_newaxis", I(0), NULL), 1, ty(F32, "?,3"));
  REL_OK("float32(1,)", "expand_dims", A("axis", I(0), NULL), 1, ty(F32, ""));
  REL_ERR("expand_dims: axis 3 is out of range for rank 2 (expected -3..2)", "expand_dims", A("axis", I(3), NULL), 1,
          ty(F32, "2,3"));
  REL_ERR("num_newaxis must be non-negative", "expand_dims", A("axis", I(0), "num_newaxis", I(-1), NULL), 1,
          ty(F32, "2,3"));
  CHECK_T(eval("expand_dims", A("axis", I(1), NULL), 1, iota("2,2")), "float32(2, 1, 2)", 0, 1, 2, 3);
  CHECK_CTX_CLEAN(ctx);
}

static void test_concatenate_stack(void) {
  ctx = check_ctx();
  const psg_type *a = ty(F32, "2,3"), *b = ty(F32, "2,1");
  REL_OK("float32(2, 4)", "concatenate", A("axis", I(1), NULL), 1, tup(2, a, b));
  REL_OK("float32(2, 4)", "concatenate", A("axis", I(-1), NULL), 1, tup(2, a, b));
  REL_OK("float32(?, 3)", "concatenate", A("axis", I(0), NULL), 1, tup(2, ty(F32, "?,3"), a));
  REL_OK("float32(?, 3)", "concatenate", A("axis", I(0), NULL), 1, tup(2, ty(F32, "2,?"), ty(F32, "?,3")));
  REL_OK("float32(4,)", "concatenate", NULL, 1, tup(1, ty(F32, "4")));
  REL_ERR("concatenate: field 1 has shape (2, 1), which does not match (2, 3) outside the axis", "concatenate",
          A("axis", I(0), NULL), 1, tup(2, a, b));
  REL_ERR("concatenate: field 1 has dtype int32 but field 0 has float32", "concatenate", A("axis", I(0), NULL), 1,
          tup(2, a, ty(I32, "2,3")));
  REL_ERR("field 1 has rank 1 but field 0 has rank 2", "concatenate", NULL, 1, tup(2, a, ty(F32, "3")));
  REL_ERR("concatenate: the argument must be a tuple of tensors", "concatenate", NULL, 1, a);
  REL_ERR("concatenate: the tuple must not be empty", "concatenate", NULL, 1, tup(0));
  REL_ERR("concatenate: axis 2 is out of range for rank 2", "concatenate", A("axis", I(2), NULL), 1, tup(2, a, a));
  /* [[1,2],[3,4]] ++ [[5],[6]] along 1, and ++ [[7,8]] along 0 */
  CHECK_T(eval("concatenate", A("axis", I(1), NULL), 1,
               tuple_of(2, V(F32, "2,2", (const double[]){1, 2, 3, 4}), V(F32, "2,1", (const double[]){5, 6}))),
          "float32(2, 3)", 1, 2, 5, 3, 4, 6);
  CHECK_T(eval("concatenate", A("axis", I(0), NULL), 1,
               tuple_of(2, V(I32, "2,2", (const double[]){1, 2, 3, 4}), V(I32, "1,2", (const double[]){7, 8}))),
          "int32(3, 2)", 1, 2, 3, 4, 7, 8);

  REL_OK("float32(2, 3)", "stack", A("axis", I(0), NULL), 1, tup(2, ty(F32, "3"), ty(F32, "3")));
  REL_OK("float32(3, 2)", "stack", A("axis", I(-1), NULL), 1, tup(2, ty(F32, "3"), ty(F32, "?")));
  REL_ERR("stack: field 1 has shape (4,), which does not match (3,)", "stack", NULL, 1,
          tup(2, ty(F32, "3"), ty(F32, "4")));
  REL_ERR("stack: axis 3 is out of range for rank 1 (expected -2..1)", "stack", A("axis", I(3), NULL), 1,
          tup(2, ty(F32, "3"), ty(F32, "3")));
  CHECK_T(eval("stack", A("axis", I(1), NULL), 1,
               tuple_of(2, V(F32, "2", (const double[]){1, 2}), V(F32, "2", (const double[]){3, 4}))),
          "float32(2, 2)", 1, 3, 2, 4);
  CHECK_T(eval("stack", NULL, 1, tuple_of(2, V(F32, "2", (const double[]){1, 2}), V(F32, "2", (const double[]){3, 4}))),
          "float32(2, 2)", 1, 2, 3, 4);
  CHECK_CTX_CLEAN(ctx);
}

static void test_split(void) {
  ctx = check_ctx();
  const psg_type *x = ty(F32, "6,4");
  REL_OK("(float32(2, 4), float32(2, 4), float32(2, 4))", "split", A("indices_or_sections", I(3), NULL), 1, x);
  REL_OK("(float32(1, 4), float32(3, 4), float32(2, 4))", "split", A("indices_or_sections", L("1,4"), NULL), 1, x);
  REL_OK("(float32(6, 1), float32(6, 3))", "split", A("indices_or_sections", L("1"), "axis", I(-1), NULL), 1, x);
  REL_OK("(float32(?, 4), float32(?, 4))", "split", A("indices_or_sections", I(2), NULL), 1, ty(F32, "?,4"));
  REL_OK("(float32(2, 4), float32(?, 4))", "split", A("indices_or_sections", L("2"), NULL), 1, ty(F32, "?,4"));
  REL_ERR("split: extent 6 of axis 0 is not divisible into 4 sections", "split", A("indices_or_sections", I(4), NULL),
          1, x);
  REL_ERR("split: indices (3, 1) must be positive and strictly ascending", "split",
          A("indices_or_sections", L("3,1"), NULL), 1, x);
  REL_ERR("must be below the extent 6 of axis 0", "split", A("indices_or_sections", L("2,6"), NULL), 1, x);
  REL_ERR("split: indices_or_sections must be an int or a list", "split", NULL, 1, x);
  REL_ERR("split: cannot split a scalar", "split", A("indices_or_sections", I(1), NULL), 1, ty(F32, ""));
  /* to a tuple value */
  psgi_value *r = eval("split", A("indices_or_sections", L("2,3"), NULL), 1, iota("5"));
  CHECK(r && r->kind == PSGI_VALUE_TUPLE && r->u.tuple.n == 3);
  if (r && r->kind == PSGI_VALUE_TUPLE && r->u.tuple.n == 3) {
    CHECK_T(field(r, 0), "float32(2,)", 0, 1);
    CHECK_T(field(r, 1), "float32(1,)", 2);
    CHECK_T(field(r, 2), "float32(2,)", 3, 4);
  }
  psgi_value_release(r);
  r = eval("split", A("indices_or_sections", I(2), "axis", I(1), NULL), 1, iota("2,4"));
  if (r && r->kind == PSGI_VALUE_TUPLE && r->u.tuple.n == 2) {
    CHECK_T(field(r, 0), "float32(2, 2)", 0, 1, 4, 5);
    CHECK_T(field(r, 1), "float32(2, 2)", 2, 3, 6, 7);
  } else {
    CHECK(!"split into 2 sections gave no 2-tuple");
  }
  psgi_value_release(r);
  CHECK_CTX_CLEAN(ctx);
}

static void test_strided_slice(void) {
  ctx = check_ctx();
  const psg_type *x = ty(F32, "4,5");
  REL_OK("float32(2, 5)", "strided_slice", A("begin", L("1,0"), "end", L("3,5"), NULL), 1, x);
  REL_OK("float32(2, 5)", "strided_slice", A("begin", L("1"), "end", L("3"), NULL), 1, x);
  REL_OK("float32(3, 5)", "strided_slice", A("begin", L("3"), "end", L("0"), "strides", L("-1"), NULL), 1, x);
  REL_OK("float32(4, 5)", "strided_slice", A("begin", L("-1"), "end", L("-100"), "strides", L("-1"), NULL), 1, x);
  REL_OK("float32(4, 2)", "strided_slice", A("begin", L("1"), "end", L("4"), "strides", L("2"), "axes", L("1"), NULL),
         1, x);
  REL_OK("float32(2, 4)", "strided_slice", A("begin", L("1,1"), "end", L("2,-1"), "slice_mode", S("size"), NULL), 1, x);
  REL_OK("float32(4, 5)", "strided_slice", A("begin", L("0,0"), "end", L("100,100"), NULL), 1, x);
  REL_OK("float32(0, 5)", "strided_slice", A("begin", L("3"), "end", L("1"), NULL), 1, x);
  REL_OK("float32(?, 2)", "strided_slice", A("begin", L("0,1"), "end", L("2,3"), NULL), 1, ty(F32, "?,5"));
  REL_OK("float32(?, 2)", "strided_slice", A("begin", L("1"), "end", L("3"), "axes", L("1"), NULL), 1, ty(F32, "?,5"));
  REL_ERR("strided_slice: the stride of axis 0 is 0", "strided_slice",
          A("begin", L("0"), "end", L("1"), "strides", L("0"), NULL), 1, x);
  REL_ERR("do not fit a tensor of rank 2", "strided_slice", A("begin", L("0,0,0"), "end", L("1,1,1"), NULL), 1, x);
  REL_ERR("slice_mode must be", "strided_slice", A("begin", L("0"), "end", L("1"), "slice_mode", S("step"), NULL), 1,
          x);
  REL_ERR("strided_slice: axis 2 is out of range", "strided_slice",
          A("begin", L("0"), "end", L("1"), "axes", L("2"), NULL), 1, x);
  /* negative strides */
  CHECK_T(eval("strided_slice", A("begin", L("3"), "end", L("-5"), "strides", L("-1"), NULL), 1, iota("4")),
          "float32(4,)", 3, 2, 1, 0);
  CHECK_T(eval("strided_slice", A("begin", L("-1"), "end", L("0"), "strides", L("-2"), NULL), 1, iota("4")),
          "float32(2,)", 3, 1);
  CHECK_T(eval("strided_slice", A("begin", L("2,3"), "end", L("0,0"), "strides", L("-1,-2"), NULL), 1, iota("3,4")),
          "float32(2, 2)", 11, 9, 7, 5);
  CHECK_T(eval("strided_slice", A("begin", L("1,1"), "end", L("2,2"), "slice_mode", S("size"), NULL), 1, iota("3,4")),
          "float32(2, 2)", 5, 6, 9, 10);
  CHECK_T(eval("strided_slice", A("begin", L("-3"), "end", L("4"), "strides", L("2"), "axes", L("1"), NULL), 1,
               iota("2,4")),
          "float32(2, 2)", 1, 3, 5, 7);
  CHECK_CTX_CLEAN(ctx);
}

static void test_take(void) {
  ctx = check_ctx();
  const psg_type *x = ty(F32, "3,4"), *i2 = ty(I32, "2");
  REL_OK("float32(2, 4)", "take", A("axis", I(0), NULL), 2, x, i2);
  REL_OK("float32(3, 2)", "take", A("axis", I(1), NULL), 2, x, i2);
  REL_OK("float32(2,)", "take", NULL, 2, x, i2);
  REL_OK("float32(3, 2, 5)", "take", A("axis", I(-1), NULL), 2, x, ty(I64, "2,5"));
  REL_OK("float32(2, 5, 4)", "take", A("axis", I(1), "batch_dims", I(1), NULL), 2, ty(F32, "2,3,4"), ty(I32, "2,5"));
  REL_OK("float32(?, ?)", "take", A("axis", I(1), NULL), 2, ty(F32, "?,4"), ty(I32, "?"));
  REL_ERR("take: indices must be integers, got float32", "take", NULL, 2, x, ty(F32, "2"));
  REL_ERR("take: axis 2 is out of range for rank 2", "take", A("axis", I(2), NULL), 2, x, i2);
  REL_ERR("take: batch_dims 1 must be within the indices rank 1 and at most axis 0", "take",
          A("axis", I(0), "batch_dims", I(1), NULL), 2, x, i2);
  REL_ERR("take: mode must be", "take", A("mode", S("raise"), NULL), 2, x, i2);
  /* modes: clip (TVM's default) clamps, wrap is modular, fast refuses */
  const double data[] = {10, 20, 30, 40, 50}, idx[] = {0, 4, 7, -1};
  CHECK_T(eval("take", NULL, 2, V(F32, "5", data), V(I32, "4", idx)), "float32(4,)", 10, 50, 50, 10);
  CHECK_T(eval("take", A("mode", S("wrap"), NULL), 2, V(F32, "5", data), V(I32, "4", idx)), "float32(4,)", 10, 50, 30,
          50);
  CHECK_T(eval("take", A("mode", S("fast"), NULL), 2, V(F32, "5", data), V(I64, "2", (const double[]){4, 1})),
          "float32(2,)", 50, 20);
  EVAL_ERR("take: index 7 is out of range for extent 5",
           eval("take", A("mode", S("fast"), NULL), 2, V(F32, "5", data), V(I32, "4", idx)));
  /* along axis 1 of [[1,2,3],[4,5,6]]; axis None indexes the flattened data */
  const double m[] = {1, 2, 3, 4, 5, 6};
  CHECK_T(eval("take", A("axis", I(1), NULL), 2, V(F32, "2,3", m), V(I32, "2", (const double[]){2, 0})),
          "float32(2, 2)", 3, 1, 6, 4);
  CHECK_T(eval("take", A("axis", NONE(), NULL), 2, V(F32, "2,3", m), V(I32, "2", (const double[]){5, 0})),
          "float32(2,)", 6, 1);
  CHECK_T(eval("take", A("axis", I(1), "batch_dims", I(1), NULL), 2, V(F32, "2,3", m),
               V(I32, "2,2", (const double[]){0, 2, 1, 1})),
          "float32(2, 2)", 1, 3, 5, 5);
  CHECK_CTX_CLEAN(ctx);
}

static void test_gather_nd(void) {
  ctx = check_ctx();
  REL_OK("float32(5, 4)", "gather_nd", NULL, 2, ty(F32, "2,3,4"), ty(I32, "2,5"));
  REL_OK("float32(?,)", "gather_nd", NULL, 2, ty(F32, "2,3"), ty(I32, "2,?"));
  REL_OK("float32(2,)", "gather_nd", A("batch_dims", I(1), NULL), 2, ty(F32, "2,3"), ty(I32, "1,2"));
  REL_ERR("gather_nd: 3 index dims after 0 batch dims do not fit data of rank 2", "gather_nd", NULL, 2, ty(F32, "2,3"),
          ty(I32, "3,1"));
  REL_ERR("gather_nd: indices need a known first dim", "gather_nd", NULL, 2, ty(F32, "2,3"), ty(I32, "?,1"));
  REL_ERR("gather_nd: index_rank 1 does not match", "gather_nd", A("index_rank", I(1), NULL), 2, ty(F32, "2,3"),
          ty(I32, "2,1"));
  const double d[] = {0, 1, 2, 3, 4, 5};
  /* indices (2, 2): columns (1, 0) and (0, 1) of data [[0,1],[2,3]] */
  CHECK_T(eval("gather_nd", NULL, 2, V(F32, "2,2", d), V(I32, "2,2", (const double[]){1, 0, 0, 1})), "float32(2,)", 2,
          1);
  CHECK_T(eval("gather_nd", NULL, 2, V(F32, "2,2", d), V(I32, "1,1", (const double[]){1})), "float32(1, 2)", 2, 3);
  CHECK_T(eval("gather_nd", A("batch_dims", I(1), NULL), 2, V(F32, "2,3", d), V(I32, "1,2", (const double[]){2, 0})),
          "float32(2,)", 2, 3);
  EVAL_ERR("gather_nd: index 2 is out of range for extent 2",
           eval("gather_nd", NULL, 2, V(F32, "2,2", d), V(I32, "1,1", (const double[]){2})));
  CHECK_CTX_CLEAN(ctx);
}

static void test_broadcast_tile_repeat_reverse(void) {
  ctx = check_ctx();
  REL_OK("float32(2, 3, 4)", "broadcast_to", A("shape", L("2,3,4"), NULL), 1, ty(F32, "3,1"));
  REL_OK("float32(2, 3)", "broadcast_to", A("shape", L("2,3"), NULL), 1, ty(F32, "?"));
  REL_ERR("broadcast_to: cannot broadcast (3, 2) to (3, 4)", "broadcast_to", A("shape", L("3,4"), NULL), 1,
          ty(F32, "3,2"));
  CHECK_T(eval("broadcast_to", A("shape", L("2,2,3"), NULL), 1, V(F32, "2,1", (const double[]){1, 2})),
          "float32(2, 2, 3)", 1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2);

  REL_OK("float32(2, 6)", "tile", A("reps", L("2"), NULL), 1, ty(F32, "2,3"));
  REL_OK("float32(2, 4)", "tile", A("reps", L("2,2"), NULL), 1, ty(F32, "2"));
  REL_OK("float32(?, 6)", "tile", A("reps", L("2,3"), NULL), 1, ty(F32, "?,2"));
  REL_ERR("tile: reps must be positive, got (2, 0)", "tile", A("reps", L("2,0"), NULL), 1, ty(F32, "2"));
  CHECK_T(eval("tile", A("reps", L("2,2"), NULL), 1, V(F32, "2", (const double[]){1, 2})), "float32(2, 4)", 1, 2, 1, 2,
          1, 2, 1, 2);
  CHECK_T(eval("tile", A("reps", L("2,1"), NULL), 1, iota("2,2")), "float32(4, 2)", 0, 1, 2, 3, 0, 1, 2, 3);
  CHECK_T(eval("tile", A("reps", L("1,2"), NULL), 1, iota("2,2")), "float32(2, 4)", 0, 1, 0, 1, 2, 3, 2, 3);

  REL_OK("float32(2, 4)", "repeat", A("repeats", I(2), "axis", I(1), NULL), 1, ty(F32, "2,2"));
  REL_OK("float32(?, 2)", "repeat", A("repeats", I(3), "axis", I(0), NULL), 1, ty(F32, "?,2"));
  REL_ERR("repeat: repeats must be at least 1, got 0", "repeat", A("repeats", I(0), NULL), 1, ty(F32, "2"));
  REL_ERR("repeat: axis -3 is out of range for rank 2", "repeat", A("repeats", I(2), "axis", I(-3), NULL), 1,
          ty(F32, "2,2"));
  CHECK_T(eval("repeat", A("repeats", I(2), "axis", I(1), NULL), 1, iota("2,2")), "float32(2, 4)", 0, 0, 1, 1, 2, 2, 3,
          3);
  CHECK_T(eval("repeat", A("repeats", I(2), "axis", I(0), NULL), 1, iota("2,2")), "float32(4, 2)", 0, 1, 0, 1, 2, 3, 2,
          3);

  REL_OK("float32(2, ?)", "reverse", A("axis", I(1), NULL), 1, ty(F32, "2,?"));
  REL_ERR("reverse: axis 2 is out of range for rank 2", "reverse", A("axis", I(2), NULL), 1, ty(F32, "2,3"));
  CHECK_T(eval("reverse", A("axis", I(1), NULL), 1, iota("2,3")), "float32(2, 3)", 2, 1, 0, 5, 4, 3);
  CHECK_T(eval("reverse", A("axis", I(-2), NULL), 1, iota("2,3")), "float32(2, 3)", 3, 4, 5, 0, 1, 2);
  CHECK_CTX_CLEAN(ctx);
}

/* Data moves as element bytes: int64 beyond 2^53 stays exact, float16 and
 * bool keep their bits; sorting compares int64 as integers. */
static void test_dtypes(void) {
  ctx = check_ctx();
  const int64_t big[] = {(1LL << 62) + 1, 3, (1LL << 62), -5}, shape[] = {2, 2};
  psg_tensor *t = NULL;
  psgi_value *v = NULL;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_INT64, shape, 2, big, &t));
  CHECK_OK(psgi_value_tensor(ctx, t, &v));
  psg_tensor_release(t);
  psgi_value_retain(v);
  psgi_value *r = eval("transpose", NULL, 1, v);
  const psg_tensor *rt = psgi_value_as_tensor(r);
  const int64_t want_t[] = {(1LL << 62) + 1, (1LL << 62), 3, -5};
  CHECK(rt && memcmp(rt->data, want_t, sizeof want_t) == 0);
  psgi_value_release(r);
  /* ascending: 2^62 < 2^62 + 1 only when compared exactly */
  r = eval("topk", A("k", I(1), "axis", I(0), "ret_type", S("indices"), "is_ascend", B(true), NULL), 1, v);
  rt = psgi_value_as_tensor(r);
  CHECK(rt && rt->dtype == PSG_DTYPE_INT32 && ((const int32_t *)rt->data)[0] == 1 &&
        ((const int32_t *)rt->data)[1] == 1);
  psgi_value_release(r);
  CHECK_T(eval("reverse", NULL, 1, V(PSG_DTYPE_FLOAT16, "3", (const double[]){0.5, -2, 65504})), "float16(3,)", 65504,
          -2, 0.5);
  CHECK_T(eval("tile", A("reps", L("2"), NULL), 1, V(PSG_DTYPE_BOOL, "2", (const double[]){1, 0})), "bool(4,)", 1, 0, 1,
          0);
  REL_ERR("split: sections must be in 1..65536, got 0", "split", A("indices_or_sections", I(0), NULL), 1, ty(F32, "2"));
  CHECK_CTX_CLEAN(ctx);
}

/* Zero-element tensors have no buffer: every kernel must cope. */
static void test_empty(void) {
  ctx = check_ctx();
  check_tensor(__LINE__, eval("reshape", A("newshape", L("3,0"), "allowzero", B(true), NULL), 1, iota("0,3")),
               "float32(3, 0)", NULL, 0);
  check_tensor(__LINE__, eval("transpose", NULL, 1, iota("0,3")), "float32(3, 0)", NULL, 0);
  check_tensor(__LINE__, eval("strided_slice", A("begin", L("2"), "end", L("1"), NULL), 1, iota("4")), "float32(0,)",
               NULL, 0);
  check_tensor(__LINE__, eval("take", A("axis", I(0), NULL), 2, iota("2,0,3"), V(I32, "1", (const double[]){1})),
               "float32(1, 0, 3)", NULL, 0);
  check_tensor(__LINE__, eval("take", A("axis", I(1), NULL), 2, iota("2,3"), V(I32, "0", NULL)), "float32(2, 0)", NULL,
               0);
  EVAL_ERR("take: cannot take from an axis of extent 0",
           eval("take", A("axis", I(0), NULL), 2, iota("0,3"), V(I32, "1", (const double[]){0})));
  check_tensor(__LINE__, eval("take", A("axis", I(0), NULL), 2, iota("2,0"), V(I32, "1", (const double[]){1})),
               "float32(1, 0)", NULL, 0);
  check_tensor(__LINE__, eval("concatenate", NULL, 1, tuple_of(2, iota("0,2"), iota("1,2"))), "float32(1, 2)",
               VALS(0, 1));
  check_tensor(__LINE__, eval("argsort", NULL, 1, iota("2,0")), "int32(2, 0)", NULL, 0);
  check_tensor(__LINE__, eval("tile", A("reps", L("3"), NULL), 1, iota("0")), "float32(0,)", NULL, 0);
  check_tensor(__LINE__, eval("gather_nd", NULL, 2, iota("2,0"), V(I32, "1,1", (const double[]){1})), "float32(1, 0)",
               NULL, 0);
  check_tensor(__LINE__, eval("ndarray_size", NULL, 1, iota("2,0")), "int32()", VALS(0));
  CHECK_CTX_CLEAN(ctx);
}

static void test_layout_transform(void) {
  ctx = check_ctx();
#define LT(s, d) A("src_layout", S(s), "dst_layout", S(d), NULL)
  REL_OK("float32(1, 4, 5, 3)", "layout_transform", LT("NCHW", "NHWC"), 1, ty(F32, "1,3,4,5"));
  REL_OK("float32(3, 3, 4, 8)", "layout_transform", LT("OIHW", "HWIO"), 1, ty(F32, "8,4,3,3"));
  REL_OK("float32(1, 2, 5, 5, 4)", "layout_transform", LT("NCHW", "NCHW4c"), 1, ty(F32, "1,8,5,5"));
  REL_OK("float32(1, 8, 5, 5)", "layout_transform", LT("NCHW4c", "NCHW"), 1, ty(F32, "1,2,5,5,4"));
  REL_OK("float32(1, 4, 5, 5, 2)", "layout_transform", LT("NCHW4c", "NCHW2c"), 1, ty(F32, "1,2,5,5,4"));
  REL_OK("float32(?, 5, 5, 3)", "layout_transform", LT("NCHW", "NHWC"), 1, ty(F32, "?,3,5,5"));
  REL_ERR("layout_transform: axis C of extent 6 is not divisible by 4", "layout_transform", LT("NCHW", "NCHW4c"), 1,
          ty(F32, "1,6,5,5"));
  REL_ERR("\"NCHW\" and \"NHWD\" do not have the same axes", "layout_transform", LT("NCHW", "NHWD"), 1,
          ty(F32, "1,6,5,5"));
  REL_ERR("a tensor of rank 3 does not have layout \"NCHW\"", "layout_transform", LT("NCHW", "NHWC"), 1,
          ty(F32, "1,6,5"));
  REL_ERR("bad layout \"NC4\"", "layout_transform", LT("NC4", "NCHW"), 1, ty(F32, "1,6,5"));
  REL_ERR("block axis 4c of \"NHW4c\" has no primal axis C", "layout_transform", LT("NCHW", "NHW4c"), 1,
          ty(F32, "1,8,5,5"));
  /* out[0,h,w,c] = in[0,c,h,w] = 4c + 2h + w */
  CHECK_T(eval("layout_transform", LT("NCHW", "NHWC"), 1, iota("1,3,2,2")), "float32(1, 2, 2, 3)", 0, 4, 8, 1, 5, 9, 2,
          6, 10, 3, 7, 11);
  /* NCHW (1,4,1,2) -> NCHW2c: out[0,co,0,w,ci] = in[0,2co+ci,0,w] = 2(2co+ci) + w */
  CHECK_T(eval("layout_transform", LT("NCHW", "NCHW2c"), 1, iota("1,4,1,2")), "float32(1, 2, 1, 2, 2)", 0, 2, 1, 3, 4,
          6, 5, 7);
  CHECK_T(
      eval("layout_transform", LT("NCHW2c", "NCHW"), 1, V(F32, "1,2,1,2,2", (const double[]){0, 2, 1, 3, 4, 6, 5, 7})),
      "float32(1, 4, 1, 2)", 0, 1, 2, 3, 4, 5, 6, 7);
#undef LT
  CHECK_CTX_CLEAN(ctx);
}

static void test_shape_of_ndarray_size(void) {
  ctx = check_ctx();
  REL_OK("int32(3,)", "shape_of", NULL, 1, ty(F32, "2,?,4"));
  REL_OK("int64(3,)", "shape_of", A("dtype", D(I64), NULL), 1, ty(F32, "2,?,4"));
  REL_OK("int32(0,)", "shape_of", NULL, 1, ty(F32, ""));
  REL_ERR("shape_of: unknown dtype 'int3'", "shape_of", A("dtype", S("int3"), NULL), 1, ty(F32, "2"));
  CHECK_T(eval("shape_of", NULL, 1, iota("2,3,4")), "int32(3,)", 2, 3, 4);
  CHECK_T(eval("shape_of", A("dtype", D(F32), NULL), 1, iota("5")), "float32(1,)", 5);
  check_tensor(__LINE__, eval("shape_of", NULL, 1, iota("")), "int32(0,)", NULL, 0);

  REL_OK("int32()", "ndarray_size", NULL, 1, ty(F32, "2,?"));
  REL_OK("int64()", "ndarray_size", A("dtype", D(I64), NULL), 1, ty(F32, "2"));
  CHECK_T(eval("ndarray_size", NULL, 1, iota("2,3,4")), "int32()", 24);
  CHECK_T(eval("ndarray_size", A("dtype", D(F32), NULL), 1, iota("")), "float32()", 1);
  CHECK_CTX_CLEAN(ctx);
}

static void test_argsort_topk(void) {
  ctx = check_ctx();
  REL_OK("int32(2, 3)", "argsort", NULL, 1, ty(F32, "2,3"));
  REL_OK("int64(?, 3)", "argsort", A("axis", I(0), "dtype", D(I64), NULL), 1, ty(F32, "?,3"));
  REL_ERR("argsort: axis 2 is out of range", "argsort", A("axis", I(2), NULL), 1, ty(F32, "2,3"));
  const double m[] = {3, 1, 2, 1, 1, 0};
  /* stable: the two 1s of the second row keep their order */
  CHECK_T(eval("argsort", NULL, 1, V(F32, "2,3", m)), "int32(2, 3)", 1, 2, 0, 2, 0, 1);
  CHECK_T(eval("argsort", A("is_ascend", B(false), NULL), 1, V(F32, "2,3", m)), "int32(2, 3)", 0, 2, 1, 0, 1, 2);
  CHECK_T(eval("argsort", A("axis", I(0), NULL), 1, V(I32, "2,3", m)), "int32(2, 3)", 1, 0, 1, 0, 1, 0);

  REL_OK("(float32(2, 2), int32(2, 2))", "topk", A("k", I(2), NULL), 1, ty(F32, "2,3"));
  REL_OK("float32(2, 1)", "topk", A("ret_type", S("values"), NULL), 1, ty(F32, "2,3"));
  REL_OK("int64(1, 3)", "topk", A("k", I(1), "axis", I(0), "ret_type", S("indices"), "dtype", D(I64), NULL), 1,
         ty(F32, "2,3"));
  REL_OK("(float32(2, 3), int32(2, 3))", "topk", A("k", I(0), NULL), 1, ty(F32, "2,3"));
  REL_OK("(float32(?, 2), int32(?, 2))", "topk", A("k", I(2), NULL), 1, ty(F32, "?,3"));
  REL_ERR("topk: k=5 exceeds the extent 3 of axis 1", "topk", A("k", I(5), NULL), 1, ty(F32, "2,3"));
  REL_ERR("topk: ret_type must be", "topk", A("ret_type", S("all"), NULL), 1, ty(F32, "2,3"));
  psgi_value *r = eval("topk", A("k", I(2), NULL), 1, V(F32, "2,3", m));
  if (r && r->kind == PSGI_VALUE_TUPLE && r->u.tuple.n == 2) {
    CHECK_T(field(r, 0), "float32(2, 2)", 3, 2, 1, 1);
    CHECK_T(field(r, 1), "int32(2, 2)", 0, 2, 0, 1);
  } else {
    CHECK(!"topk both gave no 2-tuple");
  }
  psgi_value_release(r);
  CHECK_T(eval("topk", A("k", I(1), "is_ascend", B(true), "ret_type", S("values"), NULL), 1, V(F32, "2,3", m)),
          "float32(2, 1)", 1, 0);
  CHECK_T(eval("topk", A("k", I(0), "ret_type", S("indices"), NULL), 1, V(F32, "3", (const double[]){NAN, 5, 7})),
          "int32(3,)", 0, 2, 1);
  CHECK_CTX_CLEAN(ctx);
}

/* Public API only: parse, evaluate, compare. */
static void test_end_to_end(void) {
  ctx = check_ctx();
  const char *src = "#[version = \"0.0.5\"]\n"
                    "def @main(%x: Tensor[(2, 2), float32], %y: Tensor[(2, 1), float32]) {\n"
                    "  %0 = concatenate((%x, %y), axis=1);\n"
                    "  %1 = transpose(%0, axes=[1, 0]);\n"
                    "  %2 = split(%1, indices_or_sections=[1], axis=0);\n"
                    "  %3 = %2.1;\n"
                    "  %4 = strided_slice(%3, begin=[0, 1], end=[2, -3], strides=[1, -1]);\n"
                    "  (reshape(%4, newshape=[-1]), shape_of(%1, dtype=\"int64\"))\n"
                    "}\n";
  psg_module *m = NULL;
  CHECK_OK(psg_module_parse(ctx, src, strlen(src), "e2e.relay", &m));
  psg_tensor *in[2] = {NULL, NULL}, **outs = NULL;
  float x[] = {1, 2, 3, 4}, y[] = {5, 6};
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, (int64_t[]){2, 2}, 2, x, &in[0]));
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, (int64_t[]){2, 1}, 2, y, &in[1]));
  size_t n = 0;
  psg_status st = m ? psg_eval(ctx, m, "main", in, 2, &outs, &n) : PSG_ERR_PARSE;
  CHECK_OK(st);
  if (!st && n == 2) {
    /* [[1,2,5],[3,4,6]] -> T = [[1,3],[2,4],[5,6]] -> rows 1..2 = [[2,4],[5,6]]
     * -> columns reversed -> [[4,2],[6,5]] */
    const float want[] = {4, 2, 6, 5};
    CHECK_EQ_INT(psg_tensor_numel(outs[0]), 4);
    CHECK(psg_tensor_numel(outs[0]) == 4 && memcmp(psg_tensor_data(outs[0]), want, sizeof want) == 0);
    const int64_t shape[] = {3, 2};
    CHECK_EQ_INT(psg_tensor_dtype(outs[1]), PSG_DTYPE_INT64);
    CHECK(psg_tensor_numel(outs[1]) == 2 && memcmp(psg_tensor_data(outs[1]), shape, sizeof shape) == 0);
  } else {
    CHECK(!"psg_eval gave no two outputs");
  }
  for (size_t i = 0; i < n; i++) psg_tensor_release(outs[i]);
  psg_free(outs);
  psg_tensor_release(in[0]);
  psg_tensor_release(in[1]);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_registry);
  RUN_TEST(test_reshape);
  RUN_TEST(test_transpose);
  RUN_TEST(test_transpose_tiled);
  RUN_TEST(test_squeeze_expand_dims);
  RUN_TEST(test_concatenate_stack);
  RUN_TEST(test_split);
  RUN_TEST(test_strided_slice);
  RUN_TEST(test_take);
  RUN_TEST(test_gather_nd);
  RUN_TEST(test_broadcast_tile_repeat_reverse);
  RUN_TEST(test_dtypes);
  RUN_TEST(test_empty);
  RUN_TEST(test_layout_transform);
  RUN_TEST(test_shape_of_ndarray_size);
  RUN_TEST(test_argsort_topk);
  RUN_TEST(test_end_to_end);
  return check_finish();
}
