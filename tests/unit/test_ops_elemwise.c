/* Passage — the elementwise, creation and misc op families (issue 5): type
 * relations (shapes, dtypes, broadcasting with unknown dims, error messages)
 * and kernels against hand-computed values, `passage ops` queries, and an
 * end-to-end run of a parsed module through InferType and psg_eval. */
#include <math.h>
#include "check.h"
#include "interp/interp_internal.h"
#include "ops/kernel_util.h"

static psg_ctx *ctx;

/* Helpers ------------------------------------------------------------------------ */

static size_t op_index(const char *name) {
  ptrdiff_t i = psgi_op_lookup(name, strlen(name));
  if (i < 0) {
    fprintf(stderr, "no op %s\n", name);
    exit(1);
  }
  return (size_t)i;
}

/* An interned tensor type; T(dtype, dims...) with PSG_DIM_UNKNOWN for `?`. */
static const psg_type *tt(int dtype, const int64_t *dims, int nd) {
  const psg_type *t = NULL;
  if (psg_type_tensor(ctx, dims, nd, dtype, &t) != PSG_OK) exit(1);
  return t;
}
#define T(dtype, ...) tt(dtype, (const int64_t[]){__VA_ARGS__}, (int)(sizeof((int64_t[]){__VA_ARGS__}) / 8))
static const psg_type *scalar(int dtype) { return tt(dtype, NULL, 0); }

/* Runs op's type relation. msg receives the failure reason. */
static psg_status rel(const char *op, psg_attrs *attrs, const psg_type *const *args, size_t n,
                      const psg_type **out, char *msg) {
  size_t i = op_index(op);
  const psgi_op_impl *impl = psgi_op_impl_get(i);
  if (!impl || !impl->type_rel) return PSG_ERR_UNSUPPORTED;
  psgi_op_call call = {.ctx = ctx, .op = i, .attrs = attrs};
  *out = NULL;
  psg_status st = impl->type_rel(&call, args, n, out);
  if (msg) snprintf(msg, 512, "%s", call.msg);
  return st;
}

/* Checks that op's relation fails with a message containing `want`. */
static void rel_fails(const char *op, psg_attrs *attrs, const psg_type *const *args, size_t n, const char *want) {
  char msg[512];
  const psg_type *out;
  CHECK_EQ_INT(rel(op, attrs, args, n, &out, msg), PSG_ERR_TYPE);
  CHECK(out == NULL);
  if (!strstr(msg, want)) {
    fprintf(stderr, "  %s: message \"%s\" lacks \"%s\"\n", op, msg, want);
    CHECK(strstr(msg, want) != NULL);
  }
}

/* Attribute dictionaries. */
static psg_attrs *attrs_of(size_t n, const char *const *keys, psg_attr *const *vals) {
  psg_attrs *a = NULL;
  CHECK_OK(psg_attrs_create(ctx, keys, vals, n, &a));
  for (size_t i = 0; i < n; i++) psg_attr_release(vals[i]);
  return a;
}
static psg_attr *a_dtype(int d) {
  psg_attr *a = NULL;
  psg_attr_dtype(ctx, d, &a);
  return a;
}
static psg_attr *a_str(const char *s) {
  psg_attr *a = NULL;
  psg_attr_string(ctx, s, strlen(s), &a);
  return a;
}
static psg_attr *a_float(double v) {
  psg_attr *a = NULL;
  psg_attr_float(ctx, v, &a);
  return a;
}
static psg_attr *a_ints(const int64_t *v, size_t n) {
  psg_attr *items[8], *a = NULL;
  for (size_t i = 0; i < n; i++) psg_attr_int(ctx, v[i], &items[i]);
  psg_attr_list(ctx, items, n, &a);
  for (size_t i = 0; i < n; i++) psg_attr_release(items[i]);
  return a;
}
static psg_attrs *dtype_attrs(int d) { return attrs_of(1, (const char *[]){"dtype"}, (psg_attr *[]){a_dtype(d)}); }
static psg_attrs *shape_dtype_attrs(const int64_t *shape, size_t n, int d) {
  return attrs_of(2, (const char *[]){"shape", "dtype"}, (psg_attr *[]){a_ints(shape, n), a_dtype(d)});
}

/* A tensor value from raw element bytes. */
static psgi_value *val(int dtype, const int64_t *dims, int nd, const void *data) {
  psg_tensor *t = NULL;
  psgi_value *v = NULL;
  if (psg_tensor_create(ctx, dtype, dims, nd, data, &t) || psgi_value_tensor(ctx, t, &v)) exit(1);
  psg_tensor_release(t);
  return v;
}
#define V(dtype, dims, data) val(dtype, dims, (int)(sizeof dims / sizeof *dims), data)
#define S(dtype, data) val(dtype, NULL, 0, data)

/* Evaluates op (relation, then kernel) on values; msg gets the failure. */
static psg_status eval(const char *op, psg_attrs *attrs, psgi_value *const *args, size_t n, psgi_value **out,
                       char *msg) {
  char m[512];
  psg_status st = psgi_eval_op(ctx, op_index(op), attrs, args, n, out, msg ? msg : m, 512);
  return st;
}

static const psg_tensor *tensor_of(const psgi_value *v) { return psgi_value_as_tensor(v); }

/* Element i of a result as double / int64, whatever its dtype. */
static double elem_f(const psgi_value *v, size_t i) {
  const psg_tensor *t = tensor_of(v);
  return psgi_load_f(psg_tensor_dtype(t), psg_tensor_data(t), i);
}
static int64_t elem_i(const psgi_value *v, size_t i) {
  const psg_tensor *t = tensor_of(v);
  return psgi_load_i(psg_tensor_dtype(t), psg_tensor_data(t), i);
}

/* Evaluates a binary op on two values and returns the result (NULL and a
 * failed check if evaluation fails); releases the arguments. */
static psgi_value *bin(const char *op, psgi_value *a, psgi_value *b) {
  psgi_value *out = NULL;
  char msg[512];
  psg_status st = eval(op, NULL, (psgi_value *[]){a, b}, 2, &out, msg);
  if (st) fprintf(stderr, "  %s failed: %s\n", op, msg);
  CHECK_OK(st);
  psgi_value_release(a);
  psgi_value_release(b);
  return out;
}
static psgi_value *un(const char *op, psg_attrs *attrs, psgi_value *a) {
  psgi_value *out = NULL;
  char msg[512];
  psg_status st = eval(op, attrs, &a, 1, &out, msg);
  if (st) fprintf(stderr, "  %s failed: %s\n", op, msg);
  CHECK_OK(st);
  psgi_value_release(a);
  psg_attrs_release(attrs);
  return out;
}

static void check_floats(const psgi_value *v, int dtype, const double *want, size_t n, double tol) {
  const psg_tensor *t = tensor_of(v);
  CHECK(t != NULL);
  if (!t) return;
  CHECK_EQ_INT(psg_tensor_dtype(t), dtype);
  CHECK_EQ_INT(psg_tensor_numel(t), (int64_t)n);
  for (size_t i = 0; i < n && i < (size_t)psg_tensor_numel(t); i++) {
    double got = elem_f(v, i);
    bool ok = isnan(want[i]) ? isnan(got) : (got == want[i] || fabs(got - want[i]) <= tol) && signbit(got) == signbit(want[i]);
    if (!ok) fprintf(stderr, "  element %zu: got %.17g, want %.17g\n", i, got, want[i]);
    CHECK(ok);
  }
}
static void check_ints(const psgi_value *v, int dtype, const int64_t *want, size_t n) {
  const psg_tensor *t = tensor_of(v);
  CHECK(t != NULL);
  if (!t) return;
  CHECK_EQ_INT(psg_tensor_dtype(t), dtype);
  CHECK_EQ_INT(psg_tensor_numel(t), (int64_t)n);
  for (size_t i = 0; i < n && i < (size_t)psg_tensor_numel(t); i++) CHECK_EQ_INT(elem_i(v, i), want[i]);
}
static void check_shape(const psgi_value *v, const int64_t *dims, int nd) {
  const psg_tensor *t = tensor_of(v);
  CHECK(t != NULL);
  if (!t) return;
  CHECK_EQ_INT(psg_tensor_ndim(t), nd);
  for (int i = 0; i < nd && i < psg_tensor_ndim(t); i++) CHECK_EQ_INT(psg_tensor_dim(t, i), dims[i]);
}

static const char *const binary_ops[] = {"add", "subtract", "multiply", "divide", "power", "maximum",
                                         "minimum", "floor_divide", "floor_mod", "logical_and", "logical_or"};
