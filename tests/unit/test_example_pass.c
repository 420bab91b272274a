/* Runs the documented example pass (examples/c/mul_by_one.c) through the
 * registry and a Sequential, so docs/writing-a-pass.md cannot drift from code
 * that works. */
#include "check.h"
#include "../../examples/c/mul_by_one.c"

static psg_expr *scalar(psg_ctx *ctx, float v) {
  psg_tensor *t;
  psg_expr *c;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, NULL, 0, &v, &t));
  CHECK_OK(psg_constant_create(ctx, t, NULL, &c));
  psg_tensor_release(t);
  return c;
}

static void test_example_pass(void) {
  psg_ctx *ctx = check_ctx();
  CHECK_OK(example_register_simplify_mul_by_one(ctx));
  /* def @main(%x: Tensor[(4), float32]) { add(multiply(%x, 1f), multiply(2f, %x)) } */
  psg_expr *x, *mul, *add, *one = scalar(ctx, 1.0f), *two = scalar(ctx, 2.0f), *m1, *m2, *sum, *fn, *gv;
  const psg_type *vec4 = NULL;
  CHECK_OK(psg_type_tensor(ctx, (int64_t[]){4}, 1, PSG_DTYPE_FLOAT32, &vec4));
  CHECK_OK(psg_var_create(ctx, "x", vec4, NULL, &x));
  CHECK_OK(psg_op_get(ctx, "multiply", &mul));
  CHECK_OK(psg_op_get(ctx, "add", &add));
  CHECK_OK(psg_call_create(ctx, mul, (psg_expr *[]){x, one}, 2, NULL, NULL, &m1));
  CHECK_OK(psg_call_create(ctx, mul, (psg_expr *[]){two, x}, 2, NULL, NULL, &m2));
  CHECK_OK(psg_call_create(ctx, add, (psg_expr *[]){m1, m2}, 2, NULL, NULL, &sum));
  CHECK_OK(psg_function_create(ctx, &x, 1, sum, NULL, NULL, NULL, &fn));
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &gv));
  psg_module *m0, *mod, *out;
  CHECK_OK(psg_module_create(ctx, &m0));
  CHECK_OK(psg_module_add(m0, gv, fn, &mod));
  psg_pass *p, *seq;
  CHECK_OK(psg_pass_get(ctx, "SimplifyMulByOne", NULL, &p));
  CHECK_OK(psg_sequential(ctx, &p, 1, NULL, &seq));
  CHECK_OK(psg_pass_run(seq, mod, NULL, &out));
  if (!out) return; /* the checks above said why */
  psg_expr *body = psg_function_get_body(psg_module_lookup(out, "main"));
  CHECK(psg_call_get_arg(body, 0) == x);  /* multiply(%x, 1f) became %x */
  CHECK(psg_call_get_arg(body, 1) == m2); /* untouched subtree shared */
  CHECK(psg_function_get_body(psg_module_lookup(mod, "main")) == sum); /* input unchanged */
  psg_module_release(out);
  psg_module_release(mod);
  psg_module_release(m0);
  psg_pass_release(p);
  psg_pass_release(seq);
  psg_expr *objs[] = {x, one, two, m1, m2, sum, fn, gv};
  for (int i = 0; i < 8; i++) psg_expr_release(objs[i]);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_example_pass);
  return check_finish();
}
