/* Passage — the nn op family (issue 5): type relations with TVM's shapes,
 * defaults and errors, kernels against hand-computed values (conv2d with
 * padding, stride, dilation, groups and layouts, conv2d_transpose, matmuls,
 * softmax, pad modes), patterns and statefulness, and one model run end to
 * end through the parser and psg_eval. */
#include <math.h>
#include "check.h"
#include "interp/interp_internal.h"
#include "ops/kernel_util.h"

static psg_ctx *C;

/* Attributes ---------------------------------------------------------------- */

static psg_attr *a_int(int64_t v) {
  psg_attr *a = NULL;
  CHECK_OK(psg_attr_int(C, v, &a));
  return a;
}
static psg_attr *a_str(const char *s) {
  psg_attr *a = NULL;
  CHECK_OK(psg_attr_string(C, s, strlen(s), &a));
  return a;
}
static psg_attr *a_bool(bool v) {
  psg_attr *a = NULL;
  CHECK_OK(psg_attr_bool(C, v, &a));
  return a;
}
static psg_attr *a_float(double v) {
  psg_attr *a = NULL;
  CHECK_OK(psg_attr_float(C, v, &a));
  return a;
}
static psg_attr *a_dtype(int d) {
  psg_attr *a = NULL;
  CHECK_OK(psg_attr_dtype(C, d, &a));
  return a;
}
/* A list of n attrs (takes the items over). */
static psg_attr *a_list(int n, psg_attr **items) {
  psg_attr *a = NULL;
  CHECK_OK(psg_attr_list(C, items, (size_t)n, &a));
  for (int i = 0; i < n; i++) psg_attr_release(items[i]);
  return a;
}
static psg_attr *a_ints(int n, const int64_t *v) {
  psg_attr *items[8];
  for (int i = 0; i < n; i++) items[i] = a_int(v[i]);
  return a_list(n, items);
}
#define INTS(...) a_ints((int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__})

/* attrs("key", value, "key", value, ..., NULL): takes the values over. */
static psg_attrs *attrs(const char *key, ...) {
  const char *keys[16];
  psg_attr *vals[16];
  size_t n = 0;
  va_list ap;
  va_start(ap, key);
  for (const char *k = key; k && n < 16; k = va_arg(ap, const char *)) {
    keys[n] = k;
    vals[n++] = va_arg(ap, psg_attr *);
  }
  va_end(ap);
  psg_attrs *a = NULL;
  CHECK_OK(psg_attrs_create(C, keys, vals, n, &a));
  for (size_t i = 0; i < n; i++) psg_attr_release(vals[i]);
  return a;
}

/* Types and relations ----------------------------------------------------------- */

static const psg_type *tt(int dtype, int ndim, const int64_t *dims) {
  const psg_type *t = NULL;
  CHECK_OK(psg_type_tensor(C, dims, ndim, dtype, &t));
  return t;
}
#define T32(...) tt(PSG_DTYPE_FLOAT32, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__})
#define U PSG_DIM_UNKNOWN

static size_t op_index(const char *name) {
  ptrdiff_t op = psgi_op_lookup(name, strlen(name));
  CHECK(op >= 0);
  return op < 0 ? 0 : (size_t)op;
}

static const psgi_op_impl *impl_of(const char *name) {
  const psgi_op_impl *impl = psgi_op_impl_get(op_index(name));
  CHECK(impl != NULL);
  return impl;
}

/* Runs op's relation; returns the status and the message. Releases `a`. */
static char last_msg[512];
static psg_status rel(const char *name, psg_attrs *a, const psg_type **out, int n, ...) {
  const psg_type *args[4];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) args[i] = va_arg(ap, const psg_type *);
  va_end(ap);
  psgi_op_call call = {.ctx = C, .op = op_index(name), .attrs = a};
  call.msg[0] = 0;
  *out = NULL;
  const psgi_op_impl *impl = impl_of(name);
  psg_status st = impl ? impl->type_rel(&call, args, (size_t)n, out) : PSG_ERR_UNSUPPORTED;
  snprintf(last_msg, sizeof last_msg, "%s", call.msg);
  psg_attrs_release(a);
  return st;
}

/* The relation gives exactly `want`. */
#define REL_OK(want, name, a, n, ...)                                       \
  do {                                                                      \
    const psg_type *got_;                                                   \
    CHECK_OK(rel(name, a, &got_, n, __VA_ARGS__));                          \
    CHECK(got_ == (want));                                                  \
    if (got_ != (want)) fprintf(stderr, "  (message: %s)\n", last_msg);     \
  } while (0)

/* The relation fails with a message containing `sub`. */
#define REL_ERR(sub, name, a, n, ...)                                         \
  do {                                                                        \
    const psg_type *got_;                                                     \
    CHECK_EQ_INT(rel(name, a, &got_, n, __VA_ARGS__), PSG_ERR_TYPE);          \
    CHECK(strstr(last_msg, sub) != NULL);                                     \
    if (!strstr(last_msg, sub)) fprintf(stderr, "  (message: %s)\n", last_msg); \
  } while (0)

/* Kernels ------------------------------------------------------------------------- */

static psgi_value *fval(int ndim, const int64_t *dims, const float *data) {
  psg_tensor *t = NULL;
  psgi_value *v = NULL;
  CHECK_OK(psg_tensor_create(C, PSG_DTYPE_FLOAT32, dims, ndim, data, &t));
  CHECK_OK(psgi_value_tensor(C, t, &v));
  psg_tensor_release(t);
  return v;
}
#define FV(dims, ...) fval((int)(sizeof((int64_t[])dims) / sizeof(int64_t)), (int64_t[])dims, (float[]){__VA_ARGS__})
#define D(...) {__VA_ARGS__}

/* Evaluates op on values (released) and returns the result value. */
static psgi_value *eval(const char *name, psg_attrs *a, int n, ...) {
  psgi_value *args[4], *out = NULL;
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) args[i] = va_arg(ap, psgi_value *);
  va_end(ap);
  psg_status st = psgi_eval_op(C, op_index(name), a, args, (size_t)n, &out, last_msg, sizeof last_msg);
  CHECK_OK(st);
  if (st) fprintf(stderr, "  (%s: %s)\n", name, last_msg);
  for (int i = 0; i < n; i++) psgi_value_release(args[i]);
  psg_attrs_release(a);
  return out;
}

static const float *fdata(const psgi_value *v) {
  psg_tensor *t = psgi_value_as_tensor(v);
  CHECK(t && t->dtype == PSG_DTYPE_FLOAT32);
  return t ? t->data : NULL;
}

