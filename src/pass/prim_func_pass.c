/* Passage — PrimFuncPass (spec pass-infra "Function-level passes", TVM's
 * PrimFuncPassNode): the callback runs once per PrimFunc of the module and
 * yields the rewritten PrimFunc, or NULL to remove it; Relay functions are
 * not shown to it and stay as they are (as a Relay function pass skips
 * PrimFuncs, so a Sequential can mix both kinds). Instruments, timing and
 * IR printing come from the one run function (run.c), as for every kind. */
#include "pass/pass_cache.h"
#include "pass/run_scratch.h"

/* With threads (parallel.c): the callback on every PrimFunc ahead of the
 * walk below, which takes the results in its place. */
typedef struct prim_call {
  psg_pass *p;
  psg_module *mod;
  psg_pass_context *pc;
} prim_call;

static bool chosen_prim(const psgi_module_entry *e) { return e->prim != NULL; }

static psg_status call_prim(const psgi_module_entry *e, void *user, void **out) {
  prim_call *c = user;
  psg_tir_prim_func *nf = NULL;
  psg_status st = psgi_pass_cache_prim_func(c->p, c->mod, c->pc, e, &nf);
  *out = nf;
  return st;
}

static void release_prim(void *f) { psg_tir_release(f); }

psg_status psgi_prim_func_body(psg_pass *p, psg_module *mod, psg_pass_context *pc, psg_module **out) {
  *out = NULL;
  psg_ctx *ctx = mod->ctx;
  size_t n = mod->n, k = 0;
  prim_call call = {p, mod, pc};
  psgi_precomputed *pre = NULL;
  psg_status st = psgi_parallel_precompute(p, mod, pc, chosen_prim, call_prim, &call, release_prim, &pre);
  if (st) return st;
  /* The loop's frame: a table the pass keeps across the functions below
   * (run_scratch.h) lives until the loop ends. */
  psgi_run_scratch_frame frame;
  psgi_run_scratch_enter(&frame, ctx);
  psgi_module_entry *es = psgi_alloc(ctx, (n ? n : 1) * sizeof *es);
  bool *owned = psgi_calloc(ctx, (n ? n : 1) * sizeof *owned);
  st = es && owned ? PSG_OK : psgi_nomem(ctx);
  bool changed = false;
  for (size_t i = 0; !st && i < n; i++) {
    psgi_module_entry e = mod->entries[i];
    if (e.prim && psgi_bisect_run_on(p, pc, e.gv->u.gvar.name)) {
      psg_tir_prim_func *nf = NULL;
      void *ahead = NULL;
      st = pre ? psgi_precomputed_next(pre, &ahead) : psgi_pass_cache_prim_func(p, mod, pc, &e, &nf);
      if (pre) nf = ahead;
      if (st != PSG_OK) {
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
  psgi_precomputed_free(pre);
  psgi_run_scratch_leave(&frame);
  return st;
}
