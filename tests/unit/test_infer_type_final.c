/* InferType's final types (ir_internal.h, TYPE_FINAL): a subtree whose type
 * follows from its children alone is not retyped, but types that depend on
 * the module (GlobalVars) or on a binding (unannotated let variables) are;
 * a rebuilt node keeps its final type only when its children's types are
 * unchanged, so changed types and type errors are still found; builders type
 * what they build from final argument types (on request). */
#include "pass_check.h"
#include "transforms/builder.h"

static psg_status infer(psg_ctx *ctx, psg_module *m, psg_module **out) {
  psg_pass *p = NULL;
  *out = NULL;
  psg_status st = psg_pass_get(ctx, "InferType", NULL, &p);
  if (!st) st = psg_pass_run(p, m, NULL, out);
  psg_pass_release(p);
  return st;
}

static const psg_type *tensor_type(psg_ctx *ctx, const int64_t *dims, int n) {
  const psg_type *t = NULL;
  CHECK_OK(psg_type_tensor(ctx, dims, n, PSG_DTYPE_FLOAT32, &t));
  return t;
}

static psg_expr *main_body(const psg_module *m) { return psg_function_get_body(psg_module_lookup(m, "main")); }

static void test_final_after_infer(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, HDR "def @main(%x: " T ") {\n  %0 = add(%x, 1f);\n  multiply(%0, %0)\n}\n");
  psg_module *typed = NULL;
  CHECK_OK(infer(ctx, m, &typed));
  psg_expr *body = main_body(m);
  CHECK(psgi_expr_final_type(body) != NULL);
  CHECK(psgi_expr_final_type(body) == psg_expr_checked_type(body));
  /* @main as written lacks its return type: typed, not final; InferType's
   * @main has it written in (the same body) and is final. */
  CHECK(psgi_expr_final_type(psg_module_lookup(m, "main")) == NULL);
  CHECK(psg_expr_checked_type(psg_module_lookup(m, "main")) != NULL);
  CHECK(typed && main_body(typed) == body);
  CHECK(typed && psgi_expr_final_type(psg_module_lookup(typed, "main")) != NULL);
  psg_module_release(typed);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* @main's call of @f takes the type of the @f of the module being typed. */
static void test_global_call_retyped(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, HDR "def @f(%a: " T ") {\n  add(%a, %a)\n}\n"
                                 "def @main(%x: " T ") {\n  nn.relu(@f(%x))\n}\n");
  psg_module *g = parse(ctx, HDR "def @f(%a: " T ") {\n  sum(%a)\n}\n");
  psg_module *typed = NULL, *swapped = NULL, *typed2 = NULL;
  CHECK_OK(infer(ctx, m, &typed));
  psg_expr *body = main_body(m);
  int64_t two = 2;
  CHECK(psg_expr_checked_type(body) == tensor_type(ctx, &two, 1));
  CHECK(psgi_expr_final_type(body) == NULL);
  psg_expr *gv = NULL;
  CHECK_OK(psg_global_var_create(ctx, "f", NULL, &gv));
  CHECK_OK(psg_module_update(m, gv, psg_module_lookup(g, "f"), &swapped));
  if (swapped) CHECK_OK(infer(ctx, swapped, &typed2));
  CHECK(main_body(swapped) == body); /* the very same nodes, retyped */
  CHECK(psg_expr_checked_type(body) == tensor_type(ctx, NULL, 0));
  psg_expr_release(gv);
  psg_module_release(typed2);
  psg_module_release(swapped);
  psg_module_release(typed);
  psg_module_release(g);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* A use of an unannotated let variable takes the type of the value it is
 * bound to now. */
static void test_let_variable_retyped(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, HDR "def @main(%x: " T ") {\n  let %y = add(%x, %x);\n  nn.relu(%y)\n}\n");
  psg_module *typed = NULL, *typed2 = NULL, *m2 = NULL, *empty = NULL;
  CHECK_OK(infer(ctx, m, &typed));
  psg_expr *fn = psg_module_lookup(m, "main"), *let = psg_function_get_body(fn);
  psg_expr *var = psg_let_get_var(let), *use = psg_let_get_body(let);
  CHECK(psgi_expr_final_type(use) == NULL);
  /* The same variable and body, bound to a scalar now. */
  psg_expr *x = psg_expr_get_child(fn, 0), *op = NULL, *sum = NULL, *let2 = NULL, *fn2 = NULL, *gv = NULL;
  CHECK_OK(psg_op_get(ctx, "sum", &op));
  CHECK_OK(psg_call_create(ctx, op, &x, 1, NULL, NULL, &sum));
  CHECK_OK(psg_let_create(ctx, var, sum, use, NULL, &let2));
  CHECK_OK(psg_function_create(ctx, &x, 1, let2, NULL, NULL, NULL, &fn2));
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &gv));
  CHECK_OK(psg_module_create(ctx, &empty));
  CHECK_OK(psg_module_add(empty, gv, fn2, &m2));
  if (m2) CHECK_OK(infer(ctx, m2, &typed2));
  CHECK(psg_expr_checked_type(use) == tensor_type(ctx, NULL, 0));
  psg_expr *rels[] = {op, sum, let2, fn2, gv};
  for (size_t i = 0; i < sizeof rels / sizeof *rels; i++) psg_expr_release(rels[i]);
  psg_module_release(empty);
  psg_module_release(m2);
  psg_module_release(typed2);
  psg_module_release(typed);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* Replaces every scalar constant by a float32 constant of shape `dims`. */