/* The value is a float32 tensor of `shape` holding `want` (within tol). */
static void expect_f(psgi_value *v, int ndim, const int64_t *shape, const float *want, float tol, int line) {
  psg_tensor *t = psgi_value_as_tensor(v);
  CHECK(t != NULL);
  if (!t) return;
  CHECK_EQ_INT(t->ndim, ndim);
  for (int i = 0; i < ndim && i < t->ndim; i++) CHECK_EQ_INT(t->shape[i], shape[i]);
  int64_t n = psgi_numel(shape, ndim);
  if (t->ndim != ndim || psgi_numel(t->shape, t->ndim) != n) return;
  for (int64_t i = 0; i < n; i++) {
    float g = ((const float *)t->data)[i];
    if (!(fabsf(g - want[i]) <= tol)) {
      fprintf(stderr, "line %d: element %lld is %g, expected %g\n", line, (long long)i, g, want[i]);
      CHECK(0);
      return;
    }
  }
  CHECK(1);
}
#define EXPECT(v, dims, ...) \
  expect_f((v), (int)(sizeof((int64_t[])dims) / sizeof(int64_t)), (int64_t[])dims, (float[]){__VA_ARGS__}, 1e-5f, __LINE__)

/* Deterministic pseudo-random floats in [-1, 1). */
static void fill_random(float *p, int64_t n, uint32_t seed) {
  for (int64_t i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    p[i] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
  }
}

/* conv2d ------------------------------------------------------------------------------ */

static void test_conv2d_rel(void) {
  const psg_type *x = T32(1, 3, 5, 5), *w = T32(2, 3, 3, 3);
  REL_OK(T32(1, 2, 3, 3), "nn.conv2d", NULL, 2, x, w);
  REL_OK(T32(1, 2, 5, 5), "nn.conv2d", attrs("padding", INTS(1, 1), NULL), 2, x, w);
  REL_OK(T32(1, 2, 5, 5), "nn.conv2d", attrs("padding", INTS(1), NULL), 2, x, w);
  REL_OK(T32(1, 2, 4, 3), "nn.conv2d", attrs("padding", INTS(1, 0, 0, 0), NULL), 2, x, w);
  REL_OK(T32(1, 2, 3, 3), "nn.conv2d", attrs("padding", INTS(1, 1, 1, 1), "strides", INTS(2, 2), NULL), 2, x, w);
  REL_OK(T32(1, 2, 1, 1), "nn.conv2d", attrs("dilation", INTS(2, 2), NULL), 2, x, w);
  REL_OK(T32(1, 2, 3, 3), "nn.conv2d", attrs("channels", a_int(2), "kernel_size", INTS(3, 3), NULL), 2, x, w);
  /* Layouts: NHWC data with HWIO or OHWI weights; out_layout defaults to data_layout. */
  REL_OK(T32(1, 5, 5, 2), "nn.conv2d",
         attrs("padding", INTS(1, 1), "data_layout", a_str("NHWC"), "kernel_layout", a_str("HWIO"), NULL), 2,
         T32(1, 5, 5, 3), T32(3, 3, 3, 2));
  REL_OK(T32(1, 3, 3, 2), "nn.conv2d", attrs("data_layout", a_str("NHWC"), "kernel_layout", a_str("OHWI"), NULL), 2,
         T32(1, 5, 5, 3), T32(2, 3, 3, 3));
  REL_OK(T32(1, 3, 3, 2), "nn.conv2d", attrs("out_layout", a_str("NHWC"), NULL), 2, x, w);
  /* Depthwise (groups == channels) and grouped convolutions. */
  REL_OK(T32(1, 4, 3, 3), "nn.conv2d", attrs("groups", a_int(4), NULL), 2, T32(1, 4, 5, 5), T32(4, 1, 3, 3));
  REL_OK(T32(1, 8, 3, 3), "nn.conv2d", attrs("groups", a_int(4), "channels", a_int(8), NULL), 2, T32(1, 4, 5, 5),
         T32(8, 1, 3, 3));
  REL_OK(T32(1, 6, 3, 3), "nn.conv2d", attrs("groups", a_int(2), NULL), 2, T32(1, 4, 5, 5), T32(6, 2, 3, 3));
  /* Unknown dims propagate. */
  REL_OK(T32(U, 2, 3, 3), "nn.conv2d", NULL, 2, T32(U, 3, 5, 5), w);
  REL_OK(T32(1, 2, U, 3), "nn.conv2d", NULL, 2, T32(1, 3, U, 5), w);
  REL_OK(T32(1, U, 3, 3), "nn.conv2d", NULL, 2, x, T32(U, 3, 3, 3));
  /* out_dtype. */
  REL_OK(tt(PSG_DTYPE_INT32, 4, (int64_t[]){1, 2, 3, 3}), "nn.conv2d", attrs("out_dtype", a_dtype(PSG_DTYPE_INT32), NULL),
         2, tt(PSG_DTYPE_INT8, 4, (int64_t[]){1, 3, 5, 5}), tt(PSG_DTYPE_INT8, 4, (int64_t[]){2, 3, 3, 3}));
  REL_OK(T32(1, 2, 3, 3), "nn.conv2d", attrs("out_dtype", a_str(""), NULL), 2, x, w);
  /* Errors. */
  REL_ERR("nn.conv2d: input channels 3 do not match weight's 4 * groups 1", "nn.conv2d", NULL, 2, x, T32(2, 4, 3, 3));
  REL_ERR("input channels 4 do not match weight's 1 * groups 2", "nn.conv2d", attrs("groups", a_int(2), NULL), 2,
          T32(1, 4, 5, 5), T32(4, 1, 3, 3));
  REL_ERR("kernel_size (5, 5) does not match the weight's (2, 3, 3, 3)", "nn.conv2d",
          attrs("kernel_size", INTS(5, 5), NULL), 2, x, w);
  REL_ERR("channels 4 do not match the weight's 2 output channels", "nn.conv2d", attrs("channels", a_int(4), NULL), 2,
          x, w);
  REL_ERR("output channels 3 are not divisible by groups 2", "nn.conv2d", attrs("groups", a_int(2), NULL), 2,
          T32(1, 4, 5, 5), T32(3, 2, 3, 3));
  REL_ERR("padding must have 1, 2 or 4 values, got 3", "nn.conv2d", attrs("padding", INTS(1, 1, 1), NULL), 2, x, w);
  REL_ERR("unsupported data_layout 'NCHW4x'", "nn.conv2d", attrs("data_layout", a_str("NCHW4x"), NULL), 2, x, w);
  /* a blocked layout (TVM's BijectiveLayout) needs data of its rank */
  REL_ERR("a 4-D argument for a layout of 5 axes", "nn.conv2d", attrs("data_layout", a_str("NCHW4c"), NULL), 2, x, w);
  REL_ERR("unsupported kernel_layout 'OIHH'", "nn.conv2d", attrs("kernel_layout", a_str("OIHH"), NULL), 2, x, w);
  REL_ERR("data must be 4-D (NCHW), got (3, 5, 5)", "nn.conv2d", NULL, 2, T32(3, 5, 5), w);
  REL_ERR("weight must be 4-D", "nn.conv2d", NULL, 2, x, T32(2, 3, 3));
  REL_ERR("the dilated kernel height 5 is larger than the padded input height 4", "nn.conv2d",
          attrs("dilation", INTS(2, 1), NULL), 2, T32(1, 3, 4, 4), w);
  REL_ERR("the kernel must be at least 1x1, got (2, 3, 0, 3)", "nn.conv2d", NULL, 2, x, T32(2, 3, 0, 3));
  REL_ERR("strides must be at least 1", "nn.conv2d", attrs("strides", INTS(0, 1), NULL), 2, x, w);
  REL_ERR("groups must be at least 1", "nn.conv2d", attrs("groups", a_int(0), NULL), 2, x, w);
  REL_ERR("unknown out_dtype 'float7'", "nn.conv2d", attrs("out_dtype", a_str("float7"), NULL), 2, x, w);
  REL_ERR("argument 1 of 'nn.conv2d' must be a tensor", "nn.conv2d", NULL, 2, x, NULL);
}

