/* FoldScaleAxis: the folds it must make (backward through conv2d, add and
 * dense; forward into conv2d) checked by shape of the result and by the
 * interpreter giving the same outputs, the folds it must not make, and the
 * whole -O3-style chain SimplifyInference -> FoldConstant -> FoldScaleAxis on
 * the bundled model: no batch_norm or multiply left, same outputs. */
#include <math.h>
#include "pass_check.h"

#define META(...) "#[metadata]\n{\n  \"relay.Constant\": [\n" __VA_ARGS__ "  ]\n}\n"
/* (3, 1, 1) = [2, 0.5, -1] and [0.1, 0.2, 0.3]; (2, 1, 1) = [3, -0.25];
 * (1, 1, 4) = [1, 2, 3, 4]; (3) = [1.5, -2, 0.5]. */
#define S3 "    {\"dtype\": \"float32\", \"shape\": [3, 1, 1], \"data\": \"AAAAQAAAAD8AAIC/\"}"
#define B3 "    {\"dtype\": \"float32\", \"shape\": [3, 1, 1], \"data\": \"zczMPc3MTD6amZk+\"}"
#define S2IN "    {\"dtype\": \"float32\", \"shape\": [2, 1, 1], \"data\": \"AABAQAAAgL4=\"}"
#define SROW "    {\"dtype\": \"float32\", \"shape\": [1, 1, 4], \"data\": \"AACAPwAAAEAAAEBAAACAQA==\"}"
/* (2, 1, 1) = [3, 0.25] (positive) and [0.5, 2]. */
#define S2POS "    {\"dtype\": \"float32\", \"shape\": [2, 1, 1], \"data\": \"AABAQAAAgD4=\"}"
#define S2POS2 "    {\"dtype\": \"float32\", \"shape\": [2, 1, 1], \"data\": \"AAAAPwAAAEA=\"}"
#define S4IN "    {\"dtype\": \"float32\", \"shape\": [4, 1, 1], \"data\": \"AABAQAAAgD4AAAC/AAAAQA==\"}"
#define SD "    {\"dtype\": \"float32\", \"shape\": [3], \"data\": \"AADAPwAAAMAAAAA/\"}"
#define CONV_PARAMS "%x: Tensor[(1, 2, 4, 4), float32], %w: Tensor[(3, 2, 3, 3), float32]"

static psg_tensor *ramp(psg_ctx *ctx, const int64_t *shape, int ndim, float start, float step) {
  int64_t n = 1;
  for (int i = 0; i < ndim; i++) n *= shape[i];
  float *v = malloc((size_t)n * sizeof *v);
  for (int64_t i = 0; i < n; i++) v[i] = start + step * (float)((i * 7) % 13);
  psg_tensor *t = NULL;
  psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, shape, ndim, v, &t);
  free(v);
  return t;
}

/* Max relative difference of the float32 outputs of @main in a and b. */
static double output_difference(psg_ctx *ctx, psg_module *a, psg_module *b, psg_tensor *const *in, size_t n) {
  psg_tensor **x = NULL, **y = NULL;
  size_t nx = 0, ny = 0;
  double worst = INFINITY;
  if (!psg_eval(ctx, a, "main", in, n, &x, &nx) && !psg_eval(ctx, b, "main", in, n, &y, &ny) && nx == ny) {
    worst = 0;
    for (size_t k = 0; k < nx; k++) {
      if (psg_tensor_numel(x[k]) != psg_tensor_numel(y[k])) worst = INFINITY;
      const float *p = psg_tensor_data(x[k]), *q = psg_tensor_data(y[k]);
      for (int64_t i = 0; worst < INFINITY && i < psg_tensor_numel(x[k]); i++)
        worst = fmax(worst, fabs((double)p[i] - q[i]) / fmax(1e-3, fabs((double)p[i])));
    }
  }
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
  for (size_t i = 0; i < nx; i++) psg_tensor_release(x[i]);
  for (size_t i = 0; i < ny; i++) psg_tensor_release(y[i]);
  psg_free(x);
  psg_free(y);
  return worst;
}

static bool is_op(const psg_expr *e, const char *op) {
  return e && psg_expr_kind(e) == PSG_EXPR_CALL && psg_expr_kind(psg_call_get_callee(e)) == PSG_EXPR_OP &&
         !strcmp(psg_op_name(psg_call_get_callee(e)), op);
}