typedef struct swap_const {
  const int64_t *dims;
  int n;
} swap_const;

static psg_status swap_constant(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  swap_const *s = m->user;
  psg_tensor *t = NULL;
  psg_status st = psg_tensor_create(m->ctx, PSG_DTYPE_FLOAT32, s->dims, s->n, NULL, &t);
  if (!st) st = psg_constant_create(m->ctx, t, NULL, out);
  psg_tensor_release(t);
  (void)e;
  return st;
}

/* Rewrites @main's constants, then runs InferType on the result: returns the
 * status, and the new body (a new reference) in *body. */
static psg_status rewrite_and_infer(psg_ctx *ctx, psg_module *m, const int64_t *dims, int n, bool *final_before,
                                    psg_expr **body) {
  psg_mutator mu;
  psg_mutator_init(&mu, ctx);
  swap_const s = {dims, n};
  mu.user = &s;
  mu.visit[PSG_EXPR_CONSTANT] = swap_constant;
  psg_expr *fn = NULL, *gv = NULL;
  psg_module *m2 = NULL, *typed = NULL;
  CHECK_OK(psg_mutate(&mu, psg_module_lookup(m, "main"), &fn));
  psg_mutator_fini(&mu);
  *final_before = fn && psgi_expr_final_type(psg_function_get_body(fn)) != NULL;
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &gv));
  CHECK_OK(psg_module_update(m, gv, fn, &m2));
  psg_status st = m2 ? infer(ctx, m2, &typed) : PSG_ERR_INTERNAL;
  *body = fn ? psg_function_get_body(fn) : NULL;
  psg_expr_retain(*body);
  psg_module_release(typed);
  psg_module_release(m2);
  psg_expr_release(gv);
  psg_expr_release(fn);
  return st;
}

static void test_rebuild(void) {
  psg_ctx *ctx = check_ctx();
  const char *text = HDR "def @main(%x: " T ") {\n  %0 = add(%x, 1f);\n  nn.relu(%0)\n}\n";
  psg_module *m = parse(ctx, text), *typed = NULL;
  CHECK_OK(infer(ctx, m, &typed));
  bool final_before;
  psg_expr *body = NULL;
  /* Same type: the rebuilt calls keep their (final) types. */
  CHECK_OK(rewrite_and_infer(ctx, m, NULL, 0, &final_before, &body));
  CHECK(final_before);
  CHECK(body && body != main_body(m) && psg_expr_checked_type(body) == psg_expr_checked_type(main_body(m)));
  psg_expr_release(body);
  /* A (3, 2) constant: the calls are retyped. */
  int64_t d32[2] = {3, 2};
  CHECK_OK(rewrite_and_infer(ctx, m, d32, 2, &final_before, &body));
  CHECK(!final_before);
  CHECK(body && psg_expr_checked_type(body) == tensor_type(ctx, d32, 2));
  CHECK(body && psgi_expr_final_type(body) != NULL);
  psg_expr_release(body);
  /* A (3) constant does not broadcast with (2): still a type error. */
  int64_t d3 = 3;
  size_t diags = psg_ctx_diag_count(ctx);
  CHECK_EQ_INT(rewrite_and_infer(ctx, m, &d3, 1, &final_before, &body), PSG_ERR_TYPE);
  CHECK(psg_ctx_diag_count(ctx) > diags);
  CHECK(!final_before);
  psg_expr_release(body);
  psg_ctx_clear_diags(ctx);
  psg_module_release(typed);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* psgi_build_call with final_types: final argument types give a final type;
 * an ill-typed call is left untyped, without a diagnostic (InferType reports
 * it in place). */
static void test_builder(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, HDR "def @main(%x: " T ") {\n  add(%x, 1f)\n}\n"), *typed = NULL;
  CHECK_OK(infer(ctx, m, &typed));
  psg_expr *add = main_body(m), *x = psg_call_get_arg(add, 0);
  psgi_built b;
  psgi_built_init(&b, ctx, NULL);
  psg_expr *plain = psgi_build_call(&b, "nn.relu", &add, 1, NULL);
  CHECK(plain && !psg_expr_checked_type(plain)); /* final_types is off by default */
  b.final_types = true;
  psg_expr *relu = psgi_build_call(&b, "nn.relu", &add, 1, NULL);
  CHECK(relu && psgi_expr_final_type(relu) == psg_expr_checked_type(add));
  int64_t d3 = 3;
  psg_tensor *t = NULL;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, &d3, 1, NULL, &t));
  psg_expr *c3 = psgi_build_constant(&b, t);
  CHECK(c3 && psgi_expr_final_type(c3) == tensor_type(ctx, &d3, 1));
  size_t diags = psg_ctx_diag_count(ctx);
  psg_expr *bad = psgi_build_call(&b, "add", (psg_expr *[]){x, c3}, 2, NULL);
  CHECK(bad && !psg_expr_checked_type(bad));
  CHECK_EQ_INT(b.status, PSG_OK);
  CHECK_EQ_INT(psg_ctx_diag_count(ctx), diags);
  psgi_built_fini(&b);
  psg_tensor_release(t);
  psg_module_release(typed);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* psgi_built's relation cache: the same types as the relation gives, on a
 * hit and after collisions replaced entries (more distinct calls than
 * slots); the attrs a cached entry holds stay alive until the cache's fini. */