static const float X9[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};

static void test_conv2d_kernel(void) {
  /* 3x3 input 1..9 with a 2x2 kernel of ones: sums of each 2x2 window. */
  psgi_value *y = eval("nn.conv2d", NULL, 2, fval(4, (int64_t[]){1, 1, 3, 3}, X9), FV(D(1, 1, 2, 2), 1, 1, 1, 1));
  EXPECT(y, D(1, 1, 2, 2), 12, 16, 24, 28);
  psgi_value_release(y);
  /* padding 1 with a 3x3 kernel of ones: neighbourhood sums. */
  float ones9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  y = eval("nn.conv2d", attrs("padding", INTS(1, 1), NULL), 2, fval(4, (int64_t[]){1, 1, 3, 3}, X9),
           fval(4, (int64_t[]){1, 1, 3, 3}, ones9));
  EXPECT(y, D(1, 1, 3, 3), 12, 21, 16, 27, 45, 33, 24, 39, 28);
  psgi_value_release(y);
  /* ... with stride 2: the corners of that. */
  y = eval("nn.conv2d", attrs("padding", INTS(1, 1), "strides", INTS(2, 2), NULL), 2,
           fval(4, (int64_t[]){1, 1, 3, 3}, X9), fval(4, (int64_t[]){1, 1, 3, 3}, ones9));
  EXPECT(y, D(1, 1, 2, 2), 12, 16, 24, 28);
  psgi_value_release(y);
  /* dilation 2: a 2x2 kernel spread over the 3x3 corners, weights 1, 10, 100, 1000. */
  y = eval("nn.conv2d", attrs("dilation", INTS(2, 2), NULL), 2, fval(4, (int64_t[]){1, 1, 3, 3}, X9),
           FV(D(1, 1, 2, 2), 1, 10, 100, 1000));
  EXPECT(y, D(1, 1, 1, 1), 1 + 30 + 700 + 9000);
  psgi_value_release(y);
  /* Asymmetric padding (top 1, left 0, bottom 0, right 2) with an identity 1x1 kernel. */
  y = eval("nn.conv2d", attrs("padding", INTS(1, 0, 0, 2), NULL), 2, FV(D(1, 1, 2, 2), 1, 2, 3, 4),
           FV(D(1, 1, 1, 1), 1));
  EXPECT(y, D(1, 1, 3, 4), 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0);
  psgi_value_release(y);
  /* Input channels are summed: 3*1 + 4*2. */
  y = eval("nn.conv2d", NULL, 2, FV(D(1, 2, 1, 1), 1, 2), FV(D(1, 2, 1, 1), 3, 4));
  EXPECT(y, D(1, 1, 1, 1), 11);
  psgi_value_release(y);
  /* Depthwise (groups 2 == channels): each channel by its own weight. */
  y = eval("nn.conv2d", attrs("groups", a_int(2), NULL), 2, FV(D(1, 2, 2, 2), 1, 2, 3, 4, 5, 6, 7, 8),
           FV(D(2, 1, 1, 1), 2, 3));
  EXPECT(y, D(1, 2, 2, 2), 2, 4, 6, 8, 15, 18, 21, 24);
  psgi_value_release(y);
  /* Depthwise with multiplier 2: outputs 0,1 see channel 0; 2,3 channel 1. */
  y = eval("nn.conv2d", attrs("groups", a_int(2), NULL), 2, FV(D(1, 2, 1, 2), 1, 2, 5, 6),
           FV(D(4, 1, 1, 1), 1, 2, 3, 4));
  EXPECT(y, D(1, 4, 1, 2), 1, 2, 2, 4, 15, 18, 20, 24);
  psgi_value_release(y);
  /* Groups of two channels: out0 = in0 + in1, out1 = in2 - in3. */
  y = eval("nn.conv2d", attrs("groups", a_int(2), NULL), 2, FV(D(1, 4, 1, 1), 1, 2, 3, 4),
           FV(D(2, 2, 1, 1), 1, 1, 1, -1));
  EXPECT(y, D(1, 2, 1, 1), 3, -1);
  psgi_value_release(y);
  /* Integer convolution with an int32 result. */
  {
    int8_t xd[4] = {1, 2, 3, 4}, wd[4] = {1, -1, 2, 100};
    psg_tensor *xt, *wt;
    psgi_value *xv, *wv;
    CHECK_OK(psg_tensor_create(C, PSG_DTYPE_INT8, (int64_t[]){1, 1, 2, 2}, 4, xd, &xt));
    CHECK_OK(psg_tensor_create(C, PSG_DTYPE_INT8, (int64_t[]){1, 1, 2, 2}, 4, wd, &wt));
    CHECK_OK(psgi_value_tensor(C, xt, &xv));
    CHECK_OK(psgi_value_tensor(C, wt, &wv));
    psg_tensor_release(xt);
    psg_tensor_release(wt);
    y = eval("nn.conv2d", attrs("out_dtype", a_dtype(PSG_DTYPE_INT32), NULL), 2, xv, wv);
    psg_tensor *t = psgi_value_as_tensor(y);
    CHECK(t && t->dtype == PSG_DTYPE_INT32);
    if (t) CHECK_EQ_INT(((const int32_t *)t->data)[0], 1 - 2 + 6 + 400);
    psgi_value_release(y);
  }
}

