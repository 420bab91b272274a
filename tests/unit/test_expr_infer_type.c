/* psg_expr_infer_type (include/passage/ir.h): a frontend building a graph
 * bottom-up types each node as it goes; the types are InferType's, recorded
 * as final (so InferType keeps them), and a node whose children are not typed
 * that way is left to InferType. Type errors are reported, not recorded. */
#include <string.h>
#include "pass_check.h"
#include "ir/ir_internal.h"

static psg_expr *constant(psg_ctx *ctx, int64_t n) {
  psg_tensor *t = NULL;
  psg_expr *c = NULL;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, &n, 1, NULL, &t));
  CHECK_OK(psg_constant_create(ctx, t, NULL, &c));
  psg_tensor_release(t);
  return c;
}

static psg_expr *call(psg_ctx *ctx, const char *op, psg_expr *a, psg_expr *b) {
  psg_expr *o = NULL, *c = NULL;
  CHECK_OK(psg_op_get(ctx, op, &o));
  CHECK_OK(psg_call_create(ctx, o, (psg_expr *[]){a, b}, b ? 2 : 1, NULL, NULL, &c));
  psg_expr_release(o);
  return c;
}

static void test_typed_bottom_up(void) {
  psg_ctx *ctx = check_ctx();
  int64_t two = 2;
  const psg_type *t2 = NULL, *got = NULL;
  CHECK_OK(psg_type_tensor(ctx, &two, 1, PSG_DTYPE_FLOAT32, &t2));
  psg_expr *x = NULL, *c = constant(ctx, 2), *tup = NULL, *item = NULL, *fn = NULL, *gv = NULL;
  CHECK_OK(psg_var_create(ctx, "x", t2, NULL, &x));
  psg_expr *add = call(ctx, "add", x, c);
  CHECK_OK(psg_expr_infer_type(add, &got));
  CHECK(got == t2);
  CHECK(psg_expr_checked_type(add) == t2 && psgi_expr_final_type(add) == t2);
  CHECK(psgi_expr_final_type(x) == t2 && psgi_expr_final_type(c) == t2); /* leaves typed on the way */
  CHECK_OK(psg_tuple_create(ctx, (psg_expr *[]){add, x}, 2, NULL, &tup));
  CHECK_OK(psg_tuple_get_item_create(ctx, tup, 1, NULL, &item));
  CHECK_OK(psg_expr_infer_type(tup, NULL));
  CHECK_OK(psg_expr_infer_type(item, &got));
  CHECK(got == t2);
  CHECK_OK(psg_function_create(ctx, &x, 1, item, NULL, NULL, NULL, &fn));
  CHECK_OK(psg_expr_infer_type(fn, &got));
  CHECK(got && psg_type_kind(got) == PSG_TYPE_FUNC);
  /* InferType agrees and keeps the nodes. */
  psg_module *m0 = NULL, *m = NULL, *typed = NULL;
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &gv));
  CHECK_OK(psg_module_create(ctx, &m0));
  CHECK_OK(psg_module_add(m0, gv, fn, &m));
  psg_module *r = m ? run(ctx, "InferType", NULL, m) : NULL;
  CHECK(r && psg_function_get_body(psg_module_lookup(r, "main")) == item);
  CHECK(psg_expr_checked_type(psg_module_lookup(r, "main")) == got);
  psg_module_release(r);
  psg_module_release(typed);
  psg_module_release(m);
  psg_module_release(m0);
  psg_expr_release(gv);
  psg_expr_release(fn);
  psg_expr_release(item);
  psg_expr_release(tup);
  psg_expr_release(add);
  psg_expr_release(c);
  psg_expr_release(x);
  CHECK_CTX_CLEAN(ctx);
}

/* Not typed: an unannotated variable below, or a GlobalVar callee. */
static void test_left_to_infer_type(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *u = NULL, *c = constant(ctx, 2);
  const psg_type *got = (const psg_type *)1;
  CHECK_OK(psg_var_create(ctx, "u", NULL, NULL, &u));
  psg_expr *add = call(ctx, "add", u, c);
  CHECK_OK(psg_expr_infer_type(add, &got));
  CHECK(got == NULL && psg_expr_checked_type(add) == NULL);
  CHECK_OK(psg_expr_infer_type(u, &got));
  CHECK(got == NULL);
  CHECK_EQ_INT(psg_expr_infer_type(NULL, &got), PSG_ERR_INVALID_ARGUMENT);
  psg_expr_release(add);
  psg_expr_release(c);
  psg_expr_release(u);
  CHECK_CTX_CLEAN(ctx);
}

/* A relation that rejects its arguments: PSG_ERR_TYPE with a diagnostic
 * naming the op, and nothing recorded. */
static void test_type_error(void) {
  psg_ctx *ctx = check_ctx();
  psg_expr *a = constant(ctx, 2), *b = constant(ctx, 3);
  psg_expr *add = call(ctx, "add", a, b);
  const psg_type *got = NULL;
  size_t diags = psg_ctx_diag_count(ctx);
  CHECK_EQ_INT(psg_expr_infer_type(add, &got), PSG_ERR_TYPE);
  CHECK(got == NULL && psg_expr_checked_type(add) == NULL);
  CHECK_EQ_INT(psg_ctx_diag_count(ctx), diags + 1);
  const psg_diag *d = psg_ctx_get_last_error(ctx);
  CHECK(d && strncmp(psg_diag_message(d), "add(...): ", 10) == 0);
  psg_expr_release(add);
  psg_expr_release(b);
  psg_expr_release(a);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_typed_bottom_up);
  RUN_TEST(test_left_to_infer_type);
  RUN_TEST(test_type_error);
  return check_finish();
}
