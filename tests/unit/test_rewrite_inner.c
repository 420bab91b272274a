/* psgi_rewrite_inner: nodes in psg_mutate's post order, each shared node
 * once, leaves visited only when their kind has a callback (else kept); a
 * replaced child is rebuilt into its users; the result equals psg_mutate's
 * with the same callbacks. Nodes held once (not memoized) and shared ones
 * give the same result; a failure deep in a long chain releases what the
 * walk held; the reuse hook's node is taken without a callback. */
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
    psgi_rewriter r = {ctx, {0}, NULL, NULL};
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
    psgi_rewriter none = {ctx, {0}, NULL, NULL};
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


/* A chain of N relus over x with one shared node in the middle: every relu
 * but the shared one is held once (no memo entry); all become negatives, the
 * shared one once. Then a callback failing deep inside: nothing leaks. */
enum { CHAIN = 100000 };
static long calls_seen, fail_at;

static psg_status chain_call(psgi_rewriter *r, const psg_expr *e, psg_expr **out) {
  if (++calls_seen == fail_at) return psg_ctx_fail(r->ctx, PSG_ERR_INTERNAL, "test failure");
  return relu_to_negative(r->ctx, e, out);
}

static void test_rewrite_inner_chain(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *x = NULL, *op = NULL, *cur = NULL, *fn = NULL, *got = NULL;
  CHECK_OK(psg_var_create(ctx, "x", NULL, NULL, &x));
  CHECK_OK(psg_op_get(ctx, "nn.relu", &op));
  cur = x;
  psg_expr_retain(cur);
  for (int i = 0; i < CHAIN; i++) {
    psg_expr *next = NULL;
    if (i == CHAIN / 2) { /* add(cur, cur): cur is held twice */
      psg_expr *add = NULL;
      CHECK_OK(psg_op_get(ctx, "add", &add));
      CHECK_OK(psg_call_create(ctx, add, (psg_expr *[]){cur, cur}, 2, NULL, NULL, &next));
      psg_expr_release(add);
    } else {
      CHECK_OK(psg_call_create(ctx, op, &cur, 1, NULL, NULL, &next));
    }
    psg_expr_release(cur);
    cur = next;
  }
  CHECK_OK(psg_function_create(ctx, &x, 1, cur, NULL, NULL, NULL, &fn));
  psg_expr_release(cur);
  psgi_rewriter r = {ctx, {0}, NULL, NULL};
  r.visit[PSG_EXPR_CALL] = chain_call;
  calls_seen = 0;
  fail_at = 0;
  CHECK_OK(psgi_rewrite_inner(&r, fn, &got));
  CHECK_EQ_INT(calls_seen, CHAIN);
  /* Every relu is a negative now, and the add still reads one node twice. */
  long relus = 0, negs = 0;
  const psg_expr *e = got ? psg_function_get_body(got) : NULL;
  bool shared_kept = false;
  while (e && psg_expr_kind(e) == PSG_EXPR_CALL) {
    const char *name = psg_op_name(psg_expr_get_child(e, 0));
    relus += !strcmp(name, "nn.relu");
    negs += !strcmp(name, "negative");
    if (!strcmp(name, "add")) shared_kept = psg_call_get_arg(e, 0) == psg_call_get_arg(e, 1);
    e = psg_call_get_arg(e, 0);
  }
  CHECK_EQ_INT(relus, 0);
  CHECK_EQ_INT(negs, CHAIN - 1);
  CHECK(shared_kept);
  psg_expr_release(got);
  got = NULL;
  /* A failure half-way: an error, no result, every reference released. */
  calls_seen = 0;
  fail_at = CHAIN / 2 + 7;
  CHECK(psgi_rewrite_inner(&r, fn, &got) == PSG_ERR_INTERNAL);
  CHECK(got == NULL);
  psg_ctx_clear_diags(ctx);
  psg_expr_release(op);
  psg_expr_release(x);
  psg_expr_release(fn);
  CHECK_CTX_CLEAN(ctx);
}

/* The reuse hook: given each changed node and its new children, it may hand
 * back a node to take as the rewrite (no callback for it). Here every add is
 * replaced by a prepared node; calls not taken get the callback. */
static psg_expr *prepared;
static long reuse_calls;

static psg_status reuse_add(psgi_rewriter *r, const psg_expr *e, psg_expr *const *kids, psg_expr **out) {
  (void)r;
  (void)kids;
  *out = NULL;
  if (psg_expr_kind(e) != PSG_EXPR_CALL) return PSG_OK; /* the function itself */
  reuse_calls++;
  if (!strcmp(psg_op_name(psg_expr_get_child(e, 0)), "add")) {
    psg_expr_retain(prepared);
    *out = prepared;
  }
  return PSG_OK;
}

static void test_rewrite_inner_reuse(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, HDR "def @main(%x: " T ", %y: " T ") {\n  %0 = nn.relu(%x);\n  %1 = add(%0, 1f);\n"
                                 "  multiply(%1, %0)\n}\n");
  psg_expr *fn = m ? psg_module_lookup(m, "main") : NULL, *got = NULL;
  CHECK(fn != NULL);
  if (fn) {
    prepared = psg_function_get_param(fn, 1); /* %y */
    psgi_rewriter r = {ctx, {0}, NULL, reuse_add};
    r.visit[PSG_EXPR_CALL] = inner_call;
    order[0] = 0;
    reuse_calls = 0;
    CHECK_OK(psgi_rewrite_inner(&r, fn, &got));
    /* relu has no changed child (no reuse asked); add and multiply have. */
    CHECK_EQ_INT(reuse_calls, 2);
    CHECK_STR(order, "nn.relu multiply "); /* the taken add: no callback */
    const psg_expr *mul = got ? psg_function_get_body(got) : NULL;
    CHECK(mul && psg_call_get_arg(mul, 0) == prepared);
    CHECK(mul && !strcmp(psg_op_name(psg_expr_get_child(psg_call_get_arg(mul, 1), 0)), "negative"));
  }
  psg_expr_release(got);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_rewrite_inner);
  RUN_TEST(test_rewrite_inner_chain);
  RUN_TEST(test_rewrite_inner_reuse);
  return check_finish();
}