/* NHWC / HWIO gives the transposed NCHW / OIHW result, bit for bit (same summation order). */
static void test_conv2d_layouts(void) {
  enum { N = 2, CI = 4, H = 7, W = 6, CO = 6, KH = 3, KW = 2, G = 2 };
  static float x[N * CI * H * W], w[CO * (CI / G) * KH * KW], xh[N * H * W * CI], wh[KH * KW * (CI / G) * CO],
      wo[CO * KH * KW * (CI / G)];
  fill_random(x, N * CI * H * W, 7);
  fill_random(w, CO * (CI / G) * KH * KW, 11);
  for (int n = 0; n < N; n++)
    for (int c = 0; c < CI; c++)
      for (int h = 0; h < H; h++)
        for (int ww = 0; ww < W; ww++) xh[((n * H + h) * W + ww) * CI + c] = x[((n * CI + c) * H + h) * W + ww];
  for (int o = 0; o < CO; o++)
    for (int i = 0; i < CI / G; i++)
      for (int h = 0; h < KH; h++)
        for (int ww = 0; ww < KW; ww++) {
          float v = w[((o * (CI / G) + i) * KH + h) * KW + ww];
          wh[((h * KW + ww) * (CI / G) + i) * CO + o] = v;
          wo[((o * KH + h) * KW + ww) * (CI / G) + i] = v;
        }
#define CONV_ATTRS(dl, kl)                                                                                      \
  attrs("padding", INTS(1, 0, 2, 1), "strides", INTS(2, 1), "dilation", INTS(1, 2), "groups", a_int(G),        \
        "data_layout", a_str(dl), "kernel_layout", a_str(kl), NULL)
  psgi_value *ref = eval("nn.conv2d", CONV_ATTRS("NCHW", "OIHW"), 2, fval(4, (int64_t[]){N, CI, H, W}, x),
                         fval(4, (int64_t[]){CO, CI / G, KH, KW}, w));
  psgi_value *nhwc = eval("nn.conv2d", CONV_ATTRS("NHWC", "HWIO"), 2, fval(4, (int64_t[]){N, H, W, CI}, xh),
                          fval(4, (int64_t[]){KH, KW, CI / G, CO}, wh));
  psgi_value *ohwi = eval("nn.conv2d", CONV_ATTRS("NHWC", "OHWI"), 2, fval(4, (int64_t[]){N, H, W, CI}, xh),
                          fval(4, (int64_t[]){CO, KH, KW, CI / G}, wo));
#undef CONV_ATTRS
  psg_tensor *r = psgi_value_as_tensor(ref), *a = psgi_value_as_tensor(nhwc), *b = psgi_value_as_tensor(ohwi);
  CHECK(r && a && b);
  if (r && a && b) {
    /* oh = (7 + 3 - 3) / 2 + 1 = 4, ow = (6 + 1 - 3) / 1 + 1 = 5 */
    CHECK_EQ_INT(r->shape[2], 4);
    CHECK_EQ_INT(r->shape[3], 5);
    CHECK_EQ_INT(a->shape[1], 4);
    CHECK_EQ_INT(a->shape[3], CO);
    CHECK(psg_tensor_equal(a, b));
    int bad = 0;
    const float *rd = r->data, *ad = a->data;
    for (int n = 0; n < N; n++)
      for (int c = 0; c < CO; c++)
        for (int h = 0; h < 4; h++)
          for (int ww = 0; ww < 5; ww++)
            if (memcmp(&rd[((n * CO + c) * 4 + h) * 5 + ww], &ad[((n * 4 + h) * 5 + ww) * CO + c], 4)) bad++;
    CHECK_EQ_INT(bad, 0);
  }
  psgi_value_release(ref);
  psgi_value_release(nhwc);
  psgi_value_release(ohwi);
}

/* conv2d_transpose ------------------------------------------------------------------------- */

static void test_conv2d_transpose(void) {
  const psg_type *x = T32(1, 2, 3, 3);
  /* Default kernel layout IOHW: weight (in channels, out channels / groups, kh, kw). */
  REL_OK(T32(1, 1, 5, 5), "nn.conv2d_transpose", NULL, 2, x, T32(2, 1, 3, 3));
  REL_OK(T32(1, 1, 6, 6), "nn.conv2d_transpose",
         attrs("strides", INTS(2, 2), "padding", INTS(1, 1), "output_padding", INTS(1, 1), NULL), 2, x,
         T32(2, 1, 3, 3));
  REL_OK(T32(1, 4, 5, 5), "nn.conv2d_transpose", attrs("groups", a_int(2), "channels", a_int(4), NULL), 2, x,
         T32(2, 2, 3, 3));
  REL_OK(T32(1, 3, 5, 5), "nn.conv2d_transpose", attrs("kernel_layout", a_str("OIHW"), NULL), 2, x, T32(3, 2, 3, 3));
  REL_OK(T32(U, 1, 5, 5), "nn.conv2d_transpose", NULL, 2, T32(U, 2, 3, 3), T32(2, 1, 3, 3));
  REL_ERR("nn.conv2d_transpose: input channels 2 do not match the weight's 3", "nn.conv2d_transpose", NULL, 2, x,
          T32(3, 1, 3, 3));
  REL_ERR("output_padding must be smaller than the strides", "nn.conv2d_transpose",
          attrs("output_padding", INTS(1, 1), NULL), 2, x, T32(2, 1, 3, 3));
  REL_ERR("channels 3 do not match the weight's 1 output channels * groups 1", "nn.conv2d_transpose",
          attrs("channels", a_int(3), NULL), 2, x, T32(2, 1, 3, 3));

  /* Stride 1, 2x2 ones: every input spreads over a 2x2 block. */
  psgi_value *y = eval("nn.conv2d_transpose", NULL, 2, FV(D(1, 1, 2, 2), 1, 2, 3, 4), FV(D(1, 1, 2, 2), 1, 1, 1, 1));
  EXPECT(y, D(1, 1, 3, 3), 1, 3, 2, 4, 10, 6, 3, 7, 4);
  psgi_value_release(y);
  /* An asymmetric kernel is not flipped: out[p] = sum x[i] * w[p - i]. */
  y = eval("nn.conv2d_transpose", NULL, 2, FV(D(1, 1, 1, 2), 1, 2), FV(D(1, 1, 1, 2), 1, 10));
  EXPECT(y, D(1, 1, 1, 3), 1, 12, 20);
  psgi_value_release(y);
  /* Two input channels, two outputs (IOHW weight (2, 2, 1, 1)): out[j] = sum_c x[c] * w[c, j]. */
  y = eval("nn.conv2d_transpose", NULL, 2, FV(D(1, 2, 1, 1), 1, 2), FV(D(2, 2, 1, 1), 1, 10, 100, 1000));
  EXPECT(y, D(1, 2, 1, 1), 201, 2010);
  psgi_value_release(y);
  /* Stride 2: blocks do not overlap. */
  y = eval("nn.conv2d_transpose", attrs("strides", INTS(2, 2), NULL), 2, FV(D(1, 1, 2, 2), 1, 2, 3, 4),
           FV(D(1, 1, 2, 2), 1, 1, 1, 1));
  EXPECT(y, D(1, 1, 4, 4), 1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4);
  psgi_value_release(y);
  /* ... padding 1 crops one element on each side; output_padding 1 adds a row and column at the end. */
  y = eval("nn.conv2d_transpose", attrs("strides", INTS(2, 2), "padding", INTS(1, 1), "output_padding", INTS(1, 1), NULL),
           2, FV(D(1, 1, 2, 2), 1, 2, 3, 4), FV(D(1, 1, 2, 2), 1, 1, 1, 1));
  EXPECT(y, D(1, 1, 3, 3), 1, 2, 2, 3, 4, 4, 3, 4, 4);
  psgi_value_release(y);

  /* The transposed convolution is the adjoint of the convolution with the
   * same weight array (OIHW for one, IOHW for the other):
   * <conv(x, w), y> == <x, conv_transpose(y, w)>. */
  enum { CI = 4, H = 7, W = 8, CO = 6, K = 3, G = 2 };
  static float x0[CI * H * W], w0[CO * (CI / G) * K * K], y0[CO * 4 * 4];
  fill_random(x0, CI * H * W, 3);
  fill_random(w0, CO * (CI / G) * K * K, 5);
  fill_random(y0, CO * 4 * 4, 9);
  /* conv: (7 + 2 - 3) / 2 + 1 = 4, (8 + 2 - 3) / 2 + 1 = 4; back: (4-1)*2 - 2 + 3 + opad = 7 + opad. */
  psgi_value *fwd = eval("nn.conv2d", attrs("strides", INTS(2, 2), "padding", INTS(1, 1), "groups", a_int(G), NULL), 2,
                         fval(4, (int64_t[]){1, CI, H, W}, x0), fval(4, (int64_t[]){CO, CI / G, K, K}, w0));
  psgi_value *bwd = eval("nn.conv2d_transpose",
                         attrs("strides", INTS(2, 2), "padding", INTS(1, 1), "output_padding", INTS(0, 1), "groups",
                               a_int(G), NULL),
                         2, fval(4, (int64_t[]){1, CO, 4, 4}, y0), fval(4, (int64_t[]){CO, CI / G, K, K}, w0));
  psg_tensor *ft = psgi_value_as_tensor(fwd), *bt = psgi_value_as_tensor(bwd);
  CHECK(ft && bt);
  if (ft && bt) {
    CHECK_EQ_INT(psg_tensor_numel(ft), CO * 16);
    CHECK_EQ_INT(bt->shape[1], CI);
    CHECK_EQ_INT(bt->shape[2], H);
    CHECK_EQ_INT(bt->shape[3], W);
    double lhs = 0, rhs = 0;
    for (int i = 0; i < CO * 16; i++) lhs += (double)fdata(fwd)[i] * y0[i];
    for (int i = 0; i < CI * H * W; i++) rhs += (double)fdata(bwd)[i] * x0[i];
    CHECK(fabs(lhs - rhs) < 1e-3);
    if (!(fabs(lhs - rhs) < 1e-3)) fprintf(stderr, "  adjoint: %g vs %g\n", lhs, rhs);
  }
  psgi_value_release(fwd);
  psgi_value_release(bwd);
}