/* Runs `pass` on `text`; checks the body's shape with `check` and that the
 * outputs are unchanged on ramp inputs of the parameters' types. */
static void check_fold(const char *pass, const char *text, bool (*check)(const psg_expr *body)) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, text), *out = m ? run(ctx, pass, NULL, m) : NULL;
  CHECK(out != NULL);
  if (out) {
    const psg_expr *f = psg_module_lookup(out, "main");
    bool ok = check(psg_function_get_body(f));
    CHECK(ok);
    if (!ok) print_module("unexpected result", out);
    psg_tensor *in[4] = {NULL};
    size_t n = psg_function_num_params(f);
    for (size_t i = 0; i < n && i < 4; i++) {
      const psg_type *t = psg_var_type(psg_function_get_param(f, i));
      int64_t shape[PSG_MAX_RANK];
      for (int d = 0; d < psg_type_ndim(t); d++) shape[d] = psg_type_dim(t, d);
      in[i] = ramp(ctx, shape, psg_type_ndim(t), -1.0f + 0.3f * (float)i, 0.2f);
    }
    CHECK(output_difference(ctx, m, out, in, n) < 1e-5);
    for (size_t i = 0; i < 4; i++) psg_tensor_release(in[i]);
  }
  psg_module_release(out);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* conv2d(%x, multiply(%w, scale)) */
static bool is_conv_of_scaled_weight(const psg_expr *e) {
  return is_op(e, "nn.conv2d") && is_op(psg_call_get_arg(e, 1), "multiply");
}

static bool is_add_of_scaled_conv(const psg_expr *e) {
  return is_op(e, "add") && is_conv_of_scaled_weight(psg_call_get_arg(e, 0)) &&
         is_op(psg_call_get_arg(e, 1), "multiply");
}

static bool is_dense_of_scaled_weight(const psg_expr *e) {
  return is_op(e, "nn.dense") && is_op(psg_call_get_arg(e, 1), "multiply");
}

static bool is_conv_of_plain_input(const psg_expr *e) {
  return is_conv_of_scaled_weight(e) && psg_expr_kind(psg_call_get_arg(e, 0)) == PSG_EXPR_VAR;
}

static bool is_unchanged_multiply(const psg_expr *e) { return is_op(e, "multiply"); }

static bool is_tuple_unchanged(const psg_expr *e) {
  return psg_expr_kind(e) == PSG_EXPR_TUPLE && is_op(psg_tuple_get_field(e, 0), "multiply");
}

static bool is_conv_with_scaled_input(const psg_expr *e) {
  return is_op(e, "nn.conv2d") && is_op(psg_call_get_arg(e, 0), "multiply");
}

static void test_backward_conv(void) {
  check_fold("BackwardFoldScaleAxis",
             HDR "def @main(" CONV_PARAMS ") {\n  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);\n"
                 "  multiply(%0, meta[relay.Constant][0])\n}\n\n" META(S3 "\n"),
             is_conv_of_scaled_weight);
}

static void test_backward_through_add(void) {
  check_fold("BackwardFoldScaleAxis",
             HDR "def @main(" CONV_PARAMS ") {\n  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);\n"
                 "  %1 = add(%0, meta[relay.Constant][1]);\n  multiply(meta[relay.Constant][0], %1)\n}\n\n" META(S3 ",\n" B3 "\n"),
             is_add_of_scaled_conv);
}

static void test_backward_dense(void) {
  check_fold("BackwardFoldScaleAxis",
             HDR "def @main(%x: Tensor[(2, 4), float32], %w: Tensor[(3, 4), float32]) {\n"
                 "  %0 = nn.dense(%x, %w, units=3);\n  multiply(%0, meta[relay.Constant][0])\n}\n\n" META(SD "\n"),
             is_dense_of_scaled_weight);
}

static void test_forward_conv(void) {
  check_fold("ForwardFoldScaleAxis",
             HDR "def @main(" CONV_PARAMS ") {\n  %0 = multiply(%x, meta[relay.Constant][0]);\n"
                 "  nn.conv2d(%0, %w, padding=[1, 1, 1, 1])\n}\n\n" META(S2IN "\n"),
             is_conv_of_plain_input);
}

/* The scale on the left of the multiply: the forward rewrite must still run
 * (it is skipped only when no requested multiply has a constant side). */
static void test_forward_conv_scale_on_left(void) {
  check_fold("ForwardFoldScaleAxis",
             HDR "def @main(" CONV_PARAMS ") {\n  %0 = multiply(meta[relay.Constant][0], %x);\n"
                 "  nn.conv2d(%0, %w, padding=[1, 1, 1, 1])\n}\n\n" META(S2IN "\n"),
             is_conv_of_plain_input);
}