static const char *const compare_ops[] = {"equal", "not_equal", "greater", "greater_equal", "less", "less_equal"};
static const char *const unary_ops[] = {"logical_not", "sqrt", "rsqrt", "exp", "fast_exp", "log", "negative",
                                        "abs", "sign", "sigmoid", "tanh", "fast_tanh", "erf", "fast_erf",
                                        "floor", "ceil", "round", "trunc", "copy", "zeros_like", "ones_like"};
#define COUNT(a) (sizeof a / sizeof *a)

/* Relations ---------------------------------------------------------------------- */

static void test_rel_broadcast(void) {
  const psg_type *out;
  const psg_type *a = T(PSG_DTYPE_FLOAT32, 2, 1, 3), *b = T(PSG_DTYPE_FLOAT32, 4, 1);
  for (size_t k = 0; k < COUNT(binary_ops) + COUNT(compare_ops); k++) {
    const char *op = k < COUNT(binary_ops) ? binary_ops[k] : compare_ops[k - COUNT(binary_ops)];
    int want_dtype = k < COUNT(binary_ops) ? PSG_DTYPE_FLOAT32 : PSG_DTYPE_BOOL;
    CHECK_OK(rel(op, NULL, (const psg_type *[]){a, b}, 2, &out, NULL));
    CHECK(out == T(want_dtype, 2, 4, 3));
    /* Unknown dims: a known extent other than 1 wins, 1 keeps the unknown. */
    CHECK_OK(rel(op, NULL, (const psg_type *[]){T(PSG_DTYPE_FLOAT32, PSG_DIM_UNKNOWN, 3), T(PSG_DTYPE_FLOAT32, 4, 3)}, 2,
                 &out, NULL));
    CHECK(out == T(want_dtype, 4, 3));
    CHECK_OK(rel(op, NULL, (const psg_type *[]){T(PSG_DTYPE_FLOAT32, PSG_DIM_UNKNOWN, 3), T(PSG_DTYPE_FLOAT32, 1, 3)}, 2,
                 &out, NULL));
    CHECK(out == T(want_dtype, PSG_DIM_UNKNOWN, 3));
    /* Scalars broadcast against anything. */
    CHECK_OK(rel(op, NULL, (const psg_type *[]){scalar(PSG_DTYPE_FLOAT32), a}, 2, &out, NULL));
    CHECK(out == T(want_dtype, 2, 1, 3));
    rel_fails(op, NULL, (const psg_type *[]){T(PSG_DTYPE_FLOAT32, 1, 3), T(PSG_DTYPE_FLOAT32, 4, 5)}, 2,
              "cannot broadcast (1, 3) and (4, 5)");
  }
  CHECK_OK(rel("less", NULL, (const psg_type *[]){T(PSG_DTYPE_INT64, 5), T(PSG_DTYPE_INT64, 5)}, 2, &out, NULL));
  CHECK(out == T(PSG_DTYPE_BOOL, 5));
  rel_fails("add", NULL, (const psg_type *[]){T(PSG_DTYPE_FLOAT32, 3), T(PSG_DTYPE_INT64, 3)}, 2,
            "add: dtypes float32 and int64 differ");
  rel_fails("equal", NULL, (const psg_type *[]){T(PSG_DTYPE_INT32, 3), T(PSG_DTYPE_INT64, 3)}, 2,
            "equal: dtypes int32 and int64 differ");
  rel_fails("add", NULL, (const psg_type *[]){a}, 1, "'add' takes 2 arguments, got 1");
  const psg_type *tup = NULL;
  CHECK_OK(psg_type_tuple(ctx, (const psg_type *[]){a}, 1, &tup));
  rel_fails("multiply", NULL, (const psg_type *[]){a, tup}, 2, "argument 1 of 'multiply' must be a tensor");
}

static void test_rel_unary(void) {
  const psg_type *out, *x = T(PSG_DTYPE_FLOAT16, PSG_DIM_UNKNOWN, 7);
  for (size_t k = 0; k < COUNT(unary_ops); k++) {
    CHECK_OK(rel(unary_ops[k], NULL, &x, 1, &out, NULL));
    CHECK(out == x);
    rel_fails(unary_ops[k], NULL, (const psg_type *[]){x, x}, 2, "takes 1 argument, got 2");
  }
  CHECK_OK(rel("isnan", NULL, &x, 1, &out, NULL));
  CHECK(out == T(PSG_DTYPE_BOOL, PSG_DIM_UNKNOWN, 7));
  psg_attrs *clip = attrs_of(2, (const char *[]){"a_min", "a_max"}, (psg_attr *[]){a_float(0), a_float(6)});
  CHECK_OK(rel("clip", clip, &x, 1, &out, NULL));
  CHECK(out == x);
  psg_attrs_release(clip);
}

static void test_rel_where(void) {
  const psg_type *out, *c = T(PSG_DTYPE_BOOL, 2, 1), *x = T(PSG_DTYPE_FLOAT32, 3), *y = T(PSG_DTYPE_FLOAT32, 1, 3);
  CHECK_OK(rel("where", NULL, (const psg_type *[]){c, x, y}, 3, &out, NULL));
  CHECK(out == T(PSG_DTYPE_FLOAT32, 2, 3));
  CHECK_OK(rel("where", NULL, (const psg_type *[]){T(PSG_DTYPE_BOOL, PSG_DIM_UNKNOWN, 1), x, y}, 3, &out, NULL));
  CHECK(out == T(PSG_DTYPE_FLOAT32, PSG_DIM_UNKNOWN, 3));
  rel_fails("where", NULL, (const psg_type *[]){T(PSG_DTYPE_FLOAT32, 2, 1), x, y}, 3,
            "where: the condition must be bool, not float32");
  rel_fails("where", NULL, (const psg_type *[]){c, x, T(PSG_DTYPE_INT32, 3)}, 3,
            "where: dtypes float32 and int32 of the two branches differ");
  rel_fails("where", NULL, (const psg_type *[]){T(PSG_DTYPE_BOOL, 4), x, y}, 3, "cannot broadcast");
}

static void test_rel_cast_and_fills(void) {
  const psg_type *out, *x = T(PSG_DTYPE_FLOAT32, 2, PSG_DIM_UNKNOWN);
  psg_attrs *to_i8 = dtype_attrs(PSG_DTYPE_INT8);
  CHECK_OK(rel("cast", to_i8, &x, 1, &out, NULL));
  CHECK(out == T(PSG_DTYPE_INT8, 2, PSG_DIM_UNKNOWN));
  psg_attrs_release(to_i8);
  psg_attrs *by_name = attrs_of(1, (const char *[]){"dtype"}, (psg_attr *[]){a_str("uint16")});
  CHECK_OK(rel("cast", by_name, &x, 1, &out, NULL));
  CHECK(out == T(PSG_DTYPE_UINT16, 2, PSG_DIM_UNKNOWN));
  psg_attrs_release(by_name);
  rel_fails("cast", NULL, &x, 1, "cast: the dtype attribute is missing");
  psg_attrs *bad = attrs_of(1, (const char *[]){"dtype"}, (psg_attr *[]){a_str("float17")});
  rel_fails("cast", bad, &x, 1, "cast: unknown dtype 'float17'");
  psg_attrs_release(bad);

  const psg_type *data = T(PSG_DTYPE_INT32, 2, 3);
  CHECK_OK(rel("full_like", NULL, (const psg_type *[]){data, scalar(PSG_DTYPE_INT32)}, 2, &out, NULL));
  CHECK(out == data);
  rel_fails("full_like", NULL, (const psg_type *[]){data, T(PSG_DTYPE_INT32, 1)}, 2,
            "full_like: the fill value must be a scalar, not rank 1");

  psg_attrs *za = shape_dtype_attrs((const int64_t[]){2, 3}, 2, PSG_DTYPE_INT64);
  CHECK_OK(rel("zeros", za, NULL, 0, &out, NULL));
  CHECK(out == T(PSG_DTYPE_INT64, 2, 3));
  CHECK_OK(rel("ones", za, NULL, 0, &out, NULL));
  CHECK(out == T(PSG_DTYPE_INT64, 2, 3));
  rel_fails("ones", za, &data, 1, "'ones' takes 0 arguments, got 1");
  psg_attrs_release(za);
  psg_attrs *shape_only = attrs_of(1, (const char *[]){"shape"}, (psg_attr *[]){a_ints((const int64_t[]){4}, 1)});
  CHECK_OK(rel("zeros", shape_only, NULL, 0, &out, NULL));
  CHECK(out == T(PSG_DTYPE_FLOAT32, 4)); /* TVM's default dtype */
  /* full without a dtype takes the fill value's. */
  CHECK_OK(rel("full", shape_only, (const psg_type *[]){scalar(PSG_DTYPE_INT16)}, 1, &out, NULL));
  CHECK(out == T(PSG_DTYPE_INT16, 4));
  rel_fails("full", shape_only, (const psg_type *[]){T(PSG_DTYPE_INT16, 1, 1)}, 1,
            "full: the fill value must be a scalar, not rank 2");
  psg_attrs_release(shape_only);
  psg_attrs *fa = shape_dtype_attrs((const int64_t[]){3}, 1, PSG_DTYPE_FLOAT64);
  CHECK_OK(rel("full", fa, (const psg_type *[]){scalar(PSG_DTYPE_INT16)}, 1, &out, NULL));
  CHECK(out == T(PSG_DTYPE_FLOAT64, 3));
  psg_attrs_release(fa);
  psg_attrs *neg = shape_dtype_attrs((const int64_t[]){2, -1}, 2, PSG_DTYPE_FLOAT32);
  rel_fails("zeros", neg, NULL, 0, "zeros: dimension 1 of the shape is negative (-1)");
  psg_attrs_release(neg);
}