/* dense, matmul, batch_matmul ---------------------------------------------------------------- */

static void test_dense_matmul(void) {
  REL_OK(T32(2, 4), "nn.dense", NULL, 2, T32(2, 3), T32(4, 3));
  REL_OK(T32(2, 5, 4), "nn.dense", NULL, 2, T32(2, 5, 3), T32(4, 3));
  REL_OK(T32(U, 4), "nn.dense", attrs("units", a_int(4), NULL), 2, T32(U, 3), T32(4, 3));
  REL_OK(T32(2, 4), "nn.dense", NULL, 2, T32(2, U), T32(4, 3));
  REL_ERR("nn.dense: input dimension 3 does not match the weight's 5", "nn.dense", NULL, 2, T32(2, 3), T32(4, 5));
  REL_ERR("nn.dense: units 7 do not match the weight's 4", "nn.dense", attrs("units", a_int(7), NULL), 2, T32(2, 3),
          T32(4, 3));
  REL_ERR("the weight must be 2-D", "nn.dense", NULL, 2, T32(2, 3), T32(3));
  REL_OK(T32(2, 4), "nn.matmul", NULL, 2, T32(2, 3), T32(3, 4));
  REL_OK(T32(2, 4), "nn.matmul", attrs("transpose_a", a_bool(true), NULL), 2, T32(3, 2), T32(3, 4));
  REL_OK(T32(2, 4), "nn.matmul", attrs("transpose_b", a_bool(true), NULL), 2, T32(2, 3), T32(4, 3));
  REL_ERR("nn.matmul: input dimension 3 does not match the weight's 4", "nn.matmul", NULL, 2, T32(2, 3), T32(4, 3));

  psgi_value *y = eval("nn.dense", NULL, 2, FV(D(2, 3), 1, 2, 3, 4, 5, 6),
                       FV(D(4, 3), 1, 0, 0, 0, 1, 0, 1, 1, 1, 2, 0, 1));
  EXPECT(y, D(2, 4), 1, 2, 6, 5, 4, 5, 15, 14);
  psgi_value_release(y);
  /* Leading dims of the data are batches. */
  y = eval("nn.dense", NULL, 2, FV(D(2, 1, 2), 1, 2, 3, 4), FV(D(1, 2), 10, 1));
  EXPECT(y, D(2, 1, 1), 12, 34);
  psgi_value_release(y);
  y = eval("nn.matmul", NULL, 2, FV(D(2, 2), 1, 2, 3, 4), FV(D(2, 3), 1, 0, 2, 0, 1, 3));
  EXPECT(y, D(2, 3), 1, 2, 8, 3, 4, 18);
  psgi_value_release(y);
  y = eval("nn.matmul", attrs("transpose_a", a_bool(true), NULL), 2, FV(D(3, 2), 1, 2, 3, 4, 5, 6),
           FV(D(3, 1), 1, 1, 1));
  EXPECT(y, D(2, 1), 9, 12);
  psgi_value_release(y);
  y = eval("nn.matmul", attrs("transpose_a", a_bool(true), "transpose_b", a_bool(true), NULL), 2,
           FV(D(3, 2), 1, 2, 3, 4, 5, 6), FV(D(2, 3), 1, 1, 1, 1, 0, -1));
  EXPECT(y, D(2, 2), 9, -4, 12, -4);
  psgi_value_release(y);
}

static void test_batch_matmul(void) {
  REL_OK(T32(2, 3, 5), "nn.batch_matmul", NULL, 2, T32(2, 3, 4), T32(2, 5, 4));
  REL_OK(T32(2, 3, 5), "nn.batch_matmul", NULL, 2, T32(1, 3, 4), T32(2, 5, 4));
  REL_OK(T32(2, 3, 5), "nn.batch_matmul", attrs("transpose_b", a_bool(false), NULL), 2, T32(2, 3, 4), T32(1, 4, 5));
  REL_OK(T32(2, 3, 5), "nn.batch_matmul", attrs("transpose_a", a_bool(true), NULL), 2, T32(2, 4, 3), T32(2, 5, 4));
  REL_OK(T32(U, 3, 5), "nn.batch_matmul", NULL, 2, T32(U, 3, 4), T32(2, 5, 4));
  REL_ERR("batch dimensions don't match, x shape=(2, 3, 4), y shape=(3, 5, 4)", "nn.batch_matmul", NULL, 2,
          T32(2, 3, 4), T32(3, 5, 4));
  REL_ERR("reduction dimensions 4 and 3 don't match", "nn.batch_matmul", NULL, 2, T32(2, 3, 4), T32(2, 5, 3));
  REL_ERR("both operands must be 3-D", "nn.batch_matmul", NULL, 2, T32(3, 4), T32(2, 5, 4));

  /* y (batch 1) broadcasts; transpose_b: y rows are the output columns. */
  psgi_value *y = eval("nn.batch_matmul", NULL, 2, FV(D(2, 1, 2), 1, 2, 3, 4), FV(D(1, 2, 2), 1, 0, 1, 1));
  EXPECT(y, D(2, 1, 2), 1, 3, 3, 7);
  psgi_value_release(y);
  y = eval("nn.batch_matmul", attrs("transpose_b", a_bool(false), NULL), 2, FV(D(2, 1, 2), 1, 2, 3, 4),
           FV(D(2, 2, 1), 1, 1, 10, -1));
  EXPECT(y, D(2, 1, 1), 3, 26);
  psgi_value_release(y);
}