static void test_builder_rel_cache(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, HDR "def @main(%x: " T ") {\n  add(%x, 1f)\n}\n"), *typed = NULL;
  CHECK_OK(infer(ctx, m, &typed));
  psg_expr *add = main_body(m);
  psgi_rel_cache rc;
  memset(&rc, 0, sizeof rc);
  psgi_built b;
  psgi_built_init(&b, ctx, NULL);
  b.final_types = true;
  b.rel_cache = &rc;
  for (int round = 0; round < 2; round++) { /* the second round meets hits and replaced slots */
    for (int64_t n = 1; n <= 3 * PSGI_REL_CACHE_SLOTS; n++) {
      psg_tensor *t = NULL;
      CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, &n, 1, NULL, &t));
      psg_expr *c = psgi_build_constant(&b, t);
      psg_tensor_release(t);
      psg_expr *neg = psgi_build_op_call(&b, PSGI_OP_negative, &c, 1, NULL);
      CHECK(neg && psgi_expr_final_type(neg) == tensor_type(ctx, &n, 1));
    }
  }
  psg_attr *axis = psgi_build_attr_int(&b, 0), *num = psgi_build_attr_int(&b, 1);
  psg_attrs *attrs = psgi_build_attrs(&b, (const char *[]){"axis", "num_newaxis"}, (psg_attr *[]){axis, num}, 2);
  psg_expr *e1 = psgi_build_op_call(&b, PSGI_OP_expand_dims, &add, 1, attrs);
  psg_expr *e2 = psgi_build_op_call(&b, PSGI_OP_expand_dims, &add, 1, attrs);
  int64_t dims[2] = {1, 2};
  CHECK(e1 && e2 && psgi_expr_final_type(e1) == tensor_type(ctx, dims, 2) &&
        psgi_expr_final_type(e2) == psgi_expr_final_type(e1));
  CHECK_EQ_INT(b.status, PSG_OK);
  psgi_built_fini(&b); /* the cache still holds the attrs */
  psgi_rel_cache_fini(&rc);
  psg_module_release(typed);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* InferType writes back what it inferred (TVM's Resolver): the def's and a
 * nested literal's return types, the let variable's and the nested
 * parameter's types; the variable is replaced where it is used too. The
 * result is final throughout, so a second InferType returns it unchanged. */
static void test_write_back(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, HDR "def @main(%x: " T ") {\n  let %a = add(%x, 1f);\n"
                                 "  %0 = fn (%y) { multiply(%y, %a) };\n  %0(%a)\n}\n");
  psg_module *typed = NULL, *again = NULL;
  CHECK_OK(infer(ctx, m, &typed));
  CHECK(typed && typed != m);
  const psg_expr *f = typed ? psg_module_lookup(typed, "main") : NULL;
  if (f) {
    const psg_type *t = psg_var_type(psg_function_get_param(f, 0));
    CHECK(f->u.fn.ret_type == t);
    const psg_expr *let = psg_function_get_body(f), *a = psg_let_get_var(let);
    CHECK(psg_var_type(a) == t && psg_expr_checked_type(a) == t);
    const psg_expr *call = psg_let_get_body(let), *inner = psg_call_get_callee(call);
    CHECK(psg_call_get_arg(call, 0) == a); /* the use is the annotated variable */
    CHECK(psg_expr_kind(inner) == PSG_EXPR_FUNCTION && inner->u.fn.ret_type == t);
    CHECK(psg_var_type(psg_function_get_param(inner, 0)) == t);
    CHECK(psg_call_get_arg(psg_function_get_body(inner), 1) == a); /* the closure's free use too */
    CHECK(psgi_expr_final_type(f) != NULL);
    /* The input is left as it was. */
    const psg_expr *orig = psg_function_get_body(psg_module_lookup(m, "main"));
    CHECK(psg_var_type(psg_let_get_var(orig)) == NULL);
  }
  CHECK_OK(infer(ctx, typed, &again));
  CHECK(again == typed);
  psg_module_release(again);
  psg_module_release(typed);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_final_after_infer);
  RUN_TEST(test_global_call_retyped);
  RUN_TEST(test_let_variable_retyped);
  RUN_TEST(test_rebuild);
  RUN_TEST(test_builder);
  RUN_TEST(test_builder_rel_cache);
  RUN_TEST(test_write_back);
  return check_finish();
}
