/* ConvertLayout, AlterOpLayout, CombineParallelConv2D, CanonicalizeCast and
 * FastMath (issue 7): TVM's test cases that apply (test_pass_convert_op_layout,
 * test_pass_combine_parallel_conv2d, test_pass_canonicalize_cast, fast math),
 * each compared with the expected Relay text, run twice (idempotent), and
 * evaluated before and after by the interpreter (same outputs). */
#include <math.h>
#include "pass_check.h"

#define NHWC "ConvertLayout{desired_layouts={nn.conv2d=[\"NHWC\",\"default\"]}}"

/* Inputs and comparison ------------------------------------------------------------- */

static psg_tensor *ramp_of(psg_ctx *ctx, const psg_type *t, int seed) {
  int64_t shape[PSG_MAX_RANK], n = 1;
  int nd = psg_type_ndim(t), dtype = psg_type_dtype(t);
  for (int d = 0; d < nd; d++) n *= shape[d] = psg_type_dim(t, d);
  size_t size = psg_dtype_size(dtype);
  unsigned char *buf = calloc((size_t)n ? (size_t)n : 1, size);
  for (int64_t i = 0; i < n; i++) {
    int k = (int)((i * 7 + seed * 3) % 13) - 6;
    float f = 0.15f * (float)k + 0.05f * (float)seed;
    int8_t i8 = (int8_t)k;
    int32_t i32 = k;
    if (dtype == PSG_DTYPE_FLOAT32) memcpy(buf + i * 4, &f, 4);
    else if (dtype == PSG_DTYPE_INT8) memcpy(buf + i, &i8, 1);
    else if (dtype == PSG_DTYPE_INT32) memcpy(buf + i * 4, &i32, 4);
  }
  psg_tensor *r = NULL;
  CHECK_OK(psg_tensor_create(ctx, dtype, shape, nd, buf, &r));
  free(buf);
  return r;
}

/* @main of a and b give the same outputs on ramp inputs: float32 within 1e-5
 * relative, everything else bit for bit. */
static bool same_outputs(psg_ctx *ctx, const psg_module *a, const psg_module *b) {
  const psg_expr *f = psg_module_lookup(a, "main");
  size_t n = psg_function_num_params(f);
  psg_tensor *in[16] = {NULL};
  for (size_t i = 0; i < n && i < 16; i++) in[i] = ramp_of(ctx, psg_var_type(psg_function_get_param(f, i)), (int)i);
  psg_tensor **x = NULL, **y = NULL;
  size_t nx = 0, ny = 0;
  bool same = !psg_eval(ctx, a, "main", in, n, &x, &nx) && !psg_eval(ctx, b, "main", in, n, &y, &ny) && nx == ny;
  for (size_t k = 0; same && k < nx; k++) {
    same = psg_tensor_dtype(x[k]) == psg_tensor_dtype(y[k]) && psg_tensor_nbytes(x[k]) == psg_tensor_nbytes(y[k]);
    if (same && psg_tensor_dtype(x[k]) == PSG_DTYPE_FLOAT32) {
      const float *p = psg_tensor_data(x[k]), *q = psg_tensor_data(y[k]);
      for (int64_t i = 0; same && i < psg_tensor_numel(x[k]); i++)
        same = fabs((double)p[i] - q[i]) <= 1e-5 * fmax(1.0, fabs((double)p[i]));
    } else if (same) {
      same = !memcmp(psg_tensor_data(x[k]), psg_tensor_data(y[k]), psg_tensor_nbytes(x[k]));
    }
  }
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
  for (size_t i = 0; i < nx; i++) psg_tensor_release(x[i]);
  for (size_t i = 0; i < ny; i++) psg_tensor_release(y[i]);
  for (size_t i = 0; i < 16; i++) psg_tensor_release(in[i]);
  psg_free(x);
  psg_free(y);
  return same;
}

/* Running passes by pipeline text (options included) -------------------------------------- */

/* Runs under a context of opt level 3 (a Sequential then runs its opt-3 passes). */
static psg_module *run_spec(psg_ctx *ctx, const char *spec, psg_module *in) {
  psg_pass *p = NULL;
  psg_pass_context *pc = NULL;
  psg_module *out = NULL;
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  CHECK_OK(psg_pass_context_set_opt_level(pc, 3));
  CHECK_OK(psg_pipeline_parse(ctx, spec, &p));
  if (p && pc) CHECK_OK(psg_pass_run(p, in, pc, &out));
  psg_pass_release(p);
  psg_pass_context_release(pc);
  return out;
}

static int count_calls(const psg_module *m, const char *op);

/* `in` through `spec` is `expected` (NULL: `in` itself, and the very same
 * function), a second run changes nothing, and outputs are unchanged. */