/* Activations, bias_add ------------------------------------------------------------------------ */

static void test_activations(void) {
  REL_OK(T32(2, U), "nn.relu", NULL, 1, T32(2, U));
  REL_OK(T32(2, 3), "nn.leaky_relu", NULL, 1, T32(2, 3));
  REL_OK(T32(1, 3, 2), "nn.prelu", NULL, 2, T32(1, 3, 2), T32(3));
  REL_OK(T32(1, 3, 2), "nn.prelu", attrs("axis", a_int(-1), NULL), 2, T32(1, 3, 2), T32(2));
  REL_ERR("nn.prelu: alpha must have shape (3,) (axis 1 of the data), got (2,)", "nn.prelu", NULL, 2, T32(1, 3, 2),
          T32(2));
  REL_ERR("axis 3 is out of range for rank 3", "nn.prelu", attrs("axis", a_int(3), NULL), 2, T32(1, 3, 2), T32(3));
  REL_ERR("argument 0 of 'nn.relu' must be a tensor", "nn.relu", NULL, 1, NULL);

  psgi_value *y = eval("nn.relu", NULL, 1, FV(D(4), -2, -0.5, 0, 3));
  EXPECT(y, D(4), 0, 0, 0, 3);
  psgi_value_release(y);
  /* TVM's default alpha is 0.25. */
  y = eval("nn.leaky_relu", NULL, 1, FV(D(3), -4, 0, 2));
  EXPECT(y, D(3), -1, 0, 2);
  psgi_value_release(y);
  y = eval("nn.leaky_relu", attrs("alpha", a_float(0.1), NULL), 1, FV(D(2), -10, 5));
  EXPECT(y, D(2), -1, 5);
  psgi_value_release(y);
  /* prelu: channel c uses alpha[c] along axis 1. */
  y = eval("nn.prelu", NULL, 2, FV(D(1, 2, 2), -1, 2, -3, 4), FV(D(2), 0.5, 2));
  EXPECT(y, D(1, 2, 2), -0.5, 2, -6, 4);
  psgi_value_release(y);
  /* Integer relu stays exact. */
  {
    int64_t d[2] = {-5, INT64_MAX};
    psg_tensor *t;
    psgi_value *v;
    CHECK_OK(psg_tensor_create(C, PSG_DTYPE_INT64, (int64_t[]){2}, 1, d, &t));
    CHECK_OK(psgi_value_tensor(C, t, &v));
    psg_tensor_release(t);
    y = eval("nn.relu", NULL, 1, v);
    psg_tensor *r = psgi_value_as_tensor(y);
    CHECK(r && ((const int64_t *)r->data)[0] == 0 && ((const int64_t *)r->data)[1] == INT64_MAX);
    psgi_value_release(y);
  }
}

static void test_bias_add(void) {
  REL_OK(T32(1, 3, 2, 2), "nn.bias_add", NULL, 2, T32(1, 3, 2, 2), T32(3));
  REL_OK(T32(2, 5), "nn.bias_add", attrs("axis", a_int(-1), NULL), 2, T32(2, 5), T32(5));
  REL_OK(T32(U, 3), "nn.bias_add", NULL, 2, T32(U, 3), T32(3));
  REL_ERR("nn.bias_add: bias must have shape (3,) to match axis 1 of (1, 3, 2, 2), got (4,)", "nn.bias_add", NULL, 2,
          T32(1, 3, 2, 2), T32(4));
  REL_ERR("attempted to access index 2 of (2, 5)", "nn.bias_add", attrs("axis", a_int(2), NULL), 2, T32(2, 5), T32(5));
  REL_ERR("bias dtype int32 does not match data dtype float32", "nn.bias_add", NULL, 2, T32(2, 3),
          tt(PSG_DTYPE_INT32, 1, (int64_t[]){3}));
  psgi_value *y = eval("nn.bias_add", NULL, 2, FV(D(1, 2, 2), 1, 2, 3, 4), FV(D(2), 10, 100));
  EXPECT(y, D(1, 2, 2), 11, 12, 103, 104);
  psgi_value_release(y);
  y = eval("nn.bias_add", attrs("axis", a_int(-1), NULL), 2, FV(D(2, 2), 1, 2, 3, 4), FV(D(2), 10, 100));
  EXPECT(y, D(2, 2), 11, 102, 13, 104);
  psgi_value_release(y);
}

/* Softmaxes --------------------------------------------------------------------------------------- */

static void test_softmax(void) {
  REL_OK(T32(2, 3), "nn.softmax", NULL, 1, T32(2, 3));
  REL_OK(T32(2, 3), "nn.log_softmax", attrs("axis", a_int(0), NULL), 1, T32(2, 3));
  REL_ERR("axis 2 is out of range for rank 2", "nn.softmax", attrs("axis", a_int(2), NULL), 1, T32(2, 3));
  REL_ERR("nn.fast_softmax: expects a floating-point tensor, got int32", "nn.fast_softmax", NULL, 1,
          tt(PSG_DTYPE_INT32, 1, (int64_t[]){3}));

  const char *names[2] = {"nn.softmax", "nn.fast_softmax"};
  for (int k = 0; k < 2; k++) {
    /* Large values must not overflow: the maximum is subtracted first. */
    psgi_value *y = eval(names[k], NULL, 1, FV(D(2, 3), 1, 2, 3, 1000, 1000, 1000));
    float e1 = expf(-2), e2 = expf(-1), s = e1 + e2 + 1;
    EXPECT(y, D(2, 3), e1 / s, e2 / s, 1 / s, 1.0f / 3, 1.0f / 3, 1.0f / 3);
    const float *d = fdata(y);
    if (d) CHECK(fabsf(d[0] + d[1] + d[2] - 1) < 1e-6f);
    psgi_value_release(y);
  }
  /* Along axis 0: each column sums to 1. */
  psgi_value *y = eval("nn.softmax", attrs("axis", a_int(0), NULL), 1, FV(D(2, 2), 0, 5, 0, -5));
  float a = 1 / (1 + expf(-10));
  EXPECT(y, D(2, 2), 0.5f, a, 0.5f, 1 - a);
  psgi_value_release(y);
  y = eval("nn.log_softmax", NULL, 1, FV(D(2), 0, 0));
  EXPECT(y, D(2), -logf(2), -logf(2));
  psgi_value_release(y);
}

/* dropout, batch_flatten ---------------------------------------------------------------------------- */

