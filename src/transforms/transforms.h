/* Passage — the standard passes (one file each in src/transforms/) and their
 * registration in a context's pass registry under TVM's names. */
#ifndef PSG_TRANSFORMS_H
#define PSG_TRANSFORMS_H

#include "pass/pass_internal.h"

/* Registers every standard pass (called by the registry on first use). */
psg_status psgi_register_standard_passes(psg_ctx *ctx);

/* One per pass file (the table in transforms.c lists them). */
psg_status psgi_register_infer_type(psg_ctx *ctx);
psg_status psgi_register_fold_constant(psg_ctx *ctx);
psg_status psgi_register_dead_code(psg_ctx *ctx);
psg_status psgi_register_eliminate_common_subexpr(psg_ctx *ctx);
psg_status psgi_register_simplify_inference(psg_ctx *ctx);
psg_status psgi_register_fold_scale_axis(psg_ctx *ctx);
psg_status psgi_register_simplify_expr(psg_ctx *ctx);
psg_status psgi_register_canonicalize_ops(psg_ctx *ctx);
psg_status psgi_register_remove_unused_functions(psg_ctx *ctx);
psg_status psgi_register_inline_globals(psg_ctx *ctx);
psg_status psgi_register_fuse_ops(psg_ctx *ctx);
psg_status psgi_register_defuse_ops(psg_ctx *ctx);
psg_status psgi_register_to_basic_block_normal_form(psg_ctx *ctx);
psg_status psgi_register_to_a_normal_form(psg_ctx *ctx);
psg_status psgi_register_to_graph_normal_form(psg_ctx *ctx);
psg_status psgi_register_lambda_lift(psg_ctx *ctx);
psg_status psgi_register_combine_parallel_conv2d(psg_ctx *ctx);
psg_status psgi_register_canonicalize_cast(psg_ctx *ctx);
psg_status psgi_register_alter_op_layout(psg_ctx *ctx);
psg_status psgi_register_convert_layout(psg_ctx *ctx);
psg_status psgi_register_fast_math(psg_ctx *ctx);

/* Types every Relay function of `mod` in place (checked_type caches) and
 * reports type errors as diagnostics; used by InferType and the interpreter. */
psg_status psgi_infer_module_types(psg_ctx *ctx, const psg_module *mod);

/* Registers `name` (and the aliases TVM exposes) as a pass whose constructor
 * is `make`. */
psg_status psgi_register_simple(psg_ctx *ctx, const char *name, int kind, int opt_level,
                                const char *const *required, size_t num_required, const char *help,
                                psg_pass_ctor make);

/* A function pass `name` at `opt_level` requiring `required` (may be NULL)
 * that calls `fn` once per function with `user` (not owned). */
psg_status psgi_make_function_pass(psg_ctx *ctx, const char *name, int opt_level, const char *const *required,
                                   size_t num_required, psg_function_pass_fn fn, void *user, psg_pass **out);

/* The common body of a rewriting function pass: types the module when the
 * pass runs outside a Sequential (so `required` InferType did not run), then
 * rewrites `func` with a mutator whose visit slots are `visit` (NULL entries
 * keep the default) and whose user pointer is `user`. */
psg_status psgi_rewrite_function(psg_expr *func, const psg_module *mod, const psg_mutate_fn *visit, void *user,
                                 psg_expr **out);

#endif
