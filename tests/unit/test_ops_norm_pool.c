/* Passage — the norm and pool op families (src/ops/norm.c, pool.c): type
 * relations as TVM's (shapes, unknown dims, error messages), TOpPattern, and
 * kernels against hand-computed values; an end-to-end parse + psg_eval. */
#include "ops_check.h"

#define F32 PSG_DTYPE_FLOAT32

static void test_patterns(void) {
  CHECK_EQ_INT(psgi_op_impl_get(op_id("nn.batch_norm"))->pattern, PSGI_PATTERN_OUT_ELEMWISE_FUSABLE);
  CHECK_EQ_INT(psgi_op_impl_get(op_id("nn.layer_norm"))->pattern, PSGI_PATTERN_OPAQUE);
  CHECK_EQ_INT(psgi_op_impl_get(op_id("nn.lrn"))->pattern, PSGI_PATTERN_OPAQUE);
  CHECK_EQ_INT(psgi_op_impl_get(op_id("nn.l2_normalize"))->pattern, PSGI_PATTERN_OUT_ELEMWISE_FUSABLE);
  CHECK_EQ_INT(psgi_op_impl_get(op_id("nn.max_pool2d"))->pattern, PSGI_PATTERN_OUT_ELEMWISE_FUSABLE);
  CHECK_EQ_INT(psgi_op_impl_get(op_id("nn.global_avg_pool2d"))->pattern, PSGI_PATTERN_OUT_ELEMWISE_FUSABLE);
  CHECK_EQ_INT(psgi_op_impl_get(op_id("nn.upsampling"))->pattern, PSGI_PATTERN_INJECTIVE);
  CHECK_EQ_INT(psgi_op_impl_get(op_id("nn.depth_to_space"))->pattern, PSGI_PATTERN_INJECTIVE);
  CHECK(!psgi_op_impl_get(op_id("nn.batch_norm"))->stateful);
}

