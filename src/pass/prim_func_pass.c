/* Passage — PrimFuncPass (spec pass-infra "Function-level passes", TVM's
 * PrimFuncPassNode): the callback runs once per PrimFunc of the module and
 * yields the rewritten PrimFunc, or NULL to remove it; Relay functions are
 * not shown to it and stay as they are (as a Relay function pass skips
 * PrimFuncs, so a Sequential can mix both kinds). Instruments, timing and
 * IR printing come from the one run function (run.c), as for every kind. */
#include "pass/pass_internal.h"

psg_status psgi_prim_func_body(psg_pass *p, psg_module *mod, psg_pass_context *pc, psg_module **out) {
  *out = NULL;
  psg_ctx *ctx = mod->ctx;
  size_t n = mod->n, k = 0;
  psgi_module_entry *es = psgi_alloc(ctx, (n ? n : 1) * sizeof *es);
  bool *owned = psgi_calloc(ctx, (n ? n : 1) * sizeof *owned);
  psg_status st = es && owned ? PSG_OK : psgi_nomem(ctx);
  bool changed = false;
  for (size_t i = 0; !st && i < n; i++) {
    psgi_module_entry e = mod->entries[i];
    if (e.prim && psgi_bisect_run_on(p, pc, e.gv->u.gvar.name)) {
      psg_tir_prim_func *nf = NULL;
      if ((st = p->fn.prim_func(e.prim, mod, pc, p->user, &nf)) != PSG_OK) {
        psg_tir_release(nf);
        break;
      }
      if (!nf) { /* removed */
        changed = true;
        continue;
      }
      if (psg_tir_kind(nf) != PSG_TIR_PRIM_FUNC) {
        st = psg_ctx_fail(ctx, PSG_ERR_PASS_FAILED, "prim_func pass '%s' returned a %s for @%s", p->info->name,
                          psg_tir_kind_name(psg_tir_kind(nf)), e.gv->u.gvar.name);
        psg_tir_release(nf);
        break;
      }
      if (nf == e.prim) {
        psg_tir_release(nf); /* unchanged: the module holds it */
      } else {
        changed = true;
        e.prim = nf;
        owned[k] = true;
      }
    }
    es[k++] = e;
  }
  if (!st && !changed) { /* every PrimFunc came back as itself: the module is the result */
    psg_module_retain(mod);
    *out = mod;
  } else if (!st) {
    st = psgi_module_from_entries_of(mod, es, k, mod->attrs, out);
  }
  for (size_t i = 0; es && owned && i < k; i++)
    if (owned[i]) psg_tir_release(es[i].prim);
  psgi_free(ctx, es);
  psgi_free(ctx, owned);
  return st;
}
