/* Deep-graph test for the standard passes (STYLE rule 9), run with
 * `ulimit -s 1024`: over a 1,000,000-node typed add chain, a Sequential at
 * opt level 3 runs InferType (through `required`), SimplifyInference,
 * EliminateCommonSubexpr, FoldScaleAxis, FoldConstant and
 * DeadCodeElimination; over a 1,000,000-binding let chain where every other
 * binding is dead, DeadCodeElimination removes exactly those. */
#include "../unit/check.h"
#include "deep_size.h"

enum { N = PASSAGE_DEEP_N };

static const psg_type *vec2(psg_ctx *ctx) {
  const psg_type *t = NULL;
  psg_type_tensor(ctx, (int64_t[]){2}, 1, PSG_DTYPE_FLOAT32, &t);
  return t;
}

static psg_module *module_of(psg_ctx *ctx, psg_expr *param, psg_expr *body) {
  psg_expr *fn = NULL, *gv = NULL;
  psg_module *empty = NULL, *m = NULL;
  CHECK_OK(psg_function_create(ctx, &param, 1, body, NULL, NULL, NULL, &fn));
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &gv));
  CHECK_OK(psg_module_create(ctx, &empty));
  CHECK_OK(psg_module_add(empty, gv, fn, &m));
  psg_module_release(empty);
  psg_expr_release(gv);
  psg_expr_release(fn);
  return m;
}

static psg_module *run_pipeline(psg_ctx *ctx, psg_module *m, const char *const *names, size_t n) {
  psg_pass *passes[8] = {NULL}, *seq = NULL;
  psg_pass_context *pc = NULL;
  psg_module *out = NULL;
  for (size_t i = 0; i < n; i++) CHECK_OK(psg_pass_get(ctx, names[i], NULL, &passes[i]));
  CHECK_OK(psg_sequential(ctx, passes, n, NULL, &seq));
  CHECK_OK(psg_pass_context_create(ctx, &pc));
  CHECK_OK(psg_pass_context_set_opt_level(pc, 3));
  if (seq) CHECK_OK(psg_pass_run(seq, m, pc, &out));
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
  for (size_t i = 0; i < n; i++) psg_pass_release(passes[i]);
  psg_pass_release(seq);
  psg_pass_context_release(pc);
  return out;
}

static void test_passes_on_add_chain(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *x = NULL, *add = NULL, *cur;
  CHECK_OK(psg_var_create(ctx, "x", vec2(ctx), NULL, &x));
  CHECK_OK(psg_op_get(ctx, "add", &add));
  cur = x;
  psg_expr_retain(cur);
  for (int i = 0; i < N; i++) {
    psg_expr *next = NULL;
    CHECK_OK(psg_call_create(ctx, add, (psg_expr *[]){cur, x}, 2, NULL, NULL, &next));
    psg_expr_release(cur);
    cur = next;
  }
  psg_module *m = module_of(ctx, x, cur);
  static const char *const names[] = {"SimplifyInference", "EliminateCommonSubexpr", "FoldScaleAxis",
                                      "FoldConstant", "DeadCodeElimination"};
  psg_module *out = run_pipeline(ctx, m, names, 5);
  CHECK(out != NULL);
  /* Nothing to change on a chain of distinct adds: the same body back. */
  if (out) CHECK(psg_function_get_body(psg_module_lookup(out, "main")) == cur);
  psg_module_release(out);
  psg_module_release(m);
  psg_expr_release(cur);
  psg_expr_release(add);
  psg_expr_release(x);
  CHECK_CTX_CLEAN(ctx);
}

static void test_dce_on_let_chain(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *x = NULL, *add = NULL;
  CHECK_OK(psg_var_create(ctx, "x", vec2(ctx), NULL, &x));
  CHECK_OK(psg_op_get(ctx, "add", &add));
  /* let %v0 = add(x, x); let %v1 = add(v0, x) [dead if odd]; ...; the body
   * uses the last live var. Even bindings chain through the previous even one. */
  psg_expr **vars = malloc(N * sizeof *vars), **values = malloc(N * sizeof *values);
  psg_expr *live = x;
  for (int i = 0; i < N; i++) {
    char name[16];
    snprintf(name, sizeof name, "v%d", i);
    CHECK_OK(psg_var_create(ctx, name, NULL, NULL, &vars[i]));
    CHECK_OK(psg_call_create(ctx, add, (psg_expr *[]){live, x}, 2, NULL, NULL, &values[i]));
    if (i % 2 == 0) live = vars[i];
  }
  psg_expr *body = live;
  psg_expr_retain(body);
  for (int i = N - 1; i >= 0; i--) {
    psg_expr *let = NULL;
    CHECK_OK(psg_let_create(ctx, vars[i], values[i], body, NULL, &let));
    psg_expr_release(body);
    body = let;
  }
  psg_module *m = module_of(ctx, x, body);
  static const char *const names[] = {"DeadCodeElimination"};
  psg_module *out = run_pipeline(ctx, m, names, 1);
  CHECK(out != NULL);
  if (out) {
    long lets = 0;
    for (const psg_expr *e = psg_function_get_body(psg_module_lookup(out, "main"));
         psg_expr_kind(e) == PSG_EXPR_LET; e = psg_let_get_body(e))
      lets++;
    CHECK_EQ_INT(lets, N / 2);
  }
  psg_module_release(out);
  psg_module_release(m);
  psg_expr_release(body);
  for (int i = 0; i < N; i++) {
    psg_expr_release(vars[i]);
    psg_expr_release(values[i]);
  }
  free(vars);
  free(values);
  psg_expr_release(add);
  psg_expr_release(x);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_passes_on_add_chain);
  RUN_TEST(test_dce_on_let_chain);
  return check_finish();
}
