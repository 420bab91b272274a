/* Unit tests for structural equality and hashing: alpha-equivalence, free
 * variables, constants, attrs, sharing versus duplication, mismatch paths,
 * module equality. */
#include "check.h"

static const psg_type *f32(psg_ctx *ctx, int64_t n) {
  const psg_type *t;
  CHECK_OK(psg_type_tensor(ctx, &n, 1, PSG_DTYPE_FLOAT32, &t));
  return t;
}

static psg_expr *call2(psg_ctx *ctx, const char *op, psg_expr *a, psg_expr *b) {
  psg_expr *o, *c;
  CHECK_OK(psg_op_get(ctx, op, &o));
  CHECK_OK(psg_call_create(ctx, o, (psg_expr *[]){a, b}, 2, NULL, NULL, &c));
  return c;
}

/* fn (%name: T[3]) { op(%p, %p) } or op(%p, %q) with two params. */
static psg_expr *fn2(psg_ctx *ctx, const char *op, bool swap) {
  psg_expr *x, *y, *body, *fn;
  CHECK_OK(psg_var_create(ctx, "x", f32(ctx, 3), NULL, &x));
  CHECK_OK(psg_var_create(ctx, "y", f32(ctx, 3), NULL, &y));
  body = swap ? call2(ctx, op, y, x) : call2(ctx, op, x, y);
  CHECK_OK(psg_function_create(ctx, (psg_expr *[]){x, y}, 2, body, NULL, NULL, NULL, &fn));
  psg_expr_release(x);
  psg_expr_release(y);
  psg_expr_release(body);
  return fn;
}

static psg_expr *scalar(psg_ctx *ctx, float v) {
  psg_tensor *t;
  psg_expr *c;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, NULL, 0, &v, &t));
  CHECK_OK(psg_constant_create(ctx, t, NULL, &c));
  psg_tensor_release(t);
  return c;
}

static void test_alpha(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *a = fn2(ctx, "add", false), *b = fn2(ctx, "add", false), *c = fn2(ctx, "add", true),
           *d = fn2(ctx, "subtract", false);
  CHECK(psg_expr_structural_equal(a, b));
  CHECK_EQ_INT(psg_expr_structural_hash(a) == psg_expr_structural_hash(b), 1);
  CHECK(!psg_expr_structural_equal(a, c)); /* add(x, y) vs add(y, x) */
  CHECK(psg_expr_structural_hash(a) != psg_expr_structural_hash(c));
  char *why = NULL;
  CHECK(!psg_expr_structural_equal_explain(a, d, &why));
  CHECK_STR(why, "body.op: op add vs subtract");
  psg_free(why);
  CHECK(!psg_expr_structural_equal_explain(a, c, &why));
  CHECK_STR(why, "body.args[0]: variable %x is bound to a different variable than %y");
  psg_free(why);
  psg_expr *objs[] = {a, b, c, d};
  for (int i = 0; i < 4; i++) psg_expr_release(objs[i]);
  CHECK_CTX_CLEAN(ctx);
}

static void test_free_vars_and_constants(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *x, *y, *one = scalar(ctx, 1), *one2 = scalar(ctx, 1), *two = scalar(ctx, 2);
  CHECK_OK(psg_var_create(ctx, "x", NULL, NULL, &x));
  CHECK_OK(psg_var_create(ctx, "x", NULL, NULL, &y)); /* same name, different variable */
  psg_expr *a = call2(ctx, "add", x, one), *b = call2(ctx, "add", x, one2), *c = call2(ctx, "add", y, one),
           *d = call2(ctx, "add", x, two);
  CHECK(psg_expr_structural_equal(a, b)); /* equal constants */
  CHECK(psg_expr_structural_hash(a) == psg_expr_structural_hash(b));
  CHECK(!psg_expr_structural_equal(a, c)); /* free vars only equal themselves */
  char *why;
  CHECK(!psg_expr_structural_equal_explain(a, d, &why));
  CHECK_STR(why, "args[1]: Constant data differ");
  psg_free(why);
  psg_expr *objs[] = {x, y, one, one2, two, a, b, c, d};
  for (int i = 0; i < 9; i++) psg_expr_release(objs[i]);
  CHECK_CTX_CLEAN(ctx);
}

/* Relay expressions compare as graphs (TVM's graph nodes): add(m, m) with m
 * shared differs from add(m, m2) with an equal copy, in equality and hash,
 * and equals add(n, n) with n an equal node shared the same way; lets. */
