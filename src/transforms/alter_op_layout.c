/* Passage — AlterOpLayout (tvm-behavior §7.1, TVM's alter_op_layout.cc): a
 * function pass (opt 3, required InferType). TVM replaces each call by what
 * the op's FTVMAlterOpLayout hook returns for the current target; Passage has
 * no targets, and TVM's generic (target-less) hooks return None for every
 * op, so the pass keeps every function as it is (the very same nodes). */
#include "transforms/transforms.h"

static psg_status alter_op_layout(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user,
                                  psg_expr **out) {
  (void)mod;
  (void)pc;
  (void)user;
  /* No op has an alter hook without a target: the identity, by design. */
  psg_expr_retain(func);
  *out = func;
  return PSG_OK;
}

static psg_status make_alter_op_layout(psg_ctx *ctx, psg_attrs *options, void *user, psg_pass **out) {
  (void)options;
  (void)user;
  static const char *const required[] = {"InferType"};
  psg_pass_info *info;
  psg_status st = psg_pass_info_create(ctx, "AlterOpLayout", 3, required, 1, &info);
  if (st) return st;
  st = psg_create_function_pass(ctx, info, alter_op_layout, NULL, NULL, out);
  psg_pass_info_release(info);
  return st;
}

psg_status psgi_register_alter_op_layout(psg_ctx *ctx) {
  static const char *const required[] = {"InferType"};
  return psgi_register_simple(ctx, "AlterOpLayout", PSG_PASS_FUNCTION, 3, required, 1,
                              "target-specific layouts; no target here, and TVM's generic hooks change "
                              "nothing, so the module stays as it is",
                              make_alter_op_layout);
}
