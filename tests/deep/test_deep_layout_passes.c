/* Deep-graph test (STYLE rule 9, run with `ulimit -s 1024`) for ConvertLayout,
 * CombineParallelConv2D, CanonicalizeCast, FastMath and AlterOpLayout: two
 * 1x1 conv2ds on %x, each followed by a 500,000-op relu/exp chain, joined by
 * an add and a shared upcast. Each pass must go through the million nodes and
 * do its job: the layout flows through both chains (4 transforms in all), the
 * two branches combine level by level into one chain, every exp becomes
 * fast_exp, the upcast is copied once, AlterOpLayout keeps the function. */
#include <time.h>
#include "../unit/check.h"
#include "deep_size.h"

enum { N = PASSAGE_DEEP_N, HALF = N / 2 };

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static psg_expr *call(psg_ctx *ctx, const char *op, psg_expr *const *args, size_t n, psg_attrs *attrs) {
  psg_expr *callee = NULL, *out = NULL;
  CHECK_OK(psg_op_get(ctx, op, &callee));
  CHECK_OK(psg_call_create(ctx, callee, args, n, attrs, NULL, &out));
  psg_expr_release(callee);
  return out;
}

/* relu/exp alternating, `n` ops on top of `x` (taken over). */
static psg_expr *chain(psg_ctx *ctx, psg_expr *x, int n) {
  psg_expr *relu = NULL, *exp = NULL;
  CHECK_OK(psg_op_get(ctx, "nn.relu", &relu));
  CHECK_OK(psg_op_get(ctx, "exp", &exp));
  for (int i = 0; i < n; i++) {
    psg_expr *next = NULL;
    CHECK_OK(psg_call_create(ctx, i % 2 ? exp : relu, &x, 1, NULL, NULL, &next));
    psg_expr_release(x);
    x = next;
  }
  psg_expr_release(relu);
  psg_expr_release(exp);
  return x;
}

static psg_module *build(psg_ctx *ctx) {
  const psg_type *tx = NULL, *tw = NULL;
  CHECK_OK(psg_type_tensor(ctx, (int64_t[]){1, 2, 4, 4}, 4, PSG_DTYPE_FLOAT32, &tx));
  CHECK_OK(psg_type_tensor(ctx, (int64_t[]){2, 2, 1, 1}, 4, PSG_DTYPE_FLOAT32, &tw));
  psg_expr *params[3] = {NULL, NULL, NULL};
  CHECK_OK(psg_var_create(ctx, "x", tx, NULL, &params[0]));
  CHECK_OK(psg_var_create(ctx, "w1", tw, NULL, &params[1]));
  CHECK_OK(psg_var_create(ctx, "w2", tw, NULL, &params[2]));
  psg_expr *a = chain(ctx, call(ctx, "nn.conv2d", (psg_expr *[]){params[0], params[1]}, 2, NULL), HALF);
  psg_expr *b = chain(ctx, call(ctx, "nn.conv2d", (psg_expr *[]){params[0], params[2]}, 2, NULL), HALF);
  psg_expr *sum = call(ctx, "add", (psg_expr *[]){a, b}, 2, NULL);
  psg_attr *f64 = NULL;
  psg_attrs *attrs = NULL;
  CHECK_OK(psg_attr_dtype(ctx, PSG_DTYPE_FLOAT64, &f64));
  CHECK_OK(psg_attrs_create(ctx, (const char *[]){"dtype"}, &f64, 1, &attrs));
  psg_expr *up = call(ctx, "cast", &sum, 1, attrs);
  psg_expr *e = call(ctx, "exp", &up, 1, NULL), *s = call(ctx, "sigmoid", &up, 1, NULL);
  psg_expr *body = call(ctx, "add", (psg_expr *[]){e, s}, 2, NULL);
  psg_expr *fn = NULL, *gv = NULL;
  psg_module *empty = NULL, *m = NULL;
  CHECK_OK(psg_function_create(ctx, params, 3, body, NULL, NULL, NULL, &fn));
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &gv));
  CHECK_OK(psg_module_create(ctx, &empty));
  CHECK_OK(psg_module_add(empty, gv, fn, &m));
  psg_expr *owned[] = {params[0], params[1], params[2], a, b, sum, up, e, s, body, fn, gv};
  for (size_t i = 0; i < sizeof owned / sizeof *owned; i++) psg_expr_release(owned[i]);
  psg_attr_release(f64);
  psg_attrs_release(attrs);
  psg_module_release(empty);
  return m;
}

typedef struct counter {
  const char *op;
  size_t n;
} counter;

static psg_status count_post(psg_visitor *v, const psg_expr *e) {
  counter *c = v->user;
  if (psg_expr_kind(e) == PSG_EXPR_CALL && psg_expr_kind(psg_call_get_callee(e)) == PSG_EXPR_OP &&
      !strcmp(psg_op_name(psg_call_get_callee(e)), c->op))
    c->n++;
  return PSG_OK;
}

static size_t count_calls(psg_ctx *ctx, const psg_module *m, const char *op) {
  counter c = {op, 0};
  psg_visitor v = {NULL, count_post, &c};
  if (!m) return (size_t)-1;
  CHECK_OK(psg_visit(ctx, &v, psg_module_lookup(m, "main")));
  return c.n;
}

static psg_module *run_spec(psg_ctx *ctx, const char *spec, psg_module *in) {
  psg_pass *p = NULL;
  psg_module *out = NULL;
  double t0 = now();
  CHECK_OK(psg_pipeline_parse(ctx, spec, &p));
  if (p) CHECK_OK(psg_pass_run(p, in, NULL, &out));
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
  printf("  %s over %d nodes: %.2f s\n", spec, N, now() - t0);
  psg_pass_release(p);
  return out;
}

static void test_deep_layout_passes(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = build(ctx);

  psg_module *out = run_spec(ctx, "ConvertLayout{desired_layouts={nn.conv2d=[\"NHWC\",\"default\"]}}", m);
  CHECK_EQ_INT(count_calls(ctx, out, "layout_transform"), 4); /* x, w1, w2 in; the result out */
  CHECK_EQ_INT(count_calls(ctx, out, "nn.relu"), N / 2);
  psg_module_release(out);

  out = run_spec(ctx, "CombineParallelConv2D{min_num_branches=2}", m);
  CHECK_EQ_INT(count_calls(ctx, out, "nn.conv2d"), 1);
  CHECK_EQ_INT(count_calls(ctx, out, "strided_slice"), 2);
  CHECK_EQ_INT(count_calls(ctx, out, "nn.relu"), N / 4); /* one combined chain */
  psg_module_release(out);

  out = run_spec(ctx, "FastMath", m);
  CHECK_EQ_INT(count_calls(ctx, out, "exp"), 0);
  CHECK_EQ_INT(count_calls(ctx, out, "fast_exp"), N / 2 + 1);
  psg_module_release(out);

  out = run_spec(ctx, "CanonicalizeCast", m);
  CHECK_EQ_INT(count_calls(ctx, out, "cast"), 2);
  psg_module_release(out);

  out = run_spec(ctx, "AlterOpLayout", m);
  /* Unchanged: the very same body (InferType wrote @main's return type in). */
  CHECK(out && psg_function_get_body(psg_module_lookup(out, "main")) ==
                   psg_function_get_body(psg_module_lookup(m, "main")));
  psg_module_release(out);

  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_deep_layout_passes);
  return check_finish();
}