static void test_sharing(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *x;
  CHECK_OK(psg_var_create(ctx, "x", f32(ctx, 3), NULL, &x));
  psg_expr *m = call2(ctx, "multiply", x, x), *m2 = call2(ctx, "multiply", x, x);
  psg_expr *shared = call2(ctx, "add", m, m), *dup = call2(ctx, "add", m, m2);
  psg_expr *f1, *f2;
  CHECK_OK(psg_function_create(ctx, &x, 1, shared, NULL, NULL, NULL, &f1));
  CHECK_OK(psg_function_create(ctx, &x, 1, dup, NULL, NULL, NULL, &f2));
  CHECK(!psg_expr_structural_equal(f1, f2));
  CHECK(!psg_expr_structural_equal(f2, f1));
  CHECK(psg_expr_structural_hash(f1) != psg_expr_structural_hash(f2));
  char *why = NULL;
  CHECK(!psg_expr_structural_equal_explain(f1, f2, &why));
  CHECK_STR(why, "body.args[1]: the two sides share nodes differently");
  psg_free(why);
  psg_expr *m3 = call2(ctx, "multiply", x, x), *shared3 = call2(ctx, "add", m3, m3), *f3;
  CHECK_OK(psg_function_create(ctx, &x, 1, shared3, NULL, NULL, NULL, &f3));
  CHECK(psg_expr_structural_equal(f1, f3));
  CHECK(psg_expr_structural_hash(f1) == psg_expr_structural_hash(f3));
  /* Pairs form a bijection: m with m2 and m2 with m is consistent. */
  psg_expr *ab = call2(ctx, "add", m, m2), *ba = call2(ctx, "add", m2, m);
  CHECK(psg_expr_structural_equal(ab, ba));
  psg_expr *t1 = call2(ctx, "subtract", ab, m), *t2 = call2(ctx, "subtract", ab, m2);
  CHECK(!psg_expr_structural_equal(t1, t2)); /* m met again must meet m, not m2 */
  psg_expr *more[] = {m3, shared3, f3, ab, ba, t1, t2};
  for (int i = 0; i < 7; i++) psg_expr_release(more[i]);
  /* let %v = x * x; add(%v, %v) vs the same with another variable name. */
  psg_expr *v, *w, *use_v = NULL, *use_w = NULL, *l1, *l2;
  CHECK_OK(psg_var_create(ctx, "v", NULL, NULL, &v));
  CHECK_OK(psg_var_create(ctx, "w", NULL, NULL, &w));
  use_v = call2(ctx, "add", v, v);
  use_w = call2(ctx, "add", w, w);
  CHECK_OK(psg_let_create(ctx, v, m, use_v, NULL, &l1));
  CHECK_OK(psg_let_create(ctx, w, m2, use_w, NULL, &l2));
  CHECK(psg_expr_structural_equal(l1, l2));
  CHECK(psg_expr_structural_hash(l1) == psg_expr_structural_hash(l2));
  psg_expr *objs[] = {x, m, m2, shared, dup, f1, f2, v, w, use_v, use_w, l1, l2};
  for (int i = 0; i < 13; i++) psg_expr_release(objs[i]);
  CHECK_CTX_CLEAN(ctx);
}

static void test_modules(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *f = fn2(ctx, "add", false), *g = fn2(ctx, "add", false), *h = fn2(ctx, "subtract", false);
  psg_expr *gv1, *gv2;
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &gv1));
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &gv2));
  psg_module *m0, *a, *b, *c;
  CHECK_OK(psg_module_create(ctx, &m0));
  CHECK_OK(psg_module_add(m0, gv1, f, &a));
  CHECK_OK(psg_module_add(m0, gv2, g, &b));
  CHECK_OK(psg_module_add(m0, gv2, h, &c));
  CHECK(psg_module_structural_equal(a, b, NULL));
  CHECK(psg_module_structural_hash(a) == psg_module_structural_hash(b));
  char *why;
  CHECK(!psg_module_structural_equal(a, c, &why));
  CHECK_STR(why, "@main.body.op: op add vs subtract");
  psg_free(why);
  CHECK(!psg_module_structural_equal(a, m0, &why));
  CHECK_STR(why, "module: 1 functions vs 0");
  psg_free(why);
  psg_module *mods[] = {m0, a, b, c};
  for (int i = 0; i < 4; i++) psg_module_release(mods[i]);
  psg_expr *objs[] = {f, g, h, gv1, gv2};
  for (int i = 0; i < 5; i++) psg_expr_release(objs[i]);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_alpha);
  RUN_TEST(test_free_vars_and_constants);
  RUN_TEST(test_sharing);
  RUN_TEST(test_modules);
  return check_finish();
}