static void check_spec(const char *spec, const char *in, const char *expected) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, in), *want = parse(ctx, expected ? expected : in), *got = NULL, *again = NULL;
  CHECK(m && want);
  if (m && want) got = run_spec(ctx, spec, m);
  if (got) {
    char *path = NULL;
    bool eq = equal_modulo_inferred(ctx, got, want, &path);
    CHECK(eq);
    if (!eq) {
      fprintf(stderr, "%s: first difference at %s\n", spec, path ? path : "?");
      print_module("got", got);
      print_module("expected", want);
    }
    psg_free(path);
    /* Unchanged: the very same body and parameters (the trailing InferType
     * writes the return type in, so @main itself is new). */
    if (!expected) {
      const psg_expr *g = psg_module_lookup(got, "main"), *f = psg_module_lookup(m, "main");
      CHECK(psg_function_get_body(g) == psg_function_get_body(f));
      for (size_t i = 0; i < psg_function_num_params(f); i++)
        CHECK(psg_function_get_param(g, i) == psg_function_get_param(f, i));
    }
    again = run_spec(ctx, spec, got);
    CHECK(again && psg_module_lookup(again, "main") == psg_module_lookup(got, "main"));
    CHECK(same_outputs(ctx, m, got));
  }
  psg_module_release(again);
  psg_module_release(got);
  psg_module_release(want);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

typedef struct counter {
  const char *op;
  int n;
} counter;

static psg_status count_post(psg_visitor *v, const psg_expr *e) {
  counter *c = v->user;
  if (psg_expr_kind(e) == PSG_EXPR_CALL && psg_expr_kind(psg_call_get_callee(e)) == PSG_EXPR_OP &&
      !strcmp(psg_op_name(psg_call_get_callee(e)), c->op))
    c->n++;
  return PSG_OK;
}

static int count_calls(const psg_module *m, const char *op) {
  counter c = {op, 0};
  psg_visitor v = {NULL, count_post, &c};
  if (!m) return -1;
  CHECK_OK(psg_visit(psg_expr_get_ctx(psg_module_lookup(m, "main")), &v, psg_module_lookup(m, "main")));
  return c.n;
}

/* ConvertLayout (test_pass_convert_op_layout.py) ------------------------------------------- */

#define CONV_X "%x: Tensor[(1, 4, 8, 8), float32]"
#define CONV_NHWC "data_layout=\"NHWC\", kernel_layout=\"HWIO\""
#define TO_NHWC(v, w) "layout_transform(" v ", src_layout=\"NCHW\", dst_layout=\"NHWC\")"
#define W_HWIO(v) "layout_transform(" v ", src_layout=\"OIHW\", dst_layout=\"HWIO\")"
#define TO_NCHW(v) "layout_transform(" v ", src_layout=\"NHWC\", dst_layout=\"NCHW\")"

/* test_conv_nhwc_convert_layout: conv2d + relu, NCHW -> NHWC. */
static void test_convert_conv_relu(void) {
  check_spec(NHWC,
             HDR "def @main(" CONV_X ", %w: Tensor[(4, 4, 3, 3), float32]) {\n"
                 "  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);\n"
                 "  nn.relu(%0)\n}\n",
             HDR "def @main(" CONV_X ", %w: Tensor[(4, 4, 3, 3), float32]) {\n"
                 "  %0 = " TO_NHWC("%x", ) ";\n"
                 "  %1 = " W_HWIO("%w") ";\n"
                 "  %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3], " CONV_NHWC ");\n"
                 "  %3 = nn.relu(%2);\n"
                 "  " TO_NCHW("%3") "\n}\n");
}

/* test_conv_convert_layout: the other way, NHWC -> NCHW with the default OIHW kernel. */
static void test_convert_to_nchw(void) {
  check_spec("ConvertLayout{desired_layouts={nn.conv2d=[\"NCHW\",\"default\"]}}",
             HDR "def @main(%x: Tensor[(1, 8, 8, 4), float32], %w: Tensor[(3, 3, 4, 4), float32]) {\n"
                 "  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3], " CONV_NHWC ");\n"
                 "  nn.relu(%0)\n}\n",
             HDR "def @main(%x: Tensor[(1, 8, 8, 4), float32], %w: Tensor[(3, 3, 4, 4), float32]) {\n"
                 "  %0 = layout_transform(%x, src_layout=\"NHWC\", dst_layout=\"NCHW\");\n"
                 "  %1 = layout_transform(%w, src_layout=\"HWIO\", dst_layout=\"OIHW\");\n"
                 "  %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3], "
                 "data_layout=\"NCHW\", kernel_layout=\"OIHW\");\n"
                 "  %3 = nn.relu(%2);\n"
                 "  layout_transform(%3, src_layout=\"NCHW\", dst_layout=\"NHWC\")\n}\n");
}

/* The chain conv -> relu -> conv -> relu: exactly one data transform in and
 * one out; the second conv reads the first one's NHWC output directly. */