static void test_rel_arange(void) {
  const psg_type *out, *f = scalar(PSG_DTYPE_FLOAT32);
  CHECK_OK(rel("arange", NULL, (const psg_type *[]){f, f, f}, 3, &out, NULL));
  CHECK(out == T(PSG_DTYPE_FLOAT32, PSG_DIM_UNKNOWN));
  psg_attrs *i32 = dtype_attrs(PSG_DTYPE_INT32);
  const psg_type *i = scalar(PSG_DTYPE_INT32);
  CHECK_OK(rel("arange", i32, (const psg_type *[]){i, i, i}, 3, &out, NULL));
  CHECK(out == T(PSG_DTYPE_INT32, PSG_DIM_UNKNOWN));
  rel_fails("arange", i32, (const psg_type *[]){i, f, i}, 3, "arange: stop must be a scalar of dtype int32");
  psg_attrs_release(i32);
  rel_fails("arange", NULL, (const psg_type *[]){f, f, T(PSG_DTYPE_FLOAT32, 1)}, 3,
            "arange: step must be a scalar of dtype float32");
}

static void test_rel_misc(void) {
  const psg_type *out, *x = T(PSG_DTYPE_FLOAT32, PSG_DIM_UNKNOWN, 3), *tup = NULL;
  CHECK_OK(psg_type_tuple(ctx, (const psg_type *[]){x, scalar(PSG_DTYPE_INT8)}, 2, &tup));
  const char *ids[] = {"device_copy", "on_device", "annotation.stop_fusion"};
  for (size_t k = 0; k < COUNT(ids); k++) {
    CHECK_OK(rel(ids[k], NULL, &x, 1, &out, NULL));
    CHECK(out == x);
    CHECK_OK(rel(ids[k], NULL, &tup, 1, &out, NULL));
    CHECK(out == tup);
  }
  psg_attrs *a = shape_dtype_attrs((const int64_t[]){2, 3}, 2, PSG_DTYPE_FLOAT32);
  const psg_type *key = T(PSG_DTYPE_UINT64, 10), *f = scalar(PSG_DTYPE_FLOAT32), *want = NULL;
  CHECK_OK(rel("random.uniform", a, (const psg_type *[]){key, f, f}, 3, &out, NULL));
  CHECK_OK(psg_type_tuple(ctx, (const psg_type *[]){key, T(PSG_DTYPE_FLOAT32, 2, 3)}, 2, &want));
  CHECK(out == want);
  rel_fails("random.uniform", a, (const psg_type *[]){T(PSG_DTYPE_UINT64, 4), f, f}, 3,
            "random.uniform: the key must be a (10,) uint64 tensor, not (4,) uint64");
  rel_fails("random.uniform", a, (const psg_type *[]){key, f, scalar(PSG_DTYPE_FLOAT64)}, 3,
            "random.uniform: high must be a float32 scalar");
  psg_attrs_release(a);
  psg_attrs *ia = shape_dtype_attrs((const int64_t[]){2}, 1, PSG_DTYPE_INT32);
  rel_fails("random.uniform", ia, (const psg_type *[]){key, f, f}, 3,
            "random.uniform: dtype must be float32 or float64, not int32");
  psg_attrs_release(ia);
}

/* Kernels ------------------------------------------------------------------------ */

static void test_add_broadcast(void) {
  float a[6] = {0, 1, 2, 3, 4, 5}, b[4] = {0, 10, 20, 30};
  psgi_value *r = bin("add", V(PSG_DTYPE_FLOAT32, ((int64_t[]){2, 1, 3}), a), V(PSG_DTYPE_FLOAT32, ((int64_t[]){4, 1}), b));
  check_shape(r, (const int64_t[]){2, 4, 3}, 3);
  double want[24];
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 4; j++)
      for (int k = 0; k < 3; k++) want[i * 12 + j * 3 + k] = a[i * 3 + k] + b[j];
  check_floats(r, PSG_DTYPE_FLOAT32, want, 24, 0);
  psgi_value_release(r);
}

/* The float32 rows (per-channel scale, same shapes, a stretched left side,
 * tails of every length after the vectorized part) give the bits of the
 * scalar float operation, specials included. */
static float pick(unsigned i) {
  static const float specials[] = {0.0f, -0.0f, 1.0f, -1.5f, 3.0e38f, -3.0e38f, 1.0e-40f, -1.0e-45f, INFINITY,
                                   -INFINITY, NAN, 0.1f, 7.0f, -2.25f, 1.0e-20f, 6.5e4f};
  return i % 5 == 0 ? specials[(i / 5) % COUNT(specials)] : (float)((int)(i * 2654435761u % 2001) - 1000) / 37.0f;
}
static float scalar_op(int k, float x, float y) {
  switch (k) {
  case 0: return x + y;
  case 1: return x - y;
  case 2: return x * y;
  default: return x / y;
  }
}
static void test_float32_rows(void) {
  static const char *const ops[] = {"add", "subtract", "multiply", "divide"};
  /* Shapes of a and b (rank 4, 1 = stretched) and what they exercise. */
  static const int64_t shapes[][2][4] = {
      {{16, 3, 3, 3}, {16, 1, 1, 1}}, /* W[O,I,kh,kw] * s[O,1,1,1] */
      {{5, 1, 3, 3}, {5, 1, 1, 1}},   /* depthwise: rows of 9 */
      {{2, 3, 5, 37}, {2, 3, 5, 37}}, /* same shapes, merged to one row */
      {{1, 1, 1, 1}, {3, 1, 4, 21}},  /* a stretched: x op b[j] */
      {{3, 1, 4, 1}, {1, 5, 1, 19}},  /* both stretched on different axes */
      {{1, 1, 7, 1}, {2, 3, 7, 1}},   /* a repeated over outer axes */
  };
  int bad = 0;
  for (size_t sh = 0; sh < COUNT(shapes); sh++) {
    int64_t na = psgi_numel(shapes[sh][0], 4), nb = psgi_numel(shapes[sh][1], 4), od[4];
    float *a = malloc((size_t)na * sizeof *a), *b = malloc((size_t)nb * sizeof *b);
    for (int64_t i = 0; i < na; i++) a[i] = pick((unsigned)i);
    for (int64_t i = 0; i < nb; i++) b[i] = pick((unsigned)(i * 3 + 1));
    for (int d = 0; d < 4; d++) od[d] = shapes[sh][0][d] > shapes[sh][1][d] ? shapes[sh][0][d] : shapes[sh][1][d];
    for (int k = 0; k < 4; k++) {
      for (int swap = 0; swap < 2; swap++) {
        const float *l = swap ? b : a, *r = swap ? a : b;
        const int64_t *ls = shapes[sh][swap], *rs = shapes[sh][!swap];
        psgi_value *res = bin(ops[k], val(PSG_DTYPE_FLOAT32, ls, 4, l), val(PSG_DTYPE_FLOAT32, rs, 4, r));
        const psg_tensor *t = tensor_of(res);
        if (!t || psg_tensor_numel(t) != psgi_numel(od, 4)) {
          bad++;
          psgi_value_release(res);
          continue;
        }
        const float *o = psg_tensor_data(t);
        int64_t idx = 0;
        for (int64_t i0 = 0; i0 < od[0]; i0++)
          for (int64_t i1 = 0; i1 < od[1]; i1++)
            for (int64_t i2 = 0; i2 < od[2]; i2++)
              for (int64_t i3 = 0; i3 < od[3]; i3++, idx++) {
                int64_t at[4] = {i0, i1, i2, i3}, li = 0, ri = 0;
                for (int d = 0; d < 4; d++) {
                  li = li * ls[d] + (ls[d] == 1 ? 0 : at[d]);
                  ri = ri * rs[d] + (rs[d] == 1 ? 0 : at[d]);
                }
                float want = scalar_op(k, l[li], r[ri]);
                if (memcmp(&want, &o[idx], sizeof want) != 0 && !(isnan(want) && isnan(o[idx]))) bad++;
              }
        psgi_value_release(res);
      }
    }
    free(a);
    free(b);
  }
  CHECK_EQ_INT(bad, 0);
}

