/* A test-only pass plugin with a seeded miscompilation, for opt-bisect tests
 * (tests/lit/pass/bisect.relay, tests/python/test_bisect_plugin.py):
 * testing.DropAddOperand rewrites add(x, y) into x in every function it is
 * given, so the first bad pass execution is that pass on the first function
 * holding an add. For FixedPoint tests it also has two passes that never
 * converge: testing.GrowAddZero wraps every function body in add(body, 0f)
 * (a new module each time), testing.ToggleAddZero wraps a body that is not
 * such an add and unwraps one that is (a cycle of two iterations). */
#include <string.h>
#include "passage/passage.h"

static psg_status drop_add(psg_mutator *m, const psg_expr *call, psg_expr **out) {
  psg_expr *post;
  psg_status st = psg_mutator_default(m, call, &post);
  if (st) return st;
  psg_expr *op = psg_call_get_callee(post);
  if (psg_expr_kind(op) == PSG_EXPR_OP && !strcmp(psg_op_name(op), "add") && psg_call_num_args(post) == 2) {
    psg_expr *x = psg_call_get_arg(post, 0);
    psg_expr_retain(x);
    psg_expr_release(post);
    *out = x;
    return PSG_OK;
  }
  *out = post;
  return PSG_OK;
}

static psg_status drop_add_operand(psg_expr *func, psg_module *mod, psg_pass_context *pctx, void *user,
                                   psg_expr **out) {
  (void)mod;
  (void)pctx;
  (void)user;
  psg_mutator m;
  psg_mutator_init(&m, psg_expr_get_ctx(func));
  m.visit[PSG_EXPR_CALL] = drop_add;
  psg_status st = psg_mutate(&m, func, out);
  psg_mutator_fini(&m);
  return st;
}

static const psg_pass_decl drop_add_operand_decl = {
    .name = "testing.DropAddOperand",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 0,
    .help = "a seeded bug: add(x, y) becomes x (test plugin)",
    .function = drop_add_operand,
};

/* add(%body, 0f) when `is_add_zero` of the body is false; else the body's
 * first operand (toggle) or the wrap again (grow). */
static bool is_add_zero(const psg_expr *e) {
  if (psg_expr_kind(e) != PSG_EXPR_CALL || psg_call_num_args(e) != 2) return false;
  psg_expr *op = psg_call_get_callee(e), *c = psg_call_get_arg(e, 1);
  if (psg_expr_kind(op) != PSG_EXPR_OP || strcmp(psg_op_name(op), "add") || psg_expr_kind(c) != PSG_EXPR_CONSTANT)
    return false;
  const psg_tensor *t = psg_constant_get_tensor(c);
  return psg_tensor_ndim(t) == 0 && psg_tensor_dtype(t) == PSG_DTYPE_FLOAT32 && *(const float *)psg_tensor_data(t) == 0;
}

static psg_status rebuild(psg_expr *func, psg_expr *body, psg_expr **out) {
  psg_ctx *ctx = psg_expr_get_ctx(func);
  size_t n = psg_function_num_params(func);
  psg_expr *params[16];
  if (n > 16) return psg_ctx_fail(ctx, PSG_ERR_UNSUPPORTED, "test plugin: at most 16 parameters");
  for (size_t i = 0; i < n; i++) params[i] = psg_function_get_param(func, i);
  return psg_function_create(ctx, params, n, body, psg_function_ret_type(func), psg_function_get_attrs(func), NULL,
                             out);
}

static psg_status wrap_add_zero(psg_expr *func, psg_expr **out) {
  psg_ctx *ctx = psg_expr_get_ctx(func);
  float zero = 0;
  psg_tensor *t = NULL;
  psg_expr *c = NULL, *op = NULL, *body = NULL;
  psg_status st = psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, NULL, 0, &zero, &t);
  if (!st) st = psg_constant_create(ctx, t, NULL, &c);
  if (!st) st = psg_op_get(ctx, "add", &op);
  psg_expr *args[2] = {psg_function_get_body(func), c};
  if (!st) st = psg_call_create(ctx, op, args, 2, NULL, NULL, &body);
  if (!st) st = rebuild(func, body, out);
  psg_expr_release(body);
  psg_expr_release(op);
  psg_expr_release(c);
  psg_tensor_release(t);
  return st;
}

static psg_status toggle_add_zero(psg_expr *func, psg_module *mod, psg_pass_context *pctx, void *user,
                                  psg_expr **out) {
  (void)mod;
  (void)pctx;
  (void)user;
  psg_expr *body = psg_function_get_body(func);
  if (is_add_zero(body)) return rebuild(func, psg_call_get_arg(body, 0), out);
  return wrap_add_zero(func, out);
}

static psg_status grow(psg_expr *func, psg_module *mod, psg_pass_context *pctx, void *user, psg_expr **out) {
  (void)mod;
  (void)pctx;
  (void)user;
  return wrap_add_zero(func, out);
}

static const psg_pass_decl grow_add_zero_decl = {
    .name = "testing.GrowAddZero",
    .kind = PSG_PASS_FUNCTION,
    .help = "wraps every function body in add(body, 0f): never converges (test plugin)",
    .function = grow,
};

static const psg_pass_decl toggle_add_zero_decl = {
    .name = "testing.ToggleAddZero",
    .kind = PSG_PASS_FUNCTION,
    .help = "wraps a body in add(body, 0f) or unwraps it: a cycle of two (test plugin)",
    .function = toggle_add_zero,
};

static psg_status register_passes(psg_ctx *ctx) {
  psg_status st = psg_pass_register_decl(ctx, &drop_add_operand_decl);
  if (!st) st = psg_pass_register_decl(ctx, &grow_add_zero_decl);
  if (!st) st = psg_pass_register_decl(ctx, &toggle_add_zero_decl);
  return st;
}

static const psg_pass_plugin_info info = {
    .abi_version = PSG_PASS_PLUGIN_ABI_VERSION,
    .name = "seeded-bug",
    .version = "1",
    .register_passes = register_passes,
};

__attribute__((visibility("default"))) const psg_pass_plugin_info *psg_get_pass_plugin_info(void) { return &info; }