static void test_convert_chain(void) {
  const char *in = HDR "def @main(" CONV_X ", %w1: Tensor[(4, 4, 3, 3), float32], %w2: Tensor[(4, 4, 3, 3), float32]) {\n"
                       "  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);\n"
                       "  %1 = nn.relu(%0);\n"
                       "  %2 = nn.conv2d(%1, %w2, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);\n"
                       "  nn.relu(%2)\n}\n";
  check_spec(NHWC, in,
             HDR "def @main(" CONV_X ", %w1: Tensor[(4, 4, 3, 3), float32], %w2: Tensor[(4, 4, 3, 3), float32]) {\n"
                 "  %0 = " TO_NHWC("%x", ) ";\n"
                 "  %1 = " W_HWIO("%w1") ";\n"
                 "  %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3], " CONV_NHWC ");\n"
                 "  %3 = nn.relu(%2);\n"
                 "  %4 = " W_HWIO("%w2") ";\n"
                 "  %5 = nn.conv2d(%3, %4, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3], " CONV_NHWC ");\n"
                 "  %6 = nn.relu(%5);\n"
                 "  " TO_NCHW("%6") "\n}\n");
}

/* test_conv_bias_pool_convert_layout after CanonicalizeOps: the (C, 1, 1)
 * bias is expanded to rank 4 and transformed; with constant weights and bias
 * FoldConstant folds every transform of a constant, leaving only the two
 * transforms of the data. */