static void test_dropout_flatten(void) {
  const psg_type *t = T32(2, 3), *tup = NULL, *got = NULL;
  CHECK_OK(psg_type_tuple(C, (const psg_type *[]){t, t}, 2, &tup));
  CHECK_OK(rel("nn.dropout", NULL, &got, 1, t));
  CHECK(got == tup);
  REL_ERR("rate 2 is not in [0, 1]", "nn.dropout", attrs("rate", a_float(2), NULL), 1, t);
  psgi_value *y = eval("nn.dropout", attrs("rate", a_float(0.5), NULL), 1, FV(D(2), 3, -4));
  CHECK(y && y->kind == PSGI_VALUE_TUPLE && y->u.tuple.n == 2);
  if (y && y->kind == PSGI_VALUE_TUPLE) {
    EXPECT(y->u.tuple.items[0], D(2), 3, -4);
    EXPECT(y->u.tuple.items[1], D(2), 1, 1);
  }
  psgi_value_release(y);

  REL_OK(T32(2, 12), "nn.batch_flatten", NULL, 1, T32(2, 3, 4));
  REL_OK(T32(U, 3), "nn.batch_flatten", NULL, 1, T32(U, 3));
  REL_OK(T32(2, U), "nn.batch_flatten", NULL, 1, T32(2, 3, U));
  REL_ERR("nn.batch_flatten: data must have at least one dimension", "nn.batch_flatten", NULL, 1,
          tt(PSG_DTYPE_FLOAT32, 0, NULL));
  y = eval("nn.batch_flatten", NULL, 1, FV(D(2, 1, 2), 1, 2, 3, 4));
  EXPECT(y, D(2, 2), 1, 2, 3, 4);
  psgi_value_release(y);
}

/* pad --------------------------------------------------------------------------------------------- */

static psg_attr *pairs(int n, const int64_t *v) {
  psg_attr *items[8];
  for (int i = 0; i < n; i++) items[i] = a_ints(2, v + 2 * i);
  return a_list(n, items);
}

static void test_pad(void) {
  const psg_type *s = tt(PSG_DTYPE_FLOAT32, 0, NULL), *x = T32(2, 3);
  REL_OK(T32(4, 5), "nn.pad", attrs("pad_width", pairs(2, (int64_t[]){1, 1, 2, 0}), NULL), 2, x, s);
  REL_OK(T32(U, 4), "nn.pad", attrs("pad_width", pairs(2, (int64_t[]){1, 1, 0, 1}), NULL), 2, T32(U, 3), s);
  REL_OK(T32(2, 1), "nn.pad", attrs("pad_width", pairs(2, (int64_t[]){0, 0, -1, -1}), NULL), 2, x, s);
  REL_ERR("as many pad width pairs as shape dimensions but the shape has 2 dimensions and there are 1",
          "nn.pad", attrs("pad_width", pairs(1, (int64_t[]){1, 1}), NULL), 2, x, s);
  REL_ERR("there are 0 pad width pairs", "nn.pad", NULL, 2, x, s);
  REL_ERR("each pad width element should be a pair of ints but at index 0", "nn.pad",
          attrs("pad_width", a_list(2, (psg_attr *[]){INTS(1, 2, 3), INTS(0, 0)}), NULL), 2, x, s);
  REL_ERR("the pad value must be a scalar, got (1,)", "nn.pad",
          attrs("pad_width", pairs(2, (int64_t[]){1, 1, 1, 1}), NULL), 2, x, T32(1));
  REL_ERR("unknown pad_mode 'wrap'", "nn.pad",
          attrs("pad_width", pairs(2, (int64_t[]){1, 1, 1, 1}), "pad_mode", a_str("wrap"), NULL), 2, x, s);
  REL_ERR("reflect padding 3 on axis 1 must be smaller than its extent 3", "nn.pad",
          attrs("pad_width", pairs(2, (int64_t[]){0, 0, 3, 0}), "pad_mode", a_str("reflect"), NULL), 2, x, s);
  REL_ERR("output shape post padding should be positive but got -1", "nn.pad",
          attrs("pad_width", pairs(2, (int64_t[]){0, 0, -2, -2}), NULL), 2, x, s);

  psgi_value *y = eval("nn.pad", attrs("pad_width", pairs(1, (int64_t[]){2, 2}), NULL), 2, FV(D(3), 1, 2, 3),
                       fval(0, NULL, (float[]){9}));
  EXPECT(y, D(7), 9, 9, 1, 2, 3, 9, 9);
  psgi_value_release(y);
  y = eval("nn.pad", attrs("pad_width", pairs(1, (int64_t[]){2, 2}), "pad_mode", a_str("edge"), NULL), 2,
           FV(D(3), 1, 2, 3), fval(0, NULL, (float[]){9}));
  EXPECT(y, D(7), 1, 1, 1, 2, 3, 3, 3);
  psgi_value_release(y);
  y = eval("nn.pad", attrs("pad_width", pairs(1, (int64_t[]){2, 2}), "pad_mode", a_str("reflect"), NULL), 2,
           FV(D(3), 1, 2, 3), fval(0, NULL, (float[]){9}));
  EXPECT(y, D(7), 3, 2, 1, 2, 3, 2, 1);
  psgi_value_release(y);
  /* 2-D: rows and columns both mirrored. */
  y = eval("nn.pad", attrs("pad_width", pairs(2, (int64_t[]){1, 0, 0, 1}), "pad_mode", a_str("reflect"), NULL), 2,
           FV(D(2, 2), 1, 2, 3, 4), fval(0, NULL, (float[]){0}));
  EXPECT(y, D(3, 3), 3, 4, 3, 1, 2, 1, 3, 4, 3);
  psgi_value_release(y);
  y = eval("nn.pad", attrs("pad_width", pairs(2, (int64_t[]){1, 0, 0, 1}), NULL), 2, FV(D(2, 2), 1, 2, 3, 4),
           fval(0, NULL, (float[]){-1}));
  EXPECT(y, D(3, 3), -1, -1, -1, 1, 2, -1, 3, 4, -1);
  psgi_value_release(y);
  /* Negative widths crop. */
  y = eval("nn.pad", attrs("pad_width", pairs(1, (int64_t[]){-1, 1}), NULL), 2, FV(D(3), 1, 2, 3),
           fval(0, NULL, (float[]){7}));
  EXPECT(y, D(3), 2, 3, 7);
  psgi_value_release(y);
  /* An int8 tensor padded with a float pad value converted to int8. */
  {
    int8_t d[2] = {-3, 4};
    psg_tensor *t;
    psgi_value *v;
    CHECK_OK(psg_tensor_create(C, PSG_DTYPE_INT8, (int64_t[]){2}, 1, d, &t));
    CHECK_OK(psgi_value_tensor(C, t, &v));
    psg_tensor_release(t);
    y = eval("nn.pad", attrs("pad_width", pairs(1, (int64_t[]){1, 1}), NULL), 2, v, fval(0, NULL, (float[]){5}));
    psg_tensor *r = psgi_value_as_tensor(y);
    CHECK(r && r->dtype == PSG_DTYPE_INT8 && r->shape[0] == 4);
    if (r) CHECK(!memcmp(r->data, (int8_t[]){5, -3, 4, 5}, 4));
    psgi_value_release(y);
  }
}

