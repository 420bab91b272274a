/* Deep-graph test of FoldConstant (issue 5, STYLE rule 9), run with
 * `ulimit -s 1024`: a 1,000,000-node constant add chain folds to one
 * constant; a 1,000,000-binding let chain of constants folds away; a
 * 1,000,000-node chain on a parameter whose every other operand is a
 * constant subgraph keeps its calls, each operand folded once to the same
 * constant node. (The plain non-constant chain through a whole -O3
 * Sequential is in test_deep_passes.c.) */
#include "../unit/check.h"
#include "deep_size.h"

enum { N = PASSAGE_DEEP_N };

static psg_expr *scalar(psg_ctx *ctx, float v) {
  psg_tensor *t = NULL;
  psg_expr *c = NULL;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, NULL, 0, &v, &t));
  CHECK_OK(psg_constant_create(ctx, t, NULL, &c));
  psg_tensor_release(t);
  return c;
}

static psg_expr *add(psg_ctx *ctx, psg_expr *a, psg_expr *b) {
  psg_expr *op = NULL, *e = NULL;
  CHECK_OK(psg_op_get(ctx, "add", &op));
  CHECK_OK(psg_call_create(ctx, op, (psg_expr *[]){a, b}, 2, NULL, NULL, &e));
  psg_expr_release(op);
  return e;
}

/* @main(%x: float32) { body }, folded. */
static psg_module *fold_main(psg_ctx *ctx, psg_expr *x, psg_expr *body, psg_module **in) {
  psg_expr *fn = NULL, *gv = NULL;
  psg_module *empty = NULL, *out = NULL;
  psg_pass *fold = NULL;
  CHECK_OK(psg_function_create(ctx, &x, 1, body, NULL, NULL, NULL, &fn));
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &gv));
  CHECK_OK(psg_module_create(ctx, &empty));
  CHECK_OK(psg_module_add(empty, gv, fn, in));
  CHECK_OK(psg_pass_get(ctx, "FoldConstant", NULL, &fold));
  CHECK_OK(psg_pass_run(fold, *in, NULL, &out));
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
  psg_pass_release(fold);
  psg_module_release(empty);
  psg_expr_release(gv);
  psg_expr_release(fn);
  return out;
}

static float scalar_value(const psg_expr *e) {
  if (!e || psg_expr_kind(e) != PSG_EXPR_CONSTANT) return -1;
  return *(const float *)psg_tensor_data(psg_constant_get_tensor(e));
}

static const psg_type *f32(psg_ctx *ctx) {
  const psg_type *t = NULL;
  CHECK_OK(psg_type_tensor(ctx, NULL, 0, PSG_DTYPE_FLOAT32, &t));
  return t;
}

/* add(%x, c_N) with c_0 = 1f, c_{i+1} = add(c_i, 1f): add(%x, 1000001f). */
static void test_constant_chain(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *x = NULL, *one = scalar(ctx, 1.0f), *cur = one;
  CHECK_OK(psg_var_create(ctx, "x", f32(ctx), NULL, &x));
  psg_expr_retain(cur);
  for (int i = 0; i < N; i++) {
    psg_expr *next = add(ctx, cur, one);
    psg_expr_release(cur);
    cur = next;
  }
  psg_expr *body = add(ctx, x, cur);
  psg_module *in = NULL, *out = fold_main(ctx, x, body, &in);
  CHECK(out != NULL);
  if (out) {
    const psg_expr *b = psg_function_get_body(psg_module_lookup(out, "main"));
    CHECK_EQ_INT(psg_expr_kind(b), PSG_EXPR_CALL);
    CHECK(psg_call_get_arg(b, 0) == x);
    CHECK_EQ_INT((long long)scalar_value(psg_call_get_arg(b, 1)), N + 1);
  }
  psg_module_release(out);
  psg_module_release(in);
  psg_expr_release(body);
  psg_expr_release(cur);
  psg_expr_release(one);
  psg_expr_release(x);
  CHECK_CTX_CLEAN(ctx);
}