#define W4 "    {\"dtype\": \"float32\", \"shape\": [2, 2, 1, 1], \"data\": \"AACAPwAAAEAAAEBAAACAQA==\"}"
#define B2 "    {\"dtype\": \"float32\", \"shape\": [2, 1, 1], \"data\": \"zczMPZqZmb4=\"}"
static void test_convert_bias_constants(void) {
  psg_ctx *ctx = check_ctx();
  const char *text = HDR "def @main(%x: Tensor[(1, 2, 3, 3), float32]) {\n"
                         "  %0 = nn.conv2d(%x, meta[relay.Constant][0], channels=2, kernel_size=[1, 1]);\n"
                         "  %1 = add(%0, meta[relay.Constant][1]);\n"
                         "  %2 = nn.relu(%1);\n"
                         "  nn.max_pool2d(%2, pool_size=[2, 2])\n}\n"
                         "#[metadata]\n{\n  \"relay.Constant\": [\n" W4 ",\n" B2 "\n  ]\n}\n";
  psg_module *m = parse(ctx, text);
  psg_module *conv = m ? run_spec(ctx, NHWC, m) : NULL;
  psg_module *folded = conv ? run_spec(ctx, "sequential(" NHWC ",FoldConstant)", m) : NULL;
  CHECK_EQ_INT(count_calls(conv, "layout_transform"), 4); /* x, the weight, the bias, the result */
  CHECK_EQ_INT(count_calls(conv, "expand_dims"), 1);
  CHECK_EQ_INT(count_calls(folded, "layout_transform"), 2);
  CHECK_EQ_INT(count_calls(folded, "expand_dims"), 0);
  if (folded) {
    /* The pool follows the conv into NHWC; the bias now broadcasts as (1, 1, 1, 2). */
    const psg_expr *body = psg_function_get_body(psg_module_lookup(folded, "main"));
    const psg_expr *pool = psg_call_get_arg(body, 0);
    const psg_expr *add = psg_call_get_arg(psg_call_get_arg(pool, 0), 0);
    const psg_attr *layout = psg_attrs_get(psg_call_get_attrs(pool), "layout");
    CHECK(layout && !strcmp(psg_attr_get_string(layout), "NHWC"));
    const psg_type *bt = psg_expr_checked_type(psg_call_get_arg(add, 1));
    CHECK(bt && psg_type_ndim(bt) == 4 && psg_type_dim(bt, 3) == 2 && psg_type_dim(bt, 1) == 1);
    CHECK(same_outputs(ctx, m, folded));
  }
  CHECK(conv && same_outputs(ctx, m, conv));
  psg_module_release(folded);
  psg_module_release(conv);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* nn.bias_add that CanonicalizeOps has not rewritten: its axis follows C. */
static void test_convert_bias_add(void) {
  check_spec(NHWC,
             HDR "def @main(" CONV_X ", %w: Tensor[(4, 4, 3, 3), float32], %b: Tensor[(4), float32]) {\n"
                 "  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);\n"
                 "  %1 = nn.bias_add(%0, %b);\n"
                 "  nn.relu(%1)\n}\n",
             HDR "def @main(" CONV_X ", %w: Tensor[(4, 4, 3, 3), float32], %b: Tensor[(4), float32]) {\n"
                 "  %0 = " TO_NHWC("%x", ) ";\n"
                 "  %1 = " W_HWIO("%w") ";\n"
                 "  %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3], " CONV_NHWC ");\n"
                 "  %3 = nn.bias_add(%2, %b, axis=3);\n"
                 "  %4 = nn.relu(%3);\n"
                 "  " TO_NCHW("%4") "\n}\n");
}

/* test_conv_bias_pool_convert_layout's pools: max and global pools follow
 * the conv's layout; batch_flatten needs NCHW back. */
static void test_convert_pools(void) {
  check_spec(NHWC,
             HDR "def @main(" CONV_X ", %w: Tensor[(4, 4, 3, 3), float32]) {\n"
                 "  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);\n"
                 "  %1 = nn.relu(%0);\n"
                 "  %2 = nn.max_pool2d(%1, pool_size=[2, 2], strides=[2, 2]);\n"
                 "  %3 = nn.global_avg_pool2d(%2);\n"
                 "  nn.batch_flatten(%3)\n}\n",
             HDR "def @main(" CONV_X ", %w: Tensor[(4, 4, 3, 3), float32]) {\n"
                 "  %0 = " TO_NHWC("%x", ) ";\n"
                 "  %1 = " W_HWIO("%w") ";\n"
                 "  %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3], " CONV_NHWC ");\n"
                 "  %3 = nn.relu(%2);\n"
                 "  %4 = nn.max_pool2d(%3, pool_size=[2, 2], strides=[2, 2], layout=\"NHWC\");\n"
                 "  %5 = nn.global_avg_pool2d(%4, layout=\"NHWC\");\n"
                 "  %6 = " TO_NCHW("%5") ";\n"
                 "  nn.batch_flatten(%6)\n}\n");
  /* A desired layout for a pool alone converts just the pool, and writes
   * its out_layout too (TVM's pool layout rule sets both). */
  check_spec("ConvertLayout{desired_layouts={nn.avg_pool2d=[\"NHWC\"]}}",
             HDR "def @main(" CONV_X ") {\n  nn.avg_pool2d(%x, pool_size=[3, 3], padding=[1, 1, 1, 1])\n}\n",
             HDR "def @main(" CONV_X ") {\n"
                 "  %0 = " TO_NHWC("%x", ) ";\n"
                 "  %1 = nn.avg_pool2d(%0, pool_size=[3, 3], padding=[1, 1, 1, 1], layout=\"NHWC\", out_layout=\"NHWC\");\n"
                 "  " TO_NCHW("%1") "\n}\n");
}

/* test_dual_path_convert_layout: one NHWC value read by a converted conv and
 * by batch_flatten, which gets its own transform back. */
static void test_convert_dual_path(void) {
  check_spec(NHWC,
             HDR "def @main(" CONV_X ", %w1: Tensor[(4, 4, 3, 3), float32], %w2: Tensor[(4, 4, 3, 3), float32]) {\n"
                 "  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);\n"
                 "  %1 = nn.relu(%0);\n"
                 "  %2 = nn.conv2d(%1, %w2, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);\n"
                 "  %3 = nn.relu(%2);\n"
                 "  %4 = nn.batch_flatten(%1);\n"
                 "  (%3, %4)\n}\n",
             HDR "def @main(" CONV_X ", %w1: Tensor[(4, 4, 3, 3), float32], %w2: Tensor[(4, 4, 3, 3), float32]) {\n"
                 "  %0 = " TO_NHWC("%x", ) ";\n"
                 "  %1 = " W_HWIO("%w1") ";\n"
                 "  %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3], " CONV_NHWC ");\n"
                 "  %3 = nn.relu(%2);\n"
                 "  %4 = " W_HWIO("%w2") ";\n"
                 "  %5 = nn.conv2d(%3, %4, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3], " CONV_NHWC ");\n"
                 "  %6 = nn.relu(%5);\n"
                 "  %7 = " TO_NCHW("%6") ";\n"
                 "  %8 = " TO_NCHW("%3") ";\n"
                 "  %9 = nn.batch_flatten(%8);\n"
                 "  (%7, %9)\n}\n");
}

/* A transform into the conv's old layout cancels against the new one, and a
 * depthwise conv gets TVM's HWOI kernel. */
static void test_convert_cancel_and_depthwise(void) {
  check_spec(NHWC,
             HDR "def @main(%x: Tensor[(1, 8, 8, 4), float32], %w: Tensor[(4, 1, 3, 3), float32]) {\n"
                 "  %0 = layout_transform(%x, src_layout=\"NHWC\", dst_layout=\"NCHW\");\n"
                 "  %1 = nn.conv2d(%0, %w, padding=[1, 1, 1, 1], groups=4, channels=4, kernel_size=[3, 3]);\n"
                 "  sigmoid(%1)\n}\n",
             HDR "def @main(%x: Tensor[(1, 8, 8, 4), float32], %w: Tensor[(4, 1, 3, 3), float32]) {\n"
                 "  %0 = layout_transform(%w, src_layout=\"OIHW\", dst_layout=\"HWOI\");\n"
                 "  %1 = nn.conv2d(%x, %0, padding=[1, 1, 1, 1], groups=4, channels=4, kernel_size=[3, 3], "
                 "data_layout=\"NHWC\", kernel_layout=\"HWOI\");\n"
                 "  %2 = sigmoid(%1);\n"
                 "  " TO_NCHW("%2") "\n}\n");
}

/* Two convs reading %x share one transform of it (TVM's TransformMemorizer),
 * and their NHWC results add without going back. */
static void test_convert_shared_input(void) {
  check_spec(NHWC,
             HDR "def @main(" CONV_X ", %w1: Tensor[(2, 4, 1, 1), float32], %w2: Tensor[(2, 4, 1, 1), float32]) {\n"
                 "  %0 = nn.conv2d(%x, %w1, channels=2, kernel_size=[1, 1]);\n"
                 "  %1 = nn.conv2d(%x, %w2, channels=2, kernel_size=[1, 1]);\n"
                 "  add(%0, %1)\n}\n",
             HDR "def @main(" CONV_X ", %w1: Tensor[(2, 4, 1, 1), float32], %w2: Tensor[(2, 4, 1, 1), float32]) {\n"
                 "  %0 = " TO_NHWC("%x", ) ";\n"
                 "  %1 = " W_HWIO("%w1") ";\n"
                 "  %2 = nn.conv2d(%0, %1, channels=2, kernel_size=[1, 1], " CONV_NHWC ");\n"
                 "  %3 = " W_HWIO("%w2") ";\n"
                 "  %4 = nn.conv2d(%0, %3, channels=2, kernel_size=[1, 1], " CONV_NHWC ");\n"
                 "  %5 = add(%2, %4);\n"
                 "  " TO_NCHW("%5") "\n}\n");
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, HDR "def @main(" CONV_X ", %w1: Tensor[(2, 4, 1, 1), float32], %w2: Tensor[(2, 4, 1, 1), float32]) {\n"
                                 "  %0 = nn.conv2d(%x, %w1);\n  %1 = nn.conv2d(%x, %w2);\n  add(%0, %1)\n}\n");
  psg_module *out = m ? run_spec(ctx, NHWC, m) : NULL;
  CHECK_EQ_INT(count_calls(out, "layout_transform"), 4);
  psg_module_release(out);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* Where it must not fire: a conv already in the desired layout, an op not
 * named in desired_layouts, a pool with no converted input. */
static void test_convert_no_change(void) {
  check_spec(NHWC,
             HDR "def @main(%x: Tensor[(1, 8, 8, 4), float32], %w: Tensor[(3, 3, 4, 4), float32]) {\n"
                 "  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3], " CONV_NHWC ");\n"
                 "  nn.relu(%0)\n}\n",
             NULL);
  check_spec("ConvertLayout{desired_layouts={nn.max_pool2d=[\"NCHW\"]}}",
             HDR "def @main(" CONV_X ", %w: Tensor[(4, 4, 3, 3), float32]) {\n"
                 "  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);\n"
                 "  %1 = nn.max_pool2d(%0, pool_size=[2, 2]);\n"
                 "  nn.global_max_pool2d(%1)\n}\n",
             NULL);
}

/* Bad desired_layouts are errors when the pass is made, naming the problem. */
static void test_convert_bad_options(void) {
  static const char *const specs[][2] = {
      {"ConvertLayout", "desired_layouts is required"},
      {"ConvertLayout{desired_layouts={nn.dense=[\"NC\"]}}", "nn.dense] is not an op"},
      {"ConvertLayout{desired_layouts={nn.conv2d=[\"default\",\"default\"]}}", "cannot have the data layout"},
      {"ConvertLayout{desired_layouts={nn.conv2d=[\"NHWX\",\"default\"]}}", "made of N, C, H and W"},
      {"ConvertLayout{desired_layouts={nn.conv2d=[\"NHWC\",\"OIHX\"]}}", "made of O, I, H and W"},
      {"ConvertLayout{desired_layouts={nn.conv2d=[]}}", "needs [data layout"},
  };
  for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
    psg_ctx *ctx = check_ctx();
    psg_pass *p = NULL;
    CHECK(psg_pipeline_parse(ctx, specs[i][0], &p) == PSG_ERR_INVALID_ARGUMENT && !p);
    bool found = false;
    for (size_t d = 0; d < psg_ctx_diag_count(ctx); d++) found |= strstr(psg_diag_rendered(psg_ctx_get_diag(ctx, d)), specs[i][1]) != NULL;
    CHECK(found);
    if (!found) fprintf(stderr, "no diagnostic \"%s\" for %s\n", specs[i][1], specs[i][0]);
    psg_ctx_clear_diags(ctx);
    psg_ctx_release(ctx);
  }
}

