/* Passage — the reduce and image op families (src/ops/reduce.c, image.c):
 * TVM's reduction axis rules (None/[] = all, negative, keepdims, exclude,
 * int32 arg indices) and image.resize2d's sampling modes, as type relations,
 * error messages and kernels against hand-computed values; end to end
 * through psg_module_parse and psg_eval. */
#include "ops_check.h"

#define F32 PSG_DTYPE_FLOAT32

static psg_attrs *axes_attrs(psg_ctx *ctx, int n, int a0, int a1, bool keepdims, bool exclude) {
  ab b = ab_init(ctx);
  if (n == 1) ab_ints(&b, "axis", 1, a0);
  if (n == 2) ab_ints(&b, "axis", 2, a0, a1);
  if (n == 0) ab_ints(&b, "axis", 0);
  ab_bool(&b, "keepdims", keepdims);
  ab_bool(&b, "exclude", exclude);
  return ab_done(&b);
}

static void test_reduce_rel(void) {
  psg_ctx *ctx = check_ctx();
  char msg[512];
  const psg_type *out, *t = ty(ctx, F32, 3, 2, 3, 4);
  psg_attrs *a = axes_attrs(ctx, 1, 1, 0, false, false);
  CHECK_OK(rel(ctx, "sum", a, &t, 1, &out, msg));
  CHECK(type_is(out, F32, 2, 2, 4));
  psg_attrs_release(a);
  a = axes_attrs(ctx, 1, -1, 0, true, false);
  CHECK_OK(rel(ctx, "mean", a, &t, 1, &out, msg));
  CHECK(type_is(out, F32, 3, 2, 3, 1));
  psg_attrs_release(a);
  a = axes_attrs(ctx, 2, 2, 0, false, true); /* exclude: reduce axis 1 only */
  CHECK_OK(rel(ctx, "max", a, &t, 1, &out, msg));
  CHECK(type_is(out, F32, 2, 2, 4));
  psg_attrs_release(a);
  /* No axis and an empty list both reduce every axis, as TVM. */
  CHECK_OK(rel(ctx, "min", NULL, &t, 1, &out, msg));
  CHECK(type_is(out, F32, 0));
  a = axes_attrs(ctx, 0, 0, 0, true, true);
  CHECK_OK(rel(ctx, "prod", a, &t, 1, &out, msg));
  CHECK(type_is(out, F32, 3, 1, 1, 1));
  psg_attrs_release(a);
  /* argmax/argmin give int32 indices. */
  a = axes_attrs(ctx, 1, 0, 0, false, false);
  CHECK_OK(rel(ctx, "argmax", a, &t, 1, &out, msg));
  CHECK(type_is(out, PSG_DTYPE_INT32, 2, 3, 4));
  CHECK_OK(rel(ctx, "argmin", a, &t, 1, &out, msg));
  CHECK(type_is(out, PSG_DTYPE_INT32, 2, 3, 4));
  psg_attrs_release(a);
  /* Unknown dims propagate. */
  const psg_type *u = ty(ctx, F32, 3, -1, 3, -1);
  a = axes_attrs(ctx, 1, 1, 0, false, false);
  CHECK_OK(rel(ctx, "sum", a, &u, 1, &out, msg));
  CHECK(type_is(out, F32, 2, -1, -1));
  psg_attrs_release(a);
  /* Errors. */
  a = axes_attrs(ctx, 1, 3, 0, false, false);
  CHECK_EQ_INT(rel(ctx, "sum", a, &t, 1, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "sum: axis 3 is out of bounds for an input of rank 3");
  psg_attrs_release(a);
  a = axes_attrs(ctx, 1, -4, 0, false, false);
  CHECK_EQ_INT(rel(ctx, "mean", a, &t, 1, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "axis -4 is out of bounds");
  psg_attrs_release(a);
  a = axes_attrs(ctx, 2, 1, -2, false, false);
  CHECK_EQ_INT(rel(ctx, "max", a, &t, 1, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "axis 1 is given twice");
  psg_attrs_release(a);
  const psg_type *tup = NULL;
  CHECK_OK(psg_type_tuple(ctx, &t, 1, &tup));
  CHECK_EQ_INT(rel(ctx, "sum", NULL, &tup, 1, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "must be a tensor");
  const psg_type *huge = ty(ctx, F32, 2, 65536, 65536);
  CHECK_EQ_INT(rel(ctx, "argmax", NULL, &huge, 1, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "does not fit the int32 index");
  CHECK_EQ_INT(psgi_op_impl_get(op_id("sum"))->pattern, PSGI_PATTERN_COMM_REDUCE);
  CHECK_EQ_INT(psgi_op_impl_get(op_id("argmax"))->pattern, PSGI_PATTERN_COMM_REDUCE);
  CHECK_CTX_CLEAN(ctx);
}

static void test_reduce_kernels(void) {
  psg_ctx *ctx = check_ctx();
  char msg[512];
  int64_t d[2] = {2, 3}, r2[1] = {2}, r3[1] = {3};
  psgi_value *x = valf(ctx, d, 2, (double[]){1, 5, 3, 4, 2, 6}), *r;
  psg_attrs *a1 = axes_attrs(ctx, 1, 1, 0, false, false), *a0k = axes_attrs(ctx, 1, 0, 0, true, false);
  psg_attrs *ex = axes_attrs(ctx, 1, 1, 0, false, true);
  r = run_op(ctx, "sum", a1, &x, 1, msg);
  CHECK_TENSOR(r, r2, 1, ((double[]){9, 12}), 0);
  psgi_value_release(r);
  r = run_op(ctx, "sum", NULL, &x, 1, msg);
  CHECK_TENSOR(r, NULL, 0, ((double[]){21}), 0);
  psgi_value_release(r);
  r = run_op(ctx, "mean", a0k, &x, 1, msg);
  CHECK_TENSOR(r, ((int64_t[]){1, 3}), 2, ((double[]){2.5, 3.5, 4.5}), 1e-7);
  psgi_value_release(r);
  r = run_op(ctx, "max", a1, &x, 1, msg);
  CHECK_TENSOR(r, r2, 1, ((double[]){5, 6}), 0);
  psgi_value_release(r);
  r = run_op(ctx, "min", ex, &x, 1, msg); /* exclude axis 1: reduce axis 0 */
  CHECK_TENSOR(r, r3, 1, ((double[]){1, 2, 3}), 0);
  psgi_value_release(r);
  r = run_op(ctx, "prod", a1, &x, 1, msg);
  CHECK_TENSOR(r, r2, 1, ((double[]){15, 48}), 0);
  psgi_value_release(r);
  r = run_op(ctx, "argmax", a1, &x, 1, msg);
  CHECK(r && psgi_value_as_tensor(r)->dtype == PSG_DTYPE_INT32);
  CHECK_TENSOR(r, r2, 1, ((double[]){1, 2}), 0);
  psgi_value_release(r);
  r = run_op(ctx, "argmin", ex, &x, 1, msg);
  CHECK_TENSOR(r, r3, 1, ((double[]){0, 1, 0}), 0);
  psgi_value_release(r);
  /* argmax over all axes: the flat index. */
  r = run_op(ctx, "argmax", NULL, &x, 1, msg);
  CHECK_TENSOR(r, NULL, 0, ((double[]){5}), 0);
  psgi_value_release(r);
  psgi_value_release(x);
  /* Ties: the first index, or the last with select_last_index. */
  x = valf(ctx, r3, 1, (double[]){3, 1, 3});
  r = run_op(ctx, "argmax", NULL, &x, 1, msg);
  CHECK_TENSOR(r, NULL, 0, ((double[]){0}), 0);
  psgi_value_release(r);
  ab b = ab_init(ctx);
  ab_bool(&b, "select_last_index", true);
  psg_attrs *last = ab_done(&b);
  r = run_op(ctx, "argmax", last, &x, 1, msg);
  CHECK_TENSOR(r, NULL, 0, ((double[]){2}), 0);
  psgi_value_release(r);
  psg_attrs_release(last);
  psgi_value_release(x);
  /* Integers: exact sums, truncating mean; max of -inf is -inf. */
  x = val(ctx, PSG_DTYPE_INT32, d, 2, (double[]){1, 2, 4, -7, 0, 0});
  r = run_op(ctx, "sum", a1, &x, 1, msg);
  CHECK(r && psgi_value_as_tensor(r)->dtype == PSG_DTYPE_INT32);
  CHECK_TENSOR(r, r2, 1, ((double[]){7, -7}), 0);
  psgi_value_release(r);
  r = run_op(ctx, "mean", a1, &x, 1, msg);
  CHECK_TENSOR(r, r2, 1, ((double[]){2, -2}), 0);
  psgi_value_release(r);
  psgi_value_release(x);
  x = valf(ctx, r2, 1, (double[]){-INFINITY, -INFINITY});
  r = run_op(ctx, "max", NULL, &x, 1, msg);
  CHECK_TENSOR(r, NULL, 0, ((double[]){-INFINITY}), 0);
  psgi_value_release(r);
  psgi_value_release(x);
  /* A float32 sum keeps what float accumulation would lose: 1e8 + 1 + 1 - 1e8. */
  x = valf(ctx, ((int64_t[]){4}), 1, (double[]){1e8, 1, 1, -1e8});
  r = run_op(ctx, "sum", NULL, &x, 1, msg);
  CHECK_TENSOR(r, NULL, 0, ((double[]){2}), 0);
  psgi_value_release(r);
  psgi_value_release(x);
  psg_attrs_release(a1);
  psg_attrs_release(a0k);
  psg_attrs_release(ex);
  CHECK_CTX_CLEAN(ctx);
}

static psgi_value *resize(psg_ctx *ctx, psgi_value *x, int oh, int ow, const char *method, const char *coord,
                          const char *rounding) {
  char msg[512];
  ab b = ab_init(ctx);
  ab_ints(&b, "size", 2, oh, ow);
  ab_str(&b, "method", method);
  ab_str(&b, "coordinate_transformation_mode", coord);
  if (rounding) ab_str(&b, "rounding_method", rounding);
  ab_float(&b, "cubic_alpha", -0.75);
  psg_attrs *a = ab_done(&b);
  psgi_value *r = run_op(ctx, "image.resize2d", a, &x, 1, msg);
  if (!r) fprintf(stderr, "resize: %s\n", msg);
  psg_attrs_release(a);
  return r;
}

static void test_resize_kernels(void) {
  psg_ctx *ctx = check_ctx();
  int64_t d2[4] = {1, 1, 2, 2}, d4[4] = {1, 1, 4, 4};
  psgi_value *x = valf(ctx, d2, 4, (double[]){1, 2, 3, 4}), *r;
  r = resize(ctx, x, 4, 4, "nearest_neighbor", "asymmetric", "floor");
  CHECK_TENSOR(r, d4, 4, ((double[]){1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}), 0);
  psgi_value_release(r);
  /* half_pixel sources -0.25, 0.25, 0.75, 1.25 (clamped at the edges). */
  r = resize(ctx, x, 4, 4, "linear", "half_pixel", NULL);
  CHECK_TENSOR(r, d4, 4,
               ((double[]){1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4}),
               1e-6);
  psgi_value_release(r);
  /* align_corners sources 0, 1/3, 2/3, 1. */
  double t = 1.0 / 3;
  r = resize(ctx, x, 4, 4, "linear", "align_corners", NULL);
  CHECK_TENSOR(r, d4, 4,
               ((double[]){1, 1 + t, 1 + 2 * t, 2, 1 + 2 * t, 2, 2 + t, 2 + 2 * t, 2 + t, 2 + 2 * t, 3, 3 + t,
                           3, 3 + t, 3 + 2 * t, 4}),
               1e-6);
  psgi_value_release(r);
  /* Nearest, half_pixel: round_prefer_ceil takes 1 at source 0.75 and 1.25. */
  r = resize(ctx, x, 1, 4, "nearest_neighbor", "half_pixel", "round_prefer_ceil");
  CHECK_TENSOR(r, ((int64_t[]){1, 1, 1, 4}), 4, ((double[]){3, 3, 4, 4}), 0);
  psgi_value_release(r);
  /* round_prefer_floor at source 0.5 (asymmetric, 2 -> 4 gives 0, 0.5, 1, 1.5). */
  r = resize(ctx, x, 1, 4, "nearest_neighbor", "asymmetric", "round_prefer_floor");
  CHECK_TENSOR(r, ((int64_t[]){1, 1, 1, 4}), 4, ((double[]){1, 1, 2, 2}), 0);
  psgi_value_release(r);
  r = resize(ctx, x, 1, 4, "nearest_neighbor", "asymmetric", "ceil");
  CHECK_TENSOR(r, ((int64_t[]){1, 1, 1, 4}), 4, ((double[]){1, 2, 2, 2}), 0);
  psgi_value_release(r);
  psgi_value_release(x);
  /* Cubic (alpha -0.75), asymmetric, 4 -> 8 on a ramp: source 0.5 clamps the
   * tap at -1 (0.40625), source 1.5 is exact (1.5). */
  int64_t d1[4] = {1, 1, 1, 4};
  x = valf(ctx, d1, 4, (double[]){0, 1, 2, 3});
  r = resize(ctx, x, 1, 8, "cubic", "asymmetric", NULL);
  psg_tensor *rt = psgi_value_as_tensor(r);
  CHECK(rt && fabs(psgi_load_f(F32, rt->data, 1) - 0.40625) < 1e-6);
  CHECK(rt && fabs(psgi_load_f(F32, rt->data, 3) - 1.5) < 1e-6);
  CHECK(rt && fabs(psgi_load_f(F32, rt->data, 2) - 1) < 1e-6);
  psgi_value_release(r);
  psgi_value_release(x);
  /* tf_crop_and_resize: roi (0, 0, 2, 2) samples past the image, which gives
   * extrapolation_value. */
  char msg[512];
  x = valf(ctx, d2, 4, (double[]){1, 2, 3, 4});
  ab b = ab_init(ctx);
  ab_ints(&b, "size", 2, 3, 3);
  ab_str(&b, "method", "nearest_neighbor");
  ab_str(&b, "coordinate_transformation_mode", "tf_crop_and_resize");
  ab_floats(&b, "roi", 4, 0.0, 0.0, 2.0, 2.0);
  ab_float(&b, "extrapolation_value", 9);
  psg_attrs *a = ab_done(&b);
  r = run_op(ctx, "image.resize2d", a, &x, 1, msg);
  CHECK_TENSOR(r, ((int64_t[]){1, 1, 3, 3}), 4, ((double[]){1, 2, 9, 3, 4, 9, 9, 9, 9}), 0);
  psgi_value_release(r);
  psg_attrs_release(a);
  psgi_value_release(x);
  CHECK_CTX_CLEAN(ctx);
}

static void test_resize_rel(void) {
  psg_ctx *ctx = check_ctx();
  char msg[512];
  const psg_type *out, *t = ty(ctx, F32, 4, -1, 3, 5, 5);
  ab b = ab_init(ctx);
  ab_ints(&b, "size", 2, 10, 20);
  psg_attrs *a = ab_done(&b);
  CHECK_OK(rel(ctx, "image.resize2d", a, &t, 1, &out, msg));
  CHECK(type_is(out, F32, 4, -1, 3, 10, 20));
  psg_attrs_release(a);
  ab_ints(&b, "size", 2, 10, 20);
  ab_str(&b, "layout", "NHWC");
  ab_str(&b, "out_dtype", "float16");
  a = ab_done(&b);
  CHECK_OK(rel(ctx, "image.resize2d", a, &t, 1, &out, msg));
  CHECK(type_is(out, PSG_DTYPE_FLOAT16, 4, -1, 10, 20, 5));
  psg_attrs_release(a);
  CHECK_EQ_INT(rel(ctx, "image.resize2d", NULL, &t, 1, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "size must be 2 positive ints");
  ab_ints(&b, "size", 2, 10, 20);
  ab_str(&b, "method", "area");
  a = ab_done(&b);
  CHECK_EQ_INT(rel(ctx, "image.resize2d", a, &t, 1, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "unknown method 'area'");
  psg_attrs_release(a);
  ab_ints(&b, "size", 2, 10, 20);
  ab_str(&b, "coordinate_transformation_mode", "half_pixels");
  a = ab_done(&b);
  CHECK_EQ_INT(rel(ctx, "image.resize2d", a, &t, 1, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "unknown coordinate_transformation_mode 'half_pixels'");
  psg_attrs_release(a);
  ab_ints(&b, "size", 2, 10, 20);
  ab_str(&b, "rounding_method", "nearest");
  a = ab_done(&b);
  CHECK_EQ_INT(rel(ctx, "image.resize2d", a, &t, 1, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "unknown rounding_method 'nearest'");
  psg_attrs_release(a);
  ab_ints(&b, "size", 2, 10, 20);
  ab_str(&b, "coordinate_transformation_mode", "tf_crop_and_resize");
  a = ab_done(&b);
  CHECK_EQ_INT(rel(ctx, "image.resize2d", a, &t, 1, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "tf_crop_and_resize needs roi");
  psg_attrs_release(a);
  const psg_type *r3 = ty(ctx, F32, 3, 3, 5, 5);
  ab_ints(&b, "size", 2, 10, 20);
  a = ab_done(&b);
  CHECK_EQ_INT(rel(ctx, "image.resize2d", a, &r3, 1, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "layout 'NCHW' has 4 axes but the data has rank 3");
  psg_attrs_release(a);
  CHECK_EQ_INT(psgi_op_impl_get(op_id("image.resize2d"))->pattern, PSGI_PATTERN_INJECTIVE);
  CHECK_CTX_CLEAN(ctx);
}

static void test_end_to_end(void) {
  psg_ctx *ctx = check_ctx();
  const char *text =
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(1, 1, 2, 2), float32]) {\n"
      "  %0 = image.resize2d(%x, size=[4, 4], method=\"linear\", coordinate_transformation_mode=\"align_corners\");\n"
      "  %1 = sum(%0, axis=[2], keepdims=True);\n"
      "  %2 = mean(%0, axis=[-1]);\n"
      "  %3 = argmax(%0, axis=[3], exclude=True);\n" /* over rows: the last row wins */
      "  (%1, %2, %3)\n"
      "}\n";
  psg_tensor *in = NULL;
  CHECK_OK(psg_tensor_create(ctx, F32, ((int64_t[]){1, 1, 2, 2}), 4, (float[]){1, 2, 3, 4}, &in));
  size_t n = 0;
  psg_tensor **outs = eval_text(ctx, text, &in, 1, &n);
  CHECK_EQ_INT(n, 3);
  if (outs && n == 3) {
    /* Columns of the align_corners upsample sum to 4 * (2 + column offset). */
    double t = 1.0 / 3;
    CHECK(tensor_close(outs[0], ((int64_t[]){1, 1, 1, 4}), 4, ((double[]){8, 8 + 4 * t, 8 + 8 * t, 12}), 1e-5,
                       "sum"));
    CHECK(tensor_close(outs[1], ((int64_t[]){1, 1, 4}), 3, ((double[]){1.5, 1.5 + 2 * t, 1.5 + 4 * t, 3.5}), 1e-5,
                       "mean"));
    CHECK(psg_tensor_dtype(outs[2]) == PSG_DTYPE_INT32);
    CHECK(tensor_close(outs[2], ((int64_t[]){4}), 1, ((double[]){3, 3, 3, 3}), 0, "argmax"));
  }
  free_outputs(outs, n);
  psg_tensor_release(in);
  CHECK_CTX_CLEAN(ctx);
}

/* kernel_util: a float too large for int64 saturates (the int64 bound as a
 * double is 2^63, which used to wrap to INT64_MIN). */
static void test_int64_store_saturates(void) {
  int64_t v[2] = {0, 0};
  psgi_store_f(PSG_DTYPE_INT64, v, 0, 1e19);
  psgi_store_f(PSG_DTYPE_INT64, v, 1, -1e19);
  CHECK(v[0] == INT64_MAX);
  CHECK(v[1] == INT64_MIN);
}

int main(void) {
  RUN_TEST(test_int64_store_saturates);
  RUN_TEST(test_reduce_rel);
  RUN_TEST(test_reduce_kernels);
  RUN_TEST(test_resize_rel);
  RUN_TEST(test_resize_kernels);
  RUN_TEST(test_end_to_end);
  return check_finish();
}
