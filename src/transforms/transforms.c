/* Passage — registration of the standard passes. The pass registry (src/pass)
 * calls psgi_register_standard_passes on first use; each pass file exports
 * one psgi_register_<pass> and adds one line to the table below. */
#include "transforms/transforms.h"

psg_status psgi_register_simple(psg_ctx *ctx, const char *name, int kind, int opt_level,
                                const char *const *required, size_t num_required, const char *help,
                                psg_pass_ctor make) {
  return psg_pass_register(ctx, name, kind, opt_level, required, num_required, NULL, help, make, NULL);
}

psg_status psgi_make_function_pass(psg_ctx *ctx, const char *name, int opt_level, const char *const *required,
                                   size_t num_required, psg_function_pass_fn fn, void *user, psg_pass **out) {
  *out = NULL;
  psg_pass_info *info;
  psg_status st = psg_pass_info_create(ctx, name, opt_level, required, num_required, &info);
  if (st) return st;
  st = psg_create_function_pass(ctx, info, fn, user, NULL, out);
  psg_pass_info_release(info);
  return st;
}

psg_status psgi_rewrite_function(psg_expr *func, const psg_module *mod, const psg_mutate_fn *visit, void *user,
                                 psg_expr **out) {
  *out = NULL;
  psg_status st = func->checked_type ? PSG_OK : psgi_infer_module_types(func->ctx, mod);
  if (st) return st;
  psg_mutator m;
  psg_mutator_init(&m, func->ctx);
  m.user = user;
  for (int k = 0; k < PSG_EXPR_KIND_COUNT; k++)
    if (visit[k]) m.visit[k] = visit[k];
  st = psg_mutate(&m, func, out);
  psg_mutator_fini(&m);
  return st;
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
    psgi_register_combine_parallel_conv2d,
    psgi_register_canonicalize_cast,
    psgi_register_alter_op_layout,
    psgi_register_convert_layout,
    psgi_register_fast_math,
};

psg_status psgi_register_standard_passes(psg_ctx *ctx) {
  psg_status st = PSG_OK;
  for (size_t i = 0; !st && i < sizeof registrations / sizeof *registrations; i++) st = registrations[i](ctx);
  return st;
}