static void test_float_arith(void) {
  float x[5] = {6, -7, 2.5f, 1, -0.5f}, y[5] = {4, 2, -2, 0, 2};
#define XY V(PSG_DTYPE_FLOAT32, ((int64_t[]){5}), x), V(PSG_DTYPE_FLOAT32, ((int64_t[]){5}), y)
  struct { const char *op; double want[5]; } cases[] = {
      {"add", {10, -5, 0.5, 1, 1.5}},
      {"subtract", {2, -9, 4.5, 1, -2.5}},
      {"multiply", {24, -14, -5, 0, -1}},
      {"divide", {1.5, -3.5, -1.25, INFINITY, -0.25}},
      {"power", {1296, 49, 0.16, 1, 0.25}},
      {"maximum", {6, 2, 2.5, 1, 2}},
      {"minimum", {4, -7, -2, 0, -0.5}},
      {"floor_divide", {1, -4, -2, INFINITY, -1}},
      {"floor_mod", {2, 1, -1.5, NAN, 1.5}},
  };
  for (size_t k = 0; k < COUNT(cases); k++) {
    psgi_value *r = bin(cases[k].op, XY);
    check_floats(r, PSG_DTYPE_FLOAT32, cases[k].want, 5, 1e-6);
    psgi_value_release(r);
  }
  /* float64 divide by zero is IEEE, not an error */
  double one = 1, zero = 0;
  psgi_value *r = bin("divide", S(PSG_DTYPE_FLOAT64, &one), S(PSG_DTYPE_FLOAT64, &zero));
  check_floats(r, PSG_DTYPE_FLOAT64, (const double[]){INFINITY}, 1, 0);
  psgi_value_release(r);
  /* maximum/minimum propagate NaN */
  float n[2] = {NAN, 1}, m[2] = {3, NAN};
  r = bin("maximum", V(PSG_DTYPE_FLOAT32, ((int64_t[]){2}), n), V(PSG_DTYPE_FLOAT32, ((int64_t[]){2}), m));
  check_floats(r, PSG_DTYPE_FLOAT32, (const double[]){NAN, NAN}, 2, 0);
  psgi_value_release(r);
#undef XY
}