/* CombineParallelConv2D (test_pass_combine_parallel_conv2d.py) ------------------------------ */

#define SLICE(v, b, s) "strided_slice(" v ", begin=[0, " #b "], end=[-1, " #s "], strides=[1, 1], slice_mode=\"size\")"
#define X16 "%x: Tensor[(1, 4, 16, 16), float32]"

/* test_combine_parallel_conv2d: three 1x1 convs combine, the 3x3 one and
 * the pool stay. */
static void test_combine_simple(void) {
  const char *params = X16 ", %w1: Tensor[(4, 4, 1, 1), float32], %w2: Tensor[(8, 4, 1, 1), float32], "
                           "%w3: Tensor[(4, 4, 3, 3), float32], %w4: Tensor[(7, 4, 1, 1), float32]";
  char in[1024], want[2048];
  snprintf(in, sizeof in,
           HDR "def @main(%s) {\n"
               "  %%0 = nn.conv2d(%%x, %%w1);\n  %%1 = nn.conv2d(%%x, %%w2);\n  %%2 = nn.conv2d(%%x, %%w3);\n"
               "  %%3 = nn.conv2d(%%x, %%w4);\n  %%4 = nn.max_pool2d(%%x, pool_size=[2, 2]);\n"
               "  (%%0, %%1, %%2, %%3, %%4)\n}\n",
           params);
  snprintf(want, sizeof want,
           HDR "def @main(%s) {\n"
               "  %%0 = (%%w1, %%w2, %%w4);\n  %%1 = concatenate(%%0, axis=0);\n"
               "  %%2 = nn.conv2d(%%x, %%1, channels=19);\n"
               "  %%3 = " SLICE("%%2", 0, 4) ";\n  %%4 = " SLICE("%%2", 4, 8) ";\n"
               "  %%5 = nn.conv2d(%%x, %%w3);\n  %%6 = " SLICE("%%2", 12, 7) ";\n"
               "  %%7 = nn.max_pool2d(%%x, pool_size=[2, 2]);\n"
               "  (%%3, %%4, %%5, %%6, %%7)\n}\n",
           params);
  check_spec("CombineParallelConv2D{min_num_branches=2}", in, want);
  check_spec("CombineParallelConv2D", in, want); /* three branches: the default minimum */
  check_spec("CombineParallelConv2D{min_num_branches=4}", in, NULL);
}

