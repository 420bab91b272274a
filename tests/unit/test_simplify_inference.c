/* SimplifyInference: TVM's expansions (tvm-behavior §6.8) as input -> expected
 * module pairs, the cases it must leave alone, and a semantic check that the
 * expanded batch_norm and layer_norm compute what the ops compute. */
#include <math.h>
#include "pass_check.h"

#define BN_PARAMS "%g: " T ", %b: " T ", %m: " T ", %v: " T

/* batch_norm at axis 1 of a rank-4 input: scale and shift get 2 new axes. */
static void test_batch_norm_rank4_axis1(void) {
  check_pass("SimplifyInference", NULL,
             HDR "def @main(%x: Tensor[(1, 2, 3, 3), float32], " BN_PARAMS ") {\n"
                 "  %0 = nn.batch_norm(%x, %g, %b, %m, %v);\n  %0.0\n}\n",
             HDR "def @main(%x: Tensor[(1, 2, 3, 3), float32], " BN_PARAMS ") {\n"
                 "  %0 = add(%v, 1e-05f);\n  %1 = sqrt(%0);\n  %2 = divide(1f, %1);\n  %3 = multiply(%2, %g);\n"
                 "  %4 = negative(%m);\n  %5 = multiply(%4, %3);\n  %6 = add(%5, %b);\n"
                 "  %7 = expand_dims(%3, axis=1, num_newaxis=2);\n  %8 = multiply(%x, %7);\n"
                 "  %9 = expand_dims(%6, axis=1, num_newaxis=2);\n  add(%8, %9)\n}\n");
}

/* Rank 2 at axis 1 and rank 4 at axis 0 (TVM's other cases); no scale/center. */
static void test_batch_norm_other_axes(void) {
  check_pass("SimplifyInference", NULL,
             HDR "def @main(%x: Tensor[(3, 2), float32], " BN_PARAMS ") {\n"
                 "  %0 = nn.batch_norm(%x, %g, %b, %m, %v, epsilon=0.01f, center=False, scale=False);\n  %0.0\n}\n",
             HDR "def @main(%x: Tensor[(3, 2), float32], " BN_PARAMS ") {\n"
                 "  %0 = add(%v, 0.01f);\n  %1 = sqrt(%0);\n  %2 = divide(1f, %1);\n"
                 "  %3 = negative(%m);\n  %4 = multiply(%3, %2);\n  %5 = multiply(%x, %2);\n  add(%5, %4)\n}\n");
  check_pass("SimplifyInference", NULL,
             HDR "def @main(%x: Tensor[(2, 3, 4, 5), float32], " BN_PARAMS ") {\n"
                 "  %0 = nn.batch_norm(%x, %g, %b, %m, %v, axis=0);\n  %0.0\n}\n",
             HDR "def @main(%x: Tensor[(2, 3, 4, 5), float32], " BN_PARAMS ") {\n"
                 "  %0 = add(%v, 1e-05f);\n  %1 = sqrt(%0);\n  %2 = divide(1f, %1);\n  %3 = multiply(%2, %g);\n"
                 "  %4 = negative(%m);\n  %5 = multiply(%4, %3);\n  %6 = add(%5, %b);\n"
                 "  %7 = expand_dims(%3, axis=1, num_newaxis=3);\n  %8 = multiply(%x, %7);\n"
                 "  %9 = expand_dims(%6, axis=1, num_newaxis=3);\n  add(%8, %9)\n}\n");
}

static void test_dropout_disappears(void) {
  check_pass("SimplifyInference", NULL,
             HDR "def @main(%x: " T ") {\n  %0 = nn.dropout(%x, rate=0.3f);\n  %1 = %0.0;\n  nn.relu(%1)\n}\n",
             HDR "def @main(%x: " T ") {\n  nn.relu(%x)\n}\n");
}

/* The mean output of a batch_norm is not the inference result: kept. */
static void test_other_projections_kept(void) {
  const char *in = HDR "def @main(%x: Tensor[(1, 2, 3, 3), float32], " BN_PARAMS ") {\n"
                       "  %0 = nn.batch_norm(%x, %g, %b, %m, %v);\n  %0.1\n}\n";
  check_pass("SimplifyInference", NULL, in, in);
}

static void test_group_norm(void) {
  check_pass("SimplifyInference", NULL,
             HDR "def @main(%x: Tensor[(1, 4, 2, 3), float32], %g: Tensor[(4), float32], %b: Tensor[(4), float32]) {\n"
                 "  nn.group_norm(%x, %g, %b, num_groups=2)\n}\n",
             HDR "def @main(%x: Tensor[(1, 4, 2, 3), float32], %g: Tensor[(4), float32], %b: Tensor[(4), float32]) {\n"
                 "  %0 = reshape(%x, newshape=[1, 2, 2, 2, 3]);\n  %1 = mean(%0, axis=[2, 3, 4], keepdims=True);\n"
                 "  %2 = subtract(%0, %1);\n  %3 = multiply(%2, %2);\n  %4 = mean(%3, axis=[2, 3, 4], keepdims=True);\n"
                 "  %5 = add(%4, 1e-05f);\n  %6 = sqrt(%5);\n  %7 = divide(%2, %6);\n  %8 = reshape(%7, newshape=[1, 4, 2, 3]);\n"
                 "  %9 = expand_dims(%g, axis=1, num_newaxis=2);\n  %10 = multiply(%8, %9);\n"
                 "  %11 = expand_dims(%b, axis=1, num_newaxis=2);\n  add(%10, %11)\n}\n");
}

