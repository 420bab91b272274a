/* Passage — AlterOpLayout (tvm-behavior §7.1, TVM's alter_op_layout.cc): a
 * function pass (opt 3, required InferType) that replaces each call of an op
 * with an FTVMAlterOpLayout hook (include/passage/op_attr.h) by what the
 * hook returns and rewrites the layouts around it with ConvertLayout's
 * rewriter (layout_transform where a layout changes, the layout carried
 * through the ops that follow). TVM's generic (target-less) hooks return
 * None for every op and Passage has no targets, so without the host's hooks
 * the pass keeps every function as it is (the very same nodes). */
#include "ops/op_attr.h"
#include "transforms/layout_rewrite.h"
#include "transforms/transforms.h"

static psg_status alter_op_layout(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user,
                                  psg_expr **out) {
  (void)mod;
  (void)pc;
  (void)user;
  if (psgi_op_hooks_any(func->ctx, "FTVMAlterOpLayout")) return psgi_alter_op_layouts(func, out);
  psg_expr_retain(func);
  *out = func;
  return PSG_OK;
}

const psg_pass_decl psgi_pass_alter_op_layout = {
    .name = "AlterOpLayout",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 3,
    .required = psgi_required_infer_type,
    .help = "each call of an op with an FTVMAlterOpLayout hook replaced by what the hook returns, "
            "layouts rewritten around it; no hooks without a host, so the module stays as it is",
    .needs = PSG_PROP_TYPED,
    .function = alter_op_layout,
    .flags = PSG_PASS_FLAG_REASSOCIATES, /* validate-each: a convolution in another layout sums in another order */
};
