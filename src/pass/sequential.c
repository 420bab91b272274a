/* Passage — Sequential (tvm-behavior §2.3): one loop over the children in
 * list order; PassEnabled (disabled, then required, then opt_level) gates
 * each child with no instrument callbacks for a skipped one; the child's
 * `required` passes, resolved through the registry when the Sequential was
 * built, run first.
 *
 * Better than TVM: a required pass is not run again when its spec already
 * holds for the module (docs/pass-infra.md, module properties), `required`
 * entries may carry options ("FuseOps{fuse_opt_level=2}"), and an unknown
 * required name fails when the pipeline is built, not when it is reached. */
#include "pass/pass_cache.h"

void psgi_pass_list_free(psg_ctx *ctx, psgi_pass_list *l) {
  for (size_t i = 0; i < l->n; i++) psg_pass_release(l->passes[i]);
  psgi_free(ctx, l->passes);
  *l = (psgi_pass_list){0};
}

psg_status psgi_resolve_required(psg_ctx *ctx, const psg_pass_info *info, psgi_pass_list *out) {
  *out = (psgi_pass_list){0};
  if (!info->num_required) return PSG_OK;
  if (!(out->passes = psgi_calloc(ctx, info->num_required * sizeof *out->passes))) return psgi_nomem(ctx);
  for (size_t i = 0; i < info->num_required; i++) {
    const char *spec = info->required[i];
    size_t before = psg_ctx_diag_count(ctx);
    psg_status st = psg_pipeline_parse(ctx, spec, &out->passes[i]);
    if (st) {
      /* The registry's "cannot use X to create the pass: why" names the
       * pass that requires X too (one diagnostic, not a second). */
      size_t n = psg_ctx_diag_count(ctx);
      const psg_diag *d = n > before ? psg_ctx_get_diag(ctx, n - 1) : NULL;
      const char *why = d ? strstr(psg_diag_message(d), "create the pass") : NULL;
      why = why ? why + strlen("create the pass") : d ? psg_diag_message(d) : psg_status_str(st);
      char *why_copy = psgi_strdup(ctx, why);
      const char *sep = why_copy && *why_copy == ':' ? "" : ": ";
      if (d && why_copy)
        psgi_diag_reword(ctx, n - 1, "cannot use %s to create the pass required by '%s'%s%s", spec, info->name, sep,
                         why_copy);
      else
        psgi_diag_add(ctx, PSG_SEVERITY_ERROR, st, NULL, 0, 0, NULL, 0, NULL,
                      "cannot use %s to create the pass required by '%s'%s%s", spec, info->name, sep,
                      why_copy ? why_copy : psg_status_str(st));
      psgi_free(ctx, why_copy);
      psgi_pass_list_free(ctx, out);
      return st;
    }
    out->passes[i]->essential = true; /* a dependency: opt-bisect never skips it */
    out->n = i + 1;
  }
  return PSG_OK;
}

/* Runs the `required` passes of a child before it. Instrumented, but not
 * gated by PassEnabled: a dependency runs even if disabled (TVM's documented
 * behaviour, issue #6074). Skipped when its spec holds for the module. */
static psg_status run_required(const psgi_pass_list *req, psg_module **mod, psg_pass_context *pc) {
  for (size_t i = 0; i < req->n; i++) {
    psg_pass *r = req->passes[i];
    if (r->spec && psgi_module_has_spec(*mod, r->spec)) continue;
    psg_module *next = NULL;
    psg_status st = psgi_pass_call(r, *mod, pc, &next);
    if (st) return st;
    psg_module_release(*mod);
    *mod = next;
  }
  return PSG_OK;
}

psg_status psgi_sequential_body(psg_pass *seq, psg_module *mod, psg_pass_context *pc, psg_module **out) {
  psg_module *cur = mod;
  /* The runner's reference when it gave it (run.c), else our own. */
  if (!psgi_pass_take_handed(mod)) psg_module_retain(cur);
  size_t no_chain_before = 0; /* children the pass cache declined to chain */
  for (size_t i = 0; i < seq->num_children; i++) {
    psg_pass *child = seq->children[i];
    if (!psg_pass_context_pass_enabled(pc, child->info)) continue;
    if (i >= no_chain_before) { /* consecutive cacheable passes as one unit (pass_cache_chain.c) */
      bool chained = false;
      size_t at = i;
      psg_status st = psgi_pass_cache_chain(seq, &at, &cur, pc, &chained);
      if (st) return psg_module_release(cur), st;
      if (chained) {
        i = at - 1;
        continue;
      }
      no_chain_before = at;
    }
    psg_status st = run_required(&seq->child_required[i], &cur, pc);
    psg_module *next = NULL;
    /* The child may take our reference and free `cur` before it returns
     * (hand_over.c), as this body frees its own input after its first child. */
    bool ours = true;
    if (!st) {
      psgi_pass_hand_over(cur);
      st = psgi_pass_call(child, cur, pc, &next);
      ours = psgi_pass_handed_back(cur);
    }
    if (ours) psg_module_release(cur);
    if (st) return st;
    cur = next;
  }
  *out = cur;
  return PSG_OK;
}