/* test_combine_parallel_conv2d_scale_relu: the per-channel scales and the
 * relu combine; the add of one branch stays after its slice. */
static void test_combine_scale_relu(void) {
  const char *params = X16 ", %w1: Tensor[(4, 4, 1, 1), float32], %w2: Tensor[(8, 4, 1, 1), float32], "
                           "%s1: Tensor[(4, 1, 1), float32], %s2: Tensor[(8, 1, 1), float32], %b: Tensor[(8, 1, 1), float32]";
  char in[1024], want[2048];
  snprintf(in, sizeof in,
           HDR "def @main(%s) {\n"
               "  %%0 = nn.conv2d(%%x, %%w1);\n  %%1 = multiply(%%0, %%s1);\n  %%2 = nn.relu(%%1);\n"
               "  %%3 = nn.conv2d(%%x, %%w2);\n  %%4 = multiply(%%3, %%s2);\n  %%5 = nn.relu(%%4);\n"
               "  %%6 = add(%%5, %%b);\n  (%%2, %%6)\n}\n",
           params);
  snprintf(want, sizeof want,
           HDR "def @main(%s) {\n"
               "  %%0 = (%%w1, %%w2);\n  %%1 = concatenate(%%0, axis=0);\n"
               "  %%2 = nn.conv2d(%%x, %%1, channels=12);\n"
               "  %%3 = (%%s1, %%s2);\n  %%4 = concatenate(%%3, axis=0);\n"
               "  %%5 = multiply(%%2, %%4);\n  %%6 = nn.relu(%%5);\n"
               "  %%7 = " SLICE("%%6", 0, 4) ";\n  %%8 = " SLICE("%%6", 4, 8) ";\n"
               "  %%9 = add(%%8, %%b);\n  (%%7, %%9)\n}\n",
           params);
  check_spec("CombineParallelConv2D{min_num_branches=2}", in, want);
  check_spec("CombineParallelConv2D", in, NULL); /* two branches < 3 */
}

/* test_combine_parallel_conv2d_scale: scalar-like scales of shape (1) cannot
 * be concatenated along C, so only the convs combine. */
static void test_combine_scale_not_channel(void) {
  const char *params = X16 ", %w1: Tensor[(4, 4, 1, 1), float32], %w2: Tensor[(8, 4, 1, 1), float32], "
                           "%s1: Tensor[(1), float32], %s2: Tensor[(1), float32]";
  char in[1024], want[2048];
  snprintf(in, sizeof in,
           HDR "def @main(%s) {\n"
               "  %%0 = nn.conv2d(%%x, %%w1);\n  %%1 = multiply(%%0, %%s1);\n"
               "  %%2 = nn.conv2d(%%x, %%w2);\n  %%3 = multiply(%%2, %%s2);\n  (%%1, %%3)\n}\n",
           params);
  snprintf(want, sizeof want,
           HDR "def @main(%s) {\n"
               "  %%0 = (%%w1, %%w2);\n  %%1 = concatenate(%%0, axis=0);\n"
               "  %%2 = nn.conv2d(%%x, %%1, channels=12);\n"
               "  %%3 = " SLICE("%%2", 0, 4) ";\n  %%4 = multiply(%%3, %%s1);\n"
               "  %%5 = " SLICE("%%2", 4, 8) ";\n  %%6 = multiply(%%5, %%s2);\n  (%%4, %%6)\n}\n",
           params);
  check_spec("CombineParallelConv2D{min_num_branches=2}", in, want);
}

/* test_combine_parallel_conv2d_multiple_blocks: each block's pair combines,
 * the second block reading the first one's slices. */
