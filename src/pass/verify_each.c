/* Passage — verify-each (issue 19, docs/pass-infra.md "Verify each"): with
 * the config testing.verify_each on, the run function checks the result of
 * every pass that changed the module with the module verifier the top layer
 * installed (src/transforms/verify_module.c). A failure fails the pass: its
 * input stays as it was, the instruments see after_pass_failed. */
#include "pass/pass_internal.h"

psg_status psgi_pass_install_verifier(psg_ctx *ctx, psgi_module_verifier_fn fn) {
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = psgi_pass_state_locked(ctx);
  if (st) st->verifier = fn;
  pthread_mutex_unlock(&ctx->lock);
  return st ? PSG_OK : psgi_nomem(ctx);
}

psg_status psgi_verify_each(psg_pass *p, psg_pass_context *pc, const psg_module *in, const psg_module *out) {
  /* A Sequential's children were each verified as they ran; an unchanged
   * module was verified when it was made. */
  if (p->kind == PSG_PASS_SEQUENTIAL || in == out || !out) return PSG_OK;
  if (!psg_pass_context_config_bool(pc, "testing.verify_each")) return PSG_OK;
  psg_ctx *ctx = p->ctx;
  pthread_mutex_lock(&ctx->lock);
  psgi_pass_state *st = psgi_pass_state_locked(ctx);
  psgi_module_verifier_fn fn = st ? st->verifier : NULL;
  pthread_mutex_unlock(&ctx->lock);
  return fn ? fn(ctx, in, out, p->info->name) : PSG_OK;
}