static void test_int_arith(void) {
  int32_t x[6] = {7, -7, 7, -7, 0, 9}, y[6] = {2, 2, -2, -2, 5, 3};
#define XY V(PSG_DTYPE_INT32, ((int64_t[]){6}), x), V(PSG_DTYPE_INT32, ((int64_t[]){6}), y)
  struct { const char *op; int64_t want[6]; } cases[] = {
      {"add", {9, -5, 5, -9, 5, 12}},
      {"subtract", {5, -9, 9, -5, -5, 6}},
      {"multiply", {14, -14, -14, 14, 0, 27}},
      {"divide", {3, -3, -3, 3, 0, 3}}, /* truncating */
      {"floor_divide", {3, -4, -4, 3, 0, 3}},
      {"floor_mod", {1, 1, -1, -1, 0, 0}},
      {"power", {49, 49, 0, 0, 0, 729}}, /* 7^-2 truncates to 0 */
      {"maximum", {7, 2, 7, -2, 5, 9}},
      {"minimum", {2, -7, -2, -7, 0, 3}},
  };
  for (size_t k = 0; k < COUNT(cases); k++) {
    psgi_value *r = bin(cases[k].op, XY);
    check_ints(r, PSG_DTYPE_INT32, cases[k].want, 6);
    psgi_value_release(r);
  }
#undef XY
  /* Integer division by zero is a kernel error, for every dividing op. */
  const char *divs[] = {"divide", "floor_divide", "floor_mod"};
  int32_t a[2] = {1, 2}, z[2] = {1, 0};
  for (size_t k = 0; k < COUNT(divs); k++) {
    psgi_value *args[2] = {V(PSG_DTYPE_INT32, ((int64_t[]){2}), a), V(PSG_DTYPE_INT32, ((int64_t[]){2}), z)}, *out = NULL;
    char msg[512];
    CHECK_EQ_INT(eval(divs[k], NULL, args, 2, &out, msg), PSG_ERR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    CHECK(strstr(msg, "integer division by zero") != NULL);
    psgi_value_release(args[0]);
    psgi_value_release(args[1]);
  }
  int64_t zero64 = 0, m1 = -1;
  psgi_value *args[2] = {S(PSG_DTYPE_INT64, &zero64), S(PSG_DTYPE_INT64, &m1)}, *out = NULL;
  CHECK_EQ_INT(eval("power", NULL, args, 2, &out, NULL), PSG_ERR_INVALID_ARGUMENT); /* 1 / 0^1 */
  psgi_value_release(args[0]);
  psgi_value_release(args[1]);
}

static void test_int64_exact(void) {
  /* Beyond 2^53 a double path would round. */
  int64_t a[4] = {9007199254740993LL, INT64_MIN, INT64_MAX, 3037000499LL},
          b[4] = {1, -1, 1, 3037000499LL};
  psgi_value *r = bin("add", V(PSG_DTYPE_INT64, ((int64_t[]){4}), a), V(PSG_DTYPE_INT64, ((int64_t[]){4}), b));
  check_ints(r, PSG_DTYPE_INT64, (const int64_t[]){9007199254740994LL, INT64_MAX, INT64_MIN, 6074000998LL}, 4);
  psgi_value_release(r);
  r = bin("divide", V(PSG_DTYPE_INT64, ((int64_t[]){4}), a), V(PSG_DTYPE_INT64, ((int64_t[]){4}), b));
  check_ints(r, PSG_DTYPE_INT64, (const int64_t[]){9007199254740993LL, INT64_MIN, INT64_MAX, 1}, 4);
  psgi_value_release(r);
  r = bin("multiply", V(PSG_DTYPE_INT64, ((int64_t[]){4}), a), V(PSG_DTYPE_INT64, ((int64_t[]){4}), b));
  check_ints(r, PSG_DTYPE_INT64, (const int64_t[]){9007199254740993LL, INT64_MIN, INT64_MAX, 9223372030926249001LL}, 4);
  psgi_value_release(r);
  r = bin("floor_mod", V(PSG_DTYPE_INT64, ((int64_t[]){4}), a), V(PSG_DTYPE_INT64, ((int64_t[]){4}), b));
  check_ints(r, PSG_DTYPE_INT64, (const int64_t[]){0, 0, 0, 0}, 4);
  psgi_value_release(r);
  /* uint64 above INT64_MAX compares and divides as unsigned. */
  uint64_t u[2] = {0x8000000000000001u, 10}, v[2] = {2, 0x8000000000000000u};
  r = bin("greater", V(PSG_DTYPE_UINT64, ((int64_t[]){2}), u), V(PSG_DTYPE_UINT64, ((int64_t[]){2}), v));
  check_ints(r, PSG_DTYPE_BOOL, (const int64_t[]){1, 0}, 2);
  psgi_value_release(r);
  r = bin("divide", V(PSG_DTYPE_UINT64, ((int64_t[]){2}), u), V(PSG_DTYPE_UINT64, ((int64_t[]){2}), v));
  check_ints(r, PSG_DTYPE_UINT64, (const int64_t[]){0x4000000000000000LL, 0}, 2);
  psgi_value_release(r);
}

static void test_compare_and_logic(void) {
  float x[4] = {1, 2, 3, NAN}, y[4] = {2, 2, 2, NAN};
  struct { const char *op; int64_t want[4]; } cases[] = {
      {"equal", {0, 1, 0, 0}},  {"not_equal", {1, 0, 1, 1}}, {"greater", {0, 0, 1, 0}},
      {"greater_equal", {0, 1, 1, 0}}, {"less", {1, 0, 0, 0}},  {"less_equal", {1, 1, 0, 0}},
  };
  for (size_t k = 0; k < COUNT(cases); k++) {
    psgi_value *r = bin(cases[k].op, V(PSG_DTYPE_FLOAT32, ((int64_t[]){4}), x), V(PSG_DTYPE_FLOAT32, ((int64_t[]){4}), y));
    check_ints(r, PSG_DTYPE_BOOL, cases[k].want, 4);
    /* bool results are stored as 0/1 bytes */
    const uint8_t *bytes = psg_tensor_data(tensor_of(r));
    for (int i = 0; i < 4; i++) CHECK(bytes[i] == cases[k].want[i]);
    psgi_value_release(r);
  }
  int8_t ia[3] = {-1, 0, 1}, ib[1] = {0};
  psgi_value *r = bin("less", V(PSG_DTYPE_INT8, ((int64_t[]){3}), ia), V(PSG_DTYPE_INT8, ((int64_t[]){1}), ib));
  check_ints(r, PSG_DTYPE_BOOL, (const int64_t[]){1, 0, 0}, 3);
  psgi_value_release(r);
  uint8_t p[4] = {0, 0, 1, 1}, q[4] = {0, 1, 0, 1};
  r = bin("logical_and", V(PSG_DTYPE_BOOL, ((int64_t[]){4}), p), V(PSG_DTYPE_BOOL, ((int64_t[]){4}), q));
  check_ints(r, PSG_DTYPE_BOOL, (const int64_t[]){0, 0, 0, 1}, 4);
  psgi_value_release(r);
  r = bin("logical_or", V(PSG_DTYPE_BOOL, ((int64_t[]){4}), p), V(PSG_DTYPE_BOOL, ((int64_t[]){4}), q));
  check_ints(r, PSG_DTYPE_BOOL, (const int64_t[]){0, 1, 1, 1}, 4);
  psgi_value_release(r);
  r = un("logical_not", NULL, V(PSG_DTYPE_BOOL, ((int64_t[]){4}), q));
  check_ints(r, PSG_DTYPE_BOOL, (const int64_t[]){1, 0, 1, 0}, 4);
  psgi_value_release(r);
}

static void test_where(void) {
  uint8_t c[2] = {1, 0};
  int64_t x[3] = {1, 2, 3}, y[1] = {-9};
  psgi_value *args[3] = {V(PSG_DTYPE_BOOL, ((int64_t[]){2, 1}), c), V(PSG_DTYPE_INT64, ((int64_t[]){3}), x),
                         V(PSG_DTYPE_INT64, ((int64_t[]){1}), y)},
             *out = NULL;
  CHECK_OK(eval("where", NULL, args, 3, &out, NULL));
  check_shape(out, (const int64_t[]){2, 3}, 2);
  check_ints(out, PSG_DTYPE_INT64, (const int64_t[]){1, 2, 3, -9, -9, -9}, 6);
  psgi_value_release(out);
  for (int i = 0; i < 3; i++) psgi_value_release(args[i]);
}

static void test_unary_float(void) {
  struct { const char *op; float in[4]; double want[4]; double tol; } cases[] = {
      {"sqrt", {4, 0.25f, 1, 9}, {2, 0.5, 1, 3}, 0},
      {"rsqrt", {4, 0.25f, 1, 16}, {0.5, 2, 1, 0.25}, 0},
      {"exp", {0, 1, -1, 2}, {1, 2.718281828, 0.367879441, 7.389056099}, 1e-6},
      {"fast_exp", {0, 1, -1, 2}, {1, 2.718281828, 0.367879441, 7.389056099}, 1e-5},
      {"log", {1, 2.718281828f, 0.5f, 100}, {0, 1, -0.693147181, 4.605170186}, 1e-6},
      {"negative", {1, -2, 0, 3.5f}, {-1, 2, -0.0, -3.5}, 0},
      {"abs", {-1, 2, -0.0f, -3.5f}, {1, 2, 0, 3.5}, 0},
      {"sign", {-3, 0, 2, -0.5f}, {-1, 0, 1, -1}, 0},
      {"sigmoid", {0, 2, -2, 20}, {0.5, 0.880797078, 0.119202922, 1}, 1e-6},
      {"tanh", {0, 1, -1, 10}, {0, 0.761594156, -0.761594156, 1}, 1e-6},
      {"fast_tanh", {0, 1, -1, 10}, {0, 0.761594156, -0.761594156, 1}, 1e-5},
      {"erf", {0, 1, -0.5f, 3}, {0, 0.842700793, -0.520499878, 0.999977910}, 1e-6},
      {"fast_erf", {0, 1, -0.5f, 3}, {0, 0.842700793, -0.520499878, 0.999977910}, 1e-5},
      {"floor", {-1.5f, 1.5f, 2, -0.2f}, {-2, 1, 2, -1}, 0},
      {"ceil", {-1.5f, 1.5f, 2, -0.2f}, {-1, 2, 2, -0.0}, 0},
      {"round", {0.5f, 1.5f, 2.5f, -0.5f}, {0, 2, 2, -0.0}, 0}, /* half to even */
      {"trunc", {-1.7f, 1.7f, 2, -0.2f}, {-1, 1, 2, -0.0}, 0},
  };
  for (size_t k = 0; k < COUNT(cases); k++) {
    int before = check_failures;
    psgi_value *r = un(cases[k].op, NULL, V(PSG_DTYPE_FLOAT32, ((int64_t[]){4}), cases[k].in));
    check_floats(r, PSG_DTYPE_FLOAT32, cases[k].want, 4, cases[k].tol);
    if (check_failures != before) fprintf(stderr, "  (in %s)\n", cases[k].op);
    psgi_value_release(r);
  }
  float nan_in[3] = {NAN, 1, INFINITY};
  psgi_value *r = un("isnan", NULL, V(PSG_DTYPE_FLOAT32, ((int64_t[]){3}), nan_in));
  check_ints(r, PSG_DTYPE_BOOL, (const int64_t[]){1, 0, 0}, 3);
  psgi_value_release(r);
  /* float64 goes through double math */
  double d = 2;
  r = un("sqrt", NULL, S(PSG_DTYPE_FLOAT64, &d));
  check_floats(r, PSG_DTYPE_FLOAT64, (const double[]){1.4142135623730951}, 1, 0);
  psgi_value_release(r);
}

static void test_unary_int(void) {
  int32_t x[4] = {-5, 0, 7, INT32_MIN};
  psgi_value *r = un("abs", NULL, V(PSG_DTYPE_INT32, ((int64_t[]){4}), x));
  check_ints(r, PSG_DTYPE_INT32, (const int64_t[]){5, 0, 7, INT32_MIN}, 4); /* wraps like C */
  psgi_value_release(r);
  r = un("negative", NULL, V(PSG_DTYPE_INT32, ((int64_t[]){4}), x));
  check_ints(r, PSG_DTYPE_INT32, (const int64_t[]){5, 0, -7, INT32_MIN}, 4);
  psgi_value_release(r);
  r = un("sign", NULL, V(PSG_DTYPE_INT32, ((int64_t[]){4}), x));
  check_ints(r, PSG_DTYPE_INT32, (const int64_t[]){-1, 0, 1, -1}, 4);
  psgi_value_release(r);
  r = un("floor", NULL, V(PSG_DTYPE_INT32, ((int64_t[]){4}), x));
  check_ints(r, PSG_DTYPE_INT32, (const int64_t[]){-5, 0, 7, INT32_MIN}, 4);
  psgi_value_release(r);
  r = un("isnan", NULL, V(PSG_DTYPE_INT32, ((int64_t[]){4}), x));
  check_ints(r, PSG_DTYPE_BOOL, (const int64_t[]){0, 0, 0, 0}, 4);
  psgi_value_release(r);
  int32_t sq[2] = {16, 10};
  r = un("sqrt", NULL, V(PSG_DTYPE_INT32, ((int64_t[]){2}), sq));
  check_ints(r, PSG_DTYPE_INT32, (const int64_t[]){4, 3}, 2);
  psgi_value_release(r);
}

static void test_half_types(void) {
  /* float16: 1 + 2^-10 is exact, 1 + 2^-11 ties to even (1.0). */
  uint16_t one = psgi_float_to_half(1.0f), ulp = psgi_float_to_half(0x1p-10f), half_ulp = psgi_float_to_half(0x1p-11f);
  uint16_t a[2] = {one, one}, b[2] = {ulp, half_ulp};
  psgi_value *r = bin("add", V(PSG_DTYPE_FLOAT16, ((int64_t[]){2}), a), V(PSG_DTYPE_FLOAT16, ((int64_t[]){2}), b));
  const uint16_t *h = psg_tensor_data(tensor_of(r));
  CHECK_EQ_INT(psg_tensor_dtype(tensor_of(r)), PSG_DTYPE_FLOAT16);
  CHECK_EQ_INT(h[0], 0x3c01);
  CHECK_EQ_INT(h[1], 0x3c00);
  psgi_value_release(r);
  /* float32 -> float16 -> float32 */
  float f[3] = {0.1f, 65504, 1e6f};
  r = un("cast", dtype_attrs(PSG_DTYPE_FLOAT16), V(PSG_DTYPE_FLOAT32, ((int64_t[]){3}), f));
  h = psg_tensor_data(tensor_of(r));
  CHECK_EQ_INT(h[0], 0x2e66);
  CHECK_EQ_INT(h[1], 0x7bff);
  CHECK_EQ_INT(h[2], 0x7c00); /* overflow to inf */
  r = un("cast", dtype_attrs(PSG_DTYPE_FLOAT32), r);
  check_floats(r, PSG_DTYPE_FLOAT32, (const double[]){0.0999755859375, 65504, INFINITY}, 3, 0);
  psgi_value_release(r);
  /* bfloat16: 1 + 2^-8 ties to even (1.0); 1 + 3*2^-8 rounds up to 1 + 2^-6 */
  float g[2] = {1.00390625f, 1.01171875f};
  r = un("cast", dtype_attrs(PSG_DTYPE_BFLOAT16), V(PSG_DTYPE_FLOAT32, ((int64_t[]){2}), g));
  check_floats(r, PSG_DTYPE_BFLOAT16, (const double[]){1.0, 1.015625}, 2, 0);
  /* math on bfloat16 happens in float and rounds back */
  r = un("sqrt", NULL, r);
  check_floats(r, PSG_DTYPE_BFLOAT16, (const double[]){1.0, 1.0078125}, 2, 0);
  psgi_value_release(r);
}

static void test_cast(void) {
  float f[5] = {3.7f, -3.7f, NAN, 1e20f, -1e20f};
  psgi_value *r = un("cast", dtype_attrs(PSG_DTYPE_INT32), V(PSG_DTYPE_FLOAT32, ((int64_t[]){5}), f));
  check_ints(r, PSG_DTYPE_INT32, (const int64_t[]){3, -3, 0, INT32_MAX, INT32_MIN}, 5);
  psgi_value_release(r);
  int32_t i[3] = {0, 5, -1};
  r = un("cast", dtype_attrs(PSG_DTYPE_BOOL), V(PSG_DTYPE_INT32, ((int64_t[]){3}), i));
  check_ints(r, PSG_DTYPE_BOOL, (const int64_t[]){0, 1, 1}, 3);
  psgi_value_release(r);
  r = un("cast", dtype_attrs(PSG_DTYPE_UINT8), V(PSG_DTYPE_INT32, ((int64_t[]){3}), i));
  check_ints(r, PSG_DTYPE_UINT8, (const int64_t[]){0, 5, 255}, 3); /* wraps like C */
  psgi_value_release(r);
  int64_t big[2] = {9007199254740993LL, -9007199254740993LL};
  r = un("cast", dtype_attrs(PSG_DTYPE_FLOAT64), V(PSG_DTYPE_INT64, ((int64_t[]){2}), big));
  check_floats(r, PSG_DTYPE_FLOAT64, (const double[]){9007199254740992.0, -9007199254740992.0}, 2, 0);
  r = un("cast", dtype_attrs(PSG_DTYPE_INT64), r);
  check_ints(r, PSG_DTYPE_INT64, (const int64_t[]){9007199254740992LL, -9007199254740992LL}, 2);
  psgi_value_release(r);
  uint64_t umax = UINT64_MAX;
  r = un("cast", dtype_attrs(PSG_DTYPE_FLOAT32), S(PSG_DTYPE_UINT64, &umax));
  check_floats(r, PSG_DTYPE_FLOAT32, (const double[]){18446744073709551616.0}, 1, 0);
  psgi_value_release(r);
}

static void test_clip_copy(void) {
  psg_attrs *lim = attrs_of(2, (const char *[]){"a_min", "a_max"}, (psg_attr *[]){a_float(-1), a_float(1)});
  float f[4] = {-2, 0.5f, 3, NAN};
  psgi_value *r = un("clip", lim, V(PSG_DTYPE_FLOAT32, ((int64_t[]){4}), f));
  check_floats(r, PSG_DTYPE_FLOAT32, (const double[]){-1, 0.5, 1, NAN}, 4, 0);
  psgi_value_release(r);
  /* integer bounds are cast to the dtype (truncated), as TVM does */
  psg_attrs *ilim = attrs_of(2, (const char *[]){"a_min", "a_max"}, (psg_attr *[]){a_float(-1.5), a_float(2.5)});
  int32_t i[3] = {-5, 0, 7};
  r = un("clip", ilim, V(PSG_DTYPE_INT32, ((int64_t[]){3}), i));
  check_ints(r, PSG_DTYPE_INT32, (const int64_t[]){-1, 0, 2}, 3);
  psgi_value_release(r);
  /* a bool is uint1: [-1, 1] holds both values, so the clip is the identity
   * SimplifyExpr takes it for; a_min=1 forces true (the fuzz_interp input
   * tests/fuzz/corpus/interp/clip_bool_identity.bin) */
  uint8_t bo[2] = {0, 1};
  psg_attrs *both = attrs_of(2, (const char *[]){"a_min", "a_max"}, (psg_attr *[]){a_float(-1), a_float(1)});
  r = un("clip", both, V(PSG_DTYPE_BOOL, ((int64_t[]){2}), bo));
  check_ints(r, PSG_DTYPE_BOOL, (const int64_t[]){0, 1}, 2);
  psgi_value_release(r);
  psg_attrs *at_least_1 = attrs_of(2, (const char *[]){"a_min", "a_max"}, (psg_attr *[]){a_float(1), a_float(1)});
  r = un("clip", at_least_1, V(PSG_DTYPE_BOOL, ((int64_t[]){2}), bo));
  check_ints(r, PSG_DTYPE_BOOL, (const int64_t[]){1, 1}, 2);
  psgi_value_release(r);
  double d[2] = {1.25, -7};
  r = un("copy", NULL, V(PSG_DTYPE_FLOAT64, ((int64_t[]){2}), d));
  check_floats(r, PSG_DTYPE_FLOAT64, d, 2, 0);
  psgi_value_release(r);
}

static void test_fills(void) {
  int32_t data[4] = {5, 6, 7, 8};
  psgi_value *r = un("zeros_like", NULL, V(PSG_DTYPE_INT32, ((int64_t[]){2, 2}), data));
  check_shape(r, (const int64_t[]){2, 2}, 2);
  check_ints(r, PSG_DTYPE_INT32, (const int64_t[]){0, 0, 0, 0}, 4);
  psgi_value_release(r);
  r = un("ones_like", NULL, V(PSG_DTYPE_INT32, ((int64_t[]){2, 2}), data));
  check_ints(r, PSG_DTYPE_INT32, (const int64_t[]){1, 1, 1, 1}, 4);
  psgi_value_release(r);
  int32_t seven = 7;
  r = bin("full_like", V(PSG_DTYPE_INT32, ((int64_t[]){2, 2}), data), S(PSG_DTYPE_INT32, &seven));
  check_ints(r, PSG_DTYPE_INT32, (const int64_t[]){7, 7, 7, 7}, 4);
  psgi_value_release(r);

  psg_attrs *a = shape_dtype_attrs((const int64_t[]){2, 3}, 2, PSG_DTYPE_FLOAT32);
  psgi_value *out = NULL;
  CHECK_OK(eval("zeros", a, NULL, 0, &out, NULL));
  check_shape(out, (const int64_t[]){2, 3}, 2);
  check_floats(out, PSG_DTYPE_FLOAT32, (const double[]){0, 0, 0, 0, 0, 0}, 6, 0);
  psgi_value_release(out);
  CHECK_OK(eval("ones", a, NULL, 0, &out, NULL));
  check_floats(out, PSG_DTYPE_FLOAT32, (const double[]){1, 1, 1, 1, 1, 1}, 6, 0);
  psgi_value_release(out);
  psg_attrs_release(a);
  /* full converts the fill value to the dtype (2.75 -> int32 2) */
  float fill = 2.75f;
  r = un("full", shape_dtype_attrs((const int64_t[]){3}, 1, PSG_DTYPE_INT32), S(PSG_DTYPE_FLOAT32, &fill));
  check_ints(r, PSG_DTYPE_INT32, (const int64_t[]){2, 2, 2}, 3);
  psgi_value_release(r);
  psg_attrs *shape0 = attrs_of(1, (const char *[]){"shape"}, (psg_attr *[]){a_ints((const int64_t[]){2, 0}, 2)});
  r = un("full", shape0, S(PSG_DTYPE_FLOAT32, &fill));
  check_shape(r, (const int64_t[]){2, 0}, 2);
  CHECK_EQ_INT(psg_tensor_numel(tensor_of(r)), 0);
  psgi_value_release(r);
}

static psgi_value *arange3(int dtype, const void *start, const void *stop, const void *step, char *msg,
                           psg_status *st) {
  psgi_value *args[3] = {S(dtype, start), S(dtype, stop), S(dtype, step)}, *out = NULL;
  psg_attrs *a = dtype_attrs(dtype);
  *st = eval("arange", a, args, 3, &out, msg);
  for (int i = 0; i < 3; i++) psgi_value_release(args[i]);
  psg_attrs_release(a);
  return out;
}

static void test_arange(void) {
  char msg[512];
  psg_status st;
  float f0 = 0, f1 = 1, fq = 0.25f;
  psgi_value *r = arange3(PSG_DTYPE_FLOAT32, &f0, &f1, &fq, msg, &st);
  CHECK_OK(st);
  check_shape(r, (const int64_t[]){4}, 1);
  check_floats(r, PSG_DTYPE_FLOAT32, (const double[]){0, 0.25, 0.5, 0.75}, 4, 0);
  psgi_value_release(r);
  int32_t a = 10, b = 0, s = -3;
  r = arange3(PSG_DTYPE_INT32, &a, &b, &s, msg, &st);
  CHECK_OK(st);
  check_ints(r, PSG_DTYPE_INT32, (const int64_t[]){10, 7, 4, 1}, 4);
  psgi_value_release(r);
  int32_t e0 = 5, e1 = 1, e2 = 1;
  r = arange3(PSG_DTYPE_INT32, &e0, &e1, &e2, msg, &st);
  CHECK_OK(st);
  check_shape(r, (const int64_t[]){0}, 1);
  psgi_value_release(r);
  int64_t l0 = (1LL << 62) + 1, l1 = (1LL << 62) + 4, l2 = 1;
  r = arange3(PSG_DTYPE_INT64, &l0, &l1, &l2, msg, &st);
  CHECK_OK(st);
  check_ints(r, PSG_DTYPE_INT64, (const int64_t[]){(1LL << 62) + 1, (1LL << 62) + 2, (1LL << 62) + 3}, 3);
  psgi_value_release(r);
  int32_t z = 0;
  r = arange3(PSG_DTYPE_INT32, &a, &b, &z, msg, &st);
  CHECK_EQ_INT(st, PSG_ERR_INVALID_ARGUMENT);
  CHECK(r == NULL);
  CHECK(strstr(msg, "arange: step is zero") != NULL);
  int64_t h0 = INT64_MIN, h1 = INT64_MAX;
  r = arange3(PSG_DTYPE_INT64, &h0, &h1, &l2, msg, &st);
  CHECK_EQ_INT(st, PSG_ERR_INVALID_ARGUMENT);
  CHECK(strstr(msg, "too many") != NULL);
}

static void test_misc_kernels(void) {
  float x[2] = {1.5f, -2};
  const char *ids[] = {"device_copy", "on_device", "annotation.stop_fusion"};
  for (size_t k = 0; k < COUNT(ids); k++) {
    psgi_value *r = un(ids[k], NULL, V(PSG_DTYPE_FLOAT32, ((int64_t[]){2}), x));
    check_floats(r, PSG_DTYPE_FLOAT32, (const double[]){1.5, -2}, 2, 0);
    psgi_value_release(r);
  }

  uint64_t key[10] = {0};
  float lo = 2, hi = 3;
  psg_attrs *a = shape_dtype_attrs((const int64_t[]){100}, 1, PSG_DTYPE_FLOAT32);
  psgi_value *args[3] = {V(PSG_DTYPE_UINT64, ((int64_t[]){10}), key), S(PSG_DTYPE_FLOAT32, &lo),
                         S(PSG_DTYPE_FLOAT32, &hi)},
             *r1 = NULL, *r2 = NULL, *r3 = NULL;
  CHECK_OK(eval("random.uniform", a, args, 3, &r1, NULL));
  CHECK_OK(eval("random.uniform", a, args, 3, &r2, NULL));
  CHECK(r1 && r1->kind == PSGI_VALUE_TUPLE && r1->u.tuple.n == 2);
  if (!r1 || !r2 || r1->kind != PSGI_VALUE_TUPLE) goto done;
  const psgi_value *k1 = r1->u.tuple.items[0], *v1 = r1->u.tuple.items[1];
  check_shape(k1, (const int64_t[]){10}, 1);
  CHECK_EQ_INT(psg_tensor_dtype(tensor_of(k1)), PSG_DTYPE_UINT64);
  check_shape(v1, (const int64_t[]){100}, 1);
  double sum = 0;
  bool in_range = true, varies = false;
  for (size_t i = 0; i < 100; i++) {
    double v = elem_f(v1, i);
    in_range &= v >= 2 && v < 3;
    varies |= v != elem_f(v1, 0);
    sum += v;
  }
  CHECK(in_range);
  CHECK(varies);
  CHECK(sum > 230 && sum < 270); /* mean 2.5 */
  /* The same key gives the same values; the new key differs and gives others. */
  CHECK(psg_tensor_equal(tensor_of(v1), tensor_of(r2->u.tuple.items[1])));
  CHECK(!psg_tensor_equal(tensor_of(k1), tensor_of(args[0])));
  psgi_value *args2[3] = {(psgi_value *)k1, args[1], args[2]};
  CHECK_OK(eval("random.uniform", a, args2, 3, &r3, NULL));
  CHECK(r3 && !psg_tensor_equal(tensor_of(v1), tensor_of(r3->u.tuple.items[1])));
done:
  psgi_value_release(r1);
  psgi_value_release(r2);
  psgi_value_release(r3);
  for (int i = 0; i < 3; i++) psgi_value_release(args[i]);
  psg_attrs_release(a);
}

/* Every op of the families has behaviour; `passage ops` reports it. */
static void test_registry(void) {
  const char *all[] = {"add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "floor_divide",
                       "floor_mod", "equal", "not_equal", "greater", "greater_equal", "less", "less_equal",
                       "logical_and", "logical_or", "logical_not", "where", "sqrt", "rsqrt", "exp", "fast_exp",
                       "log", "negative", "abs", "sign", "sigmoid", "tanh", "fast_tanh", "erf", "fast_erf",
                       "floor", "ceil", "round", "trunc", "isnan", "clip", "cast", "copy", "zeros_like",
                       "ones_like", "full_like", "zeros", "ones", "full", "arange", "device_copy", "on_device",
                       "annotation.stop_fusion", "random.uniform"};
  for (size_t k = 0; k < COUNT(all); k++) {
    ptrdiff_t i = psg_op_find(all[k], strlen(all[k]));
    CHECK(i >= 0);
    if (!psg_op_has_kernel((size_t)i)) fprintf(stderr, "  %s has no kernel\n", all[k]);
    CHECK(psg_op_has_kernel((size_t)i));
    CHECK(psg_op_pattern_name(psg_op_pattern((size_t)i)) != NULL);
    CHECK_EQ_INT(psg_op_is_stateful((size_t)i), !strcmp(all[k], "random.uniform"));
  }
#define PATTERN(op) psg_op_pattern((size_t)psg_op_find(op, strlen(op)))
  CHECK_EQ_INT(PATTERN("add"), PSG_OP_PATTERN_BROADCAST);
  CHECK_EQ_INT(PATTERN("less"), PSG_OP_PATTERN_BROADCAST);
  CHECK_EQ_INT(PATTERN("where"), PSG_OP_PATTERN_BROADCAST);
  CHECK_EQ_INT(PATTERN("sqrt"), PSG_OP_PATTERN_ELEMWISE);
  CHECK_EQ_INT(PATTERN("cast"), PSG_OP_PATTERN_ELEMWISE);
  CHECK_EQ_INT(PATTERN("full"), PSG_OP_PATTERN_ELEMWISE);
  CHECK_EQ_INT(PATTERN("arange"), PSG_OP_PATTERN_INJECTIVE);
  CHECK_EQ_INT(PATTERN("device_copy"), PSG_OP_PATTERN_OPAQUE);
#undef PATTERN
  CHECK_STR(psg_op_pattern_name(PSG_OP_PATTERN_BROADCAST), "broadcast");
  CHECK_STR(psg_op_pattern_name(PSG_OP_PATTERN_OUT_ELEMWISE_FUSABLE), "out_elemwise_fusable");
  CHECK(psg_op_pattern_name(5) == NULL);
  CHECK_EQ_INT(psg_op_pattern(psg_op_count()), -1);
  CHECK(!psg_op_has_kernel(psg_op_count()));
}

/* End to end through the public API ------------------------------------------- */

static const char module_text[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(3), float32]) {\n"
    "  %0 = add(%x, %y);\n"
    "  %1 = clip(%0, a_min=0f, a_max=4f);\n"
    "  %2 = greater(%1, %y);\n"
    "  %3 = multiply(%y, 10f);\n"
    "  (where(%2, %1, %3), cast(%2, dtype=\"int32\"))\n"
    "}\n";

static void test_end_to_end(void) {
  psg_module *m = NULL, *typed = NULL;
  CHECK_OK(psg_module_parse(ctx, module_text, strlen(module_text), "e2e.relay", &m));
  if (!m) return;
  psg_pass *infer = NULL;
  CHECK_OK(psg_pass_get(ctx, "InferType", NULL, &infer));
  CHECK_OK(psg_pass_run(infer, m, NULL, &typed));
  if (typed) {
    const psg_expr *body = psg_function_get_body(psg_module_get_function(typed, 0));
    const psg_type *t = psg_expr_checked_type(body), *want = NULL;
    CHECK_OK(psg_type_tuple(ctx, (const psg_type *[]){T(PSG_DTYPE_FLOAT32, 2, 3), T(PSG_DTYPE_INT32, 2, 3)}, 2, &want));
    CHECK(t == want);
  }

  float x[6] = {-1, 0.5f, 2, 3, 4, 5}, y[3] = {0, 1, 2};
  psg_tensor *in[2] = {NULL, NULL}, **outs = NULL;
  size_t nout = 0;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, (const int64_t[]){2, 3}, 2, x, &in[0]));
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, (const int64_t[]){3}, 1, y, &in[1]));
  CHECK_OK(psg_eval(ctx, m, "main", in, 2, &outs, &nout));
  CHECK_EQ_INT(nout, 2);
  if (nout == 2) {
    /* x + y = [-1, 1.5, 4; 3, 5, 7] -> clip [0, 1.5, 4; 3, 4, 4];
     * > y: [F, T, T; T, T, T]; else 10 * y. */
    const float *o = psg_tensor_data(outs[0]);
    const int32_t *c = psg_tensor_data(outs[1]);
    const float want[6] = {0, 1.5f, 4, 3, 4, 4};
    const int32_t wantc[6] = {0, 1, 1, 1, 1, 1};
    for (int i = 0; i < 6; i++) {
      CHECK(o[i] == want[i]);
      CHECK_EQ_INT(c[i], wantc[i]);
    }
  }
  for (size_t i = 0; i < nout; i++) psg_tensor_release(outs[i]);
  psg_free(outs);
  psg_tensor_release(in[0]);
  psg_tensor_release(in[1]);
  psg_module_release(typed);
  psg_module_release(m);

  /* InferType reports an op's type error with the op and the reason. */
  static const char bad[] = "#[version = \"0.0.5\"]\ndef @main(%a: Tensor[(3), float32], %b: Tensor[(3), int64]) { add(%a, %b) }\n";
  CHECK_OK(psg_module_parse(ctx, bad, strlen(bad), "bad.relay", &m));
  typed = NULL;
  CHECK(psg_pass_run(infer, m, NULL, &typed) != PSG_OK);
  CHECK(typed == NULL);
  bool found = false;
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) {
    const char *msg = psg_diag_message(psg_ctx_get_diag(ctx, i));
    found |= msg && strstr(msg, "add(...)") && strstr(msg, "dtypes float32 and int64 differ");
  }
  CHECK(found);
  psg_module_release(typed);
  psg_module_release(m);
  psg_pass_release(infer);
}