static void test_combine_multiple_blocks(void) {
  const char *params = X16 ", %w: Tensor[(2, 4, 1, 1), float32]";
  char in[1024], want[2048];
  snprintf(in, sizeof in,
           HDR "def @main(%s) {\n"
               "  %%0 = nn.conv2d(%%x, %%w);\n  %%1 = nn.conv2d(%%x, %%w);\n  %%2 = (%%0, %%1);\n"
               "  %%3 = concatenate(%%2, axis=1);\n"
               "  %%4 = nn.conv2d(%%3, %%w);\n  %%5 = nn.conv2d(%%3, %%w);\n  %%6 = (%%4, %%5);\n"
               "  concatenate(%%6, axis=1)\n}\n",
           params);
  snprintf(want, sizeof want,
           HDR "def @main(%s) {\n"
               "  %%0 = (%%w, %%w);\n  %%1 = concatenate(%%0, axis=0);\n  %%2 = nn.conv2d(%%x, %%1, channels=4);\n"
               "  %%3 = " SLICE("%%2", 0, 2) ";\n  %%4 = " SLICE("%%2", 2, 2) ";\n  %%5 = (%%3, %%4);\n"
               "  %%6 = concatenate(%%5, axis=1);\n"
               "  %%7 = (%%w, %%w);\n  %%8 = concatenate(%%7, axis=0);\n  %%9 = nn.conv2d(%%6, %%8, channels=4);\n"
               "  %%10 = " SLICE("%%9", 0, 2) ";\n  %%11 = " SLICE("%%9", 2, 2) ";\n  %%12 = (%%10, %%11);\n"
               "  concatenate(%%12, axis=1)\n}\n",
           params);
  check_spec("CombineParallelConv2D{min_num_branches=2}", in, want);
}

/* Different strides or kernel sizes, or groups != 1, never combine. */
static void test_combine_incompatible(void) {
  check_spec("CombineParallelConv2D{min_num_branches=2}",
             HDR "def @main(" X16 ", %w1: Tensor[(4, 4, 1, 1), float32], %w2: Tensor[(4, 4, 1, 1), float32], "
                 "%w3: Tensor[(4, 1, 1, 1), float32], %w4: Tensor[(4, 1, 1, 1), float32]) {\n"
                 "  %0 = nn.conv2d(%x, %w1, strides=[2, 2]);\n  %1 = nn.conv2d(%x, %w2);\n"
                 "  %2 = nn.conv2d(%x, %w3, groups=4);\n  %3 = nn.conv2d(%x, %w4, groups=4);\n"
                 "  (%0, %1, %2, %3)\n}\n",
             NULL);
}

/* CanonicalizeCast (test_pass_canonicalize_cast.py) ------------------------------------------- */

static void test_canonicalize_cast(void) {
  const char *params = "%data: Tensor[(1, 16, 7, 7), int8], %weight: Tensor[(16, 16, 3, 3), int8], "
                       "%bias1: Tensor[(16, 1, 1), int32], %bias2: Tensor[(16, 1, 1), int32]";
  char in[1024], want[1024];
  snprintf(in, sizeof in,
           HDR "def @main(%s) {\n"
               "  %%0 = nn.conv2d(%%data, %%weight, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3], "
               "out_dtype=\"int8\");\n"
               "  %%1 = cast(%%0, dtype=\"int32\");\n  %%2 = add(%%1, %%bias1);\n  %%3 = add(%%1, %%bias2);\n"
               "  add(%%2, %%3)\n}\n",
           params);
  snprintf(want, sizeof want,
           HDR "def @main(%s) {\n"
               "  %%0 = nn.conv2d(%%data, %%weight, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3], "
               "out_dtype=\"int8\");\n"
               "  %%1 = cast(%%0, dtype=\"int32\");\n  %%2 = add(%%1, %%bias1);\n"
               "  %%3 = cast(%%0, dtype=\"int32\");\n  %%4 = add(%%3, %%bias2);\n"
               "  add(%%2, %%4)\n}\n",
           params);
  check_spec("CanonicalizeCast", in, want);
  /* Two cast nodes now (structural equality alone would not tell sharing). */
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, in), *out = m ? run_spec(ctx, "CanonicalizeCast", m) : NULL;
  CHECK_EQ_INT(count_calls(m, "cast"), 1);
  CHECK_EQ_INT(count_calls(out, "cast"), 2);
  psg_module_release(out);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* Not an upcast (int32 -> int8), or a non-elementwise consumer: no copies. */
static void test_canonicalize_cast_no_change(void) {
  check_spec("CanonicalizeCast",
             HDR "def @main(%x: Tensor[(4), int32], %y: Tensor[(4), int8]) {\n"
                 "  %0 = cast(%x, dtype=\"int8\");\n  %1 = add(%0, %y);\n  %2 = multiply(%0, %y);\n  (%1, %2)\n}\n",
             NULL);
  check_spec("CanonicalizeCast",
             HDR "def @main(%x: Tensor[(2, 3), int8]) {\n"
                 "  %0 = cast(%x, dtype=\"float32\");\n  %1 = nn.softmax(%0);\n  %2 = nn.batch_flatten(%0);\n"
                 "  (%1, %2)\n}\n",
             NULL);
}

/* FastMath ---------------------------------------------------------------------------------- */