/* conv2d(relu(%x), multiply(%w, s)) */
static bool is_conv_of_relu_input(const psg_expr *e) {
  return is_conv_of_scaled_weight(e) && is_op(psg_call_get_arg(e, 0), "nn.relu") &&
         psg_expr_kind(psg_call_get_arg(psg_call_get_arg(e, 0), 0)) == PSG_EXPR_VAR;
}

/* conv2d(relu(relu(%x)), w') */
static bool is_conv_of_relu_relu_input(const psg_expr *e) {
  const psg_expr *r = is_conv_of_scaled_weight(e) ? psg_call_get_arg(e, 0) : NULL;
  const psg_expr *r2 = is_op(r, "nn.relu") ? psg_call_get_arg(r, 0) : NULL;
  return is_op(r2, "nn.relu") && psg_expr_kind(psg_call_get_arg(r2, 0)) == PSG_EXPR_VAR;
}

/* conv2d(relu(multiply(%x, s)), %w): nothing folded. */
static bool is_conv_of_unscaled_relu(const psg_expr *e) {
  return is_op(e, "nn.conv2d") && psg_expr_kind(psg_call_get_arg(e, 1)) == PSG_EXPR_VAR &&
         is_op(psg_call_get_arg(e, 0), "nn.relu") && is_op(psg_call_get_arg(psg_call_get_arg(e, 0), 0), "multiply");
}

/* A positive scale moves forward through relu (the ramp input has negative
 * values, so a wrong fold shows in the outputs). */
static void test_forward_through_relu(void) {
  check_fold("ForwardFoldScaleAxis",
             HDR "def @main(" CONV_PARAMS ") {\n  %0 = multiply(%x, meta[relay.Constant][0]);\n"
                 "  %1 = nn.relu(%0);\n  nn.conv2d(%1, %w, padding=[1, 1, 1, 1])\n}\n\n" META(S2POS "\n"),
             is_conv_of_relu_input);
}

/* relu(multiply(relu(multiply(x, s1)), s2)): both positive scales fold. */
static void test_forward_through_two_relus(void) {
  check_fold("ForwardFoldScaleAxis",
             HDR "def @main(" CONV_PARAMS ") {\n  %0 = multiply(%x, meta[relay.Constant][0]);\n"
                 "  %1 = nn.relu(%0);\n  %2 = multiply(%1, meta[relay.Constant][1]);\n  %3 = nn.relu(%2);\n"
                 "  nn.conv2d(%3, %w, padding=[1, 1, 1, 1])\n}\n\n" META(S2POS ",\n" S2POS2 "\n"),
             is_conv_of_relu_relu_input);
}

/* A scale with a negative channel stays before the relu. */
static void test_no_forward_fold_negative_relu(void) {
  check_fold("ForwardFoldScaleAxis",
             HDR "def @main(" CONV_PARAMS ") {\n  %0 = multiply(%x, meta[relay.Constant][0]);\n"
                 "  %1 = nn.relu(%0);\n  nn.conv2d(%1, %w, padding=[1, 1, 1, 1])\n}\n\n" META(S2IN "\n"),
             is_conv_of_unscaled_relu);
}

/* A scale along the width, not the channels, cannot fold. */
static void test_no_fold_wrong_axis(void) {
  check_fold("BackwardFoldScaleAxis",
             HDR "def @main(" CONV_PARAMS ") {\n  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);\n"
                 "  multiply(%0, meta[relay.Constant][0])\n}\n\n" META(SROW "\n"),
             is_unchanged_multiply);
}

/* The conv output has another user: scaling its weights would change it. */
static void test_no_fold_shared_conv(void) {
  check_fold("BackwardFoldScaleAxis",
             HDR "def @main(" CONV_PARAMS ") {\n  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);\n"
                 "  %1 = multiply(%0, meta[relay.Constant][0]);\n  (%1, %0)\n}\n\n" META(S3 "\n"),
             is_tuple_unchanged);
}

/* A scale that is not a constant does not fold (TVM folds it when it
 * crosses no relu; Passage keeps weights constant: departure "FoldScaleAxis
 * constant scales"). */
