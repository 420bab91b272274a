/* Passage — registration of the standard passes. The pass registry (src/pass)
 * calls psgi_register_standard_passes on first use; each pass file exports
 * one psgi_register_<pass> and adds one line to the table below. */
#include "transforms/transforms.h"

psg_status psgi_register_simple(psg_ctx *ctx, const char *name, int kind, int opt_level,
                                const char *const *required, size_t num_required, const char *help,
                                psg_pass_ctor make) {
  return psg_pass_register(ctx, name, kind, opt_level, required, num_required, NULL, help, make, NULL);
}

/* In the order `passage passes` lists them: analyses and folding first, then
 * TVM's pipeline order (tvm-behavior §7.2). */
static psg_status (*const registrations[])(psg_ctx *) = {
    psgi_register_infer_type,
    psgi_register_fold_constant,
    psgi_register_remove_unused_functions,
    psgi_register_inline_globals,
    psgi_register_dead_code,
    psgi_register_eliminate_common_subexpr,
    psgi_register_simplify_inference,
    psgi_register_fold_scale_axis,
    psgi_register_simplify_expr,
    psgi_register_canonicalize_ops,
    psgi_register_fuse_ops,
    psgi_register_defuse_ops,
    psgi_register_to_basic_block_normal_form,
    psgi_register_to_a_normal_form,
    psgi_register_to_graph_normal_form,
    psgi_register_lambda_lift,
};

psg_status psgi_register_standard_passes(psg_ctx *ctx) {
  psg_status st = PSG_OK;
  for (size_t i = 0; !st && i < sizeof registrations / sizeof *registrations; i++) st = registrations[i](ctx);
  return st;
}
