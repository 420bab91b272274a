/* Passage — Sequential (tvm-behavior §2.3): one loop over the children in
 * list order; PassEnabled (disabled, then required, then opt_level) gates
 * each child with no instrument callbacks for a skipped one; the child's
 * `required` passes are resolved through the registry and run first.
 *
 * Better than TVM: a required pass is not re-run when the module is exactly
 * the one it last produced (see pass.c), and `required` entries may carry
 * options ("FuseOps{fuse_opt_level=2}"). */
#include "pass/pass_internal.h"

psg_status psgi_run_required(const psg_pass_info *info, psg_module **mod, psg_pass_context *pc) {
  psg_ctx *ctx = pc->ctx;
  for (size_t i = 0; i < info->num_required; i++) {
    const char *spec = info->required[i];
    if (psgi_pass_satisfied_text(spec, *mod)) continue; /* no parse: the usual case */
    psg_pass *req = NULL;
    psg_status st = psg_pipeline_parse(ctx, spec, &req);
    if (st) {
      psgi_diag_note(ctx, "cannot use %s to create the pass required by '%s'", spec, info->name);
      return st;
    }
    if (req->spec && psgi_pass_satisfied(req->spec, *mod)) {
      psg_pass_release(req);
      continue;
    }
    psg_module *next = NULL;
    /* Instrumented, but not gated by PassEnabled: a dependency runs even if
     * disabled (TVM's documented behaviour, issue #6074). */
    st = psgi_pass_call(req, *mod, pc, &next);
    psg_pass_release(req);
    if (st) return st;
    psg_module_release(*mod);
    *mod = next;
  }
  return PSG_OK;
}

psg_status psgi_sequential_run(psg_pass *seq, psg_module *mod, psg_pass_context *pc, psg_module **out) {
  psg_module *cur = mod;
  psg_module_retain(cur);
  for (size_t i = 0; i < seq->num_children; i++) {
    psg_pass *child = seq->children[i];
    if (!psg_pass_context_pass_enabled(pc, child->info)) continue;
    psg_status st = psgi_run_required(child->info, &cur, pc);
    psg_module *next = NULL;
    if (!st) st = psgi_pass_call(child, cur, pc, &next);
    psg_module_release(cur);
    if (st) return st;
    cur = next;
  }
  *out = cur;
  return PSG_OK;
}
