/* Deep-graph test for the normal-form passes (STYLE rule 9), run with
 * `ulimit -s 1024`: a 1,000,000-node add chain goes through ToANormalForm
 * (a 1,000,000-binding let chain comes out), ToGraphNormalForm (the very
 * chain comes back, structurally), ToBasicBlockNormalForm (nothing to scope:
 * the same function) and LambdaLift (nothing to lift: the same function). */
#include "../unit/check.h"
#include "deep_size.h"

enum { N = PASSAGE_DEEP_N };

static psg_module *run_one(psg_ctx *ctx, const char *name, psg_module *m) {
  psg_pass *p = NULL;
  psg_module *out = NULL;
  CHECK_OK(psg_pass_get(ctx, name, NULL, &p));
  if (p) CHECK_OK(psg_pass_run(p, m, NULL, &out));
  for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
  psg_pass_release(p);
  return out;
}

static void test_normal_forms_on_add_chain(void) {
  psg_ctx *ctx = check_ctx();
  const psg_type *t = NULL;
  psg_expr *x = NULL, *add = NULL, *cur, *fn = NULL, *gv = NULL;
  CHECK_OK(psg_type_tensor(ctx, (int64_t[]){2}, 1, PSG_DTYPE_FLOAT32, &t));
  CHECK_OK(psg_var_create(ctx, "x", t, NULL, &x));
  CHECK_OK(psg_op_get(ctx, "add", &add));
  cur = x;
  psg_expr_retain(cur);
  for (int i = 0; i < N; i++) {
    psg_expr *next = NULL;
    CHECK_OK(psg_call_create(ctx, add, (psg_expr *[]){cur, x}, 2, NULL, NULL, &next));
    psg_expr_release(cur);
    cur = next;
  }
  psg_module *empty = NULL, *m = NULL;
  /* Fully annotated (its return type written), so InferType changes nothing. */
  CHECK_OK(psg_function_create(ctx, &x, 1, cur, t, NULL, NULL, &fn));
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &gv));
  CHECK_OK(psg_module_create(ctx, &empty));
  CHECK_OK(psg_module_add(empty, gv, fn, &m));

  psg_module *anf = run_one(ctx, "ToANormalForm", m);
  CHECK(anf != NULL);
  if (anf) {
    /* N lets, each binding one add, the last one's variable as the result. */
    size_t lets = 0;
    const psg_expr *e = psg_function_get_body(psg_module_lookup(anf, "main"));
    for (; psg_expr_kind(e) == PSG_EXPR_LET; e = psg_let_get_body(e)) {
      const psg_expr *v = psg_let_get_value(e);
      if (psg_expr_kind(v) != PSG_EXPR_CALL) break;
      lets++;
    }
    CHECK(lets == N);
    CHECK(psg_expr_kind(e) == PSG_EXPR_VAR);
  }
  psg_module *back = anf ? run_one(ctx, "ToGraphNormalForm", anf) : NULL;
  CHECK(back && psg_module_structural_equal(back, m, NULL));
  psg_module *bb = run_one(ctx, "ToBasicBlockNormalForm", m);
  CHECK(bb && psg_module_lookup(bb, "main") == fn);
  psg_module *lifted = run_one(ctx, "LambdaLift", m);
  CHECK(lifted && psg_module_lookup(lifted, "main") == fn);
  psg_module_release(lifted);
  psg_module_release(bb);
  psg_module_release(back);
  psg_module_release(anf);
  psg_module_release(m);
  psg_module_release(empty);
  psg_expr_release(gv);
  psg_expr_release(fn);
  psg_expr_release(cur);
  psg_expr_release(add);
  psg_expr_release(x);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_normal_forms_on_add_chain);
  return check_finish();
}
