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
    if (fn && fn->kind == PSG_EXPR_FUNCTION && (psgi_fn_body(fn)->flags & PSGI_EXPR_HAS_SCOPES)) return false;
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

const psg_pass_decl psgi_pass_to_basic_block_normal_form = {
    .name = "ToBasicBlockNormalForm",
    .kind = PSG_PASS_MODULE,
    .opt_level = 1,
    .help = "let-bind the expressions shared across If branches and function bodies",
    .establishes = PSG_PROP_BBNF,
    .module = run_bbnf,
};