static void test_batch_norm_rel(void) {
  psg_ctx *ctx = check_ctx();
  char msg[512];
  const psg_type *out, *c3 = ty(ctx, F32, 1, 3);
  const psg_type *args[5] = {ty(ctx, F32, 4, 2, 3, 4, 4), c3, c3, c3, c3};
  CHECK_OK(rel(ctx, "nn.batch_norm", NULL, args, 5, &out, msg));
  CHECK(out && psg_type_kind(out) == PSG_TYPE_TUPLE && psg_type_num_fields(out) == 3);
  if (out && psg_type_kind(out) == PSG_TYPE_TUPLE) {
    CHECK(type_is(psg_type_field(out, 0), F32, 4, 2, 3, 4, 4));
    CHECK(type_is(psg_type_field(out, 1), F32, 1, 3));
    CHECK(type_is(psg_type_field(out, 2), F32, 1, 3));
  }
  args[1] = ty(ctx, F32, 1, 4);
  CHECK_EQ_INT(rel(ctx, "nn.batch_norm", NULL, args, 5, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "nn.batch_norm: gamma has shape (4,) but channel axis 1 has 3");
  args[1] = c3;
  args[4] = ty(ctx, PSG_DTYPE_FLOAT16, 1, 3);
  CHECK_EQ_INT(rel(ctx, "nn.batch_norm", NULL, args, 5, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "moving_var has dtype float16");
  args[4] = c3;
  /* axis -1: the last axis is the channel (4 here). */
  ab b = ab_init(ctx);
  ab_int(&b, "axis", -1);
  psg_attrs *a = ab_done(&b);
  CHECK_EQ_INT(rel(ctx, "nn.batch_norm", a, args, 5, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "channel axis 3 has 4");
  psg_attrs_release(a);
  ab_int(&b, "axis", 4);
  a = ab_done(&b);
  CHECK_EQ_INT(rel(ctx, "nn.batch_norm", a, args, 5, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "axis 4 is out of range");
  psg_attrs_release(a);
  /* Unknown dims propagate; an unknown channel accepts any parameter length. */
  args[0] = ty(ctx, F32, 4, -1, 3, -1, -1);
  CHECK_OK(rel(ctx, "nn.batch_norm", NULL, args, 5, &out, msg));
  CHECK(out && type_is(psg_type_field(out, 0), F32, 4, -1, 3, -1, -1));
  args[0] = ty(ctx, F32, 2, 2, -1);
  CHECK_OK(rel(ctx, "nn.batch_norm", NULL, args, 5, &out, msg));
  CHECK(out && type_is(psg_type_field(out, 1), F32, 1, -1));
  CHECK_EQ_INT(rel(ctx, "nn.batch_norm", NULL, args, 4, &out, msg), PSG_ERR_TYPE);
  CHECK_CTX_CLEAN(ctx);
}

static void test_batch_norm_kernel(void) {
  psg_ctx *ctx = check_ctx();
  char msg[512];
  int64_t xd[4] = {1, 2, 1, 2}, cd[1] = {2};
  psgi_value *args[5] = {
      valf(ctx, xd, 4, (double[]){1, 2, 3, 4}), valf(ctx, cd, 1, (double[]){1, 2}),
      valf(ctx, cd, 1, (double[]){0.5, -1}), valf(ctx, cd, 1, (double[]){1, 2}),
      valf(ctx, cd, 1, (double[]){4, 0.25})};
  ab b = ab_init(ctx);
  ab_float(&b, "epsilon", 0);
  psg_attrs *a = ab_done(&b);
  /* (x - mean) / sqrt(var + eps) * gamma + beta, per channel. */
  psgi_value *r = run_op(ctx, "nn.batch_norm", a, args, 5, msg);
  CHECK(r && r->kind == PSGI_VALUE_TUPLE && r->u.tuple.n == 3);
  if (r && r->kind == PSGI_VALUE_TUPLE) {
    CHECK_TENSOR(r->u.tuple.items[0], xd, 4, ((double[]){0.5, 1.0, 3, 7}), 1e-6);
    CHECK_TENSOR(r->u.tuple.items[1], cd, 1, ((double[]){1, 2}), 0);
    CHECK_TENSOR(r->u.tuple.items[2], cd, 1, ((double[]){4, 0.25}), 0);
  }
  psgi_value_release(r);
  psg_attrs_release(a);
  /* center=false drops beta, scale=false drops gamma; default epsilon 1e-5. */
  ab_bool(&b, "center", false);
  ab_bool(&b, "scale", false);
  a = ab_done(&b);
  r = run_op(ctx, "nn.batch_norm", a, args, 5, msg);
  if (r) CHECK_TENSOR(r->u.tuple.items[0], xd, 4,
                      ((double[]){0, 1 / sqrt(4 + 1e-5), 1 / sqrt(0.25 + 1e-5), 2 / sqrt(0.25 + 1e-5)}), 1e-6);
  psgi_value_release(r);
  psg_attrs_release(a);
  for (int i = 0; i < 5; i++) psgi_value_release(args[i]);
  CHECK_CTX_CLEAN(ctx);
}

static void test_layer_instance_group_norm(void) {
  psg_ctx *ctx = check_ctx();
  char msg[512];
  const psg_type *out, *args[3] = {ty(ctx, F32, 2, 2, 3), ty(ctx, F32, 1, 3), ty(ctx, F32, 1, 3)};
  CHECK_OK(rel(ctx, "nn.layer_norm", NULL, args, 3, &out, msg));
  CHECK(type_is(out, F32, 2, 2, 3));
  args[1] = ty(ctx, F32, 1, 2);
  CHECK_EQ_INT(rel(ctx, "nn.layer_norm", NULL, args, 3, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "nn.layer_norm: gamma has shape (2,) but channel axis 1 has 3");
  CHECK_EQ_INT(rel(ctx, "nn.instance_norm", NULL, args, 3, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "rank > 2");

  int64_t xd[2] = {2, 3}, cd[1] = {3};
  psgi_value *v[3] = {valf(ctx, xd, 2, (double[]){1, 2, 3, 2, 4, 6}), valf(ctx, cd, 1, (double[]){1, 2, 3}),
                      valf(ctx, cd, 1, (double[]){0, 1, 0})};
  ab b = ab_init(ctx);
  ab_float(&b, "epsilon", 0);
  psg_attrs *a = ab_done(&b);
  /* Both rows normalize to (-1, 0, 1) * sqrt(3/2), then gamma and beta. */
  double k = sqrt(1.5);
  psgi_value *r = run_op(ctx, "nn.layer_norm", a, v, 3, msg);
  CHECK_TENSOR(r, xd, 2, ((double[]){-k, 1, 3 * k, -k, 1, 3 * k}), 1e-6);
  psgi_value_release(r);
  for (int i = 0; i < 3; i++) psgi_value_release(v[i]);

  /* instance_norm on (1, 2, 2): per channel over the last axis. */
  int64_t id[3] = {1, 2, 2}, c2[1] = {2};
  v[0] = valf(ctx, id, 3, (double[]){1, 3, 10, 30});
  v[1] = valf(ctx, c2, 1, (double[]){1, 2});
  v[2] = valf(ctx, c2, 1, (double[]){0, 5});
  r = run_op(ctx, "nn.instance_norm", a, v, 3, msg);
  CHECK_TENSOR(r, id, 3, ((double[]){-1, 1, 3, 7}), 1e-6);
  psgi_value_release(r);
  for (int i = 0; i < 3; i++) psgi_value_release(v[i]);
  psg_attrs_release(a);

  /* group_norm: channels (1, 3 | 2, 6) in 2 groups -> (-1, 1 | -1, 1). */
  int64_t gd[4] = {1, 4, 1, 1}, c4[1] = {4};
  v[0] = valf(ctx, gd, 4, (double[]){1, 3, 2, 6});
  v[1] = valf(ctx, c4, 1, (double[]){1, 1, 1, 2});
  v[2] = valf(ctx, c4, 1, (double[]){0, 0, 0, 0});
  ab_int(&b, "num_groups", 2);
  ab_float(&b, "epsilon", 0);
  a = ab_done(&b);
  r = run_op(ctx, "nn.group_norm", a, v, 3, msg);
  CHECK_TENSOR(r, gd, 4, ((double[]){-1, 1, -1, 2}), 1e-6);
  psgi_value_release(r);
  psg_attrs_release(a);
  ab_int(&b, "num_groups", 3);
  a = ab_done(&b);
  const psg_type *gargs[3] = {ty(ctx, F32, 4, 1, 4, 1, 1), ty(ctx, F32, 1, 4), ty(ctx, F32, 1, 4)};
  CHECK_EQ_INT(rel(ctx, "nn.group_norm", a, gargs, 3, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "4 channels do not split into 3 groups");
  psg_attrs_release(a);
  for (int i = 0; i < 3; i++) psgi_value_release(v[i]);
  CHECK_CTX_CLEAN(ctx);
}

static void test_l2_normalize_lrn(void) {
  psg_ctx *ctx = check_ctx();
  char msg[512];
  int64_t d[2] = {2, 2};
  psgi_value *x = valf(ctx, d, 2, (double[]){3, 4, 0, 0});
  ab b = ab_init(ctx);
  ab_ints(&b, "axis", 1, 1);
  ab_float(&b, "eps", 1e-4);
  psg_attrs *a = ab_done(&b);
  /* x / sqrt(max(sum(x^2), eps)): the zero row stays zero. */
  psgi_value *r = run_op(ctx, "nn.l2_normalize", a, &x, 1, msg);
  CHECK_TENSOR(r, d, 2, ((double[]){0.6, 0.8, 0, 0}), 1e-6);
  psgi_value_release(r);
  psg_attrs_release(a);
  ab_ints(&b, "axis", 1, 2);
  a = ab_done(&b);
  const psg_type *out, *t = ty(ctx, F32, 2, 2, 2);
  CHECK_EQ_INT(rel(ctx, "nn.l2_normalize", a, &t, 1, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "axis 2 is out of range");
  psg_attrs_release(a);
  psgi_value_release(x);

  /* lrn, size 3, alpha/size = 1, beta 1, bias 1: x / (1 + window sum of x^2). */
  int64_t ld[4] = {1, 3, 1, 1};
  x = valf(ctx, ld, 4, (double[]){1, 2, 3});
  ab_int(&b, "size", 3);
  ab_float(&b, "alpha", 3);
  ab_float(&b, "beta", 1);
  ab_float(&b, "bias", 1);
  a = ab_done(&b);
  r = run_op(ctx, "nn.lrn", a, &x, 1, msg);
  CHECK_TENSOR(r, ld, 4, ((double[]){1.0 / 6, 2.0 / 15, 3.0 / 14}), 1e-6);
  psgi_value_release(r);
  psg_attrs_release(a);
  psgi_value_release(x);
  CHECK_CTX_CLEAN(ctx);
}

static void test_pool_rel(void) {
  psg_ctx *ctx = check_ctx();
  char msg[512];
  const psg_type *out, *t = ty(ctx, F32, 4, 1, 3, 5, 5);
  ab b = ab_init(ctx);
  ab_ints(&b, "pool_size", 2, 2, 2);
  ab_ints(&b, "strides", 2, 2, 2);
  psg_attrs *a = ab_done(&b);
  CHECK_OK(rel(ctx, "nn.max_pool2d", a, &t, 1, &out, msg));
  CHECK(type_is(out, F32, 4, 1, 3, 2, 2));
  psg_attrs_release(a);
  ab_ints(&b, "pool_size", 2, 2, 2);
  ab_ints(&b, "strides", 2, 2, 2);
  ab_bool(&b, "ceil_mode", true);
  a = ab_done(&b);
  CHECK_OK(rel(ctx, "nn.avg_pool2d", a, &t, 1, &out, msg));
  CHECK(type_is(out, F32, 4, 1, 3, 3, 3));
  psg_attrs_release(a);
  /* padding (top, left, bottom, right), dilation 2: H 5+1+0-3+1 = 4, W 5+0+2-3+1 = 5. */
  ab_ints(&b, "pool_size", 1, 2);
  ab_ints(&b, "dilation", 2, 2, 2);
  ab_ints(&b, "padding", 4, 1, 0, 0, 2);
  a = ab_done(&b);
  CHECK_OK(rel(ctx, "nn.max_pool2d", a, &t, 1, &out, msg));
  CHECK(type_is(out, F32, 4, 1, 3, 4, 5));
  psg_attrs_release(a);
  /* NHWC, padding (h, w) = (1, 0); unknown H stays unknown. */
  const psg_type *nhwc = ty(ctx, F32, 4, 1, -1, 4, 3);
  ab_ints(&b, "pool_size", 2, 3, 3);
  ab_ints(&b, "padding", 2, 1, 0);
  ab_str(&b, "layout", "NHWC");
  a = ab_done(&b);
  CHECK_OK(rel(ctx, "nn.max_pool2d", a, &nhwc, 1, &out, msg));
  CHECK(type_is(out, F32, 4, 1, -1, 2, 3));
  psg_attrs_release(a);
  /* No pool_size: TVM's default (1, 1) keeps the shape. */
  CHECK_OK(rel(ctx, "nn.max_pool2d", NULL, &t, 1, &out, msg));
  CHECK(type_is(out, F32, 4, 1, 3, 5, 5));
  /* Errors. */
  ab_ints(&b, "pool_size", 2, 7, 7);
  a = ab_done(&b);
  CHECK_EQ_INT(rel(ctx, "nn.max_pool2d", a, &t, 1, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "the pooling window (7) is larger than the padded height (5)");
  psg_attrs_release(a);
  ab_ints(&b, "pool_size", 2, 2, 2);
  ab_ints(&b, "padding", 3, 1, 1, 1);
  a = ab_done(&b);
  CHECK_EQ_INT(rel(ctx, "nn.max_pool2d", a, &t, 1, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "padding must be 1, 2 or 4 ints");
  psg_attrs_release(a);
  ab_ints(&b, "pool_size", 2, 2, 2);
  ab_str(&b, "layout", "NCDW");
  a = ab_done(&b);
  CHECK_EQ_INT(rel(ctx, "nn.max_pool2d", a, &t, 1, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "must have H and W");
  psg_attrs_release(a);
  ab_ints(&b, "pool_size", 2, 2, 2);
  ab_ints(&b, "strides", 2, 0, 1);
  a = ab_done(&b);
  CHECK_EQ_INT(rel(ctx, "nn.max_pool2d", a, &t, 1, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "strides must be >= 1");
  psg_attrs_release(a);
  /* Global and adaptive pools. */
  CHECK_OK(rel(ctx, "nn.global_avg_pool2d", NULL, &t, 1, &out, msg));
  CHECK(type_is(out, F32, 4, 1, 3, 1, 1));
  ab_str(&b, "layout", "NHWC");
  a = ab_done(&b);
  CHECK_OK(rel(ctx, "nn.global_max_pool2d", a, &nhwc, 1, &out, msg));
  CHECK(type_is(out, F32, 4, 1, 1, 1, 3));
  psg_attrs_release(a);
  CHECK_OK(rel(ctx, "nn.adaptive_avg_pool2d", NULL, &t, 1, &out, msg));
  CHECK(type_is(out, F32, 4, 1, 3, 5, 5));
  ab_ints(&b, "output_size", 1, 2);
  a = ab_done(&b);
  CHECK_OK(rel(ctx, "nn.adaptive_avg_pool2d", a, &t, 1, &out, msg));
  CHECK(type_is(out, F32, 4, 1, 3, 2, 2));
  psg_attrs_release(a);
  const psg_type *r1 = ty(ctx, F32, 1, 4);
  CHECK_EQ_INT(rel(ctx, "nn.global_avg_pool2d", NULL, &r1, 1, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "rank >= 2");
  CHECK_CTX_CLEAN(ctx);
}

static psgi_value *pool(psg_ctx *ctx, const char *op, psgi_value *x, int k, int s, int pad, bool ceil,
                        bool include_pad) {
  char msg[512];
  ab b = ab_init(ctx);
  ab_ints(&b, "pool_size", 2, k, k);
  ab_ints(&b, "strides", 2, s, s);
  ab_ints(&b, "padding", 1, pad);
  ab_bool(&b, "ceil_mode", ceil);
  if (!strcmp(op, "nn.avg_pool2d")) ab_bool(&b, "count_include_pad", include_pad);
  psg_attrs *a = ab_done(&b);
  psgi_value *r = run_op(ctx, op, a, &x, 1, msg);
  if (!r) fprintf(stderr, "%s: %s\n", op, msg);
  psg_attrs_release(a);
  return r;
}

static void test_pool_kernels(void) {
  psg_ctx *ctx = check_ctx();
  int64_t d4[4] = {1, 1, 4, 4}, d2[4] = {1, 1, 2, 2}, d3[4] = {1, 1, 3, 3};
  double v16[16];
  for (int i = 0; i < 16; i++) v16[i] = i + 1;
  psgi_value *x = valf(ctx, d4, 4, v16), *r;
  r = pool(ctx, "nn.max_pool2d", x, 2, 2, 0, false, false);
  CHECK_TENSOR(r, d2, 4, ((double[]){6, 8, 14, 16}), 0);
  psgi_value_release(r);
  r = pool(ctx, "nn.avg_pool2d", x, 2, 2, 0, false, false);
  CHECK_TENSOR(r, d2, 4, ((double[]){3.5, 5.5, 11.5, 13.5}), 1e-6);
  psgi_value_release(r);
  psgi_value_release(x);

  /* 3x3, pool 2, stride 2, ceil_mode: the last windows hang over the edge
   * and average only what they cover. */
  x = valf(ctx, d3, 4, (double[]){1, 2, 3, 4, 5, 6, 7, 8, 9});
  r = pool(ctx, "nn.max_pool2d", x, 2, 2, 0, true, false);
  CHECK_TENSOR(r, d2, 4, ((double[]){5, 6, 8, 9}), 0);
  psgi_value_release(r);
  r = pool(ctx, "nn.avg_pool2d", x, 2, 2, 0, true, false);
  CHECK_TENSOR(r, d2, 4, ((double[]){3, 4.5, 7.5, 9}), 1e-6);
  psgi_value_release(r);
  /* The extra ceil_mode padding never counts, even with count_include_pad. */
  r = pool(ctx, "nn.avg_pool2d", x, 2, 2, 0, true, true);
  CHECK_TENSOR(r, d2, 4, ((double[]){3, 4.5, 7.5, 9}), 1e-6);
  psgi_value_release(r);
  r = pool(ctx, "nn.max_pool2d", x, 2, 2, 0, false, false);
  CHECK_TENSOR(r, ((int64_t[]){1, 1, 1, 1}), 4, ((double[]){5}), 0);
  psgi_value_release(r);
  psgi_value_release(x);

  /* 2x2, pool 2, stride 1, padding 1 -> 3x3: explicit padding counts only
   * with count_include_pad. */
  x = valf(ctx, d2, 4, (double[]){1, 2, 3, 4});
  r = pool(ctx, "nn.avg_pool2d", x, 2, 1, 1, false, false);
  CHECK_TENSOR(r, d3, 4, ((double[]){1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}), 1e-6);
  psgi_value_release(r);
  r = pool(ctx, "nn.avg_pool2d", x, 2, 1, 1, false, true);
  CHECK_TENSOR(r, d3, 4, ((double[]){0.25, 0.75, 0.5, 1, 2.5, 1.5, 0.75, 1.75, 1}), 1e-6);
  psgi_value_release(r);
  psgi_value_release(x);
  x = valf(ctx, d2, 4, (double[]){-1, -2, -3, -4});
  r = pool(ctx, "nn.max_pool2d", x, 2, 1, 1, false, false);
  CHECK_TENSOR(r, d3, 4, ((double[]){-1, -1, -2, -1, -1, -2, -3, -3, -4}), 0); /* padding never wins */
  psgi_value_release(r);
  psgi_value_release(x);
  CHECK_CTX_CLEAN(ctx);
}

static void test_global_adaptive_kernels(void) {
  psg_ctx *ctx = check_ctx();
  char msg[512];
  int64_t d[4] = {1, 2, 2, 2}, o[4] = {1, 2, 1, 1};
  psgi_value *x = valf(ctx, d, 4, (double[]){1, 2, 3, 4, -5, 6, 7, 8}), *r;
  r = run_op(ctx, "nn.global_avg_pool2d", NULL, &x, 1, msg);
  CHECK_TENSOR(r, o, 4, ((double[]){2.5, 4}), 1e-6);
  psgi_value_release(r);
  r = run_op(ctx, "nn.global_max_pool2d", NULL, &x, 1, msg);
  CHECK_TENSOR(r, o, 4, ((double[]){4, 8}), 0);
  psgi_value_release(r);
  /* The same data read as NHWC: channels are the last axis. */
  ab b = ab_init(ctx);
  ab_str(&b, "layout", "NHWC");
  psg_attrs *a = ab_done(&b);
  r = run_op(ctx, "nn.global_avg_pool2d", a, &x, 1, msg);
  CHECK_TENSOR(r, ((int64_t[]){1, 1, 1, 2}), 4, ((double[]){1.5, 5}), 1e-6);
  psgi_value_release(r);
  psg_attrs_release(a);
  psgi_value_release(x);
  /* adaptive 3x3 -> 2x2: windows [0, 2) and [1, 3) on each axis. */
  int64_t d3[4] = {1, 1, 3, 3}, d2[4] = {1, 1, 2, 2};
  x = valf(ctx, d3, 4, (double[]){1, 2, 3, 4, 5, 6, 7, 8, 9});
  ab_ints(&b, "output_size", 2, 2, 2);
  a = ab_done(&b);
  r = run_op(ctx, "nn.adaptive_avg_pool2d", a, &x, 1, msg);
  CHECK_TENSOR(r, d2, 4, ((double[]){3, 4, 6, 7}), 1e-6);
  psgi_value_release(r);
  psg_attrs_release(a);
  psgi_value_release(x);
  CHECK_CTX_CLEAN(ctx);
}

static void test_upsampling_subpixel(void) {
  psg_ctx *ctx = check_ctx();
  char msg[512];
  const psg_type *out, *t = ty(ctx, F32, 4, 1, 1, 3, -1);
  ab b = ab_init(ctx);
  ab_float(&b, "scale_h", 1.5);
  ab_float(&b, "scale_w", 2);
  psg_attrs *a = ab_done(&b);
  CHECK_OK(rel(ctx, "nn.upsampling", a, &t, 1, &out, msg));
  CHECK(type_is(out, F32, 4, 1, 1, 4, -1)); /* round(4.5) = 4, half to even */
  psg_attrs_release(a);

  int64_t d2[4] = {1, 1, 2, 2}, d4[4] = {1, 1, 4, 4};
  psgi_value *x = valf(ctx, d2, 4, (double[]){1, 2, 3, 4}), *r;
  ab_float(&b, "scale_h", 2);
  ab_float(&b, "scale_w", 2);
  a = ab_done(&b);
  r = run_op(ctx, "nn.upsampling", a, &x, 1, msg);
  CHECK_TENSOR(r, d4, 4, ((double[]){1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}), 0);
  psgi_value_release(r);
  psg_attrs_release(a);
  ab_float(&b, "scale_h", 2);
  ab_float(&b, "scale_w", 2);
  ab_str(&b, "method", "bilinear");
  ab_bool(&b, "align_corners", true);
  a = ab_done(&b);
  r = run_op(ctx, "nn.upsampling", a, &x, 1, msg);
  double t3 = 1.0 / 3;
  CHECK_TENSOR(r, d4, 4,
               ((double[]){1, 1 + t3, 1 + 2 * t3, 2, 1 + 2 * t3, 2, 2 + t3, 2 + 2 * t3, 2 + t3, 2 + 2 * t3, 3,
                           3 + t3, 3, 3 + t3, 3 + 2 * t3, 4}),
               1e-6);
  psgi_value_release(r);
  psg_attrs_release(a);
  psgi_value_release(x);

  /* depth_to_space (1, 8, 1, 1) -> (1, 2, 2, 2), DCR and CRD. */
  int64_t dd[4] = {1, 8, 1, 1}, sd[4] = {1, 2, 2, 2};
  x = valf(ctx, dd, 4, (double[]){0, 1, 2, 3, 4, 5, 6, 7});
  ab_int(&b, "block_size", 2);
  a = ab_done(&b);
  r = run_op(ctx, "nn.depth_to_space", a, &x, 1, msg);
  CHECK_TENSOR(r, sd, 4, ((double[]){0, 2, 4, 6, 1, 3, 5, 7}), 0);
  /* space_to_depth inverts DCR. */
  psgi_value *back = r ? run_op(ctx, "nn.space_to_depth", a, &r, 1, msg) : NULL;
  CHECK_TENSOR(back, dd, 4, ((double[]){0, 1, 2, 3, 4, 5, 6, 7}), 0);
  psgi_value_release(back);
  psgi_value_release(r);
  psg_attrs_release(a);
  ab_int(&b, "block_size", 2);
  ab_str(&b, "mode", "CRD");
  a = ab_done(&b);
  r = run_op(ctx, "nn.depth_to_space", a, &x, 1, msg);
  CHECK_TENSOR(r, sd, 4, ((double[]){0, 1, 2, 3, 4, 5, 6, 7}), 0);
  psgi_value_release(r);
  psg_attrs_release(a);
  psgi_value_release(x);
  /* Relation errors and unknown dims. */
  ab_int(&b, "block_size", 2);
  a = ab_done(&b);
  t = ty(ctx, F32, 4, 1, 6, 2, 2);
  CHECK_EQ_INT(rel(ctx, "nn.depth_to_space", a, &t, 1, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "6 channels do not divide by block_size^2 = 4");
  t = ty(ctx, F32, 4, 1, 6, 3, 2);
  CHECK_EQ_INT(rel(ctx, "nn.space_to_depth", a, &t, 1, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "height 3 does not divide by block_size 2");
  t = ty(ctx, F32, 4, -1, 8, -1, 3);
  CHECK_OK(rel(ctx, "nn.depth_to_space", a, &t, 1, &out, msg));
  CHECK(type_is(out, F32, 4, -1, 2, -1, 6));
  t = ty(ctx, F32, 3, 8, 1, 1);
  CHECK_EQ_INT(rel(ctx, "nn.depth_to_space", a, &t, 1, &out, msg), PSG_ERR_TYPE);
  CHECK_MSG(msg, "needs 4-D data");
  psg_attrs_release(a);
  CHECK_CTX_CLEAN(ctx);
}

/* Through the public API: parse, InferType inside psg_eval, run. */
static void test_end_to_end(void) {
  psg_ctx *ctx = check_ctx();
  const char *text =
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(1, 2, 4, 4), float32], %g: Tensor[(2), float32], %b: Tensor[(2), float32],\n"
      "          %m: Tensor[(2), float32], %v: Tensor[(2), float32]) {\n"
      "  %0 = nn.batch_norm(%x, %g, %b, %m, %v, epsilon=0f);\n"
      "  %1 = %0.0;\n"
      "  %2 = nn.max_pool2d(%1, pool_size=[2, 2], strides=[2, 2]);\n"
      "  nn.global_avg_pool2d(%2)\n"
      "}\n";
  int64_t xd[4] = {1, 2, 4, 4}, cd[1] = {2};
  float x[32], g[2] = {2, 1}, bb[2] = {1, 0}, m[2] = {0.5f, 0}, v[2] = {0.25f, 1};
  for (int i = 0; i < 32; i++) x[i] = (float)i;
  psg_tensor *in[5] = {NULL};
  CHECK_OK(psg_tensor_create(ctx, F32, xd, 4, x, &in[0]));
  CHECK_OK(psg_tensor_create(ctx, F32, cd, 1, g, &in[1]));
  CHECK_OK(psg_tensor_create(ctx, F32, cd, 1, bb, &in[2]));
  CHECK_OK(psg_tensor_create(ctx, F32, cd, 1, m, &in[3]));
  CHECK_OK(psg_tensor_create(ctx, F32, cd, 1, v, &in[4]));
  size_t n = 0;
  psg_tensor **outs = eval_text(ctx, text, in, 5, &n);
  CHECK_EQ_INT(n, 1);
  /* Channel 0: (x - 0.5) / 0.5 * 2 + 1 = 4x - 1; window maxima 5, 7, 13, 15
   * average 10 -> 39. Channel 1: x; maxima 21, 23, 29, 31 -> 26. */
  if (outs && n == 1) CHECK(tensor_close(outs[0], ((int64_t[]){1, 2, 1, 1}), 4, ((double[]){39, 26}), 1e-5, "e2e"));
  free_outputs(outs, n);
  for (int i = 0; i < 5; i++) psg_tensor_release(in[i]);
  /* A type error names the op's reason. */
  const char *bad =
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(1, 3, 4, 4), float32], %g: Tensor[(4), float32]) {\n"
      "  %0 = nn.batch_norm(%x, %g, %g, %g, %g);\n"
      "  %0.0\n"
      "}\n";
  psg_module *mod = NULL;
  CHECK_OK(psg_module_parse(ctx, bad, strlen(bad), "bad.relay", &mod));
  psg_tensor *bin[2] = {NULL};
  CHECK_OK(psg_tensor_create(ctx, F32, ((int64_t[]){1, 3, 4, 4}), 4, NULL, &bin[0]));
  CHECK_OK(psg_tensor_create(ctx, F32, ((int64_t[]){4}), 1, NULL, &bin[1]));
  psg_tensor **bo = NULL;
  size_t bn = 0;
  CHECK(psg_eval(ctx, mod, "main", bin, 2, &bo, &bn) != PSG_OK);
  const psg_diag *last = psg_ctx_get_last_error(ctx);
  CHECK(last && strstr(psg_diag_rendered(last), "gamma has shape (4,) but channel axis 1 has 3"));
  psg_tensor_release(bin[0]);
  psg_tensor_release(bin[1]);
  psg_module_release(mod);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_patterns);
  RUN_TEST(test_batch_norm_rel);
  RUN_TEST(test_batch_norm_kernel);
  RUN_TEST(test_layer_instance_group_norm);
  RUN_TEST(test_l2_normalize_lrn);
  RUN_TEST(test_pool_rel);
  RUN_TEST(test_pool_kernels);
  RUN_TEST(test_global_adaptive_kernels);
  RUN_TEST(test_upsampling_subpixel);
  RUN_TEST(test_end_to_end);
  return check_finish();
}
