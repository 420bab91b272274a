/* Passage — ToBasicBlockNormalForm (module pass, opt 1; tvm-behavior §7.1,
 * the second step of the default pipeline, §7.2): let-binds only what scoping
 * needs, the nodes used from more than one scope (both branches of an If, or
 * a function body and its surroundings), each in the scope that dominates its
 * uses; everything else stays dataflow. The analysis is ToANormalForm's
 * (to_a_normal_form.c), so a graph without If or nested functions comes back
 * as the very same function; a module of such graphs (no If, Let or nested
 * Function: HAS_SCOPES, ir_internal.h) is given back without the analysis. */
#include "transforms/normal_form.h"

static bool dataflow_only(const psg_module *mod) {
  for (size_t i = 0; i < mod->n; i++) {
    const psg_expr *fn = mod->entries[i].func;
    if (fn->kind == PSG_EXPR_FUNCTION && (psgi_fn_body(fn)->flags & PSGI_EXPR_HAS_SCOPES)) return false;
  }
  return true;
}

static psg_status run_bbnf(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)pc;
  (void)user;
  if (dataflow_only(mod)) {
    psg_module_retain(mod);
    *out = mod;
    return PSG_OK;
  }
  return psgi_normal_form_module(mod, true, out);
}

static psg_status make_bbnf(psg_ctx *ctx, psg_attrs *options, void *user, psg_pass **out) {
  (void)options;
  (void)user;
  psg_pass_info *info;
  psg_status st = psg_pass_info_create(ctx, "ToBasicBlockNormalForm", 1, NULL, 0, &info);
  if (st) return st;
  st = psg_create_module_pass(ctx, info, run_bbnf, NULL, NULL, out);
  psg_pass_info_release(info);
  return st;
}

psg_status psgi_register_to_basic_block_normal_form(psg_ctx *ctx) {
  return psgi_register_simple(ctx, "ToBasicBlockNormalForm", PSG_PASS_MODULE, 1, NULL, 0,
                              "let-bind the expressions shared across If branches and function bodies",
                              make_bbnf);
}
