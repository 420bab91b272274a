/* psgi_rewrite_inner: nodes in psg_mutate's post order, each shared node
 * once, leaves visited only when their kind has a callback (else kept); a
 * replaced child is rebuilt into its users; the result equals psg_mutate's
 * with the same callbacks. */
#include "pass_check.h"
#include "transforms/rewrite_inner.h"

static char order[256];

static void log_call(const psg_expr *e) {
  const char *name = psg_op_name(psg_expr_get_child(e, 0));
  strncat(order, name, sizeof order - strlen(order) - 2);
  strcat(order, " ");
}

/* relu(x) -> negative(x). */
static psg_status relu_to_negative(psg_ctx *ctx, const psg_expr *e, psg_expr **out) {
  if (strcmp(psg_op_name(psg_expr_get_child(e, 0)), "nn.relu")) return PSG_OK;
  psg_expr *op = NULL, *call = NULL, *arg = psg_expr_get_child(*out, 1);
  psg_status st = psg_op_get(ctx, "negative", &op);
  if (!st) st = psg_call_create(ctx, op, &arg, 1, NULL, NULL, &call);
  psg_expr_release(op);
  if (!st) {
    psg_expr_release(*out);
    *out = call;
  }
  return st;
}

static psg_status inner_call(psgi_rewriter *r, const psg_expr *e, psg_expr **out) {
  log_call(e);
  return relu_to_negative(r->ctx, e, out);
}

static psg_status leaf_seen(psgi_rewriter *r, const psg_expr *e, psg_expr **out) {
  (void)r;
  (void)e;
  (void)out;
  strcat(order, "1f ");
  return PSG_OK;
}

static psg_status mutate_leaf(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  psg_status st = psg_mutator_default(m, e, out);
  if (!st) strcat(order, "1f ");
  return st;
}

static psg_status mutate_call(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  psg_status st = psg_mutator_default(m, e, out);
  if (!st) log_call(e);
  return st ? st : relu_to_negative(m->ctx, e, out);
}

static void test_rewrite_inner(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, HDR "def @main(%x: " T ") {\n  %0 = nn.relu(%x);\n  %1 = add(%0, 1f);\n"
                                 "  %2 = multiply(%0, %1);\n  subtract(%2, %1)\n}\n");
  psg_expr *fn = m ? psg_module_lookup(m, "main") : NULL, *got = NULL, *want = NULL;
  CHECK(fn != NULL);
  if (fn) {
    psgi_rewriter r = {ctx, {0}, NULL};
    r.visit[PSG_EXPR_CALL] = inner_call;
    r.visit[PSG_EXPR_CONSTANT] = leaf_seen; /* visited where psg_mutate visits it */
    order[0] = 0;
    CHECK_OK(psgi_rewrite_inner(&r, fn, &got));
    CHECK_STR(order, "nn.relu 1f add multiply subtract ");
    char first[256];
    strcpy(first, order);
    psg_mutator mu;
    psg_mutator_init(&mu, ctx);
    mu.visit[PSG_EXPR_CALL] = mutate_call;
    mu.visit[PSG_EXPR_CONSTANT] = mutate_leaf;
    order[0] = 0;
    CHECK_OK(psg_mutate(&mu, fn, &want));
    psg_mutator_fini(&mu);
    CHECK_STR(order, first);
    CHECK(got && want && psg_expr_structural_equal(got, want));
    /* The shared relu was replaced once: multiply and add read the same node. */
    psg_expr *sub = got ? psg_function_get_body(got) : NULL;
    psg_expr *mul = sub ? psg_expr_get_child(sub, 1) : NULL, *add = sub ? psg_expr_get_child(sub, 2) : NULL;
    CHECK(mul && add && psg_expr_get_child(mul, 1) == psg_expr_get_child(add, 1));
    CHECK(mul && !strcmp(psg_op_name(psg_expr_get_child(psg_expr_get_child(mul, 1), 0)), "negative"));
    /* Without callbacks leaves are not visited; nothing to rewrite: the very same node. */
    order[0] = 0;
    r.visit[PSG_EXPR_CONSTANT] = NULL;
    psg_expr *again = NULL;
    CHECK_OK(psgi_rewrite_inner(&r, fn, &again));
    CHECK_STR(order, "nn.relu add multiply subtract ");
    psg_expr_release(again);
    psgi_rewriter none = {ctx, {0}, NULL};
    psg_expr *same = NULL;
    CHECK_OK(psgi_rewrite_inner(&none, fn, &same));
    CHECK(same == fn);
    psg_expr_release(same);
  }
  psg_expr_release(got);
  psg_expr_release(want);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_rewrite_inner);
  return check_finish();
}