/* let %t0 = 1f; let %t1 = add(%t0, 1f); ...; add(%x, %t_N): every binding
 * is propagated and dropped, leaving add(%x, 1000001f). */
static void test_constant_let_chain(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *x = NULL, *one = scalar(ctx, 1.0f);
  CHECK_OK(psg_var_create(ctx, "x", f32(ctx), NULL, &x));
  psg_expr **vars = malloc((N + 1) * sizeof *vars), **values = malloc((N + 1) * sizeof *values);
  for (int i = 0; i <= N; i++) {
    char name[16];
    snprintf(name, sizeof name, "t%d", i);
    CHECK_OK(psg_var_create(ctx, name, NULL, NULL, &vars[i]));
    if (i == 0) {
      values[i] = one;
      psg_expr_retain(one);
    } else {
      values[i] = add(ctx, vars[i - 1], one);
    }
  }
  psg_expr *body = add(ctx, x, vars[N]);
  for (int i = N; i >= 0; i--) {
    psg_expr *let = NULL;
    CHECK_OK(psg_let_create(ctx, vars[i], values[i], body, NULL, &let));
    psg_expr_release(body);
    body = let;
  }
  psg_module *in = NULL, *out = fold_main(ctx, x, body, &in);
  CHECK(out != NULL);
  if (out) {
    const psg_expr *b = psg_function_get_body(psg_module_lookup(out, "main"));
    CHECK_EQ_INT(psg_expr_kind(b), PSG_EXPR_CALL);
    if (psg_expr_kind(b) == PSG_EXPR_CALL) CHECK_EQ_INT((long long)scalar_value(psg_call_get_arg(b, 1)), N + 1);
  }
  psg_module_release(out);
  psg_module_release(in);
  psg_expr_release(body);
  for (int i = 0; i <= N; i++) {
    psg_expr_release(vars[i]);
    psg_expr_release(values[i]);
  }
  free(vars);
  free(values);
  psg_expr_release(one);
  psg_expr_release(x);
  CHECK_CTX_CLEAN(ctx);
}

/* v_{i+1} = add(v_i, add(1f, 1f)) from %x: the chain stays (N calls), and
 * every second operand is one shared constant 2f (the shared subgraph was
 * evaluated once). */
static void test_non_constant_chain(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *x = NULL, *one = scalar(ctx, 1.0f), *two = add(ctx, one, one), *cur = NULL;
  CHECK_OK(psg_var_create(ctx, "x", f32(ctx), NULL, &x));
  cur = x;
  psg_expr_retain(cur);
  for (int i = 0; i < N; i++) {
    psg_expr *next = add(ctx, cur, two);
    psg_expr_release(cur);
    cur = next;
  }
  psg_module *in = NULL, *out = fold_main(ctx, x, cur, &in);
  CHECK(out != NULL);
  if (out) {
    const psg_expr *e = psg_function_get_body(psg_module_lookup(out, "main")), *c = NULL;
    long calls = 0;
    bool shared = true;
    while (psg_expr_kind(e) == PSG_EXPR_CALL) {
      const psg_expr *k = psg_call_get_arg(e, 1);
      if (!c) c = k;
      shared &= k == c;
      calls++;
      e = psg_call_get_arg(e, 0);
    }
    CHECK_EQ_INT(calls, N);
    CHECK(e == x);
    CHECK(shared);
    CHECK_EQ_INT((long long)scalar_value(c), 2);
  }
  psg_module_release(out);
  psg_module_release(in);
  psg_expr_release(cur);
  psg_expr_release(two);
  psg_expr_release(one);
  psg_expr_release(x);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_constant_chain);
  RUN_TEST(test_constant_let_chain);
  RUN_TEST(test_non_constant_chain);
  return check_finish();
}