static void test_no_fold_variable_scale(void) {
  check_fold("BackwardFoldScaleAxis",
             HDR "def @main(" CONV_PARAMS ", %s: Tensor[(3, 1, 1), float32]) {\n"
                 "  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);\n  multiply(%0, %s)\n}\n",
             is_unchanged_multiply);
}

/* A depthwise conv takes an input-channel scale into its output channels. */
static void test_forward_fold_depthwise(void) {
  check_fold("ForwardFoldScaleAxis",
             HDR "def @main(%x: Tensor[(1, 2, 4, 4), float32], %w: Tensor[(2, 1, 3, 3), float32]) {\n"
                 "  %0 = multiply(%x, meta[relay.Constant][0]);\n  nn.conv2d(%0, %w, padding=[1, 1, 1, 1], groups=2)\n}\n\n"
                 META(S2IN "\n"),
             is_conv_of_plain_input);
}

/* Grouped convolutions that are not depthwise do not take it. */
static void test_no_forward_fold_grouped(void) {
  check_fold("ForwardFoldScaleAxis",
             HDR "def @main(%x: Tensor[(1, 4, 4, 4), float32], %w: Tensor[(4, 2, 3, 3), float32]) {\n"
                 "  %0 = multiply(%x, meta[relay.Constant][0]);\n"
                 "  nn.conv2d(%0, %w, padding=[1, 1, 1, 1], groups=2)\n}\n\n" META(S4IN "\n"),
             is_conv_with_scaled_input);
}

/* Counts calls of `op` reachable from `e` (a small DAG walk). */
static psg_status count_post(psg_visitor *v, const psg_expr *e) {
  void **u = v->user;
  if (is_op(e, u[0])) (*(int *)u[1])++;
  return PSG_OK;
}

static int count_calls(psg_ctx *ctx, const psg_expr *e, const char *op) {
  int n = 0;
  void *u[2] = {(void *)op, &n};
  psg_visitor v = {NULL, count_post, u};
  psg_visit(ctx, &v, e);
  return n;
}

/* The -O3 chain on the bundled model: batch_norm gone, its scale folded into
 * the conv weights (only the bias add and the dense remain around it). */
static void test_bundled_model_chain(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = NULL, *out = NULL;
  CHECK_OK(psg_module_parse_file(ctx, PASSAGE_SOURCE_DIR "/examples/models/small_cnn.relay", &m));
  const char *names[] = {"SimplifyInference", "FoldConstant", "FoldScaleAxis"};
  psg_pass *passes[3] = {NULL}, *seq = NULL;
  psg_pass_context *pc = NULL;
  for (int i = 0; i < 3; i++) CHECK_OK(psg_pass_get(ctx, names[i], NULL, &passes[i]));
  CHECK_OK(psg_sequential(ctx, passes, 3, NULL, &seq));
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  CHECK_OK(psg_pass_context_set_opt_level(pc, 3));
  if (m && seq) CHECK_OK(psg_pass_run(seq, m, pc, &out));
  if (out) {
    const psg_expr *body = psg_function_get_body(psg_module_lookup(out, "main"));
    CHECK_EQ_INT(count_calls(ctx, body, "nn.batch_norm"), 0);
    CHECK_EQ_INT(count_calls(ctx, body, "multiply"), 0);
    CHECK_EQ_INT(count_calls(ctx, body, "nn.conv2d"), 1);
    psg_tensor *x = ramp(ctx, (int64_t[]){1, 3, 16, 16}, 4, -1.0f, 0.17f);
    CHECK(output_difference(ctx, m, out, &x, 1) < 1e-5);
    psg_tensor_release(x);
  }
  for (int i = 0; i < 3; i++) psg_pass_release(passes[i]);
  psg_pass_release(seq);
  psg_pass_context_release(pc);
  psg_module_release(out);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_backward_conv);
  RUN_TEST(test_backward_through_add);
  RUN_TEST(test_backward_dense);
  RUN_TEST(test_forward_conv);
  RUN_TEST(test_forward_conv_scale_on_left);
  RUN_TEST(test_forward_through_relu);
  RUN_TEST(test_forward_through_two_relus);
  RUN_TEST(test_no_forward_fold_negative_relu);
  RUN_TEST(test_no_fold_wrong_axis);
  RUN_TEST(test_no_fold_shared_conv);
  RUN_TEST(test_no_fold_variable_scale);
  RUN_TEST(test_forward_fold_depthwise);
  RUN_TEST(test_no_forward_fold_grouped);
  RUN_TEST(test_bundled_model_chain);
  return check_finish();
}