/* Registration: TVM's patterns and statefulness for each op. */
static void test_registration(void) {
  struct {
    const char *name;
    int pattern;
    bool stateful;
  } want[] = {{"nn.conv2d", PSGI_PATTERN_OUT_ELEMWISE_FUSABLE, false},
              {"nn.conv2d_transpose", PSGI_PATTERN_OUT_ELEMWISE_FUSABLE, false},
              {"nn.dense", PSGI_PATTERN_OUT_ELEMWISE_FUSABLE, false},
              {"nn.matmul", PSGI_PATTERN_OUT_ELEMWISE_FUSABLE, false},
              {"nn.batch_matmul", PSGI_PATTERN_OUT_ELEMWISE_FUSABLE, false},
              {"nn.bias_add", PSGI_PATTERN_BROADCAST, false},
              {"nn.relu", PSGI_PATTERN_ELEMWISE, false},
              {"nn.leaky_relu", PSGI_PATTERN_ELEMWISE, false},
              {"nn.prelu", PSGI_PATTERN_BROADCAST, false},
              {"nn.softmax", PSGI_PATTERN_OUT_ELEMWISE_FUSABLE, false},
              {"nn.fast_softmax", PSGI_PATTERN_OUT_ELEMWISE_FUSABLE, false},
              {"nn.log_softmax", PSGI_PATTERN_OUT_ELEMWISE_FUSABLE, false},
              {"nn.dropout", PSGI_PATTERN_OPAQUE, true},
              {"nn.pad", PSGI_PATTERN_INJECTIVE, false},
              {"nn.batch_flatten", PSGI_PATTERN_INJECTIVE, false}};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    const psgi_op_impl *impl = impl_of(want[i].name);
    if (!impl) continue;
    CHECK_EQ_INT(impl->pattern, want[i].pattern);
    CHECK_EQ_INT(impl->stateful, want[i].stateful);
    CHECK(impl->type_rel && impl->kernel);
  }
}

/* End to end: text -> parse -> psg_eval with only nn ops. */
static void test_end_to_end(void) {
  static const char text[] =
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(1, 1, 3, 3), float32], %w: Tensor[(2, 1, 3, 3), float32], %b: Tensor[(2), float32]) {\n"
      "  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=2, kernel_size=[3, 3]);\n"
      "  %1 = nn.bias_add(%0, %b);\n"
      "  %2 = nn.relu(%1);\n"
      "  %3 = nn.batch_flatten(%2);\n"
      "  (nn.softmax(%3), nn.pad(%2, 5f, pad_width=[[0, 0], [0, 0], [1, 0], [0, 1]], pad_mode=\"constant\"))\n"
      "}\n";
  psg_module *m = NULL;
  psg_status st = psg_module_parse(C, text, sizeof text - 1, "e2e.relay", &m);
  CHECK_OK(st);
  if (st) {
    const psg_diag *d = psg_ctx_get_last_error(C);
    fprintf(stderr, "  parse: %s\n", d ? psg_diag_message(d) : "?");
    return;
  }
  /* Channel 0: a 3x3 box filter; channel 1: the identity. */
  float w[18] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0}, b[2] = {-20, -5};
  psg_tensor *in[3] = {NULL, NULL, NULL}, **outs = NULL;
  size_t nout = 0;
  CHECK_OK(psg_tensor_create(C, PSG_DTYPE_FLOAT32, (int64_t[]){1, 1, 3, 3}, 4, X9, &in[0]));
  CHECK_OK(psg_tensor_create(C, PSG_DTYPE_FLOAT32, (int64_t[]){2, 1, 3, 3}, 4, w, &in[1]));
  CHECK_OK(psg_tensor_create(C, PSG_DTYPE_FLOAT32, (int64_t[]){2}, 1, b, &in[2]));
  st = psg_eval(C, m, "main", in, 3, &outs, &nout);
  CHECK_OK(st);
  if (st) {
    const psg_diag *d = psg_ctx_get_last_error(C);
    fprintf(stderr, "  eval: %s\n", d ? psg_diag_message(d) : "?");
  }
  CHECK_EQ_INT(nout, 2);
  if (!st && nout == 2) {
    /* relu(conv + bias) by hand. */
    float r[18] = {0, 1, 0, 7, 25, 13, 4, 19, 8, 0, 0, 0, 0, 0, 1, 2, 3, 4};
    double sum = 0, e[18];
    for (int i = 0; i < 18; i++) sum += e[i] = exp(r[i] - 25.0);
    CHECK_EQ_INT(psg_tensor_ndim(outs[0]), 2);
    CHECK_EQ_INT(psg_tensor_dim(outs[0], 1), 18);
    const float *sm = psg_tensor_data(outs[0]);
    int bad = 0;
    for (int i = 0; i < 18; i++) bad += fabs(sm[i] - e[i] / sum) > 1e-6;
    CHECK_EQ_INT(bad, 0);
    /* pad: a row of 5s on top, a column of 5s on the right. */
    CHECK_EQ_INT(psg_tensor_dim(outs[1], 2), 4);
    CHECK_EQ_INT(psg_tensor_dim(outs[1], 3), 4);
    const float *pd = psg_tensor_data(outs[1]);
    float want[32] = {5, 5, 5, 5, 0, 1, 0, 5, 7, 25, 13, 5, 4, 19, 8, 5, 5, 5, 5, 5, 0, 0, 0, 5, 0, 1, 2, 5, 3, 4, 0, 5};
    /* channel 1 after relu(x - 5): 0 0 0 / 0 0 1 / 2 3 4 */
    float ch1[16] = {5, 5, 5, 5, 0, 0, 0, 5, 0, 0, 1, 5, 2, 3, 4, 5};
    memcpy(want + 16, ch1, sizeof ch1);
    bad = 0;
    for (int i = 0; i < 32; i++) bad += pd[i] != want[i];
    CHECK_EQ_INT(bad, 0);
  }
  for (size_t i = 0; i < nout; i++) psg_tensor_release(outs[i]);
  psg_free(outs);
  for (int i = 0; i < 3; i++) psg_tensor_release(in[i]);
  psg_module_release(m);
}

int main(void) {
  C = check_ctx();
  RUN_TEST(test_registration);
  RUN_TEST(test_conv2d_rel);
  RUN_TEST(test_conv2d_kernel);
  RUN_TEST(test_conv2d_layouts);
  RUN_TEST(test_conv2d_transpose);
  RUN_TEST(test_dense_matmul);
  RUN_TEST(test_batch_matmul);
  RUN_TEST(test_activations);
  RUN_TEST(test_bias_add);
  RUN_TEST(test_softmax);
  RUN_TEST(test_dropout_flatten);
  RUN_TEST(test_pad);
  RUN_TEST(test_end_to_end);
  CHECK_CTX_CLEAN(C);
  return check_finish();
}