static void test_layer_norm(void) {
  check_pass("SimplifyInference", NULL,
             HDR "def @main(%x: Tensor[(2, 4), float32], %g: Tensor[(4), float32], %b: Tensor[(4), float32]) {\n"
                 "  nn.layer_norm(%x, %g, %b)\n}\n",
             HDR "def @main(%x: Tensor[(2, 4), float32], %g: Tensor[(4), float32], %b: Tensor[(4), float32]) {\n"
                 "  %0 = mean(%x, axis=[1], keepdims=True);\n  %1 = subtract(%x, %0);\n  %2 = multiply(%1, %1);\n"
                 "  %3 = mean(%2, axis=[1], keepdims=True);\n  %4 = add(%3, 1e-05f);\n  %5 = sqrt(%4);\n"
                 "  %6 = divide(%1, %5);\n  %7 = multiply(%6, %g);\n  add(%7, %b)\n}\n");
}

/* Runs @main of `text` on `inputs` before and after the pass: equal within 1e-5. */
static void check_same_outputs(psg_ctx *ctx, const char *text, psg_tensor *const *inputs, size_t n) {
  psg_module *m = parse(ctx, text), *s = m ? run(ctx, "SimplifyInference", NULL, m) : NULL;
  psg_tensor **a = NULL, **b = NULL;
  size_t na = 0, nb = 0;
  CHECK(s != NULL);
  if (s) {
    CHECK_OK(psg_eval(ctx, m, "main", inputs, n, &a, &na));
    CHECK_OK(psg_eval(ctx, s, "main", inputs, n, &b, &nb));
    for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
  }
  CHECK(na == 1 && nb == 1);
  if (na == 1 && nb == 1) {
    const float *x = psg_tensor_data(a[0]), *y = psg_tensor_data(b[0]);
    CHECK_EQ_INT(psg_tensor_numel(a[0]), psg_tensor_numel(b[0]));
    double worst = 0;
    for (int64_t i = 0; i < psg_tensor_numel(a[0]); i++) {
      double d = fabs((double)x[i] - y[i]) / fmax(1e-6, fabs((double)x[i]));
      if (d > worst) worst = d;
    }
    CHECK(worst < 1e-5);
  }
  for (size_t i = 0; i < na; i++) psg_tensor_release(a[i]);
  for (size_t i = 0; i < nb; i++) psg_tensor_release(b[i]);
  psg_free(a);
  psg_free(b);
  psg_module_release(s);
  psg_module_release(m);
}

static psg_tensor *ramp(psg_ctx *ctx, const int64_t *shape, int ndim, float start, float step) {
  int64_t n = 1;
  for (int i = 0; i < ndim; i++) n *= shape[i];
  float *v = malloc((size_t)n * sizeof *v);
  for (int64_t i = 0; i < n; i++) v[i] = start + step * (float)((i * 7) % 11);
  psg_tensor *t = NULL;
  psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, shape, ndim, v, &t);
  free(v);
  return t;
}

static void test_semantics(void) {
  psg_ctx *ctx = check_ctx();
  psg_tensor *x = ramp(ctx, (int64_t[]){1, 2, 3, 3}, 4, -1.0f, 0.25f);
  psg_tensor *g = ramp(ctx, (int64_t[]){2}, 1, 0.5f, 0.5f), *b = ramp(ctx, (int64_t[]){2}, 1, -0.2f, 0.3f);
  psg_tensor *mu = ramp(ctx, (int64_t[]){2}, 1, 0.1f, 0.2f), *var = ramp(ctx, (int64_t[]){2}, 1, 0.5f, 0.7f);
  check_same_outputs(ctx, HDR "def @main(%x: Tensor[(1, 2, 3, 3), float32], " BN_PARAMS ") {\n"
                         "  %0 = nn.batch_norm(%x, %g, %b, %m, %v);\n  %0.0\n}\n",
                     (psg_tensor *[]){x, g, b, mu, var}, 5);
  psg_tensor *y = ramp(ctx, (int64_t[]){3, 2}, 2, -2.0f, 0.5f);
  check_same_outputs(ctx, HDR "def @main(%x: Tensor[(3, 2), float32], %g: " T ", %b: " T ") {\n"
                         "  nn.layer_norm(%x, %g, %b)\n}\n",
                     (psg_tensor *[]){y, g, b}, 3);
  /* Group norm: 4 channels in 2 groups. */
  psg_tensor *z = ramp(ctx, (int64_t[]){1, 4, 2, 3}, 4, -1.5f, 0.3f);
  psg_tensor *g4 = ramp(ctx, (int64_t[]){4}, 1, 0.5f, 0.25f), *b4 = ramp(ctx, (int64_t[]){4}, 1, -0.1f, 0.2f);
  check_same_outputs(ctx, HDR "def @main(%x: Tensor[(1, 4, 2, 3), float32], %g: Tensor[(4), float32], %b: Tensor[(4), float32]) {\n"
                              "  nn.group_norm(%x, %g, %b, num_groups=2)\n}\n",
                     (psg_tensor *[]){z, g4, b4}, 3);
  psg_tensor *ts[] = {x, g, b, mu, var, y, z, g4, b4};
  for (size_t i = 0; i < 9; i++) psg_tensor_release(ts[i]);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_batch_norm_rank4_axis1);
  RUN_TEST(test_batch_norm_other_axes);
  RUN_TEST(test_dropout_disappears);
  RUN_TEST(test_other_projections_kept);
  RUN_TEST(test_layer_norm);
  RUN_TEST(test_group_norm);
  RUN_TEST(test_semantics);
  return check_finish();
}
