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

const psg_pass_decl psgi_pass_alter_op_layout = {
    .name = "AlterOpLayout",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 3,
    .required = psgi_required_infer_type,
    .help = "target-specific layouts; no target here, and TVM's generic hooks change "
             "nothing, so the module stays as it is",
    .function = alter_op_layout,
};
