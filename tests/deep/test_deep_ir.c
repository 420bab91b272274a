/* Deep-graph test (STYLE rule 9), run with `ulimit -s 1024`: a 1,000,000-node
 * add chain and a 1,000,000-binding let chain are built, visited, mutated,
 * checked for free variables, put in a module and released without
 * overflowing a 1 MiB stack. */
#include "../unit/check.h"
#include "deep_size.h"

enum { N = PASSAGE_DEEP_N };

static psg_status count_post(psg_visitor *v, const psg_expr *e) {
  (void)e;
  (*(long *)v->user)++;
  return PSG_OK;
}

/* Rewrites every add into multiply: every node on the chain is rebuilt. */
static psg_status add_to_mul(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  psg_expr *post, *mul;
  psg_status st = psg_mutator_default(m, e, &post);
  if (st) return st;
  if ((st = psg_op_get(m->ctx, "multiply", &mul)) != PSG_OK) {
    psg_expr_release(post);
    return st;
  }
  psg_expr *args[2] = {psg_call_get_arg(post, 0), psg_call_get_arg(post, 1)};
  st = psg_call_create(m->ctx, mul, args, 2, NULL, NULL, out);
  psg_expr_release(post);
  return st;
}

static void test_add_chain(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *x, *add, *cur;
  CHECK_OK(psg_var_create(ctx, "x", NULL, NULL, &x));
  CHECK_OK(psg_op_get(ctx, "add", &add));
  cur = x;
  psg_expr_retain(cur);
  for (int i = 0; i < N; i++) {
    psg_expr *next;
    CHECK_OK(psg_call_create(ctx, add, (psg_expr *[]){cur, x}, 2, NULL, NULL, &next));
    psg_expr_release(cur);
    cur = next;
  }
  psg_expr *fn, *gv;
  CHECK_OK(psg_function_create(ctx, &x, 1, cur, NULL, NULL, NULL, &fn));
  long visited = 0;
  psg_visitor v = {NULL, count_post, &visited};
  CHECK_OK(psg_visit(ctx, &v, fn));
  CHECK_EQ_INT(visited, N + 3); /* calls, x, the op, the function */
  psg_mutator m;
  psg_mutator_init(&m, ctx);
  psg_expr *same;
  CHECK_OK(psg_mutate(&m, fn, &same));
  CHECK(same == fn);
  psg_expr_release(same);
  psg_mutator_fini(&m);
  psg_mutator_init(&m, ctx);
  m.visit[PSG_EXPR_CALL] = add_to_mul;
  psg_expr *rewritten;
  CHECK_OK(psg_mutate(&m, fn, &rewritten));
  psg_mutator_fini(&m);
  CHECK_STR(psg_op_name(psg_call_get_callee(psg_function_get_body(rewritten))), "multiply");
  psg_module *m0, *m1;
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &gv));
  CHECK_OK(psg_module_create(ctx, &m0));
  CHECK_OK(psg_module_add(m0, gv, rewritten, &m1)); /* runs the free-variable walk */
  psg_expr_release(rewritten);
  psg_expr_release(cur);
  psg_expr_release(x);
  psg_expr_release(fn);
  psg_expr_release(gv);
  psg_module_release(m0);
  psg_module_release(m1); /* releases the whole chain iteratively */
  CHECK_CTX_CLEAN(ctx);
}

static void test_let_chain(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *x, *add;
  CHECK_OK(psg_var_create(ctx, "x", NULL, NULL, &x));
  CHECK_OK(psg_op_get(ctx, "add", &add));
  /* let %v0 = add(%x, %x); let %v1 = add(%v0, %x); ... %vN-1, built from the
   * innermost body outwards. */
  psg_expr **vars = malloc(sizeof(psg_expr *) * N);
  for (int i = 0; i < N; i++) CHECK_OK(psg_var_create(ctx, "v", NULL, NULL, &vars[i]));
  psg_expr *body = vars[N - 1];
  psg_expr_retain(body);
  for (int i = N - 1; i >= 0; i--) {
    psg_expr *value, *let;
    CHECK_OK(psg_call_create(ctx, add, (psg_expr *[]){i ? vars[i - 1] : x, x}, 2, NULL, NULL, &value));
    CHECK_OK(psg_let_create(ctx, vars[i], value, body, NULL, &let));
    psg_expr_release(value);
    psg_expr_release(body);
    body = let;
  }
  for (int i = 0; i < N; i++) psg_expr_release(vars[i]);
  free(vars);
  psg_expr *fn;
  CHECK_OK(psg_function_create(ctx, &x, 1, body, NULL, NULL, NULL, &fn));
  psg_expr_release(body);
  long visited = 0;
  psg_visitor v = {NULL, count_post, &visited};
  CHECK_OK(psg_visit(ctx, &v, fn));
  CHECK_EQ_INT(visited, 3L * N + 3);
  psg_mutator m;
  psg_mutator_init(&m, ctx);
  m.visit[PSG_EXPR_CALL] = add_to_mul;
  psg_expr *out;
  CHECK_OK(psg_mutate(&m, fn, &out));
  psg_mutator_fini(&m);
  CHECK(out != fn);
  psg_expr_release(out);
  psg_expr_release(fn);
  psg_expr_release(x);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_add_chain);
  RUN_TEST(test_let_chain);
  return check_finish();
}