static void test_fast_math(void) {
  check_spec("FastMath",
             HDR "def @main(%x: Tensor[(2, 3), float32]) {\n"
                 "  %0 = exp(%x);\n  %1 = tanh(%0);\n  %2 = erf(%1);\n  %3 = nn.softmax(%2, axis=1);\n"
                 "  %4 = sigmoid(%3);\n  log(%4)\n}\n",
             HDR "def @main(%x: Tensor[(2, 3), float32]) {\n"
                 "  %0 = fast_exp(%x);\n  %1 = fast_tanh(%0);\n  %2 = fast_erf(%1);\n"
                 "  %3 = nn.fast_softmax(%2, axis=1);\n  %4 = sigmoid(%3);\n  log(%4)\n}\n");
  check_spec("FastMath", HDR "def @main(%x: Tensor[(2, 3), float32]) {\n  %0 = sigmoid(%x);\n  log(%0)\n}\n", NULL);
}

/* AlterOpLayout and the registry -------------------------------------------------------------- */

/* No target, no alter hooks: the module keeps its very nodes. */
static void test_alter_op_layout_identity(void) {
  check_spec("AlterOpLayout",
             HDR "def @main(" CONV_X ", %w: Tensor[(4, 4, 3, 3), float32]) {\n"
                 "  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);\n"
                 "  %1 = nn.relu(%0);\n  nn.max_pool2d(%1, pool_size=[2, 2])\n}\n",
             NULL);
}

/* TVM's names, opt levels and required lists (tvm-behavior §7.1). */
static void test_pass_infos(void) {
  static const struct {
    const char *spec, *name;
    int opt;
    const char *required;
  } want[] = {
      {NHWC, "ConvertLayout", 3, "InferType,CanonicalizeOps"},
      {"AlterOpLayout", "AlterOpLayout", 3, "InferType"},
      {"CombineParallelConv2D", "CombineParallelConv2D", 4, "InferType"},
      {"CanonicalizeCast", "CanonicalizeCast", 3, "InferType"},
      {"FastMath", "FastMath", 4, "InferType"},
  };
  psg_ctx *ctx = check_ctx();
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    psg_pass *p = NULL;
    CHECK_OK(psg_pipeline_parse(ctx, want[i].spec, &p));
    if (!p) continue;
    const psg_pass_info *info = psg_pass_get_info(p);
    char req[128] = "";
    for (size_t k = 0; k < psg_pass_info_num_required(info); k++) {
      if (k) strcat(req, ",");
      strcat(req, psg_pass_info_required(info, k));
    }
    CHECK_STR(psg_pass_info_name(info), want[i].name);
    CHECK_EQ_INT(psg_pass_info_opt_level(info), want[i].opt);
    CHECK_STR(req, want[i].required);
    CHECK_EQ_INT(psg_pass_kind(p), PSG_PASS_FUNCTION);
    psg_pass_release(p);
  }
  CHECK_CTX_CLEAN(ctx);
}

/* In a Sequential at opt 3, ConvertLayout's required CanonicalizeOps runs
 * first (bias_add becomes an add that follows the layout), and the opt-4
 * passes are skipped unless required. */
static void test_in_sequential(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, HDR "def @main(" CONV_X ", %w: Tensor[(4, 4, 3, 3), float32], %b: Tensor[(4), float32]) {\n"
                                 "  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);\n"
                                 "  %1 = nn.bias_add(%0, %b);\n  exp(%1)\n}\n");
  psg_pass_context *pc = NULL;
  psg_pass *p = NULL;
  psg_module *out = NULL;
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  CHECK_OK(psg_pass_context_set_opt_level(pc, 3));
  CHECK_OK(psg_pipeline_parse(ctx, "sequential(" NHWC ",FastMath)", &p));
  if (m && p) CHECK_OK(psg_pass_run(p, m, pc, &out));
  CHECK_EQ_INT(count_calls(out, "nn.bias_add"), 0);
  CHECK_EQ_INT(count_calls(out, "layout_transform"), 4); /* x, w, the bias, the result */
  CHECK_EQ_INT(count_calls(out, "exp"), 1);             /* FastMath is opt 4 */
  CHECK(out && same_outputs(ctx, m, out));
  psg_module_release(out);
  psg_pass_release(p);
  psg_pass_context_release(pc);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_convert_conv_relu);
  RUN_TEST(test_convert_to_nchw);
  RUN_TEST(test_convert_chain);
  RUN_TEST(test_convert_bias_constants);
  RUN_TEST(test_convert_bias_add);
  RUN_TEST(test_convert_pools);
  RUN_TEST(test_convert_dual_path);
  RUN_TEST(test_convert_cancel_and_depthwise);
  RUN_TEST(test_convert_shared_input);
  RUN_TEST(test_convert_no_change);
  RUN_TEST(test_convert_bad_options);
  RUN_TEST(test_combine_simple);
  RUN_TEST(test_combine_scale_relu);
  RUN_TEST(test_combine_scale_not_channel);
  RUN_TEST(test_combine_multiple_blocks);
  RUN_TEST(test_combine_incompatible);
  RUN_TEST(test_canonicalize_cast);
  RUN_TEST(test_canonicalize_cast_no_change);
  RUN_TEST(test_fast_math);
  RUN_TEST(test_alter_op_layout_identity);
  RUN_TEST(test_pass_infos);
  RUN_TEST(test_in_sequential);
  return check_finish();
}