/* Out of memory at every allocation of an evaluation: a clean PSG_ERR_NOMEM
 * and nothing leaked (the tuple-building random.uniform and a broadcasting
 * add, whose kernels interns types and allocate results). */
static void test_oom(void) {
  const char *ops[] = {"add", "random.uniform"};
  for (size_t k = 0; k < COUNT(ops); k++) {
    bool done = false;
    for (long n = 1; n < 500 && !done; n++) {
      check_alloc al = {0, n};
      psg_ctx *c = check_ctx_with(&al);
      if (!c) continue;
      psg_ctx *saved = ctx;
      ctx = c;
      psg_tensor *t[3] = {NULL, NULL, NULL};
      psgi_value *v[3] = {NULL, NULL, NULL}, *out = NULL;
      psg_attrs *a = NULL;
      uint64_t key[10] = {1};
      float x[3] = {1, 2, 3}, lo = 0;
      bool ready = !psg_tensor_create(c, PSG_DTYPE_UINT64, (const int64_t[]){10}, 1, key, &t[0]) &&
                   !psg_tensor_create(c, PSG_DTYPE_FLOAT32, (const int64_t[]){3}, 1, x, &t[1]) &&
                   !psg_tensor_create(c, PSG_DTYPE_FLOAT32, NULL, 0, &lo, &t[2]);
      for (int i = 0; i < 3 && ready; i++) ready = !psgi_value_tensor(c, t[i], &v[i]);
      psg_attr *shape = NULL;
      if (ready) ready = !psg_attr_list(c, NULL, 0, &shape) && !psg_attrs_create(c, (const char *[]){"shape"}, &shape, 1, &a);
      psg_attr_release(shape);
      /* The relation and kernel are called directly: argument types are
       * interned first, so an allocation failing there is not theirs. */
      const psg_type *ty[3] = {NULL, NULL, NULL};
      for (int i = 0; i < 3 && ready; i++) ready = (ty[i] = psg_tensor_type(c, t[i])) != NULL;
      if (ready) {
        size_t op = op_index(ops[k]);
        const psgi_op_impl *impl = psgi_op_impl_get(op);
        psgi_op_call call = {.ctx = c, .op = op, .attrs = k == 0 ? NULL : a};
        const psg_type *targs[3] = {k == 0 ? ty[1] : ty[0], ty[2], ty[2]}, *out_type = NULL;
        psgi_value *vargs[3] = {k == 0 ? v[1] : v[0], v[2], v[2]};
        psg_status st = impl->type_rel(&call, targs, k == 0 ? 2 : 3, &out_type);
        if (!st) st = impl->kernel(&call, vargs, k == 0 ? 2 : 3, out_type, &out);
        if (st == PSG_OK) done = true;
        else CHECK_EQ_INT(st, PSG_ERR_NOMEM);
        if (st && st != PSG_ERR_NOMEM) fprintf(stderr, "  %s at allocation %ld: %s\n", ops[k], n, call.msg);
        if (st) CHECK(out == NULL);
      }
      psgi_value_release(out);
      for (int i = 0; i < 3; i++) {
        psgi_value_release(v[i]);
        psg_tensor_release(t[i]);
      }
      psg_attrs_release(a);
      ctx = saved;
      CHECK_CTX_CLEAN(c);
    }
    CHECK(done);
  }
}

int main(void) {
  ctx = check_ctx();
  RUN_TEST(test_rel_broadcast);
  RUN_TEST(test_rel_unary);
  RUN_TEST(test_rel_where);
  RUN_TEST(test_rel_cast_and_fills);
  RUN_TEST(test_rel_arange);
  RUN_TEST(test_rel_misc);
  RUN_TEST(test_add_broadcast);
  RUN_TEST(test_float_arith);
  RUN_TEST(test_float32_rows);
  RUN_TEST(test_int_arith);
  RUN_TEST(test_int64_exact);
  RUN_TEST(test_compare_and_logic);
  RUN_TEST(test_where);
  RUN_TEST(test_unary_float);
  RUN_TEST(test_unary_int);
  RUN_TEST(test_half_types);
  RUN_TEST(test_cast);
  RUN_TEST(test_clip_copy);
  RUN_TEST(test_fills);
  RUN_TEST(test_arange);
  RUN_TEST(test_misc_kernels);
  RUN_TEST(test_registry);
  RUN_TEST(test_end_to_end);
  RUN_TEST(test_oom);
  CHECK_CTX_CLEAN(ctx);
  return check_finish();
}
